"""Generalised Nim: the university project's game (one pile, per-player move budgets, any win rule).

Two players take stones from one pile. Each player has their *own* moves, given as a dict
{stones taken: how often this move may be used}, with `math.inf` for "as often as you
like". A win condition decides the game: it is called on the state right after a move
(`state.board` is the number of stones left) and returns True when the player who just
moved has won. When the player to move has no legal move left the game is a draw (value 0).
Values are therefore -1, 0 or +1, from player 0's (the project's `:P1`) point of view.

Decisions the project leaves open, made here and documented:

* A move may not take more stones than are on the board (you cannot take stones that are
  not there), so the board never goes negative and the project's `board <= 0` win rule
  means "took the last stone".
* The start position is not judged by the win condition: nobody has moved yet.
* "No moves left" means the player *to move* has no legal move (budget used up, or every
  remaining move is larger than the board); that is a draw.

The module also holds the small algorithms the chapter compares: the project's MinMax with
and without its dictionary of known states (counting the calls), the project's AlphaBeta
pseudocode ported literally (it has two bugs, see `seed_alphabeta_literal`), and Sprague-Grundy
numbers for the impartial special case.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..protocol import Game, State, check_game, illegal_move
from ..solve import solve

INF = math.inf
Budgets = tuple  # per player: a tuple of (stones taken, uses left), sorted by stones taken


@dataclass(frozen=True)
class GNimState:
    """A position: stones left, each player's remaining budgets, who moves, and whether the
    player who just moved has won (decided by the win condition when the move was made)."""

    board: int
    budgets: tuple  # (budgets of player 0, budgets of player 1)
    to_move: int = 0
    won: bool = False

    def moves_left(self, player: int) -> dict[int, float]:
        """Player `player`'s remaining budget as a dict {stones taken: uses left}."""
        return dict(self.budgets[player])

    def __repr__(self) -> str:
        def show(b):
            return "{" + ", ".join(f"{k}: {'inf' if v == INF else v}" for k, v in b) + "}"

        return (
            f"GNimState(board={self.board}, P1={show(self.budgets[0])}, "
            f"P2={show(self.budgets[1])}, to_move={self.to_move}, won={self.won})"
        )


def check_board(board: Any) -> int:
    """Validate the number of stones: a whole number >= 1."""
    if isinstance(board, bool) or not isinstance(board, (int, np.integer)):
        raise TypeError(f"board must be a whole number of stones >= 1, got {board!r}")
    if board < 1:
        raise ValueError(f"board must be a whole number of stones >= 1 (a non-empty pile), got {board!r}")
    return int(board)


def check_budget(moves: Any, who: str = "moves") -> Budgets:
    """Validate one player's moves {stones taken: uses}: keys whole numbers >= 1, values
    whole numbers >= 0 or math.inf. Returns the hashable form, sorted by stones taken."""
    if not isinstance(moves, Mapping):
        raise TypeError(f"{who} must be a dict {{stones taken: uses}}, such as {{1: math.inf, 2: 3}}; got {moves!r}")
    out = []
    for take, uses in moves.items():
        if isinstance(take, bool) or not isinstance(take, (int, np.integer)) or take < 1:
            raise ValueError(f"{who}: a move must take a whole number >= 1 of stones, got {take!r}")
        if isinstance(uses, bool):
            raise TypeError(f"{who}: the uses of move {take} must be a count >= 0 or math.inf, got {uses!r}")
        if isinstance(uses, (int, np.integer)):
            if uses < 0:
                raise ValueError(f"{who}: the uses of move {take} must be a count >= 0 or math.inf, got {uses!r}")
            uses = int(uses)
        elif isinstance(uses, float) and uses == INF:
            uses = INF
        else:
            raise TypeError(
                f"{who}: the uses of move {take} must be a count >= 0 (a whole number) or math.inf, got {uses!r}"
            )
        out.append((int(take), uses))
    return tuple(sorted(out))


def took_last(state: GNimState) -> bool:
    """The project's example win condition: the player who just moved took the last stone."""
    return state.board <= 0


class GeneralizedNim:
    """The project's game on the `Game` protocol. A move is the number of stones taken.

    `moves` is one dict used by both players, or a pair [moves of player 0, moves of player 1].
    `win(state)` is called right after each move and must return True or False (default:
    `took_last`, the project's `board <= 0`).
    """

    def __init__(self, board: int, moves: Mapping | Sequence[Mapping], win: Callable[[GNimState], bool] | None = None):
        self.board = check_board(board)
        if isinstance(moves, Mapping):
            pair = (check_budget(moves, "moves"),) * 2
        elif isinstance(moves, (list, tuple)) and len(moves) == 2:
            pair = (check_budget(moves[0], "moves of player 0"), check_budget(moves[1], "moves of player 1"))
        else:
            raise TypeError(
                "moves must be one dict {stones taken: uses} for both players, or a list of "
                f"two such dicts (player 0's, player 1's); got {moves!r}"
            )
        win = took_last if win is None else win
        if not callable(win):
            raise TypeError(f"win must be a function of the state returning True or False, got {win!r}")
        self.budgets = pair
        self.win = win

    def __repr__(self) -> str:
        return f"GeneralizedNim(board={self.board}, moves={[dict(b) for b in self.budgets]})"

    def initial_state(self) -> GNimState:
        return GNimState(self.board, self.budgets, 0, False)

    def to_move(self, state: GNimState) -> int:
        return state.to_move

    def legal_moves(self, state: GNimState) -> tuple:
        if state.won:
            return ()
        return tuple(take for take, uses in state.budgets[state.to_move] if uses > 0 and take <= state.board)

    def play(self, state: GNimState, move: Any) -> GNimState:
        legal = self.legal_moves(state)
        if isinstance(move, bool) or move not in legal:
            raise illegal_move(move, state, legal)
        p = state.to_move
        mine = tuple((t, u - 1 if t == move else u) for t, u in state.budgets[p])
        budgets = (mine, state.budgets[1]) if p == 0 else (state.budgets[0], mine)
        after = GNimState(state.board - move, budgets, 1 - p, False)
        return GNimState(after.board, budgets, 1 - p, self._judge(after))

    def _judge(self, after: GNimState) -> bool:
        """Ask the win condition about `after`; wrap its failures in a clear error."""
        try:
            verdict = self.win(after)
        except Exception as exc:
            raise ValueError(f"the win condition raised {type(exc).__name__}: {exc} on state {after!r}") from exc
        if not isinstance(verdict, (bool, np.bool_)):
            raise TypeError(
                f"the win condition must return True or False, got {verdict!r} "
                f"({type(verdict).__name__}) on state {after!r}"
            )
        return bool(verdict)

    def is_terminal(self, state: GNimState) -> bool:
        return state.won or not self.legal_moves(state)

    def utility(self, state: GNimState, player: int) -> float:
        if not self.is_terminal(state):
            raise ValueError(f"utility is defined only at the end of the game, not at {state!r}")
        if not state.won:
            return 0.0  # the player to move has no moves left: a draw
        return 1.0 if player == 1 - state.to_move else -1.0


# --- the project's MinMax, with and without its dictionary of known states ------------------


@dataclass(frozen=True)
class MinMaxCount:
    """The value of a position (player 0's view) and how much work finding it took."""

    value: float
    calls: int  # how often the function was entered (nodes visited)
    stored: int  # states in the memo dict at the end (0 without memo)


def minmax_counted(game: Game, state: State | None = None, memo: bool = True) -> MinMaxCount:
    """The project's MinMax (max at player 0, min at player 1, utility at leaves), counting calls
    to show what the project's dict of solved states (`gameStates`, used when `memo=True`) saves."""
    check_game(game)
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


# --- the project's AlphaBeta pseudocode, ported literally ---------------------------------------


def seed_alphabeta_literal(game: Game, state: State, alpha: float = -INF, beta: float = INF) -> float:
    """The project's AlphaBeta pseudocode, line by line, its two bugs kept on purpose (chapter 5
    finds and explains them; `fixed_alphabeta` repairs them). Use it only to study the bugs."""
    if game.is_terminal(state):
        return game.utility(state, 0)
    children = [game.play(state, m) for m in game.legal_moves(state)]
    if game.to_move(state) == 0:
        for child in children:
            value = max(alpha, seed_alphabeta_literal(game, child, alpha, beta))
            if value >= beta:
                break
        alpha = max(alpha, value)
        return alpha
    for child in children:
        value = min(beta, seed_alphabeta_literal(game, child, alpha, beta))
        if alpha >= value:
            break
        beta = min(beta, value)
    return beta


def fixed_alphabeta(game: Game, state: State, alpha: float = -INF, beta: float = INF) -> float:
    """The project's AlphaBeta with both bugs repaired: MAX raises alpha inside the loop, and a
    cutoff returns the bound that caused it. Exact when the value lies inside (alpha, beta),
    otherwise a bound on the correct side; with (-inf, inf) it equals minimax."""
    if game.is_terminal(state):
        return game.utility(state, 0)
    children = [game.play(state, m) for m in game.legal_moves(state)]
    if game.to_move(state) == 0:
        for child in children:
            value = max(alpha, fixed_alphabeta(game, child, alpha, beta))
            if value >= beta:
                return beta
            alpha = value
        return alpha
    for child in children:
        value = min(beta, fixed_alphabeta(game, child, alpha, beta))
        if alpha >= value:
            return alpha
        beta = value
    return beta


def seed_alphabeta_max_repaired(game: Game, state: State, alpha: float = -INF, beta: float = INF) -> float:
    """The literal port with only its MAX branch repaired (alpha raised inside the loop).

    Shows that the MIN branch has a bug of its own: now that alpha rises, MIN nodes cut off,
    and a cutoff returns the stale beta instead of a value <= alpha. Use it only to study the bug.
    """
    if game.is_terminal(state):
        return game.utility(state, 0)
    children = [game.play(state, m) for m in game.legal_moves(state)]
    if game.to_move(state) == 0:
        for child in children:
            value = max(alpha, seed_alphabeta_max_repaired(game, child, alpha, beta))
            if value >= beta:
                break
            alpha = value  # the one added line
        alpha = max(alpha, value)
        return alpha
    for child in children:  # the MIN branch exactly as the project wrote it
        value = min(beta, seed_alphabeta_max_repaired(game, child, alpha, beta))
        if alpha >= value:
            break
        beta = min(beta, value)
    return beta


def small_games(
    max_board: int = 7, takes: Iterable[int] = (1, 2, 3), budget_choices: Iterable[float] = (1, 2, INF)
) -> list[GeneralizedNim]:
    """A family of small games for exhaustive checks: every board up to `max_board`, and every
    pair of move sets drawn from `takes` with budgets from `budget_choices`, two moves each,
    with the project's win rule (take the last stone)."""
    takes = sorted(set(takes))
    budget_choices = tuple(budget_choices)
    dicts = [
        {a: u, b: w}
        for i, a in enumerate(takes)
        for b in takes[i + 1 :]
        for u in budget_choices
        for w in budget_choices
    ]
    return [GeneralizedNim(n, [d0, d1]) for n in range(1, max_board + 1) for d0 in dicts for d1 in dicts]


def find_counterexample(games: Iterable[GeneralizedNim], algorithm: Callable = seed_alphabeta_literal):
    """The first (game, state, algorithm's value, minimax value) where `algorithm` is wrong,
    looking at every reachable position of each game in turn; None when it is always right."""
    for game in games:
        values = solve(game)
        for s in sorted(values, key=lambda s: (s.board, s.to_move, repr(s))):
            got = algorithm(game, s)
            if got != values[s]:
                return game, s, got, values[s]
    return None


# --- Sprague-Grundy numbers (impartial games only) -----------------------------------------------


def mex(values: Iterable[int]) -> int:
    """Minimum excludant: the smallest whole number >= 0 not among `values`."""
    seen = set(values)
    m = 0
    while m in seen:
        m += 1
    return m


def grundy_numbers(moves: Iterable[int], upto: int) -> list[int]:
    """Grundy numbers 0..upto of the one-pile subtraction game with unlimited `moves`
    (normal play: whoever cannot move loses). g(n) = mex{g(n - m) : m <= n}; g(n) = 0 exactly
    at the positions where the player to move loses."""
    moves = sorted(set(moves))
    if not moves or any(isinstance(m, bool) or not isinstance(m, (int, np.integer)) or m < 1 for m in moves):
        raise ValueError(f"moves must be whole numbers >= 1, got {moves!r}")
    if isinstance(upto, bool) or not isinstance(upto, (int, np.integer)) or upto < 0:
        raise ValueError(f"upto must be a whole number >= 0, got {upto!r}")
    g: list[int] = []
    for n in range(upto + 1):
        g.append(mex(g[n - m] for m in moves if m <= n))
    return g


def sum_is_lost(piles: Sequence[int], moves: Iterable[int]) -> bool:
    """Sprague-Grundy for a sum of piles, each a subtraction game with the same `moves`:
    the player to move loses exactly when the XOR of the piles' Grundy numbers is 0."""
    g = grundy_numbers(moves, max(piles))
    x = 0
    for p in piles:
        x ^= g[p]
    return x == 0
