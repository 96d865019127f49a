"""Players: anything that, given a game and a state, returns a move.

A player is a callable `player(game, state) -> move`. The classes here carry their own
random generator, seeded through an argument, so every game they play can be replayed.
Plain functions with that signature are players too.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .counting import count_outcomes, outcome_probabilities
from .protocol import Game, Move, State, check_name, check_probability, check_seed, check_state, player_name
from .solve import solve

__all__ = [
    "LossAversePlayer",
    "MixedPlayer",
    "PerfectPlayer",
    "PlayerFn",
    "RandomPlayer",
    "RawCountPlayer",
    "SmartRandomPlayer",
    "player_name",
]

PlayerFn = Callable[[Game, State], Move]


class _PerGame:
    """A table per game, keyed by the game itself (never by id() or repr()).

    Games built alike compare equal (they share answers); a game without value equality is
    held alive by its key, so no freed game's address can be mistaken for it. Unhashable
    games are found by identity in a list that keeps them alive.
    """

    def __init__(self) -> None:
        self._by_game: dict[Any, dict] = {}
        self._unhashable: list[tuple[Any, dict]] = []

    def __call__(self, game: Game) -> dict:
        try:
            return self._by_game.setdefault(game, {})
        except TypeError:
            for known, table in self._unhashable:
                if known is game:
                    return table
            self._unhashable.append((game, {}))
            return self._unhashable[-1][1]


def _no_move_in_finished(game: Game, state: State) -> None:
    """A player asked to move in a finished game (or in a state of another game) gets a clear error."""
    try:
        over = game.is_terminal(state)
    except (IndexError, KeyError, TypeError, AttributeError, ValueError):
        check_state(game, state)
        raise
    if over:
        raise ValueError(f"the game is over in {state!r}; there is no move to choose")


class RandomPlayer:
    """Chooses uniformly among the legal moves."""

    def __init__(self, seed: int | None = None, name: str = "random"):
        self.rng = np.random.default_rng(check_seed(seed))
        self.name = check_name(name)

    def __call__(self, game: Game, state: State) -> Move:
        _no_move_in_finished(game, state)
        moves = game.legal_moves(state)
        return moves[int(self.rng.integers(len(moves)))]


class PerfectPlayer:
    """Plays a move of best exact value (from `solve`); ties go to the first legal move.

    In the subtraction game with moves in ascending order this is the source's optimal
    strategy: the smallest move that produces a red number, and in a red number (where no
    win can be forced) the smallest move, which makes the game last longest.

    The exact values are remembered per game, keyed by the game itself: games built alike
    compare equal (they have the same values), and a game without value equality is held
    alive by the key, so no other game can be mistaken for it. Values found for one start
    are reused for the next (`solve(..., table=...)`), so asking about many starts of one
    game costs a single walk over its positions.
    """

    def __init__(self, name: str = "perfect"):
        self.name = check_name(name)
        self._table = _PerGame()

    def values(self, game: Game, state: State) -> dict[State, float]:
        """Exact values (player 0's view) of every position solved so far in `game`, `state` included."""
        table = self._table(game)
        if state not in table:
            solve(game, state, table=table)
        return table

    def __call__(self, game: Game, state: State) -> Move:
        _no_move_in_finished(game, state)
        table = self.values(game, state)
        moves = game.legal_moves(state)
        child = [table[game.play(state, m)] for m in moves]
        best = max(child) if game.to_move(state) == 0 else min(child)
        return moves[child.index(best)]


class SmartRandomPlayer:
    """The source's random strategy: random, but smart near the end.

    Looking one move ahead: if a move wins at once it takes it (the first such move); else it
    picks uniformly among the moves that do not lose at once (the first legal move if every
    move does). It knows the game only through the protocol. In the subtraction game 3, 5, 11
    this means: reach 0 when possible (n = 3, 5, 11); subtract 3 at n = 4 and at n = 1, 2
    (where every move goes below 0); pick 3 or 5 at random for 6 <= n <= 10; above 11 pick any
    of 3, 5, 11 with probability 1/3. How this compares with the source (seed 000), which
    describes its strategy three times: at 6..10 it plays as the source's code and the source's
    line-by-line explanation of it do (3 or 5), not as its summary says (for n <= 11 either
    reach 0 or subtract 3); above 11 it plays as the source's text says (1/3 each), not as its
    code does (the code tests `n > 5 || n < 11`, which is always true, so it never picks 11
    there). The literal port of the code is `gamekit.sources.r_subtraction.source_next_move_random`.
    """

    def __init__(self, seed: int | None = None, name: str = "random (smart end)"):
        self.rng = np.random.default_rng(check_seed(seed))
        self.name = check_name(name)

    def __call__(self, game: Game, state: State) -> Move:
        me = game.to_move(state)
        moves = game.legal_moves(state)
        safe = []
        for m in moves:
            after = game.play(state, m)
            if not game.is_terminal(after):
                safe.append(m)
            elif game.utility(after, me) > 0:
                return m  # a move that wins at once
            elif game.utility(after, me) == 0:
                safe.append(m)  # a draw is not a loss
        if not safe:
            return moves[0]
        return safe[int(self.rng.integers(len(safe)))]


class MixedPlayer:
    """With probability p plays like `optimal`, otherwise like `other` (the source's mixed strategy)."""

    def __init__(
        self,
        p: float,
        seed: int | None = None,
        optimal: PlayerFn | None = None,
        other: PlayerFn | None = None,
        name: str | None = None,
    ):
        self.p = check_probability(p, "p")
        for role, given in (("optimal", optimal), ("other", other)):
            if given is not None and not callable(given):
                raise TypeError(
                    f"{role} must be a player (a callable player(game, state) -> move) or None, got {given!r}"
                )
        self.rng = np.random.default_rng(check_seed(seed))
        child_seed = int(self.rng.integers(2**32))
        self.optimal = optimal if optimal is not None else PerfectPlayer()
        self.other = other if other is not None else SmartRandomPlayer(seed=child_seed)
        self.name = f"mixed(p={self.p:g})" if name is None else check_name(name)

    def __call__(self, game: Game, state: State) -> Move:
        chosen = self.optimal if self.rng.random() < self.p else self.other
        return chosen(game, state)


# --- chapter 3: players that trust counts of games (the German source's TicTacToe players) ---


class RawCountPlayer:
    """The source's first "optimal" player, as far as its text describes it: it trusts raw counts.

    For each legal move it counts every game below the resulting position (`count_outcomes`)
    and scores the move by the average result of those games for itself, (wins − losses) /
    games: the "centre of mass" (German: *Schwerpunkt*) of the outcomes with every game
    weighted equally. It plays the move of highest score (ties: the first). Every game
    counts the same however deep it lies, which is exactly the flaw the source suspected.
    """

    def __init__(self, name: str = "raw counts"):
        self.name = check_name(name)
        self._memo = _PerGame()

    def scores(self, game: Game, state: State) -> dict[Move, float]:
        """The score of every legal move, in legal-move order."""
        memo = self._memo(game)
        me = game.to_move(state)
        result = {}
        for m in game.legal_moves(state):
            c = count_outcomes(game, game.play(state, m), memo)
            result[m] = (c.wins(me) - c.losses(me)) / c.total
        return result

    def __call__(self, game: Game, state: State) -> Move:
        scores = self.scores(game, state)
        return max(scores, key=lambda m: scores[m])


class LossAversePlayer:
    """The source's corrected player: the move that maximises 1 − P(lose) under random play.

    For each legal move it computes the exact probability that the mover loses if both
    sides then play uniformly at random (`outcome_probabilities`), and plays the move where
    that probability is smallest (ties: the first). Deep losses now weigh less than shallow
    ones, but the opponent is still modelled as random, so this is not perfect play.
    """

    def __init__(self, name: str = "1 − P(lose)"):
        self.name = check_name(name)
        self._memo = _PerGame()

    def chances(self, game: Game, state: State) -> dict[Move, Any]:
        """1 − P(lose) for every legal move (exact fractions), in legal-move order."""
        memo = self._memo(game)
        me = game.to_move(state)
        return {m: 1 - outcome_probabilities(game, game.play(state, m), memo).lose(me) for m in game.legal_moves(state)}

    def __call__(self, game: Game, state: State) -> Move:
        chances = self.chances(game, state)
        return max(chances, key=lambda m: chances[m])
