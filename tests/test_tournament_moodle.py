"""The tournament from Moodle's "Download all submissions" archive gives the board a plain folder
gives (issue 37).

A class of 30: 28 participants upload a working `agent.py` (copies of the course's sample agents:
the first legal move, a seeded random mover), one uploads an `agent.py` with a syntax error, and
one hands in nothing: their folder in the archive is empty (Moodle's real archive leaves out a
participant with no file at all, so the tournament can only note one it sees; the grading tests
model "nothing handed in" the same way). The archive is played in the sandbox, as a teacher would
play it, against a plain folder of the same 28 files named `<participant id>.py`: the same games
(ids, seats, moves, winners, forfeits), the same standings per participant id, the same printed
board; the broken upload is rejected with its reason and the empty folder is noted.

A gauntlet against one house agent keeps the games few (2 per participant, 56 in all; the
validation games, 4 per agent, are most of the time), with two workers.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent / "fixtures"))

import moodle

from gamekit.tournament import Results

ROOT = Path(__file__).resolve().parent.parent
AGENTS = Path(__file__).parent / "tournament_agents"

pytestmark = pytest.mark.slow  # two sandboxed tournaments of 29 agents (about 30 s)

PIDS = list(range(100001, 100031))  # 30 participants
BROKEN, MISSING = 100017, 100023
BROKEN_AGENT = b'"""Forgot a colon."""\n\nNAME = "broken"\n\n\ndef agent(game, state)\n    return 0\n'
SETUP = ["--game", "tictactoe", "--opening", "2", "--starts", "1", "--seed", "37", "--format", "gauntlet",
         "--workers", "2"]  # fmt: skip
TIMINGS = {"times", "seconds", "failed_after"}


def _uploads() -> dict[int, bytes]:
    """Each participant's agent.py (none for MISSING): the sample agents by turns, BROKEN's broken."""
    samples = [(AGENTS / "first_free.py").read_bytes(), (AGENTS / "random_mover.py").read_bytes()]
    out = {pid: samples[k % 2] for k, pid in enumerate(PIDS) if pid != MISSING}
    out[BROKEN] = BROKEN_AGENT
    return out


def _moodle_archive(path: Path, uploads: dict[int, bytes]) -> None:
    """Moodle's download-all zip: a folder per participant, `<Full name>_<id>_assignsubmission_file_/agent.py`."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for k, pid in enumerate(PIDS):
            folder = moodle.folder_name(k, pid)
            if pid in uploads:
                z.writestr(f"{folder}/agent.py", uploads[pid])
            else:
                z.writestr(zipfile.ZipInfo(f"{folder}/"), b"")  # the folder, and nothing in it


def _run(source: Path, house: Path, db: Path) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "gamekit.tournament", "run", str(source), "--gauntlet", str(house), *SETUP,
               "--db", str(db)]  # fmt: skip
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    return done


def _records(db: Path) -> dict[str, dict[str, Any]]:
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as con:
        rows = con.execute("SELECT record FROM games ORDER BY id").fetchall()
    records = [json.loads(row[0]) for row in rows]
    return {r["id"]: {k: v for k, v in r.items() if k not in TIMINGS} for r in records}


def _board(stdout: str) -> list[str]:
    """The printed leaderboard (from its header on), without the lines of rejected submissions."""
    lines = stdout.splitlines()
    start = next(k for k, line in enumerate(lines) if line.split()[:3] == ["#", "agent", "Elo"])
    return [line for line in lines[start:] if not line.startswith("rejected:")]


def test_a_class_of_30_from_moodles_archive_gets_the_board_of_a_plain_folder(tmp_path):
    uploads = _uploads()
    archive = tmp_path / "Tournament-All submissions.zip"
    _moodle_archive(archive, uploads)
    plain = tmp_path / "plain"
    plain.mkdir()
    for pid, data in uploads.items():
        if pid != BROKEN:
            (plain / f"{pid}.py").write_bytes(data)
    house = tmp_path / "house" / "house.py"
    house.parent.mkdir()
    house.write_bytes((AGENTS / "random_mover.py").read_bytes())

    from_moodle = _run(archive, house, tmp_path / "moodle.sqlite")
    from_folder = _run(plain, house, tmp_path / "plain.sqlite")

    # the archive's notes: the empty folder (and no one else) on stderr, the broken upload rejected
    notes = [line for line in from_moodle.stderr.splitlines() if line.startswith(("participant", "archive"))]
    assert notes == [f"participant {MISSING}: no .py file handed in: not entered"], from_moodle.stderr
    moodle_results, plain_results = Results(tmp_path / "moodle.sqlite"), Results(tmp_path / "plain.sqlite")
    [rejected] = moodle_results.rejected()
    assert rejected.id == str(BROKEN) and rejected.reason.startswith("syntax error in line 6"), rejected
    assert f"rejected: {BROKEN}: syntax error in line 6" in from_moodle.stdout
    assert plain_results.rejected() == [] and "rejected" not in from_folder.stdout

    # the same entrants, by participant id, playing the same games
    entered = sorted([str(pid) for pid in uploads if pid != BROKEN] + ["house"])
    assert len(entered) == 28 + 1
    assert sorted(moodle_results.accepted()) == sorted(plain_results.accepted()) == entered
    records = _records(tmp_path / "moodle.sqlite")
    assert len(records) == 28 * 2 and records == _records(tmp_path / "plain.sqlite")
    assert {a for r in records.values() for a in r["agents"]} == set(entered)  # every participant played
    assert all(r["forfeit"] is None for r in records.values())
    assert len({r["winner"] for r in records.values()}) > 1  # won, lost and drawn games: a board to compare

    # the same board: standings per participant id (ratings included) and the printed table
    standings = moodle_results.standings()
    assert standings == plain_results.standings()
    assert len(standings) == 29 and len({s.rating for s in standings}) > 1
    assert _board(from_moodle.stdout) == _board(from_folder.stdout)
    # 28 uploads that kept their template's NAME are told apart on the board by participant id
    shown = [s.name for s in standings]
    assert len(set(shown)) == 29 and f"first legal move ({next(iter(uploads))})" in shown, shown
    assert all(f"({pid})" in from_moodle.stdout for pid in uploads if pid != BROKEN)
