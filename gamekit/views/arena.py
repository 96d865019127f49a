"""Drawings of arena results: the win/draw/loss heat map, ratings with intervals, time vs strength.

Views know the arena only through `GameTable` and `gamekit.stats.Ratings`. Colours follow the
course: red = good for the row agent (it scored), blue = bad (it gave the points away). Figures
are sized for a 1280 x 720 projector: 12 in wide and at most about 5.5 in tall (slides show a
figure at most 460 px tall), text at 14 pt, so every label is at least 14 px on the slide.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.colors import LinearSegmentedColormap

from ..arena import GameTable
from ..i18n import _, pgettext
from ..stats import Ratings
from .alt import headed, num, set_alt
from .colors import BLACK, BLUE, GREY, RED

__all__ = [
    "SCORE_CMAP",
    "draw_heat_map",
    "draw_rate_curve",
    "draw_ratings",
    "draw_ratings_by_seed",
    "draw_time_vs_strength",
]

#: score 0 (lost every game) -> blue, 1/2 -> white, 1 (won every game) -> red
SCORE_CMAP = LinearSegmentedColormap.from_list("gamekit_score", [BLUE, "#ffffff", RED])
FONT = 14
WIDTH = 12.0
MAX_HEIGHT = 5.5


def draw_heat_map(table: GameTable, ax: Any = None, title: str | None = None, cells: str = "wdl") -> Any:
    """Score of each row agent against each column agent; in every cell W/D/L (cells="wdl") or
    the score (cells="score")."""
    n = len(table.agents)
    if ax is None:
        ax = plt.subplots(figsize=(WIDTH, min(MAX_HEIGHT, 1.6 + 0.38 * n)))[1]
    score = table.score()
    im = ax.imshow(np.ma.masked_invalid(score), cmap=SCORE_CMAP, vmin=0, vmax=1, aspect="auto")
    for i in range(n):
        for j in range(n):
            if i == j:
                text = "—"
            elif cells == "score":
                text = f"{score[i, j]:.2f}"
            else:
                text = f"{table.wins[i][j]}/{table.draws[i][j]}/{table.losses[i][j]}"
            ax.text(j, i, text, ha="center", va="center", color=GREY if i == j else BLACK, fontsize=FONT)
    ax.set_xticks(range(n), table.agents, rotation=30, ha="right", fontsize=FONT)
    ax.set_yticks(range(n), table.agents, fontsize=FONT)
    ax.set_xlabel(pgettext("arena", "opponent"), fontsize=FONT)
    if cells == "wdl":
        ax.set_title(
            title or _("{game}: wins/draws/losses of the row agent").format(game=table.game), fontsize=FONT + 2
        )
    else:
        ax.set_title(title or _("{game}: score of the row agent").format(game=table.game), fontsize=FONT + 2)
    bar = ax.figure.colorbar(im, ax=ax, fraction=0.04, pad=0.02)
    bar.set_label(_("score (win 1, draw ½)"), fontsize=FONT)
    bar.ax.tick_params(labelsize=FONT)
    pairs = [(score[i, j], i, j) for i in range(n) for j in range(n) if i != j and np.isfinite(score[i, j])]
    if cells == "wdl":
        text = _("{n} agents, each cell the row agent's wins/draws/losses against the column agent").format(n=n)
    else:
        text = _("{n} agents, each cell the row agent's score against the column agent").format(n=n)
    if pairs:
        best, i, j = max(pairs)
        text = _("{cells}; the highest score is {score}, {agent} against {opponent}").format(
            cells=text, score=f"{best:.2f}", agent=table.agents[i], opponent=table.agents[j]
        )
    rows = [
        [table.agents[i], table.agents[j], table.wins[i][j], table.draws[i][j], table.losses[i][j], score[i, j]]
        for i in range(n)
        for j in range(n)
        if i != j
    ]
    columns = [
        pgettext("arena", "agent"),
        pgettext("arena", "opponent"),
        pgettext("arena", "wins"),
        pgettext("arena", "draws"),
        pgettext("arena", "losses"),
        pgettext("arena", "score"),
    ]
    set_alt(ax, headed("Heat map", ax.get_title(), text), (columns, rows))
    return ax.figure


def draw_ratings(ratings: Mapping[str, Ratings | Mapping[str, float]], fig: Any = None) -> Any:
    """One panel per game: each agent's rating, strongest at the top, with its interval as an
    error bar when the ratings have one (from `bootstrap_ratings`)."""
    k = len(ratings)
    cols = 2 if k > 1 else 1
    rows = -(-k // cols)
    if fig is None:
        most = max((len(r.names) if isinstance(r, Ratings) else len(r)) for r in ratings.values()) if k else 1
        fig = plt.figure(figsize=(WIDTH, min(MAX_HEIGHT, max(3.0, 1.0 + 0.33 * most) * rows)))
    axes = fig.subplots(rows, cols, squeeze=False).ravel()
    for ax, (game, r) in zip(axes, ratings.items()):
        values = r.as_dict() if isinstance(r, Ratings) else dict(r)
        order = sorted(values, key=values.__getitem__)
        xs = [values[a] for a in order]
        ax.barh(range(len(order)), xs, color=[RED if v >= 0 else BLUE for v in xs], height=0.7)
        if isinstance(r, Ratings) and r.low is not None:
            lo = [x - r.interval(a)[0] for a, x in zip(order, xs)]
            hi = [r.interval(a)[1] - x for a, x in zip(order, xs)]
            ax.errorbar(xs, range(len(order)), xerr=[lo, hi], fmt="none", ecolor=BLACK, capsize=3, lw=1.2)
        ax.set_yticks(range(len(order)), order, fontsize=FONT)
        ax.set_title(game, fontsize=FONT + 1)
        ax.axvline(0, color=BLACK, lw=0.8)
        said = ", ".join(f"{a} {num(round(values[a]))}" for a in reversed(order))
        body = _("ratings of {n} agents on the Elo scale, strongest first: {ratings}").format(
            n=len(order), ratings=said
        )
        set_alt(ax, headed("Bar chart", game, body))
        ax.tick_params(axis="x", labelsize=FONT)
    for ax in axes[k:]:
        ax.set_visible(False)
    fig.supxlabel(_("rating (Elo scale: +400 = odds of 10 : 1); bars: 95 % bootstrap interval"), fontsize=FONT)
    fig.tight_layout()
    return fig


def draw_ratings_by_seed(
    per_seed: Sequence[Ratings], labels: Sequence[str] | None = None, agents: Sequence[str] | None = None,
    ax: Any = None, title: str = "", sort: bool = True,
) -> Any:  # fmt: skip
    """One row per agent, one dot per run (seed) with its bootstrap interval: do the runs agree?
    Agents are sorted by their mean rating (sort=False: in the order given, bottom to top)."""
    agents = list(agents or per_seed[0].names)
    labels = list(labels or [_("run {k}").format(k=k) for k in range(len(per_seed))])
    if ax is None:
        ax = plt.subplots(figsize=(WIDTH, min(MAX_HEIGHT, 0.45 * len(agents) + 1.6)))[1]
    mean = {a: float(np.mean([r[a] for r in per_seed])) for a in agents}
    if sort:
        agents.sort(key=mean.__getitem__)
    cmap = plt.get_cmap("viridis", len(per_seed))
    markers = "os^Dv<>ph*"  # never colour alone: each run its own marker
    width = 0.6
    for k, r in enumerate(per_seed):
        y = np.arange(len(agents)) + (k - (len(per_seed) - 1) / 2) * width / max(1, len(per_seed) - 1)
        x = np.array([r[a] for a in agents])
        if r.low is not None:
            lo = x - np.array([r.interval(a)[0] for a in agents])
            hi = np.array([r.interval(a)[1] for a in agents]) - x
            ax.errorbar(
                x, y, xerr=[lo, hi], fmt=markers[k % 10], color=cmap(k), ms=5, lw=1.2, capsize=2, label=labels[k]
            )
        else:
            ax.plot(x, y, markers[k % 10], color=cmap(k), label=labels[k])
    ax.set_yticks(range(len(agents)), agents, fontsize=FONT)
    ax.tick_params(axis="x", labelsize=FONT)
    ax.axvline(0, color=GREY, lw=0.8)
    ax.set_xlabel(_("rating (Elo scale), 95 % bootstrap interval"), fontsize=FONT)
    ax.set_title(title, fontsize=FONT + 1)
    ax.legend(fontsize=FONT - 1, loc="lower right", ncol=1, framealpha=0.9)
    ax.grid(True, axis="x", color=GREY, lw=0.4)

    def spread(a: str) -> str:
        low, high = min(r[a] for r in per_seed), max(r[a] for r in per_seed)
        if low == high:
            return f"{a}: {num(round(low))}"
        # TRANSLATORS: an agent's ratings over several runs, lowest to highest ("perfect: 480 to 512")
        return _("{agent}: {low} to {high}").format(agent=a, low=num(round(low)), high=num(round(high)))

    said = "; ".join(spread(a) for a in reversed(agents))
    body = _(
        "ratings of {n} agents in {runs} runs, one marker per run; range over the runs, strongest first: {ranges}"
    ).format(n=len(agents), runs=len(per_seed), ranges=said)
    set_alt(ax, headed("Scatter plot", title, body))
    return ax.figure


def draw_time_vs_strength(
    table: GameTable, ratings: Ratings | Mapping[str, float] | None = None, ax: Any = None
) -> Any:
    """Time per move (log scale) against rating: what does each extra millisecond buy?"""
    r = ratings if ratings is not None else table.ratings()
    values = r.as_dict() if isinstance(r, Ratings) else dict(r)
    tpm = table.time_per_move()
    if ax is None:
        ax = plt.subplots(figsize=(WIDTH, 5.0))[1]
    names = [a for a in table.agents if tpm[a] > 0]
    xs = [1000 * tpm[a] for a in names]
    ys = [values[a] for a in names]
    if isinstance(r, Ratings) and r.low is not None:
        lo = [y - r.interval(a)[0] for a, y in zip(names, ys)]
        hi = [r.interval(a)[1] - y for a, y in zip(names, ys)]
        ax.errorbar(xs, ys, yerr=[lo, hi], fmt="none", ecolor=GREY, lw=1, capsize=2, zorder=2)
    ax.scatter(xs, ys, color=RED, zorder=3)
    ax.set_xscale("log")
    ax.margins(x=0.15, y=0.12)
    ax.set_xlabel(_("milliseconds per move (log scale)"), fontsize=FONT)
    ax.set_ylabel(pgettext("axis", "rating"), fontsize=FONT)
    ax.tick_params(labelsize=FONT)
    ax.set_title(_("{game}: cost against strength").format(game=table.game), fontsize=FONT + 1)
    ax.grid(True, which="major", color=GREY, lw=0.4)
    _place_labels(ax, names, xs, ys)
    said = "; ".join(
        _("{agent} {ms} ms, rating {rating}").format(agent=a, ms=f"{x:.3g}", rating=num(round(y)))
        for a, x, y in zip(names, xs, ys)
    )
    body = _("milliseconds per move against rating, {n} agents: {agents}").format(n=len(names), agents=said)
    set_alt(ax, headed("Scatter plot", ax.get_title(), body))
    return ax.figure


def draw_rate_curve(
    xs: Sequence[float],
    counts: Sequence[tuple[float, int]],
    notes: Sequence[str] | None = None,
    ax: Any = None,
    xlabel: str = "",
    ylabel: str | None = None,
    title: str = "",
    logx: bool = True,
) -> Any:
    """Rates k/n against x with 95 % Wilson intervals as error bars; `notes` label the points.
    `ylabel` defaults to "rate" (in the language in force)."""
    from ..stats import wilson

    if ylabel is None:
        ylabel = pgettext("axis", "rate")
    if ax is None:
        ax = plt.subplots(figsize=(WIDTH, 4.6))[1]
    rates = [k / n for k, n in counts]
    bounds = [wilson(k, n) for k, n in counts]
    low = [r - lo for r, (lo, _) in zip(rates, bounds)]
    high = [hi - r for r, (_, hi) in zip(rates, bounds)]
    ax.errorbar(xs, rates, yerr=[low, high], fmt="o-", color=RED, capsize=4)
    for x, y, note in zip(xs, rates, notes or []):
        ax.annotate(note, (x, y), xytext=(6, -16), textcoords="offset points", fontsize=FONT)
    ax.margins(x=0.15, y=0.15)
    if logx:
        ax.set_xscale("log")
    ax.set_xlabel(xlabel, fontsize=FONT)
    ax.set_ylabel(ylabel, fontsize=FONT)
    ax.set_title(title, fontsize=FONT)
    ax.tick_params(labelsize=FONT)
    said = "; ".join(
        f"{num(x)}: {r:.0%} [{lo:.0%}, {hi:.0%}]" + (f" ({note})" if note else "")
        for x, r, (lo, hi), note in zip(xs, rates, bounds, list(notes or []) + [""] * len(xs))
    )
    body = _("{y} against {x} with 95% Wilson intervals: {points}").format(y=ylabel, x=xlabel or "x", points=said)
    columns = [
        xlabel or "x",
        pgettext("arena", "wins"),
        pgettext("arena", "games"),
        ylabel,
        # TRANSLATORS: the lower and upper end of an interval (columns of a data table)
        pgettext("interval", "low"),
        pgettext("interval", "high"),
    ]
    set_alt(
        ax,
        headed("Line chart", title, body),
        (columns, [[x, k, n, r, lo, hi] for x, (k, n), r, (lo, hi) in zip(xs, counts, rates, bounds)]),
    )
    return ax.figure


def _place_labels(ax: Any, names: Sequence[str], xs: Sequence[float], ys: Sequence[float]) -> None:
    """Label each point at the first of eight spots (right and left of the point, then further up
    or down) where the label overlaps no label placed before; deterministic, no layout search."""
    spots = [
        ((6, 4), "left", "bottom"),
        ((6, -4), "left", "top"),
        ((-6, 4), "right", "bottom"),
        ((-6, -4), "right", "top"),
        ((6, 18), "left", "bottom"),
        ((6, -18), "left", "top"),
        ((-6, 18), "right", "bottom"),
        ((-6, -18), "right", "top"),
    ]
    get_renderer = getattr(ax.figure.canvas, "get_renderer", None)  # Agg-based canvases (inline, files)
    renderer = get_renderer() if get_renderer else None
    placed: list[Any] = []
    for a, x, y in sorted(zip(names, xs, ys), key=lambda t: (-t[2], t[1])):
        for offset, ha, va in spots:
            label = ax.annotate(a, (x, y), xytext=offset, textcoords="offset points", fontsize=FONT, ha=ha, va=va)
            if renderer is None:
                break
            box = label.get_window_extent(renderer)
            if not any(box.overlaps(other) for other in placed) or (offset, ha, va) == spots[-1]:
                placed.append(box)
                break
            label.remove()
