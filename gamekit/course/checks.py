"""The public checks of a class copy, shown as a student can act on them.

otter-grader runs a class copy's public tests (`grader.check("q4_1")`). Its report of a failing
check is a doctest trace with paths into Python's library, and every check appends to an
`.OTTER_LOG` file beside the notebook. The class copies that `assign` makes start with

    from gamekit.course.checks import PublicChecks
    grader = PublicChecks("04-game-trees")

instead: the same tests run by otter, shown in one or two lines each ("not yet" and the test's
hint; or "the public checks pass", which says only that the answer has the right form, since the
teacher's hidden tests decide), and no file is written beside the notebook.

The public tests live in the notebook file's metadata. `PublicChecks` takes the assignment's name,
not a file name, and finds the file itself: the notebook Jupyter says is running, else a notebook
in the working folder that carries this assignment's tests (every copy of one assignment carries
the same ones). So a copy renamed to `bob.ipynb`, as `grade` collects them, still checks.
"""

from __future__ import annotations

import html
import inspect
import json
import os
from pathlib import Path
from typing import Any

import otter

from ..sandbox.plain import graded_answers

__all__ = ["CheckResult", "find_notebook", "PublicChecks"]


class CheckResult:
    """What `PublicChecks.check` shows: the question, passed or not yet, and the hints of failed checks."""

    def __init__(self, question: str, result: Any):
        self.question = question
        self.result = result  # otter's own result, for whoever wants the details
        cases = [c for c in getattr(result, "test_case_results", []) if not c.test_case.hidden]
        self.passed = all(c.passed for c in cases)
        self.hints = [
            c.test_case.failure_message or "a check of this exercise does not hold yet" for c in cases if not c.passed
        ]

    def lines(self) -> list[str]:
        if self.passed:
            return [
                f"{self.question}: the public checks pass. They check the form of your answer; "
                "your teacher's hidden tests decide whether it is right."
            ]
        return [f"{self.question}: not yet."] + [f"Hint: {hint}" for hint in dict.fromkeys(self.hints)]

    def __repr__(self) -> str:
        return "\n".join(self.lines())

    def _repr_html_(self) -> str:
        colour = "#1a5e1a" if self.passed else "#8a1c00"  # both at least 4.5:1 on white
        body = "<br>".join(html.escape(line) for line in self.lines())
        return f'<p role="status" style="color: {colour}">{body}</p>'


def _assignment_of(path: Path) -> str | None:
    """The otter assignment name a notebook file carries (None if it is not a readable notebook)."""
    try:
        with open(path, encoding="utf-8") as f:
            meta = json.load(f).get("metadata", {}).get("otter", {})
    except (OSError, ValueError, AttributeError):
        return None
    return meta.get("assignment_name") if isinstance(meta, dict) and "tests" in meta else None


def find_notebook(assignment: str, folder: str | Path = ".") -> str:
    """The notebook file whose public tests `PublicChecks` reads for `assignment`.

    `assignment` may also be a file name (the copies of earlier versions name their file): used
    if it exists. Else the notebook Jupyter runs (`JPY_SESSION_NAME`), if it carries the assignment,
    else the first notebook in `folder` that does. A FileNotFoundError says what to do otherwise.
    """
    folder = Path(folder)
    if assignment.endswith(".ipynb") and (folder / assignment).is_file():
        return str(folder / assignment)
    name = assignment.removesuffix(".ipynb").removesuffix("-student")
    running = os.environ.get("JPY_SESSION_NAME", "")
    candidates = [Path(running)] if running.endswith(".ipynb") else []
    candidates += sorted(folder.glob("*.ipynb"))
    for path in candidates:
        if path.is_file() and _assignment_of(path) == name:
            return str(path)
    raise FileNotFoundError(
        f"the public checks of {name!r} are read from this notebook's file, and no notebook in "
        f"{folder.resolve()} carries them: run this notebook from the folder it is saved in "
        "(any file name will do)"
    )


class PublicChecks(otter.Notebook):
    """otter's `Notebook` that reports checks briefly (`CheckResult`) and keeps no log file.

    `assignment`: the assignment's name (or its file's name); the notebook file is found by
    `find_notebook`, so renaming the copy changes nothing."""

    def __init__(self, assignment: str | None = None, **kwargs: Any):
        super().__init__(find_notebook(assignment) if assignment else None, **kwargs)

    def _log_event(self, *args: Any, **kwargs: Any) -> None:  # no .OTTER_LOG beside the notebook
        return None

    def check(self, question: str, global_env: dict[str, Any] | None = None) -> CheckResult:
        if global_env is None:  # the caller's variables, as otter's own check takes them
            frame = inspect.currentframe()
            global_env = frame.f_back.f_globals if frame is not None and frame.f_back is not None else {}
        # the answers as the hidden tests see them (a NumPy number as a Python one): see plain.graded_answers
        return CheckResult(question, super().check(question, graded_answers(global_env)))
