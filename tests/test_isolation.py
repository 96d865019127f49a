"""The operating system's boundary (gamekit.sandbox.bwrap): what code inside a `Jail` can and cannot do.

Each check is an attack a student could write; the box must stop it by itself, with no Python
guard inside. Skipped, with the reason, where bubblewrap is missing (macOS, Windows).
"""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from gamekit.sandbox import cgroup
from gamekit.sandbox.bwrap import HOME, SANDBOX_UID, Jail, SandboxUnavailable, bwrap_path, python_command

pytestmark = pytest.mark.skipif(bwrap_path() is None, reason="bubblewrap (bwrap) is not installed")

PROBE = r"""
import json, os, socket, sys
report = {}
def attempt(name, fn):
    try:
        fn(); report[name] = "done"
    except Exception as e:
        report[name] = type(e).__name__
attempt("read_canary", lambda: open(sys.argv[1]).read())
attempt("list_outside", lambda: os.listdir(os.path.dirname(sys.argv[1])))
attempt("write_gamekit", lambda: open(os.path.join(os.path.dirname(__import__("gamekit").__file__), "x.py"), "w"))
attempt("write_root", lambda: open("/evil.txt", "w"))
attempt("connect", lambda: socket.create_connection(("127.0.0.1", int(sys.argv[2])), timeout=1))
attempt("signal_parent", lambda: os.kill(int(sys.argv[3]), 0))
report["pids"] = sorted(int(p) for p in os.listdir("/proc") if p.isdigit())
report["uid"] = os.getuid()
report["home"] = os.environ.get("HOME")
report["canary_env"] = "GAMEKIT_CANARY" in os.environ
attempt("write_host_folder", lambda: open(os.path.join(sys.argv[4], "mine.txt"), "w").write("x"))
open(os.path.join(os.environ["HOME"], "h.txt"), "w").write("ok")
import numpy, scipy.stats, networkx, gamekit.tournament  # honest code imports what it needs
print(json.dumps(report))
"""


@pytest.mark.slow  # starts the sandbox
def test_code_in_a_jail_sees_nothing_of_the_teacher_and_reaches_nobody(tmp_path, monkeypatch):
    secret = tmp_path / "teacher" / "secret.txt"
    secret.parent.mkdir()
    secret.write_text("CANARY-4711")
    own = tmp_path / "own"
    own.mkdir()
    monkeypatch.setenv("GAMEKIT_CANARY", "CANARY-4711")
    import socket

    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    port = server.getsockname()[1]
    argv = python_command(PROBE) + [str(secret), str(port), str(os.getpid()), str(own)]
    result = Jail().run(argv, timeout=60)
    server.close()
    assert result.returncode == 0, result.stderr
    assert "CANARY" not in result.stdout + result.stderr
    report = json.loads(result.stdout)
    assert report["read_canary"] == "FileNotFoundError"
    assert report["list_outside"] == "FileNotFoundError"
    assert report["write_gamekit"] in {"OSError", "PermissionError"}
    assert report["write_root"] in {"OSError", "PermissionError"}
    assert report["connect"] in {"ConnectionRefusedError", "OSError"}  # its own empty loopback
    assert report["signal_parent"] in {"ProcessLookupError", "PermissionError"}
    assert report["pids"] == [1]  # the probe alone: no bubblewrap inside, nothing of the host
    assert report["write_host_folder"] in {"FileNotFoundError", "OSError", "PermissionError"}
    assert report["uid"] == SANDBOX_UID and report["home"] == HOME
    assert report["canary_env"] is False
    assert not (own / "mine.txt").exists()  # no host folder is writable in a jail
    assert secret.read_text() == "CANARY-4711"


def test_without_bwrap_the_message_says_how_to_get_the_sandbox(monkeypatch):
    monkeypatch.setattr("gamekit.sandbox.bwrap.bwrap_path", lambda: None)
    with pytest.raises(SandboxUnavailable, match="apt-get install bubblewrap.*--trusted-code"):
        Jail().run(["true"])


@pytest.mark.slow  # starts the sandbox
def test_folders_under_tmp_stay_visible_below_the_private_tmp(tmp_path):
    """A clone or a venv under /tmp (as on many CI machines) must not vanish under the box's own /tmp."""
    shared = tmp_path / "ro"
    shared.mkdir()
    (shared / "data.txt").write_text("visible")
    assert str(tmp_path).startswith("/tmp")  # pytest's tmp_path lives there
    code = "import sys; print(open(sys.argv[1]).read())"
    argv = python_command(code) + [str(shared / "data.txt")]
    result = Jail(read_only=[str(shared)]).run(argv, timeout=60)
    assert result.returncode == 0 and result.stdout.strip() == "visible", result.stderr


def test_a_bubblewrap_that_cannot_make_a_box_is_refused_with_the_container_hint(tmp_path, monkeypatch):
    """bwrap installed but not allowed to make namespaces (a container started without the options):
    a clear refusal naming bubblewrap's complaint and what to do, before any student code runs."""
    import gamekit.sandbox.bwrap as isolation

    fake = tmp_path / "bwrap"
    fake.write_text("#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setattr(isolation, "bwrap_path", lambda: str(fake))
    monkeypatch.setattr(isolation, "_WORKS", {})
    with pytest.raises(isolation.SandboxUnavailable) as caught:
        isolation.require_bwrap()
    message = str(caught.value)
    assert "No permissions to create new namespace" in message
    assert "seccomp=unconfined" in message and "Running in a container" in message


# --- what the teacher's side reads of a jail, and the text it keeps ------------------------------


def test_read_regular_refuses_links_fifos_hard_links_and_large_files_without_blocking(tmp_path):
    from gamekit.sandbox import FileRefused, read_regular

    secret = tmp_path / "secret"
    secret.write_text("CANARY")
    jail = tmp_path / "jail"
    jail.mkdir()
    (jail / "ok.txt").write_bytes(b"fine")
    assert read_regular(str(jail), "ok.txt", 10) == b"fine"
    os.symlink(secret, jail / "link.txt")
    os.mkfifo(jail / "fifo.txt")  # a plain open() would wait for a writer for ever
    os.link(secret, jail / "hard.txt")
    (jail / "big.txt").write_bytes(b"x" * 11)
    for name, why in [
        ("link.txt", "symbolic link"),
        ("fifo.txt", "not a regular file"),
        ("hard.txt", "hard links"),
        ("big.txt", "more than"),
        ("../secret", "not a file name"),
    ]:
        with pytest.raises(FileRefused, match=why):
            read_regular(str(jail), name, 10)


def test_clean_text_makes_any_string_safe_to_store_and_show():
    import sqlite3

    from gamekit.sandbox import clean_text

    assert clean_text("Eve \ud800", 40) == "Eve \ufffd"
    assert clean_text("red \x1b[31m", 40) == "red \ufffd[31m"
    assert clean_text("two\nlines", 40) == "two\nlines" and clean_text("two\nlines", 40, one_line=True) == "two lines"
    long = clean_text("x" * 1_000_000, 100)
    assert long == "x" * 100 + " [cut]"
    sqlite3.connect(":memory:").execute("SELECT ?", (clean_text("\udcff" * 5, 10),))  # storable


@pytest.mark.skipif(
    __import__("gamekit.sandbox.cgroup").sandbox.cgroup.mechanism() != "cgroup-v1", reason="needs cgroups"
)
def test_the_groups_of_a_killed_run_are_removed_by_the_next_one():

    gone = subprocess.Popen(["true"])
    gone.wait()  # its pid is free: the "teacher's process" of a run killed with kill -9
    stale = [cgroup._v1_parent(c) / f"gamekit-{gone.pid}-0" for c in cgroup.JAIL_CONTROLLERS]
    for folder in stale:
        folder.mkdir()
    (stale[2] / f"g{gone.pid}").mkdir()  # a game's freezer group inside
    cgroup._SWEPT.discard(os.getpid())
    removed = cgroup.sweep_stale()
    assert all(not folder.exists() for folder in stale)
    assert f"memory/gamekit-{gone.pid}-0" in removed


@pytest.mark.skipif(
    __import__("gamekit.sandbox.cgroup").sandbox.cgroup.mechanism() != "cgroup-v1", reason="needs cgroups"
)
def test_a_stale_group_another_teacher_process_removes_first_is_no_error(monkeypatch):
    """Two runs that start together both sweep: the one that finds a group already gone goes on."""

    gone = subprocess.Popen(["true"])
    gone.wait()
    stale = [cgroup._v1_parent(c) / f"gamekit-{gone.pid}-0" for c in cgroup.JAIL_CONTROLLERS]
    for folder in stale:
        folder.mkdir()
    real_remove = cgroup._remove

    def the_other_sweeper_was_faster(folder):
        folder.rmdir()  # removed between this sweeper's listing and its own removal
        real_remove(folder)

    monkeypatch.setattr(cgroup, "_remove", the_other_sweeper_was_faster)
    cgroup._SWEPT.discard(os.getpid())
    removed = cgroup.sweep_stale()
    assert all(not folder.exists() for folder in stale)
    assert f"memory/gamekit-{gone.pid}-0" in removed


def test_outcomes_are_data_every_stored_word_reads_back_and_a_stray_one_is_refused():
    """A forfeit's reason is a `Reason`: its stored word reads back as the same member, an unknown
    word is refused naming what is allowed, and AgentFailure accepts only reasons."""
    from gamekit.sandbox.outcomes import FORFEITS, REASONS, Reason
    from gamekit.sandbox.process import AgentFailure

    assert [Reason.read(word) for word in REASONS] == list(Reason)
    assert Reason.MOVE_CAP not in FORFEITS and Reason.TIMEOUT in FORFEITS
    assert json.dumps({"reason": Reason.ILLEGAL_MOVE.value}) == '{"reason": "illegal move"}'
    failure = AgentFailure("timeout", "no answer in time")
    assert failure.reason is Reason.TIMEOUT and str(failure) == "timeout: no answer in time"
    with pytest.raises(ValueError, match="not a forfeit reason: 'lost'; allowed: 'startup', 'timeout'"):
        AgentFailure("lost", "made up")
    with pytest.raises(ValueError, match="not a reason to forfeit: 'move cap'"):
        AgentFailure(Reason.MOVE_CAP, "stopped")
