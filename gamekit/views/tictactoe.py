"""TicTacToe on screen: boards as text, HTML and matplotlib; heat maps; strips; the play widget.

The drawing functions take plain boards (9-tuples of 'X', 'O', '.') and numbers computed
elsewhere, so they know nothing about how the numbers were found. `TicTacToePlay` is a
thin view over a game and any players (chapters 4 and 8 reuse it with their own).
"""

from __future__ import annotations

import html
import numbers
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import ipywidgets as widgets
import matplotlib.pyplot as plt
from matplotlib.colors import LinearSegmentedColormap

from ..games.tictactoe import EMPTY, O, TicTacToe, X, board_text, winning_line, winning_mark
from ..i18n import _, ngettext, pgettext
from ..protocol import IllegalMoveError
from .alt import figure_kind, headed, num, set_alt
from .colors import BLACK, BLUE, GREY, LIGHT_BLUE, LIGHT_RED, RED
from .style import readable
from .widgets import SnapshotWidget

__all__ = [
    "board_html",
    "board_strip",
    "board_words",
    "BoardView",
    "counting_hints",
    "draw_board",
    "heat_map",
    "hint_label_html",
    "line_boards",
    "PlayerFactory",
    "plot_outcomes_by_length",
    "RED_BLUE",
    "show_board",
    "SQUARE_PX",
    "TicTacToePlay",
]

#: Low values red (a square you want to play), high values blue (a square to avoid).
RED_BLUE = LinearSegmentedColormap.from_list("gamekit_red_blue", [LIGHT_RED, "#ffffff", LIGHT_BLUE])


class BoardView:
    """A board that shows itself as an HTML grid in Jupyter and as text elsewhere."""

    def __init__(self, board: Sequence[str]):
        self.board = tuple(board)

    def __str__(self) -> str:
        return board_text(self.board)

    def _repr_pretty_(self, p, cycle) -> None:
        p.text(str(self))

    def _repr_html_(self) -> str:
        return board_html(self.board)


def show_board(board: Sequence[str]) -> BoardView:
    """Display `board` nicely (HTML in a notebook, three lines of text in a terminal)."""
    return BoardView(board)


def board_html(board: Sequence[str], notes: Mapping[int, str] | None = None) -> str:
    """The board as an HTML table; `notes` puts small text into (free) squares."""
    notes = notes or {}
    line = winning_line(board) or ()
    rows = []
    for r in range(3):
        cells = []
        for i in range(3 * r, 3 * r + 3):
            mark = board[i] if board[i] != EMPTY else ""
            colour = RED if i in line else BLACK
            body = (
                f"<span style='font-size:28px;color:{colour}'>{mark}</span>"
                if mark
                else f"<span style='font-size:10px;color:#555'>{html.escape(notes.get(i, '')).replace(chr(10), '<br>')}"
                f"</span>"
            )
            cells.append(
                f"<td style='width:64px;height:64px;border:2px solid #444;text-align:center;"
                f"font-family:sans-serif'>{body}</td>"
            )
        rows.append("<tr>" + "".join(cells) + "</tr>")
    return "<table style='border-collapse:collapse'>" + "".join(rows) + "</table>"


def board_words(board: Sequence[str]) -> str:
    """The position in words (squares numbered 0-8, row by row), for alt texts and screen readers:
    "X on 0, 4; O on 8; empty: 1, 2, 3, 5, 6, 7; O to move" (in the language in force)."""

    def squares(mark: str) -> str:
        return ", ".join(str(i) for i, c in enumerate(board) if c == mark)

    xs, os_, free = squares(X), squares(O), squares(EMPTY)
    parts = [
        _("X on {squares}").format(squares=xs) if xs else _("X on none"),
        _("O on {squares}").format(squares=os_) if os_ else _("O on none"),
        _("empty: {squares}").format(squares=free) if free else _("empty: none"),
    ]
    mark = winning_mark(tuple(board))
    if mark is not None:
        line = winning_line(board) or ()
        parts.append(_("{mark} wins with the line {line}").format(mark=mark, line=", ".join(map(str, line))))
    elif EMPTY not in board:
        # TRANSLATORS: the end of a TicTacToe position in words: nobody won and the board is full
        parts.append(pgettext("result", "draw"))
    else:
        parts.append(_("{mark} to move").format(mark=X if board.count(X) == board.count(O) else O))
    return "; ".join(parts)


def draw_board(
    board: Sequence[str],
    ax=None,
    title: str | None = None,
    mark_square: int | None = None,
    mark_color: str = GREY,
    notes: Mapping[int, str] | None = None,
    fill: Mapping[int, str] | None = None,
):
    """Draw a board on a matplotlib axis and return the axis.

    A completed line is drawn in red; `mark_square` (e.g. the last move) gets a coloured
    frame; `notes` writes small text into squares, `fill` colours their background.
    """
    if ax is None:
        ax = plt.subplots(figsize=(5, 5))[1]
    ax.set_xlim(0, 3)
    ax.set_ylim(3, 0)
    ax.set_aspect("equal")
    ax.axis("off")
    for i, colour in (fill or {}).items():
        ax.add_patch(plt.Rectangle((i % 3, i // 3), 1, 1, color=colour, zorder=0))
    for k in (1, 2):
        ax.plot([k, k], [0, 3], color=BLACK, lw=2)
        ax.plot([0, 3], [k, k], color=BLACK, lw=2)
    for i, cell in enumerate(board):
        x, y = i % 3 + 0.5, i // 3 + 0.5
        if cell != EMPTY:
            ax.text(x, y, cell, ha="center", va="center", fontsize=26, fontweight="bold", color=BLACK)
        elif notes and i in notes:
            ax.text(x, y, notes[i], ha="center", va="center", fontsize=14, color=BLACK)
    line = winning_line(board)
    if line:
        (a, _middle, c) = line
        ax.plot([a % 3 + 0.5, c % 3 + 0.5], [a // 3 + 0.5, c // 3 + 0.5], color=RED, lw=5, alpha=0.8)
    if mark_square is not None:
        ax.add_patch(
            plt.Rectangle((mark_square % 3 + 0.05, mark_square // 3 + 0.05), 0.9, 0.9, fill=False, ec=mark_color, lw=3)
        )
    if title:
        ax.set_title(title, fontsize=14)
    words = board_words(board)
    if mark_square is not None:
        words += "; " + _("square {i} framed").format(i=mark_square)
    if notes:
        said = "; ".join(
            _("square {i}: {note}").format(i=i, note=" ".join(str(t).split())) for i, t in sorted(notes.items())
        )
        words += "; " + _("notes: {notes}").format(notes=said)
    return set_alt(ax, headed("Board", title, _("TicTacToe, {position}").format(position=words)))


def heat_map(
    board: Sequence[str],
    values: Mapping[int, float],
    labels: Mapping[int, str] | None = None,
    ax=None,
    title: str | None = None,
    vmin: float = 0.0,
    vmax: float = 1.0,
    cmap=RED_BLUE,
):
    """Colour each free square by `values[square]` (low = red, high = blue) and write `labels` in it."""
    if ax is None:
        ax = plt.subplots(figsize=(7, 7))[1]
    fill = {i: cmap((v - vmin) / (vmax - vmin) if vmax > vmin else 0.5) for i, v in values.items()}
    draw_board(board, ax=ax, title=title, notes=labels, fill=fill)

    def shown(i: int, v: float) -> str:
        label = " ".join((labels or {}).get(i, "").split())
        if label:
            return _("square {i}: {value} ({label})").format(i=i, value=num(v), label=label)
        return _("square {i}: {value}").format(i=i, value=num(v))

    low = min(values, key=lambda i: values[i]) if values else None
    kind = figure_kind("Heat map")
    text = _("{kind} on a TicTacToe board, {position}; values {values}").format(
        kind=f"{kind} ({title})" if title else kind,
        position=board_words(board),
        values=", ".join(shown(i, v) for i, v in sorted(values.items())),
    )
    if low is not None:
        text += "; " + _("the colour ranks them, lowest (reddest) at square {i}").format(i=low)
    columns = [pgettext("table head", "square"), pgettext("table head", "value")]
    return set_alt(ax, text, (columns, sorted(values.items())))


def board_strip(
    boards: Sequence[Sequence[str]],
    captions: Sequence[str] | None = None,
    marks: Sequence[int | None] | None = None,
    mark_colors: Sequence[str] | None = None,
    title: str | None = None,
):
    """A row of boards, e.g. the positions of one game; returns the figure."""
    n = len(boards)
    fig, axes = plt.subplots(1, n, figsize=(min(2.2 * n, 12), 3))  # slide-sized: text 14 pt
    axes = [axes] if n == 1 else list(axes)
    for k, (ax, board) in enumerate(zip(axes, boards)):
        draw_board(
            board,
            ax=ax,
            title=captions[k] if captions else None,
            mark_square=marks[k] if marks else None,
            mark_color=mark_colors[k] if mark_colors else GREY,
        )
        for t in ax.texts:
            t.set_fontsize(14)
    if title:
        fig.suptitle(title, fontsize=15)
    fig.tight_layout()
    steps = [f"{captions[k] + ': ' if captions else ''}{board_words(b)}" for k, b in enumerate(boards)]
    body = ngettext("{n} TicTacToe boards. {boards}", "{n} TicTacToe boards. {boards}", n)
    body = body.format(n=n, boards=". ".join(steps))
    return set_alt(fig, headed("Board strip", title, body))


def line_boards(game, line: Sequence[int], state=None) -> list:
    """The positions of a game that starts at `state` and plays the moves of `line`."""
    s = game.initial_state() if state is None else state
    boards = [s]
    for m in line:
        s = game.play(s, m)
        boards.append(s)
    return boards


def plot_outcomes_by_length(by_length: Mapping[int, Any], ax=None, title: str | None = None):
    """Stacked bars: X wins, O wins and draws for each game length (from `games_by_length`)."""
    if ax is None:
        ax = plt.subplots(figsize=(11, 5))[1]
    lengths = sorted(by_length)
    xs = [by_length[n].p0_wins for n in lengths]
    os_ = [by_length[n].p1_wins for n in lengths]
    ds = [by_length[n].draws for n in lengths]
    # never colour alone: O wins hatched, draws dotted
    x_wins, o_wins, draws = _("X wins"), _("O wins"), pgettext("outcomes", "draws")
    ax.bar(lengths, xs, color=RED, label=x_wins, edgecolor="white")
    ax.bar(lengths, os_, bottom=xs, color=BLUE, label=o_wins, hatch="//", edgecolor="white")
    ax.bar(lengths, ds, bottom=[a + b for a, b in zip(xs, os_)], color=GREY, label=draws, hatch="..", edgecolor="#555")
    for n, a, b, c in zip(lengths, xs, os_, ds):
        ax.text(n, a + b + c, f"{a + b + c:,}", ha="center", va="bottom", fontsize=14)
    ax.set_xlabel(_("number of moves in the game"))
    ax.set_ylabel(_("number of games"))
    ax.set_xticks(lengths)
    ax.legend(frameon=False)
    if title:
        ax.set_title(title)
    totals = {n: a + b + c for n, a, b, c in zip(lengths, xs, os_, ds)}
    most = max(totals, key=lambda n: totals[n]) if totals else None
    text = _("{n} games of TicTacToe by length").format(n=num(sum(totals.values())))
    if most is not None:
        text += "; " + _("most end after {moves} moves ({games})").format(moves=most, games=num(totals[most]))
        text += "; " + _("in all {x} X wins (red), {o} O wins (blue, hatched), {draws} draws").format(
            x=num(sum(xs)), o=num(sum(os_)), draws=num(sum(ds))
        )
    columns = [pgettext("table head", "moves"), x_wins, o_wins, draws]
    table = (columns, [[n, a, b, c] for n, a, b, c in zip(lengths, xs, os_, ds)])
    return set_alt(readable(ax), headed("Bar chart", title, text), table)


PlayerFactory = Callable[[], Callable]

#: Size of a square button of the play widget, in pixels.
SQUARE_PX = 72


def _hex(rgba) -> str:
    """A matplotlib RGBA colour as '#rrggbb' (for ipywidgets styles)."""
    return "#" + "".join(f"{round(255 * c):02x}" for c in rgba[:3])


def _relative(values: Mapping[int, float]) -> dict[int, float]:
    """Values rescaled to [0, 1] (lowest 0, highest 1; all 0.5 when they are equal), for colouring."""
    if not values:
        return {}
    lo, hi = min(values.values()), max(values.values())
    return {k: (v - lo) / (hi - lo) if hi > lo else 0.5 for k, v in values.items()}


def hint_label_html(text: str) -> str:
    """A hint (lines separated by newlines) as small centred HTML lines, to stand under a square."""
    lines = "<br>".join(html.escape(part) for part in text.split("\n"))
    return (
        "<div style='width:100%;text-align:center;white-space:nowrap;font-size:10px;line-height:1.15;"
        f"color:#333;font-family:sans-serif'>{lines}</div>"
    )


class TicTacToePlay(SnapshotWidget):
    """Play TicTacToe against a chosen computer player, as X or as O, with an optional hint layer.

    `players` maps a display name to a factory that returns a fresh player (a callable
    `player(game, state) -> move`). `hint` maps (game, state) to a pair ({free square: short
    text, lines separated by newlines}, {square: value in [0, 1]}); the default shows the
    chapter-3 counts and P(lose) for the side to move. With hints on, each text stands under
    its square and the value colours the square (lowest red, highest blue, as in `heat_map`).
    Clicking an occupied square, or any square after the game ended, shows a message and
    changes nothing.

    The default players' names are shown in the language in force (`players`' keys stay the values
    of the opponent box). From the keyboard: Tab reaches every square (a button named by its state, "square 4,
    empty") and Enter plays it; or type a square's number (0-8) into the "play square" box and
    press Enter. Each move is announced in a live region ("You played square 4 (X). perfect
    played square 0 (O). X to move: your turn.").
    """

    def __init__(
        self,
        players: Mapping[str, PlayerFactory] | None = None,
        seat: str = X,
        hints: bool = False,
        hint: Callable | None = None,
        game: TicTacToe | None = None,
    ):
        super().__init__()
        default = players is None
        if players is None:
            from ..players import LossAversePlayer, PerfectPlayer, RandomPlayer

            players = {
                "random": lambda: RandomPlayer(seed=0),
                "1 − P(lose)": LossAversePlayer,
                "perfect": PerfectPlayer,
            }
        if not isinstance(players, Mapping) or not players:
            raise ValueError(
                f"players must be a non-empty dict {{name: factory}}, got {players!r}; "
                "each factory is a callable with no arguments returning a player, e.g. {'random': RandomPlayer}"
            )
        for name, factory in players.items():
            if not isinstance(name, str) or not callable(factory):
                raise TypeError(
                    f"players[{name!r}] = {factory!r}: each entry must map a name (str) to a factory, a callable "
                    "with no arguments that returns a player, e.g. {'random': RandomPlayer} or "
                    "{'random': lambda: RandomPlayer(seed=0)}"
                )
        if seat not in (X, O):
            raise ValueError(f"seat must be 'X' or 'O', got {seat!r}")
        self.game = game if game is not None else TicTacToe()
        self.factories: dict[str, PlayerFactory] = dict(players)
        self.names = {name: _default_player_name(name) if default else name for name in self.factories}
        self.hint = hint if hint is not None else counting_hints
        wide = {"description_width": "initial"}
        self.opponent = widgets.Dropdown(
            options=[(self.names[name], name) for name in self.factories],
            description=pgettext("box", "opponent"),
            style=wide,
            layout=widgets.Layout(width="250px"),
        )
        self.seat = widgets.ToggleButtons(options=[X, O], value=seat, description=_("you play"), style=wide)
        self.seat.style.button_width = "48px"
        self.hints = widgets.Checkbox(value=hints, description=_("show hints"), indent=False)
        self.new_button = widgets.Button(description=_("new game"))
        self.square_box = widgets.Text(
            description=_("play square"),
            placeholder=_("0-8, then Enter"),
            continuous_update=False,
            style=wide,
            layout=widgets.Layout(width="250px"),
        )
        self.square_box.observe(lambda change: self._typed(change["new"]), names="value")
        self.squares = [
            widgets.Button(
                layout=widgets.Layout(
                    width=f"{SQUARE_PX}px", height=f"{SQUARE_PX}px", margin="0", border="1px solid #888"
                ),
                style={"font_size": "26px", "font_weight": "bold"},
            )
            for _ in range(9)
        ]
        for i, b in enumerate(self.squares):
            b.on_click(lambda _b, i=i: self.click(i))
        # one hint label under each square, in the same grid: rows alternate squares / their hints
        self.hint_labels = [
            widgets.HTML(layout=widgets.Layout(width=f"{SQUARE_PX}px", height="48px", margin="0")) for _ in range(9)
        ]
        self.new_button.on_click(lambda _b: self.new_game())
        self.opponent.observe(lambda _c: self.new_game(), names="value")
        self.seat.observe(lambda _c: self.new_game(), names="value")
        self.hints.observe(lambda _c: self._refresh(), names="value")
        cells = [w for r in (0, 3, 6) for w in self.squares[r : r + 3] + self.hint_labels[r : r + 3]]
        self.board = widgets.GridBox(
            cells,
            layout=widgets.Layout(
                grid_template_columns=f"repeat(3, {SQUARE_PX}px)",
                grid_gap="3px",
                width="max-content",
                align_items="center",
            ),
        )
        controls = widgets.VBox(
            [self.square_box, self.opponent, self.seat, self.hints, self.new_button],
            layout=widgets.Layout(margin="0 0 0 16px"),
        )
        self.root = widgets.VBox([widgets.HBox([self.board, controls]), self.message])
        self.new_game()

    # --- the model ---------------------------------------------------------------------------
    @property
    def human(self) -> int:
        return 0 if self.seat.value == X else 1

    def new_game(self) -> None:
        self.computer = self.factories[self.opponent.value]()
        self.state = self.game.initial_state()
        self.moves: list[int] = []
        news = _("New game: you play {mark} against {opponent}.")
        self._computer_moves(news.format(mark=self.seat.value, opponent=self.names[self.opponent.value]))
        self._refresh()

    def _typed(self, text: str) -> None:
        """A square typed into the "play square" box (then Enter): play it, and empty the box."""
        if not text.strip():
            return
        self.square_box.value = ""
        if not text.strip().isdigit() or not 0 <= int(text) <= 8:
            self.say(_("{text} is not a square: type a number from 0 to 8.").format(text=repr(text.strip())), "error")
            return
        self.click(int(text))

    def click(self, square: int) -> None:
        """The human plays `square` (the callback of square button `square`).

        A square that is not a whole number from 0 to 8 is refused with a message; nothing changes.
        """
        if isinstance(square, bool) or not isinstance(square, numbers.Integral):
            text = _("square must be a whole number from 0 to 8, got {square} ({kind})")
            self.refuse(text.format(square=repr(square), kind=type(square).__name__))
            return
        if not 0 <= square <= 8:
            self.refuse(_("square {square} is out of range: the squares are numbered 0 to 8").format(square=square))
            return
        square = int(square)
        if self.game.is_terminal(self.state):
            self.say(_("The game is over — press '{button}' to play again.").format(button=_("new game")), "error")
            return
        try:  # the game knows its rules; the widget only reports them
            self.state = self.game.play(self.state, square)
        except IllegalMoveError:
            self.say(_("Square {square} is taken; choose a free square.").format(square=square), "error")
            return
        self.moves.append(square)
        self._computer_moves(_("You played square {square} ({mark}).").format(square=square, mark=self.seat.value))
        self._refresh()

    def _computer_moves(self, news: str) -> None:
        """Let the computer move while it is its turn; report `news` and what happened."""
        while not self.game.is_terminal(self.state) and self.game.to_move(self.state) != self.human:
            move = self.computer(self.game, self.state)
            self.state = self.game.play(self.state, move)
            self.moves.append(move)
            played = _("{opponent} played square {square} ({mark}).")
            news += " " + played.format(
                opponent=self.names[self.opponent.value], square=move, mark=_MARKS[1 - self.human]
            )
        kind = "info"
        if self.game.is_terminal(self.state):
            w = winning_mark(self.state)
            if w is None:
                news += " " + _("Draw.")
            elif w == self.seat.value:
                news += " " + _("You win!")
            else:
                news += " " + _("{mark} wins.").format(mark=w)
            kind = "good" if w == self.seat.value else "info"
        else:
            news += " " + _("{mark} to move: your turn.").format(mark=_MARKS[self.game.to_move(self.state)])
        self.say(news, kind)

    # --- the view ----------------------------------------------------------------------------
    def _hint_data(self):
        if not self.hints.value or self.game.is_terminal(self.state):
            return {}, {}
        return self.hint(self.game, self.state)

    def _refresh(self) -> None:
        notes, values = self._hint_data()
        line = winning_line(self.state) or ()
        shade = _relative(values)
        for i, (b, label) in enumerate(zip(self.squares, self.hint_labels)):
            b.description = self.state[i] if self.state[i] != EMPTY else ""
            note = " ".join(notes.get(i, "").split())
            b.tooltip = _square_name(i, self.state[i], note)  # its name for a screen reader
            b.style.text_color = RED if i in line else None
            b.style.button_color = _hex(RED_BLUE(shade[i])) if i in shade else None
            label.value = hint_label_html(notes.get(i, ""))
            label.layout.display = "flex" if notes else "none"

    def snapshot(self):
        notes, values = self._hint_data()
        fig, ax = plt.subplots(figsize=(6, 6))
        if values:  # the raw values (they go into the alt text), coloured from lowest to highest
            heat_map(self.state, values, notes, ax=ax, vmin=min(values.values()), vmax=max(values.values()))
        else:
            draw_board(self.state, ax=ax, mark_square=self.moves[-1] if self.moves else None)
        title = _("you: {mark}, opponent: {opponent}").format(
            mark=self.seat.value, opponent=self.names[self.opponent.value]
        )
        ax.set_title(title, fontsize=14)
        return fig


_MARKS = (X, O)


def _default_player_name(name: str) -> str:
    """The name of one of the play widget's default players, in the language in force."""
    names = {
        # TRANSLATORS: the name of a TicTacToe player that plays a random free square
        "random": pgettext("player", "random"),
        # TRANSLATORS: the name of a TicTacToe player that plays the move least likely to lose (course notation)
        "1 − P(lose)": pgettext("player", "1 − P(lose)"),
        # TRANSLATORS: the name of a TicTacToe player that plays perfectly
        "perfect": pgettext("player", "perfect"),
    }
    return names.get(name, name)


def _square_name(i: int, cell: str, note: str = "") -> str:
    """A square button's name for a screen reader: "square 4, empty", "square 0, X; X 5 O 2 ..."."""
    if cell == EMPTY:
        name = _("square {i}, empty").format(i=i)
    else:
        name = _("square {i}, {mark}").format(i=i, mark=cell)
    return f"{name}; {note}" if note else name


def counting_hints(game, state):
    """Chapter 3's hint layer: for every free square the counts X/O/draw and P(mover loses).

    Returns ({square: text}, {square: P(lose)}), computed with `count_outcomes` and
    `outcome_probabilities` on the position after the move.
    """
    from ..counting import count_outcomes, outcome_probabilities

    me = game.to_move(state)
    notes, values = {}, {}
    for m in game.legal_moves(state):
        child = game.play(state, m)
        counts_memo, probs_memo = _HINT_MEMO.setdefault(game, ({}, {}))
        c = count_outcomes(game, child, counts_memo)
        p = outcome_probabilities(game, child, probs_memo).lose(me)
        # TRANSLATORS: a hint under a free square, four short lines: X wins, O wins, Draws, P(lose) (keep P(lose))
        note = _("X {x}\nO {o}\nD {draws}\nP(lose) {p}")
        notes[m] = note.format(x=c.p0_wins, o=c.p1_wins, draws=c.draws, p=f"{float(p):.2f}")
        values[m] = float(p)
    return notes, values


_HINT_MEMO: dict = {}  # game -> (counts memo, probabilities memo), so hints are instant after the first
