"""Who plays whom, from which start, with which seeds: the tournament's schedule.

A *round robin* pairs every two entrants; a *gauntlet* pairs every entrant with each agent of a
fixed set of opponents (the gauntlet), and those do not play each other. Every pairing plays the
same `starts` start positions, each twice with the seats swapped (paired starts: first-move
advantage and lucky starts cancel). A game's id names the pairing, the start and the seat order,
and every seed is derived from the tournament seed and that id alone, so the same inputs give
the same games whatever order, machine or worker plays them.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

import numpy as np

from .. import wire

FORMATS = ("round-robin", "gauntlet")


def derived_seed(seed: int, *parts: object) -> int:
    """A 63-bit seed from the tournament seed and any labels (stable across runs and machines)."""
    text = ":".join(str(p) for p in (seed, *parts))
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") >> 1


def check_opening(opening: Any) -> int:
    """`opening` (random moves after each start) as a whole number >= 0, else a ValueError."""
    if isinstance(opening, bool) or not isinstance(opening, int) or opening < 0:
        raise ValueError(f"opening must be a whole number of moves >= 0, got {opening!r}")
    return opening


def draw_starts(game: Any, starts: int, seed: int, opening: int = 0) -> list[Any]:
    """`starts` start states of `game` as JSON (its wire format), each drawn with its own seed.

    A start is the game's `random_start` if it has one (else its initial state), followed by
    `opening` random moves (an opening book in miniature: it varies the games of deterministic
    agents). An opening move that would end the game is never chosen; the opening stops early
    when every move would.
    """
    check_opening(opening)
    out = []
    for k in range(starts):
        rng = np.random.default_rng(derived_seed(seed, "start", k))
        chooser = getattr(game, "random_start", None)
        state = chooser(rng) if callable(chooser) else game.initial_state()
        for _ in range(opening):
            moves = [m for m in game.legal_moves(state) if not game.is_terminal(game.play(state, m))]
            if not moves:
                break
            state = game.play(state, moves[int(rng.integers(len(moves)))])
        out.append(wire.state_to_json(game, state))
    return out


@dataclass(frozen=True)
class Slot:
    """One scheduled game: its id, who sits where (seat 0 moves first), the start and the seeds."""

    id: str
    first: str
    second: str
    start_index: int
    start: Any
    seeds: tuple[int, int]


def pairings(agents: Sequence[str], format: str = "round-robin", gauntlet: Sequence[str] = ()) -> list[tuple[str, str]]:
    """The pairs that meet: all pairs (round robin) or each entrant against each gauntlet agent."""
    if format not in FORMATS:
        raise ValueError(f"format must be one of {', '.join(FORMATS)}, got {format!r}")
    if format == "round-robin":
        return list(combinations(sorted(agents), 2))
    if not gauntlet:
        raise ValueError("a gauntlet needs at least one gauntlet agent (the fixed opponents)")
    return [(a, g) for a in sorted(agents) if a not in gauntlet for g in sorted(gauntlet)]


def schedule(
    agents: Sequence[str],
    starts: Sequence[Any],
    seed: int,
    format: str = "round-robin",
    gauntlet: Sequence[str] = (),
) -> list[Slot]:
    """Every game of the tournament, each start played twice per pairing with the seats swapped."""
    slots = []
    for a, b in pairings(agents, format, gauntlet):
        for k, start in enumerate(starts):
            for order, (first, second) in enumerate(((a, b), (b, a))):
                gid = f"{a}~{b}~{k}~{order}"
                seeds = (derived_seed(seed, gid, 0), derived_seed(seed, gid, 1))
                slots.append(Slot(gid, first, second, k, start, seeds))
    return slots
