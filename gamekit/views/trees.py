"""Drawing small game trees: node values, who moves (MAX up-triangle, MIN down-triangle),
the move minimax picks (red edges), pruned branches greyed out, TicTacToe positions as
little boards, and an alpha-beta run step by step (a widget with Next / Back, and the same
steps as a static sequence of figures for slides).

The models are pure (`build_tree` here, `gamekit.search.trace_alphabeta`, which records the
one `alphabeta` through its observer hook); this module only draws. Default sizes suit a
slide: figures about 11 inches wide, text 14 pt.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import ipywidgets as widgets
import matplotlib.pyplot as plt

from ..i18n import _, ngettext, pgettext
from ..protocol import Game, State, guard_depth, require_game_methods
from ..search import INF, AlphaBetaTrace, Evaluate, Order, Step, minimax
from .alt import headed, plain_text, set_alt
from .colors import BLACK, BLUE, GREY, LIGHT_RED, RED
from .style import FONT
from .widgets import Picture, SnapshotWidget

__all__ = [
    "alphabeta_figures",
    "AlphaBetaStepper",
    "build_tree",
    "draw_alphabeta_step",
    "draw_alphabeta_storyboard",
    "draw_mini_board",
    "draw_nested_sets",
    "draw_tree",
    "step_kind",
    "step_text",
    "TreeNode",
]

# --- the model: an explicit, small tree ------------------------------------------------------


@dataclass
class TreeNode:
    """A node of a drawn tree: its path of moves from the root, position, and minimax value."""

    path: tuple
    state: State
    to_move: int
    terminal: bool
    value: float | None = None
    children: list[TreeNode] = field(default_factory=list)
    multiplicity: int = 1  # how many symmetric children this node stands for

    def walk(self):
        yield self
        for ch in self.children:
            yield from ch.walk()

    def level_sizes(self) -> list[int]:
        """Number of nodes at depth 0, 1, 2, ..."""
        sizes: dict[int, int] = {}
        for n in self.walk():
            sizes[len(n.path)] = sizes.get(len(n.path), 0) + 1
        return [sizes[d] for d in sorted(sizes)]


@guard_depth  # a game deeper than Python's recursion limit gets a clear error
def build_tree(
    game: Game,
    state: State | None = None,
    depth: int | None = None,
    evaluate: Evaluate | None = None,
    same: Callable[[State], Any] | None = None,
    values: bool | Callable[[State], float] = True,
    order: Order | None = None,
    keep: Callable[[tuple], bool] | None = None,
) -> TreeNode:
    """The game tree below `state`, `depth` plies deep, with minimax values at every node.

    `same(state)` maps positions to a key (e.g. TicTacToe's `canonical`); children with the
    same key are drawn once (the seminar's "reduced by symmetry"); `multiplicity` counts them.
    `order(game, state, moves)` sets the order of the children (left to right); `keep(path)`
    may leave out subtrees to draw an excerpt (a node's value is still that of its whole
    subtree). Values come from `gamekit.search.minimax` (with `evaluate` at the depth limit),
    or from `values(state)` when `values` is a function (e.g. exact values from `solve`).
    Meant for trees of at most a few dozen nodes.
    """
    require_game_methods(game)
    root_state = game.initial_state() if state is None else state

    def grow(s: State, path: tuple, d: int | None) -> TreeNode:
        term = game.is_terminal(s)
        node = TreeNode(path, s, game.to_move(s), term)
        if callable(values):
            node.value = values(s)
        elif values:
            node.value = minimax(game, s, d, evaluate).value
        if term or d == 0:
            return node
        seen: dict[Any, TreeNode] = {}
        moves = game.legal_moves(s) if order is None else order(game, s, game.legal_moves(s))
        for m in moves:
            if keep is not None and not keep(path + (m,)):
                continue
            child = game.play(s, m)
            key = same(child) if same else (m,)
            if key in seen:
                seen[key].multiplicity += 1
                continue
            seen[key] = grow(child, path + (m,), None if d is None else d - 1)
            node.children.append(seen[key])
        return node

    return grow(root_state, (), depth)


def _layout(root: TreeNode, gap: float = 1.0) -> dict[tuple, tuple[float, float]]:
    """Leaves evenly spaced left to right; a parent centred over its children; depth downwards."""
    pos: dict[tuple, tuple[float, float]] = {}
    counter = [0]

    def place(n: TreeNode) -> float:
        if not n.children:
            x = float(counter[0])
            counter[0] += 1
        else:
            xs = [place(ch) for ch in n.children]
            x = (xs[0] + xs[-1]) / 2
        pos[n.path] = (x, -gap * len(n.path))
        return x

    place(root)
    return pos


def _fmt(v: float | None) -> str:
    if v is None:
        return ""
    if v == INF:
        return "+∞"
    if v == -INF:
        return "−∞"
    return f"{v:g}".replace("-", "−")


def draw_mini_board(
    ax,
    board: Sequence[str],
    x: float,
    y: float,
    size: float = 0.8,
    edge: str = BLACK,
    face: str = "white",
    mark_size: float = FONT,
) -> None:
    """A little TicTacToe board centred at (x, y), `size` wide and high (data units)."""
    h = size / 2
    ax.add_patch(plt.Rectangle((x - h, y - h), size, size, facecolor=face, edgecolor=edge, lw=1.2, zorder=3))
    for k in (1, 2):
        ax.plot([x - h + k * size / 3] * 2, [y - h, y + h], color=GREY, lw=0.8, zorder=4)
        ax.plot([x - h, x + h], [y - h + k * size / 3] * 2, color=GREY, lw=0.8, zorder=4)
    for i, c in enumerate(board):
        if c in "XO":
            cx = x - h + (i % 3 + 0.5) * size / 3
            cy = y + h - (i // 3 + 0.5) * size / 3
            ax.text(
                cx,
                cy,
                c,
                ha="center",
                va="center",
                fontsize=mark_size,
                fontweight="bold",
                color=RED if c == "X" else BLUE,
                zorder=5,
            )


def _red_children(n: TreeNode, best: bool | str) -> list[TreeNode]:
    """The children of `n` whose edges `draw_tree` draws red: the best moves (all of them, or
    with best="first" the first one in the search's order), none without `best`."""
    if not best or n.value is None:
        return []
    chosen = [ch for ch in n.children if ch.value is not None and ch.value == n.value]
    return chosen[:1] if best == "first" else chosen


def draw_tree(
    root: TreeNode,
    ax=None,
    boards: bool = False,
    title: str | None = None,
    best: bool | str = True,
    value_fmt: Callable[[float], str] = _fmt,
    node_size: float = 0.75,
    figsize: tuple = (11, 5.5),
    fontsize: float = 14,
):
    """Draw a tree built by `build_tree`: values under the nodes, MAX/MIN markers, and (with
    `best`) the moves that minimax chooses in red: every best move, or with best="first"
    only the first best move of each node (ties broken as the search breaks them). With
    `boards`, states are TicTacToe boards drawn as little boards. Returns the figure."""
    gap = 1.7 if boards else 1.0
    pos = _layout(root, gap)
    if ax is None:
        fig, ax = plt.subplots(figsize=figsize)
    fig = ax.figure
    for n in root.walk():
        x0, y0 = pos[n.path]
        chosen = _red_children(n, best)
        for ch in n.children:
            x1, y1 = pos[ch.path]
            is_red = any(ch is c for c in chosen)
            ax.plot([x0, x1], [y0, y1], color=RED if is_red else BLACK, lw=2.2 if is_red else 0.8, zorder=1)
    for n in root.walk():
        x, y = pos[n.path]
        label_x, ha, va = x, "center", "top"
        if boards:
            draw_mini_board(ax, n.state, x, y, node_size, mark_size=fontsize * 0.8)
            label_y = y - node_size / 2 - 0.05
            if n.children:  # inner node: value to the right, clear of the edges below
                label_x, label_y, ha, va = x + node_size / 2 + 0.08, y, "left", "center"
        else:
            marker = "s" if n.terminal else ("^" if n.to_move == 0 else "v")
            ax.scatter([x], [y], marker=marker, s=260, color="white", edgecolor=BLACK, zorder=3, linewidths=1.4)
            label_y = y - 0.22
        parts = ([value_fmt(n.value)] if n.value is not None else []) + (
            [f"(×{n.multiplicity})"] if n.multiplicity > 1 else []
        )
        txt = "\n".join(parts)
        if txt:
            ax.text(label_x, label_y, txt, ha=ha, va=va, fontsize=fontsize, zorder=6, linespacing=0.9)
    depth = max(len(p) for p in pos)
    for d in range(depth + 1):
        mover = next(n.to_move for n in root.walk() if len(n.path) == d)
        side = ("MAX (X)" if mover == 0 else "MIN (O)") if boards else ("MAX ▲" if mover == 0 else "MIN ▼")
        kind = (
            _("depth {d}\n{side} to move").format(d=d, side=side)
            if d < depth or not all(n.terminal for n in root.walk() if len(n.path) == d)
            else _("depth {d}").format(d=d)
        )
        ax.text(-0.9, -gap * d, kind, ha="right", va="center", fontsize=fontsize, color="#555")
    xs = [p[0] for p in pos.values()]
    ax.set_xlim(min(xs) - (2.6 if boards else 2.2), max(xs) + 0.7)
    ax.set_ylim(-gap * depth - (1.1 if boards else 0.85), 0.6)
    ax.set_aspect("equal" if boards else "auto")
    ax.axis("off")
    if title:
        ax.set_title(title, fontsize=fontsize)
    sizes = root.level_sizes()
    text = _("{n} nodes, {sizes} at depths 0 to {deepest}").format(
        n=sum(sizes), sizes=", ".join(map(str, sizes)), deepest=len(sizes) - 1
    )
    if root.value is not None:
        text += "; " + _("the root's minimax value is {value}").format(value=value_fmt(root.value))
        red = _red_children(root, best)
        if red:
            moves = ", ".join(str(ch.path[-1]) for ch in red)
            text += "; " + ngettext(
                "{n} best move from the root ({moves}) drawn red and thick",
                "{n} best moves from the root ({moves}) drawn red and thick",
                len(red),
            ).format(n=len(red), moves=moves)
            ties = sum(ch.value == root.value for ch in root.children) - len(red)
            if ties:
                text += " " + ngettext(
                    "(the first the search tries; {n} other move as good, drawn black)",
                    "(the first the search tries; {n} other moves as good, drawn black)",
                    ties,
                ).format(n=ties)
    set_alt(ax, headed("Tree", title, text))
    return fig


# --- alpha-beta, step by step ----------------------------------------------------------------


def step_kind(kind: str) -> str:
    """The kind of an alpha-beta step ('enter', 'leaf', 'hit', 'update', 'cut', 'return') in the
    language in force (another kind as it is)."""
    words = {
        # TRANSLATORS: kinds of steps of an alpha-beta run, shown as "step 3/17: enter"
        "enter": pgettext("alpha-beta step", "enter"),
        "leaf": pgettext("alpha-beta step", "leaf"),
        "hit": pgettext("alpha-beta step", "hit"),
        "update": pgettext("alpha-beta step", "update"),
        "cut": pgettext("alpha-beta step", "cut"),
        "return": pgettext("alpha-beta step", "return"),
    }
    return words.get(kind, kind)


def step_text(st: Step) -> str:
    """The sentence that explains one step of an alpha-beta run, in the language in force (in English
    the `text` that `trace_alphabeta` gave the step; made here again from the step's data, so the
    stepper speaks the language in force when it shows it)."""

    def fmt(x: float) -> str:
        return "+inf" if x == INF else "-inf" if x == -INF else f"{x:g}"

    v = "" if st.value is None else f"{st.value:g}"
    node, alpha, beta = st.node, fmt(st.alpha), fmt(st.beta)
    if st.kind == "enter":
        if node:
            return _("enter {node}: alpha={alpha}, beta={beta}").format(node=node, alpha=alpha, beta=beta)
        return _("enter the root: alpha={alpha}, beta={beta}").format(alpha=alpha, beta=beta)
    if st.kind == "leaf":
        return _("leaf {node}: value {value}").format(node=node, value=v)
    if st.kind == "hit":
        if node:
            return _("{node}: the table already knows the value {value}").format(node=node, value=v)
        return _("the root: the table already knows the value {value}").format(value=v)
    if st.kind == "update":
        who = ("MAX", "MIN")[st.player]
        if node:
            text = _("{who} node {node} has seen {value}: alpha={alpha}, beta={beta}")
            return text.format(who=who, node=node, value=v, alpha=alpha, beta=beta)
        text = _("{who} node root has seen {value}: alpha={alpha}, beta={beta}")
        return text.format(who=who, value=v, alpha=alpha, beta=beta)
    if st.kind == "cut":
        n = len(st.pruned)
        if st.player == 0:
            text = ngettext(
                "cut {n} move(s): MAX can get {value} here, but MIN already has a move above worth only "
                "beta={beta}, so play never reaches this node",
                "cut {n} move(s): MAX can get {value} here, but MIN already has a move above worth only "
                "beta={beta}, so play never reaches this node",
                n,
            )
        else:
            text = ngettext(
                "cut {n} move(s): MIN can hold this node to {value}, but MAX already has a move above worth "
                "alpha={alpha}, so play never reaches this node",
                "cut {n} move(s): MIN can hold this node to {value}, but MAX already has a move above worth "
                "alpha={alpha}, so play never reaches this node",
                n,
            )
        return text.format(n=n, value=v, alpha=alpha, beta=beta)
    if node:
        return _("{node} returns {value}").format(node=node, value=v)
    return _("the root returns {value}").format(value=v)


def draw_alphabeta_step(
    trace: AlphaBetaTrace,
    tree: TreeNode,
    k: int,
    ax=None,
    figsize=(11, 5.5),
    scale: float = 1.0,
    caption_width: int = 85,
):
    """The tree as alpha-beta sees it after step k: visited nodes with their values so far and
    (alpha | beta) beside them, the current node filled, pruned branches grey and dashed.
    `scale` shrinks markers and text (for several steps in one figure)."""
    if not 0 <= k < len(trace.steps):
        raise ValueError(f"step k must be between 0 and {len(trace.steps) - 1}, got {k!r}")
    pos = _layout(tree)
    if ax is None:
        fig, ax = plt.subplots(figsize=figsize)
    fig = ax.figure
    windows: dict[tuple, tuple[float, float]] = {}
    seen_value: dict[tuple, float] = {}
    pruned: set = set()
    for st in trace.steps[: k + 1]:
        windows[st.node] = (st.alpha, st.beta)
        if st.value is not None:
            seen_value[st.node] = st.value
        for p in st.pruned:
            pruned.update(n.path for n in tree.walk() if n.path[: len(p)] == p)
    current = trace.steps[k]
    for n in tree.walk():
        x0, y0 = pos[n.path]
        for ch in n.children:
            x1, y1 = pos[ch.path]
            grey = ch.path in pruned
            ax.plot([x0, x1], [y0, y1], color=GREY if grey else BLACK, lw=0.9, ls="--" if grey else "-", zorder=1)
    for n in tree.walk():
        x, y = pos[n.path]
        visited = n.path in windows
        grey = n.path in pruned
        marker = "s" if n.terminal else ("^" if n.to_move == 0 else "v")
        face = LIGHT_RED if n.path == current.node else "white"
        ax.scatter(
            [x],
            [y],
            marker=marker,
            s=600 * scale**2,
            color=face,
            zorder=3,
            linewidths=1.4,
            edgecolor=GREY if (grey or not visited) else BLACK,
        )
        below = dict(
            xy=(x, y), xytext=(0, -15 * scale), textcoords="offset points", ha="center", va="top", fontsize=15 * scale
        )  # offsets in points: clear of the marker at any figure size
        if n.terminal:
            shown = n.value if visited else None  # a cut leaf was never looked at: "?" (in grey)
            ax.annotate(_fmt(shown) if shown is not None else "?", color=GREY if grey else BLACK, **below)
        elif n.path in seen_value:
            ax.annotate(_fmt(seen_value[n.path]), bbox=dict(fc="white", ec="none", pad=0.3), zorder=4, **below)
        if visited and not n.terminal:
            a, b = windows[n.path]
            for text, dx, ha, colour in ((f"α={_fmt(a)}", -13, "right", RED), (f"β={_fmt(b)}", 13, "left", BLUE)):
                ax.annotate(
                    text,
                    xy=(x, y),
                    xytext=(dx * scale * 1.2, 5 * scale),
                    textcoords="offset points",
                    ha=ha,
                    va="center",
                    fontsize=14 * scale,
                    color=colour,
                )
    xs = [p[0] for p in pos.values()]
    depth = max(len(p) for p in pos)
    ax.set_xlim(min(xs) - 1.2, max(xs) + 1.2)
    ax.set_ylim(-depth - 0.6, 0.5)
    ax.axis("off")
    kind, said = step_kind(current.kind), step_text(current)
    title = _("step {k}/{n}: {kind}").format(k=k + 1, n=len(trace.steps), kind=kind)
    ax.set_title(title, fontsize=15 * scale, loc="left")
    _wrap_caption(ax, said, caption_width, 14 * scale)
    head = _("alpha-beta, step {k} of {n}: {kind}").format(k=k + 1, n=len(trace.steps), kind=kind)
    body = _(
        "{visited} nodes visited, {pruned} pruned (grey, dashed); at the current node α={alpha}, β={beta}. {step}"
    ).format(visited=len(windows), pruned=len(pruned), alpha=_fmt(current.alpha), beta=_fmt(current.beta), step=said)
    set_alt(ax, headed("Tree", head, body))
    return fig


def _wrap_caption(ax, text: str, width: int = 95, size: float = FONT) -> None:
    import textwrap

    ax.text(
        0.0,
        -0.02,
        "\n".join(textwrap.wrap(text, width)),
        transform=ax.transAxes,
        ha="left",
        va="top",
        fontsize=size,
        color="#333",
    )


def alphabeta_figures(trace: AlphaBetaTrace, tree: TreeNode, kinds: Sequence[str] = ("update", "cut")) -> list:
    """The static sequence for slides: one figure per step whose kind is in `kinds` (all
    steps with `kinds=None`), and the last step. The caller shows or closes them."""
    ks = [k for k, st in enumerate(trace.steps) if kinds is None or st.kind in kinds]
    if not ks or ks[-1] != len(trace.steps) - 1:
        ks.append(len(trace.steps) - 1)
    return [draw_alphabeta_step(trace, tree, k) for k in ks]


def draw_alphabeta_storyboard(
    trace: AlphaBetaTrace, tree: TreeNode, steps: Sequence[int], ncols: int = 2, figsize=None
):
    """Several steps of the run in one figure (a grid of `ncols` columns, 5.2 inches per row
    unless `figsize` says otherwise). For a slide, show one row (two steps) per figure: a
    taller figure is shrunk to fit the slide's height and its text gets too small."""
    rows = (len(steps) + ncols - 1) // ncols
    fig, axes = plt.subplots(rows, ncols, figsize=figsize or (12, 5.2 * rows), squeeze=False)
    for ax, k in zip(axes.flat, steps):
        draw_alphabeta_step(trace, tree, k, ax=ax, scale=1.0, caption_width=50)
    for ax in list(axes.flat)[len(steps) :]:
        ax.axis("off")
    fig.tight_layout()
    return fig


class AlphaBetaStepper(SnapshotWidget):
    """Step through a recorded alpha-beta run with Next and Back; the picture shows alpha and
    beta at every node reached, the value found so far, and what was cut and why."""

    def __init__(self, trace: AlphaBetaTrace, tree: TreeNode):
        super().__init__()
        if not isinstance(trace, AlphaBetaTrace):
            raise TypeError(f"trace must be an AlphaBetaTrace (from trace_alphabeta), got {trace!r}")
        self.trace, self.tree, self.k = trace, tree, 0
        self.back = widgets.Button(description=_("◀ Back"))
        self.next = widgets.Button(description=_("Next ▶"))
        self.image = Picture()
        self.back.on_click(lambda _: self.step(-1))
        self.next.on_click(lambda _: self.step(+1))
        self.root = widgets.VBox([widgets.HBox([self.back, self.next]), self.message, self.image])
        self._render()

    def step(self, delta: int) -> None:
        """Move `delta` steps (+1 next, -1 back); refuses to run off either end or a step that is not whole."""
        if isinstance(delta, bool) or not isinstance(delta, numbers.Integral):
            self.say(
                _("A step is a whole number of steps (+1 next, -1 back), not {delta}.").format(delta=repr(delta)),
                "error",
            )
            raise TypeError(f"delta must be a whole number of steps (+1 next, -1 back), got {delta!r}")
        k = self.k + int(delta)
        if not 0 <= k < len(self.trace.steps):
            if k < 0:
                text = _("This is already the first step ({k} of {n}).")
            else:
                text = _("This is already the last step ({k} of {n}).")
            self.say(text.format(k=self.k + 1, n=len(self.trace.steps)), "error")
            return
        self.k = k
        self._render()

    def _render(self) -> None:

        fig = self.snapshot()
        self.image.show(fig)
        self.say(step_text(self.trace.steps[self.k]))

    def snapshot(self):
        return draw_alphabeta_step(self.trace, self.tree, self.k)


# --- nested sets (the seminar's figure 1) ---------------------------------------------------


def draw_nested_sets(ax, sets: Sequence[tuple[str, int]], title: str | None = None, fontsize: float = 14):
    """An Euler diagram of sets nested inside each other, outermost first: `sets` is a list of
    (label, size). Each set is an ellipse inside the previous one, labelled with its size; the
    areas are not to scale (the sizes can differ by orders of magnitude)."""
    from matplotlib.patches import Ellipse

    sizes = [n for _, n in sets]
    if not sets or any(b > a for a, b in zip(sizes, sizes[1:])):
        raise ValueError(f"sets must be (label, size) pairs from the largest to the smallest, got {sets!r}")
    colours = [BLACK, BLUE, RED, GREY]
    for k, (label, n) in enumerate(sets):  # each ellipse inside the last, with room for its label
        w, h, cy = 2.0 - 0.45 * k, 1.4 - 0.4 * k, -0.1 * k
        colour = colours[k % len(colours)]
        ax.add_patch(Ellipse((0, cy), w, h, facecolor="none", edgecolor=colour, lw=2.5))
        ax.text(0, cy + h / 2 - 0.07, f"{label}: {n:,}", ha="center", va="top", fontsize=fontsize, color=colour)
    ax.set_xlim(-1.05, 1.05)
    ax.set_ylim(-0.75, 0.75)
    ax.set_aspect("equal")
    ax.axis("off")
    if title:
        ax.set_title(title, fontsize=fontsize + 1)
    inside = "; ".join(f"{plain_text(label)}: {n:,}" for label, n in sets)
    body = ngettext("{n} nested sets, outermost first: {sets}", "{n} nested sets, outermost first: {sets}", len(sets))
    body = body.format(n=len(sets), sets=inside)
    set_alt(ax, headed("Chart", title, body))
    return ax.figure
