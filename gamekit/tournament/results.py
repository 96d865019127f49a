"""Reading a tournament: standings, ratings with intervals, pairings, forfeits, "how many more games?".

Every number here comes from the stored games. A forfeit counts as a loss for the agent that
failed and a win for its opponent (that is the rule the students were told). The schedule plays
every start twice per pairing with the seats swapped: those two games are a *game pair*, and the
pair, not the game, is the unit of the analysis. Ratings are the Bradley–Terry fit of
`gamekit.stats` with Davidson's draws, on the Elo scale, anchored at the mean, with 95 %
intervals from `robust_ratings` (profile likelihood intervals widened by the game pairs' design
effect, with a small-sample t quantile; checked by simulation over `COVERAGE_CHECKED` from
`MIN_PAIRS` pairs per pairing on, wide fields and unbeaten agents included) or, with fewer games,
none and the plain statement that the games are too few.
The board's words (headings, the notes on the method) are in the language in force
(`gamekit.i18n`); `INTERVAL_METHOD`, `ONE_SIDED_NOTE` and `HOLM_NOTE` keep the notes in English,
as ratings.json stores them.
`neighbours` compares each two agents next to each other on the board by the interval of their
difference, with Holm's correction for the number of comparisons; `sequential` answers "is A
really better than B?" with the generalized SPRT on the pairs (pentanomial model) and the
expected number of games still needed.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..i18n import _, ngettext, pgettext, use_language
from ..stats import COVERAGE_CHECKED, SPRT, Ratings, bootstrap_ratings, robust_ratings, sprt, too_few_text, wilson
from .runner import Entrant, Tournament


def coverage_text() -> str:
    """`COVERAGE_CHECKED.text()` in the language in force: the fields on which simulations checked the
    intervals, as a sentence fragment."""
    return COVERAGE_CHECKED.text()


def interval_method() -> str:
    """What the board's intervals are and why, in the language in force (the leaderboard's method note)."""
    # TRANSLATORS: the method note of the leaderboard; {checked} is the range of the simulations that checked it
    return _(
        "95 % profile likelihood intervals, widened by the game pairs' design effect, with Student's t "
        "(chosen because they follow the likelihood where a pairing is one-sided or an agent unbeaten, "
        "where a symmetric interval would claim an end the games do not support, and treat the pair as "
        "the unit; checked: {checked})"
    ).format(checked=coverage_text())


def one_sided_note() -> str:
    """The note on an interval of an agent that never lost (or never won), in the language in force."""
    return _(
        "never lost (or never won): the games give that end of the interval no bound; the prior's one "
        "virtual game per agent (half won, half lost against rating 0) sets it"
    )


def holm_note() -> str:
    """The note on the neighbours' comparisons (Holm's correction), in the language in force."""
    return _(
        "each interval is a 95 % statement, so among many some fail by chance; 'settled' uses Holm's "
        "correction: all the 'settled' orders together are wrong with probability at most 5 %"
    )


# The notes in English, whatever the language in force: ratings.json stores the method so, and code may compare.
with use_language("en"):
    INTERVAL_METHOD = interval_method()
    ONE_SIDED_NOTE = one_sided_note()
    HOLM_NOTE = holm_note()


def _order_word(settled: bool) -> str:
    """Whether the order of two neighbours on the board is settled, as the board says it."""
    if settled:
        return pgettext("the order of two neighbours on the leaderboard", "settled")
    return pgettext("the order of two neighbours on the leaderboard", "not settled")


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
    low: float  # NaN where the games are too few for an interval (see Results.ratings().too_few)
    high: float
    profiled: bool = False  # every bootstrap replicate agreed: [low, high] is the likelihood's interval

    @property
    def one_sided(self) -> bool:
        """It played, and never lost or never won: its interval is open on one side in the games."""
        return self.games > 0 and (self.losses == 0 or self.wins == 0)

    @property
    def score(self) -> float:
        """Points per game (win 1, draw 1/2)."""
        return (self.wins + self.draws / 2) / self.games if self.games else math.nan


@dataclass(frozen=True)
class Pairing:
    """Row agent `a` against column agent `b`: W/D/L from a's side, a's score with its Wilson
    interval, and `pairs`: how many complete game pairs gave a 0, ½, 1, 1½, 2 points (the
    pentanomial counts; games whose partner is not played yet are in W/D/L only)."""

    a: str
    b: str
    wins: int
    draws: int
    losses: int
    pairs: tuple[int, int, int, int, int] = (0, 0, 0, 0, 0)

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def one_sided(self) -> bool:
        """It played, and never lost or never won: its interval is open on one side in the games."""
        return self.games > 0 and (self.losses == 0 or self.wins == 0)

    @property
    def score(self) -> float:
        return (self.wins + self.draws / 2) / self.games if self.games else math.nan

    @property
    def paired(self) -> bool:
        """Were all their games played as complete pairs (each start with both seat orders)?"""
        return self.games > 0 and 2 * sum(self.pairs) == self.games

    def interval(self, confidence: float = 0.95) -> tuple[float, float]:
        """The Wilson interval of a's score, treating the games as independent (single games).

        A rough guide, not printed on the leaderboard: draws and a shared start make the games
        less variable than a coin's, so it is often wider than its level needs; the leaderboard's
        comparisons come from the rating model's difference intervals (`Results.neighbours`)."""
        return wilson(self.wins + self.draws / 2, self.games, confidence)


@dataclass(frozen=True)
class Question:
    """The answer to "is A really better than B?" from their games so far (`Results.sequential`)."""

    a: str
    b: str
    pairing: Pairing
    test: SPRT
    elo1: float = 50.0

    @property
    def more(self) -> float:
        """The expected number of further games until the test decides (0 when decided)."""
        return self.test.more

    def text(self) -> str:
        """The answer in two lines, in the language in force: the games so far, and the test's verdict."""
        p, t = self.pairing, self.test
        if t.model == "pentanomial":
            n = sum(t.counts)
            # TRANSLATORS: English says "pairs" for every count; German tells one pair from several
            unit = ngettext("{n} game pairs", "{n} game pairs", n).format(n=n)
        else:
            # TRANSLATORS: English says "games" for every count; German tells one game from several
            unit = ngettext("{n} single games", "{n} single games", t.games).format(n=t.games)
        # TRANSLATORS: W, D and L are wins, draws and losses
        head = _("{a} vs {b}: {wins} W / {draws} D / {losses} L, score {score}; the test reads {unit}").format(
            a=self.a, b=self.b, wins=p.wins, draws=p.draws, losses=p.losses, score=f"{p.score:.2f}", unit=unit
        )
        llr, lower, upper = f"{t.llr:.2f}", f"{t.lower:.2f}", f"{t.upper:.2f}"
        if t.decision == "H1":
            verdict = _("SPRT: yes, {a} is stronger (LLR {llr} ≥ {upper})").format(a=self.a, llr=llr, upper=upper)
        elif t.decision == "H0":
            verdict = _("SPRT: no, {a} is not {elo} Elo stronger (LLR {llr} ≤ {lower})").format(
                a=self.a, elo=f"{self.elo1:.0f}", llr=llr, lower=lower
            )
        else:
            more = math.ceil(t.more)
            verdict = ngettext(
                "SPRT: undecided (LLR {llr} in ({lower}, {upper})); expected about {more} more games",
                "SPRT: undecided (LLR {llr} in ({lower}, {upper})); expected about {more} more games",
                more,
            ).format(llr=llr, lower=lower, upper=upper, more=more)
        return f"{head}\n{verdict}"


def display_names(entrants: list[Entrant]) -> dict[str, str]:
    """Each entrant's name as the board shows it: its NAME, followed by its id where two entrants
    share that name (30 uploads that kept the template's NAME stay told apart, by participant
    id for a class from Moodle); an entrant without a NAME is shown by its id."""
    counts = Counter(e.name for e in entrants)
    return {e.id: (e.id if not e.name else f"{e.name} ({e.id})" if counts[e.name] > 1 else e.name) for e in entrants}


class Results:
    """The results of a tournament database (finished games only; a running tournament can be read too)."""

    def __init__(self, source: Tournament | str | Path):
        self.tournament = source if isinstance(source, Tournament) else Tournament.open(source)
        self.config = self.tournament.config
        self.entrants: list[Entrant] = self.tournament.entrants()
        self.records: list[dict[str, Any]] = self.tournament.records()
        self.names = display_names(self.entrants)

    # --- who played ---
    def accepted(self) -> list[str]:
        return [e.id for e in self.entrants if e.status == "accepted"]

    def rejected(self) -> list[Entrant]:
        return [e for e in self.entrants if e.status == "rejected"]

    def results(self) -> list[tuple[int, int, float]]:
        """(i, j, score of i) per game, indices into `accepted()` (for `gamekit.stats`)."""
        index = {a: i for i, a in enumerate(self.accepted())}
        return [(index[r["agents"][0]], index[r["agents"][1]], float(r["score"][0])) for r in self.records]

    def units(self) -> list[str]:
        """Per game of `results()`, its game pair: the pairing and the start ("a~b~3"); a game
        whose partner has not been played yet is a unit of its own (for `bootstrap_ratings`)."""
        keys = [_pair_key(r) for r in self.records]
        count = Counter(keys)
        return [k if count[k] == 2 else r["id"] for k, r in zip(keys, self.records)]

    # --- ratings and standings ---
    def ratings(
        self, reps: int = 2000, seed: int | None = None, confidence: float = 0.95, method: str = "robust"
    ) -> Ratings:
        """Elo ratings (mean 0) with intervals over the game pairs.

        method="robust" (the leaderboard's): `gamekit.stats.robust_ratings`, no intervals and a
        `too_few` reason below `MIN_PAIRS` pairs per pairing; reps and seed are not used.
        method="bootstrap": the plain percentile bootstrap over pairs with `reps` replicates (it
        covers less than its level with a handful of pairs; kept to show why)."""
        seed = self.config["seed"] if seed is None else seed
        if len(self.accepted()) < 2 or not self.records:
            raise ValueError(
                f"ratings need games between at least two accepted agents; this tournament has "
                f"{len(self.accepted())} accepted agent(s) and {len(self.records)} finished game(s)"
            )
        if method == "robust":
            return robust_ratings(self.accepted(), self.results(), units=self.units(), confidence=confidence)
        if method != "bootstrap":
            raise ValueError(f"method must be 'robust' or 'bootstrap', got {method!r}")
        return bootstrap_ratings(
            self.accepted(),
            self.results(),
            units=self.units(),
            reps=reps,
            seed=seed,
            confidence=confidence,
            expand=False,
        )

    def neighbours(self, ratings: Ratings | None = None, familywise: float = 0.05) -> list[dict[str, Any]]:
        """Each agent against the one just below it on the board: the difference of their
        ratings with its 95 % interval, and whether the order is settled with Holm's correction
        (all the "settled" statements together are wrong with probability at most `familywise`).
        Empty when the ratings have no intervals (the games are too few)."""
        ratings = self.ratings() if ratings is None else ratings
        if ratings.cov is None:
            return []
        order = sorted(ratings.names, key=lambda a: (-ratings[a], a))
        rows: list[dict[str, Any]] = []
        for up, down in zip(order, order[1:]):
            diff, low, high, p = ratings.difference(up, down)
            rows.append({"upper": up, "lower": down, "difference": diff, "low": low, "high": high, "p": p})
        m = len(rows)
        still = True  # Holm: the k-th smallest p-value against familywise / (m − k), until one fails
        for k, row in enumerate(sorted(rows, key=lambda r: r["p"])):
            still = still and row["p"] <= familywise / (m - k)
            row["settled"] = still
        return rows

    def standings(self, reps: int = 2000, seed: int | None = None, ratings: Ratings | None = None) -> list[Standing]:
        """The leaderboard, best rating first (ratings are NaN until two agents have played,
        intervals NaN while the games are too few for them)."""
        if ratings is None and len(self.accepted()) >= 2 and self.records:
            ratings = self.ratings(reps, seed)
        count: dict[str, Counter[str]] = {a: Counter() for a in self.accepted()}
        for r in self.records:
            for seat in (0, 1):
                c = count[r["agents"][seat]]
                c["games"] += 1
                c["wins" if r["score"][seat] == 1 else "draws" if r["score"][seat] == 0.5 else "losses"] += 1
                c["forfeits"] += r["forfeit"] == seat
        rows = []
        for a in self.accepted():
            rating = ratings[a] if ratings else math.nan
            low, high = ratings.interval(a) if ratings and ratings.low is not None else (math.nan, math.nan)
            c = count[a]
            counts = (c["games"], c["wins"], c["draws"], c["losses"], c["forfeits"])
            profiled = bool(ratings) and a in ratings.profiled  # type: ignore[union-attr]
            rows.append(Standing(a, self.names[a], *counts, rating, low, high, profiled))
        return sorted(rows, key=lambda s: (-s.rating if ratings else 0.0, s.id))

    # --- pairings ---
    def pairing(self, a: str, b: str) -> Pairing:
        """All games between a and b, from a's side, and their complete game pairs."""
        w = d = l = 0
        points: dict[str, list[float]] = {}
        for r in self.records:
            if set(r["agents"]) != {a, b} or a == b:
                continue
            s = r["score"][r["agents"].index(a)]
            w, d, l = w + (s == 1), d + (s == 0.5), l + (s == 0)
            points.setdefault(_pair_key(r), []).append(float(s))
        pent = [0] * 5
        for both in points.values():
            if len(both) == 2:
                pent[round(2 * sum(both))] += 1
        return Pairing(a, b, w, d, l, (pent[0], pent[1], pent[2], pent[3], pent[4]))

    def pairings(self) -> dict[tuple[str, str], Pairing]:
        """Every ordered pair of agents that met."""
        met = {tuple(r["agents"]) for r in self.records}
        out = {}
        for a, b in sorted(met | {(y, x) for x, y in met}):
            out[(a, b)] = self.pairing(a, b)
        return out

    def sequential(self, a: str, b: str, elo1: float = 50.0, alpha: float = 0.05, beta: float = 0.05) -> Question:
        """Is a really better than b? The generalized SPRT (`gamekit.stats.sprt`) of "a is `elo1`
        Elo stronger" against "they are equal", on their complete game pairs (pentanomial), or on
        single games (trinomial) if no pair is complete yet."""
        p = self.pairing(a, b)
        if not p.games:
            raise ValueError(f"{a} and {b} have not played each other; pairs that met: {sorted(self.pairings())}")
        if sum(p.pairs):
            test = sprt(pairs=p.pairs, elo0=0.0, elo1=elo1, alpha=alpha, beta=beta)
        else:
            test = sprt(games=(p.wins, p.draws, p.losses), elo0=0.0, elo1=elo1, alpha=alpha, beta=beta)
        return Question(a, b, p, test, elo1=elo1)

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
                "seconds": r.get(
                    "failed_after"
                ),  # how long the failing move (or start-up) took, by the referee's clock
            }
            for r in self.records
            if r["forfeit"] is not None
        ]

    def table(self, reps: int = 2000) -> str:
        """The leaderboard as plain text: ratings with their 95 % intervals (or the statement that
        the games are too few for them), then each two neighbours' difference with its interval."""
        ratings = self.ratings(reps) if len(self.accepted()) >= 2 and self.records else None
        rows = self.standings(ratings=ratings)
        agent, interval_head = pgettext("column heading", "agent"), _("95% interval")
        score, forfeits = pgettext("column heading", "score"), pgettext("column heading", "forfeits")
        width = max([len(s.name) for s in rows] + [len(agent)])
        wide = max(5, len(score))  # the score column: as wide as its heading
        lines = [
            f"{'#':>2}  {agent:<{width}}  {'Elo':>6}  {interval_head:>15}  {_column('W'):>4} {_column('D'):>4} "
            f"{_column('L'):>4}  {score:>{wide}}  {forfeits}"
        ]
        for k, s in enumerate(rows, 1):
            interval = f"[{s.low:>6.0f}, {s.high:>6.0f}]" if math.isfinite(s.low) else f"{'—':>16}"
            mark = "*" if s.profiled else "†" if s.one_sided and math.isfinite(s.low) else " "
            lines.append(
                f"{k:>2}  {s.name:<{width}}  {s.rating:>6.0f}  {interval}{mark} "
                f"{s.wins:>4} {s.draws:>4} {s.losses:>4}  {s.score:>{wide}.2f}  {s.forfeits}"
            )
        if any(s.profiled for s in rows):
            lines.append(
                "* "
                + _("every bootstrap replicate agreed: a likelihood interval, bound on the open side only by the prior")
            )
        if any(s.one_sided and not s.profiled and math.isfinite(s.low) for s in rows):
            lines.append(f"† {one_sided_note()}")
        if ratings is not None and ratings.too_few:
            # TRANSLATORS: {reason} says why the games are too few (in English)
            lines.append(_("no intervals: {reason}").format(reason=too_few_text(ratings.too_few)))
        elif ratings is not None and ratings.cov is not None:
            lines.append(_("intervals: {method}").format(method=interval_method()))
            nb = self.neighbours(ratings)
            # TRANSLATORS: English says "comparisons" for every count; German tells one from several
            lines.append(
                ngettext("{n} neighbour comparisons ({note}):", "{n} neighbour comparisons ({note}):", len(nb)).format(
                    n=len(nb), note=holm_note()
                )
            )
            for row in nb:
                a, b = self.names[row["upper"]], self.names[row["lower"]]
                lines.append(
                    f"  {a} − {b}: {row['difference']:.0f} [{row['low']:.0f}, {row['high']:.0f}]"
                    f"  {_order_word(row['settled'])}"
                )
        for e in self.rejected():
            lines.append(_("rejected: {id}: {reason}").format(id=e.id, reason=e.reason_text))
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


def _column(letter: str) -> str:
    """The heading of the wins (W), draws (D) or losses (L) column, in the language in force."""
    if letter == "W":
        return pgettext("column heading: wins", "W")
    if letter == "D":
        return pgettext("column heading: draws", "D")
    return pgettext("column heading: losses", "L")


def _pair_key(record: dict[str, Any]) -> str:
    """The game pair a record belongs to: its id without the seat order ("a~b~3~1" -> "a~b~3")."""
    return str(record["id"]).rsplit("~", 1)[0]
