"""The number graph of the subtraction game: red and blue numbers drawn on a grid, the strip,
and the backward construction step by step (the source's figures 3 and 4).

Part of `gamekit.views.subtraction` (see its docstring for the API at a glance)."""

from __future__ import annotations

from collections.abc import Iterable

import matplotlib.pyplot as plt
import networkx as nx
from matplotlib.lines import Line2D

from ...games.subtraction import SOURCE_MOVES, check_moves, check_number, periodicity
from ...i18n import _, ngettext, pgettext
from ...protocol import check_int
from ..alt import headed, set_alt
from ..colors import BLACK, BLUE, GREY, NODE_SHAPE, RED
from ..style import FONT, TITLE

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
        shown = moves if len(moves) <= 20 else str(moves[:20])[:-1] + ", ...)"
        # in the language in force: the number-graph explorer shows it when a student types too many moves
        text = _("moves {moves} are too many or too large to draw; allowed: at most {most} moves, each from 1 to {top}")
        raise ValueError(text.format(moves=shown, most=MAX_DRAW_MOVES, top=MAX_DRAW_MOVE))
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
            Line2D([], [], marker=NODE_SHAPE["red"], ls="", color=RED, label=_("red: produce it")),
            Line2D([], [], marker=NODE_SHAPE["blue"], ls="", color=BLUE, label=_("blue: avoid it")),
            Line2D([], [], color=RED, alpha=0.7, label=_("move to a red number")),
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
        ax = plt.subplots(figsize=(12, rows * 12 / per_row + 0.1))[1]
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
    body = _(
        "the numbers 0 to {upto} as squares in rows of {per_row}, {red} red (hatched: the player to move there "
        "loses): {numbers}; the other {blue} blue"
    ).format(upto=upto, per_row=per_row, red=len(red), numbers=", ".join(map(str, red)), blue=upto + 1 - len(red))
    return set_alt(ax, headed("Chart", None, body))


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
        ax = plt.subplots(figsize=(11, 1.6 + 1.0 * (N // period + 1)))[1]
    colours = {n: g.nodes[n]["colour"] for n in g.nodes}
    name = ", ".join(map(str, moves))
    title = title or _("Numbers 0..{N}, moves {moves}: red and blue").format(N=N, moves=name)
    _draw_graph(g, pos, colours, ax, title, period, edge_filter=keep[edges])
    return set_alt(ax, _numbers_alt("Graph", ax.get_title(), colours, period))


def _numbers_alt(kind: str, title: str, colours: dict, period: int) -> str:
    red = [n for n in sorted(colours) if colours[n] == "red"]
    blue = [n for n in sorted(colours) if colours[n] == "blue"]
    none = pgettext("numbers", "none")
    body = _(
        "numbers on a grid of {period} columns (n mod {period}); {red} red numbers (squares, produce them): "
        "{reds}; {blue} blue numbers (circles, avoid them): {blues}"
    ).format(
        period=period,
        red=len(red),
        reds=", ".join(map(str, red)) or none,
        blue=len(blue),
        blues=", ".join(map(str, blue)) or none,
    )
    return headed(kind, title, body)


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
        ax = plt.subplots(figsize=(11, 1.6 + 1.0 * (max(labels) // period + 1)))[1]

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
        title or ngettext("Backward from the end: {n} step", "Backward from the end: {n} steps", steps).format(n=steps),
        period,
        edge_filter=justifies,
    )
    return set_alt(ax, _numbers_alt("Graph", ax.get_title(), {n: c for n, (c, _) in labels.items()}, period))
