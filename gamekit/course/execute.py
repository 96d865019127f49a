"""Execute course notebooks headless (with real figures) and export them as slides."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

import nbformat

__all__ = [
    "ALT_SETUP",
    "execute_notebook",
    "INLINE_BACKEND",
    "inline_figures",
    "ipc_config",
    "kernel_language",
    "SLIDE_DPI",
    "SLIDE_STYLE",
]

INLINE_BACKEND = "module://matplotlib_inline.backend_inline"

#: Dots per inch of figures on slides: figures are drawn sharp enough to be shown up to about
#: 1.5 times their notebook size on a 1280 x 720 slide.
SLIDE_DPI = 150

#: Code run in the kernel before a notebook that becomes slides (the "slide style"):
#: matplotlib defaults for a projector (a figure 11 x 5.5 in, text >= 16 pt), figures rendered
#: at SLIDE_DPI, and each figure's smallest drawn font size recorded in its output metadata
#: (`gamekit_min_font_pt`, `gamekit_dpi`), so the build and scripts/check_slides.py can
#: compute how large its text is on the slide. A notebook's own rcParams still win.
SLIDE_STYLE = f"""
import matplotlib as _gk_mpl
import matplotlib.pyplot as _gk_plt
import matplotlib.text as _gk_text
_gk_mpl.rcParams.update({{
    "figure.figsize": (11, 5.5), "font.size": 16, "axes.titlesize": 18, "axes.labelsize": 16,
    "xtick.labelsize": 15, "ytick.labelsize": 15, "legend.fontsize": 15, "figure.titlesize": 18,
}})
try:
    import matplotlib_inline.backend_inline as _gk_inline
    from IPython import get_ipython as _gk_ip
    from IPython.core.pylabtools import select_figure_formats as _gk_formats
    _gk_ip().run_line_magic(
        "config", "InlineBackend.print_figure_kwargs = {{'bbox_inches': 'tight', 'dpi': {SLIDE_DPI}}}"
    )
    _gk_formats(_gk_ip(), {{"png"}}, bbox_inches="tight", dpi={SLIDE_DPI})

    def _gk_min_font(fig):
        fig.canvas.draw()
        hidden = set()
        for ax in fig.axes:
            for axis in (ax.xaxis, ax.yaxis):
                if not (ax.axison and axis.get_visible()):
                    hidden.update(axis.findobj(_gk_text.Text))
        sizes = [t.get_fontsize() for t in fig.findobj(_gk_text.Text)
                 if t not in hidden and t.get_visible() and t.get_text().strip()]
        return min(sizes) if sizes else None

    def _gk_metadata(fig, _orig=_gk_inline._fetch_figure_metadata):
        meta = dict(_orig(fig) or {{}})
        try:
            size = _gk_min_font(fig)
        except Exception:
            size = None
        if size is not None:
            meta["gamekit_min_font_pt"] = round(float(size), 2)
            meta["gamekit_dpi"] = {SLIDE_DPI}
        return meta or None

    _gk_inline._fetch_figure_metadata = _gk_metadata
except Exception as _gk_error:  # the slides still build, only unmeasured
    print("slide style not applied:", _gk_error)
"""


#: Run first in every executed notebook: every figure carries its alt text (gamekit.views.alt),
#: also in a notebook that draws with plain matplotlib and never imports gamekit.views.
ALT_SETUP = "import gamekit.views as _gk_views  # figures carry their alt text\n"


@contextlib.contextmanager
def inline_figures():
    """Make kernels draw real inline figures even if MPLBACKEND=Agg was inherited.

    With MPLBACKEND=Agg a kernel silently drops every figure, and an executed notebook
    then has no plots although it ran without error.
    """
    old = os.environ.get("MPLBACKEND")
    os.environ["MPLBACKEND"] = INLINE_BACKEND
    try:
        yield
    finally:
        if old is None:
            os.environ.pop("MPLBACKEND", None)
        else:
            os.environ["MPLBACKEND"] = old


def ipc_config(folder: str):
    """nbclient configuration for a kernel on IPC sockets in `folder`.

    ipykernel 7 prints "Kernel is running over TCP without encryption ... susceptible to
    eavesdropping" for every TCP kernel; a kernel on local sockets opens no port and says nothing.
    """
    from traitlets.config import Config

    c = Config()
    c.KernelManager.transport = "ipc"
    c.KernelManager.ip = os.path.join(folder, "kernel")
    return c


@contextlib.contextmanager
def kernel_language(lang: str):
    """Kernels started inside speak `lang`: the environment variable GAMEKIT_LANG (gamekit/i18n.py) set
    for them, and this process's language too; both restored afterwards."""
    from ..i18n import ENVIRONMENT_VARIABLE, get_language, use_language

    old = os.environ.get(ENVIRONMENT_VARIABLE)
    if (old or "en") == lang and get_language() == lang:  # nothing to change: safe inside threads of one build
        yield
        return
    os.environ[ENVIRONMENT_VARIABLE] = lang
    try:
        with use_language(lang):
            yield
    finally:
        if old is None:
            os.environ.pop(ENVIRONMENT_VARIABLE, None)
        else:
            os.environ[ENVIRONMENT_VARIABLE] = old


def execute_notebook(
    path: str | Path, timeout: int = 600, setup: str | None = None, lang: str | None = None
) -> nbformat.NotebookNode:
    """Run every cell of the notebook at `path` in `lang`'s edition (a bilingual master's English or
    German cells, gamekit/course/bilingual.py) in a fresh kernel that speaks `lang` (default: the
    language in force, gamekit.i18n); return it executed.

    The kernel's working directory is the notebook's folder, widget state is kept, and
    an error in any cell raises `nbclient.exceptions.CellExecutionError`. `setup` is code run
    first in the same kernel (for example SLIDE_STYLE); it leaves no cell behind.
    """
    from nbclient import NotebookClient

    from ..i18n import get_language
    from .bilingual import read_edition

    lang = lang or get_language()
    path = Path(path)
    nb = read_edition(path, lang)
    setup = ALT_SETUP + (setup or "")
    if setup:
        nb.cells.insert(0, nbformat.v4.new_code_cell(setup))
    with tempfile.TemporaryDirectory(prefix="kernel-") as sockets, inline_figures(), kernel_language(lang):
        client = NotebookClient(
            nb,
            timeout=timeout,
            kernel_name="python3",
            resources={"metadata": {"path": str(path.parent)}},
            store_widget_state=True,
            config=ipc_config(sockets),
        )
        client.execute()
    if setup:
        del nb.cells[0]
    return nb
