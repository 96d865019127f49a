"""Honest numbers from sampled games: intervals for rates, ratings with their uncertainty.

- `wilson(k, n)`: the Wilson score interval for a rate (scipy's `binomtest(...).proportion_ci`).
- `rate_text(k, n)`: a rate with its interval as text, e.g. "0.55 [0.40, 0.69], n = 40".
- `fit_ratings(names, results)`: Bradley–Terry ratings on the Elo scale, fitted by maximising the
  stated (penalised) likelihood exactly; draws modelled by Davidson (1970).
- `bootstrap_ratings(...)`: the same fit with percentile-bootstrap intervals (game pairs or games
  resampled within each pairing).
- `sprt(games=... | pairs=...)`: "is A better than B yet, and how many more games?", a generalized
  SPRT on game pairs (pentanomial) or single games (trinomial); `simulate_sprt` checks its
  error rates by simulation.

Results are triples `(i, j, score_of_i)` with indices into `names` and a score of 1 (i won),
0.5 (draw) or 0 (i lost). Everything random takes a `seed`. Why ratings have no intervals
(`Ratings.too_few`) is English data; `too_few_text` shows it in the language in force.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from numbers import Integral, Real
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from .i18n import LANGUAGES, N_, _, get_language, pgettext

if TYPE_CHECKING:
    from scipy.sparse import csr_matrix

__all__ = [
    "Ratings",
    "SPRT",
    "MIN_PAIRS",
    "COVERAGE_CHECKED",
    "bootstrap_ratings",
    "robust_ratings",
    "fit_ratings",
    "rate_text",
    "sprt",
    "simulate_sprt",
    "sprt_llr",
    "LLR",
    "too_few_text",
    "wilson",
]

ELO_PER_NAT = 400 / math.log(10)  # Elo = 400 log10(p) = ELO_PER_NAT * ln(p)
DRAW_MODELS = ("davidson", "half")
_MAX_THETA = 40.0  # |ln p| beyond this (about 7000 Elo) means the maximum does not exist


# --- rates -------------------------------------------------------------------------------------


def _check_real(x: object, what: str) -> float:
    """A real number (numpy floats and ints too), else a TypeError naming what is allowed."""
    if isinstance(x, bool) or not isinstance(x, Real):
        raise TypeError(f"{what} must be a number, got {type(x).__name__} {x!r}")
    return float(x)


def _check_confidence(confidence: float) -> float:
    if not 0 < _check_real(confidence, "confidence") < 1:
        raise ValueError(f"confidence must be a number strictly between 0 and 1, got {confidence!r}")
    return float(confidence)


def _check_count(n: object, what: str = "n", minimum: int = 1) -> int:
    if isinstance(n, bool) or not isinstance(n, Integral):
        raise TypeError(f"{what} must be a whole number (int), got {type(n).__name__} {n!r}")
    if n < minimum:
        raise ValueError(f"{what} must be >= {minimum}, got {n}")
    return int(n)


def wilson(k: float, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """The Wilson score interval for a rate of k successes in n trials.

    Computed by scipy (`binomtest(k, n).proportion_ci(method="wilson")`). A score with draws
    (k = wins + draws / 2, a half-integer) is not a binomial count; its per-game variance is at
    most that of a 0/1 game with the same mean, so a binomial interval is conservative. For a
    fractional k we return the hull of the intervals at floor(k) and ceil(k): from the lower end
    at floor(k) to the upper end at ceil(k) (both ends grow with k), a little wider still.

    Raises:
        TypeError: `n` is not a whole number, or `k` or `confidence` is not a number.
        ValueError: `n` is below 1, `k` is not between 0 and `n` (or not finite), or `confidence`
            is not strictly between 0 and 1.

    >>> [round(end, 3) for end in wilson(7, 10)]
    [0.397, 0.892]
    >>> [round(end, 3) for end in wilson(6.5, 10)]  # 6 wins and 1 draw: the hull at 6 and 7
    [0.313, 0.892]
    >>> wilson(11, 10)
    Traceback (most recent call last):
        ...
    ValueError: k must be a number between 0 and n = 10, got 11
    """
    n = _check_count(n, "n")
    if not math.isfinite(_check_real(k, "k")) or not 0 <= k <= n:
        raise ValueError(f"k must be a number between 0 and n = {n}, got {k!r}")
    level = _check_confidence(confidence)
    from scipy.stats import binomtest  # imported here: scipy.stats takes about a second to import

    lo_k, hi_k = math.floor(k), math.ceil(k)
    low = binomtest(lo_k, n).proportion_ci(confidence_level=level, method="wilson").low
    high = binomtest(hi_k, n).proportion_ci(confidence_level=level, method="wilson").high
    return float(low), float(high)


def rate_text(k: float, n: int, confidence: float = 0.95) -> str:
    """A rate and its Wilson interval as text: "0.55 [0.40, 0.69], n = 40".

    Raises:
        TypeError: as `wilson`.
        ValueError: as `wilson`.

    >>> rate_text(22, 40)
    '0.55 [0.40, 0.69], n = 40'
    """
    low, high = wilson(k, n, confidence)
    return f"{k / n:.2f} [{low:.2f}, {high:.2f}], n = {n}"


# --- ratings -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Ratings:
    """Fitted ratings on the Elo scale (400 points = odds of 10 : 1).

    elo[k] is the rating of names[k]; low/high are the ends of its interval (None without a
    bootstrap). loglik is the maximised objective: the log-likelihood of the games plus the
    prior's virtual games. draw is Davidson's draw parameter ν (None for draws="half"; 0 when
    no game was drawn). Two agents of equal strength draw with probability ν / (2 + ν).
    profiled: agents whose interval is a profile likelihood interval because every bootstrap
    replicate gave them the same rating (see `bootstrap_ratings`). method: how the intervals were
    made ("" without). cov, df: from `robust_ratings`, the covariance (Elo²) of the reported
    ratings and the degrees of freedom of its t quantiles (for `difference`). too_few: why there
    are no intervals (the games are too few for intervals that keep their level), else "".
    """

    names: tuple[str, ...]
    elo: tuple[float, ...]
    low: tuple[float, ...] | None
    high: tuple[float, ...] | None
    loglik: float
    draw: float | None
    profiled: tuple[str, ...] = ()
    method: str = ""
    cov: tuple[tuple[float, ...], ...] | None = None
    df: float | None = None
    too_few: str = ""
    profile: Callable[[int, int, float], tuple[float, float, float]] | None = field(
        default=None, repr=False, compare=False
    )

    def as_dict(self) -> dict[str, float]:
        """{name: rating}."""
        return dict(zip(self.names, self.elo))

    def interval(self, name: str) -> tuple[float, float]:
        """The (low, high) interval of `name`'s rating (needs a bootstrap)."""
        if name not in self.names:
            raise KeyError(f"{name!r} is not rated; rated: {', '.join(self.names)}")
        if self.low is None or self.high is None:
            raise ValueError(self.too_few or "these ratings have no intervals; use robust_ratings or bootstrap_ratings")
        k = self.names.index(name)
        return self.low[k], self.high[k]

    def difference(self, a: str, b: str, confidence: float = 0.95) -> tuple[float, float, float, float]:
        """a's rating minus b's, the ends of its interval and the two-sided p-value of "no
        difference" (needs `robust_ratings` with intervals): the interval of the difference, not
        two overlapping bars, says whether the order of a and b is settled."""
        level = _check_confidence(confidence)
        for name in (a, b):
            if name not in self.names:
                raise KeyError(f"{name!r} is not rated; rated: {', '.join(self.names)}")
        if self.cov is None or self.df is None:
            raise ValueError(self.too_few or "these ratings have no covariance; use robust_ratings")
        i, j = self.names.index(a), self.names.index(b)
        diff = self.elo[i] - self.elo[j]
        if self.profile is not None:  # robust_ratings: the profile likelihood's interval and test
            low, high, p = self.profile(i, j, level)
            return diff, low, high, p
        from scipy.stats import t as student

        se = math.sqrt(max(0.0, self.cov[i][i] + self.cov[j][j] - 2 * self.cov[i][j]))
        half = float(student.ppf((1 + level) / 2, self.df)) * se
        p = 1.0 if se == 0 else float(2 * student.sf(abs(diff) / se, self.df))
        return diff, diff - half, diff + half, p

    def __getitem__(self, name: str) -> float:
        if name not in self.names:
            raise KeyError(f"{name!r} is not rated; rated: {', '.join(self.names)}")
        return self.elo[self.names.index(name)]


def _check_inputs(
    names: Sequence[str], results: Sequence[tuple[int, int, float]], prior: float, draws: str, anchor: str | None
) -> tuple[tuple[str, ...], np.ndarray]:
    """Validate, and return the names and the results as an (m, 3) float array."""
    if isinstance(names, str) or not all(isinstance(a, str) for a in names):
        raise TypeError(f"names must be a sequence of strings, got {names!r}")
    names = tuple(names)
    if len(set(names)) != len(names) or not names:
        raise ValueError(f"names must be distinct and at least one, got {names!r}")
    if not math.isfinite(_check_real(prior, "prior")) or prior < 0:
        raise ValueError(f"prior must be a finite number >= 0 (virtual games per agent), got {prior!r}")
    if draws not in DRAW_MODELS:
        raise ValueError(f"draws must be one of {DRAW_MODELS}, got {draws!r}")
    if anchor is not None and anchor not in names:
        raise ValueError(f"anchor {anchor!r} is not one of the names {names!r}")
    n = len(names)
    rows = []
    for r in results:
        if not (isinstance(r, (tuple, list)) and len(r) == 3):
            raise ValueError(f"a result is a triple (i, j, score of i), got {r!r}")
        i, j, s = r
        for x in (i, j):
            if isinstance(x, bool) or not isinstance(x, Integral):
                raise TypeError(f"agent indices must be whole numbers (int), got {r!r}")
            if not 0 <= x < n:
                raise ValueError(f"agent indices must be whole numbers in 0..{n - 1}, got {r!r}")
        if i == j:
            raise ValueError(f"an agent does not play itself, got {r!r}")
        _check_real(s, "a score")
        if s not in (0, 0.5, 1):
            raise ValueError(f"a score is 1 (win), 0.5 (draw) or 0 (loss), got {r!r}")
        rows.append((int(i), int(j), float(s)))
    return names, np.array(rows, float).reshape(-1, 3)


def _group(res: np.ndarray) -> tuple[list[tuple[int, int]], np.ndarray]:
    """The pairs that met (i < j), and for every game its category 3·pair + outcome, where the
    outcome is 0 (the lower index won), 1 (the higher index won) or 2 (a draw)."""
    i = np.minimum(res[:, 0], res[:, 1]).astype(int)
    j = np.maximum(res[:, 0], res[:, 1]).astype(int)
    s_low = np.where(res[:, 0] < res[:, 1], res[:, 2], 1 - res[:, 2])  # score of the lower index
    pairs = sorted(set(zip(i.tolist(), j.tolist())))
    index = {p: k for k, p in enumerate(pairs)}
    pk = np.array([index[p] for p in zip(i.tolist(), j.tolist())], int).reshape(-1)
    outcome = np.where(s_low == 1, 0, np.where(s_low == 0, 1, 2))
    return pairs, 3 * pk + outcome


def _design(
    n: int, pairs: list[tuple[int, int]], counts: np.ndarray, draws: str
) -> tuple[np.ndarray, np.ndarray, bool]:
    """V[p, k] is the linear predictor's coefficient vector of outcome k (i wins, j wins, draw)
    for pair p, C[p, k] the count of that outcome (counts[p] = wins of i, wins of j, draws), and
    whether ν is a parameter (the last coordinate of the parameter vector)."""
    P = len(pairs)
    davidson = draws == "davidson" and counts[:, 2].sum() > 0
    d, K = (n + 1, 3) if davidson else (n, 2)
    V = np.zeros((P, K, d))
    if P:
        a = np.array([p[0] for p in pairs])
        b = np.array([p[1] for p in pairs])
        V[np.arange(P), 0, a] = 1.0
        V[np.arange(P), 1, b] = 1.0
        if davidson:
            V[np.arange(P), 2, a] = 0.5
            V[np.arange(P), 2, b] = 0.5
            V[:, 2, n] = 1.0  # + ln ν
    if davidson:
        C = counts.astype(float)
    else:  # Bradley–Terry; with draws="half" a draw is half a win for each side
        C = counts[:, :2] + counts[:, 2:3] / 2
    return V, C, davidson


def _maximise(
    V: np.ndarray, C: np.ndarray, n: int, prior: float, x0: np.ndarray | None = None, tilt: np.ndarray | None = None
) -> tuple[np.ndarray, float]:
    """Newton's method with backtracking on the (concave) penalised log-likelihood (+ tilt · x).

    The objective is concave in (ln p, ln ν) — a sum of linear terms minus log-sum-exps — so the
    stationary point Newton finds is the global maximum. Without a prior the strengths are only
    determined up to a common factor: ln p_0 is held at 0. `tilt` adds a linear term (used to
    trace the profile likelihood); the returned value excludes it.
    """
    X, F = _maximise_batch(V, C[None], n, prior, None if x0 is None else x0[None], tilt)
    return X[0], float(F[0])


class _Sparse(NamedTuple):
    """A design V (P, K, d) as sparse matrices: each pair's predictor touches few coordinates (its
    two agents and ln ν), so the objective's sums over pairs are sparse products."""

    flat: csr_matrix  # (P·K, d): V_pk as rows
    outer: csr_matrix  # (d·d, P·K): V_pk V_pk^T as columns
    to_mean: csr_matrix  # (P·s, P·K): Σ_k π_pk V_pk on the s coordinates pair p touches
    pairs: np.ndarray  # (T, 2): the T = s(s+1)/2 products j ≤ l of two of those coordinates
    to_H: csr_matrix  # (d·d, P·T): adds each pair's products into the d × d matrix (both halves)
    s: int  # the most coordinates a pair touches (pairs that touch fewer are padded with zeros)


_LAST_SPARSE: tuple[np.ndarray | None, _Sparse | None] = (None, None)


def _sparse(V: np.ndarray) -> _Sparse:
    """`V`'s sparse form (the last design's is kept: the same V is evaluated many times in a row)."""
    global _LAST_SPARSE
    last_V, last = _LAST_SPARSE
    if last_V is V and last is not None:
        return last
    from scipy.sparse import csr_matrix

    P, K, d = V.shape
    touched = np.abs(V).sum(axis=1) > 0  # (P, d)
    s = int(touched.sum(axis=1).max(initial=0))
    support = np.zeros((P, s), int)  # padded with coordinate 0 and zero coefficients
    for p in range(P):
        cols = np.flatnonzero(touched[p])
        support[p, : cols.size] = cols
    pad = np.arange(s)[None, :] >= touched.sum(axis=1)[:, None]
    Vs = np.where(pad[:, None, :], 0.0, np.take_along_axis(V, support[:, None, :], axis=2))  # (P, K, s)
    flat = V.reshape(P * K, d)
    outer = csr_matrix((flat[:, :, None] * flat[:, None, :]).reshape(P * K, d * d).T)
    row, k, j = np.meshgrid(np.arange(P), np.arange(K), np.arange(s), indexing="ij")
    to_mean = csr_matrix((Vs.reshape(-1), ((row * s + j).reshape(-1), (row * K + k).reshape(-1))), shape=(P * s, P * K))
    pairs = np.array([(j, l) for j in range(s) for l in range(j, s)], int).reshape(-1, 2)
    T = len(pairs)
    first, second = support[:, pairs[:, 0]].reshape(-1), support[:, pairs[:, 1]].reshape(-1)
    cols = np.arange(P * T)
    both = first != second  # an off-diagonal product goes to both halves of the symmetric matrix
    rows = np.concatenate([first * d + second, (second * d + first)[both]])
    to_H = csr_matrix((np.ones(rows.size), (rows, np.concatenate([cols, cols[both]]))), shape=(d * d, P * T))
    result = _Sparse(csr_matrix(flat), outer, to_mean, pairs, to_H, s)
    _LAST_SPARSE = (V, result)
    return result


def _objective_batch(
    X: np.ndarray, V: np.ndarray, C: np.ndarray, n: int, prior: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The penalised log-likelihood, its gradient and Hessian for R parameter vectors X (R, d) and
    count arrays C (R, P, K) at once. The R fits run along the arrays' last axis and each pair's
    terms touch only its few coordinates (`_sparse`), so a round robin of 30 agents costs what
    its 435 pairings need, not 435 · 31² per fit."""
    P, K, d = V.shape
    R = X.shape[0]
    sp = _sparse(V)
    Ct = np.ascontiguousarray(np.moveaxis(C, 0, 2)).reshape(P * K, R)
    eta = np.asarray(sp.flat @ X.T).reshape(P, K, R)
    top = eta.max(axis=1, initial=-np.inf)
    e = np.exp(eta - top[:, None])
    total = e.sum(axis=1)
    lse = top + np.log(total)
    pi = (e / total[:, None]).reshape(P * K, R)
    N = Ct.reshape(P, K, R).sum(axis=1)
    f = (Ct * eta.reshape(P * K, R)).sum(axis=0) - (N * lse).sum(axis=0)
    Npi = (N[:, None] * pi.reshape(P, K, R)).reshape(P * K, R)
    g = np.asarray(sp.flat.T @ (Ct - Npi)).T
    mean = np.asarray(sp.to_mean @ pi).reshape(P, sp.s, R)  # Σ_k π_k V_k on each pair's coordinates
    mm = N[:, None] * mean[:, sp.pairs[:, 0]] * mean[:, sp.pairs[:, 1]]  # N m_j m_l, j ≤ l
    H = (np.asarray(sp.to_H @ mm.reshape(-1, R)) - np.asarray(sp.outer @ Npi)).T.reshape(R, d, d)
    if prior > 0:  # prior/2 virtual wins and prior/2 virtual losses against strength 1 (rating 0)
        th = X[:, :n]
        f = f + prior / 2 * np.sum(th - 2 * np.logaddexp(0.0, th), axis=1)
        sig = np.exp(-np.logaddexp(0.0, -th))  # the logistic function, without overflow
        g[:, :n] += prior / 2 * (1 - 2 * sig)
        H[:, np.arange(n), np.arange(n)] -= prior * sig * (1 - sig)
    return f, g, H


def _maximise_batch(
    V: np.ndarray,
    C: np.ndarray,
    n: int,
    prior: float,
    X0: np.ndarray | None = None,
    tilt: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """`_maximise` for R count arrays C (R, P, K) sharing the design V at once (the bootstrap's
    replicates): damped Newton steps, each replicate with its own step length. A ValueError if
    some replicate has no finite maximum."""
    R, d = C.shape[0], V.shape[2]
    X = np.zeros((R, d)) if X0 is None else np.array(X0, float)
    free = np.arange(d) if prior > 0 else np.arange(1, d)
    lin = np.zeros(d) if tilt is None else tilt

    def evaluate(X: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        f, g, H = _objective_batch(X, V, C, n, prior)
        return f + X @ lin, g + lin, H

    f, g, H = evaluate(X)
    for _round in range(200):
        gf = g[:, free]
        todo = np.max(np.abs(gf), axis=1, initial=0.0) >= 1e-9
        if not todo.any() or free.size == 0:
            break
        Hf = H[:, free][:, :, free]
        try:
            step = -np.linalg.solve(Hf, gf[:, :, None])[:, :, 0]
        except np.linalg.LinAlgError:
            step = gf  # a gradient step where some Hessian is singular
        step[~todo] = 0.0
        t = np.ones(R)
        for _halving in range(45):
            Xn = X.copy()
            Xn[:, free] += t[:, None] * step
            fn, gn, Hn = evaluate(Xn)
            worse = fn < f - 1e-12 * np.abs(f)
            if not worse.any():
                break
            t = np.where(worse, t / 2, t)
        X, f, g, H = Xn, fn, gn, Hn
        if np.max(np.abs(X), initial=0.0) > _MAX_THETA:
            break
    if np.max(np.abs(X), initial=0.0) > _MAX_THETA or np.max(np.abs(g[:, free]), initial=0.0) > 1e-6:
        raise ValueError(
            "the likelihood has no finite maximum: some agent (or group of agents) never lost or "
            "never won against the rest, or every game was a draw; use prior > 0"
        )
    return X, f - X @ lin


def _check_maximum_exists(V: np.ndarray, C: np.ndarray) -> None:
    """Without a prior a finite maximum exists exactly when no direction u raises the linear
    predictor of every observed outcome against the other outcomes of its pair (then the
    likelihood keeps growing along u). A linear programme looks for such a u (scipy's HiGHS)."""
    from scipy.optimize import linprog
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import connected_components

    P, K, d = V.shape
    agents = d - (1 if K == 3 else 0)  # Davidson's design has a last column for ln ν
    played = V[:, :2, :agents].max(axis=1) if P else np.zeros((0, agents))  # played[p, i]: i plays in p
    met = played.T @ played  # met[i, j] > 0 when i and j played each other (or i = j and i played)
    groups = connected_components(csr_matrix(met), directed=False)[0]
    if groups > 1 or not np.all(np.diag(met) > 0):
        raise ValueError(
            "the likelihood has no unique maximum: some agents never met the others (directly or "
            "through a chain of opponents), so their ratings cannot be compared; use prior > 0"
        )
    rows = []
    for p in range(P):
        for k in range(K):
            if C[p, k] > 0:
                rows += [V[p, k] - V[p, m] for m in range(K) if m != k]
    if not rows:
        return
    A = np.array(rows)[:, 1:]  # ln p_0 is held at 0
    if A.shape[1] == 0:
        return
    res = linprog(-A.sum(axis=0), A_ub=-A, b_ub=np.zeros(len(A)), bounds=[(-1, 1)] * A.shape[1], method="highs")
    if res.status == 0 and -res.fun > 1e-7:
        raise ValueError(
            "the likelihood has no finite maximum: some agent (or group of agents) never lost, or "
            "never scored, against the rest (or the draws cannot be fitted); use prior > 0"
        )


def _elos(names: tuple[str, ...], x: np.ndarray, anchor: str | None) -> np.ndarray:
    """The ratings in parameters `x` (..., d), vectorised over the leading axes (the bootstrap's replicates):
    Elo of the strengths, with `anchor` at 0 (default: mean 0)."""
    elo = ELO_PER_NAT * x[..., : len(names)]
    ref = elo[..., names.index(anchor)] if anchor is not None else elo.mean(axis=-1)
    return elo - np.asarray(ref)[..., None]


def _to_ratings(
    names: tuple[str, ...], x: np.ndarray, f: float, davidson: bool, draws: str, anchor: str | None
) -> tuple[np.ndarray, float | None]:
    nu: float | None = None if draws == "half" else (float(math.exp(x[len(names)])) if davidson else 0.0)
    return _elos(names, x, anchor), nu


def fit_ratings(
    names: Sequence[str],
    results: Sequence[tuple[int, int, float]],
    *,
    prior: float = 1.0,
    draws: str = "davidson",
    anchor: str | None = None,
) -> Ratings:
    """Ratings that maximise the stated penalised likelihood exactly.

    The model (Bradley–Terry with Davidson's 1970 draws): agent i of strength p_i meets j, and

        P(i wins) = p_i / Z,   P(j wins) = p_j / Z,   P(draw) = ν √(p_i p_j) / Z,
        Z = p_i + p_j + ν √(p_i p_j).

    With ν = 0 (no draws) this is plain Bradley–Terry, and Elo's expected score. draws="half"
    instead counts a draw as half a win for each side (a quasi-likelihood; no ν). The prior: each
    agent also plays `prior` virtual games against a virtual agent of strength 1 (rating 0), half
    won and half lost; it keeps the maximum finite when an agent never loses, and fixes the scale.
    prior=0 is pure maximum likelihood (a ValueError when no finite maximum exists).
    Ratings are 400·log10(p_i), shifted so that `anchor` has 0 (default: mean 0).

    The maximum is found by Newton's method on (ln p, ln ν), where the objective is concave, to a
    gradient below 1e-9 (tests compare it with scipy.optimize.minimize).

    Raises:
        TypeError: `names` is not a sequence of strings, an agent index is not a whole number, or a
            score or `prior` is not a number.
        ValueError: the names are empty or not distinct; `prior` is negative or not finite; `draws`
            is not one of `DRAW_MODELS`; `anchor` is not one of the names; a result is not a triple
            (i, j, score) of two different indices into `names` and a score of 1, 0.5 or 0; every
            game was a draw (draws="davidson"); or, with prior=0, the likelihood has no finite
            maximum (for example: an agent won every game it played, or lost every one; with Davidson's
            draws an agent that never lost can be enough).

    >>> results = [(0, 1, 1), (0, 1, 1), (0, 1, 0.5), (1, 2, 1), (1, 2, 0), (0, 2, 1), (2, 0, 0.5)]
    >>> ratings = fit_ratings(["ann", "bob", "cat"], results)
    >>> {name: round(elo) for name, elo in ratings.as_dict().items()}
    {'ann': 190, 'bob': -113, 'cat': -77}
    >>> round(ratings.draw, 3)  # Davidson's ν: equals draw with probability ν / (2 + ν)
    0.997
    >>> fit_ratings(["ann", "bob"], [(0, 0, 1)])
    Traceback (most recent call last):
        ...
    ValueError: an agent does not play itself, got (0, 0, 1)
    """
    names, res = _check_inputs(names, results, prior, draws, anchor)
    elo, nu, f, _ = _fit(names, res, prior, draws, anchor)
    return Ratings(names, tuple(float(e) for e in elo), None, None, f, nu)


def _fit(
    names: tuple[str, ...], res: np.ndarray, prior: float, draws: str, anchor: str | None
) -> tuple[np.ndarray, float | None, float, np.ndarray]:
    n = len(names)
    pairs, cat = _group(res)
    counts = np.bincount(cat, minlength=3 * len(pairs)).reshape(-1, 3)
    V, C, davidson = _design(n, pairs, counts, draws)
    if draws == "davidson" and len(res) and not (counts[:, :2].sum() > 0):
        raise ValueError("every game was a draw: Davidson's draw parameter has no finite maximum")
    if prior == 0:
        _check_maximum_exists(V, C)
    x, f = _maximise(V, C, n, float(prior))
    elo, nu = _to_ratings(names, x, f, davidson, draws, anchor)
    return elo, nu, f, x


def _check_units(units: Sequence[object] | None, res: np.ndarray) -> np.ndarray:
    """Unit labels as integers 0..U-1 (each game its own unit by default); a ValueError if a
    unit mixes games of different pairings or the labels do not match the results."""
    m = len(res)
    if units is None:
        return np.arange(m)
    if isinstance(units, (str, bytes)) or len(units) != m:
        raise ValueError(f"units must give one label per result ({m}), got {str(units)[:80]}")
    index: dict[object, int] = {}
    labels = np.array([index.setdefault(u, len(index)) for u in units], int).reshape(-1)
    low = np.minimum(res[:, 0], res[:, 1])
    high = np.maximum(res[:, 0], res[:, 1])
    for label, k in index.items():
        at = labels == k
        if len(set(zip(low[at].tolist(), high[at].tolist()))) > 1:
            raise ValueError(f"unit {label!r} holds games of different pairings; a unit is one pairing's game pair")
    return labels


def expanded_tail(confidence: float, units: int) -> float:
    """The tail probability of Hesterberg's expanded percentile interval for `units` resampled units:
    Φ(−√(G/(G − 1)) · t_{G−1}((1 + confidence)/2)); (1 − confidence)/2 when G < 2 (nothing to expand)."""
    from scipy.stats import norm
    from scipy.stats import t as student

    if units < 2:
        return (1 - confidence) / 2
    z = math.sqrt(units / (units - 1)) * float(student.ppf((1 + confidence) / 2, units - 1))
    return float(norm.cdf(-z))


def bootstrap_ratings(
    names: Sequence[str],
    results: Sequence[tuple[int, int, float]],
    *,
    units: Sequence[object] | None = None,
    reps: int = 2000,
    seed: int,
    confidence: float = 0.95,
    prior: float = 1.0,
    draws: str = "davidson",
    anchor: str | None = None,
    expand: bool = True,
) -> Ratings:
    """`fit_ratings` with percentile-bootstrap intervals, resampling the independent units.

    units: one label per result; results with the same label are one unit, resampled together
    (label a game pair's two games alike, so the pair is the unit: they share the start's
    luck). Default: every game is its own unit. Each replicate draws, for every pairing, as many
    of its units as it has, with replacement (the design fixed how often two agents met), refits,
    and anchors the same way; low/high are the (1 − confidence)/2 and (1 + confidence)/2 quantiles
    of each agent's replicate ratings. The point estimates are the fit to all games; the same seed
    gives the same intervals. With `expand` (the default) the quantiles are those of Hesterberg's
    expanded percentile interval, a small-sample correction: the plain percentile interval is too
    narrow when a pairing has few units (its resampling variance is (G − 1)/G of the truth, and the
    normal quantile is used where Student's t belongs); simulated round robins with 10 game pairs
    per pairing gave 91 % coverage for a "95 %" plain interval. So the tail probability is
    Φ(−√(G/(G − 1)) · t_{G−1}) instead of (1 − confidence)/2, with G the fewest units of any
    pairing whose units vary (a pairing whose units all ended alike, such as the replays of two
    deterministic agents, gives every replicate the same counts and has nothing to correct;
    T. Hesterberg, "What teachers should know about the bootstrap", The American Statistician
    69(4), 2015, section 4.2). expand=False gives the plain percentile interval. With
    anchor="x", x's interval is [0, 0] (intervals are for differences to x). Use at least 1,000
    replicates (the default is 2,000): a percentile interval from fewer rests on a handful of
    extreme replicates.

    When every replicate gives an agent the same rating (every unit it played ended alike, e.g.
    it won every pair), resampling has nothing to vary; its interval is then the profile
    likelihood interval of the penalised fit (the ratings whose best fit is within χ²₁/2 of the
    maximum), bounded on the open side only by the prior, and the agent is listed in `profiled`.
    """
    reps = _check_count(reps, "reps", minimum=2)
    seed = _check_count(seed, "seed", minimum=0)
    level = _check_confidence(confidence)
    names_t, res = _check_inputs(names, results, prior, draws, anchor)
    labels = _check_units(units, res)
    elo, nu, f, x_all = _fit(names_t, res, prior, draws, anchor)
    n = len(names_t)
    pairs, cat = _group(res)
    P = len(pairs)
    rng = np.random.default_rng(seed)
    counts = np.zeros((reps, P, 3))
    pairing_of = cat // 3
    sizes = []  # units of each pairing whose units did not all end alike (resampling varies it)
    for p in range(P):
        at = pairing_of == p
        unit_ids, unit_of = np.unique(labels[at], return_inverse=True)
        per_unit = np.zeros((len(unit_ids), 3))
        np.add.at(per_unit, (unit_of.reshape(-1), cat[at] % 3), 1)
        if len(np.unique(per_unit, axis=0)) > 1:
            sizes.append(len(unit_ids))
        pick = rng.integers(0, len(unit_ids), size=(reps, len(unit_ids)))
        counts[:, p, :] = per_unit[pick].sum(axis=1)
    samples = np.empty((reps, n))
    has_draws = counts[:, :, 2].sum(axis=1) > 0
    for key in (False, True):
        rows = np.flatnonzero(has_draws == key)
        if not rows.size:
            continue
        C3 = counts[rows]
        if draws == "davidson" and P and np.any(C3[:, :, :2].sum(axis=(1, 2)) == 0):
            raise ValueError("a bootstrap sample had only draws; too few decisive games for intervals")
        V, _, davidson = _design(n, pairs, C3[0], draws)
        C = C3 if davidson else C3[:, :, :2] + C3[:, :, 2:3] / 2
        if prior == 0:
            for c in C:
                _check_maximum_exists(V, c)
        x0 = x_all if len(x_all) == V.shape[2] else x_all[:n]  # start at the fit to all games
        chunk = max(1, 2_000_000 // V.size // V.shape[2])  # replicates fitted at once, to bound memory
        for at in range(0, len(rows), chunk):
            part = rows[at : at + chunk]
            X, _ = _maximise_batch(V, C[at : at + chunk], n, float(prior), np.tile(x0, (len(part), 1)))
            samples[part] = _elos(names_t, X, anchor)  # every replicate at once
    tail = expanded_tail(level, min(sizes, default=0)) if expand else (1 - level) / 2
    q = np.quantile(samples, [tail, 1 - tail], axis=0)
    low, high = q[0].copy(), q[1].copy()
    profiled = []
    for k, name in enumerate(names_t):
        if name != anchor and np.ptp(samples[:, k]) < 1e-6:
            low[k], high[k] = _profile_interval(names_t, res, prior, draws, anchor, k, level)
            profiled.append(name)
    elo_t, low_t, high_t = (tuple(map(float, v)) for v in (elo, low, high))
    return Ratings(names_t, elo_t, low_t, high_t, f, nu, tuple(profiled))


ROBUST_METHOD = "profile likelihood (design effect, t)"


class CoverageChecked(NamedTuple):
    """The fields on which simulations with known truth checked `robust_ratings`' intervals
    (tests/test_coverage.py, benchmarks/coverage.py, 1,000 tournaments per field): every printed
    interval (each agent's rating, each two neighbours' difference in the fitted order) held the
    truth in `coverage` of the tournaments (lowest and highest share over all fields and
    intervals) and in `mean` on average over a field's intervals. Higher only for two neighbours
    less than `near` Elo apart, near-equal agents: their true difference is about 0, which the
    interval of the fitted order's difference holds almost always."""

    agents: tuple[int, int]
    spread: int  # Elo between the strongest and the weakest agent, at most
    pairs: tuple[int, int]  # game pairs per pairing
    coverage: tuple[float, float]
    mean: tuple[float, float]
    near: int = 20

    def text(self) -> str:
        """The range as a sentence fragment, for the board's method note and the lessons (in the language
        in force)."""
        return _(
            "{low}–{high} % coverage, {mean_low}–{mean_high} % on average (more for neighbours under {near} Elo "
            "apart), in simulated round robins of {fewest}–{most} agents spread over up to {spread} Elo, "
            "{pairs_low}–{pairs_high} game pairs per pairing, with and without draws"
        ).format(
            low=f"{100 * self.coverage[0]:.0f}",
            high=f"{100 * self.coverage[1]:.0f}",
            mean_low=f"{100 * self.mean[0]:.0f}",
            mean_high=f"{100 * self.mean[1]:.0f}",
            near=self.near,
            fewest=self.agents[0],
            most=self.agents[1],
            # TRANSLATORS: the character between thousands in a number (1,500): "." in German
            spread=f"{self.spread:,}".replace(",", pgettext("thousands separator", ",")),
            pairs_low=self.pairs[0],
            pairs_high=self.pairs[1],
        )


COVERAGE_CHECKED = CoverageChecked(
    agents=(4, 30), spread=1500, pairs=(5, 20), coverage=(0.92, 0.99), mean=(0.94, 0.98), near=20
)
MIN_PAIRS = 5  # game pairs per pairing (or twice as many single games) before intervals are given
MIN_AGENTS = 3
#: Why `robust_ratings` gives no intervals (`Ratings.too_few`: English data, shown through `too_few_text`).
TOO_FEW_AGENTS = N_("too few agents for rating intervals ({agents}; at least {least}): use the sequential test")
TOO_FEW_GAMES = N_(
    "too few games for rating intervals: every two agents need at least {pairs} game pairs "
    "(or {games} single games) before a 95 % interval keeps its promise"
)


def _made_by(template: str) -> re.Pattern[str]:
    """The text `template.format(...)` makes with whole numbers, each field a named group."""
    return re.compile(re.sub(r"\\\{(\w+)\\\}", r"(?P<\1>[0-9]+)", re.escape(template)))


def too_few_text(reason: str) -> str:
    """`Ratings.too_few` (English, as stored) in the language in force, for the boards and the lessons; a
    reason of another making is shown as it is.

    >>> too_few_text("too few agents for rating intervals (2; at least 3): use the sequential test")
    'too few agents for rating intervals (2; at least 3): use the sequential test'
    """
    if get_language() == LANGUAGES[0]:
        return reason
    for template in (TOO_FEW_AGENTS, TOO_FEW_GAMES):
        found = _made_by(template).fullmatch(reason)
        if found is not None:
            return _(template).format(**found.groupdict())
    return reason


def robust_ratings(
    names: Sequence[str],
    results: Sequence[tuple[int, int, float]],
    *,
    units: Sequence[object] | None = None,
    confidence: float = 0.95,
    prior: float = 1.0,
    draws: str = "davidson",
    anchor: str | None = None,
) -> Ratings:
    """`fit_ratings` with intervals that keep their level at class sizes, or none and the reason.

    Each interval is the profile likelihood interval of the penalised fit (the ratings r whose
    best fit with that rating lies within t²/2 · deff of the maximum), with two small-sample
    corrections: Student's t quantile with G − 1 degrees of freedom, G the number of independent
    units (label a game pair's two games alike, as in `bootstrap_ratings`; default: every game its
    own unit), and Kish's design effect deff = 1 + ρ (m̄ − 1), ρ the correlation of two games of one
    unit estimated from the standardised residuals (a Rao–Scott first-order correction of the
    likelihood ratio: a seat advantage makes a pair's games negatively correlated, a start that
    favours one agent positively). Why this one: a class's field is wide (a solver, beginners,
    a random agent: 1,000 Elo and more), so many pairings end 10–0 and some agent is often
    unbeaten; there the likelihood is flat on one side and Wald's symmetric interval (with a
    cluster-robust variance, whose residuals vanish where a pairing is one-sided) covered only
    77–90 %. The profile interval follows the likelihood's shape: for an unbeaten agent its
    upper end is where the prior's virtual game stops it. Simulations with known truth
    (tests/test_coverage.py, benchmarks/coverage.py) check it over `COVERAGE_CHECKED`.
    Below `MIN_PAIRS` pairs per pairing, or with fewer than `MIN_AGENTS` agents, no interval is
    given: low, high and cov are None and `too_few` says why. `Ratings.difference` gives the
    interval of a difference and the p-value of the same test; `cov` is the quadratic
    approximation (inverse information times deff).

    Raises:
        TypeError: as `fit_ratings`, or `confidence` is not a number.
        ValueError: as `fit_ratings`; `confidence` is not strictly between 0 and 1; or `units` does
            not give one label per result, or a unit holds games of different pairings. Too few
            games are no error: the ratings then come without intervals and `too_few` says why.

    Three agents, six game pairs per pairing (a pair's two games are one unit):

    >>> scores = {(0, 1): [1, 1, 1, 0.5, 1, 0, 1, 1, 0.5, 1, 0, 1],  # the first agent's score in each game
    ...           (0, 2): [1, 0.5, 1, 1, 0, 1, 1, 1, 1, 0.5, 1, 0],
    ...           (1, 2): [1, 0, 0.5, 0.5, 0, 1, 1, 0, 0.5, 1, 0, 1]}
    >>> results = [(i, j, s) for (i, j), row in scores.items() for s in row]
    >>> units = [(i, j, k // 2) for (i, j), row in scores.items() for k in range(len(row))]
    >>> ratings = robust_ratings(["ann", "bob", "cat"], results, units=units)
    >>> [round(x) for x in ratings.elo], [round(x) for x in ratings.interval("ann")]
    ([157, -66, -92], [69, 258])
    >>> diff, low, high, p = ratings.difference("ann", "bob")
    >>> round(diff), round(low), round(high), round(p, 3)
    (223, 73, 390, 0.005)
    >>> few = robust_ratings(["ann", "bob", "cat"], results[:12])  # one pairing only
    >>> few.low is None, few.too_few  # doctest: +ELLIPSIS
    (True, 'too few games for rating intervals: every two agents need at least 5 game pairs ...')
    """
    level = _check_confidence(confidence)
    names_t, res = _check_inputs(names, results, prior, draws, anchor)
    labels = _check_units(units, res)
    elo, nu, f, x = _fit(names_t, res, prior, draws, anchor)
    n = len(names_t)
    pairs, cat = _group(res)
    units_per_pairing = np.zeros(len(pairs))
    np.add.at(units_per_pairing, cat // 3, 1.0 / np.bincount(labels)[labels])  # each unit counts once
    games_per_pairing = np.bincount(cat // 3, minlength=len(pairs))
    fewest = float(np.min(np.minimum(units_per_pairing, games_per_pairing / 2), initial=np.inf))
    reason = ""
    if n < MIN_AGENTS:  # the reason is English data, whatever the language in force (too_few_text shows it)
        reason = TOO_FEW_AGENTS.format(agents=n, least=MIN_AGENTS)
    elif len(pairs) < n * (n - 1) // 2 or fewest < MIN_PAIRS:
        reason = TOO_FEW_GAMES.format(pairs=MIN_PAIRS, games=2 * MIN_PAIRS)
    base = Ratings(names_t, tuple(map(float, elo)), None, None, f, nu, method=ROBUST_METHOD)
    if reason:
        return Ratings(**{**base.__dict__, "too_few": reason})
    at = names_t.index(anchor) if anchor is not None else None
    ((_, fits),) = _Profile.fit(n, pairs, cat // 3, labels, (cat % 3)[None], draws, float(prior), at)
    rated = [k for k in range(n) if names_t[k] != anchor]
    low, high = np.zeros(n), np.zeros(n)  # the anchor's interval is [0, 0]
    ends = fits.ends(np.array([[fits.contrast(k) for k in rated]]), level)[0]
    low[rated], high[rated] = ends.T

    def profile(i: int, j: int, level: float) -> tuple[float, float, float]:
        c = fits.contrast(i, j)[None]
        ((lo, hi),) = fits.ends(c[None], level)[0]
        return float(lo), float(hi), float(fits.p_value(c)[0])

    return Ratings(
        **{
            **base.__dict__,
            "low": tuple(map(float, low)),
            "high": tuple(map(float, high)),
            "cov": tuple(tuple(map(float, row)) for row in fits.cov()[0]),
            "df": float(fits.units - 1),
            "profile": profile,
        }
    )


@dataclass(frozen=True)
class _Profile:
    """Penalised fits of R tournaments with one design (the simulations' batches; R = 1 for
    `robust_ratings`) and their profile likelihood intervals, widened by the design effect:
    the ends of a contrast c · x (a rating, a difference) are where the signed root of twice the
    objective's fall, divided by the design effect, reaches Student's t quantile with G − 1 df."""

    V: np.ndarray  # (P, K, d) the design
    C: np.ndarray  # (R, P, K) outcome counts
    x: np.ndarray  # (R, d) the maxima
    f: np.ndarray  # (R,) the objective there
    deff: np.ndarray  # (R,) the design effect
    units: int  # G
    agents: int
    prior: float
    anchor: int | None

    @classmethod
    def fit(
        cls,
        n: int,
        pairs: list[tuple[int, int]],
        pairing: np.ndarray,
        labels: np.ndarray,
        outcome: np.ndarray,
        draws: str,
        prior: float,
        anchor: int | None,
    ) -> list[tuple[np.ndarray, _Profile]]:
        """Fit R tournaments: each game's pairing (m,) and unit label (m,) shared, outcome (R, m)
        0 (the lower index won), 1 (the higher won), 2 (a draw). Tournaments with and without
        draws have different designs (Davidson's ν is fitted only where a game was drawn), so the
        answer is a list of (rows, fits), one per design."""
        R, P = outcome.shape[0], len(pairs)
        cell = (np.arange(R)[:, None] * P + pairing[None]) * 3 + outcome  # (tournament, pairing, outcome)
        counts = np.bincount(cell.reshape(-1), minlength=R * P * 3).reshape(R, P, 3).astype(float)
        groups = []
        has_draws = counts[:, :, 2].sum(axis=1) > 0
        for key in (False, True):
            rows = np.flatnonzero(has_draws == key)
            if not rows.size:
                continue
            V, _, davidson = _design(n, pairs, counts[rows[0]], draws)
            C = counts[rows] if davidson else counts[rows][:, :, :2] + counts[rows][:, :, 2:3] / 2
            x, f = _maximise_batch(V, C, n, prior)
            eta = (x @ V.reshape(-1, V.shape[2]).T).reshape(len(rows), *V.shape[:2])
            pi = np.exp(eta - np.logaddexp.reduce(eta, axis=2)[:, :, None])
            free = np.arange(V.shape[2]) if prior > 0 else np.arange(1, V.shape[2])
            _, _, H = _objective_batch(x, V, C, n, prior)
            info = -H[:, free][:, :, free]
            sig = np.exp(-np.logaddexp(0.0, -x[:, :n]))
            data = info.copy()  # the games' information: the total less the prior's virtual games
            data[:, np.arange(n), np.arange(n)] -= (prior * sig * (1 - sig))[:, free[free < n]]
            fitted = np.trace(np.linalg.solve(info, data), axis1=1, axis2=2)  # parameters the games fit
            deff = _design_effect(pi, davidson, pairing, outcome[rows], labels, fitted)
            groups.append((rows, cls(V, C, x, f, deff, int(labels.max()) + 1, n, prior, anchor)))
        return groups

    def contrast(self, i: int, j: int | None = None) -> np.ndarray:
        """The coefficients (in nats) of i's reported rating (j None) or of i's minus j's."""
        c = np.zeros(self.V.shape[2])
        c[i] += 1.0
        if j is not None:
            c[j] -= 1.0
        elif self.anchor is None:
            c[: self.agents] -= 1.0 / self.agents
        else:
            c[self.anchor] -= 1.0
        return c

    def ends(self, c: np.ndarray, level: float) -> np.ndarray:
        """(R, m, 2): the (low, high) ends in Elo of m contrasts per tournament, c (R, m, d)."""
        from scipy.stats import t as student

        R, m, d = c.shape
        z = float(student.ppf((1 + level) / 2, self.units - 1)) * np.sqrt(self.deff)
        rows = np.concatenate([c.reshape(R * m, d)] * 2)
        z_target = np.concatenate([-np.repeat(z, m), np.repeat(z, m)])
        at = np.tile(np.repeat(np.arange(R), m), 2)
        out = np.empty(len(rows))
        chunk = max(1, 150_000 // self.C[0].size)  # rows solved at once: their arrays stay in the cache
        for k in range(0, len(rows), chunk):
            s = slice(k, k + chunk)
            C, x, f = self.C[at[s]], self.x[at[s]], self.f[at[s]]
            out[s] = _profile_batch(self.V, C, self.agents, self.prior, x, f, rows[s], z_target[s])
        if np.isnan(out).any():
            raise ArithmeticError("the profile likelihood's interval did not converge")
        return ELO_PER_NAT * out.reshape(2, R, m).transpose(1, 2, 0)

    def p_value(self, c: np.ndarray) -> np.ndarray:
        """(R,): the two-sided p-value of "c · x = 0" by the same test, c (R, d)."""
        from scipy.stats import t as student

        _, f0, _, _ = _constrained_max(self.V, self.C, self.agents, self.prior, self.x, c, np.zeros(len(c)))
        root = np.sqrt(np.maximum(0.0, 2 * (self.f - f0)) / self.deff)
        return 2 * student.sf(root, self.units - 1)

    def cov(self) -> np.ndarray:
        """(R, n, n): the reported ratings' covariance in Elo², the inverse information times the
        design effect (the quadratic approximation the profile intervals refine)."""
        free = np.arange(self.V.shape[2]) if self.prior > 0 else np.arange(1, self.V.shape[2])
        _, _, H = _objective_batch(self.x, self.V, self.C, self.agents, self.prior)
        A = ELO_PER_NAT * np.array([self.contrast(k) for k in range(self.agents)])[:, free]
        inv = np.linalg.inv(-H[:, free][:, :, free])
        return self.deff[:, None, None] * (A @ inv @ A.T)


def _simulated_coverage(
    elo: Sequence[float] | np.ndarray,
    *,
    pairs: int,
    nu: float = 0.0,
    seat: float = 0.0,
    paired: bool = True,
    tournaments: int = 1000,
    seed: int,
    level: float = 0.95,
) -> tuple[np.ndarray, np.ndarray]:
    """How often `robust_ratings`' intervals contain the truth, on simulated round robins.

    Agents of the given Elo ratings meet `pairs` times per pairing; paired: each start is played
    with both seat orders (the pair is the unit); else twice as many games, each its own unit with
    a random seat order. Games follow Davidson's model with draw parameter nu and `seat` Elo for
    the first mover. The truth is the model's unpenalised fit to the expected outcome frequencies
    (mean 0). Returns the share of tournaments whose interval holds the truth, for each agent's
    rating and for the difference of each two neighbours in the fitted order (best first); the
    same code as `robust_ratings`, for many tournaments at once."""
    n = len(elo)
    rng = np.random.default_rng(seed)
    pairs_list = [(i, j) for i in range(n) for j in range(i + 1, n)]
    P = len(pairs_list)

    def davidson(first: float, second: float) -> np.ndarray:
        p, q = 10 ** (first / 400), 10 ** (second / 400)
        z = p + q + nu * math.sqrt(p * q)
        return np.array([p / z, q / z, nu * math.sqrt(p * q) / z])

    # (lower index wins, higher wins, draw) with the lower index moving first, and second
    low_first = np.array([davidson(elo[i] + seat, elo[j]) for i, j in pairs_list])
    high_first = np.array([davidson(elo[j] + seat, elo[i])[[1, 0, 2]] for i, j in pairs_list])
    V, C, _ = _design(n, pairs_list, (low_first + high_first) / 2 * 1e6, "davidson" if nu else "half")
    x, _ = _maximise(V, C, n, 0.0)
    truth = ELO_PER_NAT * x[:n]
    truth -= truth.mean()
    m = 2 * pairs
    pairing = np.repeat(np.arange(P), m)
    labels = np.repeat(np.arange(P * pairs), 2) if paired else np.arange(P * m)
    first_low = np.tile(np.arange(m) % 2 == 0, P)[None] if paired else rng.integers(2, size=(tournaments, P * m)) == 0
    # a game's outcome: (u > P(lower index wins)) + (u > P(it wins or the higher index wins))
    low_cum, high_cum = np.cumsum(low_first, axis=1)[pairing], np.cumsum(high_first, axis=1)[pairing]
    hits, neighbour_hits = np.zeros(n), np.zeros(n - 1)
    batch = max(1, 2_000_000 // (P * m))  # tournaments played and fitted at once, to bound memory
    for start in range(0, tournaments, batch):
        u = rng.random((min(batch, tournaments - start), P * m))  # the same numbers as one draw of all
        first = first_low if paired else first_low[start : start + len(u)]
        outcome = (u > np.where(first, low_cum[:, 0], high_cum[:, 0])).astype(int)
        outcome += u > np.where(first, low_cum[:, 1], high_cum[:, 1])
        for rows, fits in _Profile.fit(n, pairs_list, pairing, labels, outcome, "davidson", 1.0, None):
            R = len(rows)
            ends = fits.ends(np.repeat(np.array([[fits.contrast(k) for k in range(n)]]), R, 0), level)
            hits += ((ends[:, :, 0] <= truth) & (truth <= ends[:, :, 1])).sum(axis=0)
            order = np.argsort(-fits.x[:, :n], axis=1)
            c = np.array([[fits.contrast(o[k], o[k + 1]) for k in range(n - 1)] for o in order])
            ends = fits.ends(c, level)
            true_diff = truth[order[:, :-1]] - truth[order[:, 1:]]
            neighbour_hits += ((ends[:, :, 0] <= true_diff) & (true_diff <= ends[:, :, 1])).sum(axis=0)
    return hits / tournaments, neighbour_hits / tournaments


def _design_effect(
    pi: np.ndarray,
    davidson: bool,
    pairing: np.ndarray,
    outcome: np.ndarray,
    labels: np.ndarray,
    fitted: np.ndarray,
) -> np.ndarray:
    """Kish's design effect 1 + ρ (m̄ − 1) of R fits at once: ρ the correlation of two games of
    one unit, estimated from the games' standardised residuals (score of the lower index minus its
    fitted mean, over its fitted standard deviation) pooled over all units, m̄ the units' mean size
    weighted by games. pi (R, P, K): fitted outcome probabilities per pairing; pairing (m,) and
    labels (m,): each game's pairing and unit, shared by the R fits; outcome (R, m): 0 (the lower
    index won), 1 (the higher won), 2 (a draw). fitted (R,): the number of parameters the games
    fit (the trace of the hat matrix): residuals at the fit are pulled towards 0, which makes the
    sums over units smaller by (m̄ − 1) · fitted in expectation, and that is added back (without
    it the estimate is about 1 − fitted / games, e.g. 0.95 for 5 agents and 100 games). 1 when
    no unit holds two games."""
    if davidson:
        mean = pi[:, :, 0] + pi[:, :, 2] / 2
        var = pi[:, :, 0] + pi[:, :, 2] / 4 - mean**2
    else:
        mean = pi[:, :, 0]
        var = mean * (1 - mean)
    score = np.array([1.0, 0.0, 0.5])[outcome]
    res = (score - mean[:, pairing]) / np.sqrt(var[:, pairing])
    sizes = np.bincount(labels)
    within = float(np.sum(sizes * (sizes - 1)))
    if within == 0:
        return np.ones(len(pi))
    S = np.zeros((len(pi), sizes.size))
    Q = np.zeros((len(pi), sizes.size))
    for k in range(len(pi)):
        S[k] = np.bincount(labels, res[k], minlength=sizes.size)
        Q[k] = np.bincount(labels, res[k] ** 2, minlength=sizes.size)
    mbar = np.sum(sizes**2) / np.sum(sizes)
    rho = ((S**2 - Q).sum(axis=1) + (mbar - 1) * fitted) / within
    return 1 + rho * (mbar - 1)


def _profile_interval(
    names: tuple[str, ...], res: np.ndarray, prior: float, draws: str, anchor: str | None, k: int, level: float
) -> tuple[float, float]:
    """The profile likelihood interval of agent k's reported rating: the ratings r for which the
    best fit with rating r is within χ²₁(level)/2 of the overall maximum. Traced by maximising
    the objective plus t · (k's rating) for multipliers t on either side of 0."""
    from scipy.stats import chi2

    n = len(names)
    pairs, cat = _group(res)
    counts = np.bincount(cat, minlength=3 * len(pairs)).reshape(-1, 3)
    V, C, _ = _design(n, pairs, counts, draws)
    x_hat, f_hat = _maximise(V, C, n, prior)
    c = np.zeros(V.shape[2])  # k's reported rating is c · x
    c[:n] = -ELO_PER_NAT / n if anchor is None else 0.0
    c[k] += ELO_PER_NAT
    if anchor is not None:
        c[names.index(anchor)] -= ELO_PER_NAT
    drop = float(chi2.ppf(level, 1)) / 2

    def drop_at(t: float) -> tuple[float, float]:
        """(k's rating, how far the objective fell) at the maximum of objective + t · c · x / ELO;
        an infinite fall where the tilted objective has no maximum (past the profile's end)."""
        try:
            x, fx = _maximise(V, C, n, prior, x_hat, t * c / ELO_PER_NAT)
        except ValueError:
            return math.nan, math.inf
        return float(c @ x), f_hat - fx

    ends = []
    for sign in (-1.0, 1.0):
        inner, outer = 0.0, sign * 0.01
        while drop_at(outer)[1] < drop:
            if abs(outer) > 1e4:
                raise ValueError("the profile likelihood does not fall far enough: use prior > 0")
            inner, outer = outer, outer * 2
        for _ in range(60):  # bisection: drop_at(inner) < drop <= drop_at(outer), to 1e-9 relative
            if abs(outer - inner) <= 1e-9 * max(1.0, abs(outer)):
                break
            mid = (inner + outer) / 2
            if drop_at(mid)[1] < drop:
                inner = mid
            else:
                outer = mid
        ends.append(drop_at(inner)[0])
    return ends[0], ends[1]


def _constrained_max(
    V: np.ndarray,
    C: np.ndarray,
    n: int,
    prior: float,
    X: np.ndarray,
    c: np.ndarray,
    r: np.ndarray,
    H: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """For R rows: the maximum of the objective subject to c · x = r (c (R, d), r (R,)), found by
    Newton steps on the Lagrange system from X (moved onto the constraint along J⁻¹c first; H,
    if given, is the free coordinates' Hessian at X, else it is computed). Returns the
    parameters, the objective, and the free coordinates' gradient and Hessian."""
    d = V.shape[2]
    free = np.arange(d) if prior > 0 else np.arange(1, d)
    cf = c[:, free]
    X = np.array(X, float)

    def evaluate(X: np.ndarray, C: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        f, g, H = _objective_batch(X, V, C, n, prior)
        return f, g[:, free], H[:, free][:, :, free]

    if H is None:
        _, _, H = evaluate(X, C)
    tangent = -np.linalg.solve(H, cf[:, :, None])[:, :, 0]
    shift = (r - np.einsum("rd,rd->r", c, X)) / np.einsum("rd,rd->r", cf, tangent)
    X[:, free] += shift[:, None] * tangent
    f, g, H = evaluate(X, C)
    todo = np.arange(len(X))
    m = free.size
    for _ in range(50):
        mu = np.einsum("rd,rd->r", g[todo], cf[todo]) / np.einsum("rd,rd->r", cf[todo], cf[todo])
        todo = todo[np.max(np.abs(g[todo] - mu[:, None] * cf[todo]), axis=1, initial=0.0) >= 1e-10]
        if not todo.size:
            break
        M = np.zeros((todo.size, m + 1, m + 1))
        M[:, :-1, :-1] = H[todo]
        M[:, :-1, -1] = cf[todo]
        M[:, -1, :-1] = cf[todo]
        rhs = np.concatenate([-g[todo], np.zeros((todo.size, 1))], axis=1)
        step = np.linalg.solve(M, rhs[:, :, None])[:, :-1, 0]
        t = np.ones(todo.size)
        for _ in range(30):
            Xn = X[todo].copy()
            Xn[:, free] += t[:, None] * step
            fn, gn, Hn = evaluate(Xn, C[todo])
            worse = fn < f[todo] - 1e-12 * np.abs(f[todo])
            if not worse.any():
                break
            t = np.where(worse, t / 2, t)
        X[todo], f[todo], g[todo], H[todo] = Xn, fn, gn, Hn
    return X, f, g, H


def _profile_batch(
    V: np.ndarray,
    C: np.ndarray,
    n: int,
    prior: float,
    X_hat: np.ndarray,
    f_hat: np.ndarray,
    c: np.ndarray,
    z_target: np.ndarray,
) -> np.ndarray:
    """For R rows at once (count arrays C (R, P, K) sharing the design V, their maxima X_hat and
    f_hat, a contrast c (R, d) of the parameters): the value r of c · x where the profile's signed
    root z(r) = ±√(2 (f_hat − max_{c·x=r} f)) reaches z_target (R,). Newton's method on z(r),
    which is monotone and close to linear (concave under separation, where Newton approaches the
    end from the inside), started at Wald's end; z's slope is −μ / z with μ the Lagrange
    multiplier (the profile's slope). Rows that do not converge get NaN."""
    R, d = C.shape[0], V.shape[2]
    free = np.arange(d) if prior > 0 else np.arange(1, d)
    cf_all = c[:, free]
    X = np.array(X_hat, float)
    _, _, H = _objective_batch(X, V, C, n, prior)
    Hf = H[:, free][:, :, free]  # the free coordinates' Hessian at X, row by row
    sd = np.sqrt(np.einsum("rd,rd->r", cf_all, -np.linalg.solve(Hf, cf_all[:, :, None])[:, :, 0]))
    r = np.einsum("rd,rd->r", c, X) + z_target * sd  # Wald's end
    done = np.zeros(R, bool)
    act = np.arange(R)
    for _ in range(40):
        Xa, f, g, H = _constrained_max(V, C[act], n, prior, X[act], c[act], r[act], Hf[act])
        X[act], Hf[act] = Xa, H
        cf = cf_all[act]
        mu = np.einsum("rd,rd->r", g, cf) / np.einsum("rd,rd->r", cf, cf)
        za = z_target[act]
        z = np.sign(za) * np.sqrt(2 * np.maximum(f_hat[act] - f, 0.0))
        ok = np.abs(z - za) < 1e-7
        done[act[ok]] = True
        slope = -mu / np.where(np.abs(z) > 1e-6, z, np.inf)
        sd = np.sqrt(np.maximum(np.einsum("rd,rd->r", cf, -np.linalg.solve(H, cf[:, :, None])[:, :, 0]), 1e-300))
        slope = np.where(slope > 0, slope, 1 / sd)  # near z = 0, Wald's slope 1 / sd
        r[act] += np.where(ok, 0.0, (za - z) / slope)
        act = act[~ok]
        if not act.size:
            break
    return np.where(done, r, np.nan)


# --- is A better than B? A sequential test on games or on game pairs --------------------------

GAME_POINTS = (0.0, 0.5, 1.0)  # a loss, a draw, a win: A's points in one game
PAIR_POINTS = (0.0, 0.5, 1.0, 1.5, 2.0)  # A's points in a game pair (one start, both seat orders)
PSEUDO_COUNT = 1e-3  # an outcome not seen yet counts as 0.001 of an observation (as fishtest does)
OVERSHOOT = 0.583  # Siegmund's expected overshoot of a random walk, in standard deviations of a step


def _elo_to_score(elo: float) -> float:
    return 1 / (1 + 10 ** (-elo / 400))


def _tilt(p: np.ndarray, a: np.ndarray, s: float) -> np.ndarray:
    """λ with Σ p_k (a_k − s) / (1 + λ (a_k − s)) = 0 (vectorised over p's leading axes).

    p_k / (1 + λ (a_k − s)) is the distribution closest to p (maximum likelihood) whose mean
    score is s. The left side falls strictly in λ on the bracket where every weight stays
    positive, so the root is found by bracketed root finding: a Newton step where it stays inside
    the bracket and at least halves the residual, else bisection; the bracket shrinks every step.
    It stops only when the equation is solved (the residual is at rounding level against its
    terms, or the bracket has shrunk to a few units in the last place) and raises otherwise.
    """
    d = a - s
    shape = p.shape[:-1]
    q = p.reshape(-1, p.shape[-1])
    found = np.zeros(q.shape[0])
    where = np.arange(q.shape[0])  # the elements still being solved (a solved one stays solved)
    lo = np.full(q.shape[0], -1 / d.max())
    hi = np.full(q.shape[0], -1 / d.min())
    lam = np.zeros(q.shape[0])
    last = np.full(q.shape[0], np.inf)  # |residual| at the previous step
    for _round in range(400):
        den = 1 + lam[:, None] * d
        terms = q * d / den
        f = terms.sum(-1)
        solved = (np.abs(f) <= 1e-13 * np.abs(terms).sum(-1)) | (hi - lo <= 8e-16 * np.maximum(1.0, np.abs(lam)))
        if solved.any():
            found[where[solved]] = lam[solved]
            more = ~solved
            if not more.any():
                return found.reshape(shape)
            where, q, lam, lo, hi, last, f, den, terms = (x[more] for x in (where, q, lam, lo, hi, last, f, den, terms))
        slope = -(terms * d / den).sum(-1)
        lo, hi = np.where(f > 0, lam, lo), np.where(f <= 0, lam, hi)
        newton = lam - f / slope
        good = (newton > lo) & (newton < hi) & (np.abs(f) <= 0.5 * last)
        last = np.abs(f)
        lam = np.where(good, newton, (lo + hi) / 2)
    raise ArithmeticError("the constrained maximum likelihood was not found (please report the counts)")


class LLR(NamedTuple):
    """`sprt_llr`'s arrays: the ratio, the bounds it is compared with, and the drift and standard
    deviation of its next step if the outcomes keep their (regularised) frequencies."""

    llr: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    drift: np.ndarray
    sd: np.ndarray


def sprt_llr(
    counts: np.ndarray, *, elo0: float = 0.0, elo1: float = 50.0, alpha: float = 0.05, beta: float = 0.05
) -> LLR:
    """The generalized log-likelihood ratio of "A is elo1 stronger" against "elo0", with its bounds.

    counts[..., k]: how often outcome k was seen; 3 outcomes (A's loss, draw, win in one game) or
    5 (A's 0, ½, 1, 1½, 2 points in a game pair); vectorised over the leading axes (a simulation
    passes every run and every step at once). Each hypothesis is fitted by maximum likelihood
    among all distributions of the outcomes whose mean score is s = 1 / (1 + 10^(−elo / 400))
    (fishtest's `LLR_logistic`); an outcome not seen yet counts as `PSEUDO_COUNT`, so the ratio
    is finite from the first observation on. The bounds are Wald's, ln(β/(1−α)) and ln((1−β)/α),
    each moved inward by the expected overshoot of one step, `OVERSHOOT` standard deviations of
    the step (Siegmund 1985): the test is checked after every observation, and a step can jump
    past a bound.
    """
    c = np.asarray(counts, float)
    if c.ndim < 1 or c.shape[-1] not in (3, 5) or np.any(c < 0) or not np.all(np.isfinite(c)):
        raise ValueError(f"counts must be arrays of 3 or 5 counts >= 0 (last axis), got shape {c.shape}")
    s0, s1 = _elo_to_score(elo0), _elo_to_score(elo1)
    a = np.linspace(0.0, 1.0, c.shape[-1])
    c = np.where(c > 0, c, PSEUDO_COUNT)
    total = c.sum(-1)
    p = c / total[..., None]
    l0, l1 = _tilt(p, a, s0), _tilt(p, a, s1)
    step = np.log1p(l0[..., None] * (a - s0)) - np.log1p(l1[..., None] * (a - s1))
    drift = (p * step).sum(-1)
    sd = np.sqrt(np.maximum(0.0, (p * step * step).sum(-1) - drift**2))
    lower = math.log(beta / (1 - alpha)) + OVERSHOOT * sd
    upper = math.log((1 - beta) / alpha) - OVERSHOOT * sd
    return LLR(total * drift, lower, upper, drift, sd)


@dataclass(frozen=True)
class SPRT:
    """A sequential test of "A is elo1 stronger than B" (H1) against "A is elo0 stronger" (H0).

    model: "pentanomial" (game pairs: A's points per pair 0, ½, 1, 1½, 2) or "trinomial" (single
    games: loss, draw, win); counts in that order. llr: the generalized log-likelihood ratio of
    H1 to H0 so far; the test stops for H1 when llr >= upper, for H0 when llr <= lower. decision:
    "H1", "H0" or None (keep playing). games: games played. score: A's points per game. more:
    the expected number of further games until a bound is reached if the outcomes keep their
    observed frequencies (0 once decided; at least one game, or one pair, while undecided).
    """

    model: str
    counts: tuple[int, ...]
    llr: float
    lower: float
    upper: float
    decision: str | None
    games: int
    score: float
    more: float
    elo0: float
    elo1: float


def _expected_steps(x: float, lower: float, upper: float, drift: float, var: float) -> float:
    """Expected steps until a random walk at x with this drift and variance per step leaves
    (lower, upper): Wald's identity for Brownian motion (hitting probability and mean time)."""
    if var <= 0:
        return math.inf if drift == 0 else max(0.0, (upper - x) / drift if drift > 0 else (lower - x) / drift)
    c = 2 * drift / var
    if abs(c * (upper - lower)) < 1e-9:
        return (x - lower) * (upper - x) / var
    if c > 0:
        p_up = math.expm1(-c * (x - lower)) / math.expm1(-c * (upper - lower))
    else:
        p_up = math.exp(c * (upper - x)) * math.expm1(c * (x - lower)) / math.expm1(c * (upper - lower))
    return (p_up * (upper - x) - (1 - p_up) * (x - lower)) / drift


def _check_counts(counts: object, k: int, what: str) -> tuple[int, ...]:
    if not isinstance(counts, (tuple, list, np.ndarray)) or len(counts) != k:
        raise ValueError(f"{what} must be {k} whole numbers, got {counts!r}")
    return tuple(_check_count(x, what, minimum=0) for x in counts)


def sprt(
    *,
    games: Sequence[int] | None = None,
    pairs: Sequence[int] | None = None,
    elo0: float = 0.0,
    elo1: float = 50.0,
    alpha: float = 0.05,
    beta: float = 0.05,
) -> SPRT:
    """Is A elo1 stronger than B (H1), or only elo0 (H0)? A generalized sequential probability ratio test.

    Give either games=(wins, draws, losses) of A in single games (the trinomial model) or
    pairs=(n0, n1, n2, n3, n4), the number of game pairs (one start played with both seat orders)
    in which A scored k/2 points (the pentanomial model of chess-engine testing: the two games of
    a pair share the start's luck, so the pair, not the game, is the independent unit). The
    hypotheses are about A's expected score per game, s = 1 / (1 + 10^(−elo / 400)).

    The ratio and its bounds are `sprt_llr`'s (fishtest's generalized SPRT: each hypothesis
    fitted by maximum likelihood under its mean score; finite from the first game on; Wald's
    bounds less the expected overshoot), so checking after every game or pair keeps the error
    rates near α and β (tests check it by simulation).

    Raises:
        TypeError: a count is not a whole number, or `elo0`, `elo1`, `alpha` or `beta` is not a number.
        ValueError: neither or both of `games` and `pairs` are given; they are not 3 (5) counts >= 0;
            `elo0` or `elo1` is not finite; `elo1` is not larger than `elo0`; or `alpha` or `beta` is
            not between 0 and 0.5.

    >>> test = sprt(games=(60, 10, 20))  # 60 wins, 10 draws, 20 losses of A
    >>> test.decision, test.games, round(test.score, 3), round(test.llr, 2), round(test.upper, 2)
    ('H1', 90, 0.722, 5.45, 2.87)
    >>> test = sprt(games=(12, 4, 8))
    >>> test.decision, round(test.llr, 2), round(test.more)  # undecided: about 146 more games
    (None, 0.39, 146)
    >>> sprt(games=(12, 4))
    Traceback (most recent call last):
        ...
    ValueError: games (wins, draws, losses) must be 3 whole numbers, got (12, 4)
    """
    if (games is None) == (pairs is None):
        raise ValueError("give exactly one of games=(wins, draws, losses) or pairs=(n0, n1, n2, n3, n4)")
    for v, what in ((elo0, "elo0"), (elo1, "elo1")):
        if not math.isfinite(_check_real(v, what)):
            raise ValueError(f"{what} must be a finite number of Elo points, got {v!r}")
    if not elo1 > elo0:
        raise ValueError(f"elo1 must be larger than elo0, got elo0={elo0!r}, elo1={elo1!r}")
    for v, what in ((alpha, "alpha"), (beta, "beta")):
        if not 0 < _check_real(v, what) < 0.5:
            raise ValueError(f"{what} must be between 0 and 0.5, got {v!r}")
    counts: tuple[int, ...]
    if games is not None:
        w, d, l = _check_counts(games, 3, "games (wins, draws, losses)")
        model, counts, n_games, per_step = "trinomial", (l, d, w), w + d + l, 1
    else:  # pairs
        counts = _check_counts(pairs, 5, "pairs (pairs with 0, 1/2, 1, 3/2, 2 points)")
        model, n_games, per_step = "pentanomial", 2 * sum(counts), 2
    points = sum(k * c for k, c in enumerate(counts)) / 2  # outcome k is worth k/2 points in both models
    score = points / n_games if n_games else math.nan
    t = sprt_llr(np.array(counts, float), elo0=elo0, elo1=elo1, alpha=alpha, beta=beta)
    llr, lower, upper, drift, sd = (float(x) for x in t)
    decision = "H1" if llr >= upper else ("H0" if llr <= lower else None)
    more = 0.0 if decision else per_step * max(1.0, _expected_steps(llr, lower, upper, drift, sd * sd))
    return SPRT(model, counts, llr, lower, upper, decision, n_games, score, more, float(elo0), float(elo1))


def simulate_sprt(
    probabilities: Sequence[float],
    runs: int,
    *,
    seed: int,
    elo0: float = 0.0,
    elo1: float = 50.0,
    alpha: float = 0.05,
    beta: float = 0.05,
    max_steps: int = 100_000,
    start: Sequence[int] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Run the sequential test `runs` times on outcomes drawn with known probabilities.

    probabilities: of A's 3 game outcomes (loss, draw, win) or 5 pair outcomes (0 … 2 points),
    as `sprt` counts them (`start`: counts already seen, in the same order; default none). Every
    run draws outcomes one at a time and stops where `sprt` would. Returns (decision, steps) per
    run: +1 for H1, −1 for H0, 0 if still open after max_steps; and the observations (games or
    pairs) it took. All runs advance together in blocks (numpy).

    Raises:
        TypeError: `runs` or `seed` is not a whole number, or a count of `start` is not one.
        ValueError: `probabilities` are not 3 or 5 numbers >= 0 adding up to 1; `runs` is below 1
            or `seed` below 0; or `start` does not give as many counts >= 0.

    A field in which A wins half of its games, draws a fifth and loses the rest (about 70 Elo):

    >>> decision, steps = simulate_sprt([0.3, 0.2, 0.5], 200, seed=1)
    >>> float((decision == 1).mean()), int(steps.mean())  # share of runs that accepted H1, mean games
    (0.995, 124)
    """
    p = np.asarray(probabilities, float)
    if p.ndim != 1 or p.size not in (3, 5) or np.any(p < 0) or not math.isclose(p.sum(), 1.0, abs_tol=1e-9):
        raise ValueError(f"probabilities must be 3 or 5 numbers >= 0 adding up to 1, got {probabilities!r}")
    runs = _check_count(runs, "runs")
    rng = np.random.default_rng(_check_count(seed, "seed", minimum=0))
    K, block = p.size, 128
    counts = np.zeros((runs, K))
    if start is not None:
        counts[:] = _check_counts(start, K, "start")
    open_runs = np.arange(runs)
    decision, steps = np.zeros(runs, int), np.zeros(runs, int)
    done_steps = 0
    while open_runs.size and done_steps < max_steps:
        drawn = rng.choice(K, size=(open_runs.size, block), p=p)
        path = counts[open_runs][:, None, :] + np.cumsum(np.eye(K)[drawn], axis=1)
        t = sprt_llr(path, elo0=elo0, elo1=elo1, alpha=alpha, beta=beta)
        up, down = t.llr >= t.upper, t.llr <= t.lower
        crossed = up | down
        stop = crossed.any(axis=1)
        first = np.argmax(crossed, axis=1)
        ended = open_runs[stop]
        decision[ended] = np.where(up[stop, first[stop]], 1, -1)
        steps[ended] = done_steps + first[stop] + 1
        counts[open_runs] = path[:, -1, :]
        open_runs = open_runs[~stop]
        done_steps += block
    steps[open_runs] = done_steps
    return decision, steps
