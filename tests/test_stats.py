"""gamekit.stats: intervals against scipy and known values, the rating fit against a generic optimiser."""

import math

import numpy as np
import pytest
from scipy import optimize
from scipy.stats import binomtest

from gamekit.stats import bootstrap_ratings, fit_ratings, rate_text, sprt, wilson

# --- Wilson -------------------------------------------------------------------------------------


def test_wilson_matches_known_values_and_scipy():
    # Known values (Wilson 1927 score interval, 95 %): 0/10 -> [0, 0.2775], 5/10 -> [0.2366, 0.7634]
    assert wilson(0, 10) == pytest.approx((0.0, 0.27754), abs=1e-5)
    assert wilson(5, 10) == pytest.approx((0.23659, 0.76341), abs=1e-5)
    for k, n, c in [(3, 7, 0.95), (40, 100, 0.9), (99, 100, 0.99)]:
        ci = binomtest(k, n).proportion_ci(confidence_level=c, method="wilson")
        assert wilson(k, n, c) == pytest.approx((ci.low, ci.high), abs=1e-12)


def test_wilson_for_a_half_integer_score_is_the_hull_of_its_neighbours():
    lo, hi = wilson(5.5, 10)
    assert lo == wilson(5, 10)[0] and hi == wilson(6, 10)[1]
    assert lo < 0.55 < hi


def test_rate_text():
    assert rate_text(22, 40) == "0.55 [0.40, 0.69], n = 40"


@pytest.mark.parametrize(
    "k, n, conf, exc",
    [(11, 10, 0.95, ValueError), (-1, 10, 0.95, ValueError), (1, 0, 0.95, ValueError), (1, 2.0, 0.95, TypeError),
     (1, True, 0.95, TypeError), (1, 10, 1.0, ValueError), (math.nan, 10, 0.95, ValueError),
     ("1", 10, 0.95, TypeError), (1, None, 0.95, TypeError), (1, 10, "95%", TypeError), (True, 10, 0.95, TypeError)],
)  # fmt: skip
def test_wilson_refuses_bad_input(k, n, conf, exc):
    with pytest.raises(exc):
        wilson(k, n, conf)


def test_numpy_numbers_are_accepted():
    assert wilson(np.int64(5), np.int64(10)) == wilson(5, 10)
    r = fit_ratings(["a", "b"], [(np.int64(0), np.int64(1), np.float64(1.0)), (0, 1, 0.0)], prior=np.float64(1.0))
    assert r["a"] == pytest.approx(0.0, abs=1e-9)


# --- the rating fit against a generic optimiser ----------------------------------------------


def simulate(seed: int, n_agents: int = 5, games: int = 200, nu: float = 0.8, spread: float = 2.0):
    """Games from the Davidson model with known strengths."""
    rng = np.random.default_rng(seed)
    theta = np.linspace(0, spread, n_agents)
    out = []
    for _ in range(games):
        i, j = (int(x) for x in rng.choice(n_agents, 2, replace=False))
        w = np.array([math.exp(theta[i]), math.exp(theta[j]), nu * math.exp((theta[i] + theta[j]) / 2)])
        k = rng.choice(3, p=w / w.sum())
        out.append((i, j, (1.0, 0.0, 0.5)[k]))
    return [f"a{k}" for k in range(n_agents)], out


def negloglik(x, n, results, prior, draws):
    """The stated objective, written out game by game (independently of gamekit)."""
    th = x[:n]
    nu = math.exp(x[n]) if draws == "davidson" else None
    total = 0.0
    for i, j, s in results:
        if nu is None:
            pi = math.exp(th[i]) / (math.exp(th[i]) + math.exp(th[j]))
            total += s * math.log(pi) + (1 - s) * math.log(1 - pi)
        else:
            z = math.exp(th[i]) + math.exp(th[j]) + nu * math.exp((th[i] + th[j]) / 2)
            num = {1.0: math.exp(th[i]), 0.0: math.exp(th[j]), 0.5: nu * math.exp((th[i] + th[j]) / 2)}[s]
            total += math.log(num / z)
    for t in th:  # prior/2 wins and prior/2 losses against strength 1
        total += prior / 2 * (math.log(math.exp(t) / (math.exp(t) + 1)) + math.log(1 / (math.exp(t) + 1)))
    return -total


@pytest.mark.parametrize("draws, prior", [("davidson", 1.0), ("half", 1.0), ("davidson", 0.0), ("half", 3.0)])
def test_fit_reaches_the_maximum_a_generic_optimiser_finds(draws, prior):
    names, results = simulate(seed=3)
    n = len(names)
    fit = fit_ratings(names, results, prior=prior, draws=draws, anchor="a0")
    d = n + (1 if draws == "davidson" else 0)
    if prior == 0:  # shift invariance: hold theta_0 at 0
        f = lambda y: negloglik(np.r_[0.0, y], n, results, prior, draws)
        opt = optimize.minimize(f, np.zeros(d - 1), method="BFGS", options={"gtol": 1e-8})
        x = np.r_[0.0, opt.x]
    else:
        opt = optimize.minimize(lambda y: negloglik(y, n, results, prior, draws), np.zeros(d), method="BFGS",
                                options={"gtol": 1e-8})  # fmt: skip
        x = opt.x
    elo = 400 / math.log(10) * (x[:n] - x[0])
    assert fit.elo == pytest.approx(tuple(elo), abs=0.05)
    assert fit.loglik == pytest.approx(-opt.fun, abs=1e-6)
    assert fit.loglik >= -opt.fun - 1e-9  # never below what the generic optimiser reaches
    if draws == "davidson":
        assert fit.draw == pytest.approx(math.exp(x[n]), rel=1e-4)
    else:
        assert fit.draw is None


def test_davidson_without_draws_is_bradley_terry():
    names, results = simulate(seed=5, nu=0.0)
    assert all(s != 0.5 for _, _, s in results)
    a = fit_ratings(names, results, draws="davidson")
    b = fit_ratings(names, results, draws="half")
    assert a.draw == 0.0 and b.draw is None
    assert a.elo == pytest.approx(b.elo, abs=1e-9) and a.loglik == pytest.approx(b.loglik, abs=1e-9)


def test_ratings_recover_the_true_strengths_roughly_and_anchor():
    names, results = simulate(seed=11, games=3000, spread=1.5)
    fit = fit_ratings(names, results, prior=0.0)
    assert abs(sum(fit.elo)) < 1e-9  # mean 0 without an anchor
    true = 400 / math.log(10) * np.linspace(0, 1.5, 5)
    true = true - true.mean()
    assert np.max(np.abs(np.array(fit.elo) - true)) < 40  # ~3 standard errors at 3000 games
    assert fit.draw == pytest.approx(0.8, abs=0.15)
    assert fit_ratings(names, results, anchor="a2")["a2"] == 0.0


def test_no_finite_maximum_without_prior_is_an_error_and_the_prior_fixes_it():
    results = [(0, 1, 1.0)] * 5 + [(1, 2, 0.0), (1, 2, 1.0)]  # a0 never loses
    with pytest.raises(ValueError, match="no finite maximum"):
        fit_ratings(["a", "b", "c"], results, prior=0.0)
    r = fit_ratings(["a", "b", "c"], results, prior=1.0)
    assert r["a"] > r["b"]


@pytest.mark.parametrize(
    "names, results, kw",
    [(["a", "a"], [], {}), (["a", "b"], [(0, 0, 1.0)], {}), (["a", "b"], [(0, 1, 0.7)], {}),
     (["a", "b"], [(0, 2, 1.0)], {}), (["a", "b"], [(0, 1, 1.0)], {"prior": -1}),
     (["a", "b"], [(0, 1, 1.0)], {"draws": "rao"}), (["a", "b"], [(0, 1, 1.0)], {"anchor": "z"}),
     (["a", "b"], [(0, 1, 0.5)] * 3, {}), (["a", "b"], [(0.0, 1, 1.0)], {}), (["a", "b"], [(0, 1, "win")], {}),
     (["a", "b"], [(0, 1, 1.0)], {"prior": True}), ("ab", [], {}), (["a", "b"], [(0, 1)], {})],
)  # fmt: skip
def test_fit_refuses_bad_input(names, results, kw):
    with pytest.raises((ValueError, TypeError)):
        fit_ratings(names, results, **kw)


# --- bootstrap --------------------------------------------------------------------------------


def test_bootstrap_is_reproducible_and_brackets_the_estimate():
    names, results = simulate(seed=2, games=150)
    a = bootstrap_ratings(names, results, reps=60, seed=4, anchor="a0")
    b = bootstrap_ratings(names, results, reps=60, seed=4, anchor="a0")
    c = bootstrap_ratings(names, results, reps=60, seed=5, anchor="a0")
    assert a == b and a.low != c.low
    assert a.elo == fit_ratings(names, results, anchor="a0").elo
    assert a.interval("a0") == (0.0, 0.0)
    for name in names[1:]:
        lo, hi = a.interval(name)
        assert lo < a[name] < hi
    assert a.interval("a4")[0] > 0  # the strongest agent is clearly above the weakest here
    with pytest.raises(ValueError, match="no intervals"):
        fit_ratings(names, results).interval("a1")


# --- how many games ---------------------------------------------------------------------------


def test_sprt_decides_clear_cases_and_waits_on_unclear_ones():
    assert sprt(games=(60, 20, 20)).decision == "H1"
    assert sprt(games=(20, 20, 60)).decision == "H0"
    assert sprt(games=(5, 0, 5)).decision is None
    t = sprt(games=(30, 10, 10))
    assert t.lower < 0 < t.upper and t.games == 50 and t.model == "trinomial" and t.score == 0.7
    p = sprt(pairs=(0, 2, 10, 8, 5))
    assert p.model == "pentanomial" and p.games == 50 and p.counts == (0, 2, 10, 8, 5)
    assert p.score == pytest.approx((2 * 0.5 + 10 + 8 * 1.5 + 5 * 2) / 50)


def test_sprt_never_decides_on_two_alike_results():
    """Two wins or two draws say little: the ratio stays small and finite (22 wins are needed)."""
    for games in [(2, 0, 0), (0, 2, 0), (0, 0, 2), (4, 1, 0), (1, 0, 0), (0, 0, 0)]:
        t = sprt(games=games)
        assert t.decision is None and math.isfinite(t.llr) and abs(t.llr) < 1 and t.more >= 1
    assert sprt(games=(10, 1, 1)).decision is None  # 1.28, far below the bound
    assert sprt(games=(21, 0, 0)).decision is None and sprt(games=(23, 0, 0)).decision == "H1"


@pytest.mark.parametrize(
    "kw",
    [{}, {"games": (1, 1, 1), "pairs": (1, 1, 1, 1, 1)}, {"games": (1, 1)}, {"pairs": (1, 1, 1)},
     {"games": (1, -1, 1)}, {"games": (1, 1.5, 1)}, {"games": "abc"}, {"games": (1, 1, 1), "elo0": 50, "elo1": 0},
     {"games": (1, 1, 1), "alpha": 0.5}, {"games": (1, 1, 1), "beta": 0}, {"games": (1, 1, 1), "elo1": math.inf}],
)  # fmt: skip
def test_sprt_refuses_bad_input(kw):
    with pytest.raises((ValueError, TypeError)):
        sprt(**kw)


def test_prior_zero_without_a_maximum_is_an_error_never_far_numbers():
    """b drew and won but never lost: in Davidson's model the likelihood grows without bound."""
    with pytest.raises(ValueError, match="no finite maximum"):
        fit_ratings(["a", "b"], [(0, 1, 0.5), (0, 1, 0.0), (0, 1, 0.0)], prior=0.0)
    with pytest.raises(ValueError, match="never met"):
        fit_ratings(["a", "b", "c", "d"], [(0, 1, 1.0), (0, 1, 0.0), (2, 3, 1.0), (2, 3, 0.0)], prior=0.0)
    rng = np.random.default_rng(0)
    for _ in range(300):  # random small tournaments: a fit either raises or is a true maximum
        n = int(rng.integers(2, 4))
        res = [(*map(int, rng.choice(n, 2, replace=False)), float(rng.choice([0, 0.5, 1]))) for _ in range(6)]
        try:
            fit = fit_ratings([f"a{k}" for k in range(n)], res, prior=0.0)
        except ValueError:
            continue
        assert max(map(abs, fit.elo)) < 1000 and 1e-3 < (fit.draw or 1.0) < 1e3


def test_bootstrap_over_pairs_keeps_pairs_together_and_never_gives_zero_width():
    # every pair is one win and one loss: resampling pairs cannot change the score, games can
    names, res = ["a", "b"], [(0, 1, 1.0), (0, 1, 0.0)] * 20
    by_games = bootstrap_ratings(names, res, seed=1, reps=1000)
    by_pairs = bootstrap_ratings(names, res, units=[k // 2 for k in range(40)], seed=1, reps=1000)
    assert by_games.interval("a")[1] - by_games.interval("a")[0] > 50
    lo, hi = by_pairs.interval("a")
    # every replicate is the same, so the interval is the (game-level) profile likelihood's, never [0, 0]
    assert lo < 0 < hi and by_pairs.profiled == ("a", "b") and by_games.profiled == ()
    # four wins in four games: every replicate alike; the interval is the profile likelihood's
    four = bootstrap_ratings(names, [(0, 1, 1.0)] * 4, seed=2, reps=1000)
    lo, hi = four.interval("a")
    assert four.profiled == ("a", "b") and lo < four["a"] < hi and hi - lo > 100
    with pytest.raises(ValueError, match="different pairings"):
        bootstrap_ratings(["a", "b", "c"], [(0, 1, 1.0), (1, 2, 1.0)], units=[0, 0], seed=1)
    with pytest.raises(ValueError, match="one label per result"):
        bootstrap_ratings(names, res, units=[0], seed=1)


# --- the leaderboard's intervals: profile likelihood, never Wald's symmetric guess -------------


def unbeaten_field():
    """Four agents, 10 single games per pairing; d wins all 30 of its games."""
    rng = np.random.default_rng(5)
    results = []
    for i in range(4):
        for j in range(i + 1, 4):
            for _ in range(10):
                results.append((i, j, 0.0 if j == 3 else float(rng.choice([1.0, 0.0], p=[0.6, 0.4]))))
    return ("a", "b", "c", "d"), results


def test_an_unbeaten_agent_gets_the_profile_likelihood_interval_not_a_symmetric_one():
    from scipy.stats import t as student

    from gamekit.stats import robust_ratings

    names, results = unbeaten_field()
    r = robust_ratings(names, results, draws="half")  # every game its own unit: design effect 1
    lo, hi = r.interval("d")
    assert hi - r["d"] > 1.5 * (r["d"] - lo)  # the likelihood is flat above: far from symmetric
    # oracle: at each end, the best fit with that rating (scipy, the objective written out game by
    # game) lies t²/2 below the maximum, t Student's with G − 1 = 59 df
    q = float(student.ppf(0.975, len(results) - 1))
    f_hat = -optimize.minimize(lambda y: negloglik(y, 4, results, 1.0, "half"), np.zeros(4), method="BFGS").fun
    assert f_hat == pytest.approx(r.loglik, abs=1e-6)
    elo = lambda y: 400 / math.log(10) * (y[3] - y.mean())  # d's reported rating (mean 0)
    for end in (lo, hi):
        opt = optimize.minimize(
            lambda y: negloglik(y, 4, results, 1.0, "half"),
            np.zeros(4),
            method="SLSQP",
            constraints=[{"type": "eq", "fun": lambda y: elo(y) - end}],
            options={"ftol": 1e-12, "maxiter": 500},
        )
        assert 2 * (f_hat + opt.fun) == pytest.approx(q**2, abs=1e-4)
    # the difference's interval and its p-value are one test: 0 lies outside exactly when p < 5 %
    for a, b in [("d", "a"), ("a", "b"), ("c", "b")]:
        diff, low, high, p = r.difference(a, b)
        assert low < diff < high and (p < 0.05) == (low > 0 or high < 0)


def test_pooled_replays_of_a_deterministic_pairing_do_not_change_the_bootstrap_level():
    from gamekit.stats import expanded_tail

    rng = np.random.default_rng(9)
    results, units = [], []
    for i, j, pairs in [(0, 1, 50), (0, 2, 50), (1, 2, 5)]:
        for k in range(pairs):
            if (i, j) == (1, 2):  # five replays of one deterministic game pair: a draw and a win
                games = [0.5, 1.0]
            else:
                games = [float(x) for x in rng.choice([1.0, 0.5, 0.0], size=2, p=[0.45, 0.2, 0.35])]
            results += [(i, j, s) for s in games]
            units += [f"{i}{j}-{k}"] * 2
    names = ("x", "y", "z")
    boot = bootstrap_ratings(names, results, units=units, reps=1000, seed=4)
    at_50 = bootstrap_ratings(
        names, results, units=units, reps=1000, seed=4, expand=False, confidence=1 - 2 * expanded_tail(0.95, 50)
    )
    at_5 = bootstrap_ratings(
        names, results, units=units, reps=1000, seed=4, expand=False, confidence=1 - 2 * expanded_tail(0.95, 5)
    )
    assert boot.low is not None and boot.high is not None and at_5.low is not None and at_5.high is not None
    assert boot.low + boot.high == pytest.approx(at_50.low + at_50.high, abs=1e-9)  # read where the varying
    # pairings put it, not at the five replays' extreme tail (0.1 %), which would widen every interval
    assert all(b - a > 1 for a, b in zip(boot.high, at_5.high))
