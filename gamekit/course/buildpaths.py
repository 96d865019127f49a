"""Where the course build writes: one `BuildPaths` for the slides, pages, assets, assignments and grades."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

__all__ = ["BuildPaths", "default_paths"]


@dataclass(frozen=True)
class BuildPaths:
    """Where the build puts things: below `root` (`_build/`, which .gitignore ignores).

    `assets_root` lets several build folders share one npm install (the tests use it).
    """

    root: Path
    assets_root: Path | None = None

    @property
    def assets(self) -> Path:
        return self.assets_root if self.assets_root is not None else self.root / "assets"

    @property
    def node_modules(self) -> Path:
        return self.assets / "node_modules"

    @property
    def slides(self) -> Path:
        return self.root / "slides"

    @property
    def assign(self) -> Path:
        return self.root / "assign"

    @property
    def solutions(self) -> Path:
        return self.root / "solutions"

    @property
    def grades(self) -> Path:
        return self.root / "grades"

    @property
    def html(self) -> Path:
        return self.root / "html"


def default_paths() -> BuildPaths:
    """`_build/` in the current folder (run the commands from the repository's top folder)."""
    return BuildPaths(Path.cwd() / "_build")
