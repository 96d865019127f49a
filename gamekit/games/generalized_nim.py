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
* Who starts is a parameter (`first`, the project's order of `players`); values stay from
  player 0's (`:P1`'s) point of view whoever starts.

The module holds the game and what is specific to it: the example win condition `took_last`,
a family of small games for exhaustive checks, and Sprague-Grundy numbers for the impartial
special case. The project's own MinMax and AlphaBeta pseudocode, ported literally, live in
`gamekit.sources.julia_nim`; the correct searches are the generic `gamekit.search` ones.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..protocol import MoveTypeError, check_int, check_player, illegal_move, is_int, kind_name
from ..wire import json_int

__all__ = [
    "GNimState",
    "GeneralizedNim",
    "WinCondition",
    "check_board",
    "check_budget",
    "grundy_numbers",
    "mex",
    "small_games",
    "sum_is_lost",
    "took_last",
]

INF = math.inf
Budget = tuple[tuple[int, float], ...]  # one player's (stones taken, uses left), sorted by stones taken


@dataclass(frozen=True)
class GNimState:
    """A position: stones left, each player's remaining budgets, who moves, and whether the
    player who just moved has won (decided by the win condition when the move was made)."""

    board: int
    budgets: tuple[Budget, Budget]  # (budget of player 0, budget of player 1)
    to_move: int = 0
    won: bool = False

    def moves_left(self, player: int) -> dict[int, float]:
        """Player `player`'s remaining budget as a dict {stones taken: uses left}."""
        return dict(self.budgets[player])

    def __repr__(self) -> str:
        return (
            f"GNimState(board={self.board}, P1={_show_budget(self.budgets[0])}, "
            f"P2={_show_budget(self.budgets[1])}, to_move={self.to_move}, won={self.won})"
        )


WinCondition = Callable[[GNimState], bool]


def _show_budget(budget: Budget) -> str:
    return "{" + ", ".join(f"{k}: {'inf' if v == INF else v}" for k, v in budget) + "}"


def _kind(x: Any) -> str:
    return f"{x!r} ({type(x).__name__})"


def check_board(board: Any) -> int:
    """Validate the number of stones: a whole number >= 1 (int or numpy integer)."""
    return check_int(board, "board (the number of stones)", minimum=1)


def check_budget(moves: Any, who: str = "moves") -> Budget:
    """Validate one player's moves {stones taken: uses}: keys whole numbers >= 1, values
    whole numbers >= 0 or math.inf. Returns the hashable form, sorted by stones taken."""
    if not isinstance(moves, Mapping):
        raise TypeError(
            f"{who} must be a dict {{stones taken: uses}}, such as {{1: math.inf, 2: 3}}; got {_kind(moves)}"
        )
    out: list[tuple[int, float]] = []
    for take, uses in moves.items():
        if not is_int(take):
            raise TypeError(f"{who}: a move is a whole number >= 1 of stones taken (an int), got {_kind(take)}")
        if take < 1:
            raise ValueError(f"{who}: a move must take a whole number >= 1 of stones, got {take!r}")
        if is_int(uses):
            if uses < 0:
                raise ValueError(f"{who}: the uses of move {take} must be a count >= 0 or math.inf, got {uses!r}")
            out.append((int(take), int(uses)))
        elif isinstance(uses, float) and uses == INF:
            out.append((int(take), INF))
        else:
            raise TypeError(
                f"{who}: the uses of move {take} must be a whole number >= 0 (an int) or math.inf, got {_kind(uses)}"
            )
    return tuple(sorted(out))


def took_last(state: GNimState) -> bool:
    """The project's example win condition: the player who just moved took the last stone."""
    return state.board <= 0


class GeneralizedNim:
    """The project's game on the `Game` protocol. A move is the number of stones taken.

    `moves` is one dict used by both players, or a pair [moves of player 0, moves of player 1].
    `win(state)` is called right after each move and must return True or False (default:
    `took_last`, the project's `board <= 0`). `first` is the player who starts (0 = `:P1`,
    1 = `:P2`; the project's "first element of `players`"). Games built with equal arguments
    (the same win function) are equal and hash alike.
    """

    def __init__(
        self,
        board: int,
        moves: Mapping[int, float] | Sequence[Mapping[int, float]],
        win: WinCondition | None = None,
        first: int = 0,
    ):
        self.board = check_board(board)
        if isinstance(moves, Mapping):
            one = check_budget(moves, "moves")
            pair = (one, one)
        elif isinstance(moves, (list, tuple)) and len(moves) == 2:
            pair = (check_budget(moves[0], "moves of player 0"), check_budget(moves[1], "moves of player 1"))
        else:
            raise TypeError(
                "moves must be one dict {stones taken: uses} for both players, or a list of "
                f"two such dicts (player 0's, player 1's); got {_kind(moves)}"
            )
        if not pair[0] and not pair[1]:
            raise ValueError(
                "moves must allow at least one move, e.g. {1: INF, 2: INF}: with no moves for either player "
                "nobody could ever move"
            )
        win = took_last if win is None else win
        if not callable(win):
            raise TypeError(f"win must be a function of the state returning True or False, got {_kind(win)}")
        first = check_player(first, "first (the player who starts: 0 = :P1, 1 = :P2)")
        self.budgets: tuple[Budget, Budget] = pair
        self.win: WinCondition = win
        self.first = int(first)

    def _key(self) -> tuple:
        return (self.board, self.budgets, self.win, self.first)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, GeneralizedNim):
            return NotImplemented
        return type(self) is type(other) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash((kind_name(self, GeneralizedNim),) + self._key())

    def rules(self) -> dict:
        """The rules as JSON-ready data: the exact class, the board, both budgets (None = unlimited),
        the win condition by its qualified name, and who starts (what a saved Q-table records)."""
        win = f"{getattr(self.win, '__module__', '?')}.{getattr(self.win, '__qualname__', repr(self.win))}"
        budgets = [[[k, None if v == math.inf else int(v)] for k, v in b] for b in self.budgets]
        return {
            "game": kind_name(self, GeneralizedNim),
            "board": self.board,
            "moves": budgets,
            "win": win,
            "first": self.first,
        }

    def __repr__(self) -> str:
        a, b = (_show_budget(x) for x in self.budgets)
        moves = a if a == b else f"[{a}, {b}]"
        win = getattr(self.win, "__qualname__", None) or repr(self.win)
        return f"{type(self).__name__}(board={self.board}, moves={moves}, win={win}, first={self.first})"

    # --- JSON parameters and the wire format (gamekit.wire) ---
    @classmethod
    def from_params(cls, params: Mapping[str, Any]) -> GeneralizedNim:
        """The game from JSON parameters: board, moves as [[stones taken, uses or null], ...] per player
        (or one such list for both), first (the win condition is always `took_last`)."""
        unknown = sorted(set(params) - {"board", "moves", "first"})
        if unknown:
            raise ValueError(
                f"GeneralizedNim has no parameter {', '.join(unknown)}; its parameters: board, moves, first"
            )

        def budget(pairs: Any) -> dict[int, float]:
            return {int(t): math.inf if u is None else int(u) for t, u in pairs}

        moves = params.get("moves", [])
        per_player = (  # [[pairs of player 0], [pairs of player 1]] rather than one list of pairs
            isinstance(moves, list)
            and len(moves) == 2
            and all(isinstance(b, list) and all(isinstance(p, list) for p in b) for b in moves)
        )
        built: Any = [budget(moves[0]), budget(moves[1])] if per_player else budget(moves)
        return cls(params.get("board", 0), built, first=params.get("first", 0))

    def state_to_json(self, state: GNimState) -> dict:
        budgets = [[[take, None if uses == math.inf else int(uses)] for take, uses in b] for b in state.budgets]
        return {"board": state.board, "budgets": budgets, "to_move": state.to_move, "won": state.won}

    def state_from_json(self, data: dict) -> GNimState:
        budgets = tuple(tuple((int(t), math.inf if u is None else int(u)) for t, u in b) for b in data["budgets"])
        return GNimState(int(data["board"]), budgets, check_player(data["to_move"], "to_move"), bool(data["won"]))  # type: ignore[arg-type]

    def move_to_json(self, move: int) -> int:
        return int(move)

    def move_from_json(self, data: Any) -> int:
        return json_int(data, "a generalised Nim move (stones taken)")

    def describe_state(self, state: GNimState) -> str:
        def budget(b: Any) -> str:
            return ", ".join(f"take {t}: {'∞' if u == math.inf else u}×" for t, u in b)

        return (
            f"{state.board} stones, player {state.to_move} to move\n"
            f"P0 {budget(state.budgets[0])}\nP1 {budget(state.budgets[1])}"
        )

    def initial_state(self) -> GNimState:
        return GNimState(self.board, self.budgets, self.first, False)

    def to_move(self, state: GNimState) -> int:
        return state.to_move

    def legal_moves(self, state: GNimState) -> tuple[int, ...]:
        if state.won:
            return ()
        return tuple(take for take, uses in state.budgets[state.to_move] if uses > 0 and take <= state.board)

    def play(self, state: GNimState, move: Any) -> GNimState:
        legal = self.legal_moves(state)
        if not is_int(move):
            err = illegal_move(move, state, legal)
            raise MoveTypeError(f"{err} (a move is a whole number of stones, got a {type(move).__name__})")
        if move not in legal:
            raise illegal_move(move, state, legal)
        move = int(move)
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

    def swapped(self) -> GeneralizedNim:
        """The same game with the players' roles exchanged: player 0 gets player 1's moves and
        the other one starts. Its value is minus this game's value (player 0's view)."""
        return GeneralizedNim(self.board, [dict(self.budgets[1]), dict(self.budgets[0])], self.win, 1 - self.first)


def small_games(
    max_board: int = 7, takes: Iterable[int] = (1, 2, 3), budget_choices: Iterable[float] = (1, 2, INF)
) -> list[GeneralizedNim]:
    """A family of small games for exhaustive checks: every board up to `max_board`, and every
    pair of move sets drawn from `takes` with budgets from `budget_choices`, two moves each,
    with the project's win rule (take the last stone) and player 0 starting."""
    check_int(max_board, "max_board", minimum=1)
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


# --- Sprague-Grundy numbers (impartial games only) -----------------------------------------------


def mex(values: Iterable[int]) -> int:
    """Minimum excludant: the smallest whole number >= 0 not among `values`."""
    seen = set(values)
    m = 0
    while m in seen:
        m += 1
    return m


MAX_GRUNDY_UPTO = 1_000_000


def grundy_numbers(moves: Iterable[int], upto: int) -> list[int]:
    """Grundy numbers 0..upto of the one-pile subtraction game with unlimited `moves`
    (normal play: whoever cannot move loses). g(n) = mex{g(n - m) : m <= n}; g(n) = 0 exactly
    at the positions where the player to move loses."""
    if isinstance(moves, (str, bytes)) or not isinstance(moves, Iterable):
        raise TypeError(f"moves must be a list of whole numbers >= 1, such as [1, 2]; got {_kind(moves)}")
    moves = list(moves)
    bad = [m for m in moves if not is_int(m)]
    if bad:
        raise TypeError(f"moves must be whole numbers >= 1 (ints), got {_kind(bad[0])} in {moves!r}")
    if not moves or min(moves) < 1:
        raise ValueError(f"moves must be a non-empty list of whole numbers >= 1, got {moves!r}")
    upto = check_int(upto, "upto", minimum=0, maximum=MAX_GRUNDY_UPTO)
    takes = sorted({int(m) for m in moves})
    g: list[int] = []
    for n in range(int(upto) + 1):
        g.append(mex(g[n - m] for m in takes if m <= n))
    return g


def sum_is_lost(piles: Iterable[int], moves: Iterable[int]) -> bool:
    """Sprague-Grundy for a sum of piles, each a subtraction game with the same `moves`:
    the player to move loses exactly when the XOR of the piles' Grundy numbers is 0."""
    if isinstance(piles, (str, bytes)) or not isinstance(piles, Iterable):
        raise TypeError(f"piles must be a non-empty list of whole numbers >= 0, got {_kind(piles)}")
    piles = list(piles)
    if not piles:
        raise ValueError("piles must be a non-empty list of whole numbers >= 0, got an empty list")
    bad = [p for p in piles if not is_int(p)]
    if bad:
        raise TypeError(f"piles must be whole numbers >= 0 (ints), got {_kind(bad[0])} in {list(piles)!r}")
    if min(piles) < 0:
        raise ValueError(f"piles must be whole numbers >= 0, got {piles!r}")
    g = grundy_numbers(moves, max(int(p) for p in piles))
    x = 0
    for p in piles:
        x ^= g[int(p)]
    return x == 0
