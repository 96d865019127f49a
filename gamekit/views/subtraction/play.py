"""The subtraction game's widgets: play against the computer, explore the number graph, and
measure a mixed player's win rate (live ipywidgets, a static snapshot when run headless).

Part of `gamekit.views.subtraction` (see its docstring for the API at a glance)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import ipywidgets as widgets
import matplotlib.pyplot as plt
import numpy as np

from ...games.subtraction import SOURCE_MOVES, SubtractionGame, check_number, periodicity
from ...i18n import _, pgettext
from ...match import random_start, tournament
from ...players import MixedPlayer, PerfectPlayer, SmartRandomPlayer
from ...protocol import Winner, check_bool, check_int, check_probability, is_int
from ...stats import wilson
from ..alt import headed, set_alt
from ..colors import BLACK, GREY, RED
from ..style import readable
from ..widgets import Picture, SnapshotWidget, player_name
from .course import draw_course
from .numbers import _check_draw_N, _is_red, check_draw_moves, draw_number_graph

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


def opponent_name(kind: str) -> str:
    """The name of one of the OPPONENTS, as the opponent box shows it, in the language in force."""
    names = {
        # TRANSLATORS: the computer strategies of the subtraction game (the opponent box; "optimal vs random")
        "optimal": pgettext("strategy", "optimal"),
        "random": pgettext("strategy", "random"),
        "mixed": pgettext("strategy", "mixed"),
    }
    return names.get(kind, kind)


#: Largest start the play widget accepts (a longer course no longer fits the screen).
MAX_PLAY_START = 200


def parse_start(text) -> int:
    """A start number from user input (text typed in the box, or an int): 1..MAX_PLAY_START.

    Text that is not a whole number, or a number out of range, is a ValueError (its message in the
    language in force: the play widget shows it); a value that is neither text nor an int (a float,
    a bool, None) is a TypeError.
    """
    refused = _("start must be a whole number from 1 to {most}, got {text}")
    if isinstance(text, str):
        stripped = text.strip()
        if not (stripped.isascii() and stripped.lstrip("-").isdigit()):
            raise ValueError(refused.format(most=MAX_PLAY_START, text=repr(text)))
        value = int(stripped)
    elif is_int(text):
        value = int(text)
    else:
        raise TypeError(f"start must be a whole number from 1 to {MAX_PLAY_START} (or its text), got {text!r}")
    if not 1 <= value <= MAX_PLAY_START:
        raise ValueError(refused.format(most=MAX_PLAY_START, text=repr(text)))
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
            value=start,
            description=pgettext("box", "start"),
            continuous_update=False,
            style=wide,
            layout=widgets.Layout(width="170px"),
        )
        self.new_button = widgets.Button(description=_("New game"), layout=widgets.Layout(width="auto"))
        self.opponent_box = widgets.Dropdown(
            options=[(opponent_name(kind), kind) for kind in OPPONENTS],
            value=opponent,
            description=pgettext("box", "opponent"),
            style=wide,
            layout=widgets.Layout(width="auto"),
        )
        # the values stay English (code compares them); the labels are in the language in force
        self.first_box = widgets.ToggleButtons(
            options=[(_("you start"), "you start"), (_("computer starts"), "computer starts")],
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
        """Who won: 'you', 'computer' (English: data that code compares; `player_name` shows it in the
        language in force), or None while the game runs."""
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
        if kind == "optimal":
            text = _("New game from {start} against the optimal strategy.").format(start=start)
        elif kind == "random":
            text = _("New game from {start} against the random strategy.").format(start=start)
        else:
            text = _("New game from {start} against the mixed strategy.").format(start=start)
        if not first:
            text += " " + _("The computer subtracted {d}.").format(d=self._computer_moves())
        self.say(text, "info")
        self._refresh()
        return True

    def _won(self) -> str:
        """ "you won" or "computer won", in the language in force."""
        if self.winner_name == "you":
            return _("you won")
        return _("{name} won").format(name=player_name(self.winner_name or ""))

    def play_move(self, d: int) -> bool:
        """Your move: subtract d; then the computer answers. False and a message if not allowed."""
        button = _("New game")
        if self.over:
            text = _("The game is over ({result}). Press '{button}' to play again.")
            self.say(text.format(result=self._won(), button=button), "error")
            return False
        if not is_int(d) or d not in self.game.legal_moves(self.state):
            legal = self.game.legal_moves(self.state)
            text = _("You can only subtract one of {legal} (a whole number), not {d}.")
            return self.refuse(text.format(legal=legal, d=repr(d)))
        d = int(d)
        self._play(d)
        text = _("You subtracted {d}.").format(d=d)
        if not self.over:
            text += " " + _("The computer subtracted {d}.").format(d=self._computer_moves())
        if self.over:
            end = _("Game over at {n}: {result}. Press '{button}' to play again.")
            text += " " + end.format(n=self.n, result=self._won(), button=button)
        else:
            text += " " + _("Now at {n}: your move.").format(n=self.n)
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
            return _("Game over at {n}: {result}.").format(n=self.n, result=f"<b>{self._won()}</b>")
        if _is_red(self.n, self.moves):
            text = _("Now at {n}, your move. This number is red (you cannot force a win).")
        else:
            text = _("Now at {n}, your move. This number is blue (a win can be forced).")
        return text.format(n=f"<b>{self.n}</b>")

    def _refresh(self) -> None:
        self.status.value = self.status_text()
        for d, button in zip(self.moves, self.move_buttons):  # names for a screen reader
            if self.over:
                button.tooltip = _("subtract {d} (game over)").format(d=d)
            else:
                button.tooltip = _("subtract {d} (from {n} to {to})").format(d=d, n=self.n, to=self.n - d)
            button.disabled = self.over
        fig = self.snapshot()
        self.image.show(fig, self.IMAGE_DPI)

    def snapshot(self):
        fig, ax = plt.subplots(figsize=(5, min(6.5, 1.9 + 0.45 * len(self.course))))
        names = [player_name(p) for p in self.players]
        title = _("{first} vs {second} ({opponent})").format(
            first=names[0], second=names[1], opponent=opponent_name(self.kind)
        )
        draw_course(self.course, self.moves, names=names, ax=ax, title=title)
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
            value=", ".join(map(str, self.moves)),
            description=pgettext("box", "moves"),
            style={"description_width": "initial"},
        )
        self.apply = widgets.Button(description=_("Use these moves"))
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
                    text = _("moves must be whole numbers separated by commas, got {text}").format(text=repr(text))
                    raise ValueError(text) from None
            else:
                values = text
            moves = check_draw_moves(values)
            period = periodicity(moves).period  # may refuse a set whose period is out of reach
        except (TypeError, ValueError) as err:
            return self.refuse(err)
        self.moves = moves
        self.say(_("Moves {moves}: period {period}.").format(moves=moves, period=period), "info")
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
        self.readout.value = _(
            "mixed(p={p}) wins {rate} of {games} games against the random strategy, 95 % interval {low} to "
            "{high} (seats alternate, starts 20..50; other games give other rates, within such intervals)"
        ).format(
            p=f"{self.p:g}",
            rate=f"<b>{self.rates[self.p]:.1%}</b>",
            games=self.games,
            low=f"{lo:.1%}",
            high=f"{hi:.1%}",
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
            label=_("95 % Wilson interval"),
        )
        ax.plot(self.ps, [self.rates[x] for x in self.ps], "o-", color=BLACK, ms=5, label=_("win rate"))
        ax.plot([self.p], [self.rates[self.p]], "D", color=RED, ms=10, label=f"p = {self.p:g}")
        ax.legend(loc="lower right")
        ax.axhline(0.5, color=GREY, lw=1, ls="--")
        ax.set_xlabel(_("p (probability of the optimal move)"))
        ax.set_ylabel(_("win rate against random"))
        ax.set_ylim(0, 1)
        ax.set_title(
            _("mixed(p) vs random, {games} games per p (seed {seed})").format(games=self.games, seed=self.seed)
        )
        ax.grid(alpha=0.3)
        readable(ax)
        lo, hi = self.intervals[self.p]
        body = _(
            "the win rate of mixed(p) against random for p = {rates}, with a grey band of 95 % Wilson intervals; "
            "p = {p} marked (a red diamond): {rate}, interval {low} to {high}; dashed line at 0.5"
        ).format(
            rates="; ".join(f"{x:g}: {self.rates[x]:.2f}" for x in self.ps),
            p=f"{self.p:g}",
            rate=f"{self.rates[self.p]:.3f}",
            low=f"{lo:.3f}",
            high=f"{hi:.3f}",
        )
        set_alt(ax, headed("Line chart", ax.get_title(), body))
        return fig
