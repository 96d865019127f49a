"""Tools for teaching with gamekit and for building the course (slides, assignments, grading)."""

from .teaching import check, show_source

__all__ = ["check", "show_source"]
