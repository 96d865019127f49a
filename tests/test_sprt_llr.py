"""The sequential test's log-likelihood ratio against an independent constrained maximum likelihood.

The generalized LLR of counts c is max Σ c_k ln q_k over the distributions q with mean score s1,
minus the same maximum at s0 (an outcome not seen yet counts `PSEUDO_COUNT` times). The oracles
here share no code with `gamekit.stats`: scipy's SLSQP maximises over the simplex directly (a
sample, in the quick tier), and scipy's vectorised bracketed root finder (Chandrupatla) solves
the Lagrange condition for every count vector up to 40 pairs and 80 single games (slow tier).
"""

import itertools

import numpy as np
import pytest
from scipy import optimize
from scipy.linalg import null_space

from gamekit.stats import PSEUDO_COUNT, sprt, sprt_llr

S0, S1 = 0.5, 1 / (1 + 10 ** (-50 / 400))  # mean scores at 0 and 50 Elo


def simplex_max(counts: np.ndarray, s: float) -> float:
    """max Σ c ln q over q > 0, Σ q = 1, Σ q a = s: Newton with a trust region on the plane of
    both constraints (q = q0 + N z, N spanning their null space), from a positive feasible start."""
    c = np.where(counts > 0, counts, PSEUDO_COUNT).astype(float)
    w, a = c / c.sum(), np.linspace(0, 1, len(c))
    constraints = np.vstack([np.ones(len(c)), a])
    q0 = np.linalg.lstsq(constraints, np.array([1.0, s]), rcond=None)[0]
    N = null_space(constraints)
    inside = np.full(len(c), 1 / len(c)) + (s - 0.5) * (a - 0.5) * 2

    def neg(z: np.ndarray) -> float:
        q = q0 + N @ z
        return np.inf if np.any(q <= 0) else -float(w @ np.log(q))

    z0 = np.linalg.lstsq(N, inside - q0, rcond=None)[0]
    assert np.all(q0 + N @ z0 > 0)
    res = optimize.minimize(
        neg,
        z0,
        jac=lambda z: -(N.T @ (w / (q0 + N @ z))),
        hess=lambda z: N.T @ ((w / (q0 + N @ z) ** 2)[:, None] * N),
        method="trust-exact",
        options={"gtol": 1e-12},
    )
    q = q0 + N @ res.x
    assert abs(q.sum() - 1) < 1e-12 and abs(q @ a - s) < 1e-12 and np.all(q > 0)
    return -float(res.fun) * c.sum()


def simplex_llr(counts) -> float:
    c = np.asarray(counts, float)
    return simplex_max(c, S1) - simplex_max(c, S0)


def test_the_counts_that_used_to_go_wrong():
    """(1, 1, 13, 11, 4) pairs: the ratio is +2.90, past the upper bound (it once read −29.85)."""
    t = sprt(pairs=(1, 1, 13, 11, 4))
    assert t.llr == pytest.approx(simplex_llr((1, 1, 13, 11, 4)), abs=1e-9)
    assert t.llr == pytest.approx(2.8986, abs=1e-4) and t.decision == "H1"
    assert t.lower < 0 < t.upper


def test_the_ratio_is_the_constrained_maximum_likelihood_on_a_sample_of_counts():
    rng = np.random.default_rng(28)
    vectors = [rng.multinomial(int(rng.integers(1, 41)), rng.dirichlet(np.ones(5) / 2)) for _ in range(30)]
    vectors += [rng.multinomial(int(rng.integers(1, 81)), rng.dirichlet(np.ones(3) / 2)) for _ in range(20)]
    vectors += [np.array(v) for v in [(0, 0, 0, 0, 40), (40, 0, 0, 0, 0), (0, 0, 40, 0, 0), (0, 0, 1), (80, 0, 0)]]
    for v in vectors:
        assert sprt_llr(v.astype(float)).llr == pytest.approx(simplex_llr(v), abs=1e-9), v


def _every_count_vector(k: int, total: int) -> np.ndarray:
    """Every vector of k counts >= 0 with 1 <= sum <= total."""
    head = np.array([c for c in itertools.product(range(total + 1), repeat=k - 1) if sum(c) <= total], int)
    rows = [np.column_stack([np.repeat(h[None], total - h.sum() + 1, 0), np.arange(total - h.sum() + 1)]) for h in head]
    out = np.concatenate(rows)
    return out[out.sum(1) > 0].astype(float)


def _root_oracle(counts: np.ndarray, s: float, elementwise) -> np.ndarray:
    """max Σ c ln q at mean s, from the Lagrange condition Σ c d / (1 + λ d) = 0 solved by scipy's
    bracketed root finder, and q renormalised before the objective is taken."""
    c = np.where(counts > 0, counts, PSEUDO_COUNT)
    d = np.linspace(0, 1, c.shape[1]) - s
    lo, hi = np.full(len(c), -1 / d.max() * (1 - 1e-15)), np.full(len(c), -1 / d.min() * (1 - 1e-15))

    def f(lam, *cols):
        return sum(ck * dk / (1 + lam * dk) for ck, dk in zip(cols, d))

    res = elementwise.find_root(f, (lo, hi), args=tuple(c.T), tolerances={"xrtol": 1e-15, "xatol": 0})
    assert np.all(res.success)
    q = c / c.sum(1, keepdims=True) / (1 + res.x[:, None] * d)
    assert np.all(q > 0) and np.allclose(q @ (d + s), s, atol=1e-12)
    q /= q.sum(1, keepdims=True)
    return (c * np.log(q)).sum(1)


@pytest.mark.slow  # about 40 s: 1,221,758 pentanomial and 91,880 trinomial count vectors
@pytest.mark.parametrize(("k", "total"), [(3, 80), (5, 40)], ids=["trinomial-80-games", "pentanomial-40-pairs"])
def test_the_ratio_is_the_constrained_maximum_likelihood_on_every_small_count_vector(k, total):
    elementwise = pytest.importorskip("scipy.optimize.elementwise", reason="scipy >= 1.15 has the root finder")
    every = _every_count_vector(k, total)
    for chunk in np.array_split(every, max(1, len(every) // 100_000)):
        oracle = _root_oracle(chunk, S1, elementwise) - _root_oracle(chunk, S0, elementwise)
        lib = sprt_llr(chunk).llr
        worst = int(np.argmax(np.abs(lib - oracle)))
        assert abs(lib[worst] - oracle[worst]) <= 1e-9, chunk[worst]
