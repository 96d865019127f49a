"""The arena: every agent plays every other on every game it can play, and ratings are fitted.

An *agent* is a name and a factory `factory(seed) -> player` (a fresh, seeded player for each
pairing, so no agent carries memory from one opponent to the next). A factory may also be a
dict `{game name: factory}` for agents that exist only for some games. A *game entry* is a
game, or a pair `(game, start)` where `start(game, rng)` chooses each start state (e.g.
`gamekit.match.random_start()`, the game's own random start).

`Arena.run` plays, for every game and every pair of agents entered in it, `games_per_pair`
games with `gamekit.match.tournament` and *paired starts*: every start is played twice with the
seats swapped, so the luck of the start cancels within each pair of games. Two agents entered
as `deterministic` on a game with a fixed start can produce only two distinct games (one per
seat): such a pairing is played once per seat (and replayed once to check that the agents
really are deterministic), not `games_per_pair` times, so that the ratings do not count one
game as ten independent results. Every move is timed.

The result, an `ArenaResult`, holds per game a `GameTable`: wins / draws / losses from the row
agent's view, how often the row agent moved first and won then, what every game pair (one start,
both seat orders) gave, each agent's moves and seconds. It saves to JSON and loads back with
validation. Ratings come from `gamekit.stats`: Bradley–Terry with Davidson's draws, fitted at the
exact maximum, with intervals from a bootstrap over game pairs; "is A better than B?" is the
sequential test on the pairs (the pentanomial model).
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from numbers import Integral
from pathlib import Path
from typing import Any

import numpy as np

from .i18n import _, pgettext
from .jsonio import load_json
from .match import tournament
from .players import player_name
from .protocol import Game, Move, State, require_game_methods
from .stats import SPRT, Ratings, bootstrap_ratings, fit_ratings, sprt, wilson

__all__ = [
    "Arena",
    "ArenaResult",
    "GameTable",
    "PAIR_KINDS",
    "TimedPlayer",
    "expected_score",
    "fit_bradley_terry",
    "fit_elo",
    "load_runs",
    "pool_tables",
    "save_runs",
]

Factory = Callable[[int | None], Callable[[Game, State], Move]]
FORMAT = "gamekit.arena"
FORMAT_VERSION = 3
PAIR_KINDS = ("LL", "LD", "DD", "LW", "DW", "WW")  # a game pair's two results from one side, by points
_PAIR_POINTS = (0, 1, 2, 2, 3, 4)  # in half points: 0, ½, 1, 1, 1½, 2
_PAIR_GAMES = {"LL": (0, 0, 2), "LD": (0, 1, 1), "DD": (0, 2, 0), "LW": (1, 0, 1), "DW": (1, 1, 0), "WW": (2, 0, 0)}
_MIRROR = (5, 4, 2, 3, 1, 0)  # the same pair seen from the other side: LL <-> WW, LD <-> DW
RUNS_FORMAT = "gamekit.arena-runs"


# --- timing a player ---------------------------------------------------------------------------


class TimedPlayer:
    """Wraps a player and adds up how many moves it made and how long they took (wall clock)."""

    def __init__(self, player: Callable[[Game, State], Move], name: str | None = None):
        self.player = player
        self.name = name or player_name(player)
        self.moves = 0
        self.seconds = 0.0

    def __call__(self, game: Game, state: State) -> Move:
        t0 = time.perf_counter()
        move = self.player(game, state)
        self.seconds += time.perf_counter() - t0
        self.moves += 1
        return move


# --- results -----------------------------------------------------------------------------------


def _square(n: int) -> list[list[int]]:
    return [[0] * n for _ in range(n)]


@dataclass
class GameTable:
    """The results of one game's round robin, from the row agent's point of view.

    wins[i][j], draws[i][j], losses[i][j]: games agent i won / drew / lost against agent j, both
    seats counted. first[i][j]: games in which i moved first against j; first_wins[i][j]: of
    those, the ones i won. moves[i], seconds[i]: all moves agent i made in this game, and the
    time they took. pairs[i][j][k]: the game pairs (one start, played with both seat orders) of
    i against j whose two results were `PAIR_KINDS[k]` from i's side ("LW": one lost, one won);
    all zero when the games were not played in pairs. The diagonal stays 0 (no agent plays itself).
    """

    game: str
    agents: list[str]
    wins: list[list[int]] = field(default_factory=list)
    draws: list[list[int]] = field(default_factory=list)
    losses: list[list[int]] = field(default_factory=list)
    first: list[list[int]] = field(default_factory=list)
    first_wins: list[list[int]] = field(default_factory=list)
    moves: list[int] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)
    pairs: list[list[list[int]]] = field(default_factory=list)

    def __post_init__(self) -> None:
        n = len(self.agents)
        for name in ("wins", "draws", "losses", "first", "first_wins"):
            if not getattr(self, name):
                setattr(self, name, _square(n))
        if not self.pairs:
            self.pairs = [[[0] * len(PAIR_KINDS) for _ in range(n)] for _ in range(n)]
        if not self.moves:
            self.moves = [0] * n
        if not self.seconds:
            self.seconds = [0.0] * n

    def index(self, agent: str) -> int:
        if agent not in self.agents:
            raise KeyError(f"{agent!r} did not play {self.game}; agents here: {', '.join(self.agents)}")
        return self.agents.index(agent)

    def games(self, i: int, j: int) -> int:
        """Games played between agents i and j."""
        return self.wins[i][j] + self.draws[i][j] + self.losses[i][j]

    def points(self, a: str, b: str) -> float:
        """Points (win 1, draw 1/2) of agent `a` against agent `b`."""
        i, j = self.index(a), self.index(b)
        return self.wins[i][j] + self.draws[i][j] / 2

    def score(self) -> np.ndarray:
        """score[i, j] = (wins + draws / 2) / games of i against j; NaN on the diagonal."""
        n = len(self.agents)
        s = np.full((n, n), np.nan)
        for i in range(n):
            for j in range(n):
                g = self.games(i, j)
                if i != j and g:
                    s[i, j] = (self.wins[i][j] + self.draws[i][j] / 2) / g
        return s

    def score_interval(self, a: str, b: str, confidence: float = 0.95) -> tuple[float, float]:
        """Wilson interval (`gamekit.stats.wilson`) of `a`'s score against `b`."""
        i, j = self.index(a), self.index(b)
        return wilson(self.points(a, b), self.games(i, j), confidence)

    def totals(self, agent: str) -> tuple[int, int, int]:
        """(wins, draws, losses) of `agent` against everyone."""
        i = self.index(agent)
        return sum(self.wins[i]), sum(self.draws[i]), sum(self.losses[i])

    def paired(self, a: str, b: str) -> bool:
        """Were all games of a against b played in pairs (each start with both seat orders)?"""
        i, j = self.index(a), self.index(b)
        return self.games(i, j) > 0 and 2 * sum(self.pairs[i][j]) == self.games(i, j)

    def pentanomial(self, a: str, b: str) -> tuple[int, int, int, int, int]:
        """How many game pairs gave `a` 0, ½, 1, 1½ and 2 points against `b` (the pentanomial counts)."""
        i, j = self.index(a), self.index(b)
        out = [0] * 5
        for k, c in enumerate(self.pairs[i][j]):
            out[_PAIR_POINTS[k]] += c
        return out[0], out[1], out[2], out[3], out[4]

    def sequential(self, a: str, b: str, *, elo0: float = 0.0, elo1: float = 50.0, alpha: float = 0.05,
                   beta: float = 0.05) -> SPRT:  # fmt: skip
        """Is `a` elo1 stronger than `b` (or only elo0)? `gamekit.stats.sprt` on their game pairs
        (pentanomial) when they played in pairs, else on their single games (trinomial)."""
        i, j = self.index(a), self.index(b)
        if self.paired(a, b):
            return sprt(pairs=self.pentanomial(a, b), elo0=elo0, elo1=elo1, alpha=alpha, beta=beta)
        games = (self.wins[i][j], self.draws[i][j], self.losses[i][j])
        return sprt(games=games, elo0=elo0, elo1=elo1, alpha=alpha, beta=beta)

    def results(self) -> list[tuple[int, int, float]]:
        """Every game as (i, j, score of i) with i < j (indices into `agents`), for `gamekit.stats`;
        the two games of a pair come one after the other (see `units`)."""
        return self._results_and_units()[0]

    def units(self) -> list[int]:
        """For every game of `results()`, the unit it belongs to: its game pair's number where the
        pairing was played in pairs, else its own number (for `bootstrap_ratings(units=...)`)."""
        return self._results_and_units()[1]

    def _results_and_units(self) -> tuple[list[tuple[int, int, float]], list[int]]:
        out: list[tuple[int, int, float]] = []
        units: list[int] = []
        n = len(self.agents)
        for i in range(n):
            for j in range(i + 1, n):
                if self.paired(self.agents[i], self.agents[j]):
                    for kind, c in zip(PAIR_KINDS, self.pairs[i][j]):
                        for _ in range(c):
                            w, d, l = _PAIR_GAMES[kind]
                            out += [(i, j, 1.0)] * w + [(i, j, 0.5)] * d + [(i, j, 0.0)] * l
                            units += [len(units) and units[-1] + 1] * 2
                else:
                    games = [(i, j, 1.0)] * self.wins[i][j] + [(i, j, 0.5)] * self.draws[i][j]
                    for g in games + [(i, j, 0.0)] * self.losses[i][j]:
                        out.append(g)
                        units.append(len(units) and units[-1] + 1)
        return out, units

    def ratings(self, *, prior: float = 1.0, draws: str = "davidson", anchor: str | None = None) -> Ratings:
        """Elo-scale ratings at the exact (penalised) maximum likelihood (`gamekit.stats.fit_ratings`)."""
        return fit_ratings(self.agents, self.results(), prior=prior, draws=draws, anchor=anchor)

    def bootstrap(
        self,
        *,
        seed: int,
        reps: int = 2000,
        confidence: float = 0.95,
        prior: float = 1.0,
        draws: str = "davidson",
        anchor: str | None = None,
    ) -> Ratings:
        """Ratings with bootstrap intervals (`gamekit.stats.bootstrap_ratings`, Hesterberg's expanded
        percentile interval): game pairs resampled within each pairing (single games where a pairing
        was not played in pairs)."""
        results, units = self._results_and_units()
        return bootstrap_ratings(
            self.agents,
            results,
            units=units,
            reps=reps,
            seed=seed,
            confidence=confidence,
            prior=prior,
            draws=draws,
            anchor=anchor,
        )

    def time_per_move(self) -> dict[str, float]:
        """Mean seconds per move of every agent (NaN if it never moved)."""
        return {a: (s / m if m else math.nan) for a, s, m in zip(self.agents, self.seconds, self.moves)}

    def table(self) -> str:
        """A plain-text table: every agent's W / D / L against the field, its score with a 95 %
        Wilson interval, and its time per move (headings in the language in force, `gamekit.i18n`)."""
        tpm = self.time_per_move()
        width = max(len(a) for a in self.agents)
        agent, scored, timed = pgettext("column heading", "agent"), _("score [95% interval]"), _("ms/move")
        wins, draws, losses = (
            pgettext("column heading: wins", "W"),
            pgettext("column heading: draws", "D"),
            pgettext("column heading: losses", "L"),
        )
        wide, wider = max(20, len(scored)), max(8, len(timed))  # a column as wide as its heading
        rows = [f"{agent:<{width}}  {wins:>4} {draws:>4} {losses:>4}  {scored:>{wide}}  {timed:>{wider}}"]
        for a in self.agents:
            w, d, l = self.totals(a)
            n = w + d + l
            lo, hi = wilson(w + d / 2, n) if n else (math.nan, math.nan)
            score = f"{(w + d / 2) / max(1, n):.2f} [{lo:.2f}, {hi:.2f}]"
            rows.append(f"{a:<{width}}  {w:>4} {d:>4} {l:>4}  {score:>{wide}}  {1000 * tpm[a]:>{wider}.3f}")
        return "\n".join(rows)


@dataclass
class ArenaResult:
    """Everything an arena run produced: one `GameTable` per game, and how it was run.

    deterministic: the agents entered as deterministic (their pairings on a fixed start were
    played once per seat); paired: every start was played twice, seats swapped.
    """

    tables: dict[str, GameTable]
    games_per_pair: int
    seed: int | None
    paired: bool = True
    deterministic: list[str] = field(default_factory=list)

    def __getitem__(self, game: str) -> GameTable:
        if game not in self.tables:
            raise KeyError(f"no results for {game!r}; games here: {', '.join(self.tables)}")
        return self.tables[game]

    def ratings(self, game: str, prior: float = 1.0, anchor: str | None = None, draws: str = "davidson") -> Ratings:
        """Elo-scale ratings of the agents on `game` (see `GameTable.ratings`)."""
        return self[game].ratings(prior=prior, anchor=anchor, draws=draws)

    # -- JSON --
    def to_json(self) -> dict:
        """JSON-ready data: {"format": "gamekit.arena", "version": 3, "games_per_pair", "seed",
        "paired", "deterministic", "games": {game: {"agents", "wins", "draws", "losses", "first",
        "first_wins", "moves", "seconds", "pairs"}}}; pairs[i][j] counts i's game pairs against j
        by `PAIR_KINDS`."""
        return {
            "format": FORMAT,
            "version": FORMAT_VERSION,
            "games_per_pair": self.games_per_pair,
            "seed": self.seed,
            "paired": self.paired,
            "deterministic": list(self.deterministic),
            "games": {
                name: {
                    "agents": list(t.agents),
                    "wins": _copy(t.wins),
                    "draws": _copy(t.draws),
                    "losses": _copy(t.losses),
                    "first": _copy(t.first),
                    "first_wins": _copy(t.first_wins),
                    "moves": list(t.moves),
                    "seconds": [round(s, 6) for s in t.seconds],
                    "pairs": [[list(c) for c in row] for row in t.pairs],
                }
                for name, t in self.tables.items()
            },
        }

    @classmethod
    def from_json(cls, data: Any, source: str = "data") -> ArenaResult:
        """Rebuild a result from `to_json` data; a ValueError naming the problem if it is corrupt."""
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise ValueError(f'{source} is not an arena results file: it lacks "format": "{FORMAT}"')
        if data.get("version") != FORMAT_VERSION:
            raise ValueError(
                f"{source} has arena format version {data.get('version')!r}; "
                f"this gamekit reads version {FORMAT_VERSION} (regenerate it with scripts/make_arena.py)"
            )
        missing = [k for k in ("games_per_pair", "seed", "paired", "deterministic", "games") if k not in data]
        if missing:
            raise ValueError(f"{source} is a corrupt arena file: it lacks {', '.join(missing)}")
        gpp = data["games_per_pair"]
        if not _is_count(gpp) or gpp < 1:
            raise ValueError(f"{source}: games_per_pair must be a whole number >= 1, got {gpp!r}")
        if data["seed"] is not None and not _is_count(data["seed"]):
            raise ValueError(f"{source}: seed must be a whole number >= 0 or null, got {data['seed']!r}")
        if not isinstance(data["paired"], bool):
            raise ValueError(f"{source}: paired must be true or false, got {data['paired']!r}")
        det = data["deterministic"]
        if not isinstance(det, list) or not all(isinstance(a, str) for a in det):
            raise ValueError(f"{source}: deterministic must be a list of agent names, got {det!r}")
        if not isinstance(data["games"], dict):
            raise ValueError(f'{source}: "games" must be an object mapping game names to tables')
        tables = {name: _table_from_json(name, t, f"{source}, game {name!r}") for name, t in data["games"].items()}
        return cls(tables, gpp, data["seed"], data["paired"], list(det))

    def save(self, path: str | Path) -> None:
        """Write the result as JSON (see `to_json` for the format)."""
        Path(path).write_text(json.dumps(self.to_json(), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")

    @classmethod
    def load(cls, path: str | Path) -> ArenaResult:
        """Read a file written by `save`; a clear ValueError if it is not valid or not consistent."""
        return cls.from_json(_read_json(path), source=str(path))


def pool_tables(tables: Sequence[GameTable], deterministic: Collection[str] = ()) -> GameTable:
    """One table holding all games of several runs of the same game with the same agents (e.g.
    one run per seed): every count is the sum. A ValueError if the tables do not match.

    deterministic: agents entered as deterministic (`ArenaResult.deterministic`). Two of them on
    a fixed start play one game pair per run, and every run replays the same two games: those
    replays are one unit, not one per run (five copies would look five times as certain, and the
    bootstrap cannot vary them), so such a pairing is counted once. A ValueError if its replays
    differ (then the agents are not deterministic)."""
    if not tables:
        raise ValueError("pool_tables needs at least one table")
    first = tables[0]
    for t in tables[1:]:
        if (t.game, t.agents) != (first.game, first.agents):
            raise ValueError(
                f"only tables of the same game and agents can be pooled: {first.game} {first.agents} "
                f"vs {t.game} {t.agents}"
            )
    if isinstance(deterministic, str) or not all(isinstance(a, str) for a in deterministic):
        raise TypeError(f"deterministic must be a collection of agent names, got {deterministic!r}")
    n = len(first.agents)
    fixed = {a for a in deterministic if a in first.agents}

    def replayed(i: int, j: int) -> bool:
        """A pairing of two deterministic agents with one game pair in every run."""
        return {first.agents[i], first.agents[j]} <= fixed and all(sum(t.pairs[i][j]) == 1 for t in tables)

    for i in range(n):
        for j in range(i + 1, n):
            if replayed(i, j) and any(t.pairs[i][j] != first.pairs[i][j] for t in tables):
                raise ValueError(
                    f"{first.agents[i]!r} and {first.agents[j]!r} were given as deterministic, but their "
                    f"game pairs on {first.game} differ between the runs"
                )

    once = [tables[:1] if replayed(i, j) else tables for i in range(n) for j in range(n)]

    def total(name: str) -> list[list[int]]:
        return [[sum(getattr(t, name)[i][j] for t in once[i * n + j]) for j in range(n)] for i in range(n)]

    pairs = [
        [[sum(t.pairs[i][j][k] for t in once[i * n + j]) for k in range(len(PAIR_KINDS))] for j in range(n)]
        for i in range(n)
    ]
    return GameTable(
        first.game,
        list(first.agents),
        total("wins"),
        total("draws"),
        total("losses"),
        total("first"),
        total("first_wins"),
        [sum(t.moves[i] for t in tables) for i in range(n)],
        [sum(t.seconds[i] for t in tables) for i in range(n)],
        pairs,
    )


def save_runs(path: str | Path, runs: Sequence[ArenaResult], command: str = "") -> None:
    """Save several runs (e.g. one per seed) in one JSON file, with the command that made them."""
    data = {"format": RUNS_FORMAT, "version": 1, "command": command, "runs": [r.to_json() for r in runs]}
    Path(path).write_text(json.dumps(data, indent=None, ensure_ascii=False) + "\n", encoding="utf-8")


def load_runs(path: str | Path) -> list[ArenaResult]:
    """Read a file written by `save_runs`, validating every run."""
    data = _read_json(path)
    if not isinstance(data, dict) or data.get("format") != RUNS_FORMAT or data.get("version") != 1:
        raise ValueError(f'{path} is not an arena runs file: it lacks "format": "{RUNS_FORMAT}", "version": 1')
    if not isinstance(data.get("runs"), list) or not data["runs"]:
        raise ValueError(f'{path}: "runs" must be a non-empty list of arena results')
    return [ArenaResult.from_json(r, source=f"{path}, run {k}") for k, r in enumerate(data["runs"])]


def _read_json(path: str | Path) -> Any:
    """The file's JSON through the guarded loader (size, depth, UTF-8, no NaN; nothing executed)."""
    return load_json(path)


def _copy(matrix: list[list[int]]) -> list[list[int]]:
    return [list(row) for row in matrix]


def _is_count(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool) and x >= 0


def _check_int(x: Any, what: str) -> int:
    """A whole number (numpy integers too), else a TypeError saying what is allowed."""
    if isinstance(x, bool) or not isinstance(x, Integral):
        raise TypeError(f"{what} must be a whole number (int), got {type(x).__name__} {x!r}")
    return int(x)


def _table_from_json(name: str, t: Any, where: str) -> GameTable:
    keys = ("agents", "wins", "draws", "losses", "first", "first_wins", "moves", "seconds", "pairs")
    if not isinstance(t, dict) or any(k not in t for k in keys):
        lacks = [k for k in keys if not isinstance(t, dict) or k not in t]
        raise ValueError(f"{where}: a game table needs {', '.join(keys)}; it lacks {', '.join(lacks)}")
    agents = t["agents"]
    if not isinstance(agents, list) or not all(isinstance(a, str) for a in agents) or len(set(agents)) != len(agents):
        raise ValueError(f"{where}: agents must be a list of distinct names, got {agents!r}")
    if len(agents) < 2:
        raise ValueError(f"{where}: a table needs at least two agents (who played whom), got {agents!r}")
    n = len(agents)
    for k in ("wins", "draws", "losses", "first", "first_wins"):
        m = t[k]
        if not (
            isinstance(m, list)
            and len(m) == n
            and all(isinstance(r, list) and len(r) == n for r in m)
            and all(_is_count(x) for r in m for x in r)
        ):
            raise ValueError(f"{where}: {k} must be a {n}x{n} matrix of whole numbers >= 0")
    for k, ok in (
        ("moves", _is_count),
        ("seconds", lambda x: isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) and x >= 0),
    ):
        if not (isinstance(t[k], list) and len(t[k]) == n and all(ok(x) for x in t[k])):
            raise ValueError(f"{where}: {k} must be a list of {n} numbers >= 0")
    m = t["pairs"]
    if not (
        isinstance(m, list)
        and len(m) == n
        and all(isinstance(r, list) and len(r) == n for r in m)
        and all(
            isinstance(c, list) and len(c) == len(PAIR_KINDS) and all(_is_count(x) for x in c) for r in m for c in r
        )
    ):
        raise ValueError(f"{where}: pairs must be a {n}x{n} matrix of lists of {len(PAIR_KINDS)} whole numbers >= 0")
    table = GameTable(
        name,
        list(agents),
        t["wins"],
        t["draws"],
        t["losses"],
        t["first"],
        t["first_wins"],
        list(t["moves"]),
        [float(s) for s in t["seconds"]],
        [[list(c) for c in r] for r in m],
    )
    for i in range(n):
        if table.games(i, i) or table.first[i][i]:
            raise ValueError(f"{where}: {agents[i]} cannot play itself (the diagonal must be 0)")
        for j in range(n):
            g = table.games(i, j)
            if table.wins[i][j] != table.losses[j][i] or table.draws[i][j] != table.draws[j][i]:
                raise ValueError(
                    f"{where}: {agents[i]} vs {agents[j]} does not match {agents[j]} vs {agents[i]} "
                    f"(wins of one must be losses of the other, draws equal)"
                )
            if table.first[i][j] + table.first[j][i] != g or table.first_wins[i][j] > min(
                table.first[i][j], table.wins[i][j]
            ):
                raise ValueError(
                    f"{where}: the seat counts of {agents[i]} vs {agents[j]} do not add up to the {g} games they played"
                )
            pc = table.pairs[i][j]
            if pc != [table.pairs[j][i][_MIRROR[k]] for k in range(len(PAIR_KINDS))]:
                raise ValueError(f"{where}: the game pairs of {agents[i]} vs {agents[j]} do not mirror the other side")
            if any(pc):
                wdl = [sum(c * _PAIR_GAMES[kind][x] for kind, c in zip(PAIR_KINDS, pc)) for x in range(3)]
                if wdl != [table.wins[i][j], table.draws[i][j], table.losses[i][j]]:
                    raise ValueError(
                        f"{where}: the game pairs of {agents[i]} vs {agents[j]} hold {wdl[0]} W / {wdl[1]} D / "
                        f"{wdl[2]} L, the matrices {table.wins[i][j]} / {table.draws[i][j]} / {table.losses[i][j]}"
                    )
    return table


# --- the arena ---------------------------------------------------------------------------------


class Arena:
    """A round robin of agents over games: `Arena(agents, games).run(games_per_pair, seed)`.

    agents: {name: factory} where factory(seed) returns a fresh player, or {name: {game name:
    factory}} for an agent that plays only some games. games: {name: game} or {name: (game,
    start)} with start(game, rng) choosing each start state (e.g. `random_start()`).
    """

    def __init__(self, agents: Mapping[str, Any] | None = None, games: Mapping[str, Any] | None = None):
        self.games: dict[str, tuple[Game, Callable | None]] = {}
        self.entries: dict[str, dict[str, Factory]] = {}
        self.deterministic: set[str] = set()
        for name, entry in (games or {}).items():
            self.add_game(name, entry)
        for name, factory in (agents or {}).items():
            self.enter(name, factory)

    def add_game(self, name: str, entry: Any) -> None:
        """Add a game (or a pair (game, start chooser)) under `name`."""
        if not isinstance(name, str) or not name:
            raise ValueError(f"a game needs a non-empty name, got {name!r}")
        if name in self.games:
            raise ValueError(f"there is already a game called {name!r}")
        game, start = entry if isinstance(entry, tuple) else (entry, None)
        require_game_methods(game)
        if start is not None and not callable(start):
            raise TypeError(
                f"the start chooser of {name!r} must be a function start(game, rng) -> state, got {start!r}"
            )
        self.games[name] = (game, start)
        self.entries[name] = {}

    def enter(self, name: str, factory: Any, games: Sequence[str] | None = None, deterministic: bool = False) -> None:
        """Enter an agent: in `games` (default: every game so far), or per game with a dict of factories.

        deterministic=True declares that the agent's move depends only on the position (not on a
        seed or on earlier games); two such agents on a fixed start then meet once per seat.
        """
        if not isinstance(name, str) or not name:
            raise ValueError(f"an agent needs a non-empty name, got {name!r}")
        if not isinstance(deterministic, bool):
            raise TypeError(f"deterministic must be True or False, got {deterministic!r}")
        if isinstance(factory, Mapping):
            if games is not None:
                raise ValueError("give either a dict {game: factory} or games=[...], not both")
            per_game = dict(factory)
        else:
            chosen = list(self.games) if games is None else list(games)
            per_game = {g: factory for g in chosen}
        unknown = [g for g in per_game if g not in self.games]
        if unknown:
            raise ValueError(f"unknown game(s) {', '.join(map(repr, unknown))}; games: {', '.join(self.games)}")
        for g, f in per_game.items():
            if not callable(f):
                raise TypeError(f"the factory of {name!r} for {g!r} must be a function seed -> player, got {f!r}")
            if name in self.entries[g]:
                raise ValueError(f"{name!r} is already entered in {g!r}")
        for g, f in per_game.items():
            self.entries[g][name] = f
        if deterministic:
            self.deterministic.add(name)

    def pairs(self) -> list[tuple[str, str, str]]:
        """Every (game, agent a, agent b) pairing the run will play, in order."""
        out = []
        for g, entered in self.entries.items():
            names = list(entered)
            out += [(g, a, b) for i, a in enumerate(names) for b in names[i + 1 :]]
        return out

    def games_in_pairing(self, g: str, a: str, b: str, games_per_pair: int) -> int:
        """How many games the pairing counts: 2 (one per seat) for two deterministic agents on a
        fixed start (they can produce no other games), else `games_per_pair`."""
        return 2 if self._only_two_games(g, a, b) else games_per_pair

    def _only_two_games(self, g: str, a: str, b: str) -> bool:
        return self.games[g][1] is None and a in self.deterministic and b in self.deterministic

    def run(self, games_per_pair: int = 20, seed: int | None = None, progress: bool = True) -> ArenaResult:
        """Play every pairing and collect the results.

        `games_per_pair` is even: each start is played twice, seats swapped (paired starts).
        Every pairing gets its own seeds derived from `seed` and the names, so the same seed
        gives the same results whatever else is entered.
        """
        games_per_pair = _check_int(games_per_pair, "games_per_pair")
        seed = None if seed is None else _check_int(seed, "seed (or None)")
        if games_per_pair < 2 or games_per_pair % 2:
            raise ValueError(
                f"games_per_pair must be an even whole number >= 2 (every start is played from both "
                f"seats), got {games_per_pair!r}"
            )
        if seed is not None and seed < 0:
            raise ValueError(f"seed must be a whole number >= 0 or None, got {seed!r}")
        tables = {g: GameTable(g, list(entered)) for g, entered in self.entries.items()}
        pairs: Any = self.pairs()
        if progress:
            from tqdm.auto import tqdm

            pairs = tqdm(pairs, desc="arena", unit="pairing")
        for g, a, b in pairs:
            self._play_pair(tables[g], g, a, b, games_per_pair, seed)
        entered = {a for e in self.entries.values() for a in e}
        return ArenaResult(tables, games_per_pair, seed, True, sorted(self.deterministic & entered))

    def _play_pair(self, table: GameTable, g: str, a: str, b: str, n: int, seed: int | None) -> None:
        game, start = self.games[g]
        key = [seed if seed is not None else 0, *map(ord, f"{g}|{a}|{b}")]
        sa, sb, sm = (int(x) for x in np.random.SeedSequence(key).generate_state(3))
        pa = TimedPlayer(self.entries[g][a](sa if seed is not None else None), a)
        pb = TimedPlayer(self.entries[g][b](sb if seed is not None else None), b)
        i, j = table.index(a), table.index(b)
        if self._only_two_games(g, a, b):
            # two deterministic agents on a fixed start: play each seat twice, check that the
            # replay is the same game, and count each of the two distinct games once
            res = tournament(game, pa, pb, 4, seed=sm, start=start, paired=True, keep_records=True)
            r = res.records
            if r[0].moves != r[2].moves or r[1].moves != r[3].moves:
                raise RuntimeError(
                    f"{a!r} and {b!r} were entered as deterministic, but replaying their game on {g} "
                    "gave a different game; enter them with deterministic=False"
                )
            outcomes = [(0, r[0].winner), (1, r[1].winner)]  # (seat of a, winning seat or None)
        else:
            res = tournament(
                game, pa, pb, n, seed=sm if seed is not None else None, start=start, paired=True, keep_records=True
            )
            outcomes = [(k % 2, rec.winner) for k, rec in enumerate(res.records)]  # a moves first in even games
        for k in range(0, len(outcomes), 2):  # games 2k and 2k + 1 share their start: a game pair
            score = [1.0 if w == seat else 0.5 if w is None else 0.0 for seat, w in outcomes[k : k + 2]]
            kind = "".join(sorted(("LDW"[int(2 * x)] for x in score), key="LDW".index))
            table.pairs[i][j][PAIR_KINDS.index(kind)] += 1
            table.pairs[j][i][_MIRROR[PAIR_KINDS.index(kind)]] += 1
        for a_seat, winner in outcomes:
            if winner is None:
                table.draws[i][j] += 1
                table.draws[j][i] += 1
            else:
                w, l = (i, j) if winner == a_seat else (j, i)
                table.wins[w][l] += 1
                table.losses[l][w] += 1
                if winner == 0:
                    table.first_wins[w][l] += 1
            first, second = (i, j) if a_seat == 0 else (j, i)
            table.first[first][second] += 1
        for k, p in ((i, pa), (j, pb)):
            table.moves[k] += p.moves
            table.seconds[k] += p.seconds


# --- ratings -----------------------------------------------------------------------------------


def fit_elo(
    table: GameTable, prior: float = 1.0, anchor: str | None = None, draws: str = "davidson"
) -> dict[str, float]:
    """Elo ratings {agent: rating}: the Bradley–Terry fit on the Elo scale, R_i = 400·log10(p_i).

    Elo's expected score 1 / (1 + 10^((R_j − R_i) / 400)) is exactly the Bradley–Terry
    probability with p = 10^(R / 400): 400 points = odds of 10 to 1. Draws follow Davidson's
    model (draws="half": half a win each). Unlike the online Elo update, a maximum-likelihood fit
    does not depend on the order of the games. Ratings are relative: mean 0, or 0 for `anchor`.
    See `gamekit.stats.fit_ratings` for the model, the prior and the fit.
    """
    return table.ratings(prior=prior, anchor=anchor, draws=draws).as_dict()


def fit_bradley_terry(table: GameTable, prior: float = 1.0, draws: str = "davidson") -> dict[str, float]:
    """Bradley–Terry strengths p_i (geometric mean 1) at the exact maximum of the penalised
    likelihood: agent i beats j with probability p_i / (p_i + p_j) (+ Davidson's draws). See
    `gamekit.stats.fit_ratings`."""
    return {a: 10 ** (r / 400) for a, r in fit_elo(table, prior=prior, draws=draws).items()}


def expected_score(r_a: float, r_b: float) -> float:
    """Elo's expected score of a player rated r_a against one rated r_b (win 1, draw 1/2)."""
    return 1.0 / (1.0 + 10 ** ((r_b - r_a) / 400))
