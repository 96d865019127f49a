"""Train a Q-table for Nim by self-play and save it as JSON (regenerates the tables in data/).

    python scripts/make_qtable.py --piles 3 5 7 --misere --out data/qtable_misere_357.json

Options: --episodes (default 20000), --seed (default 2026), --target negamax|naive|source,
--encoding plain|sorted (the source's pile tuple, or the sorted piles; see gamekit.sources.q_nim).
The run is deterministic: the same command writes the same file. Load the file with
`QLearner.load(path, game, encoding=pile_tuple)` (or `sorted_piles`).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from gamekit.games.nim import Nim
from gamekit.qlearning import TARGETS, QLearner, WinningPositions
from gamekit.sources.q_nim import pile_tuple, sorted_piles, source_learner

ENCODINGS = {"plain": pile_tuple, "sorted": sorted_piles}


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(
        prog="python scripts/make_qtable.py",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ap.add_argument("--piles", type=int, nargs="+", default=[3, 5, 7], help="pile sizes, whole numbers >= 0")
    ap.add_argument("--misere", action="store_true", help="whoever takes the last stick loses")
    ap.add_argument("--episodes", type=int, default=20_000, help="self-play games (>= 0)")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--target", choices=TARGETS, default="negamax")
    ap.add_argument("--encoding", choices=sorted(ENCODINGS), default="plain")
    ap.add_argument("--out", required=True, help="JSON file to write")
    args = ap.parse_args(argv)
    encoding = ENCODINGS[args.encoding]
    try:  # refuse bad arguments before any work, with the library's own message
        game = Nim(args.piles, misere=args.misere)
        if args.target == "source":
            learner = source_learner(game, seed=args.seed, encoding=encoding)
        else:
            learner = QLearner(game, seed=args.seed, target=args.target, encoding=encoding)
        if args.episodes < 0:
            raise ValueError(f"--episodes must be a whole number >= 0, got {args.episodes}")
    except (TypeError, ValueError) as err:
        ap.error(str(err))
    result = learner.train(args.episodes, progress=False)
    learner.save(args.out)
    wp = WinningPositions(game, encoding)
    print(
        f"{learner!r}: {result.seconds:.2f} s; greedy move wins in {wp.score(learner)} of "
        f"{len(wp)} winning positions; saved to {args.out}"
    )


if __name__ == "__main__":
    main()
