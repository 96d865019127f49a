"""`python -m gamekit.tournament`: validate submissions, run, resume and report a class tournament.

    python -m gamekit.tournament validate submissions/ --game tictactoe
    python -m gamekit.tournament validate submissions/ --game my_game.py:MyGame   (a student's own game)
    python -m gamekit.tournament run submissions/ --game tictactoe --db class.sqlite --starts 4 --seed 1
    python -m gamekit.tournament resume --db class.sqlite
    python -m gamekit.tournament report --db class.sqlite --out leaderboard/

`run` and `resume` play on this machine's cores, or on a Dask cluster with TLS certificates
(`certs CERTS/` makes them and prints how to start the scheduler and workers; then
`--scheduler tls://HOST:8786 --tls CERTS/`). A stopped run (Ctrl-C, a crash) continues with `resume`.
"""

from __future__ import annotations

import argparse
import contextlib
import signal
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..sandbox import SandboxUnavailable, require_bwrap
from ..sandbox import archive as moodle
from ..sandbox.importpath import drop_current_folder, refuse_on_import_path, shadowed_module
from .games import FORMS, GameFailure
from .html import write_report
from .results import Results
from .runner import Tournament, submissions
from .sandbox import Limits
from .schedule import FORMATS


def _param(text: str) -> tuple[str, Any]:
    """KEY=VALUE with VALUE as JSON (numbers, lists) or, failing that, text."""
    import json

    if "=" not in text:
        raise argparse.ArgumentTypeError(f"a game parameter is KEY=VALUE, e.g. piles=[3,5,7]; got {text!r}")
    key, value = text.split("=", 1)
    try:
        return key, json.loads(value)
    except ValueError:
        return key, value


def _limits(args: argparse.Namespace) -> Limits:
    return Limits(
        move_seconds=args.move_time,
        bank_seconds=args.bank,
        startup_seconds=args.startup,
        memory_mb=args.memory_mb,
        output_kb=args.output_kb,
        game_seconds=args.game_time,
    )


def _add_setup(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "agents",
        nargs="+",
        help="submission files (.py), folders of them, or Moodle's 'Download all submissions' (zip or folder)",
    )
    p.add_argument(
        "--game",
        default="tictactoe",
        help=f"the game: {FORMS} (default: tictactoe). A game outside gamekit runs in a sandbox of its own",
    )
    p.add_argument("--param", action="append", type=_param, default=[], help="a game parameter KEY=VALUE (JSON)")
    p.add_argument("--seed", type=int, default=0, help="the tournament's seed (default 0)")
    p.add_argument("--move-time", type=float, default=1.0, help="seconds per move (default 1)")
    p.add_argument("--bank", type=float, default=2.0, help="extra seconds per game for slow moves (default 2)")
    p.add_argument(
        "--game-time", type=float, default=10.0, help="seconds a student's game may take per request (default 10)"
    )
    p.add_argument("--startup", type=float, default=5.0, help="seconds to load an agent (default 5)")
    p.add_argument("--memory-mb", type=float, default=256.0, help="memory an agent may allocate (default 256)")
    p.add_argument("--output-kb", type=int, default=256, help="largest output or file an agent may write")


def _add_trust(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--trusted-code",
        action="store_true",
        help="run the agents WITHOUT the operating system's sandbox (bubblewrap); only for files you trust",
    )


SHOW_FILES_HELP = "also show the submission files' names on the page (default: display names only)"


def _add_running(p: argparse.ArgumentParser) -> None:
    _add_trust(p)
    p.add_argument("--workers", type=int, default=None, help="games played at once (default: one per core)")
    p.add_argument(
        "--scheduler", default=None, help="a Dask scheduler with TLS, tls://HOST:8786 (default: this machine)"
    )
    p.add_argument("--tls", default=None, help="the certificates folder of `certs` (needed with --scheduler)")
    p.add_argument("--report", default=None, help="write the leaderboard to this folder when done")
    p.add_argument("--show-files", action="store_true", help=SHOW_FILES_HELP)


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m gamekit.tournament", description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    v = sub.add_parser("validate", help="check submissions: load each and play its validation games")
    _add_setup(v)
    v.add_argument("--workers", type=int, default=None)
    _add_trust(v)
    r = sub.add_parser("run", help="create a tournament in --db and play it")
    _add_setup(r)
    r.add_argument("--db", required=True, help="the tournament's SQLite file (must not exist yet)")
    r.add_argument("--format", default="round-robin", choices=FORMATS)
    r.add_argument("--gauntlet", nargs="*", default=[], help="the fixed opponents of a gauntlet (files)")
    r.add_argument("--opening", type=int, default=0, help="random moves played before the agents take over")
    r.add_argument("--starts", type=int, default=2, help="start positions per pairing, each played twice (default 2)")
    _add_running(r)
    s = sub.add_parser("resume", help="play the games of --db that are not stored yet")
    s.add_argument("--db", required=True)
    _add_running(s)
    c = sub.add_parser("certs", help="make TLS certificates for a Dask cluster (scheduler, workers, this client)")
    c.add_argument("folder", help="where to write ca.pem, scheduler.pem, worker.pem, client.pem and their keys")
    c.add_argument("--host", action="append", default=None, help="the scheduler's name or IP (repeatable)")
    c.add_argument("--days", type=int, default=365, help="how long the certificates are valid (default 365)")
    p = sub.add_parser("report", help="write the leaderboard (HTML), ratings and game records")
    p.add_argument("--db", required=True)
    p.add_argument("--out", required=True, help="folder for leaderboard.html, ratings.json, games/")
    p.add_argument("--reps", type=int, default=2000, help="bootstrap replicates over game pairs (default 2000)")
    p.add_argument("--show-files", action="store_true", help=SHOW_FILES_HELP)
    return ap


def _progress(total: int) -> Any:
    done = [0]

    def show(record: dict[str, Any]) -> None:
        done[0] += 1
        note = (
            f" forfeit by {record['agents'][record['forfeit']]}: {record['reason']}"
            if record["forfeit"] is not None
            else ""
        )
        print(f"[{done[0]}/{total}] {record['id']}{note}", flush=True)

    return show


def _play(t: Tournament, args: argparse.Namespace) -> int:
    t.validate(args.workers, args.scheduler, args.tls)
    for e in t.entrants():
        print(f"{e.status:>8}  {e.id}  {e.name}" + (f"  — {e.reason}" if e.reason else ""))
    todo = len(t.remaining())
    print(f"{todo} games to play", flush=True)
    t.run(args.workers, args.scheduler, progress=_progress(todo), tls=args.tls)
    results = Results(t)
    print(results.table())
    if args.report:
        print("leaderboard:", write_report(results, args.report, show_files=args.show_files))
    return 0


def _sidecars(db: Path) -> list[Path]:
    """The database file and SQLite's write-ahead log and journal beside it."""
    return [db, *(db.with_name(db.name + suffix) for suffix in ("-wal", "-shm", "-journal"))]


def _stored_games(db: Path) -> int | None:
    """How many games `db` holds; None if it holds no tournament set-up (or is no tournament file)."""
    import sqlite3

    try:
        with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as con:
            if con.execute("SELECT 1 FROM meta WHERE key = 'config'").fetchone() is None:
                return None
            return int(con.execute("SELECT COUNT(*) FROM games").fetchone()[0])
    except sqlite3.Error:
        return None


def _existing_db_advice(db: Path) -> str:
    """What to do when `run` is given a database that exists already."""
    games = _stored_games(db)
    if games is None:
        return (
            f"{db} exists but holds no tournament (a run that stopped before it was set up, or another file): "
            f"delete it ({db}) and run again, or choose a new --db file"
        )
    if games == 0:
        return (
            f"{db} holds a tournament set up earlier with no game played yet: `resume --db {db}` plays it as it was "
            f"set up; to start over with these options, delete {db} first (or choose a new --db file)"
        )
    return f"{db} exists with {games} games played: `resume --db {db}` continues it; or choose a new --db file"


def _discard_unplayed(db: Path, t: Tournament | None) -> None:
    """Delete the database of a `run` that failed before any game was stored (nothing is lost)."""
    if t is not None:
        t.close()
    played = _stored_games(db)
    if not played:
        for path in _sidecars(db):
            path.unlink(missing_ok=True)


def _terminated(signum: int, frame: object) -> None:
    raise KeyboardInterrupt  # SIGTERM ends a run as Ctrl-C does: what is stored stays, resumable


def _stopped(db: Path, t: Tournament | None) -> int:
    """A run or resume stopped by Ctrl-C or SIGTERM: keep what is set up (even with no game played:
    `resume` plays it), drop a half-made file, and say what was kept and how to go on."""
    if _stored_games(db) is None:
        _discard_unplayed(db, t)
        print(f"stopped before the tournament was set up: nothing was kept; start again with `run ... --db {db}`",
              file=sys.stderr)  # fmt: skip
        return 130
    if t is not None:
        t.close()
    print(f"stopped: {_stored_games(db)} game(s) kept in {db}; continue with: python -m gamekit.tournament resume "
          f"--db {db}", file=sys.stderr)  # fmt: skip
    return 130


def _refuse_unsafe_submissions(paths: Sequence[str]) -> None:
    """ValueError (before anything runs) for a submissions folder on the import path, or a
    submission named like a module of the teacher's Python (see `gamekit.sandbox.importpath`)."""
    refuse_on_import_path(paths)
    shadows = [(f, shadowed_module(f.stem)) for f in submissions(paths)]
    named = [f"{f.name} ({what})" for f, what in shadows if what]
    if named:
        raise ValueError(
            "a submission must not be named like a module the teacher's Python has: its file would run in that "
            f"module's place wherever its folder were searched; rename it (e.g. 'agent_<name>.py'): {', '.join(named)}"
        )


#: Largest agent file taken from Moodle's archive (bytes).
AGENT_BYTES = 1_000_000


def _from_moodle(paths: Sequence[str], into: Path) -> list[str]:
    """`paths` with each Moodle archive ("Download all submissions": the zip, or the folder it
    unpacks to) replaced by a folder `into/...` of `<participant id>.py`: each participant's one
    `.py` upload (30 uploads all named `agent.py` become 30 entrants), read by the rules of
    `gamekit.sandbox.archive` (the same participant ids as grading). A participant with a second
    `.py` file or none is not entered; every such note is printed."""
    out = []
    for path in paths:
        if Path(path).suffix == ".py" or not moodle.is_moodle_layout(path):
            out.append(path)
            continue
        uploads = moodle.moodle_uploads(path, ".py", AGENT_BYTES)
        folder = into / f"moodle-{len(out)}"
        folder.mkdir()
        for pid in sorted(uploads.participants, key=int):
            files = uploads.files.get(pid, [])
            if len(files) == 1:
                (folder / f"{pid}.py").write_bytes(files[0][1])
            elif not files:
                uploads.note(pid, "no .py file handed in: not entered")
            else:
                names = ", ".join(name for name, _ in files)
                uploads.note(pid, f"{len(files)} .py files handed in ({names}): not entered; hand in one file")
        for who, notes in sorted(uploads.problems.items()):
            for note in notes:
                print(f"{'participant ' + who if who else 'archive'}: {note}", file=sys.stderr)
        out.append(str(folder))
    return out


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        with tempfile.TemporaryDirectory(prefix="gamekit-moodle-agents-") as tmp:
            if args.command in ("validate", "run"):
                args.agents = _from_moodle(args.agents, Path(tmp))
                _refuse_unsafe_submissions([*args.agents, *getattr(args, "gauntlet", [])])
            return _main(args)
    except SandboxUnavailable as exc:
        print(f"refused: {exc}", file=sys.stderr)
        return 2
    except FileNotFoundError as exc:  # a submission or database path that is not there
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except ValueError as exc:  # a bad option (a scheduler without TLS, missing certificates): said before any game
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except GameFailure as exc:  # the game's own code failed: no agent is to blame; what is stored stays
        print(f"the game failed: {exc}", file=sys.stderr)
        return 3


def _main(args: argparse.Namespace) -> int:
    if args.command == "certs":
        from .cluster import make_certificates, start_commands

        hosts = args.host or ["127.0.0.1", "localhost"]
        for path in make_certificates(args.folder, hosts, args.days).values():
            print(path)
        print("keep ca-key.pem with you; a worker needs ca.pem, worker.pem, worker-key.pem and nothing else.")
        for line in start_commands(args.folder, hosts[0]):
            print("  " + line)
        print(f"then: python -m gamekit.tournament run ... --scheduler tls://{hosts[0]}:8786 --tls {args.folder}")
        return 0
    if getattr(args, "scheduler", None) and (not args.scheduler.startswith("tls://") or not args.tls):
        raise ValueError(
            "a Dask scheduler must use TLS: --scheduler tls://HOST:8786 --tls CERTS/ "
            "(make CERTS/ with `python -m gamekit.tournament certs CERTS/`)"
        )
    if args.command in ("validate", "run", "resume") and not args.trusted_code:
        require_bwrap()  # before anything is created: no database is left behind by a refusal
    if args.command == "validate":
        with tempfile.TemporaryDirectory() as tmp:
            t = Tournament(
                Path(tmp) / "validate.sqlite",
                args.agents,
                game=args.game,
                params=dict(args.param),
                seed=args.seed,
                limits=_limits(args),
                trusted_code=args.trusted_code,
            )
            t.require_sandbox()
            entrants = t.validate(args.workers)
            t.close()
        for e in entrants:
            print(f"{e.status:>8}  {e.id}  {e.name}" + (f"  — {e.reason}" if e.reason else ""))
        return 0 if all(e.status == "accepted" for e in entrants) else 1
    if args.command == "run":
        db = Path(args.db)
        if db.exists():
            print(_existing_db_advice(db), file=sys.stderr)
            return 2
        created: Tournament | None = None
        signal.signal(signal.SIGTERM, _terminated)
        try:
            created = t = Tournament(
                args.db,
                args.agents,
                game=args.game,
                params=dict(args.param),
                starts=args.starts,
                seed=args.seed,
                format=args.format,
                opening=args.opening,
                gauntlet=args.gauntlet,
                limits=_limits(args),
                trusted_code=args.trusted_code,
            )
            t.require_sandbox()
            if args.report:  # remembered, so that `resume` writes the report the run was asked for
                t.store.set_meta("report", str(Path(args.report).resolve()))
            return _play(t, args)
        except KeyboardInterrupt:
            return _stopped(db, created)
        except BaseException:
            _discard_unplayed(db, created)  # a run that fails before its first game leaves no file behind
            raise
    if args.command == "resume":
        if Path(args.db).exists() and _stored_games(Path(args.db)) is None:
            raise ValueError(
                f"{args.db} holds no tournament (a run that stopped before it was set up): "
                f"delete {args.db} and start again with `run ... --db {args.db}`"
            )
        signal.signal(signal.SIGTERM, _terminated)
        t = Tournament.open(args.db, trusted_code=args.trusted_code)
        try:
            t.require_sandbox()
            if not args.report:
                args.report = t.store.get_meta("report")
            return _play(t, args)
        except KeyboardInterrupt:
            return _stopped(Path(args.db), t)
    results = Results(args.db)
    print(results.table())
    print("leaderboard:", write_report(results, args.out, args.reps, show_files=args.show_files))
    return 0


if __name__ == "__main__":
    drop_current_folder()  # done by the package's first lines already; here so that it is seen
    sys.exit(main())
