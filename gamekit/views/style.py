"""Text sizes for figures that must be readable on a 1280x720 projector.

A figure about 11-12 inches wide, shown across a 1280-pixel slide, shrinks by about 1.5x from
the notebook's size; 14-point text then still appears about 14 pixels tall or more. Every
drawing in `gamekit.views` uses these sizes (never smaller), and `readable(ax)` applies them
to an axes' tick labels, axis labels, title and legend.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "FONT",
    "readable",
    "TITLE",
]

#: The smallest text in any figure (points).
FONT = 14
#: Titles (points).
TITLE = 16


def readable(ax: Any, title: float = TITLE) -> Any:
    """Set tick labels, axis labels and legend of `ax` to FONT and its title to `title` points.

    Call it after drawing (the legend must exist to be resized). Returns the axes.
    """
    ax.tick_params(labelsize=FONT)
    ax.xaxis.label.set_fontsize(FONT)
    ax.yaxis.label.set_fontsize(FONT)
    ax.title.set_fontsize(title)
    legend = ax.get_legend()
    if legend is not None:
        for text in legend.get_texts():
            text.set_fontsize(FONT)
    return ax
