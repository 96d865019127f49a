"""The `Game` protocol every game of the course implements, and the errors games raise.

An algorithm in gamekit knows a game only through these six methods. States are
immutable and hashable (tuples, named tuples, frozen dataclasses), so they can be
memoised, stored in transposition tables and used as graph nodes without any extra work.
Values reported to the reader are from player 0's (MAX's) point of view unless a
function says otherwise.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any, Protocol, runtime_checkable

State = Hashable
Move = Hashable
Player = int  # 0 = the first player (MAX), 1 = the second player (MIN)
#: Who won a finished game, everywhere in gamekit (`GameRecord.winner`, ...): the player
#: index 0 or 1, or None for a draw. Never a symbol such as "X" or a 1-based number.
Winner = Player | None


class IllegalMoveError(ValueError):
    """A move that the rules do not allow in the given state.

    The message names the move, the state and the moves that *are* allowed.
    """


@runtime_checkable
class Game(Protocol):
    """What a game must offer so that every algorithm of the course can play it."""

    def initial_state(self) -> State:
        """The start position."""

    def to_move(self, state: State) -> Player:
        """0 (first player, MAX) or 1 (second player, MIN)."""

    def legal_moves(self, state: State) -> Sequence[Move]:
        """The moves allowed in `state`, always in the same order (empty when terminal)."""

    def play(self, state: State, move: Move) -> State:
        """The state after `move`; never mutates `state`; raises `IllegalMoveError`."""

    def is_terminal(self, state: State) -> bool:
        """True when the game is over."""

    def utility(self, state: State, player: Player) -> float:
        """At a terminal state: +1 win, -1 loss, 0 draw, for `player`."""


# Optional protocol methods. A game MAY also offer
#
#     def random_start(self, rng: numpy.random.Generator) -> State:
#         """A start position drawn with `rng` (for matches from varied starts)."""
#
# The subtraction game draws n uniformly in 20..50 with player 0 to move, as the source's
# playout does. Match runners call it through `gamekit.match.draw_start`, which falls back to
# `initial_state()` for games without it; no algorithm builds a game's states itself.
OPTIONAL_METHODS = ("random_start",)


class TooDeepError(RecursionError):
    """A recursive function met a game deeper than Python's recursion limit; the message names the limit."""


def illegal_move(move: Any, state: Any, legal: Sequence[Any]) -> IllegalMoveError:
    """Build the course's standard error for an illegal move (raise what it returns)."""
    allowed = ", ".join(repr(m) for m in legal) if legal else "none (the game is over)"
    return IllegalMoveError(f"illegal move {move!r} in state {state!r}; allowed moves: {allowed}")


def check_player(player: Any) -> Player:
    """Validate a player index: 0 or 1, nothing else."""
    if isinstance(player, bool) or player not in (0, 1):
        raise ValueError(f"player must be 0 or 1, got {player!r}")
    return int(player)


def player_name(player: Any) -> str:
    """A short display name for a player object or function (its `name`, else its `__name__`)."""
    return getattr(player, "name", None) or getattr(player, "__name__", None) or type(player).__name__


def check_game(game: Any) -> None:
    """Raise a TypeError naming the missing methods when `game` does not follow the protocol."""
    needed = ("initial_state", "to_move", "legal_moves", "play", "is_terminal", "utility")
    missing = [name for name in needed if not callable(getattr(game, name, None))]
    if missing:
        raise TypeError(
            f"{type(game).__name__} is not a Game: it lacks {', '.join(missing)} "
            f"(a game needs all of {', '.join(needed)})"
        )
