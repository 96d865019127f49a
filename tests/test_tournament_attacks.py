"""Attacks on the class tournament written as a determined student would: the guard switched off first.

Every attacker starts by disabling the Python guard inside its own process (clearing the table of
forbidden events and widening the hook's allowed folders), so what stops it is the operating
system's sandbox alone (bubblewrap namespaces, `gamekit.sandbox`). Each attack then tries to
read, change, win, break or outlive something that is not its own. The attacker must end as a
recorded forfeit of its own game, the run must finish, the honest games must be identical to a
run without the attackers, no file outside the run's folders may change, no process may survive,
and the canary secret (a file and an environment variable) must appear nowhere.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import sqlite3
import tempfile
from pathlib import Path

import pytest
from conftest import ROOT
from disarm import DISARM

from gamekit import TicTacToe
from gamekit.sandbox.bwrap import bwrap_path
from gamekit.tournament.runner import Tournament
from gamekit.tournament.sandbox import Limits
from gamekit.wire import move_to_json

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(bwrap_path() is None, reason="bubblewrap (bwrap) is not installed"),
]

AGENTS = ROOT / "tests" / "tournament_agents"
LIMITS = Limits(move_seconds=1.0, bank_seconds=1.0, startup_seconds=8.0, memory_mb=128, output_kb=64)
CANARY = "CANARY-7f3a9c-secret"


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
    for folder in site.getsitepackages() + [os.path.dirname(os.path.dirname(_inside.__file__))]:
        try:
            with open(os.path.join(folder, "zz_gamekit_evil.pth"), "w") as f:
                f.write("import os; os.system('touch /tmp/gamekit-pwned')\\n")
        except OSError as exc:
            errors.append(type(exc).__name__)
    raise RuntimeError("could not plant: " + ",".join(errors))
""",
    # freeze or kill every other process it can see: the opponent, the referee
    # every other process of its jail, its pid 1 (the zygote) included
    "killer": """
def agent(game, state):
    me = os.getpid()
    for pid in os.listdir("/proc"):
        if pid.isdigit() and int(pid) != me:
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


def first_free_game() -> tuple[list, int | None]:
    """The moves and the winner's seat when both players take the first legal move (TicTacToe)."""
    game = TicTacToe()
    state, moves = game.initial_state(), []
    while not game.is_terminal(state):
        move = game.legal_moves(state)[0]
        moves.append(move_to_json(game, move))
        state = game.play(state, move)
    value = game.utility(state, 0)
    return moves, (None if value == 0 else 0 if value > 0 else 1)


def test_a_killer_reaches_nothing_in_its_jail_and_plays_on(attack_run):
    """Its jail holds only its own games' processes and the zygote, the namespace's pid 1, to which the
    kernel delivers no signal from inside: the zygote goes on. What the killer can kill is its own
    other game running at the same time (one jail per agent), which that game forfeits: the killer's
    loss, never its opponent's."""
    t, *_ = attack_run
    records = {r["id"]: r for r in t.records()}
    for order in (0, 1):
        r = records[f"killer~first_free~0~{order}"]
        seat = r["agents"].index("killer")
        if r["forfeit"] is not None:
            assert r["forfeit"] == seat and r["reason"] == "crash", (r["reason"], r["detail"])
            assert r["winner"] == 1 - seat, r
        else:  # it played on: the very game of two first-free players, its opponent untouched
            assert (r["moves"], r["winner"]) == first_free_game(), r


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


# --- a student's game and the agents: no shared process, no word taken, no pipe without a deadline ---

# two solvers, each solving TicTacToe through the referee in its first move (a few thousand questions)
SOLVERS = Limits(move_seconds=5.0, bank_seconds=5.0, startup_seconds=8.0, memory_mb=128, output_kb=64)
FAVOURITE = (AGENTS / "perfect.py").read_text().replace('NAME = "perfect (solver)"', 'NAME = "favourite"')

# legal_moves that lies only when an agent's own code calls it (the referee's questions, and a
# cross-check asked from gamekit's code, get the truth): an occupied square first
LIAR = """
import sys
from gamekit.games.tictactoe import TicTacToe


class Liar(TicTacToe):
    def legal_moves(self, state):
        moves = tuple(super().legal_moves(state))
        caller = sys._getframe(1).f_code.co_filename
        agent = sys.modules.get("agent")
        if agent is not None and "gamekit" not in caller and getattr(agent, "NAME", "") != "favourite":
            taken = [i for i in range(9) if i not in moves]
            if taken:
                return (taken[0],) + moves
        return moves
"""

# every rule honest, every move legal: the module's code swaps the agent's own code for the worst moves
SWAPPER = """
import sys
from gamekit.games.tictactoe import TicTacToe

_victim = sys.modules.get("agent")
if _victim is not None and getattr(_victim, "NAME", "") != "favourite":
    from gamekit import solve

    class _Worst:
        def __init__(self, game, seat):
            self.game, self.table = game, None

        def move(self, state):
            if self.table is None:
                self.table = solve(self.game)
            sign = 1 if self.game.to_move(state) == 0 else -1
            return min(self.game.legal_moves(state), key=lambda m: sign * self.table[self.game.play(state, m)])

    _victim.Agent = _Worst
    _victim.agent = lambda game, state: _Worst(game, 0).move(state)


class Swapper(TicTacToe):
    pass
"""

# an agent's claim about the game, written straight to its reply pipe
CLAIMER = """
import time
def agent(game, state):
    for _c in gc.get_objects():
        if type(_c).__name__ == "Channel" and hasattr(_c, "fd_out"):
            _c.send({"game_differs": "its legal moves differ in my process"})
    time.sleep(5)
"""

# Countdown whose every state carries 40 KB (an answer with two next states is larger than a pipe's
# 64 KiB buffer), in a file of more than 64 KiB
BULKY = (
    "# "
    + "padding " * 9000
    + "\n"
    + """
from gamekit import IllegalMoveError

PAD = "x" * 40000


class Bulky:
    def initial_state(self):
        return (5, 0, PAD)

    def to_move(self, state):
        return state[1]

    def legal_moves(self, state):
        return tuple(t for t in (1, 2) if t <= state[0])

    def play(self, state, move):
        if move not in self.legal_moves(state):
            raise IllegalMoveError(f"take 1 or 2, got {move!r}")
        return (state[0] - move, 1 - state[1], PAD)

    def is_terminal(self, state):
        return state[0] == 0

    def utility(self, state, player):
        return 1.0 if state[1] != player else -1.0

    def describe_state(self, state):
        return f"{state[0]} left"
"""
)

# asks a question about the rules, then never reads its pipe again
STUCK = """
import time
def agent(game, state):
    for _c in gc.get_objects():
        if type(_c).__name__ == "Channel" and hasattr(_c, "fd_out"):
            _c.send({"ask": {"op": "expand", "state": game.state_to_json(state)}})
    time.sleep(60)
"""


def _run(
    folder: Path, agents: dict[str, str], game: str = "tictactoe", limits: Limits = LIMITS, validate: bool = True, **kw
) -> Tournament:
    """A tournament of `agents` (file stem -> source) in `folder`, its jails in folder/jails; checks
    that nothing of it is left running."""
    subs = folder / "subs"
    subs.mkdir(parents=True)
    for name, source in agents.items():
        (subs / f"{name}.py").write_text(source)
    jails = folder / "jails"
    jails.mkdir()
    kw.setdefault("seed", 3)
    t = Tournament(folder / "t.sqlite", sorted(subs.glob("*.py")), game=game, limits=limits, **kw)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(tempfile, "tempdir", str(jails))
        t.run(workers=2, validate=validate and kw.get("gauntlet") is None)
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
            except OSError:
                continue
            assert str(jails).encode() not in cmdline, cmdline[:200]
    assert not list(jails.iterdir())
    return t


def _game_file(folder: Path, name: str, source: str) -> str:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.py").write_text(source)
    return str(folder / f"{name}.py")


def _same_games(a: Tournament, b: Tournament) -> None:
    strip = ("seconds", "times", "failed_after")
    ra = {r["id"]: {k: v for k, v in r.items() if k not in strip} for r in a.records()}
    rb = {r["id"]: {k: v for k, v in r.items() if k not in strip} for r in b.records()}
    assert ra == rb and ra


@pytest.mark.parametrize("beside", [False, True], ids=["own jail", "beside the agents"])
def test_a_game_that_lies_only_to_the_agents_code_cannot(tmp_path, monkeypatch, beside):
    if beside:  # the design before: the game's code in every agent's process (the test can fail)
        monkeypatch.setattr("gamekit.tournament.sandbox.GAME_BESIDE_AGENTS", True)
    first_free = (AGENTS / "first_free.py").read_text()
    agents = {"favourite": first_free.replace('"first legal move"', '"favourite"'), "honest": first_free}
    liar = _game_file(tmp_path / "g", "liar", LIAR)
    t = _run(tmp_path / "run", agents, game=f"{liar}:Liar")
    status = {e.id: (e.status, e.reason) for e in t.entrants()}
    if beside:
        assert status["honest"][0] == "rejected" and "illegal move" in status["honest"][1], status
        return
    assert status == {"favourite": ("accepted", ""), "honest": ("accepted", "")}
    honest_file = _game_file(tmp_path / "h", "liar", LIAR.replace("    def legal_moves", "    def _unused"))
    calm = _run(tmp_path / "calm", agents, game=f"{honest_file}:Liar")
    _same_games(t, calm)  # every game as on the honest copy of the game
    assert all(r["forfeit"] is None for r in t.records())


@pytest.mark.parametrize("beside", [False, True], ids=["own jail", "beside the agents"])
def test_a_game_whose_module_swaps_the_agents_code_cannot(tmp_path, monkeypatch, beside):
    if beside:
        monkeypatch.setattr("gamekit.tournament.sandbox.GAME_BESIDE_AGENTS", True)
    agents = {"favourite": FAVOURITE, "honest": (AGENTS / "perfect.py").read_text()}
    swapper = _game_file(tmp_path / "g", "swapper", SWAPPER)
    t = _run(tmp_path / "run", agents, game=f"{swapper}:Swapper", starts=2, limits=SOLVERS, validate=False)
    records = [r for r in t.records() if set(r["agents"]) == {"favourite", "honest"}]
    assert len(records) == 4 and all(r["forfeit"] is None for r in records)
    favourite_wins = sum(r["winner"] is not None and r["agents"][r["winner"]] == "favourite" for r in records)
    if beside:  # every rule honest, every move legal, nothing flagged: and the favourite wins 4-0
        assert favourite_wins == 4
        return
    assert all(r["winner"] is None for r in records)  # perfect against perfect: four draws
    # the same games as on the course's own TicTacToe (built in each agent's process)
    calm = _run(tmp_path / "calm", agents, game="tictactoe", starts=2, limits=SOLVERS, validate=False)
    strip = ("game", "seconds", "times", "failed_after")
    assert {r["id"]: {k: v for k, v in r.items() if k not in strip} for r in calm.records()} == {
        r["id"]: {k: v for k, v in r.items() if k not in strip} for r in records
    }


def test_an_agents_claim_about_the_game_is_its_own_protocol_error(tmp_path):
    honest = {"random_mover": (AGENTS / "random_mover.py").read_text()}
    gauntlet = tmp_path / "first_free.py"
    gauntlet.write_text((AGENTS / "first_free.py").read_text())
    claimer = "NAME = 'claimer'\n" + DISARM + CLAIMER
    t = _run(tmp_path / "run", {"claimer": claimer, **honest}, gauntlet=[gauntlet], format="gauntlet")
    records = {r["id"]: r for r in t.records()}
    for order in (0, 1):  # the run finished, the claimer forfeits, the game is not blamed
        r = records[f"claimer~first_free~0~{order}"]
        seat = r["agents"].index("claimer")
        assert r["forfeit"] == seat and r["reason"] == "protocol" and "game_differs" in r["detail"], r["detail"]
    calm = _run(tmp_path / "calm", honest, gauntlet=[gauntlet], format="gauntlet")
    strip = ("seconds", "times", "failed_after")
    for r in calm.records():
        assert {k: v for k, v in records[r["id"]].items() if k not in strip} == {
            k: v for k, v in r.items() if k not in strip
        }


def test_an_agent_that_stops_reading_its_pipe_forfeits_by_the_deadline(tmp_path):
    assert len(BULKY.encode()) > 64 * 1024
    bulky = _game_file(tmp_path / "g", "bulky", BULKY)
    gauntlet = tmp_path / "first_free.py"
    gauntlet.write_text((AGENTS / "first_free.py").read_text())
    honest = {"random_mover": (AGENTS / "random_mover.py").read_text()}
    stuck = "NAME = 'stuck'\n" + DISARM + STUCK
    t = _run(
        tmp_path / "run", {"stuck": stuck, **honest}, game=f"{bulky}:Bulky", gauntlet=[gauntlet], format="gauntlet"
    )
    records = {r["id"]: r for r in t.records()}
    turn = 2 * (LIMITS.move_seconds + LIMITS.bank_seconds) + 0.25  # the turn's wall-clock end
    for order in (0, 1):
        r = records[f"stuck~first_free~0~{order}"]
        seat = r["agents"].index("stuck")
        assert r["forfeit"] == seat and r["reason"] == "timeout" and "stopped reading" in r["detail"], r["detail"]
        assert turn - 0.1 <= r["failed_after"] <= turn + 3.0, r["failed_after"]
    calm = _run(tmp_path / "calm", honest, game=f"{bulky}:Bulky", gauntlet=[gauntlet], format="gauntlet")
    strip = ("seconds", "times", "failed_after")
    for r in calm.records():
        assert r["forfeit"] is None
        assert {k: v for k, v in records[r["id"]].items() if k not in strip} == {
            k: v for k, v in r.items() if k not in strip
        }


def test_a_write_to_a_process_that_does_not_read_ends_at_its_deadline():
    import threading
    import time

    from gamekit.sandbox.channel import Channel, ChannelError
    from gamekit.sandbox.outcomes import Fault

    r, w = os.pipe()
    channel = Channel(w, -1)
    message = {"state": "x" * (200 * 1024)}  # three times a pipe's buffer
    t0 = time.monotonic()
    with pytest.raises(ChannelError) as error:
        channel.send(message, deadline=t0 + 0.3)
    assert error.value.fault is Fault.TIMEOUT and "left unread" in error.value.detail
    assert 0.3 <= time.monotonic() - t0 < 1.0
    # the protection switched off: the same write, blocking, does not return while nobody reads
    os.set_blocking(w, True)
    done = threading.Event()

    def blocking_write() -> None:
        with contextlib.suppress(OSError):
            os.write(w, b"x" * (200 * 1024))
        done.set()

    threading.Thread(target=blocking_write, daemon=True).start()
    assert not done.wait(1.0)
    os.close(r)  # the reader goes: the blocked write ends (a broken pipe)
    assert done.wait(5.0)
    channel.close()


def test_a_large_message_to_a_process_that_reads_arrives_whole():
    import threading
    import time

    from gamekit.sandbox.channel import Channel

    r, w = os.pipe()
    channel = Channel(w, -1)
    got = bytearray()

    def slow_reader() -> None:
        while chunk := os.read(r, 4096):
            got.extend(chunk)
            time.sleep(0.001)

    reader = threading.Thread(target=slow_reader, daemon=True)
    reader.start()
    message = {"state": list(range(40_000))}
    channel.send(message, deadline=time.monotonic() + 10)
    channel.close()
    reader.join(10)
    os.close(r)
    assert json.loads(bytes(got)) == message
