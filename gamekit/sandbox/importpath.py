"""No student's file on the teacher's import path.

`python -m gamekit.tournament` started inside a folder of submissions puts that folder first on
`sys.path`, so a submission named `random.py` or `json.py` would run in the teacher's process at
the next `import random`. The package drops the current folder before its first import
(`gamekit/__init__.py`, with nothing but `sys` and `os`, which are loaded before any folder is
searched); the command-line tools call `drop_current_folder` again, refuse a submissions folder
that is still on `sys.path` (`refuse_on_import_path`), and refuse a submission named like a
module the teacher's Python has (`shadowed_module`), whose file would take that module's place
wherever the folder were searched.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import Iterable
from pathlib import Path

__all__ = ["drop_current_folder", "refuse_on_import_path", "shadowed_module"]


def drop_current_folder() -> None:
    """Remove the current folder ('' and its path, however spelled) from `sys.path`."""
    here = os.path.realpath(os.getcwd())
    sys.path[:] = [p for p in sys.path if p and os.path.realpath(p) != here]


def refuse_on_import_path(paths: Iterable[str | Path], what: str = "submissions") -> None:
    """ValueError if a folder of `paths` (a folder, or the folder of a file) is on `sys.path`."""
    searched = {os.path.realpath(p or ".") for p in sys.path}
    for path in map(Path, paths):
        folder = path if path.is_dir() else path.parent
        if os.path.realpath(folder) in searched:
            raise ValueError(
                f"the {what} folder {folder} is on Python's import path (sys.path, e.g. through PYTHONPATH): "
                "a student's file there could be imported in place of a module the teacher's programs use; "
                "take it off PYTHONPATH or move the submissions to another folder"
            )


def shadowed_module(name: str) -> str | None:
    """What a module named `name` (a file's stem) would take the place of, or None.

    A standard module (`sys.stdlib_module_names`) or one installed for this Python
    (`importlib.util.find_spec`, which finds and never imports a top-level module)."""
    if not name.isidentifier():
        return None  # not importable under that name
    if name in sys.stdlib_module_names or name in sys.builtin_module_names:
        return f"Python's standard module {name!r}"
    try:
        found = importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        found = True  # a module of that name exists but is odd: refuse too
    return f"the installed module {name!r}" if found else None
