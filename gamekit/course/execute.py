"""Execute course notebooks headless (with real figures) and export them as slides."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

import nbformat

INLINE_BACKEND = "module://matplotlib_inline.backend_inline"


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


def execute_notebook(path: str | Path, timeout: int = 600) -> nbformat.NotebookNode:
    """Run every cell of the notebook at `path` in a fresh kernel; return the executed notebook.

    The kernel's working directory is the notebook's folder, widget state is kept, and
    an error in any cell raises `nbclient.exceptions.CellExecutionError`.
    """
    from nbclient import NotebookClient

    path = Path(path)
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(
        nb,
        timeout=timeout,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},
        store_widget_state=True,
    )
    with inline_figures():
        client.execute()
    return nb


def export_slides(nb: nbformat.NotebookNode, out: str | Path | None = None, **config) -> str:
    """Export an (executed) notebook to reveal.js slides; write them to `out` if given."""
    from nbconvert import SlidesExporter

    exporter = SlidesExporter(**config)
    body, _ = exporter.from_notebook_node(nb)
    if out is not None:
        Path(out).write_text(body, encoding="utf-8")
    return body
