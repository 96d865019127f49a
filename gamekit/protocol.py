"""The `Game` protocol every game of the course implements, and the errors games raise.

An algorithm in gamekit knows a game only through these six methods. States are
immutable and hashable (tuples, named tuples, frozen dataclasses), so they can be
memoised, stored in transposition tables and used as graph nodes without any extra work.
Values reported to the reader are from player 0's (MAX's) point of view unless a
function says otherwise.
"""

from __future__ import annotations

import functools
import math
import sys
from collections.abc import Callable, Sequence
from typing import Any, Generic, Protocol, TypeVar, runtime_checkable

import numpy as np

__all__ = [
    "GameBase",
    "require_game_methods",
    "check_fits",
    "check_state",
    "check_bool",
    "check_int",
    "check_name",
    "check_player",
    "check_probability",
    "check_seed",
    "Game",
    "GameTooDeepError",
    "guard_depth",
    "illegal_move",
    "IllegalMoveError",
    "is_int",
    "Move",
    "MoveTypeError",
    "OPTIONAL_METHODS",
    "game_rules",
    "Player",
    "player_name",
    "State",
    "Winner",
    "WireError",
    "WireMoveError",
]

# States and moves are hashable values (tuples, named tuples, frozen dataclasses). They are typed
# `Any` rather than `Hashable` so that a game whose methods take its own state class (e.g.
# `SubtractionGame.play(state: SubtractionState, ...)`) still satisfies the `Game` protocol:
# method parameters are contravariant, so `Hashable` there would reject every concrete game.
State = Any
Move = Any
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
        """The state after `move`; never mutates `state`.

        Raises:
            IllegalMoveError: `move` is not one of `legal_moves(state)` (the game is over, or the
                rules forbid it); the message names the move, the state and the moves allowed.
            MoveTypeError: `move` is not a move of the game at all (a float, a string or a bool
                where the game wants whole numbers); an `IllegalMoveError` and a `TypeError` too.

        With Nim, one of the course's games (a move takes sticks from one pile):

        >>> from gamekit.games.nim import Nim
        >>> game = Nim([1, 2])
        >>> start = game.initial_state()
        >>> game.play(start, (1, 2))  # take both sticks of pile 1
        NimState(piles=(1, 0), to_move=1)
        >>> start  # unchanged
        NimState(piles=(1, 2), to_move=0)
        >>> game.play(start, (0, 2))  # doctest: +ELLIPSIS
        Traceback (most recent call last):
            ...
        gamekit.protocol.IllegalMoveError: illegal move (0, 2) in state ...; allowed moves: (0, 1), (1, 1), (1, 2)
        >>> game.play(start, (0, 1.0))  # doctest: +ELLIPSIS
        Traceback (most recent call last):
            ...
        gamekit.protocol.MoveTypeError: illegal move (0, 1.0) in state ... (a move is a pair of whole numbers ...)
        """

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
#
#     def rules(self) -> dict:
#         """The game's rules as JSON-ready data; games built alike give equal rules."""
#
# A saved result (a Q-table) records `game_rules(game)` and is loaded only for a game with the
# same rules; a game without `rules` is recorded by its class name only.
OPTIONAL_METHODS = ("random_start", "rules")


def kind_name(obj: Any, home: type) -> str:
    """The name of `obj`'s exact type for its rules: `home`'s short name for the class itself, the
    module-qualified name for anything else (a student's subclass never passes for its parent)."""
    kind = type(obj)
    return home.__name__ if kind is home else f"{kind.__module__}.{kind.__qualname__}"


def game_rules(game: Any) -> dict:
    """What identifies `game` in a saved file: its `rules()` if it offers them, else its class name."""
    rules = getattr(game, "rules", None)
    if callable(rules):
        return dict(rules())
    return {"game": type(game).__qualname__}


class GameTooDeepError(RecursionError):
    """A recursive function met a game deeper than Python's recursion limit; the message names the limit."""


F = TypeVar("F", bound=Callable[..., Any])


def guard_depth(func: F) -> F:
    """Decorate a recursive function (one call per move) so that a game deeper than Python's
    recursion limit raises `GameTooDeepError` naming the limit, not a bare RecursionError."""

    @functools.wraps(func)
    def guarded(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except GameTooDeepError:
            raise
        except RecursionError:
            raise GameTooDeepError(
                f"{func.__name__} recurses once per move, and this game is deeper than Python's recursion "
                f"limit allows (sys.getrecursionlimit() = {sys.getrecursionlimit()}); search with a depth "
                "limit or a smaller start, use gamekit.solve (which iterates), or raise the limit with "
                "sys.setrecursionlimit"
            ) from None

    return guarded  # type: ignore[return-value]


def illegal_move(move: Any, state: Any, legal: Sequence[Any]) -> IllegalMoveError:
    """Build the course's standard error for an illegal move (raise what it returns)."""
    allowed = ", ".join(repr(m) for m in legal) if legal else "none (the game is over)"
    return IllegalMoveError(f"illegal move {move!r} in state {state!r}; allowed moves: {allowed}")


class MoveTypeError(IllegalMoveError, TypeError):
    """An illegal move of the wrong type (a float, a bool, a string where the game wants an int).

    Both an `IllegalMoveError` (the protocol's error for any illegal move) and a `TypeError`.
    """


S = TypeVar("S")
M = TypeVar("M")


class GameBase(Generic[S, M]):
    """What every game of the course shares, once: a value object, and the refusal of a move.

    Subclass it as `class Nim(GameBase[NimState, tuple[int, int]])` so mypy sees the game's state
    and move types, and give `_key()`: the parameters that make the game what it is. Games built
    alike are then equal and hash alike (caches keyed by a game are keyed by its rules), and a
    subclass never equals its parent. `refuse` builds the protocol's error for a move `play` does
    not take (raise what it returns).
    """

    def _key(self) -> tuple:
        raise NotImplementedError(f"{type(self).__name__} must say what makes it the game it is (_key)")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, GameBase):
            return NotImplemented
        return type(self) is type(other) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash((type(self).__module__, type(self).__qualname__, self._key()))

    def refuse(self, state: S, move: Any, legal: Sequence[M], form: str | None = None) -> IllegalMoveError:
        """The error for `move` in `state`: a `MoveTypeError` saying what a move is (`form`, e.g.
        "a whole number") where its type is wrong, else the plain illegal-move error."""
        error = illegal_move(move, state, legal)
        if form is None:
            return error
        return MoveTypeError(f"{error} (a move is {form}, got a {type(move).__name__})")


class WireError(ValueError):
    """JSON data that is not a state (or move) of the game: the wrong type, the wrong shape, or a
    position that cannot occur. The message names the game, the field and what is allowed."""


class WireMoveError(WireError, MoveTypeError):
    """JSON data that is not a move of the game at all: both a `WireError` and a `MoveTypeError`
    (so a referee tells "not a move" from "a move the rules forbid")."""


# --- input checks shared by every public function ------------------------------------------
#
# One rule everywhere: a value of the wrong TYPE is a TypeError, a value of the right type
# outside the allowed range is a ValueError, and both messages say what is allowed. Python
# and numpy integers count as whole numbers; bool, float, str and None do not.


def _int_allowed(minimum: int | None, maximum: int | None) -> str:
    if minimum is not None and maximum is not None:
        return f"a whole number from {minimum} to {maximum}"
    if minimum is not None:
        return f"a whole number >= {minimum}"
    if maximum is not None:
        return f"a whole number <= {maximum}"
    return "a whole number"


def is_int(value: Any) -> bool:
    """True for Python and numpy integers, False for bool (and everything else)."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def check_int(value: Any, name: str, minimum: int | None = None, maximum: int | None = None) -> int:
    """`value` as a Python int, or a TypeError (not a whole number) / ValueError (out of range).

    Accepts int and numpy integers; refuses bool, float (even 3.0), str and None, because
    silently turning them into numbers hides mistakes.
    """
    allowed = _int_allowed(minimum, maximum)
    if not is_int(value):
        raise TypeError(f"{name} must be {allowed}, got {value!r} (a {type(value).__name__})")
    v = int(value)
    if (minimum is not None and v < minimum) or (maximum is not None and v > maximum):
        raise ValueError(f"{name} must be {allowed}, got {v}")
    return v


def check_player(player: Any, name: str = "player") -> Player:
    """Validate a player index: 0 or 1 (int or numpy int), nothing else."""
    if not is_int(player):
        raise TypeError(f"{name} must be 0 or 1, got {player!r} (a {type(player).__name__})")
    if player not in (0, 1):
        raise ValueError(f"{name} must be 0 or 1, got {player!r}")
    return int(player)


def check_probability(value: Any, name: str = "p") -> float:
    """A probability: a real number (int, float or numpy number, not bool) between 0 and 1."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name} must be a probability between 0 and 1 (a number), got {value!r}")
    v = float(value)
    if math.isnan(v) or not 0.0 <= v <= 1.0:
        raise ValueError(f"{name} must be a probability between 0 and 1, got {value!r}")
    return v


def check_bool(value: Any, name: str) -> bool:
    """True or False (numpy bools too), nothing else: 0, 1, "yes" and None are refused."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {value!r} (a {type(value).__name__})")
    return bool(value)


def check_seed(seed: Any, name: str = "seed") -> Any:
    """A random seed: None, a whole number >= 0, or a numpy Generator/SeedSequence (passed on as is)."""
    if seed is None or isinstance(seed, (np.random.Generator, np.random.SeedSequence)):
        return seed
    if not is_int(seed):
        raise TypeError(
            f"{name} must be None, a whole number >= 0 or a numpy Generator, got {seed!r} (a {type(seed).__name__})"
        )
    if seed < 0:
        raise ValueError(f"{name} must be None, a whole number >= 0 or a numpy Generator, got {seed!r}")
    return int(seed)


def check_name(value: Any, name: str = "name") -> str:
    """A display name: a non-empty string."""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a text (str), got {value!r} (a {type(value).__name__})")
    if not value.strip():
        raise ValueError(f"{name} must be a non-empty text, got {value!r}")
    return value


def player_name(player: Any) -> str:
    """A short display name for a player object or function (its `name`, else its `__name__`)."""
    return getattr(player, "name", None) or getattr(player, "__name__", None) or type(player).__name__


def require_game_methods(game: Any) -> None:
    """Raise a TypeError naming the missing methods when `game` lacks one of the protocol's six.

    Only that the methods exist: whether they keep the protocol's promises is what
    `gamekit.testing.check_game` checks."""
    needed = ("initial_state", "to_move", "legal_moves", "play", "is_terminal", "utility")
    missing = [name for name in needed if not callable(getattr(game, name, None))]
    if missing:
        raise TypeError(
            f"{type(game).__name__} is not a Game: it lacks {', '.join(missing)} "
            f"(a game needs all of {', '.join(needed)})"
        )


def check_state(game: Any, state: Any, role: str = "state") -> None:
    """Raise a clear ValueError if `game` does not understand `state` (a state of another game, say).

    The game is asked once about the state, as a search would ask it; whatever it raises
    (IndexError, KeyError, ...) becomes one sentence that says what to pass instead.
    """
    try:
        if not game.is_terminal(state):
            game.legal_moves(state)
            game.to_move(state)
    except (IndexError, KeyError, TypeError, AttributeError, ValueError) as exc:
        raise ValueError(
            f"the {role} {state!r} is not a position of {game!r}: asking the game about it raised "
            f"{type(exc).__name__}: {exc}; pass a state of this game (game.initial_state(), or one reached "
            "with game.play)"
        ) from None


def check_fits(game: Any, state: Any, function: Any, role: str, *args: Any) -> None:
    """Raise a clear ValueError if `function(game, state, *args)` fails on `game` (made for another game?)."""
    if function is None:
        return
    try:
        function(game, state, *args)
    except (IndexError, KeyError, TypeError, AttributeError, ValueError) as exc:
        name = getattr(function, "__name__", repr(function))
        raise ValueError(
            f"{role}={name} does not work on {game!r}: on {state!r} it raised {type(exc).__name__}: {exc}; "
            f"is it written for another game? Pass {'an' if role[0] in 'aeiou' else 'a'} {role} function for this "
            "game (or none)"
        ) from None
