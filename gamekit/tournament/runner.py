"""Running a class tournament: enter submissions, validate them, play the schedule, resume.

`Tournament` ties the parts together. Its set-up (game, entrants, starts, seed, format, limits)
is stored in the SQLite file when the tournament is created, and so are the entrants' sources:
`Tournament.open(db)` continues a stopped run with exactly the same inputs, even if the files
changed since. `validate` runs every new submission in the sandbox against itself and against
a random player; a submission that fails is listed as rejected, with the reason, and does not
play. `run` plays every scheduled game that is not stored yet — on this machine's cores (a
pool of threads, each refereeing one game; the agents are processes) or, with
`scheduler="tcp://HOST:8786"`, on a Dask cluster — and stores each game as it finishes.

An entrant's status and reason are English data in the database; a student reads them in the
language in force through `Entrant.status_text` and `Entrant.reason_text` (`rejection_text`).
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Executor, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ..i18n import N_, _, pgettext
from ..sandbox import clean_text, require_bwrap
from ..sandbox.outcomes import reason_text, reworded
from ..sandbox.zygote import close_jails
from .games import GameRef, open_rules, resolve_game
from .house import HOUSE_RANDOM
from .referee import DETAILS, GameSpec, check_source, detail_text, play_game_spec
from .sandbox import Limits
from .schedule import FORMATS, check_opening, derived_seed, schedule
from .store import Store

RANDOM_ID = "house-random"


@dataclass(frozen=True)
class Entrant:
    """A submission: its id (the file's stem), display name, file, source and its validation."""

    id: str
    path: str
    source: str
    name: str = ""
    status: str = "new"  # new | accepted | rejected
    reason: str = ""

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.source.encode()).hexdigest()

    @property
    def status_text(self) -> str:
        """The status as a student reads it, in the language in force (`status` stays the English word)."""
        return status_text(self.status)

    @property
    def reason_text(self) -> str:
        """The reason (why rejected, or a warning) as a student reads it, in the language in force."""
        return rejection_text(self.reason)

    def row(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "path": self.path,
            "sha256": self.sha256,
            "source": self.source,
            "status": self.status,
            "reason": self.reason,
        }


def submissions(paths: Iterable[str | Path]) -> list[Path]:
    """The submission files: each path is a .py file or a folder whose .py files are taken (sorted)."""
    files: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            files.extend(sorted(f for f in p.glob("*.py") if not f.name.startswith("_")))
        elif p.suffix == ".py" and p.is_file():
            files.append(p)
        else:
            raise FileNotFoundError(f"{p} is neither a .py file nor a folder of them")
    ids = [entrant_id(f) for f in files]
    twice = sorted({i for i in ids if ids.count(i) > 1})
    if twice:
        raise ValueError(f"two submissions share a file name (the agent's id): {', '.join(twice)}")
    bad = [i for i in ids if "~" in i or i == RANDOM_ID]
    if bad:
        raise ValueError(f"file names must not contain '~' nor be {RANDOM_ID!r}: {', '.join(bad)}")
    return files


def entrant_id(path: Path) -> str:
    """A submission's id: its file's stem as clean text (a name that is not valid UTF-8 gets U+FFFD)."""
    return clean_text(path.stem, 100, one_line=True)


def _entrant(path: Path) -> Entrant:
    source = path.read_text(encoding="utf-8", errors="replace")
    return Entrant(id=entrant_id(path), path=clean_text(str(path), 4000, one_line=True), source=source)


class Tournament:
    """A class tournament stored in one SQLite file (see the module docstring)."""

    def __init__(
        self,
        db: str | Path,
        agents: Sequence[str | Path] = (),
        game: str = "tictactoe",
        params: dict[str, Any] | None = None,
        starts: int = 1,
        seed: int = 0,
        format: str = "round-robin",
        opening: int = 0,
        gauntlet: Sequence[str | Path] = (),
        limits: Limits | None = None,
        sandbox: bool = True,
        trusted_code: bool = False,
    ):
        self.trusted_code = trusted_code  # never stored: each run decides again whether to trust the files
        self.store = Store(db)
        stored = self.store.get_meta("config")
        if stored is not None and (agents or gauntlet):
            raise ValueError(
                f"{db} already holds a tournament; open it with Tournament.open({str(db)!r}) to resume, "
                "or choose a new file"
            )
        if stored is None:
            ref = resolve_game(game, params)  # a student's game is read here, never run
            if format not in FORMATS:
                raise ValueError(f"format must be one of {', '.join(FORMATS)}, got {format!r}")
            if isinstance(starts, bool) or not isinstance(starts, int) or starts < 1:
                raise ValueError(f"starts must be a whole number >= 1, got {starts!r}")
            if isinstance(seed, bool) or not isinstance(seed, int):
                raise TypeError(f"seed must be a whole number, got {seed!r}")
            check_opening(opening)
            if ref.trusted:  # refuses unknown parameters before anything is stored (a student's game: at the run)
                open_rules(ref).starts(1, seed, opening)
            entrants = [_entrant(p) for p in submissions([*agents, *gauntlet])]
            if not entrants:
                raise ValueError("no submissions given: name .py files or folders of them")
            gauntlet_ids = [entrant_id(p) for p in submissions(gauntlet)] if gauntlet else []
            config = {
                "game": ref.name,
                "target": ref.target,
                "game_source": ref.source,
                "params": ref.params,
                "starts": starts,
                "opening": opening,
                "seed": seed,
                "format": format,
                "gauntlet": gauntlet_ids,
                "limits": (limits or Limits()).as_dict(),
                "sandbox": sandbox,
            }
            for e in entrants:
                self.store.put_agent(e.row())
            self.store.set_meta("config", config)
        self.config: dict[str, Any] = self.store.get_meta("config")
        cfg = self.config
        if "target" in cfg:
            self.game = GameRef(cfg["game"], cfg["target"], dict(cfg["params"]), cfg.get("game_source"))
        else:  # a tournament stored before games were named by class: a short name and its parameters
            self.game = resolve_game(cfg["game"], cfg["params"])
        self._start_cache: dict[int, list[Any]] = {}
        self.limits = Limits(**self.config["limits"])

    @classmethod
    def open(cls, db: str | Path, trusted_code: bool = False) -> Tournament:
        """The tournament stored in `db`, to resume or to report on."""
        if not Path(db).exists():
            raise FileNotFoundError(f"no tournament database at {db}")
        t = cls(db, trusted_code=trusted_code)
        return t

    def require_sandbox(self) -> None:
        """Refuse to run students' code without the operating system's sandbox (`SandboxUnavailable`).

        The tournament's agents run under bubblewrap; where `bwrap` is missing, only the teacher's
        explicit `trusted_code=True` (`--trusted-code`) runs them without it.
        """
        if self.config["sandbox"] and not self.trusted_code:
            require_bwrap()

    # --- entrants ---
    def entrants(self) -> list[Entrant]:
        return [
            Entrant(r["id"], r["path"], r["source"], r["name"], r["status"], r["reason"]) for r in self.store.agents()
        ]

    def accepted(self) -> list[str]:
        return [e.id for e in self.entrants() if e.status == "accepted"]

    def _spec(
        self, gid: str, first: tuple[str, str], second: tuple[str, str], start: Any, seeds: tuple[int, int]
    ) -> GameSpec:
        return GameSpec(
            id=gid,
            game=self.game.name,
            target=self.game.target,
            game_source=self.game.source,
            params=self.game.params,
            start=start,
            agents=(first[0], second[0]),
            sources=(first[1], second[1]),
            seeds=seeds,
            limits=self.config["limits"],
            sandbox=self.config["sandbox"],
            trusted_code=self.trusted_code,
        )

    def validation_games(self, entrant: Entrant) -> list[GameSpec]:
        """The games a submission must finish cleanly to enter: against itself (twice, to see whether the
        same seeds give the same moves), and against random from both seats."""
        start = self._starts(1)[0]
        me, rnd = (entrant.id, entrant.source), (RANDOM_ID, HOUSE_RANDOM)
        seed = self.config["seed"]
        return [
            self._spec(
                f"validate~{entrant.id}~self",
                me,
                me,
                start,
                (derived_seed(seed, entrant.id, 0), derived_seed(seed, entrant.id, 1)),
            ),
            self._spec(  # the same game again: an agent whose moves differ uses unseeded randomness
                f"validate~{entrant.id}~self-again",
                me,
                me,
                start,
                (derived_seed(seed, entrant.id, 0), derived_seed(seed, entrant.id, 1)),
            ),
            self._spec(
                f"validate~{entrant.id}~0",
                me,
                rnd,
                start,
                (derived_seed(seed, entrant.id, 2), derived_seed(seed, entrant.id, 3)),
            ),
            self._spec(
                f"validate~{entrant.id}~1",
                rnd,
                me,
                start,
                (derived_seed(seed, entrant.id, 4), derived_seed(seed, entrant.id, 5)),
            ),
        ]

    def validate(
        self, workers: int | None = None, scheduler: str | None = None, tls: str | Path | None = None
    ) -> list[Entrant]:
        """Validate every submission not validated yet; returns all entrants with their status."""
        todo = {e.id: e for e in self.entrants() if e.status == "new"}
        specs: list[GameSpec] = []
        for e in list(todo.values()):
            problem = check_source(e.source, e.path)
            if problem:
                problem = clean_text(problem, 4000)
                self.store.put_agent(replace(e, status="rejected", reason=problem).row())
                del todo[e.id]
            else:
                specs.extend(self.validation_games(e))
        verdicts: dict[str, list[dict[str, Any]]] = {i: [] for i in todo}
        for record in execute(specs, workers, scheduler, tls):
            verdicts[record["id"].split("~")[1]].append(record)
        for agent_id, records in verdicts.items():
            e = todo[agent_id]
            name, reason = "", ""
            for r in sorted(records, key=lambda r: r["id"]):
                seats = [s for s in (0, 1) if r["agents"][s] == agent_id]
                name = name or next((r["names"][s] for s in seats if r["names"][s]), "")
                if r["forfeit"] in seats and not reason:
                    lost = AGAINST_ITSELF if "~self" in r["id"] else AGAINST_RANDOM
                    reason = lost.format(seat=r["forfeit"], reason=r["reason"], detail=r["detail"])
            status = "rejected" if reason else "accepted"
            if not reason and unseeded(records):
                reason = UNSEEDED_WARNING
            name, reason = clean_text(name, 40, one_line=True), clean_text(reason, 4000)
            self.store.put_agent(replace(e, name=name or e.id, status=status, reason=reason).row())
        return self.entrants()

    # --- the schedule ---
    def _starts(self, n: int) -> list[Any]:
        if n not in self._start_cache:  # the config never changes: n alone decides the starts
            rules = open_rules(self.game, jailed=not self.trusted_code, seconds=self.limits.game_seconds)
            try:
                self._start_cache[n] = rules.starts(n, self.config["seed"], self.config.get("opening", 0))
            finally:
                rules.close()
        return self._start_cache[n]

    def games(self) -> list[GameSpec]:
        """Every game of the tournament between accepted entrants, in schedule order."""
        sources = {e.id: e.source for e in self.entrants()}
        accepted = self.accepted()
        gauntlet = [g for g in self.config["gauntlet"] if g in accepted]
        starts = self._starts(self.config["starts"])
        slots = schedule(accepted, starts, self.config["seed"], self.config["format"], gauntlet)
        return [
            self._spec(s.id, (s.first, sources[s.first]), (s.second, sources[s.second]), s.start, s.seeds)
            for s in slots
        ]

    def remaining(self) -> list[GameSpec]:
        done = self.store.finished()
        return [g for g in self.games() if g.id not in done]

    def run(
        self,
        workers: int | None = None,
        scheduler: str | None = None,
        validate: bool = True,
        limit: int | None = None,
        progress: Callable[[dict[str, Any]], None] | None = None,
        tls: str | Path | None = None,
    ) -> int:
        """Play (up to `limit`) games not stored yet; each is stored as it finishes. Returns how many were played.

        validate=False lets unvalidated submissions play (for testing the sandbox itself).
        """
        self.require_sandbox()
        if validate:
            self.validate(workers, scheduler, tls)
        else:
            for e in self.entrants():
                if e.status == "new":
                    self.store.put_agent(replace(e, name=e.id, status="accepted").row())
        todo = self.remaining()
        if limit is not None:
            todo = todo[:limit]
        played = 0
        for record in execute(todo, workers, scheduler, tls):
            if self.store.put_game(record):
                played += 1
            if progress is not None:
                progress(record)
        return played

    def records(self) -> list[dict[str, Any]]:
        return self.store.records()

    def close(self) -> None:
        self.store.close()


UNSEEDED_WARNING = N_(
    "warning: the same game with the same seeds went differently twice, so its games will differ between runs: "
    "it uses randomness not seeded from the game (random.Random() or numpy.random.default_rng() without a seed, "
    "the clock, os.urandom); use the module `random` or `numpy.random` itself: both are seeded for every game"
)
#: Why a submission was rejected: the validation game it lost (English data, shown through `rejection_text`).
# TRANSLATORS: {seat} is 0 (moves first) or 1; {reason} is the forfeit's reason and {detail} what happened
AGAINST_ITSELF = N_("validation game against itself (seat {seat}): {reason}: {detail}")
# TRANSLATORS: {seat} is 0 (moves first) or 1; {reason} is the forfeit's reason and {detail} what happened
AGAINST_RANDOM = N_("validation game against random (seat {seat}): {reason}: {detail}")


def status_text(status: str) -> str:
    """An entrant's status (new, accepted, rejected) in the language in force; another word as it is."""
    words = {
        "new": pgettext("a submission's status", "new"),
        "accepted": pgettext("a submission's status", "accepted"),
        "rejected": pgettext("a submission's status", "rejected"),
    }
    return words.get(status, status)


def rejection_text(reason: str) -> str:
    """An entrant's stored reason (the validation game it lost, a syntax error, the warning about unseeded
    randomness) as a student reads it, in the language in force; a reason of another making as it is."""
    if reason == UNSEEDED_WARNING:
        return _(UNSEEDED_WARNING)
    return reworded(reason, (AGAINST_ITSELF, AGAINST_RANDOM, *DETAILS), reason=reason_text, detail=detail_text)


def unseeded(records: list[dict[str, Any]]) -> bool:
    """Did the two runs of an agent's game against itself (same seeds) differ in their moves?"""
    by_id = {r["id"].rsplit("~", 1)[1]: r for r in records}
    first, again = by_id.get("self"), by_id.get("self-again")
    if first is None or again is None or first["forfeit"] is not None or again["forfeit"] is not None:
        return False
    return bool(first["moves"] != again["moves"])


def validate_agent(
    path: str | Path,
    game: str = "tictactoe",
    params: dict[str, Any] | None = None,
    limits: Limits | None = None,
    seed: int = 0,
    trusted_code: bool = False,
) -> Entrant:
    """Check one submission as the tournament will: load it in the sandbox and play its validation games.

    Returns the entrant with `status` ("accepted" or "rejected") and, if rejected, the `reason`.
    This is what a student runs before handing in (the same check the teacher's run makes).
    """
    with tempfile.TemporaryDirectory() as tmp:
        t = Tournament(
            Path(tmp) / "validate.sqlite", [path], game, params, seed=seed, limits=limits, trusted_code=trusted_code
        )
        try:
            return t.validate(workers=2)[0]
        finally:
            t.close()


def default_workers() -> int:
    return max(1, os.cpu_count() or 1)


def execute(
    specs: Sequence[GameSpec],
    workers: int | None = None,
    scheduler: str | None = None,
    tls: str | Path | None = None,
) -> Iterator[dict[str, Any]]:
    """Play `specs` and yield each game's record as soon as it is finished (any order).

    Locally: a thread pool of `workers` referees (default: one per core); each game's agents are
    processes, so the games really run in parallel. With `scheduler` ("tls://HOST:PORT") and `tls`
    (the folder of `python -m gamekit.tournament certs`): the games are submitted to that Dask
    cluster with TLS certificates (dask.distributed is imported only then); a scheduler without
    TLS is refused (see `gamekit.tournament.cluster`).
    """
    if not specs:
        return
    if scheduler:
        yield from _execute_dask(specs, scheduler, tls)
        return
    n = workers or default_workers()
    try:
        if n == 1:
            for spec in specs:
                yield play_game_spec(spec)
            return
        with ThreadPoolExecutor(n, thread_name_prefix="referee") as pool:
            yield from _as_finished(pool, specs, n)
    finally:
        close_jails()  # nothing of the agents outlives the run: their namespaces end here


def _as_finished(pool: Executor, specs: Sequence[GameSpec], n: int) -> Iterator[dict[str, Any]]:
    """Keep at most 2n games submitted; yield records as they finish; cancel the rest on an error or stop."""
    pending: set[Future[dict[str, Any]]] = set()
    queue = iter(specs)
    try:
        for spec in queue:
            pending.add(pool.submit(play_game_spec, spec))
            if len(pending) >= 2 * n:
                break
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                nxt = next(queue, None)
                if nxt is not None:
                    pending.add(pool.submit(play_game_spec, nxt))
                yield future.result()
    finally:
        for future in pending:
            future.cancel()


def _execute_dask(specs: Sequence[GameSpec], scheduler: str, tls: str | Path | None) -> Iterator[dict[str, Any]]:
    if not scheduler.startswith("tls://") or tls is None:
        raise ValueError(
            f"refusing the Dask scheduler {scheduler!r}: a scheduler without TLS runs code for anyone who reaches "
            "it; make certificates with `python -m gamekit.tournament certs CERTS/`, start the scheduler and "
            "workers as it prints, and pass --scheduler tls://HOST:8786 --tls CERTS/"
        )
    try:
        from dask.distributed import as_completed
    except ImportError as exc:  # pragma: no cover - depends on the installation
        raise ImportError("running on a cluster needs dask.distributed: pip install 'gamekit-course[cluster]'") from exc
    from .cluster import connect, parse_record, play_game_json

    dicts = [s.as_dict() for s in specs]
    by_key: dict[str, dict[str, Any]] = {}
    with connect(scheduler, tls) as client:
        futures = client.map(play_game_json, dicts, pure=False)
        for future, spec in zip(futures, dicts):
            by_key[future.key] = spec
        try:
            for future in as_completed(futures):
                yield parse_record(future.result(), by_key[future.key])
        finally:
            client.cancel(futures)
