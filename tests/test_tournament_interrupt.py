"""Ctrl-C and SIGTERM end `python -m gamekit.tournament run` cleanly (issue 37): no traceback, the
number of games kept and the exact `resume` command; a tournament stopped before its first game
finished is kept too, and `resume` plays it to the end."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
AGENTS = Path(__file__).parent / "tournament_agents"

pytestmark = pytest.mark.slow  # real tournaments in subprocesses (seconds each)

SLOW = '''"""Waits before each move, so that no game ends before the test's signal."""

import random
import time

NAME = "slow mover"


def agent(game, state):
    time.sleep(0.4)
    return random.choice(list(game.legal_moves(state)))
'''


def _games(db: Path) -> int | None:
    """Games stored in `db`; None while its tournament is not set up."""
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as con:
            if con.execute("SELECT 1 FROM meta WHERE key = 'config'").fetchone() is None:
                return None
            return int(con.execute("SELECT COUNT(*) FROM games").fetchone()[0])
    except sqlite3.Error:
        return None


def _start(db: Path, agents: list[str]) -> subprocess.Popen:
    command = [sys.executable, "-m", "gamekit.tournament", "run", *agents, "--game", "tictactoe", "--starts", "6",
               "--opening", "2", "--seed", "2026", "--db", str(db), "--workers", "1", "--trusted-code"]  # fmt: skip
    # its own process group, as a terminal's foreground job: Ctrl-C reaches every process of it
    return subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)  # fmt: skip


def _wait_for(db: Path, proc: subprocess.Popen, enough) -> None:
    deadline = time.monotonic() + 300
    while not enough(_games(db)):
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the tournament did not get there in time"
        time.sleep(0.05)


def _resume(db: Path) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "gamekit.tournament", "resume", "--db", str(db), "--trusted-code"]
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600)


def test_ctrl_c_after_some_games_keeps_them_and_names_the_resume_command(tmp_path):
    db = tmp_path / "class.sqlite"
    proc = _start(db, [str(AGENTS / "random_mover.py"), str(AGENTS / "first_free.py"), str(AGENTS / "perfect.py")])
    _wait_for(db, proc, lambda n: n is not None and n >= 2)
    os.killpg(proc.pid, signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    kept = _games(db)
    assert proc.returncode == 130, (out, err)
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert f"stopped: {kept} game(s) kept in {db}; continue with: python -m gamekit.tournament resume --db {db}" in err
    done = _resume(db)
    assert done.returncode == 0, done.stderr
    assert _games(db) == 3 * 2 * 6  # three pairings, six starts each played from both seats


def test_sigterm_before_the_first_game_keeps_the_tournament_resumable(tmp_path):
    slow = tmp_path / "agents"
    slow.mkdir()
    (slow / "slow_mover.py").write_text(SLOW)
    db = tmp_path / "class.sqlite"
    proc = _start(db, [str(slow / "slow_mover.py"), str(AGENTS / "first_free.py")])
    _wait_for(db, proc, lambda n: n == 0)  # set up, no game finished yet (each takes seconds)
    os.killpg(proc.pid, signal.SIGTERM)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, (out, err)
    assert "Traceback" not in err, err
    assert f"stopped: 0 game(s) kept in {db}; continue with: python -m gamekit.tournament resume --db {db}" in err
    assert db.is_file() and _games(db) == 0
    done = _resume(db)
    assert done.returncode == 0, done.stderr
    assert _games(db) == 2 * 6
