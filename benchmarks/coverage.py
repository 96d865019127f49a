"""Coverage of the leaderboard's "95 %" intervals on simulated round robins with known truth.

Agents spread evenly over 0..spread Elo (a class: a solver, beginners, a random agent), 4 to 30
of them, each start played with both seat orders (the pair is the unit), 5, 10 or 20 pairs per
pairing, games without draws or with Davidson's ν = 1 (a third of the games between equals
drawn). For each cell: the share of 1,000 tournaments in which `robust_ratings`' interval holds
the truth, lowest–highest (and mean) over the agents' ratings, and over the neighbour differences
in the fitted order (`gamekit.stats._simulated_coverage`, the same code as the board). A cell is
marked when a mean or a share lies outside the ranges `COVERAGE_CHECKED` states (to whole
percents); the neighbour differences of near-equal agents (less than `COVERAGE_CHECKED.near` Elo
apart, spread 0 included) are exempt from the upper ends: their true difference is about 0, which
the fitted order's interval holds almost always.

    python benchmarks/coverage.py                        # the whole grid (about 16 CPU minutes)
    python benchmarks/coverage.py 1500                   # one spread
    python benchmarks/coverage.py --agents 20 30 --pairs 5
"""

import argparse
import time

import numpy as np

from gamekit.stats import COVERAGE_CHECKED, _simulated_coverage

SPREADS = (0, 300, 600, 900, 1200, 1500)
AGENTS = (4, 5, 10, 20, 30)
PAIRS = (5, 10, 20)
LOW, HIGH = (x + d for x, d in zip(COVERAGE_CHECKED.coverage, (-0.005, 0.005)))  # to whole percents
MEAN_LOW, MEAN_HIGH = (x + d for x, d in zip(COVERAGE_CHECKED.mean, (-0.005, 0.005)))


def seed_of(spread: int, agents: int, pairs: int, nu: float) -> int:
    """The cell's seed, as tests/test_coverage.py takes it (no two cells of the grid share one)."""
    return 7 * spread + 31 * agents + 3 * pairs + int(nu) + (100_000 if agents == 4 else 0)


def verdict(shares: np.ndarray, upper: bool = True) -> str:
    """ "" when the cell keeps the promise, else what fails."""
    faults = []
    if not MEAN_LOW <= shares.mean() <= (MEAN_HIGH if upper else 1.0):
        faults.append(f"mean {shares.mean():.3f}")
    if shares.min() < LOW or (upper and shares.max() > HIGH):
        faults.append("a share outside the stated range")
    return ", ".join(faults)


def main(spreads: tuple[int, ...], agents_list: tuple[int, ...], pairs_list: tuple[int, ...]) -> None:
    print(f"checked: {COVERAGE_CHECKED.text()}")
    print("| spread (Elo) | agents | draws | pairs | ratings (mean) | neighbour differences (mean) | CPU s | |")
    print("|---|---|---|---|---|---|---|---|")
    shares, means, cpu = [], [], 0.0  # over every cell, without near-equal neighbours' differences
    for spread in spreads:
        for agents in agents_list:
            for nu in (0.0, 1.0):
                for pairs in pairs_list:
                    start = time.process_time()
                    elo = np.linspace(0, spread, agents)
                    rate, nb = _simulated_coverage(elo, pairs=pairs, nu=nu, seed=seed_of(spread, agents, pairs, nu))
                    apart = spread / (agents - 1) >= COVERAGE_CHECKED.near
                    verdicts = (("ratings", verdict(rate)), ("neighbours", verdict(nb, apart)))
                    faults = "; ".join(f"{what}: {v}" for what, v in verdicts if v)
                    seconds = time.process_time() - start
                    cpu += seconds
                    for kind in (rate, nb) if apart else (rate,):
                        shares += [kind.min(), kind.max()]
                        means.append(kind.mean())
                    print(
                        f"| {spread:,} | {agents} | {'ν 1' if nu else 'none'} | {pairs} "
                        f"| {rate.min():.3f}–{rate.max():.3f} ({rate.mean():.3f}) "
                        f"| {nb.min():.3f}–{nb.max():.3f} ({nb.mean():.3f}) "
                        f"| {seconds:.1f} | {('**' + faults + '**') if faults else ''} |",
                        flush=True,
                    )
    print(
        f"every cell (neighbours under {COVERAGE_CHECKED.near} Elo apart left out): shares "
        f"{min(shares):.3f}–{max(shares):.3f}, means {min(means):.3f}–{max(means):.3f}; {cpu:.0f} CPU s"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("spreads", nargs="*", type=int, default=SPREADS, help="Elo from the weakest to the strongest")
    parser.add_argument("--agents", nargs="+", type=int, default=AGENTS)
    parser.add_argument("--pairs", nargs="+", type=int, default=PAIRS, help="game pairs per pairing")
    args = parser.parse_args()
    main(tuple(args.spreads), tuple(args.agents), tuple(args.pairs))
