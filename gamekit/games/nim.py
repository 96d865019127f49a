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
from typing import NamedTuple

import numpy as np

from ..protocol import illegal_move


def check_piles(piles: Iterable[int]) -> tuple[int, ...]:
    """Validate piles: a non-empty list of whole numbers >= 0."""
    if isinstance(piles, (str, bytes)) or not hasattr(piles, "__iter__"):
        raise TypeError(f"piles must be a list of whole numbers >= 0, such as [3, 5, 7]; got {piles!r}")
    piles = list(piles)
    if not piles:
        raise ValueError("piles must not be empty: give at least one pile, such as [3, 5, 7]")
    for p in piles:
        if isinstance(p, bool) or not isinstance(p, (int, np.integer)):
            raise TypeError(f"every pile must be a whole number >= 0, got {p!r} in {piles!r}")
        if p < 0:
            raise ValueError(f"every pile must be a whole number >= 0, got {p!r} in {piles!r}")
    return tuple(int(p) for p in piles)


class NimState(NamedTuple):
    piles: tuple
    to_move: int = 0


def nim_sum(piles: Iterable[int]) -> int:
    """The XOR of all pile sizes (Bouton's nim-sum)."""
    return reduce(xor, piles, 0)


def is_p_position(piles: Iterable[int], misere: bool = False) -> bool:
    """True when the player to move loses with best play (Bouton's rule and its misère form).

    Normal play: nim-sum 0. Misère play: the same, except when no pile has more than one
    stick; then the player to move loses exactly when the number of 1-piles is odd.
    """
    piles = check_piles(piles)
    if misere and max(piles) <= 1:
        return sum(piles) % 2 == 1
    return nim_sum(piles) == 0


def winning_nim_moves(piles: Iterable[int], misere: bool = False) -> list[tuple[int, int]]:
    """Every move (pile index, sticks taken) that leaves a P-position for the opponent."""
    piles = check_piles(piles)
    found = []
    for i, size in enumerate(piles):
        for take in range(1, size + 1):
            after = piles[:i] + (size - take,) + piles[i + 1 :]
            if is_p_position(after, misere):
                found.append((i, take))
    return found


class Nim:
    """Nim on the `Game` protocol. A state is `NimState(piles, to_move)`; a move is (pile, take)."""

    def __init__(self, piles: Iterable[int] = (3, 5, 7), misere: bool = False):
        piles = check_piles(piles)
        if not isinstance(misere, (bool, np.bool_)):
            raise TypeError(f"misere must be True or False, got {misere!r}")
        self._piles = piles
        self._misere = bool(misere)

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

    # Games built alike are equal and hash alike, so caches keyed by a game are keyed by its rules.
    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Nim):
            return NotImplemented
        return (self._piles, self._misere) == (other._piles, other._misere)

    def __hash__(self) -> int:
        return hash(("Nim", self._piles, self._misere))

    def initial_state(self) -> NimState:
        return NimState(self.piles, 0)

    def to_move(self, state: NimState) -> int:
        return state.to_move

    def legal_moves(self, state: NimState) -> tuple:
        return tuple((i, take) for i, size in enumerate(state.piles) for take in range(1, size + 1))

    def play(self, state: NimState, move) -> NimState:
        try:
            i, take = move
            ok = (
                not isinstance(i, bool)
                and not isinstance(take, bool)
                and 0 <= i < len(state.piles)
                and 1 <= take <= state.piles[i]
            )
        except (TypeError, ValueError):
            ok = False
        if not ok:
            raise illegal_move(move, state, self.legal_moves(state))
        piles = state.piles[:i] + (state.piles[i] - take,) + state.piles[i + 1 :]
        return NimState(piles, 1 - state.to_move)

    def is_terminal(self, state: NimState) -> bool:
        return not any(state.piles)

    def utility(self, state: NimState, player: int) -> float:
        if any(state.piles):
            raise ValueError(f"utility is defined only at the end of the game, not at {state!r}")
        # The player who just moved took the last stick.
        took_last = 1 - state.to_move
        winner = (1 - took_last) if self.misere else took_last
        return 1.0 if player == winner else -1.0

    def state(self, piles: Iterable[int], to_move: int = 0) -> NimState:
        return NimState(check_piles(piles), int(to_move))


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
