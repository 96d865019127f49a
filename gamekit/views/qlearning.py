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
from ..i18n import _, ngettext, pgettext
from ..qlearning import QLearner, TrainingResult
from ..sources.q_nim import sorted_piles, source_pole_position
from .alt import headed, num, set_alt
from .colors import BLACK, BLUE, GREY, RED
from .nim import NimMatch, _game_over_sentence
from .widgets import SnapshotWidget, player_name

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
        finals.append(
            _("{name} ends at {share} after {episodes} episodes").format(
                name=name, share=f"{y[-1] / res.positions:.0%}", episodes=num(x[-1])
            )
        )
    ax.set_xlabel(_("self-play episodes"))
    ax.set_ylabel(_("share of winning positions\nwhere the greedy move wins"))
    ax.set_ylim(-0.02, 1.04)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=12, loc="center right")
    if title:
        ax.set_title(title, fontsize=14)
    body = ngettext(
        "share of winning positions where the greedy move wins, against self-play episodes, {n} lines: {ends}",
        "share of winning positions where the greedy move wins, against self-play episodes, {n} lines: {ends}",
        len(finals),
    ).format(n=len(finals), ends="; ".join(finals))
    set_alt(ax, headed("Line chart", title, body))
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
        ax.set_title(_("first pile = {a}").format(a=a), fontsize=14)
        ax.set_xlabel(_("second pile"))
        ax.set_xticks(range(V.shape[1]))
        ax.set_yticks(range(V.shape[2]))
    axes[0].set_ylabel(_("third pile"))
    fig.colorbar(im, ax=list(axes), shrink=0.85, label=_("best Q-value for the mover (< 0 hatched)"))
    if title:
        fig.suptitle(title, fontsize=15, y=1.03)
    known = V[~np.isnan(V)]
    p_count = sum(1 for idx in np.ndindex(V.shape) if any(idx) and is_p_position(tuple(int(x) for x in idx), misere))
    low = np.unravel_index(np.nanargmin(V), V.shape)
    body = _(
        "the best Q-value of the mover in every position of {piles} Nim, {n} panels by the first pile; values from "
        "{low} (red and hatched where below 0: the mover expects to lose) to {high} (blue); {below} positions "
        "below 0; lowest at {lowest}; {p_count} exact P-positions marked with a white dot"
    ).format(
        piles=f"{V.shape[0] - 1}-{V.shape[1] - 1}-{V.shape[2] - 1}",
        n=n,
        low=num(float(known.min())),
        high=num(float(known.max())),
        below=int((known < 0).sum()),
        lowest=tuple(int(x) for x in low),
        p_count=p_count,
    )
    set_alt(fig, headed("Heat map", title, body))
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
    ax.set_xlabel(_("move  pile:take  (red = winning move by the exact rule, hatched = not)"))
    ax.set_ylabel(_("Q-value"))
    ax.set_title(title or _("Q-values in {piles}").format(piles=list(state.piles)), fontsize=14)
    best = max(qs, key=lambda m: qs[m]) if qs else None
    text = _("the Q-value of each of {n} moves").format(n=len(qs))
    if best is not None:
        move, q = f"{best[0] + 1}:{best[1]}", num(qs[best])
        if best in wins:
            text += "; " + _("highest {q} for {move} (a winning move)").format(q=q, move=move)
        else:
            text += "; " + _("highest {q} for {move} (not a winning move)").format(q=q, move=move)
    listed = ", ".join(f"{i + 1}:{t}" for i, t in qs if (i, t) in wins) or pgettext("moves", "none")
    text += "; " + _("winning moves by the exact rule: {moves}").format(moves=listed)
    set_alt(
        ax,
        headed("Bar chart", ax.get_title(), text),
        (
            [_("move (pile:take)"), _("Q-value"), _("wins by the exact rule")],
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
            description=pgettext("box", "piles"),
            layout=widgets.Layout(width="220px"),
        )
        self.starter = widgets.ToggleButtons(options=[(_("you start"), 0), (_("AI starts"), 1)], value=human)
        self.new = widgets.Button(description=_("New game"))
        self.pile = widgets.IntText(value=1, description=pgettext("box", "pile"), layout=widgets.Layout(width="140px"))
        self.take = widgets.IntText(value=1, description=pgettext("box", "take"), layout=widgets.Layout(width="140px"))
        self.button = widgets.Button(description=pgettext("button", "Take"), button_style="primary")
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
            self.say(_game_over_sentence(self.model), "good" if self.model.winner == self.model.human else "info")
        else:
            _who, pile, take = self.model.history[-1]
            self.say(_("The AI took {take} from pile {pile}.").format(take=take, pile=pile))
        self.refresh()

    def on_new(self) -> None:
        try:
            piles = parse_piles(self.piles.value)
            if not any(piles):
                raise ValueError(_("all piles are empty: give at least one stick"))
            size = int(np.prod([p + 1 for p in piles]))
            if size > MAX_STATES:
                raise ValueError(
                    _("{size} positions is too many to train here (at most {most})").format(
                        size=f"{size:,}", most=f"{MAX_STATES:,}"
                    )
                )
        except (TypeError, ValueError) as err:
            self.say(str(err), "error")
            return
        learner, fresh = self.model.learner, False
        if piles != getattr(learner.game, "piles", None):
            learner = train_for(piles, self.episodes, self.seed)
            fresh = True
        self.model = QNimMatch(learner, self.starter.value)
        self.say(self._new_game_news(list(piles), learner.episodes if fresh else None))
        self.refresh()

    def _new_game_news(self, piles: list[int], trained: int | None) -> str:
        """ "New game on [3, 5, 7] (a fresh table, 2,000 self-play games): the AI took 1 from pile 2."
        (the table's games only when it was trained for this game, the AI's move only when it started)."""
        games = f"{trained:,}" if trained is not None else ""
        if self.model.history:
            _who, pile, take = self.model.history[-1]
            if trained is not None:
                text = _(
                    "New game on {piles} (a fresh table, {games} self-play games): the AI took {take} from pile {pile}."
                )
            else:
                text = _("New game on {piles}: the AI took {take} from pile {pile}.")
            return text.format(piles=piles, games=games, take=take, pile=pile)
        if trained is not None:
            return _("New game on {piles} (a fresh table, {games} self-play games).").format(piles=piles, games=games)
        return _("New game on {piles}.").format(piles=piles)

    def board_html(self) -> str:
        names = [_("pile {k}").format(k=i + 1) for i in range(len(self.model.state.piles))]
        rows = "".join(
            f"<div>{name}: <b>{p}</b> &nbsp;{'| ' * p}</div>" for name, p in zip(names, self.model.state.piles)
        )
        qs = self.model.q_values()
        if self.model.over:
            qline = f"<b>{html.escape(_game_over_sentence(self.model))}</b>"
        else:
            cells = " ".join(
                f"<span style='color:{RED if q > 0 else BLUE if q < 0 else GREY};"
                f"margin-right:8px'>{p}:{t} → {q:+.2f}</span>"
                for (p, t), q in qs.items()
            )
            if self.model.game.to_move(self.model.state) == self.model.human:
                head = _("Q-values for you (pile:take → Q):")
            else:
                head = _("Q-values for the AI (pile:take → Q):")
            qline = f"<b>{head}</b> {cells}"
        past = ", ".join(
            _("you took {take} from pile {pile}").format(take=t, pile=p)
            if w == "you"
            else _("{name} took {take} from pile {pile}").format(name=player_name(w), take=t, pile=p)
            for w, p, t in self.model.history
        )
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
        ax.set_title(_("first pile = {a}").format(a=a), fontsize=14)
        ax.set_xticks(range(top[1] + 1))
        ax.set_yticks(range(top[2] + 1))
        ax.set_xlabel(_("second pile"))
        ax.grid(alpha=0.2)
    np.atleast_1d(axes)[0].set_ylabel(_("third pile"))
    fig.suptitle(
        _("P-positions of misère Nim: filled = on the source's list, hollow = missing, x = listed but wrong"),
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
    none = pgettext("positions", "none")
    body = _(
        "the P-positions of misère Nim below {piles}, one panel per first pile: {listed} on the source's list "
        "(filled circles), {missing} missing from it (hollow circles: {missed}), {wrong} listed but not "
        "P-positions (crosses: {wrongly})"
    ).format(
        piles=list(top),
        listed=len(found["listed"]),
        missing=len(found["missing"]),
        missed=", ".join(found["missing"]) or none,
        wrong=len(found["wrong"]),
        wrongly=", ".join(found["wrong"]) or none,
    )
    set_alt(fig, headed("Scatter plot", None, body))
    return fig
