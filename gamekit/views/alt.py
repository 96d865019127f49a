"""Text alternatives for figures: a short alt text (and an optional data table) made from the data.

Every figure the course draws carries a short description of what it shows and the one thing to
see in it, made from the same data it plots ("Bar chart: 255,168 games of TicTacToe by length;
most end after 9 moves (127,872)"). A drawing function states it with `set_alt(ax_or_fig, text,
table)`; a figure drawn with plain matplotlib gets one made from its artists by
`describe_axes` (the kind of chart and numbers read from its bars, lines, points or image).

`install()` (run when `gamekit.views` is imported in a kernel) makes every figure shown inline
carry it: the output's `text/plain` is the alt text (what a screen reader or a text export
reads instead of "<Figure size ...>"), and its metadata holds `gamekit_alt` (and
`gamekit_alt_table`), which the course build writes into `<img alt>` and a folded table on the
slides and pages. Widget snapshots carry the same metadata (`figure_bundle`).
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Sequence
from typing import Any

__all__ = [
    "alt_table",
    "plain_text",
    "alt_text",
    "describe_axes",
    "figure_metadata",
    "FIGURE_KINDS",
    "img_html",
    "install",
    "set_alt",
]

#: The kinds of figure an alt text starts with ("Bar chart: ...").
FIGURE_KINDS = (
    "Bar chart",
    "Line chart",
    "Heat map",
    "Scatter plot",
    "Graph",
    "Tree",
    "Board",
    "Chart",
)

_ALT = "_gamekit_alt"
_MARKER_WORDS = {"o": "circles", "s": "squares", "x": "crosses", ".": "dots", "^": "triangles", "v": "triangles down"}
_TABLE = "_gamekit_alt_table"


_TEX_WORDS = {
    r"\cdot": "·",
    r"\times": "×",
    r"\le": "≤",
    r"\ge": "≥",
    r"\lceil": "⌈",
    r"\rceil": "⌉",
    r"\lfloor": "⌊",
    r"\rfloor": "⌋",
    r"\infty": "∞",
    r"\alpha": "α",
    r"\beta": "β",
    r"\xi": "ξ",
    r"\mathcal": "",
}


def plain_text(text: str) -> str:
    r"""`text` with its LaTeX math written as a screen reader can say it: `$b^{3d/4}$` -> "b^(3d/4)",
    `$R_{k_1}$` -> "R_k1", `$\cdot$` -> "·"; text outside `$...$` is kept as it is."""
    import re

    def math(m: re.Match[str]) -> str:
        body = m.group(1)
        for word, said in _TEX_WORDS.items():
            body = re.sub(re.escape(word) + r"(?![A-Za-z])", said, body)
        for _ in range(4):  # nested groups, innermost first
            body = re.sub(r"\\frac\{([^{}]*)\}\{([^{}]*)\}", r"(\1/\2)", body)
            body = re.sub(
                r"\^\{([^{}]*)\}", lambda g: "^" + (g.group(1) if len(g.group(1)) == 1 else f"({g.group(1)})"), body
            )
            body = re.sub(r"_\{([^{}]*)\}", lambda g: "_" + g.group(1).replace("_", ""), body)
        return body.replace("{", "").replace("}", "").replace("\\", "")

    return re.sub(r"\$([^$]*)\$", math, text)


def set_alt(target: Any, text: str, table: tuple[Sequence[str], Sequence[Sequence[Any]]] | None = None) -> Any:
    """Give a figure or one of its axes the alt text `text` (and a data table: column names, rows).

    Set on an axes, it describes that panel; the figure's alt text joins its panels' texts.
    Returns `target`, so a drawing function can `return set_alt(ax, ...)`.
    """
    if not isinstance(text, str) or not text.strip():
        raise ValueError(f"alt text must be a non-empty string, got {text!r}")
    setattr(target, _ALT, text.strip())
    if table is not None:
        columns, rows = table
        setattr(target, _TABLE, {"columns": [str(c) for c in columns], "rows": [[_cell(v) for v in r] for r in rows]})
    return target


def _cell(value: Any) -> Any:
    if isinstance(value, bool) or value is None:
        return str(value)
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return round(value, 4) if math.isfinite(value) else str(value)
    try:  # numpy scalars
        return _cell(value.item())
    except AttributeError:
        return str(value)


def num(value: float) -> str:
    """A number as a reader says it: thousands separated, at most three significant decimals."""
    if isinstance(value, int) or (math.isfinite(value) and float(value).is_integer() and abs(value) < 1e15):
        return f"{int(value):,}"
    return f"{value:,.3g}" if abs(value) >= 1 else f"{value:.3g}"


def _is_colorbar(ax: Any) -> bool:
    return ax.get_label() == "<colorbar>" or hasattr(ax, "_colorbar")


def _titled(ax: Any, kind: str, body: str) -> str:
    title = plain_text(ax.get_title().strip().replace("\n", " "))
    return f"{kind}" + (f" ({title})" if title else "") + f": {body}"


def _series(ax: Any) -> list[Any]:
    """The lines of `ax` that are data series: not an error bar's caps or bars, not a reference line
    across the axes (`axhline`, `axvline`: drawn in axes coordinates), at least two points."""
    from matplotlib.container import ErrorbarContainer

    caps = [c for e in ax.containers if isinstance(e, ErrorbarContainer) for c in e.lines[1]]
    return [
        ln
        for ln in ax.lines
        if len(ln.get_xdata()) > 1
        and not any(ln is cap for cap in caps)
        and ln.get_transform().contains_branch(ax.transData)
    ]


def describe_axes(ax: Any) -> str:
    """An alt text for one matplotlib axes, read from what is drawn on it (kind and numbers)."""
    import numpy as np
    from matplotlib.collections import LineCollection, PathCollection
    from matplotlib.container import BarContainer
    from matplotlib.patches import FancyArrowPatch

    xlabel, ylabel = ax.get_xlabel().strip(), ax.get_ylabel().strip()
    if ax.images:
        data = ax.images[0].get_array()
        if data is not None and data.size:
            rows, cols = data.shape[:2]
            lo, hi = float(data.min()), float(data.max())
            return _titled(ax, "Heat map", f"{rows} by {cols} cells, values from {num(lo)} to {num(hi)}")
    bars = [c for c in ax.containers if isinstance(c, BarContainer)]
    if bars:
        patches = [p for c in bars for p in c.patches]
        horizontal = bars[0].orientation == "horizontal"
        sizes = [p.get_width() if horizontal else p.get_height() for p in patches]
        where = [p.get_y() + p.get_height() / 2 if horizontal else p.get_x() + p.get_width() / 2 for p in patches]
        k = max(range(len(sizes)), key=lambda i: sizes[i])
        names = {
            round(t.get_position()[1 if horizontal else 0], 6): t.get_text()
            for t in (ax.get_yticklabels() if horizontal else ax.get_xticklabels())
            if t.get_text()
        }
        at = names.get(round(where[k], 6), num(where[k]) if not horizontal else "")
        what = ylabel if not horizontal else xlabel
        body = f"{len(patches)} bars" + (f" of {what}" if what else "") + f"; the largest is {num(sizes[k])}"
        return _titled(ax, "Bar chart", body + (f" at {at}" if at else ""))
    segments = sum(len(c.get_segments()) for c in ax.collections if isinstance(c, LineCollection))
    arrows = sum(isinstance(p, FancyArrowPatch) for p in ax.patches)
    points = [c for c in ax.collections if isinstance(c, PathCollection)]
    n_points = sum(int(np.shape(c.get_offsets())[0]) for c in points)
    if not ax.axison and n_points and (segments or arrows):
        return _titled(ax, "Graph", f"{n_points} nodes and {segments + arrows} edges")
    lines = _series(ax)
    if lines:
        ys = [float(y) for ln in lines for y in ln.get_ydata() if math.isfinite(float(y))]
        xs = [float(x) for ln in lines for x in ln.get_xdata() if math.isfinite(float(x))]
        labels = [plain_text(ln.get_label()) for ln in lines if not ln.get_label().startswith("_")]
        body = f"{len(lines)} line{'s' if len(lines) > 1 else ''}" + (f" ({'; '.join(labels)})" if labels else "")
        if xs and ys:
            body += f"; {xlabel or 'x'} from {num(min(xs))} to {num(max(xs))}"
            body += f", {ylabel or 'y'} from {num(min(ys))} to {num(max(ys))}"
        return _titled(ax, "Line chart", body)
    # points drawn one by one as markers (ax.plot(x, y, "o")) count as points too
    marks = [ln for ln in ax.lines if len(ln.get_xdata()) == 1 and ln.get_marker() not in (None, "", "None", " ")]
    n_points += len(marks)
    if n_points:
        body = f"{n_points} points" + (f" of {ylabel} against {xlabel}" if xlabel and ylabel else "")
        kinds: dict[str, int] = {}
        for ln in marks:
            kinds[str(ln.get_marker())] = kinds.get(str(ln.get_marker()), 0) + 1
        if len(kinds) > 1:
            body += " (" + ", ".join(f"{n} drawn as {_MARKER_WORDS.get(m, repr(m))}" for m, n in kinds.items()) + ")"
        return _titled(ax, "Scatter plot", body)
    texts = [t.get_text().strip() for t in ax.texts if t.get_text().strip()]
    if texts:
        return _titled(ax, "Chart", f"{len(texts)} labels: " + ", ".join(texts[:12]))
    return _titled(ax, "Chart", "empty")


def alt_text(fig: Any) -> str:
    """The figure's alt text: its own, else each panel's (stated by a drawing function or read from it)."""
    own = getattr(fig, _ALT, None)
    if own:
        return own
    panels = []
    for ax in fig.axes:
        if _is_colorbar(ax) or not ax.get_visible():
            continue
        text = getattr(ax, _ALT, None)
        if text is None:
            try:
                text = describe_axes(ax)
            except Exception:  # a description must never break a figure
                text = None
        if text and text not in panels:
            panels.append(text)
    if not panels:
        return "Chart: no data drawn"
    if len(panels) == 1:
        return panels[0]
    return f"{len(panels)} panels. " + " ".join(f"{k}. {p}" for k, p in enumerate(panels, 1))


def alt_table(fig: Any) -> dict | None:
    """The data table behind the figure (its own or its first panel's), or None."""
    table = getattr(fig, _TABLE, None)
    if table is None:
        for ax in fig.axes:
            table = getattr(ax, _TABLE, None)
            if table is not None:
                break
    return table


def figure_metadata(fig: Any) -> dict:
    """Output metadata for a figure: `gamekit_alt` (and `gamekit_alt_table` when there is one)."""
    meta: dict[str, Any] = {"gamekit_alt": alt_text(fig)}
    table = alt_table(fig)
    if table is not None:
        meta["gamekit_alt_table"] = table
    return meta


_INSTALLED: list[bool] = []
_STASH = "_gamekit_png"


def img_html(png_base64: str, alt: str, style: str = "max-width:100%") -> str:
    """An `<img>` of a base64 PNG with its alt text (escaped)."""
    import html

    css = f' style="{style}"' if style else ""
    return f'<img src="data:image/png;base64,{png_base64}" alt="{html.escape(alt, quote=True)}"{css}>'


def _figure_html(formatters: Any, fig: Any) -> str | None:
    """The figure as `<img alt="...">` (JupyterLab shows a PNG output without any alt text).

    IPython asks for text/html before image/png, so the PNG drawn here is kept on the figure and
    handed to the PNG formatter (wrapped for that), which then draws nothing again. The course
    build shows the PNG output with its alt text from the metadata and ignores this HTML.
    """
    import base64

    from matplotlib.figure import Figure

    png_formatter = formatters["image/png"]
    try:
        printer = png_formatter.lookup(fig)
    except KeyError:
        return None
    original = getattr(printer, "_gamekit_original", printer)
    if original is printer:  # (re)wrap the PNG printer the inline backend registered

        def handed_over(figure: Any, _draw: Any = original) -> Any:
            kept = figure.__dict__.pop(_STASH, None)
            return kept if kept is not None else _draw(figure)

        handed_over._gamekit_original = original  # type: ignore[attr-defined]
        png_formatter.for_type(Figure, handed_over)
    data = original(fig)
    if data is None:
        return None
    fig.__dict__[_STASH] = data
    return img_html(base64.b64encode(data).decode("ascii") if isinstance(data, bytes) else str(data), alt_text(fig))


def install() -> bool:
    """Make every inline figure of this IPython kernel carry its alt text (idempotent; call it again
    before showing a figure yourself: the inline backend drops the figure formatters when it starts).

    Returns False outside IPython (nothing to do there).
    """
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - IPython comes with the course
        return False
    ip = get_ipython()
    if ip is None:
        return False
    _register(ip)
    try:
        import matplotlib_inline.backend_inline as inline
    except ImportError:  # pragma: no cover
        return True
    current = inline._fetch_figure_metadata
    if getattr(current, "_gamekit_alt", False):
        return True

    def with_alt(fig: Any, _orig: Any = current) -> dict:
        meta = dict(_orig(fig) or {})
        with contextlib.suppress(Exception):  # a description must never break a figure
            meta.update(figure_metadata(fig))
            _register(ip)  # the inline backend drops every formatter of Figure when it starts
        return meta

    with_alt._gamekit_alt = True  # type: ignore[attr-defined]
    inline._fetch_figure_metadata = with_alt
    _INSTALLED.append(True)
    return True


def _register(ip: Any) -> None:
    """Figures' text (their alt text) and HTML (`<img alt>`) formatters in the kernel `ip`."""
    from matplotlib.figure import Figure

    formatters = ip.display_formatter.formatters
    formatters["text/plain"].for_type(Figure, lambda fig, p, cycle: p.text(alt_text(fig)))
    formatters["text/html"].for_type(Figure, lambda fig: _figure_html(formatters, fig))
