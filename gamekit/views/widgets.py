"""Widget plumbing shared by every chapter: a live widget that also leaves a static snapshot.

Every widget of the course shows something useful when a notebook is executed headless
(for CI, slides and handouts): its display bundle carries both the live widget view and a
static PNG (or HTML) snapshot of its current state. JupyterLab shows the live widget; an
exporter without widget state shows the snapshot.
"""

from __future__ import annotations

import base64
import html
import io
from typing import Any

import ipywidgets as widgets

from ..i18n import pgettext
from .alt import alt_text, img_html

__all__ = [
    "figure_png",
    "live_html",
    "MESSAGE_COLOURS",
    "Picture",
    "player_name",
    "SnapshotWidget",
]


#: Message colours (text on white, each with a contrast of at least 4.5:1, WCAG AA).
MESSAGE_COLOURS = {"info": "#333333", "error": "#b00020", "good": "#1a7f37"}


def figure_png(fig, dpi: int = 90) -> str:
    """A matplotlib figure as base64 PNG at `dpi` (and closes it, so it is not shown twice)."""
    import matplotlib.pyplot as plt

    buf = io.BytesIO()
    fig.savefig(buf, format="png", bbox_inches="tight", dpi=dpi)
    plt.close(fig)
    return base64.b64encode(buf.getvalue()).decode("ascii")


class Picture(widgets.HTML):
    """A live picture with its alt text: an `<img alt="...">` (ipywidgets' `Image` has no alt).

    `show(fig)` draws a matplotlib figure (and closes it) with the alt text made from its data
    (`gamekit.views.alt`); `png` holds the picture's bytes. `width` fixes its width in CSS pixels
    (JupyterLab's widget boxes would otherwise stretch and blur it).
    """

    def __init__(self, width: int | None = None, **kwargs: Any):
        super().__init__(**kwargs)
        self.width = width
        self.png = b""
        self.alt = ""

    def show(self, fig: Any, dpi: int = 90, alt: str | None = None) -> None:
        """Show `fig` at `dpi`, described by `alt` (default: the figure's own alt text)."""
        text = alt if alt is not None else alt_text(fig)
        png = figure_png(fig, dpi)
        self.png, self.alt = base64.b64decode(png), text
        size = f"width:{self.width}px;max-width:100%;height:auto" if self.width else "max-width:100%;height:auto"
        self.value = img_html(png, text, f"{size};display:block")


def player_name(name: str) -> str:
    """A player's name as a widget shows it: "you" and the computer players' default names ("computer",
    "the AI") in the language in force, any other name (an agent's, one a caller chose) as it is.

    The models keep the English names as data that code compares (`winner_name == "you"`)."""
    names = {
        # TRANSLATORS: the person at the keyboard, as a player's name ("P1 (you)", "you 3 → computer 2")
        "you": pgettext("player", "you"),
        # TRANSLATORS: the computer opponent, as a player's name ("P2 (computer)", "computer won")
        "computer": pgettext("player", "computer"),
        # TRANSLATORS: the Q-learning opponent, as a player's name ("the AI won")
        "the AI": pgettext("player", "the AI"),
    }
    return names.get(name, name)


def live_html(text: str, colour: str = "#333") -> str:
    """`text` (HTML) in a polite live region, so a screen reader announces each new message."""
    return f"<div role='status' aria-live='polite' aria-atomic='true' style='color:{colour}'>{text}</div>"


class SnapshotWidget:
    """Base for course widgets: `self.root` is the ipywidgets container shown live.

    Subclasses implement `snapshot()` returning a matplotlib figure or an HTML string of the
    current state. Messages for the user (e.g. an illegal action) go to `self.message`, a live
    region: a screen reader announces each (what was played, whose move it is, why a move was
    refused). A figure snapshot carries its alt text (`gamekit.views.alt`) as its `text/plain`.
    """

    root: widgets.Widget

    def __init__(self) -> None:
        self.message = widgets.HTML(value="")

    def say(self, text: str, kind: str = "info") -> None:
        """Show `text` (HTML) in the message line; kind 'info', 'error' or 'good' sets its colour."""
        colour = MESSAGE_COLOURS.get(kind, MESSAGE_COLOURS["info"])
        self.message.value = live_html(text, colour)

    def refuse(self, reason: BaseException | str) -> bool:
        """Show why an input was refused (as plain text, escaped: it may quote what the user typed).

        Returns False, so a model method can `return self.refuse(err)` and change nothing.
        """
        self.say(html.escape(str(reason)), "error")
        return False

    def snapshot(self) -> Any:  # pragma: no cover - overridden
        raise NotImplementedError

    def _repr_mimebundle_(self, include=None, exclude=None):
        data = self.root._repr_mimebundle_()
        snap = self.snapshot()
        if isinstance(snap, str):
            data["text/html"] = snap
        elif snap is not None:
            data["text/plain"] = alt_text(snap)  # the picture's alt text (the build writes it into <img alt>)
            data["image/png"] = figure_png(snap)
        return data
