"""Figures on slides: shown as large as the slide allows, and their smallest text measured.

The slide style (`execute.SLIDE_STYLE`) draws figures for a projector and records on each its
smallest font size and its dpi (`gamekit_min_font_pt`, `gamekit_dpi` in the output's metadata).
Here every such figure is sized to span the slide (`fit_figures`), and its text is measured in
pixels of the 1280 x 720 slide, from the executed notebook (`notebook_figure_report`) or from a
built deck (`figure_report`, the same numbers `scripts/check_slides.py` measures in a browser).
"""

from __future__ import annotations

import copy
import re

import nbformat

from .slidefit import SLIDE_HEIGHT, SLIDE_WIDTH

__all__ = [
    "FIGURE_BOX",
    "MIN_FIGURE_SHARE",
    "MIN_TEXT_PX",
    "figure_report",
    "figure_text_px",
    "figures_as_png",
    "fit_figures",
    "notebook_figure_report",
]

#: The largest a figure is shown on a slide (CSS pixels of the 1280 x 720 slide): most of the
#: width, and the height that leaves room for a title and a line of text.
FIGURE_BOX = (1180, 470)
#: The smallest text a figure may show on a slide, in pixels of the 1280 x 720 slide.
MIN_TEXT_PX = 14.0
#: A figure must span at least this share of the slide's width or of its height.
MIN_FIGURE_SHARE = 0.5


def _png_size(data: str) -> tuple[int, int] | None:
    import base64
    import struct

    head = base64.b64decode(data[:64])
    if head[:8] != b"\x89PNG\r\n\x1a\n":
        return None
    width, height = struct.unpack(">II", head[16:24])
    return width, height


def fit_figures(nb: nbformat.NotebookNode, box: tuple[int, int] = FIGURE_BOX) -> nbformat.NotebookNode:
    """A copy of `nb` in which every figure drawn with the slide style is shown as large as fits `box`.

    Figures are rendered at SLIDE_DPI, sharp enough to be shown larger than in a notebook; the
    display size (the image's width and height attributes) keeps the aspect ratio.
    """
    out = copy.deepcopy(nb)
    for cell in out.cells:
        for o in cell.get("outputs", []):
            png = o.get("data", {}).get("image/png")
            if not png or not o.get("metadata", {}).get("gamekit_dpi"):
                continue
            size = _png_size(png)
            if size is None:
                continue
            scale = min(box[0] / size[0], box[1] / size[1])
            meta = dict(o.metadata.get("image/png", {}))
            meta["width"], meta["height"] = round(size[0] * scale), round(size[1] * scale)
            o.metadata["image/png"] = meta
    return out


def figures_as_png(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """A copy of `nb` whose figures are shown from their PNG output, not their `<img>` HTML.

    In a kernel a figure also carries an `<img alt>` HTML form (`gamekit.views.alt`: JupyterLab
    shows PNG outputs without alt text); the build shows the PNG itself, with the alt text from the
    metadata, its measured font size and, on pages, the folded data table.
    """
    out = copy.deepcopy(nb)
    for cell in out.cells:
        for o in cell.get("outputs", []):
            data, meta = o.get("data", {}), o.get("metadata", {})
            page = data.get("text/html", "")
            page = page if isinstance(page, str) else "".join(page)
            if "image/png" in data and "gamekit_alt" in meta and page.startswith('<img src="data:image/png;base64,'):
                del data["text/html"]
    return out


def figure_text_px(pt: float, dpi: float, natural_width: float, shown_width: float) -> float:
    """Height in slide pixels of `pt`-point text in a figure rendered at `dpi` and shown scaled."""
    return pt * dpi / 72 * shown_width / natural_width


def notebook_figure_report(nb: nbformat.NotebookNode, box: tuple[int, int] = FIGURE_BOX) -> list[dict]:
    """Each figure of a notebook executed with the slide style, as the slides will show it: its
    cell, its size on the slide and its smallest text in slide pixels (`ok` False when too small).
    Cells that are not on the slides (slide_type `skip` or `notes`: set-up, optional parts) are left out."""
    found = []
    for i, cell in enumerate(nb.cells):
        if cell.metadata.get("slideshow", {}).get("slide_type") in ("skip", "notes"):
            continue
        for o in cell.get("outputs", []):
            png, meta = o.get("data", {}).get("image/png"), o.get("metadata", {})
            size = _png_size(png) if png else None
            if size is None or not meta.get("gamekit_min_font_pt"):
                continue
            scale = min(box[0] / size[0], box[1] / size[1])
            width, height = size[0] * scale, size[1] * scale
            px = figure_text_px(meta["gamekit_min_font_pt"], meta["gamekit_dpi"], size[0], width)
            share = max(width / SLIDE_WIDTH, height / SLIDE_HEIGHT)
            found.append(
                {
                    "cell": i,
                    "code": cell.source.strip().splitlines()[0][:60] if cell.source.strip() else "",
                    "min_font_pt": meta["gamekit_min_font_pt"],
                    "min_text_px": round(px, 1),
                    "share": round(share, 2),
                    "ok": px >= MIN_TEXT_PX and share >= MIN_FIGURE_SHARE,
                }
            )
    return found


_FIGURE = re.compile(r"<img\b[^>]*class=\"gamekit-figure\"[^>]*>", re.S)


def figure_report(page: str) -> list[dict]:
    """Each measured figure of a built deck, read from the HTML: its size on the slide and the
    height of its smallest text in slide pixels, with `ok` False when either is too small.

    This reads the sizes the build chose; scripts/check_slides.py measures the same in a browser.
    """
    found = []
    for tag in _FIGURE.findall(page):
        attrs = dict(re.findall(r'([\w-]+)="([^"]*)"', tag))
        size = _png_size(re.search(r"base64,([A-Za-z0-9+/=]{64})", tag).group(1))  # type: ignore[union-attr]
        if size is None:
            continue
        width = float(attrs.get("width", size[0]))
        height = float(attrs.get("height", size[1]))
        px = figure_text_px(float(attrs["data-min-font-pt"]), float(attrs["data-dpi"]), size[0], width)
        share = max(width / SLIDE_WIDTH, height / SLIDE_HEIGHT)
        found.append(
            {
                "width": width,
                "height": height,
                "min_text_px": round(px, 1),
                "share": round(share, 2),
                "ok": px >= MIN_TEXT_PX and share >= MIN_FIGURE_SHARE,
            }
        )
    return found
