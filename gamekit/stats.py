"""Honest numbers from sampled games: intervals for rates, ratings with their uncertainty.

- `wilson(k, n)`: the Wilson score interval for a rate (scipy's `binomtest(...).proportion_ci`).
- `rate_text(k, n)`: a rate with its interval as text, e.g. "0.55 [0.40, 0.69], n = 40".
- `fit_ratings(names, results)`: Bradley–Terry ratings on the Elo scale, fitted by maximising the
  stated (penalised) likelihood exactly; draws modelled by Davidson (1970).
- `bootstrap_ratings(...)`: the same fit with percentile-bootstrap intervals (games resampled).
- `sprt(...)` and `games_to_separate(...)`: "is A better than B yet, and how many more games?"

Results are triples `(i, j, score_of_i)` with indices into `names` and a score of 1 (i won),
0.5 (draw) or 0 (i lost). Everything random takes a `seed`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from numbers import Integral, Real

import numpy as np

__all__ = [
    "Ratings",
    "SPRT",
    "bootstrap_ratings",
    "fit_ratings",
    "games_to_separate",
    "rate_text",
    "sprt",
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
    """A rate and its Wilson interval as text: "0.55 [0.40, 0.69], n = 40"."""
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
    """

    names: tuple[str, ...]
    elo: tuple[float, ...]
    low: tuple[float, ...] | None
    high: tuple[float, ...] | None
    loglik: float
    draw: float | None

    def as_dict(self) -> dict[str, float]:
        """{name: rating}."""
        return dict(zip(self.names, self.elo))

    def interval(self, name: str) -> tuple[float, float]:
        """The (low, high) interval of `name`'s rating (needs a bootstrap)."""
        if name not in self.names:
            raise KeyError(f"{name!r} is not rated; rated: {', '.join(self.names)}")
        if self.low is None or self.high is None:
            raise ValueError("these ratings have no intervals; use bootstrap_ratings")
        k = self.names.index(name)
        return self.low[k], self.high[k]

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


def _objective(
    x: np.ndarray, V: np.ndarray, C: np.ndarray, n: int, prior: float
) -> tuple[float, np.ndarray, np.ndarray]:
    """The penalised log-likelihood, its gradient and Hessian at parameters x = (ln p, [ln ν])."""
    eta = V @ x  # (P, K) linear predictors: ln of each outcome's unnormalised weight
    lse = np.logaddexp.reduce(eta, axis=1) if eta.size else np.zeros(0)
    pi = np.exp(eta - lse[:, None])
    N = C.sum(axis=1)
    f = float((C * eta).sum() - (N * lse).sum())
    P, K, d = V.shape
    flat = V.reshape(P * K, d)
    mean = (pi[:, :, None] * V).sum(axis=1)  # (P, d): expected coefficient vector per pair
    g = C.reshape(-1) @ flat - N @ mean
    H = -((flat * (N[:, None] * pi).reshape(-1, 1)).T @ flat - (mean * N[:, None]).T @ mean)
    if prior > 0:  # prior/2 virtual wins and prior/2 virtual losses against strength 1 (rating 0)
        th = x[:n]
        f += prior / 2 * float(np.sum(th - 2 * np.logaddexp(0.0, th)))
        sig = 1 / (1 + np.exp(-th))
        g[:n] += prior / 2 * (1 - 2 * sig)
        H[np.arange(n), np.arange(n)] -= prior * sig * (1 - sig)
    return f, g, H


def _maximise(
    V: np.ndarray, C: np.ndarray, n: int, prior: float, x0: np.ndarray | None = None
) -> tuple[np.ndarray, float]:
    """Newton's method with backtracking on the (concave) penalised log-likelihood.

    The objective is concave in (ln p, ln ν) — a sum of linear terms minus log-sum-exps — so the
    stationary point Newton finds is the global maximum. Without a prior the strengths are only
    determined up to a common factor: ln p_0 is held at 0.
    """
    d = V.shape[2]
    x = np.zeros(d) if x0 is None else x0.copy()
    free = np.arange(d) if prior > 0 else np.arange(1, d)
    f, g, H = _objective(x, V, C, n, prior)
    for _ in range(200):
        gf, Hf = g[free], H[np.ix_(free, free)]
        if np.max(np.abs(gf), initial=0.0) < 1e-9:
            break
        try:
            step = -np.linalg.solve(Hf, gf)
        except np.linalg.LinAlgError:
            step = gf  # a gradient step where the Hessian is singular
        t = 1.0
        while True:
            xn = x.copy()
            xn[free] += t * step
            fn, gn, Hn = _objective(xn, V, C, n, prior)
            if fn >= f - 1e-12 * abs(f) or t < 1e-12:
                break
            t /= 2
        x, f, g, H = xn, fn, gn, Hn
        if np.max(np.abs(x), initial=0.0) > _MAX_THETA:
            break
    if np.max(np.abs(x), initial=0.0) > _MAX_THETA or np.max(np.abs(g[free]), initial=0.0) > 1e-6:
        raise ValueError(
            "the likelihood has no finite maximum: some agent (or group of agents) never lost or "
            "never won against the rest, or every game was a draw; use prior > 0"
        )
    return x, f


def _check_connected(n: int, res: np.ndarray) -> None:
    """Without a prior the maximum exists only if the "scored against" graph (an edge i -> j when i
    won or drew a game against j) is strongly connected (Ford 1957; draws link both ways)."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import connected_components

    adj = np.zeros((n, n))
    for i, j, s in res:
        if s > 0:
            adj[int(i), int(j)] = 1
        if s < 1:
            adj[int(j), int(i)] = 1
    k, _ = connected_components(csr_matrix(adj), directed=True, connection="strong")
    if k > 1:
        raise ValueError(
            "the likelihood has no finite maximum: some agent (or group of agents) never lost, or "
            "never scored, against the rest; use prior > 0"
        )


def _to_ratings(
    names: tuple[str, ...], x: np.ndarray, f: float, davidson: bool, draws: str, anchor: str | None
) -> tuple[np.ndarray, float | None]:
    n = len(names)
    elo = ELO_PER_NAT * x[:n]
    elo = elo - (elo[names.index(anchor)] if anchor is not None else elo.mean())
    nu: float | None = None if draws == "half" else (float(math.exp(x[n])) if davidson else 0.0)
    return elo, nu


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
        _check_connected(n, res)
    x, f = _maximise(V, C, n, float(prior))
    elo, nu = _to_ratings(names, x, f, davidson, draws, anchor)
    return elo, nu, f, x


def bootstrap_ratings(
    names: Sequence[str],
    results: Sequence[tuple[int, int, float]],
    *,
    reps: int = 500,
    seed: int,
    confidence: float = 0.95,
    prior: float = 1.0,
    draws: str = "davidson",
    anchor: str | None = None,
) -> Ratings:
    """`fit_ratings` with percentile-bootstrap intervals.

    Each replicate draws as many games as were played, with replacement, from the games played,
    refits, and anchors the same way; low/high are the (1 − confidence)/2 and (1 + confidence)/2
    quantiles of each agent's replicate ratings. The point estimates are the fit to all games.
    The same seed gives the same intervals. (With anchor="x", x's interval is [0, 0]: intervals
    are for differences to x.) The intervals describe the penalised fit: for an agent that never
    lost, the prior sets how high it can go, and its interval understates how little is known.
    """
    reps = _check_count(reps, "reps", minimum=2)
    seed = _check_count(seed, "seed", minimum=0)
    level = _check_confidence(confidence)
    names_t, res = _check_inputs(names, results, prior, draws, anchor)
    elo, nu, f, x_all = _fit(names_t, res, prior, draws, anchor)
    n, m = len(names_t), len(res)
    pairs, cat = _group(res)
    designs = {}  # the design depends only on whether the sample has draws
    rng = np.random.default_rng(seed)
    samples = np.empty((reps, n))
    for r in range(reps):
        pick = rng.integers(0, m, size=m) if m else np.zeros(0, int)
        counts = np.bincount(cat[pick], minlength=3 * len(pairs)).reshape(-1, 3)
        if draws == "davidson" and m and not counts[:, :2].sum() > 0:
            raise ValueError("a bootstrap sample had only draws; too few decisive games for intervals")
        if prior == 0:
            _check_connected(n, res[pick])
        key = bool(counts[:, 2].sum() > 0)
        if key not in designs:
            designs[key] = _design(n, pairs, counts, draws)
        V, _, davidson = designs[key]
        C = counts.astype(float) if davidson else counts[:, :2] + counts[:, 2:3] / 2
        x0 = x_all if len(x_all) == V.shape[2] else x_all[:n]  # start at the fit to all games
        x, fr = _maximise(V, C, n, float(prior), x0)
        samples[r], _ = _to_ratings(names_t, x, fr, davidson, draws, anchor)
    q = np.quantile(samples, [(1 - level) / 2, (1 + level) / 2], axis=0)
    return Ratings(names_t, tuple(map(float, elo)), tuple(map(float, q[0])), tuple(map(float, q[1])), f, nu)


# --- how many games? ---------------------------------------------------------------------------


def _elo_to_score(elo: float) -> float:
    return 1 / (1 + 10 ** (-elo / 400))


def _score_moments(wins: int, draws: int, losses: int) -> tuple[int, float, float]:
    wins, draws, losses = (
        _check_count(x, what, minimum=0) for x, what in ((wins, "wins"), (draws, "draws"), (losses, "losses"))
    )
    n = wins + draws + losses
    if n < 2:
        raise ValueError(f"need at least 2 games, got {n}")
    mean = (wins + draws / 2) / n
    var = (wins + draws / 4) / n - mean**2  # per-game variance of the score
    return n, mean, var


@dataclass(frozen=True)
class SPRT:
    """A sequential probability ratio test on the score of A against B.

    H0: A is elo0 stronger than B; H1: A is elo1 stronger. llr is the log-likelihood ratio of
    H1 to H0 so far; the test stops for H1 when llr >= upper, for H0 when llr <= lower.
    decision is "H1", "H0" or None (keep playing).
    """

    llr: float
    lower: float
    upper: float
    decision: str | None
    games: int


def sprt(
    wins: int,
    draws: int,
    losses: int,
    *,
    elo0: float = 0.0,
    elo1: float = 50.0,
    alpha: float = 0.05,
    beta: float = 0.05,
) -> SPRT:
    """Wald's sequential test of "A is elo1 stronger than B" against "A is elo0 stronger".

    Uses the normal approximation of the per-game score (as chess-engine testing does): with
    observed mean score s and variance σ² over n games, LLR = n (s1 − s0)(2s − s0 − s1) / (2σ²),
    where s0, s1 are the expected scores at elo0 and elo1. Wald's bounds: ln(β / (1 − α)) and
    ln((1 − β) / α). Stopping when a bound is crossed keeps the error rates near α and β, and on
    average needs fewer games than a fixed-size test.
    """
    if not elo1 > elo0:
        raise ValueError(f"elo1 must be larger than elo0, got elo0={elo0!r}, elo1={elo1!r}")
    for v, what in ((alpha, "alpha"), (beta, "beta")):
        if not 0 < v < 0.5:
            raise ValueError(f"{what} must be between 0 and 0.5, got {v!r}")
    n, s, var = _score_moments(wins, draws, losses)
    lower, upper = math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)
    s0, s1 = _elo_to_score(elo0), _elo_to_score(elo1)
    llr = 0.0 if var <= 0 else n * (s1 - s0) * (2 * s - s0 - s1) / (2 * var)
    if var <= 0:  # every game had the same result: decide by which hypothesis is closer
        llr = math.inf if s >= s1 else (-math.inf if s <= s0 else 0.0)
    decision = "H1" if llr >= upper else ("H0" if llr <= lower else None)
    return SPRT(llr, lower, upper, decision, n)


def games_to_separate(wins: int, draws: int, losses: int, confidence: float = 0.95) -> float:
    """About how many games in total until the score's interval excludes 1/2, if the observed
    mean score and per-game variance stay as they are: n = (z σ / (s − 1/2))², z the normal
    quantile (scipy). inf when the observed score is exactly 1/2; the current count when the
    interval (normal approximation) already excludes 1/2."""
    n, s, var = _score_moments(wins, draws, losses)
    from scipy.stats import norm

    z = float(norm.ppf((1 + _check_confidence(confidence)) / 2))
    if s == 0.5:
        return math.inf
    return max(float(n), z * z * var / (s - 0.5) ** 2)
