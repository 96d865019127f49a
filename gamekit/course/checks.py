"""The public checks of a class copy, shown as a student can act on them.

otter-grader runs a class copy's public tests (`grader.check("q4_1")`). Its report of a failing
check is a doctest trace with paths into Python's library, and every check appends to an
`.OTTER_LOG` file beside the notebook. The class copies that `assign` makes start with

    from gamekit.course.checks import PublicChecks
    grader = PublicChecks("04-game-trees-student.ipynb")

instead: the same tests run by otter, shown in one or two lines each ("not yet" and the test's
hint; or "the public checks pass", which says only that the answer has the right form, since the
teacher's hidden tests decide), and no file is written beside the notebook.
"""

from __future__ import annotations

import html
import inspect
from typing import Any

import otter

from ..sandbox.plain import graded_answers

__all__ = ["CheckResult", "PublicChecks"]


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


class PublicChecks(otter.Notebook):
    """otter's `Notebook` that reports checks briefly (`CheckResult`) and keeps no log file."""

    def _log_event(self, *args: Any, **kwargs: Any) -> None:  # no .OTTER_LOG beside the notebook
        return None

    def check(self, question: str, global_env: dict[str, Any] | None = None) -> CheckResult:
        if global_env is None:  # the caller's variables, as otter's own check takes them
            frame = inspect.currentframe()
            global_env = frame.f_back.f_globals if frame is not None and frame.f_back is not None else {}
        # the answers as the hidden tests see them (a NumPy number as a Python one): see plain.graded_answers
        return CheckResult(question, super().check(question, graded_answers(global_env)))
