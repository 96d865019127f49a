__all__ = [
    "BLACK",
    "BLUE",
    "EDGE_STYLE",
    "GREY",
    "LIGHT_BLUE",
    "LIGHT_RED",
    "NODE_SHAPE",
    "RED",
]
"""The one colour language of the course.

red  = a position you want to produce (the player to move there loses: a P-position,
       the source's "red numbers"); as an edge: a winning move taken.
blue = a position you must avoid producing; as an edge: a win given away.
black edge = no forced win was available, so any move was as good as another.

Never colour alone: red numbers are drawn as squares and blue ones as circles (`NODE_SHAPE`);
red edges are solid, blue edges dashed and black edges dotted (`EDGE_STYLE`); legends and alt
texts name them. tests/test_accessibility.py checks that the colours stay apart for the common
colour-vision deficiencies.
"""

RED = "#d62728"
BLUE = "#1f77b4"
BLACK = "#222222"
GREY = "#bbbbbb"
LIGHT_RED = "#f4b6b6"
LIGHT_BLUE = "#b9d3ea"

#: Marker of a red / blue number in graph drawings (matplotlib marker codes).
NODE_SHAPE = {"red": "s", "blue": "o"}
#: Line style of a red / blue / black edge in course graphs.
EDGE_STYLE = {"red": "solid", "blue": "dashed", "black": "dotted"}
