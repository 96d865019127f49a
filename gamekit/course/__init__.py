"""Tools for teaching with gamekit and for building the course (slides, assignments, grading)."""

from .teaching import show_source

__all__ = ["show_source"]
