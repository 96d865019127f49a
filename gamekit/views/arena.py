"""Drawings of arena results: the win/draw/loss heat map, ratings, and time per move vs strength.

Views know the arena only through `GameTable` / `ArenaResult`. Colours follow the course:
red = good for the row agent (it scored), blue = bad (it gave the points away).
"""
from __future__ import annotations

from typing import Dict

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
        _, ax = plt.subplots(figsize=(min(8, 1.6 + 0.85 * n), min(4.8, 1.2 + 0.6 * n)))
    score = table.score()
    im = ax.imshow(np.ma.masked_invalid(score), cmap=SCORE_CMAP, vmin=0, vmax=1)
    size = 9 if n <= 6 else 7
    for i in range(n):
        for j in range(n):
            if i == j:
                ax.text(j, i, "—", ha="center", va="center", color=GREY, fontsize=size)
            else:
                ax.text(j, i, f"{table.wins[i][j]}/{table.draws[i][j]}/{table.losses[i][j]}",
                        ha="center", va="center", color=BLACK, fontsize=size)
    ax.set_xticks(range(n), table.agents, rotation=35, ha="right", fontsize=size + 1)
    ax.set_yticks(range(n), table.agents, fontsize=size + 1)
    ax.set_xlabel("opponent")
    ax.set_title(title or f"{table.game}: wins/draws/losses of the row agent")
    ax.figure.colorbar(im, ax=ax, fraction=0.046, pad=0.03, label="score (win 1, draw ½)")
    return ax.figure


def draw_ratings(ratings: Dict[str, Dict[str, float]], ax=None):
    """One row of dots per game: each agent's Elo-scale rating (random at 0 if anchored so)."""
    if ax is None:
        _, ax = plt.subplots(figsize=(8, 0.6 + 0.9 * len(ratings)))
    for k, (game, r) in enumerate(ratings.items()):
        y = len(ratings) - 1 - k
        xs = sorted(r.items(), key=lambda kv: kv[1])
        ax.scatter([v for _, v in xs], [y] * len(xs), color=RED, zorder=3)
        for m, (name, v) in enumerate(xs):
            ax.annotate(name, (v, y), xytext=(0, 8 if m % 2 == 0 else -14), textcoords="offset points",
                        ha="center", fontsize=8)
        ax.axhline(y, color=GREY, lw=0.5, zorder=1)
    ax.set_yticks(range(len(ratings)), list(reversed(list(ratings))))
    ax.set_ylim(-0.7, len(ratings) - 0.3)
    ax.set_xlabel("rating (Elo scale: +400 = 10 : 1 odds)")
    ax.set_title("Bradley–Terry ratings per game")
    return ax.figure


def draw_time_vs_strength(table: GameTable, ratings: Dict[str, float] | None = None, ax=None):
    """Time per move (log scale) against rating: what does each extra millisecond buy?"""
    ratings = ratings if ratings is not None else fit_elo(table)
    tpm = table.time_per_move()
    if ax is None:
        _, ax = plt.subplots(figsize=(7, 4.2))
    names = [a for a in table.agents if tpm[a] > 0]
    xs = [1000 * tpm[a] for a in names]
    ys = [ratings[a] for a in names]
    ax.scatter(xs, ys, color=RED, zorder=3)
    for a, x, y in zip(names, xs, ys):
        ax.annotate(a, (x, y), xytext=(4, 4), textcoords="offset points", fontsize=8)
    ax.set_xscale("log")
    ax.set_xlabel("milliseconds per move (log scale)")
    ax.set_ylabel("rating")
    ax.set_title(f"{table.game}: cost against strength")
    ax.grid(True, which="major", color=GREY, lw=0.4)
    return ax.figure
