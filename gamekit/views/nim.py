"""Views for chapter 5: the extensive-form game tree of a one-pile game, Nim against the
perfect player, and the project's generalised Nim against the perfect player.

The tree is drawn from the game itself (any protocol game with small trees whose states
have `.board`); its layout is computed, not random: leaves left to right in move order,
each parent centred over its children. Colours follow the course (`gamekit.views.colors`).
Figures are drawn at projector size (about 11 inches wide, text of 14 points or more).

The widgets take every rule from the game (`legal_moves`, `play`) and every value from
`gamekit.solve`; a "show hints" switch (off by default) reveals the value of each move, so
a student can predict first and check after. Refused input leaves the game as it was and
says why.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import ipywidgets as widgets
import matplotlib.pyplot as plt
import networkx as nx

from ..games.generalized_nim import GeneralizedNim, GNimState
from ..games.nim import Nim, NimState, nim_sum
from ..i18n import _, ngettext, pgettext
from ..protocol import Game, Move, State, Winner, check_bool, check_int, check_player, is_int, require_game_methods
from ..solve import best_moves, move_values, solve
from .alt import headed, img_html, set_alt
from .colors import BLACK, BLUE, EDGE_STYLE, GREY, LIGHT_BLUE, LIGHT_RED, RED
from .widgets import Picture, SnapshotWidget, player_name

__all__ = [
    "nim_position_words",
    "GNimMatch",
    "GNimPlay",
    "NimMatch",
    "NimPlay",
    "draw_game_tree",
    "draw_gnim",
    "draw_nim",
    "game_tree",
]

PLAYER = ("P1", "P2")
FONT = 14  # points: readable on a 1280x720 projector at the figure sizes used here


def _check_seat(human: Any) -> int:
    return check_player(human, "human (your seat: 0 = P1, 1 = P2)")


# --- the extensive form ------------------------------------------------------------------------


def game_tree(game: Game, state: State | None = None, max_nodes: int = 500) -> nx.DiGraph:
    """The game tree below `state` as a DiGraph. A node is the tuple of moves leading to it;
    attributes: `state`, `depth`, `x` (tidy layout), `terminal`. Edges carry the `move`.
    Raises ValueError when the tree has more than `max_nodes` nodes (too big to draw)."""
    require_game_methods(game)
    check_int(max_nodes, "max_nodes", minimum=1)
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
    fig = ax.figure if ax is not None else plt.figure(figsize=(11.5, 5.6))
    ax = ax or fig.add_subplot(111)
    pos = {n: (d["x"], -d["depth"]) for n, d in tree.nodes(data=True)}
    for u, v in tree.edges:
        colour = GREY if values is None else _edge_colour(game, values, tree.nodes[u]["state"], tree.nodes[v]["state"])
        thick = (u, v) in on_path
        if values is None and thick:
            colour = BLACK
        (x0, y0), (x1, y1) = pos[u], pos[v]
        style = EDGE_STYLE[{RED: "red", BLUE: "blue"}.get(colour, "black")] if values is not None else "solid"
        ax.plot([x0, x1], [y0, y1], color=colour, ls=style, lw=4.0 if thick else 1.4, zorder=1)
        ax.text(
            (x0 + x1) / 2,
            (y0 + y1) / 2,
            str(tree.edges[u, v]["move"]),
            fontsize=FONT,
            color="#444",
            ha="center",
            va="center",
            zorder=2,
            bbox=dict(boxstyle="round,pad=0.1", fc="white", ec="none", alpha=0.85),
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
            s=620,
            marker=marker,
            facecolor=fill,
            edgecolor=BLACK,
            linewidth=2.4 if n in path else 1.0,
            zorder=3,
        )
        ax.text(*pos[n], str(getattr(s, "board", "")), ha="center", va="center", fontsize=FONT, zorder=4)
        if d["terminal"]:
            u = game.utility(s, 0)
            # TRANSLATORS: the result under a leaf of a game tree where nobody won
            label = "P1" if u > 0 else "P2" if u < 0 else pgettext("result", "draw")
            ax.text(
                pos[n][0],
                pos[n][1] - 0.36,
                label,
                ha="center",
                va="top",
                fontsize=FONT,
                color=BLACK,
                rotation=90 if u == 0 else 0,
            )
    ax.set_title(title or _("extensive form: squares = P1 to move, circles = P2 to move"), fontsize=FONT + 2)
    ax.axis("off")
    ax.margins(0.03, 0.1)
    fig.tight_layout()
    leaves = [d for _, d in tree.nodes(data=True) if d["terminal"]]
    wins = [game.utility(d["state"], 0) for d in leaves]
    text = ngettext(
        "{nodes} nodes, {leaves} leaves; P1 wins at {p1}, P2 at {p2}, draws at {draws}",
        "{nodes} nodes, {leaves} leaves; P1 wins at {p1}, P2 at {p2}, draws at {draws}",
        len(leaves),
    ).format(
        nodes=tree.number_of_nodes(),
        leaves=len(leaves),
        p1=sum(u > 0 for u in wins),
        p2=sum(u < 0 for u in wins),
        draws=sum(u == 0 for u in wins),
    )
    if values is not None:
        worth = f"{values[tree.nodes[()]['state']]:+g}"
        text += "; " + _("the start is worth {value} for P1 with best play").format(value=worth)
        text += "; " + _("edges: red solid = winning move, blue dashed = win given away, black dotted = no forced win")
    if len(highlight):
        text += "; " + _("highlighted line: {moves}").format(moves=", ".join(map(str, highlight)))
    set_alt(ax, headed("Tree", ax.get_title(), text))
    return fig


# --- Nim against the perfect player ------------------------------------------------------------


class NimMatch:
    """The pure model behind `NimPlay` (and chapter 6's `QNimPlay`): Nim between a person and a computer player.

    Piles are numbered from 1 for people; moves inside the game are (index, take). The computer
    plays a move of best exact value (the first in move order) unless another player is given.
    `move_values()` tells, for every legal move of the person, whether it wins (+1) or loses
    (-1) for them with best play afterwards. The rules are the game's: a move is allowed
    exactly when the game lists it among its legal moves.
    """

    def __init__(
        self,
        piles: Iterable[int] = (3, 4, 5),
        misere: bool = False,
        human: int = 0,
        computer: Callable[[Game, State], Move] | None = None,
        name: str = "computer",
        game: Nim | None = None,
    ):
        self.human = _check_seat(human)
        self.game: Any = game if game is not None else Nim(piles, misere)
        self._values: dict[State, float] | None = None
        self.computer = computer if computer is not None else self._perfect
        self.name = name
        self.reset()

    def _perfect(self, game: Game, state: State) -> Move:
        return best_moves(game, state, self.values)[0]

    @property
    def values(self) -> dict[State, float]:
        """Exact values of every position (computed on first use, kept with this match)."""
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

    @property
    def winner(self) -> Winner:
        """The seat that won (0 or 1; `human` is the person's seat), or None while the game runs:
        the same type as every `winner` in gamekit."""
        if not self.over:
            return None
        return 0 if self.game.utility(self.state, 0) > 0 else 1

    @property
    def winner_name(self) -> str | None:
        """Who won, as shown to the person: 'you', the computer's `name`, or None while the game runs."""
        seat = self.winner
        return None if seat is None else ("you" if seat == self.human else self.name)

    def move_values(self) -> dict[tuple[int, int], float]:
        """{(pile from 1, take): value for the person} for every legal move now."""
        if self.over:
            return {}
        sign = 1 if self.human == 0 else -1
        values: dict[Any, float] = move_values(self.game, self.state, self.values)
        return {(i + 1, t): sign * v for (i, t), v in values.items()}

    def check_move(self, pile: Any, take: Any) -> str:
        """'' when the game allows the person to take `take` sticks from pile `pile` now, else why not
        (in the language in force: the widgets show it)."""
        if self.over:
            return _game_over_press_new()
        k = len(self.state.piles)
        if not is_int(pile) or not 1 <= pile <= k:
            return _("There is no pile {pile}: choose a pile from 1 to {k}.").format(pile=repr(pile), k=k)
        if not is_int(take) or take < 1:
            return _("Take at least 1 stick (got {take}).").format(take=repr(take))
        if (int(pile) - 1, int(take)) in self.game.legal_moves(self.state):
            return ""
        size = self.state.piles[pile - 1]
        if size == 0:
            return _("Pile {pile} is empty: choose a pile that still has sticks.").format(pile=pile)
        return ngettext(
            "Pile {pile} has only {size} stick: you cannot take {take}.",
            "Pile {pile} has only {size} sticks: you cannot take {take}.",
            size,
        ).format(pile=pile, size=size, take=take)

    def human_move(self, pile: int, take: int) -> None:
        """Play the person's move, then the computer's reply. Raises ValueError (nothing changes)
        when the move is not allowed."""
        why = self.check_move(pile, take)
        if why:
            raise ValueError(why)
        self.state = self.game.play(self.state, (int(pile) - 1, int(take)))
        self.history.append(("you", int(pile), int(take)))
        if not self.over:
            self.computer_move()

    def computer_move(self) -> None:
        move: Any = self.computer(self.game, self.state)
        i, t = move
        self.state = self.game.play(self.state, (i, t))
        self.history.append((self.name, i + 1, t))


def _game_over_press_new() -> str:
    return _("The game is over: press '{button}' to play again.").format(button=_("New game"))


def _game_over(match: NimMatch) -> str:
    """ "game over: you won" or "game over: computer won" (the title of a finished game's picture)."""
    if match.winner == match.human:
        return _("game over: you won")
    return _("game over: {name} won").format(name=player_name(match.name))


def _game_over_sentence(match: NimMatch) -> str:
    """ "Game over: you won." or "Game over: computer won." (the message after the last move)."""
    if match.winner == match.human:
        return _("Game over: you won.")
    return _("Game over: {name} won.").format(name=player_name(match.name))


def draw_nim(match: NimMatch, ax=None, hints: bool = True):
    """The piles as rows of sticks. With `hints`, stick k counted from the right of a pile stands
    for the move 'take k from this pile': red when that move wins for the person, blue when it
    loses; without hints every stick is grey."""
    piles = match.state.piles
    fig = ax.figure if ax is not None else plt.figure(figsize=(10.5, 1.2 + 0.8 * len(piles)))
    ax = ax or fig.add_subplot(111)
    mv = match.move_values() if hints else {}
    for row, size in enumerate(piles):
        y = len(piles) - row
        ax.text(-0.8, y, _("pile {k}").format(k=row + 1), ha="right", va="center", fontsize=FONT)
        for j in range(size):
            take = size - j
            v = mv.get((row + 1, take))
            colour = GREY if v is None else RED if v > 0 else BLUE
            style = "solid" if v is None or v > 0 else (0, (0.6, 0.9))  # losing sticks dotted: never colour alone
            ax.plot([j, j], [y - 0.3, y + 0.3], color=colour, lw=7, ls=style, solid_capstyle="round")
    if match.over:
        status = _game_over(match)
    elif hints:
        status = _("your move (nim-sum {nim_sum}): red stick k = 'take k' wins for you, blue (dotted) loses").format(
            nim_sum=nim_sum(piles)
        )
    else:
        status = _("your move: choose a pile and how many sticks to take")
    ax.set_title(_("{status} (misère)").format(status=status) if match.game.misere else status, fontsize=FONT)
    ax.set_xlim(-3.5, max(max(piles), 1) + 0.5)
    ax.set_ylim(0.3, len(piles) + 0.7)
    ax.axis("off")
    text = _("Nim, {position}; {status}").format(position=nim_position_words(piles), status=status)
    winning = [_("take {take} from pile {pile}").format(take=t, pile=p) for (p, t), v in sorted(mv.items()) if v > 0]
    if mv:
        listed = ", ".join(winning) if winning else pgettext("moves", "none")
        text += "; " + _("winning moves for you: {moves}").format(moves=listed)
    set_alt(ax, headed("Board", None, text))
    return fig


def nim_position_words(piles: Sequence[int]) -> str:
    """Nim piles in words: "pile 1: 3 sticks, pile 2: 5 sticks, pile 3: 7 sticks" (in the language in force)."""
    return ", ".join(
        ngettext("pile {k}: {n} stick", "pile {k}: {n} sticks", n).format(k=k, n=n) for k, n in enumerate(piles, 1)
    )


class NimPlay(SnapshotWidget):
    """Play Nim (normal or misère) against the perfect player.

    Choose a pile and how many sticks to take, press 'Take'; the computer answers at once.
    'show hints' (off by default, so you can predict first) colours every move by its value
    and lists the values. Illegal input (no such pile, empty pile, too many sticks, game over)
    shows a message and changes nothing.
    """

    def __init__(self, piles: Iterable[int] = (3, 4, 5), misere: bool = False, human: int = 0, hints: bool = False):
        super().__init__()
        self.model = NimMatch(piles, misere, human)
        self.pile = widgets.IntText(value=1, description=pgettext("box", "pile"), layout=widgets.Layout(width="140px"))
        self.take = widgets.IntText(value=1, description=pgettext("box", "take"), layout=widgets.Layout(width="140px"))
        self.button = widgets.Button(description=pgettext("button", "Take"), button_style="primary")
        self.new = widgets.Button(description=_("New game"))
        self.hints = widgets.Checkbox(value=check_bool(hints, "hints"), description=_("show hints"), indent=False)
        self.board = Picture()
        self.table = widgets.HTML()
        self.button.on_click(lambda _: self.on_take())
        self.new.on_click(lambda _: self.on_new())
        self.hints.observe(lambda _: self.refresh(), names="value")
        self.root = widgets.VBox(
            [
                widgets.HBox([self.pile, self.take, self.button, self.new, self.hints]),
                self.message,
                self.table,
                self.board,
            ]
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
            won = self.model.winner == self.model.human
            self.say(_game_over_sentence(self.model), "good" if won else "info")
        else:
            now = nim_position_words(self.model.state.piles)
            text = _("The computer took {take} from pile {pile}. Now {position}: your move.")
            self.say(text.format(take=last[2], pile=last[1], position=now))
        self.refresh()

    def on_new(self) -> None:
        self.model.reset()
        self.say(_("New game."))
        self.refresh()

    def table_html(self) -> str:
        """The value of each legal move for the person: +1 win, -1 loss (best play afterwards);
        empty while hints are off."""
        mv = self.model.move_values() if self.hints.value else {}
        if not mv:
            return ""
        cells = []
        for (pile, take), v in mv.items():
            colour = RED if v > 0 else BLUE
            move = _("pile {pile} take {take}").format(pile=pile, take=take)
            cells.append(f"<span style='color:{colour};margin-right:8px'>{move}: {'+1' if v > 0 else '-1'}</span>")
        head = _("value of each move for you:")
        return f"<div style='font-size:0.85em'><b>{head}</b> " + " ".join(cells) + "</div>"

    def refresh(self) -> None:
        self.table.value = self.table_html()
        fig = draw_nim(self.model, hints=self.hints.value)
        self.board.show(fig)

    def snapshot(self):
        return draw_nim(self.model, hints=self.hints.value)

    def _repr_mimebundle_(self, include=None, exclude=None):
        data = super()._repr_mimebundle_(include, exclude)
        if "image/png" in data:
            data["text/html"] = (
                self.message.value + self.table_html() + img_html(data["image/png"], str(data.get("text/plain", "")))
            )
        return data


# --- the project's generalised Nim against the perfect player ------------------------------------


def _uses(u: float) -> str:
    return "∞" if u == float("inf") else str(int(u))


class GNimMatch:
    """The pure model behind `GNimPlay`: the project's generalised Nim between a person and the
    perfect player (a move of best exact value, the first in move order).

    `human` is the person's seat: 0 = player 0 (`:P1`), 1 = player 1 (`:P2`); who starts is the
    game's `first`. Moves, budgets, the win condition and draws are the game's; the values come
    from `solve` and are kept with this match. `move_values()` gives, for each legal move of the
    person, +1 (it wins for them with best play afterwards), 0 (a draw) or -1 (it loses).
    """

    def __init__(self, game: GeneralizedNim, human: int = 0, name: str = "computer"):
        if not isinstance(game, GeneralizedNim):
            raise TypeError(
                f"game must be a GeneralizedNim, such as GeneralizedNim(7, {{1: 2, 3: math.inf}}), got {game!r}"
            )
        self.game: Any = game  # the concrete game (the protocol types states only as Hashable)
        self.human = _check_seat(human)
        self.name = name
        self._values: dict[State, float] | None = None
        self.reset()

    @property
    def values(self) -> dict[State, float]:
        """Exact values (player 0's view) of every position of the game (solved on first use)."""
        if self._values is None:
            self._values = solve(self.game)
        return self._values

    def reset(self) -> None:
        """Start again from the game's start position; the computer moves while it is its turn."""
        self.state: GNimState = self.game.initial_state()
        self.history: list[tuple[str, int]] = []  # (who, stones taken)
        self._computer_turns()

    @property
    def over(self) -> bool:
        return self.game.is_terminal(self.state)

    @property
    def your_turn(self) -> bool:
        return not self.over and self.game.to_move(self.state) == self.human

    def outcome(self) -> str | None:
        """None while the game runs; then 'you won', '<name> won' or 'draw' (English: data that code
        compares; the widgets show `outcome_text()`)."""
        if not self.over:
            return None
        u = self.game.utility(self.state, self.human)
        return "you won" if u > 0 else f"{self.name} won" if u < 0 else "draw"

    def outcome_text(self) -> str | None:
        """`outcome()` in the language in force, as the widgets show it."""
        if not self.over:
            return None
        u = self.game.utility(self.state, self.human)
        if u > 0:
            return _("you won")
        if u < 0:
            return _("{name} won").format(name=player_name(self.name))
        # TRANSLATORS: the outcome of a finished game ("game over: draw")
        return pgettext("outcome", "draw")

    def value_for_you(self) -> float:
        """The value of the current position for the person (+1, 0, -1) with best play by both."""
        sign = 1 if self.human == 0 else -1
        return sign * self.values[self.state]

    def move_values(self) -> dict[int, float]:
        """{stones taken: value for the person} for every legal move of the person now."""
        if not self.your_turn:
            return {}
        sign = 1 if self.human == 0 else -1
        values: dict[Any, float] = move_values(self.game, self.state, self.values)
        return {int(m): sign * v for m, v in values.items()}

    def check_move(self, take: Any) -> str:
        """'' when the game allows the person to take `take` stones now, else why not (in the language
        in force: the widgets show it)."""
        if self.over:
            return _game_over_press_new()
        legal = self.game.legal_moves(self.state)
        if is_int(take) and int(take) in legal:
            return ""
        mine = self.state.moves_left(self.human)
        offer = ", ".join(
            _("take {take} ({uses} left)").format(take=t, uses=_uses(u)) for t, u in mine.items() if u > 0
        ) or _("none left")
        if not is_int(take):
            return _("Type a whole number of stones, got {take}. Your moves: {moves}.").format(
                take=repr(take), moves=offer
            )
        if take not in mine:
            return _("'take {take}' is not one of your moves. Your moves: {moves}.").format(take=take, moves=offer)
        if mine[take] == 0:
            return _("You have used up 'take {take}'. Your moves: {moves}.").format(take=take, moves=offer)
        board = self.state.board
        return ngettext(
            "Only {n} stone left: you cannot take {take}.", "Only {n} stones left: you cannot take {take}.", board
        ).format(n=board, take=take)

    def human_move(self, take: Any) -> None:
        """Play the person's move, then the computer's replies while it is its turn. Raises
        ValueError (and changes nothing) when the game does not allow the move."""
        why = self.check_move(take)
        if why:
            raise ValueError(why)
        self.state = self.game.play(self.state, int(take))
        self.history.append(("you", int(take)))
        self._computer_turns()

    def _computer_turns(self) -> None:
        while not self.over and self.game.to_move(self.state) != self.human:
            best: Any = best_moves(self.game, self.state, self.values)[0]
            move = int(best)
            self.state = self.game.play(self.state, move)
            self.history.append((self.name, move))


def _value_colour(v: float) -> str:
    return RED if v > 0 else BLUE if v < 0 else BLACK


def _value_word(v: float) -> str:
    """What a move does for the person with best play afterwards, in one word ("wins")."""
    # TRANSLATORS: what a move of generalised Nim does for you with best play: "take 2 × 1 (wins)"
    return (
        pgettext("move value", "wins")
        if v > 0
        else pgettext("move value", "loses")
        if v < 0
        else pgettext("move value", "draws")
    )


def _position_value(v: float) -> str:
    """What the position is worth for the person, as the picture's title says it."""
    if v > 0:
        return _("your move; with best play this position wins for you")
    if v < 0:
        return _("your move; with best play this position loses for you")
    return _("your move; with best play this position draws for you")


def draw_gnim(match: GNimMatch, hints: bool = False, ax=None):
    """The position of a generalised-Nim match at projector size: the stones, both players'
    remaining moves, and, with `hints`, each of the person's moves coloured by its value
    (red = wins for you, black = draw, blue = loses)."""
    s = match.state
    fig = ax.figure if ax is not None else plt.figure(figsize=(11, 3.2))
    ax = ax or fig.add_subplot(111)
    per_row = 30
    rows = max(1, -(-s.board // per_row))
    for k in range(s.board):
        x = 0.02 + 0.032 * (k % per_row)
        y = 0.86 - 0.12 * (k // per_row)
        ax.scatter(x, y, s=330, color=GREY, edgecolor=BLACK, zorder=2, transform=ax.transAxes, clip_on=False)
    if s.board == 0:
        ax.text(0.0, 0.86, _("no stones left"), fontsize=FONT, va="center", transform=ax.transAxes)
    mv = match.move_values() if hints else {}
    width = max(len(s.budgets[0]), len(s.budgets[1]), 1)
    col = 0.72 / width
    top = 0.86 - 0.12 * (rows - 1) - 0.28
    for p in (0, 1):
        y = top - 0.26 * p
        who = player_name("you" if p == match.human else match.name)
        arrow = "▶ " if not match.over and s.to_move == p else "    "
        ax.text(
            0.0, y, f"{arrow}{PLAYER[p]} ({who})", fontsize=FONT, va="center", fontweight="bold", transform=ax.transAxes
        )
        for j, (t, u) in enumerate(s.budgets[p]):
            label = _("take {take} × {uses}").format(take=t, uses=_uses(u))
            colour = "#444"
            if p == match.human and t in mv:
                label += f" ({_value_word(mv[t])})"
                colour = _value_colour(mv[t])
            ax.text(0.28 + j * col, y, label, fontsize=FONT, va="center", color=colour, transform=ax.transAxes)
    if match.over:
        status = _("game over: {outcome}").format(outcome=match.outcome_text())
    elif hints:
        status = _position_value(match.value_for_you())
    else:
        status = _("your move") if match.your_turn else _("{name} to move").format(name=player_name(match.name))
    title = ngettext("{n} stone left · {status}", "{n} stones left · {status}", s.board)
    ax.set_title(title.format(n=s.board, status=status), fontsize=FONT + 1)
    ax.axis("off")

    def budget(p: int, t: int, u: float) -> str:
        if p == match.human and t in mv:
            return _("{take} ({uses} times, {value})").format(take=t, uses=_uses(u), value=_value_word(mv[t]))
        return _("{take} ({uses} times)").format(take=t, uses=_uses(u))

    budgets = "; ".join(
        _("{player} ({who}) may take {moves}").format(
            player=PLAYER[p],
            who=player_name("you" if p == match.human else match.name),
            moves=", ".join(budget(p, t, u) for t, u in s.budgets[p]),
        )
        for p in (0, 1)
    )
    body = _("generalised Nim, {title}; {budgets}").format(title=ax.get_title(), budgets=budgets)
    set_alt(ax, headed("Board", None, body))
    return fig


class GNimPlay(SnapshotWidget):
    """Play the project's generalised Nim (per-player move budgets, a win condition, draws)
    against the perfect player.

    Type how many stones to take and press 'Take'; the computer answers at once. Choose your
    seat (P1 or P2; who starts is the game's rule) and press 'New game'. 'show hints' (off by
    default) colours each of your moves by its value. Refused input (a move you do not have, a
    used-up move, more stones than are left, the game is over) shows why and changes nothing.
    Executed headless (CI, slides) it leaves a picture of the position.
    """

    def __init__(self, game: GeneralizedNim, human: int = 0, hints: bool = False):
        super().__init__()
        self.model = GNimMatch(game, human)
        self.take = widgets.IntText(value=1, description=pgettext("box", "take"), layout=widgets.Layout(width="140px"))
        self.button = widgets.Button(description=pgettext("button", "Take"), button_style="primary")
        self.seat = widgets.ToggleButtons(options=[(_("you are P1"), 0), (_("you are P2"), 1)], value=self.model.human)
        self.new = widgets.Button(description=_("New game"))
        self.hints = widgets.Checkbox(value=check_bool(hints, "hints"), description=_("show hints"), indent=False)
        self.board = Picture()
        self.log = widgets.HTML()
        self.button.on_click(lambda _: self.on_take())
        self.new.on_click(lambda _: self.on_new())
        self.hints.observe(lambda _: self.refresh(), names="value")
        self.root = widgets.VBox(
            [
                widgets.HBox([self.take, self.button, self.seat, self.new, self.hints]),
                self.message,
                self.log,
                self.board,
            ]
        )
        self.say(f"{game!r}: " + (_("your move.") if self.model.your_turn else self._news()))
        self.refresh()

    def _news(self) -> str:
        """The computer's last move (if it moved) and what now: "computer took 2. Your move."."""
        done = [(who, t) for who, t in self.model.history if who != "you"]
        now = (
            _("Game over: {outcome}.").format(outcome=self.model.outcome_text()) if self.model.over else _("Your move.")
        )
        if not done:
            return now
        who, t = done[-1]
        return _("{name} took {take}.").format(name=player_name(who), take=t) + " " + now

    def on_take(self) -> None:
        try:
            self.model.human_move(self.take.value)
        except ValueError as err:
            self.say(str(err), "error")
            return
        kind = "good" if self.model.outcome() == "you won" else "info"  # the English outcome: data
        self.say(self._news(), kind)
        self.refresh()

    def on_new(self) -> None:
        self.model.human = _check_seat(self.seat.value)
        self.model.reset()
        self.say(_("New game.") + " " + self._news())
        self.refresh()

    def log_html(self) -> str:
        moves = " → ".join(f"{html.escape(player_name(who))} {t}" for who, t in self.model.history) or _("no moves yet")
        head = _("moves:")
        return f"<div style='font-size:0.9em'><b>{head}</b> {moves}</div>"

    def refresh(self) -> None:
        self.log.value = self.log_html()
        fig = self.snapshot()
        self.board.show(fig)

    def snapshot(self):
        return draw_gnim(self.model, hints=self.hints.value)

    def _repr_mimebundle_(self, include=None, exclude=None):
        data = super()._repr_mimebundle_(include, exclude)
        if "image/png" in data:
            data["text/html"] = (
                self.message.value + self.log_html() + img_html(data["image/png"], str(data.get("text/plain", "")))
            )
        return data
