"""Ctrl-C and SIGTERM end `python -m gamekit.tournament run` cleanly (issue 37): no traceback, the
number of games kept and the exact `resume` command; a tournament stopped before its first game
finished is kept too, and `resume` plays it to the end.

Ctrl-C comes at three moments, each hit on purpose, not by luck:

* before the first game: the tournament is set up and its submissions are being validated (the
  slow mover's validation games take seconds); after the stop no entrant is validated yet;
* mid-game: n >= 1 games are stored and the agents' processes of game n+1 are alive (a game's
  agents are the grandchildren of the run: its process manager forks them and reaps them at the
  game's end); the game in play is not kept;
* between games: the run's own progress report of the second game sends Ctrl-C to its process
  group (a one-line wrapper around the CLI's `main`): the second game is stored, the third not begun.

Each stopped run is continued with the command the message prints, run as printed, and the
database then holds the very games (ids, seats, moves, states, winners, forfeits, names) of an
uninterrupted run with the same seed; only the timings may differ.
"""

from __future__ import annotations

import os
import re
import shlex
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from gamekit.sandbox import SandboxUnavailable, require_bwrap

ROOT = Path(__file__).resolve().parent.parent
AGENTS = Path(__file__).parent / "tournament_agents"

pytestmark = pytest.mark.slow  # real tournaments in subprocesses (seconds each)

SLOW = '''"""Waits before each move, so that a game lasts long enough to be stopped in the middle."""

import random
import time

NAME = "slow mover"


def agent(game, state):
    time.sleep(0.12)
    return random.choice(list(game.legal_moves(state)))
'''

#: The tournament of the three moments: the slow mover against the first-free player, two starts
#: each played from both seats (4 games of about 1 s; validation about 2 s).
SETUP = ["--game", "tictactoe", "--starts", "2", "--opening", "2", "--seed", "2026", "--trusted-code"]
TOTAL = 4
#: What may differ between two runs of the same game: how long things took.
TIMINGS = {"times", "seconds", "failed_after"}
#: Ctrl-C from inside the run, right after its progress report of the STOP-th stored game.
BETWEEN_GAMES = """
import os, signal, sys
from gamekit.tournament import __main__ as cli

STOP, report = int(sys.argv[1]), cli._progress


def progress(total):
    show, seen = report(total), [0]

    def shown(record):
        show(record)
        seen[0] += 1
        if seen[0] == STOP:
            os.killpg(0, signal.SIGINT)  # as a terminal's Ctrl-C: to the run's whole process group

    return shown


cli._progress = progress
sys.exit(cli.main(sys.argv[2:]))
"""
STOPPED = re.compile(r"stopped: (\d+) game\(s\) kept in (\S+); continue with: (python -m gamekit\.tournament .*)$")


def _games(db: Path) -> int | None:
    """Games stored in `db`; None while its tournament is not set up."""
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as con:
            if con.execute("SELECT 1 FROM meta WHERE key = 'config'").fetchone() is None:
                return None
            return int(con.execute("SELECT COUNT(*) FROM games").fetchone()[0])
    except sqlite3.Error:
        return None


def _entrants(db: Path) -> list[tuple[str, str, str, str]]:
    """(id, status, name, reason) of every entrant."""
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as con:
        return con.execute("SELECT id, status, name, reason FROM agents ORDER BY id").fetchall()


def _records(db: Path) -> dict[str, dict[str, Any]]:
    """Every stored game's record by id, without its timings."""
    import json

    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as con:
        rows = con.execute("SELECT record FROM games ORDER BY id").fetchall()
    records = [json.loads(row[0]) for row in rows]
    return {r["id"]: {k: v for k, v in r.items() if k not in TIMINGS} for r in records}


def _command(db: Path, agents: list[str], workers: int) -> list[str]:
    return ["run", *agents, *SETUP, "--db", str(db), "--workers", str(workers)]


def _foreground_job(command: list[str]) -> subprocess.Popen:
    """`command` as a terminal's foreground job: its own process group, which Ctrl-C reaches whole,
    and Ctrl-C's default action (a shell starts a background job, say `pytest &`, with SIGINT
    ignored, and its children inherit that: they would not be stopped at all)."""
    return subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, preexec_fn=_default_ctrl_c)  # fmt: skip


def _default_ctrl_c() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _start(db: Path, agents: list[str], signal_after: int | None = None, workers: int = 1) -> subprocess.Popen:
    head = [sys.executable, "-m", "gamekit.tournament"]
    if signal_after is not None:
        head = [sys.executable, "-c", BETWEEN_GAMES, str(signal_after)]
    return _foreground_job([*head, *_command(db, agents, workers)])


def _wait_for(proc: subprocess.Popen, there: Callable[[], bool]) -> None:
    deadline = time.monotonic() + 300
    while not there():
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the tournament did not get there in time"
        time.sleep(0.02)


def _parents() -> dict[int, int]:
    """Every process's parent (from /proc)."""
    out = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            out[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    return out


def _game_on(pid: int) -> bool:
    """Is a game being played by the run `pid` (with --trusted-code)? Its agents' processes are alive:
    the children of its process manager (the zygote, the run's child), forked at a game's start and
    reaped at its end."""
    parents = _parents()
    managers = {p for p, parent in parents.items() if parent == pid}
    return any(parent in managers for parent in parents.values())


def _sandbox_here() -> bool:
    try:
        require_bwrap()
    except SandboxUnavailable:
        return False
    return True


def _stopped_and_resumed(proc: subprocess.Popen, db: Path) -> tuple[int, str]:
    """The stopped run's games kept (checked against its message); then the printed command, run as
    printed (so in the sandbox: trust is decided again on each run; with --trusted-code only where
    this machine has no sandbox). Returns the games kept and the run's output."""
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, (out, err)
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    [line] = [line for line in err.splitlines() if line.startswith("stopped")]
    found = STOPPED.match(line)
    assert found, line
    kept = _games(db)
    assert kept is not None and int(found[1]) == kept and found[2] == str(db), (line, kept)
    command = shlex.split(found[3])
    assert command == ["python", "-m", "gamekit.tournament", "resume", "--db", str(db)]
    extra = [] if _sandbox_here() else ["--trusted-code"]
    done = subprocess.run([sys.executable, *command[1:], *extra], cwd=ROOT, capture_output=True, text=True,
                          timeout=600)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert f"{TOTAL - kept} games to play" in done.stdout, done.stdout
    return kept, out


@pytest.fixture(scope="module")
def agents(tmp_path_factory) -> list[str]:
    folder = tmp_path_factory.mktemp("agents")
    (folder / "slow_mover.py").write_text(SLOW)
    return [str(folder / "slow_mover.py"), str(AGENTS / "first_free.py")]


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory, agents) -> dict[str, Any]:
    """The same tournament played in one go (two workers: the games do not depend on who plays them)."""
    db = tmp_path_factory.mktemp("uninterrupted") / "class.sqlite"
    done = subprocess.run([sys.executable, "-m", "gamekit.tournament", *_command(db, agents, 2)], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)  # fmt: skip
    assert done.returncode == 0, done.stderr
    records = _records(db)
    assert len(records) == TOTAL and all(r["forfeit"] is None for r in records.values())
    assert {r["winner"] for r in records.values()} != {None}  # not all draws: the winners are compared too
    return {"records": records, "entrants": _entrants(db)}


def test_ctrl_c_before_the_first_game_keeps_the_set_up_and_resume_plays_the_same_games(tmp_path, agents, uninterrupted):
    db = tmp_path / "class.sqlite"
    proc = _start(db, agents, workers=2)
    _wait_for(proc, lambda: _games(db) == 0)  # set up; its entrants are being validated (seconds)
    os.killpg(proc.pid, signal.SIGINT)
    proc.wait(timeout=120)
    assert [status for _, status, _, _ in _entrants(db)] == ["new", "new"]  # stopped before any was validated
    kept, _ = _stopped_and_resumed(proc, db)
    assert kept == 0
    assert _records(db) == uninterrupted["records"]
    assert _entrants(db) == uninterrupted["entrants"]


def test_ctrl_c_mid_game_drops_only_the_game_in_play_and_resume_plays_the_same_games(tmp_path, agents, uninterrupted):
    db = tmp_path / "class.sqlite"
    proc = _start(db, agents)
    seen: list[int | None] = []

    def mid_game() -> bool:
        seen.append(_games(db))
        return seen[-1] is not None and 1 <= seen[-1] < TOTAL and _game_on(proc.pid) and _games(db) == seen[-1]

    _wait_for(proc, mid_game)
    os.killpg(proc.pid, signal.SIGINT)
    kept, out = _stopped_and_resumed(proc, db)
    assert kept == seen[-1]  # the game in play when Ctrl-C came (the slow mover's, ~1 s) was not kept
    assert out.splitlines()[-1] == f"[{kept}/{TOTAL}] {sorted(uninterrupted['records'])[kept - 1]}"
    assert _records(db) == uninterrupted["records"]
    assert _entrants(db) == uninterrupted["entrants"]


def test_ctrl_c_between_games_keeps_exactly_the_finished_ones_and_resume_plays_the_same_games(
    tmp_path, agents, uninterrupted
):
    db = tmp_path / "class.sqlite"
    proc = _start(db, agents, signal_after=2)
    kept, out = _stopped_and_resumed(proc, db)
    assert kept == 2
    assert out.splitlines()[-2:] == [f"[{k}/{TOTAL}] {sorted(uninterrupted['records'])[k - 1]}" for k in (1, 2)]
    assert _records(db) == uninterrupted["records"]
    assert _entrants(db) == uninterrupted["entrants"]


def test_sigterm_in_the_first_game_keeps_the_tournament_resumable(tmp_path, agents, uninterrupted):
    db = tmp_path / "class.sqlite"
    proc = _start(db, agents)
    validated = [("first_free", "accepted"), ("slow_mover", "accepted")]

    def first_game() -> bool:
        return _games(db) == 0 and [e[:2] for e in _entrants(db)] == validated and _game_on(proc.pid)

    _wait_for(proc, first_game)
    os.killpg(proc.pid, signal.SIGTERM)
    kept, _ = _stopped_and_resumed(proc, db)
    assert kept == 0 and db.is_file()
    assert _records(db) == uninterrupted["records"]


def test_ctrl_c_after_some_games_of_a_larger_class_keeps_them(tmp_path):
    """Three agents (36 quick games), Ctrl-C once two are stored: the games kept stay, resume ends it."""
    db = tmp_path / "class.sqlite"
    three = [str(AGENTS / "random_mover.py"), str(AGENTS / "first_free.py"), str(AGENTS / "perfect.py")]
    command = [sys.executable, "-m", "gamekit.tournament", "run", *three, "--game", "tictactoe", "--starts", "6",
               "--opening", "2", "--seed", "2026", "--db", str(db), "--workers", "1", "--trusted-code"]  # fmt: skip
    proc = _foreground_job(command)
    _wait_for(proc, lambda: (_games(db) or 0) >= 2)
    os.killpg(proc.pid, signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    kept = _games(db)
    assert proc.returncode == 130, (out, err)
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert f"stopped: {kept} game(s) kept in {db}; continue with: python -m gamekit.tournament resume --db {db}" in err
    done = subprocess.run([sys.executable, "-m", "gamekit.tournament", "resume", "--db", str(db), "--trusted-code"],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert _games(db) == 3 * 2 * 6  # three pairings, six starts each played from both seats
