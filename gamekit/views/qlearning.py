"""Views for Q-learning Nim: learning curves, a heat map of the Q-table, Q-values of one position,
and a widget to play misère Nim against the trained table while seeing every action's Q-value."""

from __future__ import annotations

import html
from collections.abc import Iterable, Mapping
from typing import Any

import ipywidgets as widgets
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.colors import LinearSegmentedColormap

from ..games.nim import Nim, NimState, is_p_position, parse_piles
from ..qlearning import QLearner, TrainingResult
from ..sources.q_nim import sorted_piles, source_pole_position
from .alt import num, set_alt
from .colors import BLACK, BLUE, GREY, RED
from .nim import NimMatch
from .widgets import SnapshotWidget

__all__ = [
    "MAX_STATES",
    "plot_learning_curves",
    "plot_p_positions",
    "plot_q_values",
    "plot_value_heatmap",
    "QNimMatch",
    "QNimPlay",
    "SERIES_COLOURS",
    "train_for",
    "VALUE_CMAP",
    "value_grid",
]

# negative values (the mover loses: a position to produce) red, positive blue, as everywhere in the course
VALUE_CMAP = LinearSegmentedColormap.from_list("mover_value", [RED, "#ffffff", BLUE])
# lines and bars that compare learners use neutral colours: red and blue mean positions and moves
SERIES_COLOURS = [BLACK, "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", GREY]
MAX_STATES = 20_000  # the widget trains on configurations up to this many positions


def plot_learning_curves(results: Mapping[str, TrainingResult], ax=None, title: str = ""):
    """Share of winning positions whose greedy move wins, against episodes, one line per result."""
    fig = ax.figure if ax is not None else plt.figure(figsize=(11, 4.8))
    ax = ax or fig.add_subplot(111)
    colours = SERIES_COLOURS
    styles = ["-", "--", ":", "-."]  # never colour alone: each line its own style
    finals = []
    for k, ((name, res), colour) in enumerate(zip(results.items(), colours)):
        if not res.curve:
            raise ValueError(f"{name!r} has no learning curve: train it with record_every > 0")
        x, y = zip(*res.curve)
        ax.plot(x, np.array(y) / res.positions, color=colour, ls=styles[k % 4], lw=2, label=name)
        finals.append(f"{name} ends at {y[-1] / res.positions:.0%} after {num(x[-1])} episodes")
    ax.set_xlabel("self-play episodes")
    ax.set_ylabel("share of winning positions\nwhere the greedy move wins")
    ax.set_ylim(-0.02, 1.04)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=12, loc="center right")
    if title:
        ax.set_title(title, fontsize=14)
    set_alt(
        ax,
        f"Line chart{f' ({title})' if title else ''}: share of winning positions where the greedy move wins, "
        f"against self-play episodes, {len(finals)} lines: " + "; ".join(finals),
    )
    return fig


def value_grid(learner: QLearner) -> np.ndarray:
    """Three-pile Nim: V[a, b, c] = the best Q-value of the mover in position (a, b, c) (nan: unknown)."""
    piles = learner.game.initial_state().piles
    if len(piles) != 3:
        raise ValueError(f"the heat map needs three piles, the game has {len(piles)}")
    V = np.full(tuple(p + 1 for p in piles), np.nan)
    for idx in np.ndindex(V.shape):
        state = NimState(tuple(int(x) for x in idx), 0)
        if not any(idx):
            continue
        V[idx] = max(learner.q_values(state).values())
    return V


def plot_value_heatmap(learner: QLearner, title: str = "", misere: bool = True):
    """Heat map of the Q-table: for every position (a, b, c) the mover's best Q-value.

    One panel per size of the first pile. Red: the mover expects to lose (a position you want to
    produce); blue: the mover expects to win. A dot marks the exact P-positions (misère rule).
    """
    V = value_grid(learner)
    top = np.nanmax(np.abs(V)) or 1.0
    n = V.shape[0]
    fig, grid = plt.subplots(1, n, figsize=(min(12, 3 * n), 4.4), sharey=True)
    axes: list[Any] = list(np.atleast_1d(np.asarray(grid, dtype=object)))
    for a, ax in enumerate(axes):
        im = ax.imshow(V[a].T, origin="lower", cmap=VALUE_CMAP, vmin=-top, vmax=top, aspect="auto")
        for b, c in zip(*np.nonzero(V[a] < 0)):  # never colour alone: negative values are hatched
            ax.add_patch(plt.Rectangle((b - 0.5, c - 0.5), 1, 1, fill=False, hatch="//", lw=0, edgecolor="#00000066"))
        for b in range(V.shape[1]):
            for c in range(V.shape[2]):
                if (a, b, c) != (0, 0, 0) and is_p_position((a, b, c), misere):
                    ax.plot(b, c, "o", ms=4, mfc="white", mec=BLACK, mew=0.8)
        ax.set_title(f"first pile = {a}", fontsize=14)
        ax.set_xlabel("second pile")
        ax.set_xticks(range(V.shape[1]))
        ax.set_yticks(range(V.shape[2]))
    axes[0].set_ylabel("third pile")
    fig.colorbar(im, ax=list(axes), shrink=0.85, label="best Q-value for the mover (< 0 hatched)")
    if title:
        fig.suptitle(title, fontsize=15, y=1.03)
    known = V[~np.isnan(V)]
    p_count = sum(1 for idx in np.ndindex(V.shape) if any(idx) and is_p_position(tuple(int(x) for x in idx), misere))
    low = np.unravel_index(np.nanargmin(V), V.shape)
    set_alt(
        fig,
        f"Heat map{f' ({title})' if title else ''}: the best Q-value of the mover in every position of "
        f"{V.shape[0] - 1}-{V.shape[1] - 1}-{V.shape[2] - 1} Nim, {n} panels by the first pile; values from "
        f"{num(float(known.min()))} (red and hatched where below 0: the mover expects to lose) to "
        f"{num(float(known.max()))} (blue); {int((known < 0).sum())} positions below 0; "
        f"lowest at {tuple(int(x) for x in low)}; {p_count} exact P-positions marked with a white dot",
    )
    return fig


def plot_q_values(learner: QLearner, state: NimState, ax=None, title: str = ""):
    """The Q-value of every legal move in `state` as bars; red = an exactly winning move, blue = not."""
    game = learner.game
    qs = learner.q_values(state)
    wins = {m for m in qs if is_p_position(game.play(state, m).piles, getattr(game, "misere", False))}
    fig = ax.figure if ax is not None else plt.figure(figsize=(11, 4.4))
    ax = ax or fig.add_subplot(111)
    labels = [f"{i + 1}:{t}" for i, t in qs]
    ax.bar(
        range(len(qs)),
        list(qs.values()),
        color=[RED if m in wins else BLUE for m in qs],
        hatch=None,
        edgecolor="white",
    )
    for bar, m in zip(ax.patches, qs):  # never colour alone: moves that do not win are hatched
        if m not in wins:
            bar.set_hatch("//")
    ax.axhline(0, color=BLACK, lw=0.8)
    ax.set_xticks(range(len(qs)))
    ax.set_xticklabels(labels, fontsize=12, rotation=90 if len(qs) > 16 else 0)
    ax.set_xlabel("move  pile:take  (red = winning move by the exact rule, hatched = not)")
    ax.set_ylabel("Q-value")
    ax.set_title(title or f"Q-values in {list(state.piles)}", fontsize=14)
    best = max(qs, key=lambda m: qs[m]) if qs else None
    text = f"Bar chart ({ax.get_title()}): the Q-value of each of {len(qs)} moves"
    if best is not None:
        text += f"; highest {num(qs[best])} for {best[0] + 1}:{best[1]}"
        text += f" ({'a winning move' if best in wins else 'not a winning move'})"
    text += f"; winning moves by the exact rule: {', '.join(f'{i + 1}:{t}' for i, t in qs if (i, t) in wins) or 'none'}"
    set_alt(
        ax,
        text,
        (
            ["move (pile:take)", "Q-value", "wins by the exact rule"],
            [[f"{i + 1}:{t}", q, (i, t) in wins] for (i, t), q in qs.items()],
        ),
    )
    return fig


# --- playing against the table --------------------------------------------------------------


class QNimMatch(NimMatch):
    """The pure model behind `QNimPlay`: misère Nim between a person and a Q-learner's greedy moves.

    Piles are numbered from 1 for people (as in `NimPlay`); moves inside the game are (index, take).
    """

    def __init__(self, learner: QLearner, human: int = 0):
        if isinstance(human, bool) or human not in (0, 1):
            raise ValueError(f"human must be 0 (you start) or 1 (the AI starts), got {human!r}")
        self.learner = learner
        super().__init__(
            human=human,
            computer=lambda game, state: learner.best_move(state),
            name="the AI",
            game=learner.game,  # type: ignore[arg-type]  # a Nim game: QNimPlay builds its learners on Nim
        )

    def q_values(self) -> dict[tuple[int, int], float]:
        """{(pile from 1, take): Q-value for the player to move} for every legal move now."""
        if self.over:
            return {}
        return {(i + 1, t): q for (i, t), q in self.learner.q_values(self.state).items()}


def train_for(piles: Iterable[int], episodes: int = 200_000, seed: int = 2026) -> QLearner:
    """A correct-target learner for misère Nim on `piles` (sorted encoding: it learns bigger boards
    much faster), trained by self-play until its greedy move wins in every winning position, or for
    at most `episodes` games (no progress bar)."""
    learner = QLearner(Nim(piles, misere=True), seed=seed, encoding=sorted_piles)
    learner.train(episodes, progress=False, stop_when_perfect=True)
    return learner


class QNimPlay(SnapshotWidget):
    """Play misère Nim against a trained Q-table and see every action's Q-value, as the source's
    console game printed them. Type other piles and press 'New game' to train a fresh table (until
    its greedy move wins everywhere, at most `episodes` self-play games).

    Illegal input (no such pile, empty pile, too many sticks, game over, piles that are not whole
    numbers) shows a message and changes nothing.
    """

    def __init__(self, learner: QLearner | None = None, human: int = 0, episodes: int = 200_000, seed: int = 2026):
        super().__init__()
        self.episodes, self.seed = episodes, seed
        learner = learner or train_for((3, 5, 7), episodes, seed)
        self.model = QNimMatch(learner, human)
        self.piles = widgets.Text(
            value=" ".join(map(str, getattr(learner.game, "piles", ()))),
            description="piles",
            layout=widgets.Layout(width="220px"),
        )
        self.starter = widgets.ToggleButtons(options=[("you start", 0), ("AI starts", 1)], value=human)
        self.new = widgets.Button(description="New game")
        self.pile = widgets.IntText(value=1, description="pile", layout=widgets.Layout(width="140px"))
        self.take = widgets.IntText(value=1, description="take", layout=widgets.Layout(width="140px"))
        self.button = widgets.Button(description="Take", button_style="primary")
        self.view = widgets.HTML()
        self.button.on_click(lambda _: self.on_take())
        self.new.on_click(lambda _: self.on_new())
        self.root = widgets.VBox(
            [
                widgets.HBox([self.piles, self.starter, self.new]),
                widgets.HBox([self.pile, self.take, self.button]),
                self.message,
                self.view,
            ]
        )
        self.refresh()

    def on_take(self) -> None:
        try:
            self.model.human_move(self.pile.value, self.take.value)
        except ValueError as err:
            self.say(str(err), "error")
            return
        if self.model.over:
            self.say(
                f"Game over: {self.model.winner_name} won.", "good" if self.model.winner == self.model.human else "info"
            )
        else:
            _, pile, take = self.model.history[-1]
            self.say(f"The AI took {take} from pile {pile}.")
        self.refresh()

    def on_new(self) -> None:
        try:
            piles = parse_piles(self.piles.value)
            if not any(piles):
                raise ValueError("all piles are empty: give at least one stick")
            size = int(np.prod([p + 1 for p in piles]))
            if size > MAX_STATES:
                raise ValueError(f"{size:,} positions is too many to train here (at most {MAX_STATES:,})")
        except (TypeError, ValueError) as err:
            self.say(str(err), "error")
            return
        learner, trained = self.model.learner, ""
        if piles != getattr(learner.game, "piles", None):
            learner = train_for(piles, self.episodes, self.seed)
            trained = f" (a fresh table, {learner.episodes:,} self-play games)"
        self.model = QNimMatch(learner, self.starter.value)
        self.say(
            f"New game on {list(piles)}{trained}"
            + (
                f": the AI took {self.model.history[-1][2]} from pile {self.model.history[-1][1]}."
                if self.model.history
                else "."
            )
        )
        self.refresh()

    def board_html(self) -> str:
        rows = "".join(
            f"<div>pile {i + 1}: <b>{p}</b> &nbsp;{'| ' * p}</div>" for i, p in enumerate(self.model.state.piles)
        )
        qs = self.model.q_values()
        if self.model.over:
            qline = f"<b>Game over: {html.escape(self.model.winner_name or '')} won.</b>"
        else:
            who = "you" if self.model.game.to_move(self.model.state) == self.model.human else "the AI"
            cells = " ".join(
                f"<span style='color:{RED if q > 0 else BLUE if q < 0 else GREY};"
                f"margin-right:8px'>{p}:{t} → {q:+.2f}</span>"
                for (p, t), q in qs.items()
            )
            qline = f"<b>Q-values for {who} (pile:take → Q):</b> {cells}"
        past = ", ".join(f"{w} took {t} from pile {p}" for w, p, t in self.model.history)
        return (
            f"<div style='font-family:monospace'>{rows}</div>"
            f"<div style='font-size:0.85em'>{qline}</div>"
            f"<div style='font-size:0.8em;color:#555'>{html.escape(past)}</div>"
        )

    def refresh(self) -> None:
        self.view.value = self.board_html()

    def snapshot(self) -> str:
        return self.message.value + self.board_html()


def plot_p_positions(piles: Iterable[int] = (3, 5, 7), misere: bool = True):
    """Every position below `piles` (three piles): filled red = P-position on the source's list,
    hollow red = P-position the list misses, blue cross = on the list but not a P-position."""
    top = tuple(piles)
    if len(top) != 3:
        raise ValueError(f"the chart needs three piles, got {len(top)}")
    fig, axes = plt.subplots(1, top[0] + 1, figsize=(min(12, 3 * (top[0] + 1)), 4.4), sharey=True)
    for a, ax in enumerate(np.atleast_1d(axes)):
        for b in range(top[1] + 1):
            for c in range(top[2] + 1):
                p = (a, b, c)
                if not any(p):
                    continue
                exact, listed = is_p_position(p, misere), source_pole_position(p)
                if exact:
                    ax.plot(b, c, "o", ms=9, mec=RED, mew=2, mfc=RED if listed else "white")
                elif listed:
                    ax.plot(b, c, "x", ms=9, mew=2, color=BLUE)
                else:
                    ax.plot(b, c, ".", ms=3, color=GREY)
        ax.set_title(f"first pile = {a}", fontsize=14)
        ax.set_xticks(range(top[1] + 1))
        ax.set_yticks(range(top[2] + 1))
        ax.set_xlabel("second pile")
        ax.grid(alpha=0.2)
    np.atleast_1d(axes)[0].set_ylabel("third pile")
    fig.suptitle(
        "P-positions of misère Nim: filled = on the source's list, hollow = missing, x = listed but wrong",
        fontsize=14,
        y=1.04,
    )
    found: dict[str, list[str]] = {"listed": [], "missing": [], "wrong": []}
    for p in np.ndindex(*(t + 1 for t in top)):
        if not any(p):
            continue
        exact, listed = is_p_position(p, misere), source_pole_position(p)
        key = "listed" if exact and listed else "missing" if exact else "wrong" if listed else None
        if key:
            found[key].append(str(tuple(int(x) for x in p)))
    set_alt(
        fig,
        f"Scatter plot: the P-positions of misère Nim below {list(top)}, one panel per first pile: "
        f"{len(found['listed'])} on the source's list (filled circles), {len(found['missing'])} missing from it "
        f"(hollow circles: {', '.join(found['missing']) or 'none'}), {len(found['wrong'])} listed but not "
        f"P-positions (crosses: {', '.join(found['wrong']) or 'none'})",
    )
    return fig
