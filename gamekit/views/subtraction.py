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
  `draw_course(course, moves, names=("player 1", "player 2"), ax=None)` draws it as the source
  does: the start on top in the centre, player 1's numbers left, player 2's right.
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

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import ipywidgets as widgets
import matplotlib.pyplot as plt
import networkx as nx
import numpy as np
from matplotlib.lines import Line2D

from ..counting import reachable_positions, tree_size
from ..games.subtraction import SOURCE_MOVES, SubtractionGame, SubtractionState, check_moves, check_number, periodicity
from ..match import GameRecord, random_start, tournament
from ..players import MixedPlayer, PerfectPlayer, SmartRandomPlayer
from ..protocol import IllegalMoveError, Winner, check_bool, check_int, check_name, check_probability, is_int
from ..stats import wilson
from .alt import set_alt
from .colors import BLACK, BLUE, EDGE_STYLE, GREY, LIGHT_BLUE, LIGHT_RED, NODE_SHAPE, RED
from .style import FONT, TITLE, readable
from .widgets import Picture, SnapshotWidget

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

COLOUR = {"red": RED, "blue": BLUE, "black": BLACK}
#: Largest N the number-graph drawings accept (beyond it the picture is unreadable).
MAX_DRAW_N = 200
#: Largest N `number_graph` and `backward_labels` build (a graph object per number and move).
MAX_GRAPH_N = 10_000
#: Widgets and drawings take at most this many moves, each at most MAX_DRAW_MOVE (larger sets
#: make the period search slow and the picture meaningless).
MAX_DRAW_MOVES, MAX_DRAW_MOVE = 12, 1000
#: `tree_growth` counts trees from starts up to MAX_GROWTH_START, for at most MAX_GROWTH_STARTS starts.
MAX_GROWTH_START, MAX_GROWTH_STARTS = 5000, 500


def check_draw_moves(moves: Iterable[int]) -> tuple[int, ...]:
    """A subtraction set small enough to draw: at most MAX_DRAW_MOVES moves, each <= MAX_DRAW_MOVE."""
    moves = check_moves(moves)
    if len(moves) > MAX_DRAW_MOVES or moves[-1] > MAX_DRAW_MOVE:
        raise ValueError(
            f"moves {moves if len(moves) <= 20 else str(moves[:20])[:-1] + ', ...)'} are too many or too large to "
            f"draw; allowed: at most {MAX_DRAW_MOVES} moves, each from 1 to {MAX_DRAW_MOVE}"
        )
    return moves


def _is_red(n: int, moves: tuple[int, ...]) -> bool:
    """Red = the player to move at n loses with best play. Numbers below zero are never red."""
    return n >= 0 and periodicity(moves).is_red(n)


# --------------------------------------------------------------------------------------
# The number graph (the source's figures 3 and 4)
# --------------------------------------------------------------------------------------


def number_graph(N: int, moves: Iterable[int] = SOURCE_MOVES) -> nx.DiGraph:
    """The numbers 0..N as nodes and every move n -> n-d (with n-d >= 0) as an edge.

    Node attribute 'colour' is 'red' (produce it: the mover there loses) or 'blue' (avoid it);
    edge attributes are 'move' (d) and 'winning' (the edge ends in a red number).
    """
    moves = check_draw_moves(moves)
    N = check_int(N, "N", minimum=0, maximum=MAX_GRAPH_N)
    g = nx.DiGraph(moves=moves)
    for n in range(N + 1):
        g.add_node(n, colour="red" if _is_red(n, moves) else "blue")
    for n in range(N + 1):
        for d in moves:
            if n - d >= 0:
                g.add_edge(n, n - d, move=d, winning=g.nodes[n - d]["colour"] == "red")
    return g


def grid_layout(numbers: Iterable[int], period: int) -> dict[int, tuple[float, float]]:
    """Deterministic positions: column n mod period, row n // period (0 at the bottom)."""
    period = check_int(period, "period", minimum=1)
    return {n: (float(n % period), float(n // period)) for n in numbers}


def _check_draw_N(N: int, name: str = "N") -> int:
    N = check_number(N, name)
    if N > MAX_DRAW_N:
        raise ValueError(f"{name}={N} is too large to draw readably; allowed: 0 <= {name} <= {MAX_DRAW_N}")
    return N


def _draw_graph(g: nx.DiGraph, pos: dict, node_colour: dict, ax, title: str, period: int, edge_filter=None) -> None:
    """Shared drawing of number graphs: nodes coloured, winning edges red, other edges grey."""
    edges = [(u, v) for u, v in g.edges if edge_filter is None or edge_filter(u, v)]
    win = [(u, v) for u, v in edges if g.nodes[v].get("colour") == "red"]
    other = [(u, v) for u, v in edges if (u, v) not in set(win)]
    nodes = list(node_colour)
    size = 750  # a circle around a two- or three-digit label at FONT points
    common = dict(ax=ax, arrows=True, arrowstyle="-|>", arrowsize=12, node_size=size, connectionstyle="arc3,rad=0.25")
    # never colour alone: winning edges solid and thicker, the others dotted; red numbers are
    # squares, blue ones circles
    nx.draw_networkx_edges(g, pos, edgelist=other, edge_color=GREY, width=0.7, alpha=0.8, style="dotted", **common)
    nx.draw_networkx_edges(g, pos, edgelist=win, edge_color=RED, width=1.6, alpha=0.7, **common)
    for colour in ("red", "blue"):
        group = [n for n in nodes if node_colour[n] == colour]
        nx.draw_networkx_nodes(
            g,
            pos,
            nodelist=group,
            node_color=[COLOUR[colour]] * len(group),
            node_shape=NODE_SHAPE[colour],
            node_size=size,
            ax=ax,
            edgecolors="white",
        )
    nx.draw_networkx_labels(
        g,
        pos,
        labels={n: str(n) for n in nodes},
        font_color="white",
        font_size=FONT,
        font_weight="bold",
        ax=ax,
    )
    ax.set_title(title, fontsize=TITLE)
    cols = sorted({int(x) for x, _ in pos.values()})
    ax.set_xticks(cols, [str(c) for c in cols])
    ax.set_xlabel(f"n mod {period}", fontsize=FONT)
    ax.tick_params(left=False, labelleft=False, bottom=False, labelbottom=True, labelsize=FONT)
    for side in ("top", "right", "left", "bottom"):
        ax.spines[side].set_visible(False)
    ax.legend(
        handles=[
            Line2D([], [], marker=NODE_SHAPE["red"], ls="", color=RED, label="red: produce it"),
            Line2D([], [], marker=NODE_SHAPE["blue"], ls="", color=BLUE, label="blue: avoid it"),
            Line2D([], [], color=RED, alpha=0.7, label="move to a red number"),
        ],
        loc="upper left",
        bbox_to_anchor=(1.0, 1.0),
        fontsize=FONT,
        frameon=False,
    )


#: Numbers per row of `draw_number_strip`: wide enough cells for two-digit labels on a 1280-px slide.
STRIP_ROW = 21


def draw_number_strip(upto: int = 40, moves: Iterable[int] = SOURCE_MOVES, per_row: int = STRIP_ROW, ax=None):
    """The numbers 0..upto as a strip of squares, red or blue, in rows of `per_row` (left to right,
    then the next row). Red squares also carry a hatched band below their number (never colour
    alone), and no label overlaps another or the hatching: each number has a cell about twice as
    wide as its text. Returns the axes."""
    moves = check_draw_moves(moves)
    upto = _check_draw_N(upto, "upto")
    per_row = check_int(per_row, "per_row", minimum=1, maximum=60)
    rows = (upto + per_row) // per_row
    if ax is None:
        _, ax = plt.subplots(figsize=(12, rows * 12 / per_row + 0.1))
    red = [n for n in range(upto + 1) if _is_red(n, moves)]
    for n in range(upto + 1):
        x, y = n % per_row, -(n // per_row)
        is_red = n in red
        ax.add_patch(plt.Rectangle((x + 0.04, y + 0.04), 0.92, 0.92, facecolor=RED if is_red else BLUE, linewidth=0))
        if is_red:  # the hatching in a band of its own, under the number
            ax.add_patch(
                plt.Rectangle((x + 0.04, y + 0.04), 0.92, 0.22, fill=False, hatch="///", edgecolor="white", linewidth=0)
            )
        ax.text(x + 0.5, y + 0.6, str(n), ha="center", va="center", color="white", fontsize=FONT, fontweight="bold")
    ax.set_xlim(0, per_row)
    ax.set_ylim(-rows + 1, 1)
    ax.set_aspect("equal")
    ax.set_axis_off()
    return set_alt(
        ax,
        f"Chart: the numbers 0 to {upto} as squares in rows of {per_row}, {len(red)} red (hatched: the player to move "
        f"there loses): {', '.join(map(str, red))}; the other {upto + 1 - len(red)} blue",
    )


def draw_number_graph(
    N: int = 22,
    moves: Iterable[int] = SOURCE_MOVES,
    ax=None,
    period: int | None = None,
    title: str | None = None,
    edges: str = "all",
):
    """Draw the number graph 0..N on a grid that makes the period visible (figure 4).

    `period` sets the number of columns (default: the period of `moves`); `edges` is 'all',
    'winning' (only moves to red numbers) or 'none'. Returns the axes.
    """
    moves = check_draw_moves(moves)
    N = _check_draw_N(N)
    if period is not None:
        period = check_int(period, "period", minimum=1)
    if title is not None and not isinstance(title, str):
        raise TypeError(f"title must be a text or None, got {title!r}")
    if not isinstance(edges, str) or edges not in ("all", "winning", "none"):
        raise ValueError(f"edges must be 'all', 'winning' or 'none', got {edges!r}")
    period = periodicity(moves).period if period is None else period
    g = number_graph(N, moves)
    keep = {"all": None, "winning": lambda u, v: g.nodes[v]["colour"] == "red", "none": lambda u, v: False}
    pos = grid_layout(g.nodes, period)
    if ax is None:
        _, ax = plt.subplots(figsize=(11, 1.6 + 1.0 * (N // period + 1)))
    colours = {n: g.nodes[n]["colour"] for n in g.nodes}
    name = ", ".join(map(str, moves))
    _draw_graph(
        g, pos, colours, ax, title or f"Numbers 0..{N}, moves {name}: red and blue", period, edge_filter=keep[edges]
    )
    return set_alt(ax, _numbers_alt("Graph", ax.get_title(), colours, period))


def _numbers_alt(kind: str, title: str, colours: dict, period: int) -> str:
    red = [n for n in sorted(colours) if colours[n] == "red"]
    blue = [n for n in sorted(colours) if colours[n] == "blue"]
    return (
        f"{kind} ({title}): numbers on a grid of {period} columns (n mod {period}); "
        f"{len(red)} red numbers (squares, produce them): {', '.join(map(str, red)) or 'none'}; "
        f"{len(blue)} blue numbers (circles, avoid them): {', '.join(map(str, blue)) or 'none'}"
    )


def backward_labels(moves: Iterable[int] = SOURCE_MOVES, N: int = 22, steps: int = 1) -> dict[int, tuple[str, int]]:
    """The backward construction from the end of the game, `steps` half-rounds deep.

    Step 0: the numbers from which every move goes below zero (and 0 itself) are red.
    Odd steps: every unlabelled n <= N with a move to a red number becomes blue.
    Even steps: every unlabelled n <= N whose moves all reach blue numbers (or go below zero)
    becomes red. Returns {n: (colour, step at which it was labelled)}.
    """
    moves = check_draw_moves(moves)
    N = check_int(N, "N", minimum=0, maximum=MAX_GRAPH_N)
    steps = check_number(steps, "steps")
    labels: dict[int, tuple[str, int]] = {}
    for step in range(steps + 1):
        if len(labels) == N + 1:
            break  # every number is labelled: further steps change nothing
        new = {}
        for n in range(N + 1):
            if n in labels:
                continue
            targets = [n - d for d in moves if n - d >= 0]
            if step % 2 == 1 and any(labels.get(t, ("",))[0] == "red" for t in targets):
                new[n] = ("blue", step)
            elif step % 2 == 0 and all(labels.get(t, ("",))[0] == "blue" for t in targets):
                new[n] = ("red", step)
        labels.update(new)
    return labels


def draw_backward_step(
    steps: int = 1, moves: Iterable[int] = SOURCE_MOVES, N: int | None = None, ax=None, title: str | None = None
):
    """Draw the numbers labelled after `steps` steps of the backward construction (figure 3).

    Only labelled numbers are drawn, with the edges that justified their labels: a blue number's
    moves to red numbers, a red number's moves (all to blue numbers). Returns the axes.
    """
    moves = check_draw_moves(moves)
    N = min(2 + max(moves), MAX_DRAW_N) if N is None else _check_draw_N(N)
    labels = backward_labels(moves, N, steps)
    period = periodicity(moves).period
    g = number_graph(N, moves)
    for n in g.nodes:
        g.nodes[n]["colour"] = labels.get(n, ("none",))[0]
    pos = grid_layout(labels, period)
    if ax is None:
        _, ax = plt.subplots(figsize=(11, 1.6 + 1.0 * (max(labels) // period + 1)))

    def justifies(u, v):
        return (
            u in labels
            and v in labels
            and labels[u][1] > labels[v][1]
            and (labels[u][0] == "red" or labels[v][0] == "red")
        )

    _draw_graph(
        g,
        pos,
        {n: c for n, (c, _) in sorted(labels.items())},
        ax,
        title or f"Backward from the end: {steps} step{'s' if steps != 1 else ''}",
        period,
        edge_filter=justifies,
    )
    return set_alt(ax, _numbers_alt("Graph", ax.get_title(), {n: c for n, (c, _) in labels.items()}, period))


# --------------------------------------------------------------------------------------
# The course of one game (the source's figures 5 to 8)
# --------------------------------------------------------------------------------------


def trim_course(raw: Sequence[int]) -> list[int]:
    """Cut an R-style course (with trailing zeros) after its first number <= 0."""
    if isinstance(raw, (str, bytes)) or not hasattr(raw, "__iter__"):
        raise TypeError(f"a course is a list of whole numbers, got {raw!r}")
    out = []
    for n in raw:
        if not is_int(n):
            raise TypeError(f"a course holds whole numbers, got {n!r} in {raw!r}")
        out.append(int(n))
        if n <= 0:
            return out
    return out


def course_numbers(course, moves: Iterable[int] = SOURCE_MOVES) -> list[int]:
    """The numbers of a course (start first), from a GameRecord or a list; validated.

    A valid course starts above 0, each step subtracts an allowed move, and only the last
    number may be <= 0.
    """
    moves = check_moves(moves)
    if isinstance(course, GameRecord):
        numbers = [s.n for s in course.states]
    elif isinstance(course, (str, bytes)) or not hasattr(course, "__iter__"):
        raise TypeError(f"course must be a GameRecord or a list of numbers, got {course!r}")
    else:
        numbers = list(course)
    for x in numbers:
        if not is_int(x):
            raise TypeError(f"a course holds whole numbers, got {x!r} in {numbers!r}")
    numbers = [int(x) for x in numbers]
    if not numbers or numbers[0] <= 0:
        raise ValueError(f"a course starts with a number > 0, got {numbers!r}")
    game = SubtractionGame(numbers[0], moves)  # the course is replayed through the game's own rules
    state = game.initial_state()
    for i in range(1, len(numbers)):
        if game.is_terminal(state):
            raise ValueError(
                f"the game ended at {numbers[i - 1]}, but the course goes on: {numbers!r} "
                "(use trim_course for R output with trailing zeros)"
            )
        d = numbers[i - 1] - numbers[i]
        try:
            state = game.play(state, d)
        except IllegalMoveError:
            raise ValueError(
                f"step {numbers[i - 1]} -> {numbers[i]} subtracts {d}; allowed moves: {game.legal_moves(state)}"
            ) from None
    return numbers


def edge_colour(n1: int, n2: int, moves: Iterable[int] = SOURCE_MOVES) -> str:
    """The course-graph colour of the move n1 -> n2.

    'red' if the mover could force a win (n1 blue) and produced a red number, 'blue' if the
    mover could force a win and did not (a win given away), 'black' if n1 is red (no win could
    be forced, so every move is as good as another). Going below zero is never red — unlike the
    source's R code, which tests `n2 %% 8` and so colours the losing moves 3 -> -8, 4 -> -7 and
    5 -> -6 red (R's %% of -8, -7, -6 is 0, 1, 2).
    """
    moves = check_moves(moves)
    n1, n2 = check_int(n1, "n1"), check_int(n2, "n2")
    if _is_red(n1, moves):
        return "black"
    return "red" if _is_red(n2, moves) else "blue"


def edge_colours(course, moves: Iterable[int] = SOURCE_MOVES) -> list[str]:
    """The colour of every move of a course, in order."""
    numbers = course_numbers(course, moves)
    return [edge_colour(a, b, moves) for a, b in zip(numbers, numbers[1:])]


def course_graph(course, moves: Iterable[int] = SOURCE_MOVES) -> nx.DiGraph:
    """The course of one game as a path graph with coloured edges.

    Nodes are the numbers (attrs 'step': 0 for the start, 'player': 0/1 who produced it or None
    for the start, 'colour': 'red'/'blue', or 'end' for a number <= 0). Edges carry 'colour'
    (see `edge_colour`), 'move' (d) and 'mover' (0 = player 1, 1 = player 2).
    """
    moves = check_moves(moves)
    numbers = course_numbers(course, moves)
    g = nx.DiGraph(moves=moves)
    for i, n in enumerate(numbers):
        colour = "end" if n <= 0 else ("red" if _is_red(n, moves) else "blue")
        g.add_node(n, step=i, player=None if i == 0 else (i - 1) % 2, colour=colour)
    for i, (a, b) in enumerate(zip(numbers, numbers[1:])):
        g.add_edge(a, b, colour=edge_colour(a, b, moves), move=a - b, mover=i % 2)
    return g


def course_layout(g: nx.DiGraph) -> dict[int, tuple[float, float]]:
    """Start on top in the centre, player 1's numbers left, player 2's right, one row per move."""
    x = {None: 0.5, 0: 0.0, 1: 1.0}
    return {n: (x[a["player"]], -float(a["step"])) for n, a in g.nodes(data=True)}


def draw_course(
    course,
    moves: Iterable[int] = SOURCE_MOVES,
    names: Sequence[str] = ("player 1", "player 2"),
    ax=None,
    title: str | None = None,
    legend: bool = True,
):
    """Draw one game's course with red / blue / black edges (the source's figures 5 to 8).

    Node faces show the numbers' colours (light red / light blue; white = the game is over).
    Returns the axes.
    """
    moves = check_moves(moves)
    g = course_graph(course, moves)
    if isinstance(names, str) or not isinstance(names, Sequence) or len(names) != 2:
        raise ValueError(f"names must hold two names (player 1, player 2), got {names!r}")
    names = [check_name(x, "each name") for x in names]
    pos = course_layout(g)
    rows = len(g)
    if ax is None:
        _, ax = plt.subplots(figsize=(5, min(6.5, 1.4 + 0.45 * rows)))
    size = 700 if rows <= 14 else 500  # circles around labels of FONT points
    face = {"red": LIGHT_RED, "blue": LIGHT_BLUE, "end": "white"}
    for colour in ("black", "blue", "red"):
        edges = [(u, v) for u, v, c in g.edges(data="colour") if c == colour]
        nx.draw_networkx_edges(
            g,
            pos,
            edgelist=edges,
            edge_color=COLOUR[colour],
            style=EDGE_STYLE[colour],
            width=2.5,
            arrows=True,
            arrowstyle="-|>",
            arrowsize=14,
            node_size=size,
            ax=ax,
        )
    nodes = list(g.nodes)
    for colour in ("red", "blue", "end"):  # red numbers squares, blue ones circles (never colour alone)
        group = [n for n in nodes if g.nodes[n]["colour"] == colour]
        nx.draw_networkx_nodes(
            g,
            pos,
            nodelist=group,
            node_color=[face[colour]] * len(group),
            node_shape=NODE_SHAPE.get(colour, "o"),
            edgecolors=BLACK,
            linewidths=0.8,
            node_size=size,
            ax=ax,
        )
    nx.draw_networkx_labels(g, pos, labels={n: str(n) for n in nodes}, font_size=FONT, ax=ax)
    ax.set_xlim(-0.45, 1.45)
    ax.set_ylim(-rows + 0.4, 1.2)
    ax.text(0.0, 0.6, names[0], ha="center", fontsize=FONT, fontweight="bold")
    ax.text(1.0, 0.6, names[1], ha="center", fontsize=FONT, fontweight="bold")
    ax.axis("off")
    if title:
        ax.set_title(title, fontsize=FONT + 1)
    if legend:
        ax.legend(
            handles=course_legend_handles(),
            loc="upper center",
            bbox_to_anchor=(0.5, 0.0),
            ncol=1,
            fontsize=FONT,
            frameon=False,
        )
    steps = []
    for u, v, data in sorted(g.edges(data=True), key=lambda e: g.nodes[e[0]]["step"]):
        who = names[g.nodes[v]["player"]]
        steps.append(f"{u} to {v} ({who}, {EDGE_WORDS[data['colour']]})")
    said = "; ".join(steps) if steps else f"only the start, {min(g.nodes, key=lambda n: g.nodes[n]['step'])}"
    return set_alt(ax, f"Graph{f' ({title})' if title else ''}: the course of one game, {len(g.edges)} moves: {said}")


#: What each edge colour of a course graph means (for legends and alt texts).
EDGE_WORDS = {
    "red": "winning move, red solid",
    "blue": "win given away, blue dashed",
    "black": "no win possible, black dotted",
}


def course_legend_handles() -> list[Line2D]:
    """The legend entries of a course graph's edge colours (for one legend under several courses:
    `fig.legend(handles=course_legend_handles(), ncol=3, ...)`)."""
    return [
        Line2D([], [], color=RED, lw=2.5, ls=EDGE_STYLE["red"], label="winning move"),
        Line2D([], [], color=BLUE, lw=2.5, ls=EDGE_STYLE["blue"], label="win given away"),
        Line2D([], [], color=BLACK, lw=2.5, ls=EDGE_STYLE["black"], label="no win possible"),
    ]


# --------------------------------------------------------------------------------------
# The wrong approach: how fast the forward game tree grows
# --------------------------------------------------------------------------------------

#: Largest forward tree `forward_tree` builds (it is meant for small, drawable trees).
MAX_TREE_NODES = 400


def forward_tree(n: int, moves: Iterable[int] = SOURCE_MOVES) -> nx.DiGraph:
    """The full forward game tree from n: one node per sequence of moves (the wrong approach).

    Nodes are the move sequences (tuples, () is the root) with attributes 'n' (the number),
    'depth' and 'colour' ('red'/'blue', or 'end' when the game is over); edges carry 'move'.
    The same number appears at many nodes, which is the point of the picture.
    """
    moves = check_moves(moves)
    n = _check_draw_N(n, "start")
    size = tree_size(SubtractionGame(n, moves))
    if size > MAX_TREE_NODES:
        raise ValueError(
            f"the tree from {n} has {size} nodes; forward_tree draws at most {MAX_TREE_NODES} "
            "(use gamekit.tree_size to count larger trees)"
        )
    g = nx.DiGraph(moves=moves)
    game = SubtractionGame(n, moves)
    todo: list[tuple[tuple[int, ...], SubtractionState]] = [((), game.initial_state())]
    while todo:
        path, s = todo.pop()
        over = game.is_terminal(s)
        colour = "end" if over else ("red" if _is_red(s.n, moves) else "blue")
        g.add_node(path, n=s.n, depth=len(path), colour=colour)
        if path:
            g.add_edge(path[:-1], path, move=path[-1])
        if not over:
            todo.extend((path + (d,), game.play(s, d)) for d in reversed(game.legal_moves(s)))
    return g


def tree_layout(g: nx.DiGraph) -> dict:
    """Leaves spread evenly left to right in move order, parents centred above their children."""
    pos, next_x = {}, [0.0]

    def place(node) -> float:
        kids = sorted(g.successors(node), key=lambda k: k[-1])
        if kids:
            x = sum(place(k) for k in kids) / len(kids)
        else:
            x, next_x[0] = next_x[0], next_x[0] + 1.0
        pos[node] = (x, -float(g.nodes[node]["depth"]))
        return x

    place(())
    return pos


#: Trees with more nodes than this are drawn without number labels (they would be too small to read).
MAX_LABELLED_TREE = 60


def draw_forward_tree(n: int = 10, moves: Iterable[int] = SOURCE_MOVES, ax=None, title: str | None = None):
    """Draw the forward game tree from n; up to MAX_LABELLED_TREE nodes every node is labelled
    by its number (larger trees show only the colours). Returns the axes."""
    g = forward_tree(n, moves)
    pos = tree_layout(g)
    if ax is None:
        _, ax = plt.subplots(figsize=(11, 5))
    labelled = len(g) <= MAX_LABELLED_TREE
    size = 650 if labelled else 120
    face = {"red": RED, "blue": BLUE, "end": "white"}
    nodes = list(g.nodes)
    nx.draw_networkx_edges(g, pos, ax=ax, edge_color=GREY, arrows=False, width=1.0)
    nx.draw_networkx_nodes(
        g,
        pos,
        nodelist=nodes,
        node_color=[face[g.nodes[v]["colour"]] for v in nodes],
        edgecolors=BLACK,
        linewidths=0.6,
        node_size=size,
        ax=ax,
    )
    labels = {v: str(g.nodes[v]["n"]) for v in nodes}
    for colour, font in (("end", BLACK), ("red", "white"), ("blue", "white")) if labelled else ():
        nx.draw_networkx_labels(
            g,
            pos,
            labels={v: t for v, t in labels.items() if g.nodes[v]["colour"] == colour},
            font_size=FONT,
            font_color=font,
            ax=ax,
        )
    ax.set_title(title or f"The forward game tree from {n}: {len(g)} nodes", fontsize=TITLE)
    ax.axis("off")
    return set_alt(ax, _forward_tree_alt(g, ax.get_title()))


def _forward_tree_alt(g: nx.DiGraph, title: str) -> str:
    """What the forward tree shows: its size, its leaves, and the numbers it meets more than once."""
    leaves = [v for v in g if g.nodes[v]["colour"] == "end"]
    seen: dict[int, list[tuple[int, ...]]] = {}
    for v in sorted(g, key=lambda path: (len(path), path)):
        if g.nodes[v]["colour"] != "end" and v:
            seen.setdefault(g.nodes[v]["n"], []).append(v)
    repeated = [(k, paths) for k, paths in seen.items() if len(paths) > 1]
    said = "; ".join(
        f"the number {k} appears {len(paths)} times (after "
        + " and after ".join(" ".join(f"−{d}" for d in path) for path in paths[:3])
        + (", ..." if len(paths) > 3 else "")
        + ")"
        for k, paths in repeated[:3]
    )
    return (
        f"Tree ({title}): {len(g)} nodes, {len(leaves)} of them leaves (numbers 0 or below: the game is over); "
        + (said or "no number appears twice")
        + (f"; {len(repeated) - 3} more numbers appear more than once" if len(repeated) > 3 else "")
    )


@dataclass(frozen=True)
class TreeGrowth:
    """Forward game-tree sizes and position counts for the starts `ns`."""

    moves: tuple[int, ...]
    ns: tuple[int, ...]
    tree_sizes: tuple[int, ...]  # nodes of the full game tree from n
    positions: tuple[int, ...]  # distinct positions reachable from n (the game graph)

    @property
    def factor(self) -> float:
        """Growth factor of the tree per +1 of n, fitted on the larger half of the starts."""
        half = len(self.ns) // 2
        x = np.array(self.ns[half:], dtype=float)
        y = np.log(np.array(self.tree_sizes[half:], dtype=float))
        return float(np.exp(np.polyfit(x, y, 1)[0]))


def tree_growth(ns: Iterable[int], moves: Iterable[int] = SOURCE_MOVES) -> TreeGrowth:
    """Count the forward game tree (`tree_size`) and the positions for each start n in `ns`."""
    moves = check_moves(moves)
    if isinstance(ns, (str, bytes)) or not hasattr(ns, "__iter__"):
        raise TypeError(f"ns must be a list of start numbers, got {ns!r}")
    ns = tuple(check_int(n, "every start", minimum=0, maximum=MAX_GROWTH_START) for n in ns)
    if len(ns) > MAX_GROWTH_STARTS:
        raise ValueError(f"at most {MAX_GROWTH_STARTS} starts are allowed, got {len(ns)}")
    if len(ns) < 2:
        raise ValueError(f"give at least two starts to see growth, got {ns!r}")
    sizes, positions = [], []
    for n in ns:
        game = SubtractionGame(n, moves)
        sizes.append(tree_size(game))
        positions.append(len(reachable_positions(game)))
    return TreeGrowth(moves, ns, tuple(sizes), tuple(positions))


def draw_tree_growth(growth: TreeGrowth, ax=None):
    """Tree nodes and positions against the start n, on a log axis."""
    if ax is None:
        _, ax = plt.subplots(figsize=(11, 5))
    ax.semilogy(growth.ns, growth.tree_sizes, "o-", color=BLUE, ms=4, label="nodes of the game tree")
    ax.semilogy(growth.ns, growth.positions, "s-", color=BLACK, ms=4, label="distinct positions")
    ax.set_xlabel("start number n")
    ax.set_ylabel("count (log scale)")
    ax.set_title(
        f"Forward tree vs positions, moves {', '.join(map(str, growth.moves))}"
        f" (tree grows ×{growth.factor:.3f} per step)",
    )
    ax.grid(True, which="major", alpha=0.3)
    ax.legend()
    return readable(ax)


# --------------------------------------------------------------------------------------
# Widgets
# --------------------------------------------------------------------------------------


def png_size(data: bytes) -> tuple[int, int]:
    """(width, height) in pixels of a PNG, read from its header."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError(f"data must be the bytes of a PNG image, got {type(data).__name__}")
    data = bytes(data[:24])
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG image")
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


def _image(width: int) -> Picture:
    """A picture with its alt text and a fixed width in CSS pixels (height follows the picture).

    Without a width, JupyterLab's widget boxes stretch an image across the whole output area,
    which blows up the picture and makes it blurry.
    """
    return Picture(width=width, layout=widgets.Layout(max_width="100%", align_self="flex-start"))


OPPONENTS = ("optimal", "random", "mixed")
#: Largest start the play widget accepts (a longer course no longer fits the screen).
MAX_PLAY_START = 200


def parse_start(text) -> int:
    """A start number from user input (text typed in the box, or an int): 1..MAX_PLAY_START.

    Text that is not a whole number, or a number out of range, is a ValueError; a value that
    is neither text nor an int (a float, a bool, None) is a TypeError.
    """
    if isinstance(text, str):
        stripped = text.strip()
        if not (stripped.isascii() and stripped.lstrip("-").isdigit()):
            raise ValueError(f"start must be a whole number from 1 to {MAX_PLAY_START}, got {text!r}")
        value = int(stripped)
    elif is_int(text):
        value = int(text)
    else:
        raise TypeError(f"start must be a whole number from 1 to {MAX_PLAY_START} (or its text), got {text!r}")
    if not 1 <= value <= MAX_PLAY_START:
        raise ValueError(f"start must be a whole number from 1 to {MAX_PLAY_START}, got {text!r}")
    return value


def make_opponent(kind: str, p: float = 0.5, seed: int | None = None):
    """The computer player for `kind` in OPPONENTS ('mixed' plays optimally with probability p)."""
    if not isinstance(kind, str):
        raise TypeError(f"opponent must be one of {OPPONENTS}, got {kind!r}")
    if kind == "optimal":
        return PerfectPlayer(name="optimal")
    if kind == "random":
        return SmartRandomPlayer(seed=seed, name="random")
    if kind == "mixed":
        return MixedPlayer(p, seed=seed)
    raise ValueError(f"opponent must be one of {OPPONENTS}, got {kind!r}")


class SubtractionPlay(SnapshotWidget):
    """Play the subtraction game against the computer; the course graph grows as you play.

    The pure model: `new_game(start, opponent, human_first)` and `play_move(d)` (the buttons
    call them). Each returns True when it did something and False (with an error message,
    nothing changed) when the action was not allowed.

    With the keyboard: the start is a number box (a number typed into it and sent with Enter starts
    a new game from it, as "New game" does; each arrow-key step starts one from the number shown),
    Tab reaches every control, and the move buttons are disabled once the game is over. A start out
    of range is refused with a message, and the game on the board stays.
    """

    #: The course graph is drawn at 110 dpi (its 14-point text 21 pixels tall) and shown at its own
    #: width in CSS pixels (the figure is 5 inches wide, trimmed to its contents).
    IMAGE_DPI, IMAGE_WIDTH = 110, 448

    def __init__(
        self,
        start: int = 22,
        moves: Iterable[int] = SOURCE_MOVES,
        opponent: str = "optimal",
        p: float = 0.5,
        human_first: bool = True,
        seed: int | None = None,
    ):
        super().__init__()
        self.moves = check_draw_moves(moves)
        if not isinstance(opponent, str) or opponent not in OPPONENTS:
            raise ValueError(f"opponent must be one of {OPPONENTS}, got {opponent!r}")
        self.p = check_probability(p, "p")
        human_first = check_bool(human_first, "human_first")
        if seed is not None:
            seed = check_int(seed, "seed", minimum=0)
        start = parse_start(start)  # a bad start is refused here with its own TypeError/ValueError
        self.seed = seed
        self._games_started = 0
        self._showing_start = False  # True while new_game writes the start into the box (not a new entry)
        # labels as wide as their text (ipywidgets' fixed widths cut "opponent" on a slide's larger font)
        wide = {"description_width": "initial"}
        # a number box: arrow keys step it, and it sends its value when Enter is pressed (or focus leaves)
        self.start_box = widgets.IntText(
            value=start, description="start", continuous_update=False, style=wide, layout=widgets.Layout(width="170px")
        )
        self.new_button = widgets.Button(description="New game", layout=widgets.Layout(width="auto"))
        self.opponent_box = widgets.Dropdown(
            options=OPPONENTS, value=opponent, description="opponent", style=wide, layout=widgets.Layout(width="auto")
        )
        self.first_box = widgets.ToggleButtons(
            options=["you start", "computer starts"],
            value="you start" if human_first else "computer starts",
            style={"button_width": "auto"},
        )
        self.move_buttons = [
            widgets.Button(description=f"−{d}", layout=widgets.Layout(width="70px")) for d in self.moves
        ]
        self.status = widgets.HTML()
        self.image = _image(self.IMAGE_WIDTH)
        self.new_button.on_click(
            lambda _: self.new_game(self.start_box.value, self.opponent_box.value, self.first_box.value == "you start")
        )
        self.start_box.observe(self._start_entered, names="value")
        for d, button in zip(self.moves, self.move_buttons):
            button.on_click(lambda _, d=d: self.play_move(d))
        self.root = widgets.VBox(
            [
                widgets.HBox(
                    [self.start_box, self.opponent_box, self.first_box, self.new_button],
                    layout=widgets.Layout(flex_flow="row wrap"),  # a narrow slide wraps the row, never cuts it
                ),
                widgets.HBox(self.move_buttons),
                self.status,
                self.message,
                self.image,
            ]
        )
        if not self.new_game(start, opponent, human_first):
            raise ValueError(self.message.value)

    def _start_entered(self, change: dict) -> None:
        """A start typed into the box and sent (Enter): a new game from it, with the current settings."""
        if not self._showing_start:
            self.new_game(change["new"])

    # -- the pure model ------------------------------------------------------------------
    @property
    def n(self) -> int:
        """The current number."""
        return self.course[-1]

    @property
    def over(self) -> bool:
        """The game says it is over."""
        return self.game.is_terminal(self.state)

    @property
    def winner(self) -> Winner:
        """The seat that won (0 = whoever moved first, 1), or None while the game runs: the same
        type as every `winner` in gamekit. Read off the game's own `utility`, not re-derived here.
        """
        if not self.over:
            return None
        return 0 if self.game.utility(self.state, 0) > 0 else 1

    @property
    def winner_name(self) -> str | None:
        """Who won, as shown to the player: 'you', 'computer', or None while the game runs."""
        return None if self.winner is None else self.players[self.winner]

    def new_game(self, start=None, opponent: str | None = None, human_first: bool | None = None) -> bool:
        """Start a new game (defaults: the current settings); False and a message if input is bad."""
        try:
            start = parse_start(self.start_box.value if start is None else start)
            kind = self.opponent_box.value if opponent is None else opponent
            computer = make_opponent(kind, self.p, None if self.seed is None else self.seed + self._games_started)
            first = (
                (self.first_box.value == "you start") if human_first is None else check_bool(human_first, "human_first")
            )
        except (TypeError, ValueError) as err:
            return self.refuse(err)
        self._games_started += 1
        self.kind, self.computer = kind, computer
        self.game = SubtractionGame(start, self.moves)
        self.state = self.game.initial_state()
        self.players = ("you", "computer") if first else ("computer", "you")
        self.course = [start]
        self._showing_start = True
        try:
            self.start_box.value = start
        finally:
            self._showing_start = False
        text = f"New game from {start} against the {kind} strategy."
        if not first:
            text += f" The computer subtracted {self._computer_moves()}."
        self.say(text, "info")
        self._refresh()
        return True

    def play_move(self, d: int) -> bool:
        """Your move: subtract d; then the computer answers. False and a message if not allowed."""
        if self.over:
            self.say(f"The game is over ({self.winner_name} won). Press 'New game' to play again.", "error")
            return False
        if not is_int(d) or d not in self.game.legal_moves(self.state):
            legal = self.game.legal_moves(self.state)
            return self.refuse(f"You can only subtract one of {legal} (a whole number), not {d!r}.")
        d = int(d)
        self._play(d)
        text = f"You subtracted {d}."
        if not self.over:
            text += f" The computer subtracted {self._computer_moves()}."
        text += (
            f" Game over at {self.n}: {self.winner_name} won. Press 'New game' to play again."
            if self.over
            else f" Now at {self.n}: your move."
        )
        self.say(text, "info")
        self._refresh()
        return True

    def _play(self, d: int) -> None:
        """Every move goes through the game's `play` (which checks it); the course records the numbers."""
        self.state = self.game.play(self.state, d)
        self.course.append(self.state.n)

    def _computer_moves(self) -> int:
        d = self.computer(self.game, self.state)
        self._play(d)
        return d

    # -- the view --------------------------------------------------------------------------
    def status_text(self) -> str:
        if self.over:
            return f"Game over at {self.n}: <b>{self.winner_name} won</b>."
        colour = "red (you cannot force a win)" if _is_red(self.n, self.moves) else "blue (a win can be forced)"
        return f"Now at <b>{self.n}</b>, your move. This number is {colour}."

    def _refresh(self) -> None:
        self.status.value = self.status_text()
        for d, button in zip(self.moves, self.move_buttons):  # names for a screen reader
            button.tooltip = f"subtract {d}" + (
                f" (from {self.n} to {self.n - d})" if not self.over else " (game over)"
            )
            button.disabled = self.over
        fig = self.snapshot()
        self.image.show(fig, self.IMAGE_DPI)

    def snapshot(self):
        fig, ax = plt.subplots(figsize=(5, min(6.5, 1.9 + 0.45 * len(self.course))))
        draw_course(
            self.course,
            self.moves,
            names=self.players,
            ax=ax,
            title=f"{self.players[0]} vs {self.players[1]} ({self.kind})",
        )
        return fig


class NumberGraphExplorer(SnapshotWidget):
    """A box for N (and one for the moves) that redraws the number graph."""

    #: The number graph is drawn at 80 dpi and shown at its own width in CSS pixels (11 inches
    #: with the legend beside it; 14-point text 16 pixels tall).
    IMAGE_DPI, IMAGE_WIDTH = 80, 942

    def __init__(self, N: int = 22, moves: Iterable[int] = SOURCE_MOVES, max_N: int = 80):
        super().__init__()
        self.moves = check_draw_moves(moves)
        max_N = _check_draw_N(max_N, "max_N")
        N = check_number(N, "N")
        if max_N < N:
            raise ValueError(f"N must be at most max_N={max_N}, got {N}")
        # a labelled number box, not a slider: JupyterLab names a slider's handle for no screen reader
        self.slider = widgets.BoundedIntText(
            value=N, min=0, max=max_N, description="N", style={"description_width": "initial"}
        )
        self.moves_box = widgets.Text(
            value=", ".join(map(str, self.moves)), description="moves", style={"description_width": "initial"}
        )
        self.apply = widgets.Button(description="Use these moves")
        self.image = _image(self.IMAGE_WIDTH)
        self.slider.observe(lambda change: self._refresh(), names="value")
        self.apply.on_click(lambda _: self.set_moves(self.moves_box.value))
        self.root = widgets.VBox([widgets.HBox([self.slider, self.moves_box, self.apply]), self.message, self.image])
        self._refresh()

    @property
    def N(self) -> int:
        return self.slider.value

    def set_moves(self, text) -> bool:
        """Parse 'a, b, c' (or a collection) as the new moves; False and a message if invalid."""
        try:
            if isinstance(text, str):
                parts = [p for p in text.replace(",", " ").split() if p]
                try:
                    values = [int(p) for p in parts]
                except ValueError:
                    raise ValueError(f"moves must be whole numbers separated by commas, got {text!r}") from None
            else:
                values = text
            moves = check_draw_moves(values)
            period = periodicity(moves).period  # may refuse a set whose period is out of reach
        except (TypeError, ValueError) as err:
            return self.refuse(err)
        self.moves = moves
        self.say(f"Moves {moves}: period {period}.", "info")
        self._refresh()
        return True

    def _refresh(self) -> None:
        fig = self.snapshot()
        self.image.show(fig, self.IMAGE_DPI)

    def snapshot(self):
        ax = draw_number_graph(self.N, self.moves)
        return ax.figure


def mixed_win_rate(p: float, games: int = 200, seed: int = 0, low: int = 20, high: int = 50) -> float:
    """Win rate of mixed(p) against the smart random strategy: seeded, random starts low..high.

    Paired starts: every start is played twice with the seats swapped, so `games` is even.
    """
    p = check_probability(p, "p")
    games = check_int(games, "games", minimum=2, maximum=100_000)
    if games % 2:
        raise ValueError(f"games must be even (each start is played from both seats), got {games}")
    seed = check_int(seed, "seed", minimum=0)
    low, high = check_number(low, "low"), check_number(high, "high")
    game = SubtractionGame(low, SOURCE_MOVES)
    rng = np.random.default_rng(seed)
    a, b, t = (int(x) for x in rng.integers(2**32, size=3))
    result = tournament(
        game, MixedPlayer(p, seed=a), SmartRandomPlayer(seed=b), games=games, seed=t, start=random_start(low, high)
    )
    return result.win_rate(0)


class MixedRateExplorer(SnapshotWidget):
    """A list of p shows the win rate of mixed(p) against random, with its 95 % Wilson interval, and
    the curve over p with the intervals as a band (a sampled rate is never shown bare)."""

    #: The plot is drawn at 96 dpi and shown at its own width in CSS pixels (10 inches, trimmed).
    IMAGE_DPI, IMAGE_WIDTH = 96, 826

    def __init__(
        self,
        ps: Sequence[float] = tuple(np.round(np.linspace(0, 1, 11), 2)),
        games: int = 200,
        seed: int = 0,
        p: float = 0.5,
    ):
        super().__init__()
        if isinstance(ps, (str, bytes)) or not hasattr(ps, "__iter__"):
            raise TypeError(f"ps must be a list of probabilities between 0 and 1, got {ps!r}")
        self.ps = tuple(check_probability(x, "every p in ps") for x in ps)
        if not self.ps or len(self.ps) > 101:
            raise ValueError(f"ps must hold 1 to 101 probabilities between 0 and 1, got {len(self.ps)}")
        p = check_probability(p, "p")
        self.games = check_int(games, "games", minimum=2, maximum=100_000)
        self.seed = check_int(seed, "seed", minimum=0)
        self.rates = {x: mixed_win_rate(x, games, seed) for x in self.ps}
        self.intervals = {x: wilson(round(r * self.games), self.games) for x, r in self.rates.items()}
        # a labelled list, not a slider: JupyterLab names a slider's handle for no screen reader
        self.slider = widgets.Dropdown(
            options=list(self.ps), value=self._nearest(p), description="p", style={"description_width": "initial"}
        )
        self.readout = widgets.HTML()
        self.image = _image(self.IMAGE_WIDTH)
        self.slider.observe(lambda change: self._refresh(), names="value")
        self.root = widgets.VBox([self.slider, self.readout, self.message, self.image])
        self._refresh()

    def _nearest(self, p: float) -> float:
        """The choice closest to p (the list offers only the values in `ps`)."""
        return min(self.ps, key=lambda x: abs(x - p))

    @property
    def p(self) -> float:
        return self.slider.value

    def _refresh(self) -> None:
        lo, hi = self.intervals[self.p]
        self.readout.value = (
            f"mixed(p={self.p:g}) wins <b>{self.rates[self.p]:.1%}</b> of {self.games} games "
            f"against the random strategy, 95 % interval {lo:.1%} to {hi:.1%} "
            "(seats alternate, starts 20..50; other games give other rates, within such intervals)"
        )
        fig = self.snapshot()
        self.image.show(fig, self.IMAGE_DPI)

    def snapshot(self):
        fig, ax = plt.subplots(figsize=(10, 5))
        ax.fill_between(
            self.ps,
            [self.intervals[x][0] for x in self.ps],
            [self.intervals[x][1] for x in self.ps],
            color=GREY,
            alpha=0.25,
            linewidth=0,
            label="95 % Wilson interval",
        )
        ax.plot(self.ps, [self.rates[x] for x in self.ps], "o-", color=BLACK, ms=5, label="win rate")
        ax.plot([self.p], [self.rates[self.p]], "D", color=RED, ms=10, label=f"p = {self.p:g}")
        ax.legend(loc="lower right")
        ax.axhline(0.5, color=GREY, lw=1, ls="--")
        ax.set_xlabel("p (probability of the optimal move)")
        ax.set_ylabel("win rate against random")
        ax.set_ylim(0, 1)
        ax.set_title(f"mixed(p) vs random, {self.games} games per p (seed {self.seed})")
        ax.grid(alpha=0.3)
        readable(ax)
        lo, hi = self.intervals[self.p]
        set_alt(
            ax,
            f"Line chart ({ax.get_title()}): the win rate of mixed(p) against random for p = "
            + "; ".join(f"{x:g}: {self.rates[x]:.2f}" for x in self.ps)
            + f", with a grey band of 95 % Wilson intervals; p = {self.p:g} marked (a red diamond): "
            f"{self.rates[self.p]:.3f}, interval {lo:.3f} to {hi:.3f}; dashed line at 0.5",
        )
        return fig
