"""How many games does "is A stronger than B?" need: the sequential test on game pairs and on
single games, against a fixed-sample design with the same error rates.

    .venv/bin/python benchmarks/sequential.py            # about ten minutes on 2 cores
    .venv/bin/python benchmarks/sequential.py --runs 500 --tournaments 200  # quicker, rougher

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

Then the error rates per pentanomial truth: three distributions of A's points per pair typical of
deterministic agents from random openings (most pairs 1 : 1, the rest 2 : 0 or 0 : 2, some with half
points), tilted exponentially to the mean score of elo0 (P(H1) is the type I error) and of elo1
(P(H0) is the type II error), `--runs-errors` runs each.

The speed of the ratio's constrained fit (`gamekit.stats._tilt`, solved for every run and step of a
simulation at once): its root finding iterates only on the entries not yet solved; the baseline below
iterates on the whole array until the last entry is solved, as it did before 2026-12-04. Both give the
same numbers bit for bit; the ratio is printed.

Last, the coverage of the rating intervals a class sees: simulated round robins of four agents at
0, 100, 200, 300 Elo with 1, 2, 5, 10, 20 starts per pairing (each from both seats), Davidson draws
(ν = 1) and a 200 Elo first-move advantage; for each method, the share of tournaments whose 95 %
interval contains the true rating, worst and best of the four agents. "bootstrap": the plain percentile
bootstrap over game pairs (1,000 replicates; `--tournaments` / 5 tournaments, it is slow);
"robust": `robust_ratings` (profile likelihood, design effect, t quantile), which prints no
interval below 5 pairs per pairing ("too few").
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from scipy.optimize import brentq
from scipy.stats import norm

from gamekit.stats import ELO_PER_NAT, _design, _maximise, bootstrap_ratings, robust_ratings, simulate_sprt

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


#: Pentanomial shapes (A's 0, 1/2, 1, 3/2, 2 points per pair) at equal strength, typical of deterministic agents.
SHAPES = ((0.15, 0.0, 0.7, 0.0, 0.15), (0.05, 0.15, 0.6, 0.15, 0.05), (0.3, 0.0, 0.4, 0.0, 0.3))


def tilted(shape: tuple[float, ...], s: float) -> np.ndarray:
    """The shape tilted exponentially (q_k ∝ shape_k e^(t k)) to the mean score s per game."""
    base, k = np.array(shape), np.arange(5)

    def mean(t: float) -> float:
        q = base * np.exp(t * k)
        return float((q / q.sum()) @ k / 4) - s

    q = base * np.exp(brentq(mean, -20, 20) * k)
    return q / q.sum()


def error_rates(runs: int) -> None:
    print(f"\nGSPRT error rates per pentanomial truth ({runs} runs each; nominal alpha = beta = {ALPHA})")
    print(f"{'shape at 0 Elo':>32} | {'P(H1) at elo0':>13} | {'P(H0) at elo1':>13} | {'pairs (mean)':>12}")
    for k, shape in enumerate(SHAPES):
        d0, n0 = simulate_sprt(tilted(shape, score(ELO0)), runs, seed=100 + k)
        d1, n1 = simulate_sprt(tilted(shape, score(ELO1)), runs, seed=200 + k)
        print(
            f"{str(list(shape)):>32} | {np.mean(d0 == 1):>13.4f} | {np.mean(d1 == -1):>13.4f} | "
            f"{(n0.mean() + n1.mean()) / 2:>12.0f}"
        )


TRUE_ELO = (0.0, 100.0, 200.0, 300.0)
MEETINGS = [(i, j) for i in range(4) for j in range(i + 1, 4)]


def davidson(first: float, second: float, nu: float) -> np.ndarray:
    p, q = 10 ** (first / 400), 10 ** (second / 400)
    z = p + q + nu * np.sqrt(p * q)
    return np.array([p / z, q / z, nu * np.sqrt(p * q) / z])


def chances(i: int, j: int, nu: float, seat: float) -> tuple[np.ndarray, np.ndarray]:
    """i's (win, loss, draw) chances when i moves first, and when j moves first."""
    return davidson(TRUE_ELO[i] + seat, TRUE_ELO[j], nu), davidson(TRUE_ELO[j] + seat, TRUE_ELO[i], nu)[[1, 0, 2]]


def true_ratings(nu: float, seat: float) -> np.ndarray:
    expected = np.array([sum(chances(i, j, nu, seat)) / 2 for i, j in MEETINGS])
    V, C, _ = _design(4, MEETINGS, expected * 1e6, "davidson")
    x, _ = _maximise(V, C, 4, 0.0)
    r = ELO_PER_NAT * x[:4]
    return r - r.mean()


def round_robin(n: int, nu: float, seat: float, rng: np.random.Generator) -> tuple[list, list]:
    results, units = [], []
    points = np.array([1.0, 0.0, 0.5])
    for i, j in MEETINGS:
        a, b = chances(i, j, nu, seat)
        u = rng.random(2 * n)
        first = np.tile([0, 1], n)
        outcome = np.where(first == 0, np.searchsorted(np.cumsum(a), u), np.searchsorted(np.cumsum(b), u))
        results += [(i, j, float(x)) for x in points[np.minimum(outcome, 2)]]
        units += [f"{i}-{j}-{k // 2}" for k in range(2 * n)]
    return results, units


def coverage(tournaments: int) -> None:
    nu, seat = 1.0, 200.0
    true = true_ratings(nu, seat)
    names = ("a", "b", "c", "d")
    print("\nCoverage of 95 % rating intervals, 4 agents at 0/100/200/300 Elo, draws (nu = 1), 200 Elo seat advantage")
    print(f"{'pairs per pairing':>17} | {'bootstrap (percentile)':>24} | {'robust (printed)':>20}")
    for n in (1, 2, 5, 10, 20):
        rng = np.random.default_rng(n)
        cells = []
        for method, count in (("bootstrap", max(20, tournaments // 5)), ("robust", tournaments)):
            hits, given = np.zeros(4), 0
            for k in range(count):
                results, units = round_robin(n, nu, seat, rng)
                if method == "bootstrap":
                    r = bootstrap_ratings(names, results, units=units, reps=1000, seed=k, expand=False)
                else:
                    r = robust_ratings(names, results, units=units)
                if r.low is None or r.high is None:
                    continue
                given += 1
                hits += [lo <= t <= hi for lo, t, hi in zip(r.low, true, r.high)]
            cells.append(
                f"{(hits / given).min():.3f}-{(hits / given).max():.3f} ({given})" if given else "too few (none)"
            )
        print(f"{n:>17} | {cells[0]:>24} | {cells[1]:>20}")


def _tilt_whole_array(p: np.ndarray, a: np.ndarray, s: float) -> np.ndarray:
    """The baseline: `gamekit.stats._tilt`'s iteration on the whole array until every entry is solved."""
    d = a - s
    lo, hi = np.full(p.shape[:-1], -1 / d.max()), np.full(p.shape[:-1], -1 / d.min())
    lam, last = np.zeros(p.shape[:-1]), np.full(p.shape[:-1], np.inf)
    for _round in range(400):
        den = 1 + lam[..., None] * d
        terms = p * d / den
        f = terms.sum(-1)
        solved = (np.abs(f) <= 1e-13 * np.abs(terms).sum(-1)) | (hi - lo <= 8e-16 * np.maximum(1.0, np.abs(lam)))
        if solved.all():
            return lam
        slope = -(terms * d / den).sum(-1)
        lo, hi = np.where(f > 0, lam, lo), np.where(f <= 0, lam, hi)
        newton = lam - f / slope
        good = (newton > lo) & (newton < hi) & (np.abs(f) <= 0.5 * last)
        last = np.abs(f)
        lam = np.where(solved, lam, np.where(good, newton, (lo + hi) / 2))
    raise ArithmeticError("not solved")


def tilt_speed(repeats: int = 3) -> None:
    """The constrained fit on one simulation block (4,000 runs x 128 pairs of counts), both ways."""
    from gamekit.stats import _elo_to_score, _tilt

    rng = np.random.default_rng(5)
    counts = np.cumsum(np.eye(5)[rng.choice(5, size=(4000, 128), p=[0.1, 0.15, 0.5, 0.15, 0.1])], axis=1)
    counts = np.where(counts > 0, counts, 1e-3)
    p, a, s = counts / counts.sum(-1, keepdims=True), np.linspace(0, 1, 5), _elo_to_score(ELO1)
    times = {}
    for name, solve in (("whole array (baseline)", _tilt_whole_array), ("unsolved entries only", _tilt)):
        best = np.inf
        for _ in range(repeats):
            t = time.perf_counter()
            lam = solve(p, a, s)
            best = min(best, time.perf_counter() - t)
        times[name] = (best, lam)
    (t0, l0), (t1, l1) = times.values()
    print(f"constrained fit of 512,000 count vectors: baseline {t0:.2f} s, now {t1:.2f} s, "
          f"{t0 / t1:.1f} x faster; identical: {bool(np.array_equal(l0, l1))}")  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=2000, help="simulated matches per cell (default 2000)")
    ap.add_argument("--runs-errors", type=int, default=4000, help="runs per pentanomial truth (default 4000)")
    ap.add_argument("--tournaments", type=int, default=1000, help="tournaments per coverage cell (default 1000)")
    args = ap.parse_args()
    t0 = time.perf_counter()
    print(f"SPRT H0: {ELO0:.0f} Elo, H1: {ELO1:.0f} Elo, alpha = beta = {ALPHA}; draw rate {DRAW_RATE:.0%}; "
          f"{args.runs} simulated matches per cell")  # fmt: skip
    tilt_speed()
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
    error_rates(args.runs_errors)
    coverage(args.tournaments)
    print(f"({time.perf_counter() - t0:.0f} s)")


if __name__ == "__main__":
    main()
