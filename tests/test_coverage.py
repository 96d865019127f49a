"""The intervals a class sees keep their promise: coverage on simulated tournaments with known truth.

Round robins in which each start is played twice with the seats swapped (the pair is the unit), or
the unpaired equivalent: twice as many games, each with its own start and a random seat order.
Games follow Davidson's model, without draws or with ν = 1 (a third of the games between equals
drawn). The truth is the model's fit to the expected outcome frequencies (with a seat advantage
the fitted ratings are slightly pulled together). `gamekit.stats._simulated_coverage` plays the
tournaments and computes every interval `robust_ratings` gives, as the leaderboard prints it (each
agent's rating, and the difference of each two neighbours in the fitted order), with the same code,
for 1,000 tournaments at once.

The fields: four agents at 0, 100, 200 and 300 Elo with 1–20 starts per pairing, paired and
unpaired, with and without 200 Elo for the first mover; the wide fields a class produces (a solver,
beginners, a random agent): 4, 5 or 10 agents spread evenly over 0, 600, 1,200 or 1,500 Elo (the
benchmark adds 300 and 900), 5 or 10 pairs per pairing; and two class-sized fields over 1,500 Elo:
30 agents with 5 pairs (no draws), 20 agents with 20 pairs (draws). `benchmarks/coverage.py` runs the
whole grid (4–30 agents, 0–1,500 Elo, 5, 10 and 20 pairs; its table is in benchmarks/README.md); these
cells are the part of it CI can afford.
In every cell the intervals of the ratings, and those of the neighbour differences, must hold the
truth on average and each single one in the ranges `COVERAGE_CHECKED` states (94–98 % and 92–99 %,
to whole percents; with 1,000 tournaments a share has a standard error of 0.7 points, and among
the thousands of shares of the grid a few lie three standard errors from their mean by chance
alone). Two neighbours less than `COVERAGE_CHECKED.near` Elo apart are exempt from the upper end:
their true difference is about 0, which the fitted order's interval holds almost always. Where
the board gives no interval, it must say that the games are too few.
"""

import numpy as np
import pytest

from gamekit.stats import COVERAGE_CHECKED, MIN_PAIRS, _simulated_coverage, robust_ratings

pytestmark = pytest.mark.slow

LOW, HIGH = (x + d for x, d in zip(COVERAGE_CHECKED.coverage, (-0.005, 0.005)))  # to whole percents
MEAN_LOW, MEAN_HIGH = (x + d for x, d in zip(COVERAGE_CHECKED.mean, (-0.005, 0.005)))


def check(shares: np.ndarray, upper: bool = True) -> None:
    """The average share and each share in the stated ranges (no upper ends: `upper` False)."""
    assert MEAN_LOW <= shares.mean() <= (MEAN_HIGH if upper else 1.0), shares
    assert np.all(shares >= LOW) and (not upper or np.all(shares <= HIGH)), shares


def check_field(spread: float, agents: int, pairs: int, nu: float, seed: int) -> None:
    rate, neighbours = _simulated_coverage(np.linspace(0, spread, agents), pairs=pairs, nu=nu, seed=seed)
    check(rate)
    check(neighbours, upper=spread / (agents - 1) >= COVERAGE_CHECKED.near)


def seed_of(spread: int, agents: int, pairs: int, nu: float) -> int:
    """As benchmarks/coverage.py takes it, so that a cell here is the benchmark's cell."""
    return 7 * spread + 31 * agents + 3 * pairs + int(nu) + (100_000 if agents == 4 else 0)


NARROW = (0.0, 100.0, 200.0, 300.0)


def too_few_games(pairs: int, rng: np.random.Generator) -> str:
    """robust_ratings' reason on a narrow field with `pairs` pairs per pairing."""
    results, units = [], []
    for i in range(4):
        for j in range(i + 1, 4):
            for k in range(2 * pairs):
                results.append((i, j, float(rng.choice([1.0, 0.5, 0.0]))))
                units.append(f"{i}-{j}-{k // 2}")
    r = robust_ratings(("a", "b", "c", "d"), results, units=units)
    assert (r.low is None) == (r.cov is None)
    return r.too_few


@pytest.mark.parametrize("n", [1, 2, 4])
def test_below_min_pairs_the_board_says_the_games_are_too_few(n):
    rng = np.random.default_rng(n)
    assert n < MIN_PAIRS
    for _ in range(20):
        assert "too few games" in too_few_games(n, rng)
    assert too_few_games(MIN_PAIRS, rng) == ""


@pytest.mark.parametrize("seat", [0.0, 200.0], ids=["no-seat-advantage", "seat-advantage"])
@pytest.mark.parametrize("nu", [0.0, 1.0], ids=["no-draws", "draws"])
@pytest.mark.parametrize("paired", [True, False], ids=["pairs", "unpaired"])
@pytest.mark.parametrize("n", [5, 10, 20])
def test_every_printed_interval_covers_on_a_narrow_field(n, paired, nu, seat):
    seed = 1000 * n + 100 * paired + 10 * int(nu) + int(seat > 0)
    rate, neighbours = _simulated_coverage(NARROW, pairs=n, nu=nu, seat=seat, paired=paired, seed=seed)
    check(rate)
    check(neighbours)


@pytest.mark.parametrize("pairs", [5, 10])
@pytest.mark.parametrize("nu", [0.0, 1.0], ids=["no-draws", "draws"])
@pytest.mark.parametrize("agents", [4, 5, 10])
@pytest.mark.parametrize("spread", [0, 600, 1200, 1500])  # the benchmark runs every 300 Elo
def test_every_printed_interval_covers_on_a_wide_field(spread, agents, nu, pairs):
    check_field(spread, agents, pairs, nu, seed_of(spread, agents, pairs, nu))


@pytest.mark.parametrize(
    "spread, agents, nu, pairs",
    [(1500, 30, 0.0, 5), (1500, 20, 1.0, 20)],
    ids=["30-agents-1500-elo-5-pairs", "20-agents-1500-elo-draws-20-pairs"],
)
def test_every_printed_interval_covers_in_a_class_sized_field(spread, agents, nu, pairs):
    check_field(spread, agents, pairs, nu, seed_of(spread, agents, pairs, nu))


def test_the_range_stated_is_the_range_checked():
    assert COVERAGE_CHECKED.spread == 1500 and COVERAGE_CHECKED.agents == (4, 30)
    assert COVERAGE_CHECKED.pairs == (5, 20) and MIN_PAIRS == 5
    text = COVERAGE_CHECKED.text()
    assert "1,500 Elo" in text and "4–30 agents" in text and "92–99 %" in text and "94–98 % on average" in text
