"""Drawings of arena results: the win/draw/loss heat map, ratings, and time per move vs strength.

Views know the arena only through `GameTable` / `ArenaResult`. Colours follow the course:
red = good for the row agent (it scored), blue = bad (it gave the points away).
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.colors import LinearSegmentedColormap

from ..arena import GameTable, fit_elo
from .colors import BLACK, BLUE, GREY, RED

#: score 0 (lost every game) -> blue, 1/2 -> white, 1 (won every game) -> red
SCORE_CMAP = LinearSegmentedColormap.from_list("gamekit_score", [BLUE, "#ffffff", RED])


def draw_heat_map(table: GameTable, ax=None, title: str | None = None):
    """Score of each row agent against each column agent, with W/D/L in every cell."""
    n = len(table.agents)
    if ax is None:
        _, ax = plt.subplots(figsize=(min(8, 2.4 + 0.7 * n), min(4.5, 1.4 + 0.4 * n)))
    score = table.score()
    # aspect="auto": the cells fill the figure's width, so the W/D/L labels stay readable
    im = ax.imshow(np.ma.masked_invalid(score), cmap=SCORE_CMAP, vmin=0, vmax=1, aspect="auto")
    size = 9 if n <= 6 else 8
    for i in range(n):
        for j in range(n):
            if i == j:
                ax.text(j, i, "—", ha="center", va="center", color=GREY, fontsize=size)
            else:
                ax.text(
                    j,
                    i,
                    f"{table.wins[i][j]}/{table.draws[i][j]}/{table.losses[i][j]}",
                    ha="center",
                    va="center",
                    color=BLACK,
                    fontsize=size,
                )
    ax.set_xticks(range(n), table.agents, rotation=35, ha="right", fontsize=size + 1)
    ax.set_yticks(range(n), table.agents, fontsize=size + 1)
    ax.set_xlabel("opponent")
    ax.set_title(title or f"{table.game}: wins/draws/losses of the row agent")
    ax.figure.colorbar(im, ax=ax, fraction=0.046, pad=0.03, label="score (win 1, draw ½)")
    return ax.figure


def draw_ratings(ratings: dict[str, dict[str, float]], fig=None):
    """One panel per game: each agent's Elo-scale rating as a bar, strongest at the top."""
    k = len(ratings)
    cols = 2 if k > 1 else 1
    rows = -(-k // cols)
    if fig is None:
        fig = plt.figure(figsize=(8.5, 2.4 * rows))
    axes = fig.subplots(rows, cols, squeeze=False).ravel()
    for ax, (game, r) in zip(axes, ratings.items()):
        items = sorted(r.items(), key=lambda kv: kv[1])
        values = [v for _, v in items]
        ax.barh(range(len(items)), values, color=[RED if v >= 0 else BLUE for v in values], height=0.7)
        ax.set_yticks(range(len(items)), [a for a, _ in items], fontsize=8)
        ax.set_title(game, fontsize=10)
        ax.axvline(0, color=BLACK, lw=0.6)
        ax.tick_params(axis="x", labelsize=8)
    for ax in axes[k:]:
        ax.set_visible(False)
    fig.supxlabel("rating (Elo scale: +400 = odds of 10 : 1)", fontsize=9)
    fig.tight_layout()
    return fig


def draw_time_vs_strength(table: GameTable, ratings: dict[str, float] | None = None, ax=None):
    """Time per move (log scale) against rating: what does each extra millisecond buy?"""
    ratings = ratings if ratings is not None else fit_elo(table)
    tpm = table.time_per_move()
    if ax is None:
        _, ax = plt.subplots(figsize=(7, 4.2))
    names = [a for a in table.agents if tpm[a] > 0]
    xs = [1000 * tpm[a] for a in names]
    ys = [ratings[a] for a in names]
    ax.scatter(xs, ys, color=RED, zorder=3)
    ax.set_xscale("log")
    ax.margins(x=0.15, y=0.12)
    ax.set_xlabel("milliseconds per move (log scale)")
    ax.set_ylabel("rating")
    ax.set_title(f"{table.game}: cost against strength")
    ax.grid(True, which="major", color=GREY, lw=0.4)
    _place_labels(ax, names, xs, ys)
    return ax.figure


def _place_labels(ax, names, xs, ys) -> None:
    """Label each point at the first of four spots (upper right, lower right, upper left, lower
    left) where the label overlaps no label placed before; deterministic, no layout search."""
    spots = [
        ((4, 3), "left", "bottom"),
        ((4, -3), "left", "top"),
        ((-4, 3), "right", "bottom"),
        ((-4, -3), "right", "top"),
    ]
    get_renderer = getattr(ax.figure.canvas, "get_renderer", None)  # Agg-based canvases (inline, files)
    renderer = get_renderer() if get_renderer else None
    placed = []
    for a, x, y in sorted(zip(names, xs, ys), key=lambda t: (-t[2], t[1])):
        for offset, ha, va in spots:
            label = ax.annotate(a, (x, y), xytext=offset, textcoords="offset points", fontsize=8, ha=ha, va=va)
            if renderer is None:
                break
            box = label.get_window_extent(renderer)
            if not any(box.overlaps(other) for other in placed) or (offset, ha, va) == spots[-1]:
                placed.append(box)
                break
            label.remove()
