"""The course's arena line-up (chapter 8): its four games and every agent of chapters 1–7.

`course_games()` and `course_arena(seed)` build the big arena whose saved runs chapter 8 loads;
`class_arena(seed)` is the small one a teacher runs live. `main` is the command behind
`scripts/make_arena.py`, which regenerates the saved runs:

    python scripts/make_arena.py --games-per-pair 20 --seeds 0 1 2 3 4 --out data/arena_seeds.json

The generic machinery (`Arena`, ratings) lives in `gamekit.arena` and names no game.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from typing import Any

from ..arena import Arena, ArenaResult, Factory, save_runs
from ..games.generalized_nim import GeneralizedNim
from ..games.nim import Nim
from ..games.subtraction import SubtractionGame
from ..games.tictactoe import BITBOARD, TicTacToe, h1_scaled
from ..match import random_start
from ..mcts import MCTSPlayer
from ..mcts_fast import BitboardMCTSPlayer
from ..players import (
    LossAversePlayer,
    MixedPlayer,
    PerfectPlayer,
    RandomPlayer,
    RawCountPlayer,
    SmartRandomPlayer,
)
from ..qlearning import QLearner
from ..search import SearchPlayer
from ..sources.q_nim import PolePositionPlayer

__all__ = ["SUB", "TTT", "MISERE", "GNIM", "class_arena", "course_arena", "course_games", "main"]

SUB, TTT, MISERE, GNIM = "subtraction 3,5,11", "TicTacToe", "misère Nim 3,5,7", "generalised Nim"


def course_games() -> dict[str, Any]:
    """The four games of the course's arena; the subtraction game starts at random in 20..50
    (the game's own `random_start`, as in the source's playout)."""
    return {
        SUB: (SubtractionGame(start=50, moves=(3, 5, 11)), random_start()),
        TTT: TicTacToe(),
        MISERE: Nim([3, 5, 7], misere=True),
        GNIM: GeneralizedNim(24, [{1: 4, 2: math.inf, 3: 2}, {1: math.inf, 2: 3, 4: math.inf}]),
    }


def course_arena(
    seed: int = 2026,
    mcts_budgets: Sequence[int] = (30, 100, 300),
    depths: Sequence[int] = (1, 2, 4),
    q_episodes: int = 20_000,
) -> Arena:
    """Every agent of the course entered in every game it can play (`course_games`).

    The subtraction strategies play only the subtraction game, h1 is a TicTacToe heuristic, MCTS
    uses the fast bitboard version on TicTacToe, the Q-learner plays where it has a table (games
    with a fixed start; trained by self-play with `seed`), and the source's pole-position strategy
    (seed 004) plays misère Nim. Agents whose move depends only on the position are entered as
    deterministic: against each other on a fixed start they meet once per seat.
    """
    arena = Arena(games=course_games())
    arena.enter("random", lambda s: RandomPlayer(seed=s))
    arena.enter("smart random", lambda s: SmartRandomPlayer(seed=s), games=[SUB])
    arena.enter("mixed p=0.5", lambda s: MixedPlayer(0.5, seed=s), games=[SUB])
    arena.enter("raw counts", lambda s: RawCountPlayer(), deterministic=True)
    arena.enter("1 − P(lose)", lambda s: LossAversePlayer(), deterministic=True)
    for d in depths:
        # a fresh search player per game: its transposition table would otherwise carry over
        arena.enter(f"h1 depth {d}", lambda s, d=d: _FreshSearch(d), games=[TTT], deterministic=True)
    arena.enter("perfect", lambda s: PerfectPlayer(), deterministic=True)
    arena.enter("pole positions", lambda s: PolePositionPlayer(), games=[MISERE], deterministic=True)
    for b in mcts_budgets:
        arena.enter(
            f"MCTS {b}",
            {g: _mcts_factory(b, fast=g == TTT) for g in arena.games},
        )
    arena.enter("Q-learner", _q_learner_factories(arena, seed, q_episodes), deterministic=True)
    return arena


def _mcts_factory(budget: int, fast: bool) -> Factory:
    """MCTS with `budget` iterations per move; the bitboard version on TicTacToe (same tree)."""
    if fast:
        return lambda s: BitboardMCTSPlayer(BITBOARD, budget, seed=s, name=f"MCTS-fast({budget})")
    return lambda s: MCTSPlayer(budget, seed=s)


class _FreshSearch:
    """h1 alpha-beta to a fixed depth that starts every game with an empty table, so its move
    depends only on the position (a kept table can change which of two equal moves it plays)."""

    def __init__(self, depth: int):
        self.depth, self.name = depth, f"h1 depth {depth}"
        self._player = SearchPlayer(depth=depth, evaluate=h1_scaled)

    def __call__(self, game: Any, state: Any) -> Any:
        if state.count(".") >= 8:  # X's or O's first move: a new game
            self._player = SearchPlayer(depth=self.depth, evaluate=h1_scaled)
        return self._player(game, state)


def _q_learner_factories(arena: Arena, seed: int, episodes: int) -> dict[str, Factory]:
    """A Q-learner trained by self-play for `episodes` games on each of the arena's games whose
    start is fixed (a random start, like the subtraction game's, is not one table)."""
    factories: dict[str, Factory] = {}
    fixed = [name for name, (game, start) in arena.games.items() if start is None]
    for k, name in enumerate(fixed):
        learner = QLearner(arena.games[name][0], seed=seed + k)
        learner.train(episodes, progress=False)
        factories[name] = _q_factory(learner)
    return factories


def _q_factory(learner: QLearner) -> Factory:
    """The trained learner's greedy player, whatever the seed (its moves depend on the table only)."""
    return lambda s: learner.player()


def class_arena() -> Arena:
    """The small arena a teacher runs live (well under a second): five agents on the subtraction
    game 3, 5, 11 from random starts 20..50 (paired)."""
    arena = Arena(games={SUB: course_games()[SUB]})
    arena.enter("random", lambda s: RandomPlayer(seed=s))
    arena.enter("smart random", lambda s: SmartRandomPlayer(seed=s))
    arena.enter("mixed p=0.5", lambda s: MixedPlayer(0.5, seed=s))
    arena.enter("perfect", lambda s: PerfectPlayer(), deterministic=True)
    arena.enter("MCTS 100", lambda s: MCTSPlayer(100, seed=s))
    return arena


def main(argv: Sequence[str] | None = None) -> None:
    """Command line: run the course's arena for one or more seeds and save the runs as JSON, e.g.

        python scripts/make_arena.py --games-per-pair 20 --seeds 0 1 2 3 4 --out data/arena_seeds.json

    Each seed trains its own Q-learners and seeds every agent and start, so the win / draw / loss
    counts are the same on every run; the seconds per move depend on the machine.
    """
    import argparse

    ap = argparse.ArgumentParser(
        prog="python scripts/make_arena.py",
        description=main.__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ap.add_argument("--games-per-pair", type=int, default=20, help="games per pairing: even, both seats (>= 2)")
    ap.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3, 4], help="one arena run per seed")
    ap.add_argument("--out", help="JSON file to write (default: print the tables only)")
    args = ap.parse_args(argv)
    if args.games_per_pair < 2 or args.games_per_pair % 2:
        ap.error(f"--games-per-pair must be even and >= 2 (both seats equally often), got {args.games_per_pair}")
    if any(s < 0 for s in args.seeds):
        ap.error(f"--seeds must be >= 0, got {args.seeds}")
    runs: list[ArenaResult] = []
    for seed in args.seeds:
        t0 = time.perf_counter()
        result = course_arena(seed).run(args.games_per_pair, seed=seed, progress=False)
        runs.append(result)
        print(f"seed {seed}: {time.perf_counter() - t0:.0f} s", flush=True)
        for name, table in result.tables.items():
            print(f"\n{name}\n{table.table()}")
    if args.out:
        command = f"python scripts/make_arena.py --games-per-pair {args.games_per_pair} --seeds " + " ".join(
            map(str, args.seeds)
        )
        save_runs(args.out, runs, command=command)
        print(f"\nsaved to {args.out}")
