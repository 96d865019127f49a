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
from functools import lru_cache
from typing import Any

import numpy as np

from ..protocol import GameBase, WireError, check_int, check_player, is_int, kind_name
from ..wire import json_int, json_list, json_player, refuse, show

__all__ = [
    "GNimState",
    "GeneralizedNim",
    "WinCondition",
    "check_board",
    "check_move_budgets",
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


def check_move_budgets(moves: Any, who: str = "moves") -> Budget:
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


def _is_budget_form(data: Any) -> bool:
    """True for a budget that can stand in a pair [player 0's, player 1's]: an object, or a list of
    [stones taken, uses] pairs (a list of plain stone counts such as [1, 2] reads as one pair)."""
    return isinstance(data, dict) or (isinstance(data, list) and all(isinstance(item, list) for item in data))


def _budget_from_json(data: Any, who: str) -> dict[int, float]:
    """One budget from its JSON forms: [1, 2, 4] (unlimited), [[1, null], [2, 3]] or {"1": null, "2": 3}."""
    allowed = 'a list of stones taken [1, 2, 4], of pairs [[1, null], [2, 3]], or an object {"1": null, "2": 3}'
    if isinstance(data, dict):
        pairs = []
        for key, uses in data.items():
            if not (isinstance(key, str) and key.isascii() and key.isdigit() and len(key) <= 18) and not is_int(key):
                raise ValueError(f'{who}: a key is the number of stones taken, such as "2"; got {key!r}')
            pairs.append((int(key), uses))
    elif isinstance(data, list):
        pairs = []
        for item in data:
            if is_int(item):
                pairs.append((item, None))
            elif isinstance(item, list) and len(item) == 2:
                pairs.append((item[0], item[1]))
            else:
                raise TypeError(f"{who} must be {allowed}; got the item {item!r} in {data!r}"[:300])
    else:
        raise TypeError(f"{who} must be {allowed}; got {_kind(data)}"[:300])
    budget: dict[int, float] = {}
    for take, uses in pairs:
        if not is_int(take):
            raise TypeError(f"{who}: the stones taken must be a whole number >= 1, got {_kind(take)}")
        if take in budget:
            raise ValueError(f"{who}: the move {take} is given twice")
        if uses is not None and not is_int(uses):
            raise TypeError(
                f"{who}: the uses of move {take} must be a whole number >= 0 or null (unlimited), got {_kind(uses)}"
            )
        budget[int(take)] = math.inf if uses is None else uses
    return budget


#: Games with at most this many positions are decoded exactly: a state must be among them.
MAX_EXACT_POSITIONS = 5_000


@lru_cache(maxsize=32)
def _reachable_states(game: GeneralizedNim) -> frozenset | None:
    """Every position of `game` (None when there are more than MAX_EXACT_POSITIONS: then the decoder
    checks what the uses left can tell). Keyed by the game, which is equal exactly for equal rules."""
    start = game.initial_state()
    seen, frontier = {start}, [start]
    while frontier:
        state = frontier.pop()
        for move in game.legal_moves(state):
            child = game.play(state, move)
            if child not in seen:
                if len(seen) >= MAX_EXACT_POSITIONS:
                    return None
                seen.add(child)
                frontier.append(child)
    return frozenset(seen)


def took_last(state: GNimState) -> bool:
    """The project's example win condition: the player who just moved took the last stone."""
    return state.board <= 0


class GeneralizedNim(GameBase[GNimState, int]):
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
            one = check_move_budgets(moves, "moves")
            pair = (one, one)
        elif isinstance(moves, (list, tuple)) and len(moves) == 2:
            pair = (
                check_move_budgets(moves[0], "moves of player 0"),
                check_move_budgets(moves[1], "moves of player 1"),
            )
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
        """The game from JSON parameters: `board` (stones, >= 1), `moves` and `first` (0 or 1; default 0).
        The win condition is always `took_last`.

        `moves` is one budget for both players or a list of two budgets [player 0's, player 1's]; a
        budget is a list of stones one may take, each as often as one likes ([1, 2, 4]), a list of
        [stones taken, uses or null for unlimited] pairs ([[1, null], [2, 3]]), or an object
        {"stones taken": uses or null} ({"1": null, "2": 3})."""
        if not isinstance(params, Mapping):
            raise TypeError(f"GeneralizedNim's parameters must be an object, got {_kind(params)}")
        unknown = sorted(str(k) for k in set(params) - {"board", "moves", "first"})
        if unknown:
            raise ValueError(
                f"GeneralizedNim has no parameter {', '.join(unknown)}; its parameters: board, moves, first"
            )
        missing = [k for k in ("board", "moves") if k not in params]
        if missing:
            raise ValueError(
                f"GeneralizedNim needs the parameter(s) {', '.join(missing)}, e.g. "
                '{"board": 13, "moves": [1, 2, 4]} (first is optional, default 0)'
            )
        moves = params["moves"]
        if isinstance(moves, list) and len(moves) == 2 and all(_is_budget_form(b) for b in moves):
            built: Any = [
                _budget_from_json(moves[0], "moves of player 0"),
                _budget_from_json(moves[1], "moves of player 1"),
            ]
        else:
            built = _budget_from_json(moves, "moves")
        return cls(params["board"], built, first=params.get("first", 0))

    def state_to_json(self, state: GNimState) -> dict:
        budgets = [[[take, None if uses == math.inf else int(uses)] for take, uses in b] for b in state.budgets]
        return {"board": state.board, "budgets": budgets, "to_move": state.to_move, "won": state.won}

    def state_from_json(self, data: Any) -> GNimState:
        """{"board", "budgets", "to_move", "won"}: the stones left (0..board), each player's budget with
        the start's moves in the start's order and uses between 0 and the start's (null for unlimited,
        exactly where the start has it), and a position consistent with the moves those uses record."""
        what = "GeneralizedNim: the state"
        if not isinstance(data, dict) or set(data) != {"board", "budgets", "to_move", "won"}:
            raise refuse(what, 'an object with exactly the fields "board", "budgets", "to_move", "won"', data)
        board = json_int(data["board"], f"{what}'s board", minimum=0, maximum=self.board, error=WireError)
        to_move = json_player(data["to_move"], f"{what}'s to_move")
        won = data["won"]
        if not isinstance(won, bool):
            raise refuse(f"{what}'s won", "true or false", won)
        lists = json_list(data["budgets"], f"{what}'s budgets", "a list of two budgets", 2, WireError)
        budgets = tuple(self._budget_from_json(b, p, f"{what}'s budget of player {p}") for p, b in enumerate(lists))
        state = GNimState(board, (budgets[0], budgets[1]), to_move, won)
        problem = self._impossible(state)
        reachable = _reachable_states(self)
        if not problem and reachable is not None and state not in reachable:
            problem = "no sequence of legal moves from the start leads to it"
        if problem:
            raise WireError(f"{what} {show(data, 160)} cannot occur: {problem}")
        return state

    def _budget_from_json(self, data: Any, player: int, what: str) -> Budget:
        start = self.budgets[player]
        allowed = (
            f"a list of {len(start)} pairs [stones taken, uses] with the stones {[t for t, _ in start]} in this order"
        )
        items = json_list(data, what, allowed, len(start), WireError)
        out = []
        for (take, uses0), item in zip(start, items):
            t, u = json_list(item, f"{what}'s move {take}", "a pair [stones taken, uses]", 2, WireError)
            json_int(t, f"{what}'s move {take}", minimum=take, maximum=take, error=WireError)
            if uses0 == math.inf:
                if u is not None:
                    raise refuse(f"{what}'s uses of move {take}", "null (unlimited, as at the start)", u)
                out.append((take, math.inf))
            else:
                out.append((take, json_int(u, f"{what}'s uses of move {take}", 0, int(uses0), WireError)))
        return tuple(out)

    def _impossible(self, state: GNimState) -> str:
        """Why `state` cannot occur in this game ('' when it can, as far as the uses left can tell)."""
        start = self.initial_state()
        if state == start:
            return ""
        if state.board == self.board or (
            state.budgets == start.budgets and all(all(u != math.inf for _, u in b) for b in start.budgets)
        ):
            return "no stone is taken, yet it is not the start position"
        used = [
            sum(int(u0 - u) for (_, u0), (_, u) in zip(b0, b) if u0 != math.inf)
            for b0, b in zip(start.budgets, state.budgets)
        ]
        stones = sum(
            t * int(u0 - u)
            for b0, b in zip(start.budgets, state.budgets)
            for (t, u0), (_, u) in zip(b0, b)
            if u0 != math.inf
        )
        extra = (self.board - state.board) - stones  # stones taken by moves of unlimited use
        if extra < 0:
            return f"the uses spent take {stones} stones, but only {self.board - state.board} are gone"
        unlimited = [any(u == math.inf for _, u in b) for b in start.budgets]
        f = self.first
        if extra == 0:  # every move is counted by the uses: the turns must alternate from the first player
            if used[f] - used[1 - f] not in (0, 1):
                return f"player {f} starts, yet the players made {used[0]} and {used[1]} moves"
            expected = f if used[f] == used[1 - f] else 1 - f
            if state.to_move != expected:
                return f"after {used[0]} and {used[1]} moves player {expected} is to move, not {state.to_move}"
        elif not any(unlimited):
            return f"{extra} stones are gone that no use of a move explains"
        if state.won != self._judge(GNimState(state.board, state.budgets, state.to_move, False)):
            return f"the win condition says won={not state.won} for this position"
        return ""

    def move_to_json(self, move: int) -> int:
        return int(move)

    def move_from_json(self, data: Any) -> int:
        return json_int(data, "GeneralizedNim: a move (stones taken)")

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
            raise self.refuse(state, move, legal, "a whole number of stones")
        if move not in legal:
            raise self.refuse(state, move, legal)
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
