"""`python -m gamekit.tournament run` that fails before its first game leaves no database behind, and a
database that exists already gets advice that works (issue 30)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gamekit.tournament import Tournament
from gamekit.tournament.__main__ import main

HERE = Path(__file__).parent
OWN = HERE / "own_games.py"
AGENTS = HERE / "tournament_agents"
PAIR = [str(AGENTS / "random_mover.py"), str(AGENTS / "first_free.py")]


def _left(db: Path) -> list[str]:
    return sorted(p.name for p in db.parent.iterdir() if p.name.startswith(db.name))


@pytest.mark.parametrize("game", [str(OWN), f"{OWN}:NoSuchClass", "chess"])
def test_a_run_that_fails_early_leaves_no_database(tmp_path, game, capsys):
    db = tmp_path / "y.sqlite"
    code = main(["run", *PAIR, "--game", game, "--db", str(db), "--trusted-code"])
    assert code in (2, 3), capsys.readouterr()
    assert _left(db) == []
    # the corrected command is not blocked by anything the failed one left
    assert "exists" not in capsys.readouterr().err


def test_a_run_without_submissions_leaves_no_database(tmp_path):
    db = tmp_path / "y.sqlite"
    (tmp_path / "empty").mkdir()
    for agents in (tmp_path / "empty", tmp_path / "missing"):
        assert main(["run", str(agents), "--db", str(db), "--trusted-code"]) == 2
        assert _left(db) == []


def test_an_existing_file_without_a_tournament_is_named_with_what_to_do(tmp_path, capsys):
    db = tmp_path / "y.sqlite"
    db.write_bytes(b"")  # what an older gamekit left after a failed run, or any other file
    assert main(["run", *PAIR, "--db", str(db), "--trusted-code"]) == 2
    err = capsys.readouterr().err
    assert "holds no tournament" in err and f"delete it ({db})" in err and "resume" not in err
    assert main(["resume", "--db", str(db), "--trusted-code"]) == 2
    err = capsys.readouterr().err
    assert "holds no tournament" in err and f"delete {db}" in err and "no submissions given" not in err
    assert db.exists()  # never deleted without being asked: it may be someone's file


def test_an_existing_tournament_without_games_says_resume_plays_it(tmp_path, capsys):
    db = tmp_path / "y.sqlite"
    Tournament(db, PAIR, game="tictactoe", trusted_code=True).close()
    assert main(["run", *PAIR, "--db", str(db), "--trusted-code"]) == 2
    err = capsys.readouterr().err
    assert "no game played yet" in err and f"resume --db {db}" in err and f"delete {db}" in err
