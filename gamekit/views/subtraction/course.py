"""The course of one game of the subtraction game as a graph: each move coloured by whether it
kept, gave away or could not force the win (the source's figures 5 to 8).

Part of `gamekit.views.subtraction` (see its docstring for the API at a glance)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import matplotlib.pyplot as plt
import networkx as nx
from matplotlib.lines import Line2D

from ...games.subtraction import SOURCE_MOVES, SubtractionGame, check_moves
from ...i18n import _, ngettext
from ...match import GameRecord
from ...protocol import IllegalMoveError, check_int, check_name, is_int
from ..alt import headed, set_alt
from ..colors import BLACK, BLUE, EDGE_STYLE, LIGHT_BLUE, LIGHT_RED, NODE_SHAPE, RED
from ..style import FONT
from .numbers import COLOUR, _is_red

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
    names: Sequence[str] | None = None,
    ax=None,
    title: str | None = None,
    legend: bool = True,
):
    """Draw one game's course with red / blue / black edges (the source's figures 5 to 8).

    `names` are the two players' names (default "player 1", "player 2", in the language in force).
    Node faces show the numbers' colours (light red / light blue; white = the game is over).
    Returns the axes.
    """
    moves = check_moves(moves)
    g = course_graph(course, moves)
    if names is None:
        names = (_("player 1"), _("player 2"))
    if isinstance(names, str) or not isinstance(names, Sequence) or len(names) != 2:
        raise ValueError(f"names must hold two names (player 1, player 2), got {names!r}")
    names = [check_name(x, "each name") for x in names]
    pos = course_layout(g)
    rows = len(g)
    if ax is None:
        ax = plt.subplots(figsize=(5, min(6.5, 1.4 + 0.45 * rows)))[1]
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
        # TRANSLATORS: one move of a course in an alt text: "22 to 19 (you, winning move, red solid)"
        steps.append(_("{a} to {b} ({who}, {kind})").format(a=u, b=v, who=who, kind=edge_words(data["colour"])))
    start = min(g.nodes, key=lambda n: g.nodes[n]["step"])
    said = "; ".join(steps) if steps else _("only the start, {n}").format(n=start)
    n = len(g.edges)
    body = ngettext(
        "the course of one game, {n} moves: {moves}", "the course of one game, {n} moves: {moves}", n
    ).format(n=n, moves=said)
    return set_alt(ax, headed("Graph", title, body))


def edge_words(colour: str) -> str:
    """What an edge colour of a course graph means, in words and line style (for alt texts), in the
    language in force: "winning move, red solid"."""
    words = {
        "red": _("winning move, red solid"),
        "blue": _("win given away, blue dashed"),
        "black": _("no win possible, black dotted"),
    }
    return words[colour]


def course_legend_handles() -> list[Line2D]:
    """The legend entries of a course graph's edge colours (for one legend under several courses:
    `fig.legend(handles=course_legend_handles(), ncol=3, ...)`)."""
    return [
        Line2D([], [], color=RED, lw=2.5, ls=EDGE_STYLE["red"], label=_("winning move")),
        Line2D([], [], color=BLUE, lw=2.5, ls=EDGE_STYLE["blue"], label=_("win given away")),
        Line2D([], [], color=BLACK, lw=2.5, ls=EDGE_STYLE["black"], label=_("no win possible")),
    ]
