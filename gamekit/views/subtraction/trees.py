"""The wrong approach: the forward game tree of the subtraction game and how fast it grows.

Part of `gamekit.views.subtraction` (see its docstring for the API at a glance)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import matplotlib.pyplot as plt
import networkx as nx
import numpy as np

from ...counting import reachable_positions, tree_size
from ...games.subtraction import SOURCE_MOVES, SubtractionGame, SubtractionState, check_moves
from ...i18n import _, ngettext, pgettext
from ...protocol import check_int
from ..alt import headed, set_alt
from ..colors import BLACK, BLUE, GREY, RED
from ..style import FONT, TITLE, readable
from .numbers import MAX_GROWTH_START, MAX_GROWTH_STARTS, _check_draw_N, _is_red

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
        ax = plt.subplots(figsize=(11, 5))[1]
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
    ax.set_title(title or _("The forward game tree from {n}: {nodes} nodes").format(n=n, nodes=len(g)), fontsize=TITLE)
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
    # TRANSLATORS: joins the move sequences after which a number appears: "after −3 −5 and after −5 −3"
    joiner = pgettext("paths", " and after ")
    said = "; ".join(
        _("the number {k} appears {n} times (after {paths})").format(
            k=k,
            n=len(paths),
            paths=joiner.join(" ".join(f"−{d}" for d in path) for path in paths[:3])
            + (", ..." if len(paths) > 3 else ""),
        )
        for k, paths in repeated[:3]
    )
    body = _("{n} nodes, {leaves} of them leaves (numbers 0 or below: the game is over)").format(
        n=len(g), leaves=len(leaves)
    )
    body += "; " + (said or _("no number appears twice"))
    if len(repeated) > 3:
        more = len(repeated) - 3
        said = ngettext("{n} more numbers appear more than once", "{n} more numbers appear more than once", more)
        body += "; " + said.format(n=more)
    return headed("Tree", title, body)


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
        ax = plt.subplots(figsize=(11, 5))[1]
    ax.semilogy(growth.ns, growth.tree_sizes, "o-", color=BLUE, ms=4, label=_("nodes of the game tree"))
    ax.semilogy(growth.ns, growth.positions, "s-", color=BLACK, ms=4, label=_("distinct positions"))
    ax.set_xlabel(_("start number n"))
    ax.set_ylabel(_("count (log scale)"))
    ax.set_title(
        _("Forward tree vs positions, moves {moves} (tree grows ×{factor} per step)").format(
            moves=", ".join(map(str, growth.moves)), factor=f"{growth.factor:.3f}"
        )
    )
    ax.grid(True, which="major", alpha=0.3)
    ax.legend()
    return readable(ax)
