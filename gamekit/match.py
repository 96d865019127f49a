"""Playing games: one match with its full course, random playouts, and tournaments.

A record or a result printed (`str`) reads in the language in force (`gamekit.i18n`); the players'
names and every field stay as they are.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .i18n import _, ngettext
from .protocol import (
    Game,
    IllegalMoveError,
    State,
    Winner,
    check_bool,
    check_int,
    check_name,
    check_seed,
    player_name,
    require_game_methods,
)

__all__ = [
    "draw_start",
    "GameRecord",
    "play_game",
    "PlayerError",
    "playout",
    "random_start",
    "StartChooser",
    "tournament",
    "TournamentResult",
]


@dataclass(frozen=True)
class GameRecord:
    """The full course of one game: every state, every move, who made it, and the result."""

    states: tuple  # the start state first, the final state last
    moves: tuple
    movers: tuple  # movers[i] made moves[i]
    winner: Winner  # 0, 1, or None for a draw (the same type everywhere in gamekit)
    utilities: tuple  # (utility for player 0, utility for player 1) at the end
    names: tuple = ("player 0", "player 1")

    @property
    def length(self) -> int:
        return len(self.moves)

    def __str__(self) -> str:
        n = self.length
        if self.winner is None:
            # TRANSLATORS: a finished game: {n} moves, no winner (the English says "moves" for one move too)
            return ngettext("{n} moves, draw", "{n} moves, draw", n).format(n=n)
        # TRANSLATORS: a finished game: {n} moves, {name} is the winner's name, {seat} 0 (moved first) or 1
        text = ngettext("{n} moves, {name} (player {seat}) wins", "{n} moves, {name} (player {seat}) wins", n)
        return text.format(n=n, name=self.names[self.winner], seat=self.winner)


class PlayerError(RuntimeError):
    """A player (agent) raised an exception while choosing its move; the message names it."""


def play_game(
    game: Game,
    players: Sequence[Callable],
    state: State | None = None,
    max_moves: int = 100_000,
    names: Sequence[str] | None = None,
) -> GameRecord:
    """Let players[0] and players[1] play from `state` (default: the start) to the end.

    A player that raises is reported as `PlayerError` (the original exception is its cause);
    a player that chooses an illegal move is reported as `IllegalMoveError`; both name the
    player and its seat.
    """
    require_game_methods(game)
    players = _check_players(players)
    max_moves = check_int(max_moves, "max_moves", minimum=1)
    if names is None:
        names = tuple(player_name(p) for p in players)
    else:
        if isinstance(names, str) or not isinstance(names, Sequence) or len(names) != 2:
            raise TypeError(f"names must be a pair of texts, such as ('A', 'B'), got {names!r}")
        names = tuple(check_name(x, "each name") for x in names)
    s = game.initial_state() if state is None else state
    states: list[State] = [s]
    moves: list[Any] = []
    movers: list[int] = []
    while not game.is_terminal(s):
        if len(moves) >= max_moves:
            raise RuntimeError(f"the game did not end within {max_moves} moves")
        who = game.to_move(s)
        try:
            move = players[who](game, s)
        except Exception as err:
            raise PlayerError(
                f"{names[who]} (player {who}) raised {type(err).__name__} while choosing a move in state {s!r}: {err}"
            ) from err
        try:
            s = game.play(s, move)
        except IllegalMoveError as err:
            raise IllegalMoveError(f"{names[who]} (player {who}) chose an illegal move: {err}") from None
        states.append(s)
        moves.append(move)
        movers.append(who)
    u = (game.utility(s, 0), game.utility(s, 1))
    winner = None if u[0] == u[1] else (0 if u[0] > u[1] else 1)
    return GameRecord(tuple(states), tuple(moves), tuple(movers), winner, u, names)


StartChooser = Callable[[Game, np.random.Generator], State]


def _check_players(players: Any) -> list[Callable]:
    """Two players, each a callable player(game, state) -> move."""
    if isinstance(players, (str, bytes)) or not isinstance(players, Sequence):
        raise TypeError(f"players must be a list of two players [player 0, player 1], got {players!r}")
    if len(players) != 2:
        raise ValueError(f"a game needs exactly two players, got {len(players)}")
    for seat, p in enumerate(players):
        if not callable(p):
            raise TypeError(f"player {seat} must be callable as player(game, state) -> move, got {p!r}")
    return list(players)


def _check_rng(rng: Any) -> np.random.Generator:
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy Generator (numpy.random.default_rng(seed)), got {rng!r}")
    return rng


def draw_start(game: Game, rng: np.random.Generator, *args: Any, **kwargs: Any) -> State:
    """A start state for `game` drawn with `rng`: the game's own `random_start`, if it has one.

    `random_start(rng, ...)` is an optional protocol method (see `gamekit.protocol`); extra
    arguments are passed on to it. A game without it starts at `initial_state()` (then extra
    arguments are an error, since nothing could use them).
    """
    require_game_methods(game)
    _check_rng(rng)
    chooser = getattr(game, "random_start", None)
    if chooser is None:
        if args or kwargs:
            raise TypeError(
                f"{type(game).__name__} has no random_start method, so start options {args or ''}{kwargs or ''} "
                "cannot be used; without options every game starts at initial_state()"
            )
        return game.initial_state()
    return chooser(rng, *args, **kwargs)


def random_start(*args: Any, **kwargs: Any) -> StartChooser:
    """A start chooser `start(game, rng)` for `tournament`: the game's own random start.

    Arguments are passed on to the game's `random_start`; for the subtraction game
    `random_start(20, 50)` draws n uniformly in 20..50 (its default, as in the source).
    """

    def choose(game: Game, rng: np.random.Generator) -> State:
        return draw_start(game, rng, *args, **kwargs)

    shown = ", ".join([*map(repr, args), *(f"{k}={v!r}" for k, v in kwargs.items())])
    choose.__name__ = f"random_start({shown})"
    return choose


def playout(
    game: Game,
    player1: Callable,
    player2: Callable,
    seed: int | None = None,
    low: int | None = None,
    high: int | None = None,
) -> GameRecord:
    """The source's playout: a random start (the game's `random_start`), player1 moves first.

    `low`/`high`, if given, are passed on to the game's `random_start` (the subtraction game
    draws n in low..high, 20..50 by default).
    """
    rng = np.random.default_rng(check_seed(seed))
    options = {k: check_int(v, k, minimum=0) for k, v in (("low", low), ("high", high)) if v is not None}
    return play_game(game, [player1, player2], draw_start(game, rng, **options))


@dataclass
class TournamentResult:
    """Results of many games between two players, counted per player and per seat.

    With paired starts (`paired=True`), games 2k and 2k+1 start from the same state, player_a
    moving first in game 2k and second in game 2k+1; `pair_scores[k]` is player_a's score in
    that pair (1 per win, 1/2 per draw, so 0..2). Luck of the start cancels within a pair.
    """

    names: tuple
    games: int = 0
    wins: list = field(default_factory=lambda: [0, 0])
    draws: int = 0
    # seat_wins[i][seat]: wins of player i when sitting in `seat` (0 = moves first)
    seat_wins: list = field(default_factory=lambda: [[0, 0], [0, 0]])
    seat_games: list = field(default_factory=lambda: [[0, 0], [0, 0]])
    records: list = field(default_factory=list)
    paired: bool = False
    pair_scores: list = field(default_factory=list)

    def win_rate(self, player: int = 0) -> float:
        """Share of all games that `player` (0 = player_a, 1 = player_b) won."""
        return self.wins[player] / self.games if self.games else float("nan")

    def score(self, player: int = 0) -> float:
        """Points per game of `player`: a win 1, a draw 1/2 (two perfect players: exactly 0.5 each when paired)."""
        return (self.wins[player] + self.draws / 2) / self.games if self.games else float("nan")

    def __str__(self) -> str:
        values = {
            "games": self.games,
            "a": self.names[0],
            "b": self.names[1],
            "a_won": self.wins[0],
            "b_won": self.wins[1],
            "a_rate": f"{self.win_rate(0):.1%}",
            "b_rate": f"{self.win_rate(1):.1%}",
            "draws": self.draws,
        }
        if self.paired:
            pairs = self.games // 2
            # TRANSLATORS: {pairs} starts, each played twice with the seats swapped (game pairs); {a} and {b}
            # are the players' names, {a_rate} their share of the games ("95.0%"); English says "starts" for one too
            text = ngettext(
                "{games} games ({pairs} paired starts): {a} won {a_won} ({a_rate}), {b} won {b_won} ({b_rate}), "
                "draws {draws}",
                "{games} games ({pairs} paired starts): {a} won {a_won} ({a_rate}), {b} won {b_won} ({b_rate}), "
                "draws {draws}",
                pairs,
            )
            return text.format(pairs=pairs, **values)
        # TRANSLATORS: {a} and {b} are the players' names, {a_rate} their share of the games ("95.0%");
        # English says "games" for one game too
        text = ngettext(
            "{games} games: {a} won {a_won} ({a_rate}), {b} won {b_won} ({b_rate}), draws {draws}",
            "{games} games: {a} won {a_won} ({a_rate}), {b} won {b_won} ({b_rate}), draws {draws}",
            self.games,
        )
        return text.format(**values)


def tournament(
    game: Game,
    player_a: Callable,
    player_b: Callable,
    games: int = 100,
    seed: int | None = None,
    start: Callable | None = None,
    swap_seats: bool = True,
    keep_records: bool = False,
    progress: bool = False,
    paired: bool = True,
) -> TournamentResult:
    """Play `games` games between two players and count the results.

    `start(game, rng)` chooses a start state (default: the game's `initial_state()`; use
    `start=random_start()` for the game's own random starts). With `paired` (the default)
    every start is played twice with the seats swapped, player_a moving first in the first
    game of each pair, so the luck of the start cancels exactly; `games` must then be even.
    Without pairing, each game draws its own start, and with `swap_seats` the players take
    turns at moving first (player_a starts game 0). `swap_seats=False` (player_a always
    moves first) switches pairing off.
    """
    require_game_methods(game)
    _check_players([player_a, player_b])
    games = check_int(games, "games", minimum=1)
    if start is not None and not callable(start):
        raise TypeError(f"start must be None or a function start(game, rng) -> state, got {start!r}")
    swap_seats, keep_records = check_bool(swap_seats, "swap_seats"), check_bool(keep_records, "keep_records")
    progress, paired = check_bool(progress, "progress"), check_bool(paired, "paired")
    pair = paired and swap_seats
    if pair and games % 2:
        raise ValueError(
            f"games must be even with paired starts (each start is played twice, seats swapped), got {games}; "
            "pass an even number, or paired=False"
        )
    rng = np.random.default_rng(check_seed(seed))
    result = TournamentResult((player_name(player_a), player_name(player_b)), paired=pair)
    rounds: Any = range(games)
    if progress:
        from tqdm.auto import tqdm

        # TRANSLATORS: the label of a progress bar: the two players' names
        rounds = tqdm(rounds, desc=_("{first} vs {second}").format(first=result.names[0], second=result.names[1]))
    s: State | None = None
    for i in rounds:
        if pair:
            a_seat = i % 2
            if a_seat == 0:
                s = start(game, rng) if start else None
        else:
            a_seat = 1 if (swap_seats and i % 2) else 0
            s = start(game, rng) if start else None
        seated = [player_a, player_b] if a_seat == 0 else [player_b, player_a]
        rec = play_game(game, seated, s)
        result.games += 1
        for who, seat in ((0, a_seat), (1, 1 - a_seat)):
            result.seat_games[who][seat] += 1
            if rec.winner == seat:
                result.wins[who] += 1
                result.seat_wins[who][seat] += 1
        if rec.winner is None:
            result.draws += 1
        if pair:
            points = 0.5 if rec.winner is None else float(rec.winner == a_seat)
            if a_seat == 0:
                result.pair_scores.append(points)
            else:
                result.pair_scores[-1] += points
        if keep_records:
            result.records.append(rec)
    return result
