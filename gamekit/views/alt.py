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

from ..i18n import _, ngettext, pgettext

__all__ = [
    "alt_table",
    "plain_text",
    "alt_text",
    "describe_axes",
    "figure_kind",
    "figure_metadata",
    "FIGURE_KINDS",
    "headed",
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
_TABLE = "_gamekit_alt_table"


def figure_kind(kind: str) -> str:
    """The name of a kind of figure (one of FIGURE_KINDS, or "Board strip") in the language in force."""
    names = {
        # TRANSLATORS: the kind of figure an alt text starts with ("Bar chart: 3 bars; ...")
        "Bar chart": _("Bar chart"),
        "Line chart": _("Line chart"),
        "Heat map": _("Heat map"),
        "Scatter plot": _("Scatter plot"),
        # TRANSLATORS: a kind of figure: nodes joined by edges
        "Graph": pgettext("figure", "Graph"),
        # TRANSLATORS: a kind of figure: a tree of nodes
        "Tree": pgettext("figure", "Tree"),
        # TRANSLATORS: a kind of figure: a game board drawn
        "Board": pgettext("figure", "Board"),
        # TRANSLATORS: a kind of figure: a row of game boards side by side
        "Board strip": _("Board strip"),
        # TRANSLATORS: a kind of figure of no more specific kind
        "Chart": pgettext("figure", "Chart"),
    }
    return names[kind]


def headed(kind: str, title: str | None, body: str) -> str:
    """An alt text: the kind of figure (in the language in force), its title in brackets when it has
    one, and what it shows: "Bar chart (title): body", or "Bar chart: body" without a title."""
    return f"{figure_kind(kind)} ({title}): {body}" if title else f"{figure_kind(kind)}: {body}"


def _marker_word(marker: str) -> str:
    """What points drawn with a matplotlib marker look like, in words ("circles"), else the marker's repr."""
    words = {
        "o": pgettext("markers", "circles"),
        "s": pgettext("markers", "squares"),
        "x": pgettext("markers", "crosses"),
        ".": pgettext("markers", "dots"),
        "^": pgettext("markers", "triangles"),
        "v": pgettext("markers", "triangles down"),
    }
    return words.get(marker, repr(marker))


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
        for _round in range(4):  # nested groups, innermost first
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
    return headed(kind, title, body)


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
            body = _("{rows} by {cols} cells, values from {low} to {high}").format(
                rows=rows, cols=cols, low=num(lo), high=num(hi)
            )
            return _titled(ax, "Heat map", body)
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
        n, largest = len(patches), num(sizes[k])
        if what and at:
            body = _("{n} bars of {what}; the largest is {size} at {at}").format(n=n, what=what, size=largest, at=at)
        elif what:
            body = _("{n} bars of {what}; the largest is {size}").format(n=n, what=what, size=largest)
        elif at:
            body = _("{n} bars; the largest is {size} at {at}").format(n=n, size=largest, at=at)
        else:
            body = _("{n} bars; the largest is {size}").format(n=n, size=largest)
        return _titled(ax, "Bar chart", body)
    segments = sum(len(c.get_segments()) for c in ax.collections if isinstance(c, LineCollection))
    arrows = sum(isinstance(p, FancyArrowPatch) for p in ax.patches)
    points = [c for c in ax.collections if isinstance(c, PathCollection)]
    n_points = sum(int(np.shape(c.get_offsets())[0]) for c in points)
    if not ax.axison and n_points and (segments or arrows):
        body = _("{nodes} nodes and {edges} edges").format(nodes=n_points, edges=segments + arrows)
        return _titled(ax, "Graph", body)
    lines = _series(ax)
    if lines:
        ys = [float(y) for ln in lines for y in ln.get_ydata() if math.isfinite(float(y))]
        xs = [float(x) for ln in lines for x in ln.get_xdata() if math.isfinite(float(x))]
        labels = "; ".join(plain_text(ln.get_label()) for ln in lines if not ln.get_label().startswith("_"))
        n = len(lines)
        if xs and ys:
            ranges = dict(x=xlabel or "x", x0=num(min(xs)), x1=num(max(xs)), y=ylabel or "y", y0=num(min(ys)))
            ranges["y1"] = num(max(ys))
            if labels:
                body = ngettext(
                    "{n} line ({labels}); {x} from {x0} to {x1}, {y} from {y0} to {y1}",
                    "{n} lines ({labels}); {x} from {x0} to {x1}, {y} from {y0} to {y1}",
                    n,
                ).format(n=n, labels=labels, **ranges)
            else:
                body = ngettext(
                    "{n} line; {x} from {x0} to {x1}, {y} from {y0} to {y1}",
                    "{n} lines; {x} from {x0} to {x1}, {y} from {y0} to {y1}",
                    n,
                ).format(n=n, **ranges)
        elif labels:
            body = ngettext("{n} line ({labels})", "{n} lines ({labels})", n).format(n=n, labels=labels)
        else:
            body = ngettext("{n} line", "{n} lines", n).format(n=n)
        return _titled(ax, "Line chart", body)
    # points drawn one by one as markers (ax.plot(x, y, "o")) count as points too
    marks = [ln for ln in ax.lines if len(ln.get_xdata()) == 1 and ln.get_marker() not in (None, "", "None", " ")]
    n_points += len(marks)
    if n_points:
        kinds: dict[str, int] = {}
        for ln in marks:
            kinds[str(ln.get_marker())] = kinds.get(str(ln.get_marker()), 0) + 1
        shapes = ", ".join(
            _("{n} drawn as {shapes}").format(n=n, shapes=_marker_word(m)) for m, n in kinds.items()
        )  # named only when the points differ in shape
        axes = xlabel and ylabel
        # the English says "points" for one point too; another language may have a singular
        if axes and len(kinds) > 1:
            text = ngettext(
                "{n} points of {y} against {x} ({shapes})", "{n} points of {y} against {x} ({shapes})", n_points
            )
        elif axes:
            text = ngettext("{n} points of {y} against {x}", "{n} points of {y} against {x}", n_points)
        elif len(kinds) > 1:
            text = ngettext("{n} points ({shapes})", "{n} points ({shapes})", n_points)
        else:
            text = ngettext("{n} points", "{n} points", n_points)
        body = text.format(n=n_points, y=ylabel, x=xlabel, shapes=shapes)
        return _titled(ax, "Scatter plot", body)
    texts = [t.get_text().strip() for t in ax.texts if t.get_text().strip()]
    if texts:
        said = ngettext("{n} labels: {labels}", "{n} labels: {labels}", len(texts))
        return _titled(ax, "Chart", said.format(n=len(texts), labels=", ".join(texts[:12])))
    # TRANSLATORS: an alt text's body for a chart with nothing drawn ("Chart: empty")
    return _titled(ax, "Chart", pgettext("alt text", "empty"))


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
        return _("Chart: no data drawn")
    if len(panels) == 1:
        return panels[0]
    numbered = " ".join(f"{k}. {p}" for k, p in enumerate(panels, 1))
    # TRANSLATORS: the alt text of a figure of several panels: "2 panels. 1. Bar chart: ... 2. Line chart: ..."
    return _("{n} panels. {panels}").format(n=len(panels), panels=numbered)


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
