"""Coverage of the leaderboard's "95 %" intervals on simulated round robins with known truth.

Agents spread evenly over 0..spread Elo, 5 or 10 of them, each start played with both seat
orders (the pair is the unit), 5 or 10 pairs per pairing, games without draws or with Davidson's
ν = 1. For each cell: the share of 1,000 tournaments in which `robust_ratings`' interval holds
the truth, lowest and highest over the agents' ratings, and over the neighbour differences in
the fitted order (`gamekit.stats._simulated_coverage`, the same code as the board).

    python benchmarks/coverage.py            # the whole table (about 5 minutes of CPU)
    python benchmarks/coverage.py 1200       # one spread
"""

import sys
import time

import numpy as np

from gamekit.stats import COVERAGE_CHECKED, _simulated_coverage

SPREADS = (0, 300, 600, 900, 1200)


def main(spreads: tuple[int, ...]) -> None:
    print(f"checked: {COVERAGE_CHECKED.text()}")
    print("| spread (Elo) | agents | draws | pairs | ratings | neighbour differences | s |")
    print("|---|---|---|---|---|---|---|")
    for spread in spreads:
        for agents in (5, 10):
            for nu in (0.0, 1.0):
                for pairs in (5, 10):
                    start = time.process_time()
                    seed = 7 * spread + 31 * agents + 3 * pairs + int(nu)
                    rate, nb = _simulated_coverage(np.linspace(0, spread, agents), pairs=pairs, nu=nu, seed=seed)
                    print(
                        f"| {spread} | {agents} | {'ν 1' if nu else 'none'} | {pairs} "
                        f"| {rate.min():.3f}–{rate.max():.3f} | {nb.min():.3f}–{nb.max():.3f} "
                        f"| {time.process_time() - start:.1f} |",
                        flush=True,
                    )


if __name__ == "__main__":
    main(tuple(int(a) for a in sys.argv[1:]) or SPREADS)
