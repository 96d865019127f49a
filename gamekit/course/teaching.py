"""Small helpers the notebooks use: show a function's real source (and a deprecated self-check)."""

from __future__ import annotations

import html
import inspect
import math
from fractions import Fraction
from typing import Any


class SourceView:
    """Source code of a library object, shown highlighted in Jupyter and as text elsewhere."""

    def __init__(self, obj: Any):
        self.obj = obj
        self.source = inspect.getsource(obj)
        module = inspect.getmodule(obj)
        self.where = module.__name__ if module else "?"

    def __str__(self) -> str:
        return self.source

    def _repr_html_(self) -> str:
        try:
            from pygments import highlight
            from pygments.formatters import HtmlFormatter
            from pygments.lexers import PythonLexer

            fmt = HtmlFormatter(noclasses=True, style="default")
            body = highlight(self.source, PythonLexer(), fmt)
        except ImportError:  # pygments comes with IPython; this is only a fallback
            body = f"<pre>{html.escape(self.source)}</pre>"
        name = getattr(self.obj, "__qualname__", repr(self.obj))
        return (
            f"<div style='font-size:0.85em'><div style='color:#555'>source of "
            f"<code>{html.escape(self.where)}.{html.escape(name)}</code></div>{body}</div>"
        )

    def _repr_pretty_(self, p, cycle) -> None:
        p.text(self.source)


def show_source(obj: Any) -> SourceView:
    """Show the source of `obj` (a function or class of gamekit): the code the tests test."""
    return SourceView(obj)


class CheckResult:
    """The verdict of a self-check: truthy when right, with a message for the student."""

    def __init__(self, ok: bool, message: str):
        self.ok = ok
        self.message = message

    def __bool__(self) -> bool:
        return self.ok

    def __repr__(self) -> str:
        return self.message

    def _repr_html_(self) -> str:
        colour = "#1a7f37" if self.ok else "#b35900"
        return f"<div style='color:{colour};font-weight:bold'>{html.escape(self.message)}</div>"


def _same(answer: Any, expected: Any, tol: float) -> bool:
    if isinstance(expected, float) or isinstance(answer, float):
        try:
            return math.isclose(float(answer), float(expected), rel_tol=tol, abs_tol=tol)
        except (TypeError, ValueError):
            return False
    if isinstance(expected, (set, frozenset)):
        try:
            return set(answer) == set(expected)
        except TypeError:
            return False
    if isinstance(expected, (list, tuple)) and isinstance(answer, (list, tuple)):
        return len(answer) == len(expected) and all(_same(a, e, tol) for a, e in zip(answer, expected))
    if isinstance(expected, Fraction) and isinstance(answer, (int, Fraction)):
        return Fraction(answer) == expected
    return answer == expected


def check(answer: Any, expected: Any, hint: str = "", tol: float = 1e-9) -> CheckResult:
    """Deprecated self-check, kept only so that notebooks not yet converted still run.

    Exercises are checked by otter-grader now (`grader.check("q1_1")` in the student notebooks
    that `python -m gamekit.course assign` builds). This check never shows the expected value,
    what is missing or extra, or whether a number is too large or too small: only "Right" or
    "Not yet" and the author's hint.
    """
    if answer is None or answer is Ellipsis:
        return CheckResult(False, "Not yet: replace the ... with your answer and run the cell again.")
    if _same(answer, expected, tol):
        return CheckResult(True, "Right.")
    return CheckResult(False, "Not yet." + (f" Hint: {hint}" if hint else ""))
