"""Notebooks stored the way the kernel writes them, and built folders others can read.

JupyterLab marks a notebook modified the moment its kernel starts if the stored kernelspec or
language_info differ from what the kernel reports; then every student is asked "Save your
work?" for a notebook they never touched, and every teacher who keeps the course in git gets a
diff. `tidy_notebook` stores exactly what ipykernel reports (and no outputs), so opening a
notebook changes nothing:

    python -m gamekit.course tidy [NB ...]     # rewrite notebooks/ in place (only what differs)
"""

from __future__ import annotations

import contextlib
import copy
import os
import stat
import sys
from collections.abc import Iterable
from pathlib import Path

import nbformat

__all__ = [
    "KERNELSPEC",
    "language_info",
    "make_readable",
    "metadata_problems",
    "tidy_files",
    "tidy_notebook",
]

#: What ipykernel writes into a notebook's metadata (ipykernel's `language_info`, with the
#: Python version of the interpreter running the tidy).
KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}


def language_info() -> dict:
    """The `language_info` an ipykernel of this Python writes."""
    return {
        "codemirror_mode": {"name": "ipython", "version": 3},
        "file_extension": ".py",
        "mimetype": "text/x-python",
        "name": "python",
        "nbconvert_exporter": "python",
        "pygments_lexer": "ipython3",
        "version": ".".join(map(str, sys.version_info[:3])),
    }


def metadata_problems(nb: nbformat.NotebookNode) -> list[str]:
    """How the stored metadata differs from what the kernel writes (the Python version may differ)."""
    problems = []
    if dict(nb.metadata.get("kernelspec", {})) != KERNELSPEC:
        problems.append(f"kernelspec is {dict(nb.metadata.get('kernelspec', {}))}, expected {KERNELSPEC}")
    stored = dict(nb.metadata.get("language_info", {}))
    wanted = language_info()
    if {k: v for k, v in stored.items() if k != "version"} != {k: v for k, v in wanted.items() if k != "version"}:
        problems.append(f"language_info is {stored}, expected {wanted}")
    elif not str(stored.get("version", "")).startswith("3."):
        problems.append("language_info has no Python version")
    if "widgets" in nb.metadata:
        problems.append("stored with widget state (metadata.widgets)")
    return problems


def tidy_notebook(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """A copy of `nb` without outputs, execution counts and widget state, with the kernel's metadata.

    The `version` in language_info is kept when it is already a Python 3 version, so a
    notebook tidied on another Python is not rewritten for that alone.
    """
    out = copy.deepcopy(nb)
    out.metadata["kernelspec"] = dict(KERNELSPEC)
    info = language_info()
    old = str(nb.metadata.get("language_info", {}).get("version", ""))
    if old.startswith("3."):
        info["version"] = old
    out.metadata["language_info"] = info
    out.metadata.pop("widgets", None)
    for cell in out.cells:
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
        cell.metadata.pop("execution", None)
    return out


def tidy_files(paths: Iterable[Path]) -> list[Path]:
    """Rewrite each notebook tidily if it is not already; return the ones that changed."""
    changed = []
    for path in paths:
        nb = nbformat.read(path, as_version=4)
        tidy = tidy_notebook(nb)
        if nbformat.writes(tidy) != nbformat.writes(nb):
            nbformat.write(tidy, path)
            changed.append(Path(path))
    return changed


def make_readable(root: Path) -> None:
    """Let everyone read what was built below `root`: folders 0755, files 0644 (keeping executables).

    Folders made by `tempfile.mkdtemp` are 0700; a deck copied from such a folder to a web
    server or another account loads without its scripts.
    """
    root = Path(root)
    if not root.exists():
        return
    items = [root] if root.is_file() else [root, *root.rglob("*")]
    for item in items:
        if item.is_symlink():
            continue
        mode = item.stat().st_mode
        if item.is_dir():
            wanted = 0o755
        else:
            wanted = 0o755 if mode & stat.S_IXUSR else 0o644
        if stat.S_IMODE(mode) != wanted:
            with contextlib.suppress(PermissionError):  # someone else's file in a shared folder
                os.chmod(item, wanted)
