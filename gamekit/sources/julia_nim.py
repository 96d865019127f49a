"""Source 002 (the TU Berlin Julia project on generalised Nim): its MinMax and AlphaBeta
pseudocode, ported literally, bugs included, to show what they compute.

* `source_minmax`: the project's MinMax, with or without its dictionary of known states
  (`gameStates`), counting the calls, so the class can measure what the dictionary saves.
* `source_alphabeta`: the project's AlphaBeta line by line. It has two bugs: its MAX branch
  raises alpha only after the loop (so a MAX node returns the value of its *last* child),
  and its MIN branch breaks before lowering beta (so a cutoff returns the stale beta).
* `source_alphabeta_max_repaired`: the literal port with only the first bug repaired, which
  exposes the second.
* `find_counterexample`: the first position where such a function disagrees with the exact
  values of `gamekit.solve`.

The correct searches are `gamekit.minimax` and `gamekit.alphabeta`; use these ports only to
study the source's errors.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, TypeVar

from ..protocol import Game, State, check_bool, guard_depth, require_game_methods
from ..solve import solve

__all__ = [
    "MinMaxCount",
    "find_counterexample",
    "source_alphabeta",
    "source_alphabeta_max_repaired",
    "source_minmax",
]

INF = math.inf
F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True)
class MinMaxCount:
    """The value of a position (player 0's view) and how much work finding it took."""

    value: float
    calls: int  # how often the function was entered (nodes visited)
    stored: int  # states in the memo dict at the end (0 without memo)


@guard_depth
def source_minmax(game: Game, state: State | None = None, memo: bool = True) -> MinMaxCount:
    """The project's MinMax (max at player 0, min at player 1, utility at leaves), counting calls
    to show what the project's dict of solved states (`gameStates`, used when `memo=True`) saves."""
    require_game_methods(game)
    memo = check_bool(memo, "memo")
    root = game.initial_state() if state is None else state
    known: dict[State, float] = {}
    calls = 0

    def value(s: State) -> float:
        nonlocal calls
        calls += 1
        if memo and s in known:
            return known[s]
        if game.is_terminal(s):
            v = game.utility(s, 0)
        else:
            children = [value(game.play(s, m)) for m in game.legal_moves(s)]
            v = max(children) if game.to_move(s) == 0 else min(children)
        if memo:
            known[s] = v
        return v

    v = value(root)
    return MinMaxCount(v, calls, len(known))


def _check_window(alpha: Any, beta: Any) -> None:
    for name, x in (("alpha", alpha), ("beta", beta)):
        if isinstance(x, bool) or not isinstance(x, (int, float)) or math.isnan(x):
            raise TypeError(f"{name} must be a number (int, float or ±math.inf), got {x!r} ({type(x).__name__})")


@guard_depth
def source_alphabeta(game: Game, state: State, alpha: float = -INF, beta: float = INF) -> float:
    """The project's AlphaBeta pseudocode, line by line, its two bugs kept on purpose (chapter 5
    finds and explains them; `gamekit.alphabeta` is correct). Use it only to study the bugs."""
    _check_window(alpha, beta)
    if game.is_terminal(state):
        return game.utility(state, 0)
    children = [game.play(state, m) for m in game.legal_moves(state)]
    if game.to_move(state) == 0:
        for child in children:
            value = max(alpha, source_alphabeta(game, child, alpha, beta))
            if value >= beta:
                break
        alpha = max(alpha, value)
        return alpha
    for child in children:
        value = min(beta, source_alphabeta(game, child, alpha, beta))
        if alpha >= value:
            break
        beta = min(beta, value)
    return beta


@guard_depth
def source_alphabeta_max_repaired(game: Game, state: State, alpha: float = -INF, beta: float = INF) -> float:
    """The literal port with only its MAX branch repaired (alpha raised inside the loop).

    Shows that the MIN branch has a bug of its own: now that alpha rises, MIN nodes cut off,
    and a cutoff returns the stale beta instead of a value <= alpha. Use it only to study the bug.
    """
    _check_window(alpha, beta)
    if game.is_terminal(state):
        return game.utility(state, 0)
    children = [game.play(state, m) for m in game.legal_moves(state)]
    if game.to_move(state) == 0:
        for child in children:
            value = max(alpha, source_alphabeta_max_repaired(game, child, alpha, beta))
            if value >= beta:
                break
            alpha = value  # the one added line
        alpha = max(alpha, value)
        return alpha
    for child in children:  # the MIN branch exactly as the project wrote it
        value = min(beta, source_alphabeta_max_repaired(game, child, alpha, beta))
        if alpha >= value:
            break
        beta = min(beta, value)
    return beta


Counterexample = tuple[Game, State, float, float]


def find_counterexample(
    games: Iterable[Game], algorithm: Callable[[Game, State], float] = source_alphabeta
) -> Counterexample | None:
    """The first (game, state, algorithm's value, exact value) where `algorithm(game, state)`
    is wrong, looking at every reachable position of each game in turn (in the order of
    `solve`, which lists a position after everything below it); None when it is always right."""
    if not callable(algorithm):
        raise TypeError(f"algorithm must be a function algorithm(game, state) -> value, got {algorithm!r}")
    for game in games:
        values = solve(game)
        for s, v in values.items():
            got = algorithm(game, s)
            if got != v:
                return game, s, got, v
    return None
