"""Views of the subtraction game: number graphs, course graphs, tree growth, and three widgets.

API at a glance (all take `moves`, default (3, 5, 11); colours follow `gamekit.views.colors`):

- `number_graph(N, moves) -> nx.DiGraph` — nodes 0..N (attr 'colour': 'red'/'blue'), edges
  n -> n-d for every move d with n-d >= 0 (attrs 'move', 'winning' = the target is red).
  `draw_number_graph(N, moves, ax=None)` draws it on a grid: column n mod period, row n // period
  (the source's figure 4 is `draw_number_graph(22)`).
- `backward_labels(moves, N, steps) -> dict n -> (colour, step)` — the backward construction
  from the end, `steps` half-rounds deep; `draw_backward_step(steps=1)` is the source's figure 3
  (0, 1, 2 red and their predecessors blue).
- `course_numbers(course)` — a GameRecord or a list of numbers as a validated list of numbers;
  `trim_course(raw)` cuts an R-style course after its first number <= 0.
- `course_graph(course, moves) -> nx.DiGraph` — nodes are the numbers (attrs 'step', 'player',
  'colour'), edges carry 'colour' red (winning move taken) / blue (win given away) / black
  (no win could be forced), 'move' and 'mover'. `edge_colours(course, moves)` gives the list.
  `draw_course(course, moves, names=None, ax=None)` draws it as the source does: the start on top in
  the centre, player 1's numbers left, player 2's right (names: default "player 1", "player 2").
- `forward_tree(n, moves) -> nx.DiGraph` and `draw_forward_tree(n, moves, ax=None)` — the small
  forward game tree (one node per move sequence; the source's wrong approach).
- `tree_growth(ns, moves) -> TreeGrowth` — forward game-tree size and number of positions per
  start n, with the fitted growth factor; `draw_tree_growth(growth, ax=None)` plots both on a log axis.
- Widgets (live ipywidgets + a static snapshot when run headless): `SubtractionPlay` (play against
  the computer; pure model methods `new_game(...)` and `play_move(d)`), `NumberGraphExplorer`
  (a box for N), `MixedRateExplorer` (a list of p; pure model `mixed_win_rate(p, ...)`).
  Their pictures have a fixed on-screen width (`IMAGE_WIDTH` CSS pixels, the PNG's own width),
  so JupyterLab does not stretch them across the page and blur them.
"""

from __future__ import annotations

from .course import (
    course_graph,
    course_layout,
    course_legend_handles,
    course_numbers,
    draw_course,
    edge_colour,
    edge_colours,
    trim_course,
)
from .numbers import (
    COLOUR,
    MAX_DRAW_N,
    MAX_GRAPH_N,
    backward_labels,
    check_draw_moves,
    draw_backward_step,
    draw_number_graph,
    draw_number_strip,
    grid_layout,
    number_graph,
)
from .play import (
    MAX_PLAY_START,
    OPPONENTS,
    MixedRateExplorer,
    NumberGraphExplorer,
    SubtractionPlay,
    make_opponent,
    mixed_win_rate,
    parse_start,
    png_size,
)
from .trees import (
    MAX_LABELLED_TREE,
    MAX_TREE_NODES,
    TreeGrowth,
    draw_forward_tree,
    draw_tree_growth,
    forward_tree,
    tree_growth,
    tree_layout,
)

__all__ = [
    "backward_labels",
    "check_draw_moves",
    "COLOUR",
    "course_graph",
    "course_layout",
    "course_legend_handles",
    "course_numbers",
    "draw_backward_step",
    "draw_course",
    "draw_forward_tree",
    "draw_number_graph",
    "draw_number_strip",
    "draw_tree_growth",
    "edge_colour",
    "edge_colours",
    "forward_tree",
    "grid_layout",
    "make_opponent",
    "MAX_DRAW_N",
    "MAX_GRAPH_N",
    "MAX_LABELLED_TREE",
    "MAX_PLAY_START",
    "MAX_TREE_NODES",
    "mixed_win_rate",
    "MixedRateExplorer",
    "number_graph",
    "NumberGraphExplorer",
    "OPPONENTS",
    "parse_start",
    "png_size",
    "SubtractionPlay",
    "tree_growth",
    "tree_layout",
    "TreeGrowth",
    "trim_course",
]
