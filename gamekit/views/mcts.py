"""Views of Monte Carlo Tree Search: the tree drawn, estimates plotted, a stepper and a play widget.

Everything here reads an `MCTS` object (or its networkx export) and never changes how the
search works; the widgets drive the search only through its public phase methods.
"""

from __future__ import annotations

import html
import math
import random
import weakref
from collections.abc import Callable
from typing import Any

import ipywidgets as widgets

from ..i18n import _, ngettext, pgettext
from ..mcts import MCTS, Node
from ..protocol import Game
from ..solve import solve
from .alt import figure_metadata, headed, install, set_alt
from .colors import BLACK, BLUE, EDGE_STYLE, GREY, LIGHT_BLUE, LIGHT_RED, RED
from .widgets import SnapshotWidget

__all__ = [
    "display_figure",
    "draw_tree",
    "edge_colour",
    "exact_values",
    "MCTSPlay",
    "MCTSStepper",
    "PHASES",
    "phase_name",
    "plot_estimates",
    "state_label",
    "stats_html",
    "tree_layout",
]

PHASES = ("selection", "expansion", "rollout", "backpropagation")


def phase_name(phase: str) -> str:
    """The name of one of the PHASES of MCTS in the language in force."""
    names = {
        "selection": pgettext("MCTS phase", "selection"),
        "expansion": pgettext("MCTS phase", "expansion"),
        "rollout": pgettext("MCTS phase", "rollout"),
        "backpropagation": pgettext("MCTS phase", "backpropagation"),
    }
    return names[phase]


def state_label(state: Any) -> str:
    """A short label: n for subtraction states, the board for TicTacToe, str otherwise."""
    if hasattr(state, "n"):
        return str(state.n)
    if isinstance(state, tuple) and len(state) == 9 and all(c in "XO." for c in state):
        return "\n".join("".join(state[r : r + 3]) for r in (0, 3, 6))
    if hasattr(state, "piles"):
        return " ".join(map(str, state.piles))
    return str(state)


def tree_layout(g) -> dict[Any, tuple]:
    """Deterministic tidy layout: leaves left to right in child order, parents centred above."""
    pos: dict[Any, tuple] = {}
    next_x = [0.0]

    def place(node) -> float:
        kids = list(g.successors(node))
        if not kids:
            x = next_x[0]
            next_x[0] += 1.0
        else:
            xs = [place(k) for k in kids]
            x = (xs[0] + xs[-1]) / 2
        pos[node] = (x, -g.nodes[node]["depth"])
        return x

    place(())
    return pos


#: Exact values remembered WITH the game object they describe: the entry lives exactly as long as
#: the game (a weak reference), so a freed game's answers can never reach another game. Games
#: that compare equal (same rules) share an entry, which is right: equal games have equal values.
_EXACT: weakref.WeakKeyDictionary[Any, dict] = weakref.WeakKeyDictionary()


def exact_values(game: Game, state: Any) -> dict:
    """`solve(game, state)`, remembered with the game (tree drawings repeat it often).

    Games that cannot be weakly referenced or hashed are solved afresh every time.
    """
    try:
        per_game = _EXACT.get(game)
        if per_game is None:
            per_game = _EXACT[game] = {}
    except TypeError:  # unhashable, or no weak references (__slots__): no memory
        return solve(game, state)
    if state not in per_game:
        if len(per_game) > 32:
            per_game.clear()
        per_game[state] = solve(game, state)
    return per_game[state]


def _root(search: MCTS) -> Node:
    """The root of a search, or a clear error if none was started."""
    if search.root is None:
        raise ValueError("no tree yet: call search(state, ...) or new_root(state) first")
    return search.root


def edge_colour(values: dict, game: Game, parent_state: Any, child_state: Any) -> str:
    """Course colours: red = winning move taken, blue = win given away, black = no forced win."""
    if parent_state not in values or child_state not in values:
        return GREY
    sign = 1 if game.to_move(parent_state) == 0 else -1
    if sign * values[parent_state] > 0:
        return RED if sign * values[child_state] > 0 else BLUE
    return BLACK


def draw_tree(
    search: MCTS,
    ax=None,
    max_depth: int | None = 3,
    min_visits: int = 1,
    exact: bool = True,
    label: Callable[[Any], str] = state_label,
    title: str | None = None,
    highlight=(),
):
    """Draw the search tree: each node shows its state and wins/visits for the player who moved there.

    With `exact`, edges get the course colours from the exact solution (`solve`) and node
    fills show whether the position is one to produce (light red) or to avoid (light blue).
    `highlight` is a sequence of move paths to draw with a thick outline (the current path).
    """
    import matplotlib.pyplot as plt

    g = search.to_networkx(max_depth=max_depth, min_visits=min_visits)
    pos = tree_layout(g)
    root = _root(search)
    values = exact_values(search.game, root.state) if exact else {}
    width = max(x for x, _ in pos.values()) + 1
    depth = max(-y for _, y in pos.values()) + 1
    if ax is None:
        ax = plt.subplots(figsize=(min(12, 2 + 1.1 * width), min(6.5, 1 + 1.6 * depth)))[1]
    game = search.game
    for a, b in g.edges:
        (x0, y0), (x1, y1) = pos[a], pos[b]
        col = edge_colour(values, game, g.nodes[a]["state"], g.nodes[b]["state"]) if exact else BLACK
        style = EDGE_STYLE.get({RED: "red", BLUE: "blue", BLACK: "black"}.get(col, ""), "solid") if exact else "solid"
        ax.plot([x0, x1], [y0, y1], color=col, ls=style, lw=2, zorder=1)
        ax.text(
            0.35 * x0 + 0.65 * x1,
            0.35 * y0 + 0.65 * y1,
            f"−{g.edges[a, b]['move']}" if hasattr(g.nodes[a]["state"], "n") else str(g.edges[a, b]["move"]),
            fontsize=12,
            color="#555",
            ha="center",
            va="center",
            bbox=dict(fc="white", ec="none", pad=0.5),
            zorder=2,
        )
    hl = {tuple(p) for p in highlight}
    for key, (x, y) in pos.items():
        d = g.nodes[key]
        st = d["state"]
        fill = "white"
        if exact and st in values and not game.is_terminal(st):
            mover_sign = 1 if game.to_move(st) == 0 else -1
            fill = (
                LIGHT_RED if mover_sign * values[st] < 0 else (LIGHT_BLUE if mover_sign * values[st] > 0 else "white")
            )
        wins = d["score"] if key else None
        text = label(st) + ("" if not key else f"\n{wins:g}/{d['visits']}")
        ax.text(
            x,
            y,
            text,
            ha="center",
            va="center",
            fontsize=14 if len(text) < 12 else 12,
            family="monospace",
            bbox=dict(boxstyle="round,pad=0.3", fc=fill, ec=BLACK, lw=2.5 if key in hl else 0.8),
            zorder=3,
        )
    ax.margins(0.02)
    ax.set_xlim(-0.7, width - 0.3)
    ax.set_ylim(-depth + 0.5, 0.5)
    ax.axis("off")
    if title:
        ax.set_title(title, fontsize=14)
    children = [b for a, b in g.edges if a == ()]
    kinds = {RED: _("winning move"), BLUE: _("losing move"), BLACK: _("no forced win")}

    def child_words(b: Any) -> str:
        d = g.nodes[b]
        words = f"{label(d['state'])} {d['score']:g}/{d['visits']}"
        if exact:
            kind = kinds.get(edge_colour(values, game, root.state, d["state"]), pgettext("edge", "unknown"))
            words += f" ({kind})"
        return words

    said = ", ".join(child_words(b) for b in children)
    body = _(
        "MCTS search tree from {root}, {nodes} nodes shown, {visits} visits at the root; "
        "children (wins/visits): {children}"
    ).format(
        root=label(root.state),
        nodes=g.number_of_nodes(),
        visits=root.visits,
        children=said or _("none yet"),
    )
    return set_alt(ax, headed("Tree", title, body))


def plot_estimates(
    history: dict[Any, list],
    winning=(),
    ax=None,
    title: str | None = None,
    move_label: Callable[[Any], str] = lambda m: _("move {move}").format(move=m),
):
    """Win-probability estimate of each root move against the iteration (the source's p1, p2, p3).

    Winning moves (given in `winning`, from an exact oracle) are drawn red, the others blue; the
    dashed lines at 1 and 0 are the exact values against best play.
    """
    import matplotlib.pyplot as plt

    if ax is None:
        ax = plt.subplots(figsize=(11, 4.8))[1]
    styles = ["-", "--", ":", "-."]

    def named(move: Any) -> str:
        """The move's label and whether it wins: "move 3 (winning)"."""
        if move in winning:
            return _("{move} (winning)").format(move=move_label(move))
        return _("{move} (losing)").format(move=move_label(move))

    for k, (move, series) in enumerate(history.items()):
        col = RED if move in winning else BLUE
        ax.plot(range(1, len(series) + 1), series, color=col, ls=styles[k % 4], lw=1.8, label=named(move))
    ax.axhline(1, color=RED, lw=0.8, ls="--")
    ax.axhline(0, color=BLUE, lw=0.8, ls="--")
    ax.set_xscale("log")
    ax.set_ylim(-0.05, 1.05)
    ax.set_xlabel(pgettext("axis", "iteration"))
    ax.set_ylabel(_("estimated win probability"))
    ax.legend(fontsize=12, loc="center right")
    if title:
        ax.set_title(title, fontsize=14)
    ends = "; ".join(
        # TRANSLATORS: how one root move's estimate moved: "move 3 (winning) 0.50 after 1 iteration, 0.91 after 2,000"
        _("{move} {first} after 1 iteration, {last} after {n}").format(
            move=named(move), first=f"{series[0]:.2f}", last=f"{series[-1]:.2f}", n=f"{len(series):,}"
        )
        for move, series in history.items()
        if series
    )
    body = _("the estimated win probability of each root move against the iteration (log scale): {ends}")
    return set_alt(ax, headed("Line chart", title, body.format(ends=ends)))


def stats_html(search: MCTS, node: Node | None = None, label: Callable[[Any], str] = str, chosen: Any = None) -> str:
    """An HTML table of a node's children: visits, win probability, mean value, UCB1."""
    node = _root(search) if node is None else node
    rows = []
    for s in search.stats(node):
        mark = " ◀" if chosen is not None and s.move == chosen else ""
        ucb = "∞" if math.isinf(s.ucb) else f"{s.ucb:.3f}"
        rows.append(
            f"<tr><td>{html.escape(label(s.move))}{mark}</td><td>{s.visits}</td>"
            f"<td>{s.win_probability:.3f}</td><td>{s.mean_value:+.3f}</td><td>{ucb}</td></tr>"
        )
    untried = _("∞ (untried)")
    for m in node.untried:
        rows.append(f"<tr><td>{html.escape(label(m))}</td><td>0</td><td>–</td><td>–</td><td>{untried}</td></tr>")
    heads = (
        pgettext("table head", "move"),
        pgettext("table head", "visits"),
        # TRANSLATORS: a table head, short for "win probability"
        pgettext("table head", "win prob."),
        pgettext("table head", "mean value"),
        pgettext("table head", "UCB1 (c={c})").format(c=f"{search.c:.3g}"),
    )
    head = "<tr>" + "".join(f"<th>{h}</th>" for h in heads) + "</tr>"
    return f"<table style='font-size:0.85em'>{head}{''.join(rows)}</table>"


class MCTSStepper(SnapshotWidget):
    """Step through MCTS one phase at a time on any game (subtraction game by default in the notebook).

    Buttons: next phase, whole iteration, 10 iterations, reset. The panel names the phase,
    explains what happened and shows the UCB1 values that drove each selection step.
    """

    def __init__(self, game: Game, state: Any = None, c: float = math.sqrt(2), seed: int = 0, max_depth: int = 4):
        super().__init__()
        self.game, self.c, self.seed, self.max_depth = game, c, seed, max_depth
        self.start = game.initial_state() if state is None else state
        self.next_btn = widgets.Button(description=_("next phase"), button_style="primary")
        self.iter_btn = widgets.Button(description=_("whole iteration"))
        self.ten_btn = widgets.Button(description=_("10 iterations"))
        self.reset_btn = widgets.Button(description=pgettext("button", "reset"))
        self.c_text = widgets.Text(value=f"{c:.4g}", description="c =", layout=widgets.Layout(width="140px"))
        self.info = widgets.HTML(layout=widgets.Layout(width="440px"))
        self.out = widgets.Output()
        self.next_btn.on_click(lambda _: self.step())
        self.iter_btn.on_click(lambda _: self.finish_iteration())
        self.ten_btn.on_click(lambda _: self.run(10))
        self.reset_btn.on_click(lambda _: self.reset_from_text())
        self.root = widgets.VBox(
            [
                widgets.HBox([self.next_btn, self.iter_btn, self.ten_btn, self.reset_btn, self.c_text]),
                self.message,
                widgets.HBox([self.out, self.info]),
            ]
        )
        self.reset()

    # --- the pure model: a phase machine over the public phase methods of MCTS ---------
    def reset(self) -> None:
        self.search = MCTS(self.game, c=self.c, seed=self.seed)
        self.search.new_root(self.start)
        self.phase = 0  # index into PHASES of the phase that runs next
        self.path: list = []
        self.winner = None
        self.rollout_moves: tuple = ()
        self.iterations = 0
        button = _("next phase")
        self.explanation = _("A fresh tree: only the root. Press {button} to start with selection.").format(
            button=f"<b>{button}</b>"
        )
        self.refresh()

    def reset_from_text(self) -> None:
        try:
            c = float(self.c_text.value)
            if not c >= 0 or math.isinf(c):
                raise ValueError
        except ValueError:
            text = _("c must be a number >= 0 (such as 1.414), not {value}; nothing changed.")
            self.say(text.format(value=repr(self.c_text.value)), "error")
            return
        self.c = c
        self.say(_("new tree with c = {c}").format(c=f"{c:g}"))
        self.reset()

    def step(self) -> str:
        """Run the next phase; return its name."""
        name = PHASES[self.phase]
        s = self.search
        if name == "selection":
            self.path = s.select(_root(s))
            steps = []
            for parent, child in zip(self.path, self.path[1:]):
                scores = ", ".join(f"{ch.move}: {ch.ucb(s.c):.3f}" for ch in parent.children)
                steps.append(
                    # TRANSLATORS: one selection step of MCTS: "at 12: UCB1 {1: 0.700, 2: 1.200} → take 2"
                    _("at {state}: UCB1 {{{scores}}} → take {move}").format(
                        state=html.escape(state_label(parent.state)), scores=scores, move=child.move
                    )
                )
            where = html.escape(state_label(self.path[-1].state))
            if steps:
                text = _("{steps}. Leaf reached: {leaf}.").format(steps="; ".join(steps), leaf=where)
            else:
                text = _("the root is not fully expanded yet, so selection stops at once. Leaf reached: {leaf}.")
                text = text.format(leaf=where)
            self.explanation = f"<b>1 {phase_name('selection')}</b>: {text}"
        elif name == "expansion":
            child = s.expand(self.path[-1])
            if child is None:
                text = _("the leaf is a finished game; nothing to add.")
            else:
                self.path.append(child)
                text = _("add the untried move {move} → {state}.").format(
                    move=child.move, state=html.escape(state_label(child.state))
                )
            self.explanation = f"<b>2 {phase_name('expansion')}</b>: {text}"
        elif name == "rollout":
            self.winner, self.rollout_moves = s.simulate(self.path[-1].state)
            moves = list(self.rollout_moves)
            if self.winner is None:
                text = _("random moves {moves} until the end: a draw.").format(moves=moves)
            else:
                text = _("random moves {moves} until the end: player {player} wins.").format(
                    moves=moves, player=self.winner
                )
            self.explanation = f"<b>3 {phase_name('rollout')}</b>: {text}"
        else:
            s.backpropagate(self.path, self.winner)
            self.iterations += 1
            text = _(
                "{nodes} nodes get one more visit; each adds 1 (win), ½ (draw) or 0 for the player who moved "
                "into it. Iterations so far: {iterations}."
            ).format(nodes=len(self.path), iterations=self.iterations)
            self.explanation = f"<b>4 {phase_name('backpropagation')}</b>: {text}"
        self.phase = (self.phase + 1) % 4
        self.refresh()
        return name

    def finish_iteration(self, refresh: bool = True) -> None:
        """Run phases until the current iteration is complete (a whole one if at its start)."""
        self._quiet = True
        try:
            self.step()
            while self.phase != 0:
                self.step()
        finally:
            self._quiet = False
        if refresh:
            self.refresh()

    def run(self, iterations: int) -> None:
        """Complete `iterations` iterations (the first one finishes the current, if begun); redraw once."""
        for _iteration in range(iterations):
            self.finish_iteration(refresh=False)
        self.refresh()

    # --- the view ------------------------------------------------------------------------
    def figure(self):
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(11, 5.5))
        keys = [tuple(n.move for n in self.path[1 : i + 1]) for i in range(len(self.path))]
        n = self.iterations
        title = ngettext(
            "after {n} iterations; next phase: {phase}", "after {n} iterations; next phase: {phase}", n
        ).format(n=n, phase=phase_name(PHASES[self.phase]))
        draw_tree(self.search, ax=ax, max_depth=self.max_depth, min_visits=0, highlight=keys, title=title)
        return fig

    _quiet = False

    def refresh(self) -> None:
        if self._quiet:
            return
        node = self.path[0] if self.path else self.search.root
        children = _("children of the root:")
        self.info.value = (
            f"<div role='status' aria-live='polite'>{self.explanation}</div><div>{children}</div>"
        ) + stats_html(self.search, node)
        self.out.clear_output(wait=True)
        with self.out:
            display_figure(self.figure())

    def snapshot(self):
        return self.figure()


def display_figure(fig) -> None:
    """Show a matplotlib figure inside an Output widget (and close it so it is not shown twice)."""
    import matplotlib.pyplot as plt
    from IPython.display import display

    install()  # (again: the inline backend drops the figure formatters when it starts)
    display(fig, metadata=figure_metadata(fig))
    plt.close(fig)


class MCTSPlay(SnapshotWidget):
    """Play TicTacToe or a subtraction game against MCTS with an adjustable budget.

    After every MCTS move the table shows, per move, the visits and estimates that made it
    choose. Illegal actions (an occupied square, a move after the end) are refused with a message.
    """

    def __init__(self, game: Game, budget: int = 500, human: int = 0, seed: int = 0):
        super().__init__()
        if human not in (0, 1):
            raise ValueError(f"human must be 0 (you move first) or 1 (MCTS moves first), got {human!r}")
        if isinstance(budget, bool) or not isinstance(budget, int) or not 10 <= budget <= 5000:
            raise ValueError(
                f"budget must be a whole number of iterations from 10 to 5000 (the budget box's range), got {budget!r}"
            )
        start = game.initial_state()
        self.is_board = isinstance(start, tuple) and len(start) == 9
        if not (self.is_board or hasattr(start, "n")):
            raise TypeError(f"MCTSPlay plays TicTacToe or a SubtractionGame, not {game!r}")
        self.game, self.human, self.seed = game, human, seed
        self.rng = random.Random(seed)
        # a labelled number box, not a slider: JupyterLab names a slider's handle for no screen reader
        self.budget = widgets.BoundedIntText(
            value=budget, min=10, max=5000, step=10, description=pgettext("MCTS", "budget")
        )
        self.new_btn = widgets.Button(description=_("new game"))
        self.new_btn.on_click(lambda _: self.new_game())
        self.board = widgets.HTML()
        self.table = widgets.HTML()
        moves = game.legal_moves(start)
        self.buttons = [
            widgets.Button(
                description=" " if self.is_board else f"−{m}",
                layout=widgets.Layout(
                    width="48px" if self.is_board else "70px", height="48px" if self.is_board else "32px"
                ),
            )
            for m in (range(9) if self.is_board else moves)
        ]
        self.move_of = list(range(9)) if self.is_board else list(moves)
        for b, m in zip(self.buttons, self.move_of):
            b.on_click(lambda _, m=m: self.human_move(m))
        pad = (
            widgets.GridBox(self.buttons, layout=widgets.Layout(grid_template_columns="repeat(3, 52px)"))
            if self.is_board
            else widgets.HBox(self.buttons)
        )
        # on TicTacToe the buttons are the board; the HTML board is for the static snapshot only
        shown = self.table if self.is_board else widgets.HBox([self.board, self.table])
        self.root = widgets.VBox([widgets.HBox([self.budget, self.new_btn]), pad, self.message, shown])
        self.games = 0
        self.new_game()

    # --- the pure model -------------------------------------------------------------------
    def new_game(self) -> None:
        self.state = self.game.initial_state()
        self.search: MCTS | None = None
        self.last_mcts_move = None
        self.games += 1
        self.say(_("your move") if self.human == 0 else _("MCTS moves first"))
        if self.game.to_move(self.state) != self.human:
            self.mcts_move()
        self.refresh()

    def human_move(self, move: Any) -> bool:
        """Play the human's move and the MCTS reply; False (with a message) if the move is not allowed."""
        if self.game.is_terminal(self.state):
            button = _("new game")
            self.say(_("the game is over: press {button}").format(button=f"<b>{button}</b>"), "error")
            return False
        if move not in self.game.legal_moves(self.state):
            allowed = list(self.game.legal_moves(self.state))
            self.say(_("{move} is not allowed here; allowed: {allowed}").format(move=move, allowed=allowed), "error")
            return False
        self.state = self.game.play(self.state, move)
        if not self.game.is_terminal(self.state):
            self.mcts_move()
        self.announce()
        self.refresh()
        return True

    def mcts_move(self) -> None:
        self.search = MCTS(self.game, seed=self.rng.getrandbits(32))
        move = self.search.search(self.state, iterations=int(self.budget.value))
        self.last_mcts_move = move
        self.state = self.game.play(self.state, move)

    def announce(self) -> None:
        if not self.game.is_terminal(self.state):
            self.say(_("MCTS played {move}; your move").format(move=self.last_mcts_move))
            return
        u = self.game.utility(self.state, self.human)
        said = _("you win!") if u == 1.0 else _("a draw") if u == 0.0 else _("MCTS wins")
        self.say(said, "good" if u > 0 else "info")

    # --- the view ---------------------------------------------------------------------------
    def board_html(self) -> str:
        if self.is_board:
            cells = "".join(
                ("<tr>" if i % 3 == 0 else "") + f"<td style='width:28px;height:28px;text-align:center;"
                f"border:1px solid #444;font-size:18px'>{'' if c == '.' else c}</td>" + ("</tr>" if i % 3 == 2 else "")
                for i, c in enumerate(self.state)
            )
            return f"<table style='border-collapse:collapse'>{cells}</table>"
        to_move = _("you to move") if self.game.to_move(self.state) == self.human else _("MCTS to move")
        return f"<div style='font-size:28px'>n = {self.state.n}</div><div>{to_move}</div>"

    def refresh(self) -> None:
        if self.is_board:
            for i, (b, c) in enumerate(zip(self.buttons, self.state)):
                b.description = " " if c == "." else c
                # its name for a screen reader
                b.tooltip = (
                    _("square {i}, empty").format(i=i) if c == "." else _("square {i}, {mark}").format(i=i, mark=c)
                )
        else:
            for b, m in zip(self.buttons, self.move_of):
                b.tooltip = _("subtract {d}").format(d=m)
        self.board.value = self.board_html()
        if self.search is not None:
            caption = _("MCTS's last search (values for MCTS):")
            self.table.value = f"<div>{caption}</div>" + stats_html(self.search, chosen=self.last_mcts_move)
        else:
            not_yet = _("MCTS has not moved yet.")
            self.table.value = f"<div>{not_yet}</div>"

    def snapshot(self) -> str:
        return f"<div style='display:flex;gap:24px'>{self.board_html()}{self.table.value}</div>"
