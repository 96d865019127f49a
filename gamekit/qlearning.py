"""Tabular Q-learning by self-play, for any two-player game of the protocol with a finite state space.

One table serves both players: `Q[s][a]` is the value of move `a` in position `s` *for the player
who makes it* (the mover). Three update rules ("targets") are offered so that a notebook can
compare them on the same tables:

* ``"negamax"`` (the correct one, the default): when after the move the *opponent* is to move, the
  best value they can reach counts against the mover:
  ``Q[s][a] += alpha * (target - Q[s][a])`` with ``target = reward`` when the move ends the game and
  ``target = -gamma * max_b Q[s'][b]`` otherwise; when the same player moves again (an extra turn,
  the opponent's pass) the sign stays: ``target = +gamma * max_b Q[s'][b]``. Who moves next is always
  what the game's `to_move` says: turns need not alternate.
* ``"naive"``: the same without the sign change, ``target = gamma * max_b Q[s'][b]`` -- the common
  mistake of treating the opponent's best option as if it were the mover's own future.
* ``"source"``: the update scheme of the Q-learning source (document 004). A player's previous move is
  updated only when it is that player's turn again, towards ``gamma * max`` of *their own* options
  there; the final move gets the loser's reward and the winner's last move the winner's reward.
  `gamekit.sources.q_nim.source_learner` builds it with the source's numbers.

Discount convention: a win that the mover's own move completes is worth the reward ``R``; with the
negamax target a move that wins after ``k`` more plies (both players' moves counted) converges to
``R * gamma**k`` (``k = 0``: the move ends the game).

The learner first enumerates every position reachable from the start (through the encoding, see
below) into integer-indexed lists: successors, rewards and Q-values are plain Python lists, so an
update is a few list look-ups. Training uses its own `random.Random(seed)`.

State encodings: a table is keyed by `encoding(state)` (default: the state itself). Positions with
the same key must be equivalent for the player to move (same moves up to renaming, same outcomes);
moves that lead to the same key are one action of the table. Encodings are the game's business:
the learner knows no game (Nim's, from the source, are in `gamekit.sources.q_nim`).

The JSON file format (`save` / `load`) is documented in `QLearner.save`.
"""

from __future__ import annotations

import json
import math
import random
import time
import weakref
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .i18n import _
from .jsonio import JSONLoadError, load_json
from .protocol import Game, Move, State, check_int, game_rules, require_game_methods
from .solve import solve

__all__ = ["TARGETS", "QLearner", "QPlayer", "TrainingResult", "WinningPositions", "identity_key", "ordered_positions"]

TARGETS = ("negamax", "naive", "source")
FORMAT = "gamekit.qtable"
FORMAT_VERSION = 3
MAX_FILE_BYTES = 20_000_000  # a Q-table file larger than this is refused before it is read

Encoding = Callable[[State], Hashable]


def identity_key(state: State) -> Hashable:
    """The state itself as the table key (the default encoding; any game)."""
    return state


def _encoding(encoding: Encoding | None) -> tuple[str, Encoding]:
    """(name, function) of an encoding; None means the state itself."""
    if encoding is None:
        return "state", identity_key
    if isinstance(encoding, str) or not callable(encoding):
        raise TypeError(
            f"encoding must be a function state -> hashable key (or None for the state itself), got {encoding!r}"
        )
    name = getattr(encoding, "__name__", type(encoding).__name__)
    return ("state" if encoding is identity_key else name), encoding


def _check_number(name: str, value: Any, low: float, high: float) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name} must be a number between {low:g} and {high:g}, got {value!r}")
    number = float(value)
    if math.isnan(number) or not low <= number <= high:
        raise ValueError(f"{name} must be a number between {low:g} and {high:g}, got {value!r}")
    return number


def _check_count(name: str, value: Any, low: int = 0) -> int:
    return check_int(value, name, minimum=low)


# --- the table layout -------------------------------------------------------------------------


class _Tables:
    """Every position reachable from the start, by key, with its actions, successors and rewards."""

    def __init__(self, game: Game, key: Callable[[State], Hashable]):
        self.game_over, self.to_move = game.is_terminal, game.to_move
        self.keys: list[Hashable] = []
        self.index: dict[Hashable, int] = {}
        self.reps: list[State] = []  # one real state per key (the first one met)
        self.moves: list[list[Move]] = []  # the representative's moves, one per distinct successor key
        self.succ: list[list[int]] = []  # successor index per action
        self.reward: list[list[float]] = []  # mover's utility if the action ends the game, else 0
        self.ends: list[list[bool]] = []  # does the action end the game?
        self.again: list[list[bool]] = []  # after the action, is the same player to move again (extra turn, pass)?
        self.mover: list[int] = []  # who is to move at the representative (0 at a terminal one; an encoding
        # may merge positions of both movers, so only the start's entry is used)
        self.action_of: list[dict[Hashable, int]] = []  # successor key -> action index
        todo = [game.initial_state()]
        self._add(key(todo[0]), todo[0])
        while todo:
            s = todo.pop()
            i = self.index[key(s)]
            if game.is_terminal(s):
                continue
            mover = game.to_move(s)
            for m in game.legal_moves(s):
                t = game.play(s, m)
                k = key(t)
                if k not in self.index:
                    self._add(k, t)
                    todo.append(t)
                if k in self.action_of[i]:
                    continue
                self.action_of[i][k] = len(self.moves[i])
                self.moves[i].append(m)
                self.succ[i].append(self.index[k])
                end = game.is_terminal(t)
                self.ends[i].append(end)
                self.again[i].append(not end and game.to_move(t) == mover)
                self.reward[i].append(float(game.utility(t, mover)) if end else 0.0)

    def _add(self, k: Hashable, s: State) -> None:
        self.index[k] = len(self.keys)
        self.keys.append(k)
        self.reps.append(s)
        self.mover.append(0 if self.game_over(s) else int(self.to_move(s)))
        for lst in (self.moves, self.succ, self.reward, self.ends, self.again):
            lst.append([])
        self.action_of.append({})


# --- results ----------------------------------------------------------------------------------


@dataclass
class TrainingResult:
    """What one call of `QLearner.train` did: episodes, seconds, and the learning curve if recorded.

    `curve` holds (episodes trained so far, number of `positions` whose greedy move wins);
    `perfect_at` is the first recorded episode count at which every position was right (or None).
    """

    episodes: int
    seconds: float
    positions: int = 0
    curve: list[tuple] = field(default_factory=list)
    perfect_at: int | None = None

    @property
    def final_score(self) -> int | None:
        return self.curve[-1][1] if self.curve else None


class WinningPositions:
    """The positions of a game where the player to move can force a win, with their winning moves.

    Built from exact values (`solve`), deduplicated by a key. For misère Nim [3, 5, 7] with the
    state itself as key these are the 167 pile vectors (a, b, c), a <= 3, b <= 5, c <= 7, other than
    (0, 0, 0), from which the mover wins with best play.
    """

    def __init__(self, game: Game, key: Encoding | None = None):
        require_game_methods(game)
        _, key = _encoding(key)
        values = solve(game)
        self.states: list[State] = []
        self.winning: list[list[Move]] = []
        seen = set()
        for s, v in values.items():
            if game.is_terminal(s):
                continue
            sign = 1 if game.to_move(s) == 0 else -1
            k = key(s)
            if sign * v <= 0 or k in seen:
                continue
            seen.add(k)
            self.states.append(s)
            self.winning.append([m for m in game.legal_moves(s) if sign * values[game.play(s, m)] == sign * v])
        self.game = game
        self._compiled: weakref.WeakKeyDictionary[QLearner, list] = weakref.WeakKeyDictionary()

    def __len__(self) -> int:
        return len(self.states)

    def score(self, learner: QLearner) -> int:
        """In how many of these positions the learner's greedy action is a winning move.

        The greedy action is the table's: highest Q-value, first in table order on ties (for the
        plain encoding that is exactly `learner.best_move`).
        """
        rows = self._compiled.get(learner)
        if rows is None:
            rows = self._compiled[learner] = self._compile(learner)
        Q = learner.Q
        return sum(1 for i, good in rows if Q[i].index(max(Q[i])) in good)

    def _compile(self, learner: QLearner) -> list:
        T, key, game = learner.tables, learner.key, self.game
        rows = []
        for s, moves in zip(self.states, self.winning):
            i = learner._row(s)
            # a winning move whose key is not an action of the row (an encoding that merges positions
            # that are not equivalent) cannot be the greedy action
            rows.append((i, frozenset(T.action_of[i].get(key(game.play(s, m)), -1) for m in moves)))
        return rows


# --- the learner ------------------------------------------------------------------------------


class QLearner:
    """Tabular Q-learning by self-play with one shared table of values from the mover's view.

    alpha: learning rate; gamma: discount per ply (see the module docstring); epsilon: share of
    random (exploring) moves during training; reward: the value of a win (a loss is -reward);
    target: "negamax" (correct), "naive" (no sign change) or "source" (source document 004's scheme);
    encoding: a function state -> hashable key (default: the state itself).

    The defaults alpha 0.5, gamma 0.9, epsilon 0.5 were picked by hand for the negamax target on
    misère Nim [3, 5, 7]. `python benchmarks/qlearning.py --grid` shows a coarse grid for both
    targets: the defaults are a good setting, not the best, and no property of the target (the
    source's scheme learns fastest of all at alpha 0.5, gamma 0.9, epsilon 0.1).
    """

    def __init__(
        self,
        game: Game,
        alpha: float = 0.5,
        gamma: float = 0.9,
        epsilon: float = 0.5,
        seed: int | None = None,
        target: str = "negamax",
        encoding: Encoding | None = None,
        reward: float = 1.0,
    ):
        require_game_methods(game)
        if not isinstance(target, str) or target not in TARGETS:
            raise ValueError(f"target must be one of {', '.join(TARGETS)}, got {target!r}")
        self.alpha = _check_number("alpha", alpha, 0.0, 1.0)
        self.gamma = _check_number("gamma", gamma, 0.0, 1.0)
        self.epsilon = _check_number("epsilon", epsilon, 0.0, 1.0)
        self.reward = _check_number("reward", reward, 0.0, math.inf)
        if not self.reward > 0 or math.isinf(self.reward):
            raise ValueError(f"reward must be a finite number > 0, got {reward!r}")
        if seed is not None:
            seed = _check_count("seed", seed)
        self.seed = seed  # the training seed, saved with the table so that the training can be repeated
        self.game, self.target = game, target
        self.encoding, self.key = _encoding(encoding)
        self.rng = random.Random(seed)
        self.tables = _Tables(game, self.key)
        self.Q: list[list[float]] = [[0.0] * len(m) for m in self.tables.moves]
        self._episodes = 0

    @property
    def episodes(self) -> int:
        """How many games `train` has played with this table (read-only: only `train` counts)."""
        return self._episodes

    @episodes.setter
    def episodes(self, value: object) -> None:
        raise AttributeError(
            f"episodes counts the games train() played ({self._episodes}); it cannot be set (got {value!r})"
        )

    def __repr__(self) -> str:
        return (
            f"QLearner({self.game!r}, target={self.target!r}, alpha={self.alpha:g}, gamma={self.gamma:g}, "
            f"epsilon={self.epsilon:g}, encoding={self.encoding!r}, episodes={self.episodes})"
        )

    # -- inspection --
    @property
    def table_size(self) -> tuple[int, int]:
        """(number of positions, number of (position, action) entries) of the table."""
        return len(self.Q), sum(len(q) for q in self.Q)

    def _row(self, state: State) -> int:
        k = self.key(state)
        if k not in self.tables.index:
            raise ValueError(f"{state!r} is not reachable from the start of {self.game!r}, so it has no Q-values")
        return self.tables.index[k]

    def q_values(self, state: State) -> dict[Move, float]:
        """The Q-value of every legal move in `state`, for the player to move, in legal-move order."""
        i = self._row(state)
        game, key, act = self.game, self.key, self.tables.action_of[i]
        values = {}
        for m in game.legal_moves(state):
            j = act.get(key(game.play(state, m)))
            if j is None:
                raise ValueError(
                    f"move {m!r} in {state!r} leads to a key that the table's row for this position has no action "
                    f"for: encoding {self.encoding!r} gives positions that are not equivalent the same key"
                )
            values[m] = self.Q[i][j]
        return values

    def best_move(self, state: State) -> Move:
        """The greedy move: highest Q-value, the first in legal-move order on ties."""
        qs = self.q_values(state)
        if not qs:
            raise ValueError(f"{state!r} is terminal: there is no move to choose")
        return max(qs, key=lambda m: qs[m])

    def player(self, name: str = "Q-learner") -> QPlayer:
        """A player (for `play_game`, `tournament`) that always plays the greedy move."""
        return QPlayer(self, name)

    # -- learning --
    def train(
        self,
        episodes: int,
        progress: bool = True,
        record_every: int = 0,
        positions: WinningPositions | None = None,
        stop_when_perfect: bool = False,
    ) -> TrainingResult:
        """Play `episodes` games against itself from the start, updating the table after each move.

        With `record_every` > 0 the learning curve is recorded: every that many episodes, how many
        of `positions` (default: the game's winning positions, one per table key) the greedy move
        gets right.
        `stop_when_perfect` ends training at the first recorded point where all are right.
        """
        episodes = _check_count("episodes", episodes)
        record_every = _check_count("record_every", record_every)
        if positions is not None and not isinstance(positions, WinningPositions):
            raise TypeError(f"positions must be a WinningPositions of the same game, got {positions!r}")
        if positions is not None and positions.game is not self.game and positions.game != self.game:
            raise ValueError("positions belong to another game object: build WinningPositions(learner.game)")
        if (record_every or stop_when_perfect) and positions is None:
            positions = WinningPositions(self.game, self.key)
        if stop_when_perfect and not record_every:
            record_every = 100
        step = self._episode_source if self.target == "source" else self._episode
        result = TrainingResult(0, 0.0, len(positions) if positions else 0)
        chunk = record_every or episodes
        bar = None
        if progress:
            from tqdm.auto import tqdm

            # TRANSLATORS: the label of a progress bar; {target} is the update scheme's name (code: keep it)
            bar = tqdm(total=episodes, desc=_("Q-learning ({target})").format(target=self.target), leave=False)
        t0 = time.perf_counter()
        if record_every and self.episodes == 0 and positions is not None:
            result.curve.append((0, positions.score(self)))
        done = 0
        while done < episodes:
            n = min(chunk, episodes - done)
            for _episode in range(n):
                step()
            done += n
            self._episodes += n
            if bar is not None:
                bar.update(n)
            if record_every and positions is not None:
                score = positions.score(self)
                result.curve.append((self.episodes, score))
                if score == len(positions) and result.perfect_at is None:
                    result.perfect_at = self.episodes
                    if stop_when_perfect:
                        break
        result.seconds = time.perf_counter() - t0
        result.episodes = done
        if bar is not None:
            bar.close()
        return result

    def _choose(self, q: list[float]) -> int:
        if self.epsilon and self.rng.random() < self.epsilon:
            return self.rng.randrange(len(q))
        return q.index(max(q))

    def _episode(self) -> None:
        """One self-play game with the one-step update ("negamax" or "naive" target)."""
        T, Q, alpha = self.tables, self.Q, self.alpha
        gamma, negamax = self.gamma, self.target == "negamax"
        R = self.reward
        i = 0  # the start position has index 0
        while T.succ[i]:
            q = Q[i]
            j = self._choose(q)
            k = T.succ[i][j]
            # negamax: the next mover's best is the opponent's (minus) unless the mover moves again (plus)
            g = -gamma if negamax and not T.again[i][j] else gamma
            target = R * T.reward[i][j] if T.ends[i][j] else g * max(Q[k])
            q[j] += alpha * (target - q[j])
            i = k

    def _episode_source(self) -> None:
        """One self-play game with the source's scheme: each player's previous move is updated
        when it is that player's turn again; the last move and the winner's last move get the rewards."""
        T, Q, alpha, gamma, R = self.tables, self.Q, self.alpha, self.gamma, self.reward
        last: list[tuple | None] = [None, None]  # per seat: (row, action) of its previous move
        i, p = 0, T.mover[0]
        while True:
            j = self._choose(Q[i])
            last[p] = (i, j)
            k = T.succ[i][j]
            if T.ends[i][j]:
                r = R * T.reward[i][j]
                Q[i][j] += alpha * (r - Q[i][j])  # the mover's final move: its own reward
                previous = last[1 - p]
                if previous is not None:  # the opponent's last move: the other reward
                    oi, oj = previous
                    Q[oi][oj] += alpha * (-r - Q[oi][oj])
                return
            p = p if T.again[i][j] else 1 - p  # who moves next, as the game's to_move said (turns need not alternate)
            previous = last[p]
            if previous is not None:  # the player to move now: its previous move is updated
                oi, oj = previous
                Q[oi][oj] += alpha * (gamma * max(Q[k]) - Q[oi][oj])
            i = k

    # -- saving and loading --
    def to_dict(self) -> dict:
        """The table as JSON-ready data (see `save` for the format)."""
        T = self.tables
        return {
            "format": FORMAT,
            "version": FORMAT_VERSION,
            "game": game_rules(self.game),
            "encoding": self.encoding,
            "target": self.target,
            "alpha": self.alpha,
            "gamma": self.gamma,
            "epsilon": self.epsilon,
            "reward": self.reward,
            "episodes": self.episodes,
            "seed": self.seed,
            "table": {repr(k): {repr(m): q for m, q in zip(T.moves[i], self.Q[i])} for i, k in enumerate(T.keys)},
        }

    def save(self, path: str | Path) -> None:
        """Write the table as JSON (never pickle).

        Format: an object with "format": "gamekit.qtable", "version": 3, "game": the game's rules
        (`protocol.game_rules`, e.g. {"game": "Nim", "piles": [3, 5, 7], "misere": true}), the
        encoding's name, target, alpha, gamma, epsilon, reward, episodes, and "table": for every
        position key (as its Python repr, e.g. "(3, 5, 7)") an object mapping each action (the repr
        of the representative move, e.g. "(0, 1)" = take 1 from pile 0) to its Q-value. Reprs are
        only labels here: loading rebuilds the table from the game and checks that every label
        matches, so nothing in the file is ever evaluated.
        """
        Path(path).write_text(json.dumps(self.to_dict(), indent=1) + "\n", encoding="utf-8")

    @classmethod
    def load(cls, path: str | Path, game: Game, encoding: Encoding | None = None, seed: int | None = None) -> QLearner:
        """Read a table written by `save` for `game` with `encoding` (the same function as when it
        was saved); a clear ValueError if the file is too large, not UTF-8 JSON, carries NaN or
        infinity, or belongs to another game, encoding or table layout. Messages name the file, not
        its folder: a slide or a student's copy shows no installation's paths."""
        return cls.from_dict(_read_json(path), game, encoding=encoding, seed=seed, source=Path(path).name)

    @classmethod
    def from_dict(
        cls, data: Any, game: Game, encoding: Encoding | None = None, seed: int | None = None, source: str = "data"
    ) -> QLearner:
        """Rebuild a learner from `to_dict` data (validated as `load` describes).

        `seed` seeds any further training; by default the seed the file says the table was trained
        with (further training then starts that seed's sequence again, it does not continue it)."""
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise ValueError(f'{source} is not a Q-table file: it lacks "format": "{FORMAT}"')
        if data.get("version") != FORMAT_VERSION:
            raise ValueError(
                f"{source} has Q-table version {data.get('version')!r}; this gamekit reads {FORMAT_VERSION}"
            )
        if data.get("game") != game_rules(game):
            raise ValueError(f"{source} holds a table for {data.get('game')}, not for {game_rules(game)}")
        missing = [
            k
            for k in ("encoding", "target", "alpha", "gamma", "epsilon", "reward", "episodes", "table")
            if k not in data
        ]
        if missing:
            raise ValueError(f"{source} is a corrupt Q-table file: it lacks {', '.join(missing)}")
        name, _ = _encoding(encoding)
        if data["encoding"] != name:
            raise ValueError(
                f"{source} was saved with encoding {data['encoding']!r}; pass that encoding function (got {name!r})"
            )
        eps = data["episodes"]
        if isinstance(eps, bool) or not isinstance(eps, int) or eps < 0:
            raise ValueError(f"{source}: episodes must be a whole number >= 0, got {eps!r}")
        stored_seed = data.get("seed")
        if stored_seed is not None and (
            isinstance(stored_seed, bool) or not isinstance(stored_seed, int) or stored_seed < 0
        ):
            raise ValueError(f"{source}: seed must be a whole number >= 0 or null, got {stored_seed!r}")
        try:
            learner = cls(
                game,
                alpha=data["alpha"],
                gamma=data["gamma"],
                epsilon=data["epsilon"],
                seed=stored_seed if seed is None else seed,
                target=data["target"],
                encoding=encoding,
                reward=data["reward"],
            )
        except (TypeError, ValueError) as err:
            raise ValueError(f"{source}: {err}") from None
        table, T = data["table"], learner.tables
        labels = [repr(k) for k in T.keys]
        expected = set(labels)
        if not isinstance(table, dict) or set(table) != expected:
            extra = sorted(set(table) - expected)[:3] if isinstance(table, dict) else []
            raise ValueError(
                f"{source} does not match {game!r} with encoding {name!r}: "
                f"it has {len(table) if isinstance(table, dict) else 'no'} positions, expected "
                f"{len(expected)}" + (f" (unknown: {', '.join(extra)})" if extra else "")
            )
        for i, (k, label) in enumerate(zip(T.keys, labels)):  # reprs as labels: checked, never evaluated
            row = table[label]
            names = [repr(m) for m in T.moves[i]]
            if not isinstance(row, dict) or set(row) != set(names):
                raise ValueError(
                    f"{source}: the actions of position {k!r} do not match the game "
                    f"(expected {', '.join(names) or 'none'})"
                )
            for n in names:
                v = row[n]
                if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
                    raise ValueError(f"{source}: Q-value of {n} in {k!r} must be a finite number, got {v!r}")
            learner.Q[i] = [float(row[n]) for n in names]
        learner._episodes = eps
        return learner

    def encoding_labels(self) -> list[int]:
        """The encoding as plain data: for every position reachable from the start (`ordered_positions(game)`),
        the index in that list of the first position with the same table key.

        Two positions share a label exactly when the encoding gives them the same key, so
        `retrained(..., labels=...)` rebuilds this learner's table layout from the labels alone, for
        an encoding that is a student's own function and cannot travel as data.
        """
        first: dict[Hashable, int] = {}
        return [first.setdefault(self.key(s), n) for n, s in enumerate(ordered_positions(self.game))]

    @classmethod
    def retrained(
        cls,
        data: Any,
        game: Game,
        encodings: Sequence[Encoding | None] = (None,),
        max_episodes: int | None = None,
        labels: Any = None,
    ) -> QLearner:
        """A new learner trained here, from scratch, with the settings `data` states (`to_dict` data:
        target, alpha, gamma, epsilon, reward, encoding, seed, episodes); its table is not read.

        Training is deterministic, so the result is the table those settings produce: a judge checks
        a claimed training budget by this retraining, never by trusting a reported counter or table.
        `encodings` are the encoding functions allowed (matched by name); or `labels`, a learner's
        `encoding_labels()`, stand for any encoding (its name is then only a label). A ValueError
        says what is missing or not allowed (no seed, too many episodes, another encoding, labels
        that are no encoding a table can be trained with).
        """
        if not isinstance(data, dict):
            raise ValueError(f"the settings must be to_dict() data, got {type(data).__name__}")
        missing = [
            k
            for k in ("target", "alpha", "gamma", "epsilon", "reward", "encoding", "seed", "episodes")
            if k not in data
        ]
        if missing:
            raise ValueError(f"the settings lack {', '.join(missing)}")
        seed, episodes = data["seed"], data["episodes"]
        if seed is None:
            raise ValueError("the learner has no seed, so its training cannot be repeated: pass seed=... to QLearner")
        seed = _check_count("seed", seed)
        episodes = _check_count("episodes", episodes)
        if max_episodes is not None and episodes > max_episodes:
            raise ValueError(f"the learner was trained with {episodes:,} episodes, more than {max_episodes:,}")
        if labels is not None:
            encoding: Encoding | None = _labelled_encoding(game, labels, data["encoding"])
        else:
            named = {_encoding(e)[0]: e for e in encodings}
            if data["encoding"] not in named:
                raise ValueError(f"encoding {data['encoding']!r} is not one of {', '.join(map(repr, named))}")
            encoding = named[data["encoding"]]
        try:
            learner = cls(
                game,
                alpha=data["alpha"],
                gamma=data["gamma"],
                epsilon=data["epsilon"],
                seed=seed,
                target=data["target"],
                encoding=encoding,
                reward=data["reward"],
            )
        except TypeError as err:
            raise ValueError(str(err)) from None
        if labels is not None:
            _check_acyclic(learner.tables)
        learner.train(episodes, progress=False)
        return learner


def ordered_positions(game: Game) -> list[State]:
    """Every position reachable from the start of `game`, each once, in the order a depth-first walk
    meets them (moves in legal-move order): the order of `QLearner.encoding_labels`."""
    require_game_methods(game)
    start = game.initial_state()
    seen, order, todo = {start}, [start], [start]
    while todo:
        s = todo.pop()
        if game.is_terminal(s):
            continue
        for m in game.legal_moves(s):
            t = game.play(s, m)
            if t not in seen:
                seen.add(t)
                order.append(t)
                todo.append(t)
    return order


def _labelled_encoding(game: Game, labels: Any, name: Any) -> Encoding:
    """The encoding that `labels` (`encoding_labels` data, untrusted) describe, checked: one whole
    number per position, each the index of the first position with the same label, and never one
    label for a finished and an unfinished position."""
    states = ordered_positions(game)
    n = len(states)
    what = (
        f"labels must be encoding_labels() of a learner for {game!r}: a list of {n} whole numbers, "
        "each the index of the first position with the same key"
    )
    if not isinstance(labels, (list, tuple)) or len(labels) != n:
        got = f"{len(labels)} items" if isinstance(labels, (list, tuple)) else type(labels).__name__
        raise ValueError(f"{what}; got {got}")
    for i, label in enumerate(labels):
        if type(label) is not int or not 0 <= label <= i or labels[label] != label:
            raise ValueError(f"{what}; item {i} is {label!r}")
        if game.is_terminal(states[i]) != game.is_terminal(states[label]):
            raise ValueError(
                f"the encoding gives the finished position {states[i if game.is_terminal(states[i]) else label]!r} "
                f"and the unfinished {states[label if game.is_terminal(states[i]) else i]!r} the same key: "
                "a table with it cannot tell when a game is over"
            )
    key_of = dict(zip(states, labels))

    def labelled(state: State) -> Hashable:
        return key_of[state]

    labelled.__name__ = name if isinstance(name, str) and 0 < len(name) <= 80 else "labels"
    return labelled


def _check_acyclic(tables: _Tables) -> None:
    """A ValueError if a table's moves can lead from a key back to itself (an encoding that merges a
    position with one that follows it): a training game in such a table could go round forever."""
    state = [0] * len(tables.keys)  # 0 unvisited, 1 on the current path, 2 done
    for root in range(len(tables.keys)):
        if state[root]:
            continue
        stack = [(root, iter(tables.succ[root]))]
        state[root] = 1
        while stack:
            i, rest = stack[-1]
            k = next(rest, None)
            if k is None:
                state[i] = 2
                stack.pop()
            elif state[k] == 1:
                raise ValueError(
                    f"the encoding gives {tables.reps[k]!r} and a position that follows it the same key: "
                    "a training game in its table could go round forever"
                )
            elif state[k] == 0:
                state[k] = 1
                stack.append((k, iter(tables.succ[k])))


def _read_json(path: str | Path) -> Any:
    """Strict JSON reading (`gamekit.jsonio`): size limit, UTF-8, no NaN/Infinity, no duplicate keys."""
    try:
        return load_json(path, max_bytes=MAX_FILE_BYTES)
    except JSONLoadError as err:
        raise ValueError(f"not a Q-table file: {err}") from None


class QPlayer:
    """A player that plays the learner's greedy move (ties: the first move in legal order)."""

    def __init__(self, learner: QLearner, name: str = "Q-learner"):
        self.learner, self.name = learner, name

    def __call__(self, game: Game, state: State) -> Move:
        return self.learner.best_move(state)
