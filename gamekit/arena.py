"""The arena: every agent plays every other on every game it can play, and a rating is fitted.

An *agent* is a name and a factory `factory(seed) -> player` (a fresh, seeded player for each
pairing, so no agent carries memory from one opponent to the next). A factory may also be a
dict `{game name: factory}` for agents that exist only for some games (a Q-table is trained
per game, the subtraction strategies only play the subtraction game). A *game entry* is a
game, or a pair `(game, start)` where `start(game, rng)` chooses each game's start state.

`Arena.run` plays, for every game and every pair of agents entered in it, `games_per_pair`
games with `gamekit.match.tournament` (seats alternate: each agent moves first in half the
games) and times every move. The result, an `ArenaResult`, holds per game a `GameTable`:
wins / draws / losses from the row agent's view, how often the row agent moved first and won
then, and each agent's moves and seconds. It saves to JSON and loads back with validation.

Ratings: `fit_bradley_terry` fits the Bradley–Terry model by maximum likelihood,
`fit_elo` reports the same fit on the Elo scale (see their docstrings).
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .games.generalized_nim import GeneralizedNim
from .games.nim import Nim
from .games.subtraction import SubtractionGame
from .games.tictactoe import TicTacToe
from .match import random_start, tournament
from .mcts import MCTSPlayer
from .mcts_fast import FastTicTacToePlayer
from .players import (
    LossAversePlayer,
    MixedPlayer,
    PerfectPlayer,
    RandomPlayer,
    RawCountPlayer,
    SmartRandomPlayer,
    player_name,
)
from .protocol import Game, Move, State, check_game
from .qlearning import QLearner
from .search import SearchPlayer, h1_scaled

Factory = Callable[[int], Callable[[Game, State], Move]]
FORMAT = "gamekit.arena"
FORMAT_VERSION = 1


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
    time they took. The diagonal stays 0 (no agent plays itself).
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

    def __post_init__(self) -> None:
        n = len(self.agents)
        for name in ("wins", "draws", "losses", "first", "first_wins"):
            if not getattr(self, name):
                setattr(self, name, _square(n))
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

    def totals(self, agent: str) -> tuple[int, int, int]:
        """(wins, draws, losses) of `agent` against everyone."""
        i = self.index(agent)
        return sum(self.wins[i]), sum(self.draws[i]), sum(self.losses[i])

    def time_per_move(self) -> dict[str, float]:
        """Mean seconds per move of every agent (NaN if it never moved)."""
        return {a: (s / m if m else math.nan) for a, s, m in zip(self.agents, self.seconds, self.moves)}

    def table(self) -> str:
        """A plain-text table: every agent's W / D / L against the field and its time per move."""
        tpm = self.time_per_move()
        width = max(len(a) for a in self.agents)
        rows = [f"{'agent':<{width}}  {'W':>5} {'D':>5} {'L':>5}  {'score':>6}  {'ms/move':>8}"]
        for a in self.agents:
            w, d, l = self.totals(a)
            rows.append(
                f"{a:<{width}}  {w:>5} {d:>5} {l:>5}  {(w + d / 2) / max(1, w + d + l):>6.1%}  {1000 * tpm[a]:>8.3f}"
            )
        return "\n".join(rows)


@dataclass
class ArenaResult:
    """Everything an arena run produced: one `GameTable` per game, and how it was run."""

    tables: dict[str, GameTable]
    games_per_pair: int
    seed: int | None

    def __getitem__(self, game: str) -> GameTable:
        if game not in self.tables:
            raise KeyError(f"no results for {game!r}; games here: {', '.join(self.tables)}")
        return self.tables[game]

    def ratings(self, game: str, prior: float = 1.0, anchor: str | None = None) -> dict[str, float]:
        """Elo-scale ratings of the agents on `game` (see `fit_elo`)."""
        return fit_elo(self[game], prior=prior, anchor=anchor)

    # -- JSON --
    def to_json(self) -> dict:
        """JSON-ready data: {"format": "gamekit.arena", "version": 1, "games_per_pair", "seed",
        "games": {game: {"agents", "wins", "draws", "losses", "first", "first_wins", "moves", "seconds"}}}."""
        return {
            "format": FORMAT,
            "version": FORMAT_VERSION,
            "games_per_pair": self.games_per_pair,
            "seed": self.seed,
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
                f"this gamekit reads version {FORMAT_VERSION}"
            )
        missing = [k for k in ("games_per_pair", "seed", "games") if k not in data]
        if missing:
            raise ValueError(f"{source} is a corrupt arena file: it lacks {', '.join(missing)}")
        gpp = data["games_per_pair"]
        if not _is_count(gpp) or gpp < 1:
            raise ValueError(f"{source}: games_per_pair must be a whole number >= 1, got {gpp!r}")
        if data["seed"] is not None and not _is_count(data["seed"]):
            raise ValueError(f"{source}: seed must be a whole number >= 0 or null, got {data['seed']!r}")
        if not isinstance(data["games"], dict):
            raise ValueError(f'{source}: "games" must be an object mapping game names to tables')
        tables = {name: _table_from_json(name, t, f"{source}, game {name!r}") for name, t in data["games"].items()}
        return cls(tables, gpp, data["seed"])

    def save(self, path: str | Path) -> None:
        """Write the result as JSON (see `to_json` for the format)."""
        Path(path).write_text(json.dumps(self.to_json(), indent=1) + "\n", encoding="utf-8")

    @classmethod
    def load(cls, path: str | Path) -> ArenaResult:
        """Read a file written by `save`; a clear ValueError if it is not valid or not consistent."""
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except json.JSONDecodeError as err:
            raise ValueError(f"{path} is not an arena results file: not valid JSON ({err})") from None
        return cls.from_json(data, source=str(path))


def _copy(matrix: list[list[int]]) -> list[list[int]]:
    return [list(row) for row in matrix]


def _is_count(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool) and x >= 0


def _table_from_json(name: str, t: Any, where: str) -> GameTable:
    keys = ("agents", "wins", "draws", "losses", "first", "first_wins", "moves", "seconds")
    if not isinstance(t, dict) or any(k not in t for k in keys):
        lacks = [k for k in keys if not isinstance(t, dict) or k not in t]
        raise ValueError(f"{where}: a game table needs {', '.join(keys)}; it lacks {', '.join(lacks)}")
    agents = t["agents"]
    if not isinstance(agents, list) or not all(isinstance(a, str) for a in agents) or len(set(agents)) != len(agents):
        raise ValueError(f"{where}: agents must be a list of distinct names, got {agents!r}")
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
    )
    for i in range(n):
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
    return table


# --- the arena ---------------------------------------------------------------------------------


class Arena:
    """A round robin of agents over games: `Arena(agents, games).run(games_per_pair, seed)`.

    agents: {name: factory} where factory(seed) returns a fresh player, or {name: {game name:
    factory}} for an agent that plays only some games. games: {name: game} or {name: (game,
    start)} with start(game, rng) choosing each game's start state (e.g. `random_start(20, 50)`).
    """

    def __init__(self, agents: Mapping[str, Any] | None = None, games: Mapping[str, Any] | None = None):
        self.games: dict[str, tuple] = {}
        self.entries: dict[str, dict[str, Factory]] = {}
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
        check_game(game)
        if start is not None and not callable(start):
            raise TypeError(
                f"the start chooser of {name!r} must be a function start(game, rng) -> state, got {start!r}"
            )
        self.games[name] = (game, start)
        self.entries[name] = {}

    def enter(self, name: str, factory: Any, games: Sequence[str] | None = None) -> None:
        """Enter an agent: in `games` (default: every game so far), or per game with a dict of factories."""
        if not isinstance(name, str) or not name:
            raise ValueError(f"an agent needs a non-empty name, got {name!r}")
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

    def pairs(self) -> list[tuple]:
        """Every (game, agent a, agent b) pairing the run will play, in order."""
        out = []
        for g, entered in self.entries.items():
            names = list(entered)
            out += [(g, a, b) for i, a in enumerate(names) for b in names[i + 1 :]]
        return out

    def run(self, games_per_pair: int = 20, seed: int | None = None, progress: bool = True) -> ArenaResult:
        """Play every pairing `games_per_pair` times (seats alternate) and collect the results.

        `games_per_pair` is even, so each agent of a pairing moves first in exactly half its games.
        Every pairing gets its own seeds derived from `seed`, so the same seed gives the same
        results whatever else is entered.
        """
        if (
            isinstance(games_per_pair, bool)
            or not isinstance(games_per_pair, int)
            or games_per_pair < 2
            or games_per_pair % 2
        ):
            raise ValueError(
                f"games_per_pair must be an even whole number >= 2 (each agent moves first in "
                f"half the games), got {games_per_pair!r}"
            )
        if seed is not None and not _is_count(seed):
            raise ValueError(f"seed must be a whole number >= 0 or None, got {seed!r}")
        tables = {g: GameTable(g, list(entered)) for g, entered in self.entries.items()}
        pairs = self.pairs()
        if progress:
            from tqdm.auto import tqdm

            pairs = tqdm(pairs, desc="arena", unit="pairing")
        for g, a, b in pairs:
            self._play_pair(tables[g], g, a, b, games_per_pair, seed)
        return ArenaResult(tables, games_per_pair, seed)

    def _play_pair(self, table: GameTable, g: str, a: str, b: str, n: int, seed: int | None) -> None:
        game, start = self.games[g]
        key = [seed if seed is not None else 0, *map(ord, f"{g}|{a}|{b}")]
        sa, sb, sm = (int(x) for x in np.random.SeedSequence(key).generate_state(3))
        if seed is None:
            sa = sb = sm = None
        pa = TimedPlayer(self.entries[g][a](sa), a)
        pb = TimedPlayer(self.entries[g][b](sb), b)
        res = tournament(game, pa, pb, n, seed=sm, start=start, swap_seats=True)
        i, j = table.index(a), table.index(b)
        table.wins[i][j] += res.wins[0]
        table.wins[j][i] += res.wins[1]
        table.losses[i][j] += res.wins[1]
        table.losses[j][i] += res.wins[0]
        table.draws[i][j] += res.draws
        table.draws[j][i] += res.draws
        table.first[i][j] += res.seat_games[0][0]
        table.first[j][i] += res.seat_games[1][0]
        table.first_wins[i][j] += res.seat_wins[0][0]
        table.first_wins[j][i] += res.seat_wins[1][0]
        for k, p in ((i, pa), (j, pb)):
            table.moves[k] += p.moves
            table.seconds[k] += p.seconds


# --- ratings -----------------------------------------------------------------------------------


def fit_bradley_terry(
    table: GameTable, prior: float = 1.0, tol: float = 1e-10, max_iter: int = 10_000
) -> dict[str, float]:
    """Bradley–Terry strengths p_i (geometric mean 1) fitted by maximum likelihood.

    The model: agent i beats agent j with probability p_i / (p_i + p_j); a draw counts as half a
    win for each side. The maximum does not exist when an agent never loses (its p would grow
    without bound) or never wins; so every agent also plays `prior` virtual games, drawn, against
    a virtual agent of strength 1: a mild pull towards the middle. prior=0: pure maximum likelihood.
    """
    if isinstance(prior, bool) or not isinstance(prior, (int, float)) or not prior >= 0 or math.isinf(prior):
        raise ValueError(f"prior must be a finite number >= 0, got {prior!r}")
    n = len(table.agents)
    if n == 0:
        return {}
    W = np.array([sum(table.wins[i]) + sum(table.draws[i]) / 2 for i in range(n)], float) + prior / 2
    N = np.array([[table.games(i, j) for j in range(n)] for i in range(n)], float)
    if prior == 0 and (np.any(W == 0) or np.any(N.sum(axis=1) == W)):
        raise ValueError("without a prior every agent must have won and lost (or drawn) at least once; use prior > 0")
    return dict(zip(table.agents, _mm_strengths(W, N, prior, tol, max_iter).tolist()))


def _mm_strengths(W: np.ndarray, N: np.ndarray, prior: float, tol: float, max_iter: int) -> np.ndarray:
    """Hunter's (2004) MM iteration for Bradley–Terry: W[i] = points of i, N[i, j] = games i vs j.

        p_i  <-  W_i / sum_j  N_ij / (p_i + p_j)      (+ the prior's games against strength 1)

    Every step raises the likelihood; it converges to the maximum when that exists.
    """
    p = np.ones(len(W))
    for _ in range(max_iter):
        denom = (N / (p[:, None] + p[None, :])).sum(axis=1) + prior / (p + 1.0)
        new = W / denom
        new /= math.exp(np.log(new).mean())  # fix the scale: geometric mean 1
        if np.max(np.abs(np.log(new) - np.log(p))) < tol:
            return new
        p = new
    return p


def fit_elo(table: GameTable, prior: float = 1.0, anchor: str | None = None) -> dict[str, float]:
    """Elo ratings: the Bradley–Terry fit on the Elo scale, R_i = 400 * log10(p_i).

    Elo's expected score 1 / (1 + 10^((R_j - R_i) / 400)) is exactly the Bradley–Terry
    probability with p = 10^(R / 400): 400 points = odds of 10 to 1. Unlike the online Elo
    update, a maximum-likelihood fit does not depend on the order of the games. Ratings are
    relative: mean 0, or 0 for the `anchor` agent (e.g. "random").
    """
    p = fit_bradley_terry(table, prior)
    r = {a: 400 * math.log10(v) for a, v in p.items()}
    if anchor is not None and anchor not in r:
        raise KeyError(f"anchor {anchor!r} did not play; agents: {', '.join(r)}")
    shift = r[anchor] if anchor is not None else (sum(r.values()) / len(r) if r else 0.0)
    return {a: v - shift for a, v in r.items()}


def expected_score(r_a: float, r_b: float) -> float:
    """Elo's expected score of a player rated r_a against one rated r_b (win 1, draw 1/2)."""
    return 1.0 / (1.0 + 10 ** ((r_b - r_a) / 400))


# --- the course's line-up ----------------------------------------------------------------------


def course_games() -> dict[str, Any]:
    """The four games of the course's arena, with the subtraction game's random start 20..50."""
    return {
        "subtraction 3,5,11": (SubtractionGame(start=50, moves=(3, 5, 11)), random_start(20, 50)),
        "TicTacToe": TicTacToe(),
        "misère Nim 3,5,7": Nim([3, 5, 7], misere=True),
        "generalised Nim": GeneralizedNim(24, [{1: 4, 2: math.inf, 3: 2}, {1: math.inf, 2: 3, 4: math.inf}]),
    }


def course_arena(
    seed: int = 2026,
    mcts_budgets: Sequence[int] = (30, 100, 300),
    depths: Sequence[int] = (1, 2, 4),
    q_episodes: int = 20_000,
) -> Arena:
    """Every agent of the course entered in every game it can play (`course_games`).

    The subtraction strategies play only the subtraction game, h1 is a TicTacToe heuristic, MCTS
    uses the fast bitboard version on TicTacToe, and the Q-learner plays where it has a table.
    """
    arena = Arena(games=course_games())
    sub, ttt = "subtraction 3,5,11", "TicTacToe"
    arena.enter("random", lambda s: RandomPlayer(seed=s))
    arena.enter("smart random", lambda s: SmartRandomPlayer(seed=s), games=[sub])
    arena.enter("mixed p=0.5", lambda s: MixedPlayer(0.5, seed=s), games=[sub])
    arena.enter("raw counts", lambda s: RawCountPlayer())
    arena.enter("1 − P(lose)", lambda s: LossAversePlayer())
    for d in depths:
        arena.enter(f"h1 depth {d}", lambda s, d=d: SearchPlayer(depth=d, evaluate=h1_scaled), games=[ttt])
    arena.enter("perfect", lambda s: PerfectPlayer())
    for b in mcts_budgets:
        arena.enter(
            f"MCTS {b}",
            {
                g: (lambda s, b=b: FastTicTacToePlayer(b, seed=s))
                if g == ttt
                else (lambda s, b=b: MCTSPlayer(b, seed=s))
                for g in arena.games
            },
        )
    arena.enter("Q-learner", _q_learner_factories(arena, seed, q_episodes))
    return arena


def _q_learner_factories(arena: Arena, seed: int, episodes: int) -> dict[str, Factory]:
    """A Q-learner trained by self-play for `episodes` games on each of the arena's games whose
    start is fixed (a random start, like the subtraction game's, is not one table)."""
    factories = {}
    fixed = [name for name, (game, start) in arena.games.items() if start is None]
    for k, name in enumerate(fixed):
        learner = QLearner(arena.games[name][0], seed=seed + k)
        learner.train(episodes, progress=False)
        factories[name] = lambda s, q=learner: q.player()
    return factories


def main(argv: Sequence[str] | None = None) -> None:
    """Command line: run the course's arena and save the results as JSON, e.g.

        python scripts/make_arena.py --games-per-pair 20 --seed 2026 --out data/arena_small.json

    (Use the script: `python -m gamekit.arena` also works, but Python warns there, because
    `import gamekit` has already imported this module before runpy runs it as __main__.)
    """
    import argparse

    ap = argparse.ArgumentParser(
        prog="python scripts/make_arena.py",
        description=main.__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ap.add_argument("--games-per-pair", type=int, default=20, help="games per pairing: even, both seats (>= 2)")
    ap.add_argument("--seed", type=int, default=2026, help="seeds the agents, the starts and the Q-learners")
    ap.add_argument("--out", help="JSON file to write (default: print the tables only)")
    args = ap.parse_args(argv)
    if args.games_per_pair < 2 or args.games_per_pair % 2:
        ap.error(f"--games-per-pair must be even and >= 2 (both seats equally often), got {args.games_per_pair}")
    if args.seed < 0:
        ap.error(f"--seed must be >= 0, got {args.seed}")
    result = course_arena(args.seed).run(args.games_per_pair, seed=args.seed, progress=True)
    for name, table in result.tables.items():
        print(f"\n{name}\n{table.table()}")
    if args.out:
        result.save(args.out)
        print(f"\nsaved to {args.out}")


if __name__ == "__main__":
    main()
