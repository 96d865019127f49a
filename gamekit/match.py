"""Playing games: one match with its full course, random playouts, and tournaments."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from .players import player_name
from .protocol import Game, IllegalMoveError, State, check_game


@dataclass(frozen=True)
class GameRecord:
    """The full course of one game: every state, every move, who made it, and the result."""

    states: tuple  # the start state first, the final state last
    moves: tuple
    movers: tuple  # movers[i] made moves[i]
    winner: int | None  # 0, 1, or None for a draw
    utilities: tuple  # (utility for player 0, utility for player 1) at the end
    names: tuple = ("player 0", "player 1")

    @property
    def length(self) -> int:
        return len(self.moves)

    def __str__(self) -> str:
        result = "draw" if self.winner is None else f"{self.names[self.winner]} (player {self.winner}) wins"
        return f"{self.length} moves, {result}"


def play_game(
    game: Game,
    players: Sequence[Callable],
    state: State | None = None,
    max_moves: int = 100_000,
    names: Sequence[str] | None = None,
) -> GameRecord:
    """Let players[0] and players[1] play from `state` (default: the start) to the end."""
    check_game(game)
    if len(players) != 2:
        raise ValueError(f"a game needs exactly two players, got {len(players)}")
    s = game.initial_state() if state is None else state
    names = tuple(names) if names else tuple(player_name(p) for p in players)
    states, moves, movers = [s], [], []
    while not game.is_terminal(s):
        if len(moves) >= max_moves:
            raise RuntimeError(f"the game did not end within {max_moves} moves")
        who = game.to_move(s)
        move = players[who](game, s)
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


def random_start(low: int = 20, high: int = 50) -> Callable[[Game, np.random.Generator], State]:
    """A start-state chooser for subtraction games: n uniform in low..high (inclusive)."""
    if low > high:
        raise ValueError(f"low must not exceed high, got {low}..{high}")

    def choose(game: Game, rng: np.random.Generator) -> State:
        return game.state(int(rng.integers(low, high + 1)), 0)

    choose.__name__ = f"random_start({low}..{high})"
    return choose


def playout(
    game: Game, player1: Callable, player2: Callable, seed: int | None = None, low: int = 20, high: int = 50
) -> GameRecord:
    """The source's playout: a random start in low..high, player1 moves first."""
    rng = np.random.default_rng(seed)
    return play_game(game, [player1, player2], random_start(low, high)(game, rng))


@dataclass
class TournamentResult:
    """Results of many games between two players, counted per player and per seat."""

    names: tuple
    games: int = 0
    wins: list = field(default_factory=lambda: [0, 0])
    draws: int = 0
    # seat_wins[i][seat]: wins of player i when sitting in `seat` (0 = moves first)
    seat_wins: list = field(default_factory=lambda: [[0, 0], [0, 0]])
    seat_games: list = field(default_factory=lambda: [[0, 0], [0, 0]])
    records: list = field(default_factory=list)

    def win_rate(self, player: int = 0) -> float:
        return self.wins[player] / self.games if self.games else float("nan")

    def __str__(self) -> str:
        a, b = self.names
        return (
            f"{self.games} games: {a} won {self.wins[0]} ({self.win_rate(0):.1%}), "
            f"{b} won {self.wins[1]} ({self.win_rate(1):.1%}), draws {self.draws}"
        )


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
) -> TournamentResult:
    """Play `games` games between two players and count the results.

    With `swap_seats` the players take turns at moving first (player_a starts game 0).
    `start(game, rng)` chooses each game's start state (default: the game's own start).
    """
    if isinstance(games, bool) or not isinstance(games, int) or games < 1:
        raise ValueError(f"games must be a positive whole number, got {games!r}")
    rng = np.random.default_rng(seed)
    result = TournamentResult((player_name(player_a), player_name(player_b)))
    rounds = range(games)
    if progress:
        from tqdm.auto import tqdm

        rounds = tqdm(rounds, desc=f"{result.names[0]} vs {result.names[1]}")
    for i in rounds:
        a_seat = 1 if (swap_seats and i % 2) else 0
        seated = [player_a, player_b] if a_seat == 0 else [player_b, player_a]
        s = start(game, rng) if start else None
        rec = play_game(game, seated, s)
        result.games += 1
        for who, seat in ((0, a_seat), (1, 1 - a_seat)):
            result.seat_games[who][seat] += 1
            if rec.winner == seat:
                result.wins[who] += 1
                result.seat_wins[who][seat] += 1
        if rec.winner is None:
            result.draws += 1
        if keep_records:
            result.records.append(rec)
    return result
