"""Tools for teaching with gamekit and for building the course (execution, slides, checks)."""

from .teaching import check, show_source

__all__ = ["check", "show_source"]
