"""Nim with any number of piles, in normal play and in misère play.

A move takes one or more sticks from one pile. In normal play whoever takes the last stick
wins; in misère play (German: *Misère-Nim*, as in the Q-learning source) whoever takes the
last stick loses. Bouton's rule gives the exact outcome of every position, which makes Nim
the course's oracle for search and learning.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import reduce
from operator import xor
from typing import Any, NamedTuple

from ..protocol import GameBase, WireError, check_bool, check_player, is_int, kind_name
from ..wire import json_int, json_ints, json_list, json_player

__all__ = [
    "check_piles",
    "is_p_position",
    "Nim",
    "nim_sum",
    "NimState",
    "parse_piles",
    "winning_nim_moves",
]

#: Limits of the playable game `Nim` (its legal_moves lists one move per stick, so the cost of
#: search grows with the sticks); the pure rules (`nim_sum`, `is_p_position`, ...) have none.
MAX_PILES, MAX_PILE = 100, 10_000


def check_piles(piles: Iterable[int], max_piles: int | None = None, max_pile: int | None = None) -> tuple[int, ...]:
    """Validate piles: a non-empty list of whole numbers >= 0 (within the limits, if given)."""
    if isinstance(piles, (str, bytes)) or not hasattr(piles, "__iter__"):
        raise TypeError(f"piles must be a list of whole numbers >= 0, such as [3, 5, 7]; got {piles!r}")
    piles = list(piles)
    if not piles:
        raise ValueError("piles must not be empty: give at least one pile, such as [3, 5, 7]")
    if max_piles is not None and len(piles) > max_piles:
        raise ValueError(f"at most {max_piles} piles are allowed here, got {len(piles)}")
    for p in piles:
        if not is_int(p):
            raise TypeError(f"every pile must be a whole number >= 0, got {p!r} in {piles!r}")
        if p < 0:
            raise ValueError(f"every pile must be a whole number >= 0, got {p!r} in {piles!r}")
        if max_pile is not None and p > max_pile:
            raise ValueError(f"every pile must be a whole number from 0 to {max_pile} here, got {p!r}")
    return tuple(int(p) for p in piles)


class NimState(NamedTuple):
    piles: tuple
    to_move: int = 0


def nim_sum(piles: Iterable[int]) -> int:
    """The XOR of all pile sizes (Bouton's nim-sum)."""
    return reduce(xor, check_piles(piles), 0)


def is_p_position(piles: Iterable[int], misere: bool = False) -> bool:
    """True when the player to move loses with best play (Bouton's rule and its misère form).

    Normal play: nim-sum 0. Misère play: the same, except when no pile has more than one
    stick; then the player to move loses exactly when the number of 1-piles is odd.
    """
    piles = check_piles(piles)
    misere = check_bool(misere, "misere")
    if misere and max(piles) <= 1:
        return sum(piles) % 2 == 1
    return reduce(xor, piles, 0) == 0


def winning_nim_moves(piles: Iterable[int], misere: bool = False) -> list[tuple[int, int]]:
    """Every move (pile index, sticks taken) that leaves a P-position for the opponent.

    In order of pile, then sticks taken. Only three sizes can be right for the pile moved
    from: 0, 1 (the misère end game) and its size XOR the nim-sum (Bouton); each is tested
    with `is_p_position`, so the cost does not grow with the pile sizes.
    """
    piles = check_piles(piles)
    misere = check_bool(misere, "misere")
    total = reduce(xor, piles, 0)
    found = []
    for i, size in enumerate(piles):
        for left in sorted({0, 1, size ^ total}, reverse=True):
            if left < size and is_p_position(piles[:i] + (left,) + piles[i + 1 :], misere):
                found.append((i, size - left))
    return found


class Nim(GameBase[NimState, tuple[int, int]]):
    """Nim on the `Game` protocol. A state is `NimState(piles, to_move)`; a move is (pile, take)."""

    def __init__(self, piles: Iterable[int] = (3, 5, 7), misere: bool = False):
        piles = check_piles(piles, MAX_PILES, MAX_PILE)
        self._misere = check_bool(misere, "misere")
        self._piles = piles

    @property
    def piles(self) -> tuple[int, ...]:
        """The start piles (read-only: the game is a value)."""
        return self._piles

    @property
    def misere(self) -> bool:
        """True for misère play (whoever takes the last stick loses); read-only."""
        return self._misere

    def __repr__(self) -> str:
        return f"Nim({list(self.piles)}, misere={self.misere})"

    def rules(self) -> dict:
        """The rules as JSON-ready data (what a saved Q-table records)."""
        return {"game": kind_name(self, Nim), "piles": list(self.piles), "misere": self.misere}

    def _key(self) -> tuple:  # games built alike are equal and hash alike (GameBase)
        return (self._piles, self._misere)

    # --- the wire format (gamekit.wire): a state [piles, to_move], a move [pile, sticks taken] ---
    def state_to_json(self, state: NimState) -> list:
        return [list(state.piles), state.to_move]

    def state_from_json(self, data: Any) -> NimState:
        """[piles, player to move]: as many piles as at the start, none larger than at the start, and a
        turn that fits the sticks taken (every move takes at least one stick from one pile)."""
        what = "Nim: the state"
        piles, to_move = json_list(data, what, "a list [piles, player to move] such as [[3, 5, 7], 0]", 2, WireError)
        n = len(self.piles)
        piles = json_list(piles, f"{what}'s piles", f"a list of {n} whole numbers", n, WireError)
        piles = tuple(
            json_int(p, f"{what}'s pile {i}", minimum=0, maximum=start, error=WireError)
            for i, (p, start) in enumerate(zip(piles, self.piles))
        )
        to_move = json_player(to_move, f"{what}'s player to move")
        taken = sum(self.piles) - sum(piles)
        changed = sum(1 for p, start in zip(piles, self.piles) if p != start)
        # k moves took the sticks: changed <= k <= taken, k of the parity of to_move, k = 0 only at the start
        if not (taken == 0 and to_move == 0) and not (changed and (changed % 2 == to_move or changed < taken)):
            raise WireError(
                f"{what}: {list(piles)} with player {to_move} to move cannot occur from the start {list(self.piles)} "
                f"({taken} sticks taken from {changed} piles cannot take a number of moves that leaves player "
                f"{to_move} to move)"
            )
        return NimState(piles, to_move)

    def move_to_json(self, move: tuple[int, int]) -> list:
        return [int(move[0]), int(move[1])]

    def move_from_json(self, data: Any) -> tuple[int, int]:
        pile, taken = json_ints(data, 2, "Nim: a move [pile, sticks taken]")
        return (pile, taken)

    def describe_state(self, state: NimState) -> str:
        return "\n".join(f"pile {i}: {'|' * p} ({p})" for i, p in enumerate(state.piles))

    def initial_state(self) -> NimState:
        return NimState(self.piles, 0)

    def to_move(self, state: NimState) -> int:
        return state.to_move

    def legal_moves(self, state: NimState) -> tuple:
        return tuple((i, take) for i, size in enumerate(state.piles) for take in range(1, size + 1))

    def play(self, state: NimState, move) -> NimState:
        try:
            i, take = move
            typed = is_int(i) and is_int(take)
        except (TypeError, ValueError):
            typed = False
        if not typed:
            raise self.refuse(
                state, move, self.legal_moves(state), "a pair of whole numbers (pile index, sticks taken)"
            )
        i, take = int(i), int(take)
        if not (0 <= i < len(state.piles) and 1 <= take <= state.piles[i]):
            raise self.refuse(state, move, self.legal_moves(state))
        piles = state.piles[:i] + (state.piles[i] - take,) + state.piles[i + 1 :]
        return NimState(piles, 1 - state.to_move)

    def is_terminal(self, state: NimState) -> bool:
        return not any(state.piles)

    def utility(self, state: NimState, player: int) -> float:
        if any(state.piles):
            raise ValueError(f"utility is defined only at the end of the game, not at {state!r}")
        player = check_player(player)
        # The player who just moved took the last stick.
        took_last = 1 - state.to_move
        winner = (1 - took_last) if self.misere else took_last
        return 1.0 if player == winner else -1.0

    def state(self, piles: Iterable[int], to_move: int = 0) -> NimState:
        """A position with these piles and `to_move` to move (for analysis)."""
        return NimState(check_piles(piles, MAX_PILES, MAX_PILE), check_player(to_move, "to_move"))


def parse_piles(text: str) -> tuple[int, ...]:
    """Read piles typed by a person, e.g. "3 5 7" or "3, 5, 7" or "[3, 5, 7]"; clear errors otherwise.

    Only ASCII digits count as whole numbers (Python's `str.isnumeric` also accepts "½" and "²",
    which `int` then rejects).
    """
    if not isinstance(text, str):
        raise TypeError(f"piles must be typed as text such as '3 5 7', got {text!r}")
    tokens = text.strip().strip("[]()").replace(",", " ").split()
    if not tokens:
        raise ValueError("no piles given: type whole numbers >= 0 separated by spaces, such as 3 5 7")
    bad = [t for t in tokens if not (t.isascii() and t.isdigit())]
    if bad:
        raise ValueError(f"{bad[0]!r} is not a whole number >= 0: type piles such as 3 5 7")
    return check_piles(int(t) for t in tokens)
