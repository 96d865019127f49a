"""Source document 004 (a course paper on Q-learning "Advanced Nim", misère Nim [3, 5, 7]): the source's own ideas.

Everything here is what the source describes, ported so that the course can test it:

* `pile_tuple` and `sorted_piles`: the source's state encoding (the piles as an array, the table
  keyed by (state, action)) and the sorting it considers to merge duplicates such as 0 1 / 1 0;
* `source_learner`: its training scheme (each player's previous move is updated when that player
  is to move again; rewards +-100, alpha 0.1, gamma 0.8, epsilon 0.1), run on gamekit's tables
  (`QLearner(target="source")`);
* `source_pole_position`: its list of human "pole positions" (1 1 1, 1 2 3, 2 4 6, 1 4 5, two
  equal piles), which misses some P-positions and lists the trap 1 1 0;
* `PolePositionPlayer`: the human strategy "after Scam Nation" as an agent, so that a learner can
  be evaluated against it, as the source asks ("Gewinnt sie gegen die Gewinnstrategie nach Scam
  Nation?").

These functions know Nim (they read `state.piles`); the generic learner in `gamekit.qlearning`
does not.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from typing import Any

from ..protocol import Game, Move, State, check_bool, check_int, check_name, require_game_methods
from ..qlearning import QLearner

__all__ = [
    "SOURCE_POLE_TRIPLES",
    "PolePositionPlayer",
    "pile_tuple",
    "sorted_piles",
    "source_learner",
    "source_pole_position",
]

#: The pole positions the source lists explicitly (order of the piles irrelevant), besides "two equal piles".
SOURCE_POLE_TRIPLES = frozenset({(1, 1, 1), (1, 2, 3), (2, 4, 6), (1, 4, 5)})


# --- the source's state encodings -----------------------------------------------------------


def pile_tuple(state: State) -> Hashable:
    """Nim: the pile sizes as a tuple, e.g. (3, 5, 7): the source's key (its arrays of pile sizes).

    Who is to move is left out: the table is always the mover's.
    """
    return tuple(_piles(state))


def sorted_piles(state: State) -> Hashable:
    """Nim: the sorted pile sizes, so that (0, 1, 0) and (1, 0, 0) share one table entry.

    The source considers this ("Zur Reduzierung der Zustands-Dubletten ... sortiert werden").
    """
    return tuple(sorted(_piles(state)))


def _piles(state: Any) -> tuple[int, ...]:
    piles = getattr(state, "piles", None)
    if piles is None:
        raise TypeError(f"this encoding is for Nim states (with .piles), got {state!r}")
    return tuple(piles)


# --- the source's learner -------------------------------------------------------------------


def source_learner(game: Game, seed: int | None = None, encoding: Any = pile_tuple, epsilon: float = 0.1) -> QLearner:
    """The source's learner: its update scheme (`target="source"`), rewards +-100, gamma 0.8,
    alpha 0.1 and (unless given) epsilon 0.1; keyed by the pile tuple as the source does."""
    return QLearner(
        game, alpha=0.1, gamma=0.8, epsilon=epsilon, seed=seed, target="source", encoding=encoding, reward=100.0
    )


# --- the source's pole positions --------------------------------------------------------------


def source_pole_position(piles: Iterable[int]) -> bool:
    """Is `piles` on the source's list of pole positions? Order ignored, empty piles ignored.

    The list: 1 1 1, 1 2 3, 2 4 6, 1 4 5, or two equal piles (read as: exactly two non-empty
    piles, of the same size; so 1 1 0 counts, the trap the source itself warns against).
    """
    sizes = sorted(_check_sizes(piles))
    nonzero = [p for p in sizes if p]
    return tuple(nonzero) in SOURCE_POLE_TRIPLES or (len(nonzero) == 2 and nonzero[0] == nonzero[1])


def _check_sizes(piles: Iterable[int]) -> list[int]:
    if isinstance(piles, (str, bytes)) or not hasattr(piles, "__iter__"):
        raise TypeError(f"piles must be a sequence of whole numbers >= 0, such as (3, 5, 7); got {piles!r}")
    return [check_int(p, "every pile", minimum=0) for p in piles]


class PolePositionPlayer:
    """The source's human strategy for misère Nim ("Gewinnstrategie nach Scam Nation") as an agent.

    On its move it plays, in this order of preference (ties: the first move in legal order):

    1. if `attentive`: a move that leaves the opponent one single stick (the winning last move the
       source says not to miss);
    2. a move that produces a pole position of the source's list (`source_pole_position`); if
       `attentive`, never the trap 1 1 0 that the source warns against;
    3. otherwise one stick from the largest pile (the source's "counter": take a single stick).

    `let_opponent_start` is the source's advice to leave the first move to the opponent. A player
    cannot refuse to move, so this is a seat preference: `preferred_seat` is 1 (second) with the
    advice and None (either seat) without it; whoever arranges the games honours it. Deterministic:
    two games from the same position against a deterministic opponent are the same game.
    """

    def __init__(self, let_opponent_start: bool = True, attentive: bool = True, name: str | None = None):
        self.let_opponent_start = check_bool(let_opponent_start, "let_opponent_start")
        self.attentive = check_bool(attentive, "attentive")
        self.name = "pole positions" + ("" if attentive else " (bare list)") if name is None else check_name(name)

    @property
    def preferred_seat(self) -> int | None:
        """1 when the player wants the opponent to start, else None (no preference)."""
        return 1 if self.let_opponent_start else None

    def __repr__(self) -> str:
        return f"PolePositionPlayer(let_opponent_start={self.let_opponent_start}, attentive={self.attentive})"

    def __call__(self, game: Game, state: State) -> Move:
        require_game_methods(game)
        if getattr(game, "misere", True) is not True:
            raise ValueError(f"the pole-position strategy is for misère Nim (the last stick loses), not {game!r}")
        piles = _piles(state)
        moves = list(game.legal_moves(state))
        if not moves:
            raise ValueError(f"{state!r} is terminal: there is no move to choose")
        after = [_piles(game.play(state, m)) for m in moves]
        if self.attentive:
            for m, p in zip(moves, after):
                if sum(p) == 1:
                    return m
        for m, p in zip(moves, after):
            if source_pole_position(p) and not (self.attentive and sorted(q for q in p if q) == [1, 1]):
                return m
        largest = max(range(len(piles)), key=lambda i: piles[i])  # first pile of maximal size
        return next(m for m, p in zip(moves, after) if p[largest] == piles[largest] - 1 and sum(p) == sum(piles) - 1)

    def move_kind(self, game: Game, state: State) -> str:
        """Which rule chose the move in `state`: "last stick", "pole position" or "one stick"."""
        move = self(game, state)
        p = _piles(game.play(state, move))
        if self.attentive and sum(p) == 1:
            return "last stick"
        return "pole position" if source_pole_position(p) else "one stick"
