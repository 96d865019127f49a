"""How many games does "is A stronger than B?" need: the sequential test on game pairs and on
single games, against a fixed-sample design with the same error rates.

    .venv/bin/python benchmarks/sequential.py            # about two minutes on 2 cores
    .venv/bin/python benchmarks/sequential.py --runs 500 # quicker, rougher

The test (`gamekit.stats.sprt`): H0 "A is 0 Elo stronger" against H1 "A is 50 Elo stronger",
α = β = 5 %. Simulated matches with known strength (A's true advantage 0, 20, 50, 100 Elo) and a
draw rate of 30 %. Unpaired: every game has its own start (trinomial model, the test after every
game). Paired: every start is played twice with the seats swapped; the pair's two games have the
same chances as single games, but in half of the starts the seat decides (the two results are
antithetic); the test reads pairs (pentanomial model, after every pair). The fixed-sample design
plays n games and then asks whether the mean score is nearer s0 or s1: n = ((z_α σ0 + z_β σ1) /
(s1 − s0))² observations, σ the standard deviation of one game's (or one pair's per-game) score
under each hypothesis. Printed: the average number of games (2 per pair), P(accept H1), and the
fixed design's games.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from scipy.stats import norm

from gamekit.stats import simulate_sprt

ELO0, ELO1, ALPHA, BETA = 0.0, 50.0, 0.05, 0.05
DRAW_RATE, COUPLING = 0.3, 0.5


def score(elo: float) -> float:
    return 1 / (1 + 10 ** (-elo / 400))


def game_probabilities(s: float) -> np.ndarray:
    """A's (loss, draw, win) chances with mean score s and the draw rate DRAW_RATE."""
    return np.array([1 - s - DRAW_RATE / 2, DRAW_RATE, s - DRAW_RATE / 2])


def pair_probabilities(games: np.ndarray) -> np.ndarray:
    """A's chances of 0, ½, 1, 1½, 2 points in a pair: independent games with probability 1 − COUPLING,
    antithetic (the seat decides) with probability COUPLING."""
    edges = np.r_[0, np.cumsum(games)]
    joint = (1 - COUPLING) * np.outer(games, games)
    for i in range(3):
        for j in range(3):
            joint[i, j] += COUPLING * max(0.0, min(edges[i + 1], 1 - edges[j]) - max(edges[i], 1 - edges[j + 1]))
    out = np.zeros(5)
    for i in range(3):
        for j in range(3):
            out[i + j] += joint[i, j]
    return out


def per_game_sd(p: np.ndarray) -> float:
    """Standard deviation of one observation's per-game score (a pair's points / 2)."""
    points = np.linspace(0, 1, p.size)
    mean = (p * points).sum()
    return float(np.sqrt((p * points**2).sum() - mean**2))


def fixed_games(paired: bool) -> int:
    """Games a fixed-sample test needs for the same α and β."""
    sds = []
    for elo in (ELO0, ELO1):
        g = game_probabilities(score(elo))
        sds.append(per_game_sd(pair_probabilities(g) if paired else g))
    z = norm.ppf(1 - ALPHA), norm.ppf(1 - BETA)
    n = ((z[0] * sds[0] + z[1] * sds[1]) / (score(ELO1) - score(ELO0))) ** 2
    return int(np.ceil(n)) * (2 if paired else 1)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=2000, help="simulated matches per cell (default 2000)")
    args = ap.parse_args()
    t0 = time.perf_counter()
    print(f"SPRT H0: {ELO0:.0f} Elo, H1: {ELO1:.0f} Elo, alpha = beta = {ALPHA}; draw rate {DRAW_RATE:.0%}; "
          f"{args.runs} simulated matches per cell")  # fmt: skip
    fixed = {paired: fixed_games(paired) for paired in (False, True)}
    head = f"{'true Elo':>8} | {'unpaired: games':>15} {'P(H1)':>6} | {'paired: games':>13} {'P(H1)':>6} | "
    print(head + f"{'fixed: unpaired':>15} {'paired':>7}")
    for elo in (0, 20, 50, 100):
        g = game_probabilities(score(elo))
        cells = []
        for paired in (False, True):
            p = pair_probabilities(g) if paired else g
            decision, steps = simulate_sprt(p, args.runs, seed=elo + 1, elo0=ELO0, elo1=ELO1, alpha=ALPHA, beta=BETA)
            games = steps * (2 if paired else 1)
            cells.append((games.mean(), np.mean(decision == 1)))
        (gu, hu), (gp, hp) = cells
        print(f"{elo:>8} | {gu:>15.0f} {hu:>6.3f} | {gp:>13.0f} {hp:>6.3f} | {fixed[False]:>15} {fixed[True]:>7}")
    print(f"({time.perf_counter() - t0:.0f} s)")


if __name__ == "__main__":
    main()
