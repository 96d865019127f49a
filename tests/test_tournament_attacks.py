"""Attacks on the class tournament written as a determined student would: the guard switched off first.

Every attacker starts by disabling the Python guard inside its own process (clearing the table of
forbidden events and widening the hook's allowed folders), so what stops it is the operating
system's sandbox alone (bubblewrap namespaces, `gamekit.isolation`). Each attack then tries to
read, change, win, break or outlive something that is not its own. The attacker must end as a
recorded forfeit of its own game, the run must finish, the honest games must be identical to a
run without the attackers, no file outside the run's folders may change, no process may survive,
and the canary secret (a file and an environment variable) must appear nowhere.
"""

from __future__ import annotations

import os
import socket
import sqlite3
import tempfile
from pathlib import Path

import pytest
from conftest import ROOT

from gamekit.sandbox.bwrap import bwrap_path
from gamekit.tournament.runner import Tournament
from gamekit.tournament.sandbox import Limits

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(bwrap_path() is None, reason="bubblewrap (bwrap) is not installed"),
]

AGENTS = ROOT / "tests" / "tournament_agents"
LIMITS = Limits(move_seconds=1.0, bank_seconds=1.0, startup_seconds=8.0, memory_mb=128, output_kb=64)
CANARY = "CANARY-7f3a9c-secret"

# Every attacker begins like this: the in-process guard is no boundary, so switch it off.
DISARM = """
import gc, os, sys, signal
import gamekit.sandbox.inside as _child
_child.FORBIDDEN_EVENTS.clear(); _child.CHANGE_EVENTS.clear(); _child.READ_EVENTS.clear(); _child.DENIED_IMPORTS.clear()
for _g in gc.get_objects():
    if type(_g).__name__ == "Guard":
        _g.readable.append("/"); _g.folder.append("/"); _g.devices.update({"/dev/tcp"})
"""

ATTACKS = {
    # read the teacher's secret file and the environment variable, and try to leak them
    "leaker": """
def agent(game, state):
    found = [v for k, v in os.environ.items() if "CANARY" in v]
    try:
        found.append(open({canary_file!r}).read())
    except OSError as exc:
        found.append(type(exc).__name__)
    print("leaked:", found)
    raise RuntimeError("nothing to leak: " + " ".join(found))
""",
    # the teacher's processes through /proc with dir_fd: environment and files of the referee
    "procfs": """
def agent(game, state):
    seen = []
    for pid in os.listdir("/proc"):
        if pid.isdigit() and int(pid) != os.getpid():
            try:
                fd = os.open("/proc/" + pid, os.O_RDONLY)
                seen.append(os.read(os.open("environ", os.O_RDONLY, dir_fd=fd), 100000).decode(errors="replace"))
            except OSError as exc:
                seen.append(type(exc).__name__)
    print(seen)
    raise RuntimeError("procfs found %d processes" % len(seen))
""",
    # rewrite the tournament's database so that every game is a win
    "dbwriter": """
import sqlite3
def agent(game, state):
    try:
        con = sqlite3.connect({db!r})
        con.execute("UPDATE games SET record = replace(record, 'first_free', 'dbwriter')")
        con.commit()
    except Exception as exc:
        raise RuntimeError("no database: " + type(exc).__name__)
    return game.legal_moves(state)[0]
""",
    # plant code that the teacher's next Python would run
    "planter": """
import site
def agent(game, state):
    errors = []
    for folder in site.getsitepackages() + [os.path.dirname(os.path.dirname(_child.__file__))]:
        try:
            with open(os.path.join(folder, "zz_gamekit_evil.pth"), "w") as f:
                f.write("import os; os.system('touch /tmp/gamekit-pwned')\\n")
        except OSError as exc:
            errors.append(type(exc).__name__)
    raise RuntimeError("could not plant: " + ",".join(errors))
""",
    # freeze or kill every other process it can see: the opponent, the referee
    "killer": """
def agent(game, state):
    me = os.getpid()
    for pid in os.listdir("/proc"):
        if pid.isdigit() and int(pid) not in (me, 1):
            try:
                os.kill(int(pid), signal.SIGSTOP)
                os.kill(int(pid), signal.SIGKILL)
            except OSError:
                pass
    return game.legal_moves(state)[0]
""",
    # a reply nested 3,000 lists deep, written straight to the reply pipe
    "nester": """
def agent(game, state):
    data = ("{{\\"move\\": " + "[" * 3000 + "]" * 3000 + "}}\\n").encode()
    for fd in os.listdir("/proc/self/fd"):
        if int(fd) > 2:
            try:
                os.write(int(fd), data)
            except OSError:
                pass
    import time; time.sleep(5)
""",
    # a reply of several megabytes without an end
    "flooder": """
def agent(game, state):
    for fd in os.listdir("/proc/self/fd"):
        if int(fd) > 2:
            try:
                os.write(int(fd), b"[" + b"1," * 3_000_000)
            except OSError:
                pass
    import time; time.sleep(5)
""",
    # reach a server on the teacher's loopback (a Dask scheduler would listen like this)
    "caller": """
import socket
def agent(game, state):
    try:
        socket.create_connection(("127.0.0.1", {port}), timeout=1).sendall(b"run my code")
    except OSError as exc:
        raise RuntimeError("no network: " + type(exc).__name__)
    return game.legal_moves(state)[0]
""",
    # leave a process behind that outlives the game (and the run)
    "daemon": """
def agent(game, state):
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            import time
            while True:
                time.sleep(0.2)
        os._exit(0)
    raise RuntimeError("left a daemon: gamekit-daemon-marker")
""",
}
REASONS = {
    "leaker": {"exception"},
    "procfs": {"exception"},
    "dbwriter": {"exception"},
    "planter": {"exception"},
    "killer": {"crash", "sandbox"},
    "nester": {"protocol"},
    "flooder": {"protocol"},
    "caller": {"exception"},
    "daemon": {"exception"},
}


def snapshot(folder: Path) -> dict[str, int]:
    return {str(p): p.stat().st_mtime_ns for p in folder.rglob("*") if p.is_file()}


@pytest.fixture(scope="module")
def attack_run(tmp_path_factory):
    base = tmp_path_factory.mktemp("attacks")
    canary_file = base / "teacher" / "id_rsa"
    canary_file.parent.mkdir()
    canary_file.write_text(CANARY)
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    server.settimeout(0.1)
    port = server.getsockname()[1]
    db = base / "attacked.sqlite"
    subs = base / "subs"
    subs.mkdir()
    for name, body in ATTACKS.items():
        code = DISARM + body.format(canary_file=str(canary_file), db=str(db), port=port)
        (subs / f"{name}.py").write_text(f"NAME = {name!r}\n" + code)
    (subs / "random_mover.py").write_text((AGENTS / "random_mover.py").read_text())
    package_before = snapshot(ROOT / "gamekit")
    jails = base / "jails"
    jails.mkdir()
    old = os.environ.get("GAMEKIT_CANARY")
    os.environ["GAMEKIT_CANARY"] = CANARY
    try:
        t = Tournament(
            db, sorted(subs.glob("*.py")), gauntlet=[AGENTS / "first_free.py"], format="gauntlet", seed=3, limits=LIMITS
        )
        with pytest.MonkeyPatch.context() as mp:  # this run's jails are made here, and nowhere else
            mp.setattr(tempfile, "tempdir", str(jails))
            t.run(workers=2, validate=False)
    finally:
        if old is None:
            os.environ.pop("GAMEKIT_CANARY", None)
        else:
            os.environ["GAMEKIT_CANARY"] = old
    connections = 0
    try:
        while True:
            server.accept()[0].close()
            connections += 1
    except OSError:
        pass
    server.close()
    yield t, db, base, connections, package_before, jails
    t.close()


def test_every_attacker_forfeits_its_own_games_with_a_reason(attack_run):
    t, *_ = attack_run
    records = {r["id"]: r for r in t.records()}
    for name, reasons in REASONS.items():
        for order in (0, 1):
            r = records[f"{name}~first_free~0~{order}"]
            seat = r["agents"].index(name)
            assert r["forfeit"] == seat, (name, r["reason"], r["detail"])
            assert r["reason"] in reasons, (name, r["reason"], r["detail"])
            assert r["winner"] == 1 - seat


def test_the_honest_games_are_identical_to_a_run_without_attackers(attack_run, tmp_path):
    t, *_ = attack_run
    calm = Tournament(
        tmp_path / "calm.sqlite",
        [AGENTS / "random_mover.py"],
        gauntlet=[AGENTS / "first_free.py"],
        format="gauntlet",
        seed=3,
        limits=LIMITS,
    )
    calm.run(workers=2)
    attacked = {r["id"]: r for r in t.records()}
    strip = ("seconds", "times", "failed_after")
    for r in calm.records():
        assert r["forfeit"] is None
        assert {k: v for k, v in attacked[r["id"]].items() if k not in strip} == {
            k: v for k, v in r.items() if k not in strip
        }


def test_the_secret_leaks_nowhere_and_nothing_outside_changed(attack_run):
    t, db, base, connections, package_before, _ = attack_run
    assert connections == 0, "an agent reached a server on the teacher's loopback"
    dump = "\n".join(sqlite3.connect(db).iterdump())
    assert CANARY not in dump
    assert "dbwriter" not in {r["agents"][r["winner"]] for r in t.records() if r["winner"] is not None}
    assert snapshot(ROOT / "gamekit") == package_before
    assert not list(ROOT.rglob("zz_gamekit_evil.pth")) and not Path("/tmp/gamekit-pwned").exists()
    import site

    assert not any(Path(p, "zz_gamekit_evil.pth").exists() for p in site.getsitepackages())


def test_no_process_of_the_run_survives_it(attack_run):
    jails = attack_run[-1]
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
            except OSError:
                continue
            assert str(jails).encode() not in cmdline, cmdline[:200]
    assert not list(jails.iterdir()), "the run left its agents' jail folders behind"


def test_without_bwrap_the_tournament_refuses_untrusted_code(monkeypatch, tmp_path, capsys):
    from gamekit.tournament.__main__ import main

    monkeypatch.setattr("gamekit.sandbox.bwrap.bwrap_path", lambda: None)
    agent = AGENTS / "first_free.py"
    assert main(["validate", str(agent)]) == 2
    assert "apt-get install bubblewrap" in capsys.readouterr().err
    assert main(["run", str(agent), str(AGENTS / "random_mover.py"), "--db", str(tmp_path / "t.sqlite")]) == 2
    err = capsys.readouterr().err
    assert "--trusted-code" in err and "WSL" in err
    assert not (tmp_path / "t.sqlite").exists()  # a refusal leaves nothing behind
    # the teacher's explicit word runs trusted files without the OS sandbox
    assert main(["validate", str(agent), "--trusted-code"]) == 0


def test_a_forfeit_says_the_time_the_limit_and_only_the_students_own_traceback(tmp_path):
    from gamekit.tournament.html import leaderboard_html
    from gamekit.tournament.results import Results

    subs = tmp_path / "subs"
    subs.mkdir()
    (subs / "crasher.py").write_text(
        "NAME = 'crasher'\n\ndef helper(state):\n    return 1 / 0\n\n"
        "def agent(game, state):\n    return helper(state)\n"
    )
    (subs / "slow.py").write_text("NAME = 'slow'\nimport time\n\ndef agent(game, state):\n    time.sleep(60)\n")
    limits = Limits(move_seconds=0.3, bank_seconds=0.2, startup_seconds=8.0)
    t = Tournament(
        tmp_path / "t.sqlite",
        sorted(subs.glob("*.py")),
        gauntlet=[AGENTS / "first_free.py"],
        format="gauntlet",
        limits=limits,
    )
    t.run(workers=2, validate=False)
    records = {r["id"]: r for r in t.records()}
    crash = records["crasher~first_free~0~0"]
    assert crash["reason"] == "exception" and "ZeroDivisionError" in crash["detail"]
    # the student's own file is named (not a name the sandbox gave it), and only its own frames
    assert "crasher.py, line 4, in helper" in crash["detail"] and "crasher.py, line 7, in agent" in crash["detail"]
    assert "agent.py" not in crash["detail"]
    assert "gamekit" not in crash["detail"] and "child.py" not in crash["detail"]
    slow = records["slow~first_free~0~0"]
    assert slow["reason"] == "timeout" and "0.3 s per move" in slow["detail"] and "0.2 s bank" in slow["detail"]
    assert 0.4 <= slow["failed_after"] <= 2.0
    page = leaderboard_html(Results(t), reps=1000)
    assert "time taken" in page and f"{slow['failed_after']:.2f} s" in page
    t.close()
