"""Views for chapter 5: the extensive-form game tree of a one-pile game, and Nim against
the perfect player with the value of every move shown.

The tree is drawn from the game itself (any protocol game with small trees whose states
have `.board`); its layout is computed, not random: leaves left to right in move order,
each parent centred over its children. Colours follow the course (`gamekit.views.colors`).
"""

from __future__ import annotations

import base64
from collections.abc import Iterable, Sequence
from typing import Any

import ipywidgets as widgets
import matplotlib.pyplot as plt
import networkx as nx

from ..games.nim import Nim, NimState, nim_sum
from ..players import PerfectPlayer
from ..protocol import Game, State, check_game
from ..solve import move_values, solve
from .colors import BLACK, BLUE, GREY, LIGHT_BLUE, LIGHT_RED, RED
from .widgets import SnapshotWidget, figure_png

PLAYER = ("P1", "P2")


def game_tree(game: Game, state: State | None = None, max_nodes: int = 500) -> nx.DiGraph:
    """The game tree below `state` as a DiGraph. A node is the tuple of moves leading to it;
    attributes: `state`, `depth`, `x` (tidy layout), `terminal`. Edges carry the `move`.
    Raises ValueError when the tree has more than `max_nodes` nodes (too big to draw)."""
    check_game(game)
    root = game.initial_state() if state is None else state
    tree = nx.DiGraph()
    next_leaf_x = [0.0]

    def grow(path: tuple, s: State, depth: int) -> float:
        if tree.number_of_nodes() >= max_nodes:
            raise ValueError(f"the game tree has more than max_nodes={max_nodes} nodes; draw a smaller game")
        tree.add_node(path, state=s, depth=depth, terminal=game.is_terminal(s))
        if tree.nodes[path]["terminal"]:
            x = next_leaf_x[0]
            next_leaf_x[0] += 1.0
        else:
            xs = []
            for m in game.legal_moves(s):
                xs.append(grow(path + (m,), game.play(s, m), depth + 1))
                tree.add_edge(path, path + (m,), move=m)
            x = sum(xs) / len(xs)
        tree.nodes[path]["x"] = x
        return x

    grow((), root, 0)
    return tree


def _edge_colour(game: Game, values: dict[State, float], parent: State, child: State) -> str:
    """Course edge colours: red = winning move taken, blue = win given away, black = no forced win."""
    sign = 1 if game.to_move(parent) == 0 else -1
    if sign * values[parent] <= 0:
        return BLACK
    return RED if values[child] == values[parent] else BLUE


def draw_game_tree(
    game: Game,
    state: State | None = None,
    highlight: Sequence = (),
    values: dict[State, float] | None = None,
    ax=None,
    title: str = "",
):
    """Draw the extensive form: squares where P1 moves, circles where P2 moves, the number of
    stones in each node, the winner under each leaf, and the moves of `highlight` (a sequence
    of moves from the root) as a thick path. With `values` (from `solve`) nodes are filled red
    (the player to move there loses: good to produce), blue (the mover wins: avoid producing),
    white (draw), and edges get the course colours. Returns the figure."""
    tree = game_tree(game, state)
    path = [tuple(highlight[:i]) for i in range(len(highlight) + 1)]
    missing = [p for p in path if p not in tree]
    if missing:
        raise ValueError(f"highlight {tuple(highlight)!r} is not a line of play in this tree (stops at {missing[0]!r})")
    on_path = set(zip(path, path[1:]))
    fig = ax.figure if ax is not None else plt.figure(figsize=(8, 4.5))
    ax = ax or fig.add_subplot(111)
    pos = {n: (d["x"], -d["depth"]) for n, d in tree.nodes(data=True)}
    for u, v in tree.edges:
        colour = GREY if values is None else _edge_colour(game, values, tree.nodes[u]["state"], tree.nodes[v]["state"])
        thick = (u, v) in on_path
        if values is None and thick:
            colour = BLACK
        (x0, y0), (x1, y1) = pos[u], pos[v]
        ax.plot([x0, x1], [y0, y1], color=colour, lw=3.2 if thick else 1.0, zorder=1)
        ax.text(
            (x0 + x1) / 2,
            (y0 + y1) / 2,
            str(tree.edges[u, v]["move"]),
            fontsize=8,
            color="#555",
            ha="center",
            va="center",
            zorder=2,
            bbox=dict(boxstyle="round,pad=0.1", fc="white", ec="none", alpha=0.8),
        )
    for n, d in tree.nodes(data=True):
        s = d["state"]
        fill = "white"
        if values is not None:
            mover = 1 if game.to_move(s) == 0 else -1
            fill = {1: LIGHT_BLUE, -1: LIGHT_RED}.get(int(mover * values[s]), "white")
        marker = "s" if game.to_move(s) == 0 else "o"
        ax.scatter(
            *pos[n],
            s=330,
            marker=marker,
            facecolor=fill,
            edgecolor=BLACK,
            linewidth=2.0 if n in path else 0.8,
            zorder=3,
        )
        ax.text(*pos[n], str(getattr(s, "board", "")), ha="center", va="center", fontsize=10, zorder=4)
        if d["terminal"]:
            u = game.utility(s, 0)
            label = "P1" if u > 0 else "P2" if u < 0 else "draw"
            ax.text(
                pos[n][0],
                pos[n][1] - 0.38,
                label,
                ha="center",
                va="top",
                fontsize=9,
                color=BLACK,
                rotation=90 if label == "draw" else 0,
            )
    ax.set_title(title or "extensive form: squares = P1 to move, circles = P2 to move", fontsize=11)
    ax.axis("off")
    ax.margins(0.03, 0.08)
    fig.tight_layout()
    return fig


# --- Nim against the perfect player ------------------------------------------------------------


class NimMatch:
    """The pure model behind `NimPlay` (and chapter 6's `QNimPlay`): Nim between a person and a computer player.

    Piles are numbered from 1 for people; moves inside the game are (index, take). The computer
    is `PerfectPlayer()` unless another player is given. `move_values()` tells, for every legal
    move of the person, whether it wins (+1) or loses (-1) for them with best play afterwards.
    """

    def __init__(
        self,
        piles: Iterable[int] = (3, 4, 5),
        misere: bool = False,
        human: int = 0,
        computer=None,
        name: str = "computer",
        game: Nim | None = None,
    ):
        if human not in (0, 1) or isinstance(human, bool):
            raise ValueError(f"human must be 0 (move first) or 1 (move second), got {human!r}")
        self.game = game if game is not None else Nim(piles, misere)
        self.human = human
        self.computer = computer if computer is not None else PerfectPlayer()
        self.name = name
        self._values: dict | None = None
        self.reset()

    @property
    def values(self) -> dict:
        """Exact values of every position (computed on first use)."""
        if self._values is None:
            self._values = solve(self.game)
        return self._values

    def reset(self) -> None:
        self.state: NimState = self.game.initial_state()
        self.history: list[tuple[str, int, int]] = []  # (who, pile from 1, sticks taken)
        if self.human == 1 and not self.over:
            self.computer_move()

    @property
    def over(self) -> bool:
        return self.game.is_terminal(self.state)

    def winner(self) -> str | None:
        if not self.over:
            return None
        return "you" if self.game.utility(self.state, self.human) > 0 else self.name

    def move_values(self) -> dict[tuple[int, int], float]:
        """{(pile from 1, take): value for the person} for every legal move now."""
        if self.over:
            return {}
        sign = 1 if self.human == 0 else -1
        return {(i + 1, t): sign * v for (i, t), v in move_values(self.game, self.state, self.values).items()}

    def check_move(self, pile: Any, take: Any) -> str:
        """'' when the person may take `take` sticks from pile `pile` now, else why not."""
        k = len(self.state.piles)
        if self.over:
            return "The game is over: press 'New game' to play again."
        if isinstance(pile, bool) or not isinstance(pile, int) or not 1 <= pile <= k:
            return f"There is no pile {pile!r}: choose a pile from 1 to {k}."
        size = self.state.piles[pile - 1]
        if size == 0:
            return f"Pile {pile} is empty: choose a pile that still has sticks."
        if isinstance(take, bool) or not isinstance(take, int) or take < 1:
            return f"Take at least 1 stick (got {take!r})."
        if take > size:
            return f"Pile {pile} has only {size} stick{'s' if size > 1 else ''}: you cannot take {take}."
        return ""

    def human_move(self, pile: int, take: int) -> None:
        """Play the person's move, then the computer's reply. Raises ValueError (nothing changes)
        when the move is not allowed."""
        why = self.check_move(pile, take)
        if why:
            raise ValueError(why)
        self.state = self.game.play(self.state, (pile - 1, take))
        self.history.append(("you", pile, take))
        if not self.over:
            self.computer_move()

    def computer_move(self) -> None:
        i, t = self.computer(self.game, self.state)
        self.state = self.game.play(self.state, (i, t))
        self.history.append((self.name, i + 1, t))


def draw_nim(match: NimMatch, ax=None):
    """The piles as rows of sticks. Stick k counted from the right of a pile stands for the move
    'take k from this pile': red when that move wins for the person, blue when it loses."""
    fig = ax.figure if ax is not None else plt.figure(figsize=(6, 0.6 + 0.55 * len(match.state.piles)))
    ax = ax or fig.add_subplot(111)
    mv = match.move_values()
    piles = match.state.piles
    for row, size in enumerate(piles):
        y = len(piles) - row
        ax.text(-0.8, y, f"pile {row + 1}", ha="right", va="center", fontsize=10)
        for j in range(size):
            take = size - j
            v = mv.get((row + 1, take))
            colour = GREY if v is None else RED if v > 0 else BLUE
            ax.plot([j, j], [y - 0.3, y + 0.3], color=colour, lw=5, solid_capstyle="round")
    if match.over:
        status = f"game over: {match.winner()} won"
    else:
        status = f"your move (nim-sum {nim_sum(piles)}): red stick k = 'take k' wins for you, blue loses"
    ax.set_title(status + (" (misère)" if match.game.misere else ""), fontsize=10)
    ax.set_xlim(-3, max(max(piles), 1) + 0.5)
    ax.set_ylim(0.3, len(piles) + 0.7)
    ax.axis("off")
    return fig


class NimPlay(SnapshotWidget):
    """Play Nim (normal or misère) against the perfect player; every move's value is shown.

    Choose a pile and how many sticks to take, press 'Take'; the computer answers at once.
    Illegal input (no such pile, empty pile, too many sticks, game over) shows a message and
    changes nothing.
    """

    def __init__(self, piles: Iterable[int] = (3, 4, 5), misere: bool = False, human: int = 0):
        super().__init__()
        self.model = NimMatch(piles, misere, human)
        self.pile = widgets.IntText(value=1, description="pile", layout=widgets.Layout(width="140px"))
        self.take = widgets.IntText(value=1, description="take", layout=widgets.Layout(width="140px"))
        self.button = widgets.Button(description="Take", button_style="primary")
        self.new = widgets.Button(description="New game")
        self.board = widgets.Image(format="png")
        self.table = widgets.HTML()
        self.button.on_click(lambda _: self.on_take())
        self.new.on_click(lambda _: self.on_new())
        self.root = widgets.VBox(
            [widgets.HBox([self.pile, self.take, self.button, self.new]), self.message, self.table, self.board]
        )
        self.refresh()

    def on_take(self) -> None:
        try:
            self.model.human_move(self.pile.value, self.take.value)
        except ValueError as err:
            self.say(str(err), "error")
            return
        last = self.model.history[-1]
        if self.model.over:
            self.say(f"Game over: {self.model.winner()} won.", "good" if self.model.winner() == "you" else "info")
        else:
            self.say(f"The computer took {last[2]} from pile {last[1]}.")
        self.refresh()

    def on_new(self) -> None:
        self.model.reset()
        self.say("New game.")
        self.refresh()

    def table_html(self) -> str:
        """The value of each legal move for the person: +1 win, -1 loss (best play afterwards)."""
        mv = self.model.move_values()
        if not mv:
            return ""
        cells = []
        for (pile, take), v in mv.items():
            colour = RED if v > 0 else BLUE
            cells.append(
                f"<span style='color:{colour};margin-right:8px'>pile {pile} take {take}: "
                f"{'+1' if v > 0 else '-1'}</span>"
            )
        return "<div style='font-size:0.85em'><b>value of each move for you:</b> " + " ".join(cells) + "</div>"

    def refresh(self) -> None:
        self.table.value = self.table_html()
        self.board.value = base64.b64decode(figure_png(draw_nim(self.model)))

    def snapshot(self):
        return draw_nim(self.model)

    def _repr_mimebundle_(self, include=None, exclude=None):
        data = super()._repr_mimebundle_(include, exclude)
        if "image/png" in data:
            data["text/html"] = (
                self.message.value + self.table_html() + f"<img src='data:image/png;base64,{data['image/png']}'/>"
            )
        return data
