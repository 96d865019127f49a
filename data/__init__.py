"""The course's data files (JSON, CSV), installed with the package as `gamekit.data`.

Notebooks and student copies find a file with `data_path(name)` wherever they run, never
through a relative path such as `../data`. Every file has a regeneration command in README.md.
"""

from __future__ import annotations

from importlib.resources import as_file, files
from pathlib import Path

__all__ = ["data_path", "data_files"]


def data_files() -> list[str]:
    """The names of the data files that ship with gamekit."""
    return sorted(
        p.name for p in files(__name__).iterdir() if p.is_file() and p.name.endswith((".json", ".csv", ".sqlite"))
    )


def data_path(name: str) -> Path:
    """The path of the data file `name` (for example "qtable_misere_357.json")."""
    if not isinstance(name, str):
        raise TypeError(f"data_path takes a file name (str), not {type(name).__name__}")
    resource = files(__name__) / name
    if name not in data_files():
        raise FileNotFoundError(f"gamekit has no data file {name!r}; it has: {', '.join(data_files())}")
    with as_file(resource) as path:  # a real file for an installed or editable package
        return Path(path)
