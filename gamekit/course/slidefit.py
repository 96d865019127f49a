"""Fitting a lesson to the projector: the slide's size, over-tall slides split, the lesson's slide budget.

Authors group cells into slides by hand; a slide with several code cells and figures can end up
far taller than the screen. Before export, the build estimates each cell's rendered height and
starts a new sub-slide where a slide would exceed `SLIDE_BUDGET` pixels (the slides' start-up
script, `templates/reveal-start.j2`, shrinks what is a little too tall). A lesson may have at most
one slide page per `MINUTES_PER_SLIDE` minutes of its length (`slide_budget`), counted as the
reveal.js export makes the pages (`slide_pages`).
"""

from __future__ import annotations

import copy

import nbformat

__all__ = [
    "MINUTES_PER_SLIDE",
    "SLIDE_BUDGET",
    "SLIDE_HEIGHT",
    "SLIDE_WIDTH",
    "cell_height",
    "lesson_minutes",
    "slide_budget",
    "slide_pages",
    "split_long_slides",
]

#: Slide size for a 16:9 projector; reveal.js scales it to the screen.
SLIDE_WIDTH, SLIDE_HEIGHT = 1280, 720
#: The most a slide's cells may add up to (estimated pixels of the 1280 x 720 slide) before the
#: next cell starts a sub-slide.
SLIDE_BUDGET = 860
_CHARS_PER_LINE = 105


def _text_height(text: str, line_px: int, chars: int = _CHARS_PER_LINE) -> int:
    return sum(max(1, -(-len(line) // chars)) for line in text.splitlines() or [""]) * line_px


def _png_height(data: str) -> int:
    import base64
    import struct

    head = base64.b64decode(data[:64])
    if head[:8] != b"\x89PNG\r\n\x1a\n":
        return 300
    width, height = struct.unpack(">II", head[16:24])
    shown = height * min(1.0, (SLIDE_WIDTH - 80) / max(width, 1))
    return int(min(shown, 460))


def _output_height(out) -> int:
    if out.get("output_type") == "stream":
        return _text_height(out.get("text", ""), 20)
    data = out.get("data", {})
    if "application/vnd.jupyter.widget-view+json" in data:
        return 380
    if "image/png" in data:
        shown = out.get("metadata", {}).get("image/png", {}).get("height")
        return (int(shown) if shown else _png_height(data["image/png"])) + 10
    if "text/html" in data:
        html = data["text/html"]
        rows = html.count("<tr")
        return 40 + 27 * rows if rows else 20 + 19 * html.count("\n")
    return _text_height(str(data.get("text/plain", "")), 20)


def cell_height(cell) -> int:
    """A rough estimate of a cell's height on a slide, in pixels of the 1280 x 720 slide."""
    if cell.cell_type == "markdown":
        total = 0
        for line in cell.source.splitlines():
            total += 56 if line.startswith("#") else 28 if line.startswith("|") else _text_height(line, 27)
        return total + 16
    if cell.cell_type != "code":
        return 0
    return 24 + _text_height(cell.source, 21) + sum(_output_height(o) for o in cell.get("outputs", []))


def split_long_slides(nb: nbformat.NotebookNode, budget: int = SLIDE_BUDGET) -> nbformat.NotebookNode:
    """A copy of `nb` in which a cell that would push its slide past `budget` starts a sub-slide."""
    out = copy.deepcopy(nb)
    used = 0
    for cell in out.cells:
        show = cell.metadata.setdefault("slideshow", {})
        kind = show.get("slide_type", "-")
        if kind in ("skip", "notes"):
            continue
        height = cell_height(cell)
        if kind in ("slide", "subslide"):
            used = height
        elif used and used + height > budget:
            show["slide_type"] = "subslide"
            used = height
        else:
            used += height
    return out


#: A lesson may have at most one slide page (slide or sub-slide) per this many minutes.
MINUTES_PER_SLIDE = 1.5


def lesson_minutes(nb: nbformat.NotebookNode) -> float:
    """The lesson's length in minutes, from its metadata `"course": {"minutes": N}`.

    Raises ValueError when it is missing or not a positive number.
    """
    minutes = nb.metadata.get("course", {}).get("minutes")
    if isinstance(minutes, bool) or not isinstance(minutes, (int, float)) or not minutes > 0:
        raise ValueError(
            f'the notebook metadata needs "course": {{"minutes": N}} with N > 0 (the lesson\'s length), got {minutes!r}'
        )
    return float(minutes)


def slide_budget(nb: nbformat.NotebookNode) -> int:
    """How many slide pages the lesson may have: one per `MINUTES_PER_SLIDE` minutes of its length."""
    return int(lesson_minutes(nb) // MINUTES_PER_SLIDE)


def slide_pages(deck: nbformat.NotebookNode) -> int:
    """The number of pages (slides and sub-slides) the reveal.js export makes of `deck`.

    Counted as nbconvert's slide exporter does: the first cell that is neither `skip` nor
    `notes` opens a slide, and every later `slide` or `subslide` cell opens a page; the build's
    own split of over-tall slides (`split_long_slides`) is applied first, as `build.slides_html` does.
    """
    pages, started = 0, False
    for cell in split_long_slides(deck).cells:
        kind = cell.metadata.get("slideshow", {}).get("slide_type", "-")
        if kind in ("skip", "notes"):
            continue
        if not started or kind in ("slide", "subslide"):
            pages += 1
            started = True
    return pages
