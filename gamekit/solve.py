"""Exact values of every position reachable from a state.

`solve` walks the game graph once, bottom-up, and remembers the value of each position
(memoisation), so a position reached by many move orders is evaluated once. It uses an
explicit stack instead of recursion, so very deep games (a subtraction game from 100,000)
need no special recursion limit. Later chapters reuse it for every game.
"""

from __future__ import annotations

from .protocol import Game, Move, State, check_state, require_game_methods

__all__ = [
    "best_moves",
    "move_values",
    "solve",
]


def solve(game: Game, state: State | None = None, table: dict[State, float] | None = None) -> dict[State, float]:
    """The exact minimax value of every position reachable from `state` (default: the start).

    Values are from player 0's (MAX's) point of view: +1 player 0 wins with best play by
    both sides, -1 player 1 wins, 0 draw (games with other payoffs give values in between).
    `table`, if given, is an earlier result of `solve` for the SAME game: its positions count
    as solved, it is extended in place and returned (so many starts cost one walk in all).
    Raises ValueError if the game graph has a cycle (its values would be undefined).
    """
    require_game_methods(game)
    if table is not None and not isinstance(table, dict):
        raise TypeError(f"table must be None or a dict from an earlier solve of the same game, got {table!r}")
    root = game.initial_state() if state is None else state
    if state is not None and not (table is not None and state in table):
        check_state(game, state)
    values: dict[State, float] = {} if table is None else table
    on_path: set = set()
    stack: list[tuple[State, bool]] = [(root, False)]
    while stack:
        s, children_done = stack.pop()
        if children_done:
            on_path.discard(s)
            child_values = [values[game.play(s, m)] for m in game.legal_moves(s)]
            values[s] = max(child_values) if game.to_move(s) == 0 else min(child_values)
            continue
        if s in values:
            continue
        if s in on_path:
            raise ValueError(f"the game graph has a cycle through {s!r}; solve needs a game that always ends")
        if game.is_terminal(s):
            values[s] = game.utility(s, 0)
            continue
        moves = game.legal_moves(s)
        if not moves:
            raise ValueError(f"{s!r} is not terminal but has no legal moves")
        on_path.add(s)
        stack.append((s, True))
        for m in moves:
            child = game.play(s, m)
            if child not in values:
                stack.append((child, False))
    return values


def move_values(game: Game, state: State, values: dict[State, float] | None = None) -> dict[Move, float]:
    """The value (player 0's view) of each legal move in `state`, in legal-move order."""
    if values is not None and not isinstance(values, dict):
        raise TypeError(f"values must be None or a dict from solve(game, ...), got {values!r}")
    if values is None or state not in values:
        values = solve(game, state)
    return {m: values[game.play(state, m)] for m in game.legal_moves(state)}


def best_moves(game: Game, state: State, values: dict[State, float] | None = None) -> list[Move]:
    """The moves that keep the best value for the player to move (all of them, in order)."""
    mv = move_values(game, state, values)
    sign = 1 if game.to_move(state) == 0 else -1
    best = max(sign * v for v in mv.values())
    return [m for m, v in mv.items() if sign * v == best]
