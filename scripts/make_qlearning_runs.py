"""Chapter 6's multi-seed Q-learning experiments on misère Nim, saved as JSON (data/qlearning_runs_357.json).

    python scripts/make_qlearning_runs.py --out data/qlearning_runs_357.json

Lesson 06 shows each experiment's code, recomputes one seed of it live and loads the rest from
this file (all of them take about 15 s; a lesson cell may take 3). Every run is seeded, so the
same command writes the same file; nothing in it depends on the machine.

Experiments (misère Nim [3, 5, 7], encoding pile_tuple unless said):
- race: episodes until the greedy move is right in all 167 winning positions, seeds 0-4, for
  the negamax target and the source's scheme at three (alpha, gamma, epsilon) settings
  (100,000 episodes at most, checked every 250);
- naive: the naive target's final score after 20,000 episodes, seeds 0-4;
- epsilon: the score after 20,000 episodes at alpha 0.1, gamma 0.8 for epsilon 0.1 and 1
  (seeds 0-2) and epsilon 0 (10,000 episodes, seeds 0-1), both targets;
- mechanisms: (P-positions with more than 3 sticks whose greedy move takes one stick, those
  where every larger take is strictly worse), seeds 0-2, for three learners;
- pole_agreement: in how many of the 167 winning positions a negamax table (20,000 episodes,
  seeds 0-4) plays the pole-position player's move;
- board_2678: [2, 6, 7, 8] with the sorted encoding, seed 2026: the score after 20,000 episodes and
  the episodes until all are right (200,000 at most, checked every 500);
- source_12345: the source's learner on [1, 2, 3, 4, 5], seed 2026, 100,000 episodes: the Q-values
  of the four moves the source prints.
"""

from __future__ import annotations

import argparse
import itertools
import json
from collections.abc import Sequence
from typing import Any

from gamekit import Nim, NimState, PolePositionPlayer, QLearner, WinningPositions, is_p_position
from gamekit.sources.q_nim import pile_tuple, sorted_piles, source_learner

FORMAT, VERSION = "gamekit.qlearning-runs", 1
GAME = Nim([3, 5, 7], misere=True)
SEED, SEEDS = 2026, range(5)
SETTINGS = {
    "gamekit's (0.5, 0.9, 0.5)": (0.5, 0.9, 0.5),
    "the source's (0.1, 0.8, 0.1)": (0.1, 0.8, 0.1),
    "(0.5, 0.9, 0.1)": (0.5, 0.9, 0.1),
}
MECHANISMS = {
    "discount alone (negamax, γ = 0.9)": (dict(gamma=0.9), 20_000),
    "neither (negamax, γ = 1)": (dict(gamma=1.0), 20_000),
    "exploration alone (source, γ = 1, ε = 0.1)": (dict(alpha=0.1, gamma=1.0, epsilon=0.1, target="source"), 30_000),
}
SOURCE_MOVES = {(0, 2, 0, 0, 0): (1, 1), (0, 2, 2, 0, 1): (4, 1), (0, 2, 2, 2, 1): (2, 1), (0, 2, 2, 3, 2): (3, 1)}


def episodes_to_167(target: str, alpha: float, gamma: float, epsilon: float, seed: int) -> int | None:
    """Episodes until the greedy move is right in all 167 winning positions (None: not within 100,000)."""
    learner = QLearner(GAME, alpha=alpha, gamma=gamma, epsilon=epsilon, seed=seed, target=target, encoding=pile_tuple)
    winning = WinningPositions(GAME, pile_tuple)
    return learner.train(
        100_000, progress=False, record_every=250, positions=winning, stop_when_perfect=True
    ).perfect_at


def score(target: str, epsilon: float, seed: int, episodes: int = 20_000, **settings: Any) -> int:
    """In how many of the 167 winning positions the greedy move wins after training."""
    settings = {"alpha": 0.1, "gamma": 0.8, **settings}
    learner = QLearner(GAME, epsilon=epsilon, seed=seed, target=target, encoding=pile_tuple, **settings)
    learner.train(episodes, progress=False)
    return WinningPositions(GAME, pile_tuple).score(learner)


def single_sticks(learner: QLearner) -> tuple[int, int]:
    """(big P-positions whose greedy move takes one stick, those where every larger take is strictly worse)."""
    caps = itertools.product(range(4), range(6), range(8))
    big_p = [p for p in caps if sum(p) > 3 and is_p_position(p, misere=True)]
    ones = strict = 0
    for p in big_p:
        q = learner.q_values(NimState(p, 0))
        ones += learner.best_move(NimState(p, 0))[1] == 1
        strict += all(v < max(q.values()) - 1e-9 for (_, take), v in q.items() if take > 1)
    return ones, strict


def mechanism(name: str, seed: int) -> tuple[int, int]:
    settings, episodes = MECHANISMS[name]
    learner = QLearner(GAME, seed=seed, encoding=pile_tuple, **settings)  # type: ignore[arg-type]
    learner.train(episodes, progress=False)
    return single_sticks(learner)


def pole_agreement(seed: int) -> int:
    """In how many of the 167 winning positions a negamax table plays the pole-position player's move."""
    table = QLearner(GAME, seed=seed, encoding=pile_tuple)
    table.train(20_000, progress=False)
    pole = PolePositionPlayer()
    caps = itertools.product(range(4), range(6), range(8))
    winning = [p for p in caps if any(p) and not is_p_position(p, misere=True)]
    return sum(table.best_move(NimState(p, 0)) == pole(GAME, NimState(p, 0)) for p in winning)


def runs() -> dict[str, Any]:
    """Every experiment's results as JSON-ready data."""
    race = {
        f"{target} | {name}": [episodes_to_167(target, *SETTINGS[name], seed=s) for s in SEEDS]
        for name in SETTINGS
        for target in ("negamax", "source")
    }
    epsilon = {f"{t} | {e}": [score(t, e, s) for s in SEEDS[:3]] for t in ("negamax", "source") for e in (0.1, 1.0)}
    epsilon |= {f"{t} | 0.0": [score(t, 0.0, s, 10_000) for s in SEEDS[:2]] for t in ("negamax", "source")}
    game8 = Nim([2, 6, 7, 8], misere=True)
    more = QLearner(game8, seed=SEED, encoding=sorted_piles)
    done = more.train(
        200_000,
        progress=False,
        stop_when_perfect=True,
        record_every=500,
        positions=WinningPositions(game8, pile_tuple),
    )
    game5 = Nim([1, 2, 3, 4, 5], misere=True)
    src5 = source_learner(game5, seed=SEED)
    src5.train(100_000, progress=False)
    return {
        "format": FORMAT,
        "version": VERSION,
        "command": "python scripts/make_qlearning_runs.py --out data/qlearning_runs_357.json",
        "race": race,
        "naive": [score("naive", 0.5, s, alpha=0.5, gamma=0.9) for s in SEEDS],
        "epsilon": epsilon,
        "mechanisms": {name: [list(mechanism(name, s)) for s in SEEDS[:3]] for name in MECHANISMS},
        "pole_agreement": [pole_agreement(s) for s in SEEDS],
        "board_2678": {"at_20000": dict(done.curve)[20_000], "perfect_at": done.perfect_at},
        "source_12345": {repr(piles): src5.q_values(NimState(piles, 0))[move] for piles, move in SOURCE_MOVES.items()},
    }


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(
        prog="python scripts/make_qlearning_runs.py",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ap.add_argument("--out", required=True, help="JSON file to write")
    args = ap.parse_args(argv)
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(runs(), f, indent=1, ensure_ascii=False)
        f.write("\n")
    print("saved to", args.out)


if __name__ == "__main__":
    main()
