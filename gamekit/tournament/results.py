"""Reading a tournament: standings, ratings with intervals, pairings, forfeits, "how many more games?".

Every number here comes from the stored games. A forfeit counts as a loss for the agent that
failed and a win for its opponent (that is the rule the students were told). Ratings are the
Bradley–Terry fit of `gamekit.stats` with Davidson's draws, on the Elo scale, anchored at the
mean, with percentile-bootstrap intervals (games resampled); a pairing's score has a Wilson
interval; and `sequential` answers "is A really better than B?" with Wald's SPRT and an estimate
of the games still needed.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..stats import SPRT, Ratings, bootstrap_ratings, games_to_separate, sprt, wilson
from .runner import Entrant, Tournament


@dataclass(frozen=True)
class Standing:
    """One entrant's line of the leaderboard."""

    id: str
    name: str
    games: int
    wins: int
    draws: int
    losses: int
    forfeits: int
    rating: float
    low: float
    high: float

    @property
    def score(self) -> float:
        """Points per game (win 1, draw 1/2)."""
        return (self.wins + self.draws / 2) / self.games if self.games else math.nan


@dataclass(frozen=True)
class Pairing:
    """Row agent `a` against column agent `b`: W/D/L from a's side and a's score with its Wilson interval."""

    a: str
    b: str
    wins: int
    draws: int
    losses: int

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        return (self.wins + self.draws / 2) / self.games if self.games else math.nan

    def interval(self, confidence: float = 0.95) -> tuple[float, float]:
        return wilson(self.wins + self.draws / 2, self.games, confidence)


@dataclass(frozen=True)
class Question:
    """The answer to "is A really better than B?" from their games so far."""

    a: str
    b: str
    pairing: Pairing
    test: SPRT
    total_needed: float  # games in all until the score's interval excludes 1/2 (if the rate stays)
    elo1: float = 50.0

    @property
    def more(self) -> float:
        """Games still to play (0 when decided, inf when the scores are exactly level)."""
        return max(0.0, self.total_needed - self.pairing.games)

    def text(self) -> str:
        p = self.pairing
        lo, hi = p.interval()
        head = (
            f"{self.a} vs {self.b}: {p.wins} W / {p.draws} D / {p.losses} L, score {p.score:.2f} [{lo:.2f}, {hi:.2f}]"
        )
        if self.test.decision == "H1":
            verdict = f"SPRT: yes, {self.a} is stronger (LLR {self.test.llr:.2f} ≥ {self.test.upper:.2f})"
        elif self.test.decision == "H0":
            verdict = (
                f"SPRT: no, {self.a} is not {self.elo1:.0f} Elo stronger "
                f"(LLR {self.test.llr:.2f} ≤ {self.test.lower:.2f})"
            )
        elif math.isnan(self.test.llr):
            verdict = "SPRT: undecided (every game ended alike, so the test cannot weigh them yet)"
        else:
            verdict = f"SPRT: undecided (LLR {self.test.llr:.2f} in ({self.test.lower:.2f}, {self.test.upper:.2f}))"
        more = "never separates (level score)" if math.isinf(self.more) else f"about {math.ceil(self.more)} more games"
        return f"{head}\n{verdict}; the interval excludes 1/2 after {more}"


class Results:
    """The results of a tournament database (finished games only; a running tournament can be read too)."""

    def __init__(self, source: Tournament | str | Path):
        self.tournament = source if isinstance(source, Tournament) else Tournament.open(source)
        self.config = self.tournament.config
        self.entrants: list[Entrant] = self.tournament.entrants()
        self.records: list[dict[str, Any]] = self.tournament.records()
        self.names = {e.id: (e.name or e.id) for e in self.entrants}

    # --- who played ---
    def accepted(self) -> list[str]:
        return [e.id for e in self.entrants if e.status == "accepted"]

    def rejected(self) -> list[Entrant]:
        return [e for e in self.entrants if e.status == "rejected"]

    def results(self) -> list[tuple[int, int, float]]:
        """(i, j, score of i) per game, indices into `accepted()` (for `gamekit.stats`)."""
        index = {a: i for i, a in enumerate(self.accepted())}
        return [(index[r["agents"][0]], index[r["agents"][1]], float(r["score"][0])) for r in self.records]

    # --- ratings and standings ---
    def ratings(self, reps: int = 200, seed: int | None = None, confidence: float = 0.95) -> Ratings:
        """Elo ratings (mean 0) with percentile-bootstrap intervals over the games."""
        seed = self.config["seed"] if seed is None else seed
        if len(self.accepted()) < 2 or not self.records:
            raise ValueError(
                f"ratings need games between at least two accepted agents; this tournament has "
                f"{len(self.accepted())} accepted agent(s) and {len(self.records)} finished game(s)"
            )
        return bootstrap_ratings(self.accepted(), self.results(), reps=reps, seed=seed, confidence=confidence)

    def standings(self, reps: int = 200, seed: int | None = None) -> list[Standing]:
        """The leaderboard, best rating first (ratings are NaN until two agents have played)."""
        ratings = self.ratings(reps, seed) if len(self.accepted()) >= 2 and self.records else None
        count: dict[str, Counter[str]] = {a: Counter() for a in self.accepted()}
        for r in self.records:
            for seat in (0, 1):
                c = count[r["agents"][seat]]
                c["games"] += 1
                c["wins" if r["score"][seat] == 1 else "draws" if r["score"][seat] == 0.5 else "losses"] += 1
                c["forfeits"] += r["forfeit"] == seat
        rows = []
        for a in self.accepted():
            rating, (low, high) = (ratings[a], ratings.interval(a)) if ratings else (math.nan, (math.nan, math.nan))
            c = count[a]
            counts = (c["games"], c["wins"], c["draws"], c["losses"], c["forfeits"])
            rows.append(Standing(a, self.names[a], *counts, rating, low, high))
        return sorted(rows, key=lambda s: (-s.rating if ratings else 0.0, s.id))

    # --- pairings ---
    def pairing(self, a: str, b: str) -> Pairing:
        """All games between a and b, from a's side."""
        w = d = l = 0
        for r in self.records:
            if set(r["agents"]) != {a, b} or a == b:
                continue
            s = r["score"][r["agents"].index(a)]
            w, d, l = w + (s == 1), d + (s == 0.5), l + (s == 0)
        return Pairing(a, b, w, d, l)

    def pairings(self) -> dict[tuple[str, str], Pairing]:
        """Every ordered pair of agents that met."""
        met = {tuple(r["agents"]) for r in self.records}
        out = {}
        for a, b in sorted(met | {(y, x) for x, y in met}):
            out[(a, b)] = self.pairing(a, b)
        return out

    def sequential(self, a: str, b: str, elo1: float = 50.0, alpha: float = 0.05, beta: float = 0.05) -> Question:
        """Is a really better than b? Wald's SPRT of "a is `elo1` Elo stronger" against "they are equal"."""
        p = self.pairing(a, b)
        if not p.games:
            raise ValueError(f"{a} and {b} have not played each other; pairs that met: {sorted(self.pairings())}")
        test = sprt(p.wins, p.draws, p.losses, elo0=0.0, elo1=elo1, alpha=alpha, beta=beta)
        if sum(x > 0 for x in (p.wins, p.draws, p.losses)) < 2:
            # every game ended alike: the observed variance is 0 and the normal approximation says
            # nothing yet (its LLR would be infinite); the test stays open until results differ
            test = SPRT(math.nan, test.lower, test.upper, None, test.games)
        return Question(a, b, p, test, games_to_separate(p.wins, p.draws, p.losses), elo1=elo1)

    # --- the log ---
    def forfeits(self) -> list[dict[str, Any]]:
        """Every forfeited game: id, the agent that failed, its seat, the reason and what happened."""
        return [
            {
                "game": r["id"],
                "agent": r["agents"][r["forfeit"]],
                "seat": r["forfeit"],
                "opponent": r["agents"][1 - r["forfeit"]],
                "reason": r["reason"],
                "detail": r["detail"],
                "move": len(r["moves"]) + 1,
            }
            for r in self.records
            if r["forfeit"] is not None
        ]

    def table(self, reps: int = 200) -> str:
        """The leaderboard as plain text."""
        rows = self.standings(reps)
        width = max([len(s.name) for s in rows] + [5])
        lines = [
            f"{'#':>2}  {'agent':<{width}}  {'Elo':>6}  {'95% interval':>15}  "
            f"{'W':>4} {'D':>4} {'L':>4}  {'score':>5}  forfeits"
        ]
        for k, s in enumerate(rows, 1):
            lines.append(
                f"{k:>2}  {s.name:<{width}}  {s.rating:>6.0f}  [{s.low:>6.0f}, {s.high:>6.0f}]  "
                f"{s.wins:>4} {s.draws:>4} {s.losses:>4}  {s.score:>5.2f}  {s.forfeits}"
            )
        for e in self.rejected():
            lines.append(f"rejected: {e.id}: {e.reason}")
        return "\n".join(lines)

    def write_records(self, folder: str | Path) -> list[Path]:
        """Every game's record as its own JSON file in `folder` (returns the paths)."""
        out = Path(folder)
        out.mkdir(parents=True, exist_ok=True)
        paths = []
        for r in self.records:
            path = out / f"{r['id'].replace('~', '__')}.json"
            path.write_text(json.dumps(r, indent=1, sort_keys=True), encoding="utf-8")
            paths.append(path)
        return paths
