"""The boundary, second round: attacks on what the referee reads, the text it stores, the turns, the
limits of a jail as a whole, and the game file itself, each written as a student who has read
`gamekit/sandbox/`.

Every attacker first switches off the in-process guard (it is no boundary). Each attack must end
as the attacker's own forfeit (or do nothing at all), the run must finish, the honest games must
be identical to a run without the attackers, the canary must appear nowhere, and no process or
control group of the run may be left.
"""

from __future__ import annotations

import os
import re
import sqlite3
import time
from dataclasses import replace
from pathlib import Path

import pytest
from conftest import ROOT
from disarm import DISARM

from gamekit.sandbox import cgroup
from gamekit.sandbox.bwrap import bwrap_path
from gamekit.sandbox.zygote import close_jails
from gamekit.tournament.games import open_rules, resolve_game
from gamekit.tournament.referee import GameSpec, play_game_spec
from gamekit.tournament.runner import Tournament, validate_agent
from gamekit.tournament.sandbox import Limits

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(bwrap_path() is None, reason="bubblewrap (bwrap) is not installed"),
]

AGENTS = ROOT / "tests" / "tournament_agents"
LIMITS = Limits(move_seconds=1.0, bank_seconds=1.0, startup_seconds=8.0, memory_mb=256, output_kb=64)
CANARY = "CANARY-b0undary-secret"
CGROUPS = cgroup.mechanism() == "cgroup-v1"


# An opponent that thinks: 0.15 s of CPU per move, then the first legal move (an honest agent).
THINKER = """NAME = "thinker"
import time

def agent(game, state):
    end = time.process_time() + 0.15
    while time.process_time() < end:
        pass
    return game.legal_moves(state)[0]
"""

ATTACKS = {
    # what the old referee opened by name: a link to a secret, a FIFO (an open that never returns), a hard link
    "linker": """
def agent(game, state):
    for name, make in (("output.txt", lambda n: os.symlink({canary!r}, n)), ("fifo", os.mkfifo),
                       ("agent.py", lambda n: os.symlink("/proc/1/environ", n))):
        try:
            make(name)
        except OSError:
            pass
    try:
        os.link("fifo", "output2.txt")
    except OSError:
        pass
    raise RuntimeError("planted links and a FIFO")
""",
    # text that is not text: invalid UTF-8, a terminal's escape sequence, a lone surrogate, a megabyte
    "texter": """
def agent(game, state):
    sys.stdout.buffer.write(b"\\xff\\xfe\\x1b[2J bad bytes " * 100)
    sys.stdout.flush()
    raise RuntimeError("Eve \\ud800 \\x1b[31m" + "x" * 1_000_000)
""",
    # four children of 200 MB each against a limit of 256 MB for the jail
    "hoarder": """
def agent(game, state):
    flags = mmap.mmap(-1, 8)
    children = []
    for i in range(4):
        try:
            pid = os.fork()
        except OSError:
            break
        if pid == 0:
            block = b"x" * (200 << 20)
            flags[i] = 1
            time.sleep(30)
            os._exit(0)
        children.append(pid)
    time.sleep(1.5)
    held = sum(1 for i, pid in enumerate(children) if flags[i] and os.waitpid(pid, os.WNOHANG) == (0, 0))
    print("HELD", held, "of", len(children), flush=True)
    raise RuntimeError("held %d blocks of 200 MB" % held)
""",
    # a fork bomb
    "bomber": """
def agent(game, state):
    n = 0
    while n < 5000:
        try:
            pid = os.fork()
        except OSError:
            break
        if pid == 0:
            time.sleep(30)
            os._exit(0)
        n += 1
    print("FORKED", n, flush=True)
    raise RuntimeError("forked %d processes" % n)
""",
    # many small files in its own folder
    "filler": """
def agent(game, state):
    written = 0
    try:
        for i in range(1_000_000):
            with open("f%d" % i, "wb") as f:
                f.write(b"y" * 4096)
            written += 4096
    except OSError:
        pass
    print("WROTE", written, flush=True)
    raise RuntimeError("wrote %d bytes" % written)
""",
}
REASONS = {
    "linker": {"exception"},
    "texter": {"output limit", "exception"},
    "hoarder": {"exception", "memory", "crash"},
    "bomber": {"exception", "crash"},
    "filler": {"exception"},
}


def _printed(record: dict, seat: int, word: str) -> list[int]:
    return [int(x) for x in re.findall(word + r" (\d+)", record["output"][seat])]


def _parent(pid: int) -> int:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return 0
    return int(stat.rpartition(")")[2].split()[1])  # the field after the state, past the command's name


def _ours(pid: int) -> bool:
    """Whether `pid` descends from this test process (another pytest worker's jails are not ours)."""
    me, seen = os.getpid(), 0
    while pid > 1 and seen < 64:
        if pid == me:
            return True
        pid, seen = _parent(pid), seen + 1
    return False


def _ended_within(seconds: float, find) -> list[str]:
    """What `find` still lists after up to `seconds` (a killed process may take a moment to be reaped)."""
    deadline = time.monotonic() + seconds
    while (left := find()) and time.monotonic() < deadline:
        time.sleep(0.2)
    return left


_BEFORE: set[int] = set()  # jails other tests of this worker keep (their zygote caches end at exit)


def _jail_processes() -> list[str]:
    found = []
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                cmd = Path(f"/proc/{pid}/cmdline").read_bytes()
            except OSError:
                continue
            jail = b"gamekit.sandbox.zygote" in cmd and str(ROOT).encode() in cmd and b"jailed" in cmd
            if jail and int(pid) not in _BEFORE and _ours(int(pid)):
                found.append(f"{pid}: " + cmd.decode(errors="replace")[:200])
    return found


def _cgroups_left() -> list[str]:
    left = []
    for controller in cgroup.JAIL_CONTROLLERS:
        parent = cgroup._v1_parent(controller)
        if parent is not None:
            left += [p.name for p in parent.iterdir() if p.name.startswith(f"gamekit-{os.getpid()}-")]
    return left


@pytest.fixture(scope="module")
def boundary_run(tmp_path_factory):
    _BEFORE.update(int(line.partition(":")[0]) for line in _jail_processes())
    base = tmp_path_factory.mktemp("boundary")
    canary = base / "teacher" / "id_rsa"
    canary.parent.mkdir()
    canary.write_text(CANARY)
    subs = base / "subs"
    subs.mkdir()
    for name, body in ATTACKS.items():
        (subs / f"{name}.py").write_text(f"NAME = {name!r}\n" + DISARM + body.format(canary=str(canary)))
    (subs / "random_mover.py").write_text((AGENTS / "random_mover.py").read_text())
    (base / "thinker.py").write_text(THINKER)
    t = Tournament(
        base / "t.sqlite",
        sorted(subs.glob("*.py")),
        gauntlet=[base / "thinker.py"],
        format="gauntlet",
        seed=5,
        limits=LIMITS,
    )
    t.run(workers=2, validate=False)
    yield t, base
    t.close()


def test_every_attacker_forfeits_its_own_games_and_the_run_finishes(boundary_run):
    t, _ = boundary_run
    records = {r["id"]: r for r in t.records()}
    assert len(records) == 2 * (len(ATTACKS) + 1)
    for name, reasons in REASONS.items():
        for order in (0, 1):
            r = records[f"{name}~thinker~0~{order}"]
            seat = r["agents"].index(name)
            assert r["forfeit"] == seat and r["reason"] in reasons, (name, r["reason"], r["detail"])


def test_the_honest_games_are_identical_to_a_run_without_attackers(boundary_run, tmp_path):
    t, base = boundary_run
    calm = Tournament(
        tmp_path / "calm.sqlite",
        [AGENTS / "random_mover.py"],
        gauntlet=[base / "thinker.py"],
        format="gauntlet",
        seed=5,
        limits=LIMITS,
    )
    calm.run(workers=2)
    attacked = {r["id"]: r for r in t.records()}
    strip = ("seconds", "times", "failed_after")
    for r in calm.records():
        assert r["forfeit"] is None  # the thinker never loses on time, also beside the attackers
        assert {k: v for k, v in attacked[r["id"]].items() if k not in strip} == {
            k: v for k, v in r.items() if k not in strip
        }
    calm.close()


def test_no_secret_no_bad_text_and_nothing_left(boundary_run):
    t, base = boundary_run
    dump = "\n".join(sqlite3.connect(base / "t.sqlite").iterdump())
    assert CANARY not in dump
    for r in t.records():
        for text in [r["detail"], *r["output"], *r["names"]]:
            text.encode("utf-8")  # valid UTF-8: no lone surrogate
            assert "\x1b" not in text and len(text) <= 2100
    assert not _ended_within(10.0, _jail_processes)
    assert not _cgroups_left()


@pytest.mark.skipif(not CGROUPS, reason="needs writable cgroups (v1 as root)")
def test_memory_processes_and_disk_are_bounded_for_the_jail_as_a_whole(boundary_run):
    t, _ = boundary_run
    records = {r["id"]: r for r in t.records()}
    for order in (0, 1):
        hoard = records[f"hoarder~thinker~0~{order}"]
        seat = hoard["agents"].index("hoarder")
        held = _printed(hoard, seat, "HELD")
        assert held and all(n * 200 <= 256 for n in held), hoard["output"][seat]
        bomb = records[f"bomber~thinker~0~{order}"]
        forked = _printed(bomb, bomb["agents"].index("bomber"), "FORKED")
        assert forked and forked[0] < LIMITS.box().processes, bomb["output"]
        fill = records[f"filler~thinker~0~{order}"]
        wrote = _printed(fill, fill["agents"].index("filler"), "WROTE")
        assert wrote and wrote[0] <= LIMITS.box().disk_mb << 20, fill["output"]


# --- the same attacks with each bound switched off ----------------------------------------------

#: Each bound of the jail above, what the attacker prints about how far it got, and how many times
#: the bound the control lifts it to: twice for the processes (128) and the tmpfs (128 MB); four
#: times for the memory (1 GB), room for all of the hoarder's four blocks of 200 MB at once (with
#: twice the memory, the kernel's OOM killer picks among four children allocating together, and
#: how many are left is a race).
LIFTED = {
    "hoarder": ("memory_mb", LIMITS.box().memory_mb, "HELD", 4),
    "bomber": ("processes", LIMITS.box().processes, "FORKED", 2),
    "filler": ("disk_mb", LIMITS.box().disk_mb, "WROTE", 2),
}


def _how_far(name: str) -> int:
    """What attacker `name` (as the boundary run writes it) printed, alone against the thinker."""
    ref = resolve_game("tictactoe")
    spec = GameSpec(
        id=name,
        game="tictactoe",
        params={},
        start=open_rules(ref).starts(1, 0)[0],
        agents=(name, "thinker"),
        sources=(f"NAME = {name!r}\n" + DISARM + ATTACKS[name].format(canary=CANARY), THINKER),
        seeds=(1, 2),
        limits=LIMITS.as_dict(),
    )
    record = play_game_spec(spec)
    assert record["forfeit"] == 0 and record["reason"] in REASONS[name], (record["reason"], record["detail"])
    printed = _printed(record, 0, LIFTED[name][2])
    assert len(printed) == 1, record["output"][0]
    return printed[0]


@pytest.mark.parametrize(
    "name",
    [
        pytest.param("hoarder", marks=pytest.mark.skipif(not CGROUPS, reason="no fork without cgroups")),
        pytest.param("bomber", marks=pytest.mark.skipif(not CGROUPS, reason="no fork without cgroups")),
        "filler",  # the tmpfs's size: the same for every teacher
    ],
)
def test_each_bound_switched_off_lets_the_same_attack_further(name, monkeypatch):
    """The control of the bounds above: the hoarder, the bomber and the filler alone against the
    thinker, with the jail's bound as it is and lifted (`Limits.box` patched on the referee's side,
    which makes the jails; see `LIFTED`). With the bound lifted each gets further: what stopped it
    above was the bound, not the attack's own end."""
    field, bound, _, factor = LIFTED[name]
    close_jails()  # new jails, made with the bounds this test gives
    try:
        held = _how_far(name)
        box = Limits.box
        monkeypatch.setattr(Limits, "box", lambda self: replace(box(self), **{field: factor * bound}))
        lifted = _how_far(name)
    finally:
        close_jails()
    got = f"{name}: {held} with {field}={bound:g}, {lifted} with {field}={factor * bound:g}"
    if name == "hoarder":  # blocks of 200 MB held at once: with the bound lifted, all four
        assert held * 200 <= bound < lifted * 200 and lifted == 4, got
    elif name == "bomber":  # processes forked (the jail's zygote and the game's process count too)
        assert held < bound <= lifted < factor * bound, got
    else:  # bytes written into its folder
        assert held <= bound * (1 << 20) < lifted <= factor * bound * (1 << 20), got


# --- pondering: every process of a jail is stopped outside its turn --------------------------------

COUNTER = """
_shared = mmap.mmap(-1, 8)
def _count():
    return int.from_bytes(_shared[:8], "little")
def _step():
    _shared[:8] = (_count() + 1).to_bytes(8, "little")
_last, _totals = [None], [0, 0]
def agent(game, state):
    start()
    if _last[0] is not None:
        _totals[0] += _count() - _last[0]
    c0 = time.monotonic()
    before = _count()
    while time.monotonic() < c0 + 0.4:
        time.sleep(0.01)
    _totals[1] += _count() - before
    _last[0] = _count()
    print("OUTSIDE", _totals[0], "INSIDE", _totals[1], flush=True)
    return game.legal_moves(state)[0]
"""
PONDERERS = {
    # children that count while the opponent thinks
    "spinner": """
_started = []
def start():
    if not _started:
        _started.append(1)
        for _ in range(2):
            if os.fork() == 0:
                while True:
                    _step()
""",
    # an interval timer: no thread, no fork
    "alarm": """
def _tick(signum, frame):
    for _ in range(200):
        _step()
def start():
    if signal.getitimer(signal.ITIMER_REAL)[0] == 0:
        signal.signal(signal.SIGALRM, _tick)
        signal.setitimer(signal.ITIMER_REAL, 0.001, 0.001)
""",
}


def _ponder_game(name: str, seat: int) -> dict:
    source = f"NAME = {name!r}\n" + DISARM + PONDERERS[name] + COUNTER
    ref = resolve_game("nim", {"piles": [2, 2, 3]})
    start = open_rules(ref).starts(1, 0)[0]
    thinker = THINKER.replace("0.15", "0.4")  # the longer the opponent thinks, the more a ponderer could do
    sources = [source, thinker] if seat == 0 else [thinker, source]
    spec = GameSpec(
        id="p",
        game="nim",
        params=ref.params,
        start=start,
        agents=("a", "b") if seat == 0 else ("b", "a"),
        sources=tuple(sources),
        seeds=(1, 2),
        limits=LIMITS.as_dict(),
    )
    return play_game_spec(spec)


@pytest.mark.parametrize("name", sorted(PONDERERS))
def test_a_ponderer_gets_nothing_done_outside_its_turn(name, monkeypatch):
    close_jails()  # new jails, made the way this machine makes them
    record = _ponder_game(name, 0)
    assert record["forfeit"] is None, (record["reason"], record["detail"])
    outside, inside = _printed(record, 0, "OUTSIDE")[-1], _printed(record, 0, "INSIDE")[-1]
    # what it counts "outside" is the few milliseconds of its own turn before and after its function
    # runs (on a busy machine the referee's reaction time): never the opponent's 0.4 s of thinking
    assert inside > 0 and outside <= 0.15 * inside, (outside, inside)
    # the same attack without the freezing: it does think in the opponent's turns (the test can fail)
    monkeypatch.setattr(cgroup.GameGroup, "freeze", lambda self: None)
    loose = _ponder_game(name, 0)
    close_jails()
    assert _printed(loose, 0, "OUTSIDE")[-1] > 0.5 * _printed(loose, 0, "INSIDE")[-1], loose["output"][0]


@pytest.mark.skipif(not CGROUPS, reason="the cgroup path is the one tested above")
@pytest.mark.parametrize("name", sorted(PONDERERS))
def test_without_cgroups_a_ponderer_is_stopped_by_signals(name, monkeypatch):
    """The path of a teacher who is not root: SIGSTOP and SIGCONT to the game's process group."""
    monkeypatch.setattr(cgroup, "mechanism", lambda: "signals")
    close_jails()
    try:
        record = _ponder_game(name, 0)
    finally:
        close_jails()
    if name == "spinner":  # no control groups: a game's process gets the filter that refuses new processes
        assert record["forfeit"] == 0 and record["reason"] == "exception", (record["reason"], record["detail"])
        assert "Operation not permitted" in record["detail"] and "os.fork()" in record["detail"], record["detail"]
        return
    assert record["forfeit"] is None, (record["reason"], record["detail"])
    outside, inside = _printed(record, 0, "OUTSIDE")[-1], _printed(record, 0, "INSIDE")[-1]
    assert inside > 0 and outside <= 0.15 * inside, (outside, inside)


def test_a_pondering_thread_forfeits():
    source = (
        "NAME = 'threader'\n"
        + DISARM
        + """
import threading
def _spin():
    while True:
        pass
def agent(game, state):
    threading.Thread(target=_spin, daemon=True).start()
    return game.legal_moves(state)[0]
"""
    )
    ref = resolve_game("nim", {"piles": [2, 2, 3]})
    spec = GameSpec(
        id="p",
        game="nim",
        params=ref.params,
        start=open_rules(ref).starts(1, 0)[0],
        agents=("a", "b"),
        sources=(source, THINKER),
        seeds=(1, 2),
        limits=LIMITS.as_dict(),
    )
    record = play_game_spec(spec)
    assert record["forfeit"] == 0 and record["reason"] == "sandbox" and "thread" in record["detail"]


# --- text -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["Eve \ud800", "\x1b[2J" + "A" * 1_000_000])
def test_a_name_that_is_not_clean_text_costs_only_its_entrant(tmp_path, name):
    path = tmp_path / "eve.py"
    if len(name) < 100:
        path.write_text(
            f"NAME = {name!r}\n"
            + (AGENTS / "first_free.py").read_text().split("NAME")[0]
            + "def agent(game, state):\n    return game.legal_moves(state)[0]\n",
            encoding="utf-8",
            errors="surrogatepass",
        )
    else:  # past the in-process check: the ready message written straight to the pipe
        path.write_text(
            "NAME = 'eve'\n"
            + DISARM
            + f"""
import json
_inside.describe = lambda module: ({name!r}, "function")
def agent(game, state):
    return game.legal_moves(state)[0]
"""
        )
    entrant = validate_agent(path, limits=LIMITS)
    assert entrant.status == "accepted", entrant.reason
    entrant.name.encode("utf-8")
    assert len(entrant.name) <= 50 and "\x1b" not in entrant.name


# --- a game file that rigs the agents' processes ----------------------------------------------------

RIGGED = """
import sys
from gamekit.games.tictactoe import TicTacToe


class Rigged(TicTacToe):
    def legal_moves(self, state):
        moves = tuple(super().legal_moves(state))
        agent = sys.modules.get("agent")
        if agent is not None and getattr(agent, "NAME", "") != "favourite":
            taken = [i for i in range(9) if i not in moves]
            if taken:  # an occupied square first, for everybody but the author's favourite
                return (taken[0],) + moves
        return moves
"""


def _rigged_spec(tmp_path: Path) -> GameSpec:
    (tmp_path / "rigged.py").write_text(RIGGED)
    ref = resolve_game(f"{tmp_path / 'rigged.py'}:Rigged")
    first_free = (AGENTS / "first_free.py").read_text()
    favourite = first_free.replace('NAME = "first legal move"', 'NAME = "favourite"')
    return GameSpec(
        id="r",
        game=ref.name,
        target=ref.target,
        game_source=ref.source,
        params={},
        start=open_rules(ref).starts(1, 0)[0],
        agents=("honest", "favourite"),
        sources=(first_free, favourite),
        seeds=(1, 2),
        limits=LIMITS.as_dict(),
    )


def test_a_game_that_would_rig_the_agents_processes_never_runs_there(tmp_path, monkeypatch):
    spec = _rigged_spec(tmp_path)
    record = play_game_spec(spec)  # the game runs in its own jail only: no agent to look at, so no lie
    assert record["forfeit"] is None and len(record["moves"]) >= 5, (record["reason"], record["detail"])
    # with the game back in the agents' processes the honest agent is recorded as the loser (the test can fail)
    monkeypatch.setattr("gamekit.tournament.sandbox.GAME_BESIDE_AGENTS", True)
    record = play_game_spec(spec)
    assert record["forfeit"] == 0 and record["reason"] == "illegal move"
