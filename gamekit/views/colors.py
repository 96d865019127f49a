__all__ = [
    "BLACK",
    "BLUE",
    "GREY",
    "LIGHT_BLUE",
    "LIGHT_RED",
    "RED",
]
"""The one colour language of the course.

red  = a position you want to produce (the player to move there loses: a P-position,
       the source's "red numbers"); as an edge: a winning move taken.
blue = a position you must avoid producing; as an edge: a win given away.
black edge = no forced win was available, so any move was as good as another.
"""

RED = "#d62728"
BLUE = "#1f77b4"
BLACK = "#222222"
GREY = "#bbbbbb"
LIGHT_RED = "#f4b6b6"
LIGHT_BLUE = "#b9d3ea"
