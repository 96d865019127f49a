"""What an answer may be (one rule for every check), and the public checks of a class copy.

**The answer rule.** A student's answer counts in its *normal form*, `as_answer(value)`:

* a NumPy number is the Python number it stands for, an array the sequence of its items;
* a whole number is an `int`, whichever way it is written (`8`, `np.int64(8)`, `8.0`,
  `Fraction(8, 1)`); `True`/`False` stay bools;
* a fraction is a `Fraction`, also when written as a float equal to it (`0.5`, `2 / 21`: any float
  within 1e-12 of a fraction with a denominator up to 10,000); other floats stay floats;
* a list, a tuple and an array of the same items are the same sequence, a `tuple` (nested ones too);
* a word is compared without case and surrounding spaces (`" More"` is `"more"`);
* sets, dicts and None keep their kind, with their items in normal form; anything else (a game
  object, a function) is left as it is.

Every public check and hidden test of lessons 00-10 reads answers through it, so none of them can
refuse a right answer another accepts:

    a = as_answer(answer_2_6)                              # a public check: the form
    assert isinstance(a, tuple) and len(a) == 3 and all(type(x) is int for x in a)
    assert same_answer(answer_2_6, (18, 6, 20))           # a hidden test: the value

`same_answer(value, expected)` compares normal forms (floats to 9 significant digits; `decimals`
rounds further, `any_order` drops the order of a sequence), and a self-study copy compares the salted
hash of the same form (`canonical`, the normal form as JSON data). The notebooks import the two
helpers in their set-up cell, so the judge (which runs the lesson's own cells) has them as well.
Code exercises are judged by what the code does (a probe of its values and calls), never by this
rule. `tests/test_check_agreement.py` holds every chapter to it.

**Public checks.** otter-grader runs a class copy's public tests (`grader.check("q4_1")`). Its
report of a failing check is a doctest trace with paths into Python's library, and every check
appends to an `.OTTER_LOG` file beside the notebook. The class copies that `assign` makes start with

    from gamekit.course.checks import PublicChecks
    grader = PublicChecks("04-game-trees")

instead: the same tests run by otter, shown in one or two lines each ("not yet" and the test's
hint; or "the public checks pass", which says only that the answer has the right form, since the
teacher's hidden tests decide), and no file is written beside the notebook.

The public tests live in the notebook file's metadata. `PublicChecks` takes the assignment's name,
not a file name, and finds the file itself: the notebook Jupyter says is running, else a notebook
in the working folder that carries this assignment's tests (every copy of one assignment carries
the same ones). So a copy renamed to `bob.ipynb`, as `grade` collects them, still checks.
`PublicChecks` imports otter only when it is first used: the answer rule needs nothing of it.
"""

from __future__ import annotations

import functools
import html
import inspect
import json
import math
import numbers
import os
from fractions import Fraction
from pathlib import Path
from typing import Any

from ..i18n import _
from ..sandbox.plain import graded_answers

__all__ = [
    "CheckResult",
    "MAX_DENOMINATOR",
    "PublicChecks",  # noqa: F822 (made on first use, see __getattr__)
    "as_answer",
    "canonical",
    "find_notebook",
    "load_self_study",
    "rounded",
    "SELF_STUDY_KEY",
    "same_answer",
    "unordered",
]

#: Largest denominator under which a float is read as the fraction it equals.
MAX_DENOMINATOR = 10_000


def _as_number(value: Any) -> Any:
    """A real number in normal form (bool, int, Fraction or float), or None if `value` is none."""
    if isinstance(value, bool) or type(value).__name__ == "bool_":
        return bool(value)
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, Fraction):
        return int(value) if value.denominator == 1 else value
    if isinstance(value, numbers.Real):
        x = float(value)
        if not math.isfinite(x):
            return x
        if x.is_integer():
            return int(x)
        frac = Fraction(x).limit_denominator(MAX_DENOMINATOR)
        return frac if abs(float(frac) - x) <= 1e-12 * max(1.0, abs(x)) else x
    return None


def as_answer(value: Any) -> Any:
    """`value` in the answer rule's normal form (see the module doc): whole numbers as int, fractions
    (and floats equal to one) as Fraction, lists, tuples and arrays as tuples, words stripped and in
    lower case, NumPy numbers as Python ones. What the rule does not cover is returned unchanged."""
    if value is None or isinstance(value, str):
        return value if value is None else value.strip().lower()
    number = _as_number(value)
    if number is not None:
        return number
    if type(value).__module__ == "numpy" and hasattr(value, "tolist"):  # an array or another NumPy scalar
        return as_answer(value.tolist())
    if isinstance(value, (list, tuple, range)):
        return tuple(as_answer(v) for v in value)
    if isinstance(value, (set, frozenset)):
        return type(value)(as_answer(v) for v in value)
    if isinstance(value, dict):
        return {as_answer(k): as_answer(v) for k, v in value.items()}
    return value


def _key(form: object) -> str:
    return json.dumps(form, sort_keys=True)


def canonical(value: Any) -> object | None:
    """`as_answer(value)` as JSON data (None if it is not plain data), what `same_answer` compares and
    a self-study copy hashes: an int is itself; ["bool", b], ["none"], ["str", word],
    ["fraction", p, q], ["float", 9 significant digits], ["seq", items], ["set", sorted items] and
    ["dict", sorted pairs] are the other kinds."""
    value = as_answer(value)
    if value is None:
        return ["none"]
    if isinstance(value, bool):
        return ["bool", value]
    if isinstance(value, int):
        return value
    if isinstance(value, Fraction):
        return ["fraction", value.numerator, value.denominator]
    if isinstance(value, float):
        return ["float", repr(value) if not math.isfinite(value) else f"{value:.9g}"]
    if isinstance(value, str):
        return ["str", value]
    if isinstance(value, tuple):
        items = [canonical(v) for v in value]
        return None if any(i is None for i in items) else ["seq", items]
    if isinstance(value, (set, frozenset)):
        items = [canonical(v) for v in value]
        return None if any(i is None for i in items) else ["set", sorted(items, key=_key)]
    if isinstance(value, dict):
        pairs = [[canonical(k), canonical(v)] for k, v in value.items()]
        if any(k is None or v is None for k, v in pairs):
            return None
        return ["dict", sorted(pairs, key=_key)]
    return None


def rounded(form: object, decimals: int | None) -> object:
    """A canonical form with every number written to `decimals` places (None: unchanged), for an
    exercise whose tests accept an answer within a tolerance (`self_study_decimals`)."""
    if decimals is None:
        return form
    if type(form) is int:  # a whole number and a number that rounds to it must meet
        return ["float", f"{form:.{decimals}f}"]
    if not isinstance(form, list) or not form:
        return form
    if form[0] == "fraction":
        return ["float", f"{round(form[1] / form[2], decimals):.{decimals}f}"]
    if form[0] == "float":
        x = float(form[1])
        return ["float", f"{round(x, decimals):.{decimals}f}"] if math.isfinite(x) else form
    if form[0] in ("seq", "set"):
        return [form[0], [rounded(item, decimals) for item in form[1]]]
    if form[0] == "dict":
        return ["dict", [[rounded(k, decimals), rounded(v, decimals)] for k, v in form[1]]]
    return form


def unordered(form: object) -> object:
    """A canonical form with the order of a top-level sequence dropped (for "in any order" answers)."""
    if isinstance(form, list) and form and form[0] == "seq":
        return ["set", sorted(form[1], key=_key)]
    return form


def same_answer(value: Any, expected: Any, *, decimals: int | None = None, any_order: bool = False) -> bool:
    """Whether `value` is the answer `expected` under the answer rule: equal normal forms (numbers
    rounded to `decimals` places if given; a sequence's order ignored if `any_order`). A value the
    rule cannot read (a function, an object) is never the same as anything."""
    if decimals is not None and (type(decimals) is not int or not 0 <= decimals <= 12):
        raise ValueError(f"decimals must be None or a whole number from 0 to 12, got {decimals!r}")
    if type(any_order) is not bool:
        raise TypeError(f"any_order must be True or False, got {any_order!r}")
    forms = [rounded(canonical(v), decimals) for v in (value, expected)]
    if any_order:
        forms = [unordered(f) for f in forms]
    return forms[0] is not None and forms[0] == forms[1]


class CheckResult:
    """What `PublicChecks.check` shows: the question, passed or not yet, and the hints of failed checks."""

    def __init__(self, question: str, result: Any):
        self.question = question
        self.result = result  # otter's own result, for whoever wants the details
        cases = [c for c in getattr(result, "test_case_results", []) if not c.test_case.hidden]
        self.passed = all(c.passed for c in cases)
        self.hints = [  # a check's hint is in the catalogue too (taken from the masters' test configs)
            _(c.test_case.failure_message)
            if c.test_case.failure_message
            else _("a check of this exercise does not hold yet")
            for c in cases
            if not c.passed
        ]

    def lines(self) -> list[str]:
        """The report in the language in force (`gamekit.i18n`), the hints too (as the catalogue has them)."""
        if self.passed:
            return [
                _(
                    "{question}: the public checks pass. They check the form of your answer; "
                    "your teacher's hidden tests decide whether it is right."
                ).format(question=self.question)
            ]
        hints = [_("Hint: {hint}").format(hint=hint) for hint in dict.fromkeys(self.hints)]
        return [_("{question}: not yet.").format(question=self.question), *hints]

    def __repr__(self) -> str:
        return "\n".join(self.lines())

    def _repr_html_(self) -> str:
        colour = "#1a5e1a" if self.passed else "#8a1c00"  # both at least 4.5:1 on white
        body = "<br>".join(html.escape(line) for line in self.lines())
        return f'<p role="status" style="color: {colour}">{body}</p>'


#: Key of a self-study copy's metadata that holds its checks' data (`{"assignment_name", "data"}`):
#: stored in the notebook file, so the student meets the lesson's title first, not a page of JSON.
SELF_STUDY_KEY = "gamekit_self_study"
#: What each kind of copy keeps in its metadata: its key there, and the entry that must be present.
_CARRIES = {"otter": "tests", SELF_STUDY_KEY: "data"}


def _assignment_of(path: Path, key: str = "otter") -> str | None:
    """The assignment name a notebook file carries under `key` (None if it is not a readable notebook)."""
    try:
        with open(path, encoding="utf-8") as f:
            meta = json.load(f).get("metadata", {}).get(key, {})
    except (OSError, ValueError, AttributeError):
        return None
    return meta.get("assignment_name") if isinstance(meta, dict) and _CARRIES[key] in meta else None


def find_notebook(assignment: str, folder: str | Path = ".", key: str = "otter") -> str:
    """The notebook file whose public tests `PublicChecks` reads for `assignment` (with `key` =
    SELF_STUDY_KEY: the self-study copy whose data `load_self_study` reads).

    `assignment` may also be a file name (the copies of earlier versions name their file): used
    if it exists. Else the notebook Jupyter runs (`JPY_SESSION_NAME`), if it carries the assignment,
    else the first notebook in `folder` that does. A FileNotFoundError says what to do otherwise.
    """
    if key not in _CARRIES:
        raise ValueError(f"key must be one of {sorted(_CARRIES)}, got {key!r}")
    folder = Path(folder)
    if assignment.endswith(".ipynb") and (folder / assignment).is_file():
        return str(folder / assignment)
    name = assignment.removesuffix(".ipynb").removesuffix("-student")
    running = os.environ.get("JPY_SESSION_NAME", "")
    candidates = [Path(running)] if running.endswith(".ipynb") else []
    candidates += sorted(folder.glob("*.ipynb"))
    for path in candidates:
        if path.is_file() and _assignment_of(path, key) == name:
            return str(path)
    raise FileNotFoundError(
        _(
            "the public checks of {name} are read from this notebook's file, and no notebook in "
            "{folder} carries them: run this notebook from the folder it is saved in (any file name will do)"
        ).format(name=repr(name), folder=folder.resolve())
    )


def load_self_study(assignment: str, folder: str | Path = ".") -> dict:
    """The checks' data a self-study copy of `assignment` keeps in its file's metadata (for
    `gamekit.course.selfstudy.SelfStudy`); the file is found as `find_notebook` finds it."""
    path = find_notebook(assignment, folder, key=SELF_STUDY_KEY)
    with open(path, encoding="utf-8") as f:
        data = json.load(f)["metadata"][SELF_STUDY_KEY]["data"]
    if not isinstance(data, dict) or not isinstance(data.get("questions"), dict):
        raise ValueError(
            _("{path}: the self-study data in its metadata is damaged; make the copy again").format(path=path)
        )
    return data


@functools.cache
def _public_checks() -> type:
    """The class `PublicChecks` (made on first use: importing otter takes a second or more)."""
    import otter

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

    PublicChecks.__qualname__ = "PublicChecks"
    return PublicChecks


def __getattr__(name: str) -> Any:  # `from gamekit.course.checks import PublicChecks` builds it then
    if name == "PublicChecks":
        return _public_checks()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
