"""show_source: show a function's real source, so the code a reader reads is the code the tests test."""

from __future__ import annotations

import html
import inspect
from typing import Any

__all__ = [
    "show_source",
    "SourceView",
]


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
