"""Attacks on the tournament's real zygote and on the other processes of a jail, from a game's process.

`tests/test_jail_kernel.py` attacks a stand-in pid 1. Here the attacker is a student's agent file,
run by the real referee (`Tournament`, `play_game_spec`) in the real jail: a process forked by the
real zygote (`gamekit.sandbox.zygote`), the jail's pid 1. It first switches off the in-process
guard (no boundary), then, with raw system calls through ctypes, as a student who has read
`gamekit/sandbox/` and issue 34 would:

* attaches to the zygote and to every other process it sees (`ptrace` PTRACE_ATTACH and
  PTRACE_SEIZE);
* opens `/proc/<zygote>/mem` for writing and for reading, lists `/proc/<zygote>/fd`, reads a
  descriptor's link and flags (`fdinfo`), opens its stderr (the referee's file) for writing, and
  reads its environment;
* reads and writes the zygote's memory with `process_vm_readv`/`process_vm_writev`, and asks
  `pidfd_getfd` for each of its descriptors (its socket to the referee would let it order forks);
* makes a helper that is not its own child nor in its process group: `clone(CLONE_PARENT)` makes
  the zygote the helper's parent, and the helper calls `setsid`; then the helper counts while the
  opponent thinks (the issue's helper pondered 260,000-420,000 steps per opponent turn).

Every attempt's outcome (an errno name, or "ok") is printed as JSON and checked here, the errno in
each assertion's message. A jail with control groups (root) may fork: the helper is made, but it
stays in its game's freezer group, so it gets nothing done outside its game's turns, and it ends
with the game. Without control groups (a teacher who is not root) the filter refuses the helper
(EPERM). The run finishes, the attacker plays the very game of two first-free players (its
opponent untouched), and the protections are shown failing when switched off: without the filter,
without the zygote's non-dumpable flag, with neither, and (for a teacher without control groups)
without the filter that keeps a game's process one process.

Where the teacher is root, the jail's user is the host's root, and `/proc/<zygote>/fd` lists the
numbers of the zygote's descriptors (nothing more: each entry is refused); see `REFUSED`.

The zygote's own descriptors are checked from the host: all close-on-exec but 0, 1 and 2, and its
stderr bounded by the jail's file-size limit.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from disarm import DISARM
from test_tournament_attacks import first_free_game  # the game two first-free players play
from test_tournament_boundary import THINKER  # the honest opponent that thinks 0.15 s a move

from gamekit.sandbox import cgroup, zygote
from gamekit.sandbox.bwrap import Jail, bwrap_path
from gamekit.sandbox.zygote import close_jails
from gamekit.tournament.games import open_rules, resolve_game
from gamekit.tournament.referee import GameSpec, play_game_spec
from gamekit.tournament.runner import Tournament
from gamekit.tournament.sandbox import AgentProcess, Limits

pytestmark = [
    pytest.mark.slow,  # each starts jails (a fraction of a second each): the fast tier starts none
    pytest.mark.skipif(bwrap_path() is None, reason="bubblewrap (bwrap) is not installed"),
]

LIMITS = Limits(move_seconds=1.0, bank_seconds=1.0, startup_seconds=8.0, memory_mb=128, output_kb=64, log_chars=16000)
CGROUPS = cgroup.mechanism() == "cgroup-v1"
O_CLOEXEC = 0o2000000


ATTACKER = r'''
import ctypes, errno, json, mmap, platform, select, time

_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long
_NR = {
    "x86_64": {"ptrace": 101, "process_vm_readv": 310, "process_vm_writev": 311, "clone": 56,
               "pidfd_open": 434, "pidfd_getfd": 438},
    "aarch64": {"ptrace": 117, "process_vm_readv": 270, "process_vm_writev": 271, "clone": 220,
                "pidfd_open": 434, "pidfd_getfd": 438},
}[platform.machine()]
PTRACE_ATTACH, PTRACE_DETACH, PTRACE_SEIZE, PTRACE_INTERRUPT = 16, 17, 0x4206, 0x4207
CLONE_PARENT, SIGCHLD = 0x00008000, 17
WALL = 0x40000000


def _name(number):
    return errno.errorcode.get(number, str(number))


def _call(name, *args):
    """(result, outcome): the system call's return value, and "ok" or the errno's name."""
    ctypes.set_errno(0)
    done = _libc.syscall(_NR[name], *[ctypes.c_long(a) if isinstance(a, int) else a for a in args])
    return done, ("ok" if done >= 0 else _name(ctypes.get_errno()))


def _os(action):
    try:
        action()
        return "ok"
    except OSError as exc:
        return _name(exc.errno)


class _iovec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]


def _attack(pid):
    """Every way into process `pid`: what each attempt got."""
    got = {}
    _, got["ptrace_attach"] = _call("ptrace", PTRACE_ATTACH, pid, 0, 0)
    if got["ptrace_attach"] == "ok":  # attached (a protection is off): let it go on
        os.waitpid(pid, WALL)
        _call("ptrace", PTRACE_DETACH, pid, 0, 0)
    _, got["ptrace_seize"] = _call("ptrace", PTRACE_SEIZE, pid, 0, 0)
    if got["ptrace_seize"] == "ok":
        _call("ptrace", PTRACE_INTERRUPT, pid, 0, 0)
        os.waitpid(pid, WALL)
        _call("ptrace", PTRACE_DETACH, pid, 0, 0)
    proc = "/proc/%d/" % pid
    got["mem_write"] = _os(lambda: os.close(os.open(proc + "mem", os.O_RDWR)))
    got["mem_read"] = _os(lambda: os.close(os.open(proc + "mem", os.O_RDONLY)))
    got["fd_list"] = _os(lambda: os.listdir(proc + "fd"))
    got["fd_link"] = _os(lambda: os.readlink(proc + "fd/2"))
    got["fd_open_stderr"] = _os(lambda: os.close(os.open(proc + "fd/2", os.O_WRONLY | os.O_APPEND)))
    got["fdinfo"] = _os(lambda: os.close(os.open(proc + "fdinfo/2", os.O_RDONLY)))
    got["environ"] = _os(lambda: os.close(os.open(proc + "environ", os.O_RDONLY)))
    # an address that holds the same bytes there as here (the process was forked from the zygote,
    # or forked by it): the type pointer of a string the zygote loaded before it forked
    address = id(_inside.__name__) + 8
    here = ctypes.create_string_buffer(ctypes.string_at(address, 8), 8)
    local = _iovec(ctypes.cast(here, ctypes.c_void_p), 8)
    remote = _iovec(address, 8)
    _, got["vm_readv"] = _call("process_vm_readv", pid, ctypes.byref(local), 1, ctypes.byref(remote), 1, 0)
    _, got["vm_writev"] = _call("process_vm_writev", pid, ctypes.byref(local), 1, ctypes.byref(remote), 1, 0)
    pidfd, got["pidfd_open"] = _call("pidfd_open", pid, 0)
    taken = []
    if pidfd >= 0:
        for fd in range(0, 10):  # its socket to the referee is among them: with it, order a fork
            fd_got, outcome = _call("pidfd_getfd", pidfd, fd, 0)
            if fd_got >= 0:
                os.close(fd_got)
            if outcome != "EBADF":
                taken.append(outcome)
        os.close(pidfd)
    got["pidfd_getfd"] = sorted(set(taken)) or ["EBADF"]
    return got


_shared = mmap.mmap(-1, 8)  # shared with the helper across the fork


def _count():
    return int.from_bytes(_shared[:8], "little")


def _helper():
    """A process whose parent is the zygote (CLONE_PARENT), in a session of its own (setsid): outside
    its game's process group. It says where it is, then counts for at most 20 s."""
    r, w = os.pipe()
    pid, outcome = _call("clone", CLONE_PARENT | SIGCHLD, 0, 0, 0, 0)
    if pid == 0:  # the helper
        try:
            os.close(r)
            os.setsid()
            where = {"ppid": os.getppid(), "pgid": os.getpgid(0), "sid": os.getsid(0),
                     "cgroup": sorted(line.split(":", 1)[1] for line in open("/proc/self/cgroup").read().split())}
            os.write(w, json.dumps(where).encode())
            os.close(w)
            end = time.monotonic() + 20
            while time.monotonic() < end:
                _shared[:8] = (_count() + 1).to_bytes(8, "little")
        finally:
            os._exit(0)
    os.close(w)
    found = {"clone_parent": outcome, "helper": None}
    if pid > 0:
        found["helper"] = {"pid": pid}
        if select.select([r], [], [], 5)[0]:
            found["helper"].update(json.loads(os.read(r, 65536)))
    os.close(r)
    try:
        child = os.fork()
        if child == 0:
            os._exit(0)
        os.waitpid(child, 0)
        found["fork"] = "ok"
    except OSError as exc:
        found["fork"] = _name(exc.errno)
    return found


_state = {"last": None, "outside": 0, "inside": 0, "reported": False, "helper": False}


def agent(game, state):
    if _state["last"] is not None:  # what the helper counted since this agent's last turn ended
        _state["outside"] += _count() - _state["last"]
    if not _state["reported"]:
        _state["reported"] = True
        me, zygote = os.getpid(), os.getppid()
        others = sorted(int(p) for p in os.listdir("/proc") if p.isdigit() and int(p) not in (me, zygote, 1))
        report = {
            "me": me,
            "pgid": os.getpgid(0),
            "zygote": zygote,
            "cgroup": sorted(line.split(":", 1)[1] for line in open("/proc/self/cgroup").read().split()),
            "targets": {str(pid): _attack(pid) for pid in sorted({1, zygote})},
            "siblings": {str(pid): _attack(pid) for pid in others},
        }
        report.update(_helper())
        _state["helper"] = report["helper"] is not None
        print("REPORT " + json.dumps(report, sort_keys=True), flush=True)
    before = _count()
    if _state["helper"]:
        time.sleep(_PONDER)  # its own turn: the helper counts here
    _state["inside"] += _count() - before
    _state["last"] = _count()
    print("PONDER", _state["outside"], _state["inside"], flush=True)
    return game.legal_moves(state)[0]
'''

#: Each attempt on another process of the jail, and what the kernel answers: the filter refuses
#: ptrace, process_vm_* and pidfd_getfd (EPERM); /proc refuses a non-dumpable process's memory, its
#: descriptors and its environment to every other process of its jail (EACCES).
REFUSED = {
    "ptrace_attach": "EPERM",
    "ptrace_seize": "EPERM",
    "mem_write": "EACCES",
    "mem_read": "EACCES",
    "fd_list": "EACCES",
    "fd_link": "EACCES",
    "fd_open_stderr": "EACCES",
    "fdinfo": "EACCES",
    "environ": "EACCES",
    "vm_readv": "EPERM",
    "vm_writev": "EPERM",
    "pidfd_getfd": ["EPERM"],
}
if os.geteuid() == 0:
    # Where the teacher is root, bubblewrap maps the jail's user to the host's root: a non-dumpable
    # process's /proc/PID/fd folder then belongs to the jail's own user, which may list the numbers
    # of its descriptors (nothing else: every entry, its link and its flags are refused above). For a
    # teacher who is not root the listing is refused too.
    REFUSED["fd_list"] = "ok"
#: What a game's process gets when the filter is switched off (bubblewrap without --seccomp): the
#: zygote's non-dumpable flag still refuses all of it (the kernel's own ptrace check; it answers
#: process_vm_* and pidfd_getfd with EPERM as the filter does).
WITHOUT_FILTER = dict(REFUSED)
#: ... and when the zygote is dumpable (its `not_dumpable()` switched off) under the filter: the
#: filter still refuses the system calls, but /proc opens the zygote's memory for writing, its
#: descriptors (stderr: the referee's file) and its environment.
DUMPABLE = {
    **REFUSED,
    **dict.fromkeys(["mem_write", "mem_read", "fd_list", "fd_link", "fd_open_stderr", "fdinfo", "environ"], "ok"),
}
#: ... and with neither: everything goes through, ptrace and the zygote's memory included (the
#: attack of issue 34).
NEITHER = {**dict.fromkeys(REFUSED, "ok"), "pidfd_getfd": ["ok"]}


def attacker_source(ponder: float = 0.2) -> str:
    """The attacker's file; with a helper, it sleeps `ponder` seconds in each of its turns (while the
    helper counts what a turn is worth)."""
    return f"NAME = 'zygote attacker'\n_PONDER = {ponder!r}\n" + DISARM + ATTACKER


def report_of(output: str) -> dict:
    found = re.search(r"^REPORT (\{.*\})$", output, re.M)
    assert found, f"the attacker printed no report: {output[-1500:]!r}"
    return json.loads(found.group(1))


def pondered(output: str) -> tuple[int, int]:
    """(steps its helper counted outside its turns, inside them), as the attacker last printed them."""
    found = re.findall(r"^PONDER (\d+) (\d+)$", output, re.M)
    assert found, f"the attacker printed no count: {output[-1500:]!r}"
    return int(found[-1][0]), int(found[-1][1])


def assert_got(report: dict, where: str, expected: dict) -> None:
    """Every attempt on every process in `report[where]` got what `expected` says (errno in the message)."""
    for pid, got in report[where].items():
        wrong = {k: f"got {got[k]}, expected {v}" for k, v in expected.items() if got[k] != v}
        assert not wrong, f"{where} (pid {pid} in the jail): {wrong}; every attempt: {got}"


def assert_no_helper_escapes(report: dict, output: str, one_process: bool) -> None:
    """(d): no process of the game's that its game's freeze and end do not hold."""
    if one_process:  # no control groups: a game's process is one process, by the filter
        assert (report["clone_parent"], report["fork"]) == ("EPERM", "EPERM"), (
            f"clone(CLONE_PARENT) got {report['clone_parent']}, fork got {report['fork']}: both must be EPERM"
        )
        assert report["helper"] is None, report["helper"]
        return
    # control groups: a jail may fork (its pids limit bounds it). The helper is made, the zygote is
    # its parent and it is out of the game's process group (a signal to the group misses it), but it
    # is in its game's freezer and cpuacct groups, so it is frozen and charged with the game
    helper = report["helper"]
    assert report["clone_parent"] == "ok" and helper is not None, f"clone(CLONE_PARENT) got {report['clone_parent']}"
    assert helper["ppid"] == report["zygote"] and helper["pgid"] != report["pgid"], (helper, report["pgid"])
    game_groups = [line for line in report["cgroup"] if line.split(":")[0] in ("freezer", "cpuacct")]
    assert len(game_groups) == 2 and all(line.split(":", 1)[1] != "/" for line in game_groups), report["cgroup"]
    assert set(game_groups) <= set(helper["cgroup"]), f"the helper left its game's groups: {helper['cgroup']}"
    outside, inside = pondered(output)
    assert inside > 0 and outside <= 0.15 * inside, f"its helper counted {outside} steps outside its turns, {inside} in"


def _spec(sources: tuple[str, str], agents: tuple[str, str]) -> GameSpec:
    ref = resolve_game("tictactoe")
    return GameSpec(
        id="z",
        game="tictactoe",
        params={},
        start=open_rules(ref).starts(1, 0)[0],
        agents=agents,
        sources=sources,
        seeds=(1, 2),
        limits=LIMITS.as_dict(),
    )


def _children(pid: int) -> list[int]:
    """The live children of `pid` (a killed one waiting for its parent to collect it is not)."""
    try:
        children = [int(x) for x in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []
    live = []
    for child in children:
        with contextlib.suppress(OSError, IndexError):
            if Path(f"/proc/{child}/stat").read_text().rpartition(")")[2].split()[0] not in ("Z", "X"):
                live.append(child)
    return live


def _left_in_jails(seconds: float = 5.0) -> list[int]:
    """Processes still in this process's jails (besides their zygotes) after up to `seconds`."""
    deadline = time.monotonic() + seconds
    while True:
        left = []
        for z in list(zygote._JAILS.values()):
            if z.alive():
                left += _children(z.host_pid(z.pid) or 0)
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.1)


def _zygote_processes() -> set[str]:
    """Processes descending from this test process whose command is a zygote's (a game's process and
    a helper are forked from one, so they show the same command)."""
    found = set()
    for name in os.listdir("/proc"):
        if name.isdigit() and _descends(int(name)):
            with contextlib.suppress(OSError):
                command = Path(f"/proc/{name}/cmdline").read_bytes()
                if b"gamekit.sandbox.zygote" in command:
                    found.add(f"{name}: {command[:120]!r}")
    return found


def _outlived(before: set[str], seconds: float = 5.0) -> set[str]:
    """What `_zygote_processes` finds that it did not find `before`, after up to `seconds`."""
    deadline = time.monotonic() + seconds
    while (left := _zygote_processes() - before) and time.monotonic() < deadline:
        time.sleep(0.1)
    return left


def _descends(pid: int) -> bool:
    me = os.getpid()
    for _ in range(64):
        if pid == me:
            return True
        try:
            pid = int(Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[1])
        except (OSError, ValueError, IndexError):
            return False
        if pid <= 1:
            return False
    return False


@pytest.fixture
def fresh_jails():
    """New jails, made as the test says; none of them is kept for a later test."""
    close_jails()
    yield
    close_jails()


# --- (a)-(d) in a real tournament ---------------------------------------------------------------


def test_a_tournament_with_a_zygote_attacker_finishes_with_its_opponent_untouched(tmp_path, fresh_jails):
    (tmp_path / "zygote_attacker.py").write_text(attacker_source())
    (tmp_path / "thinker.py").write_text(THINKER)
    t = Tournament(
        tmp_path / "t.sqlite",
        [tmp_path / "zygote_attacker.py"],
        gauntlet=[tmp_path / "thinker.py"],
        format="gauntlet",
        seed=7,
        limits=LIMITS,
    )
    before = _zygote_processes()  # an unjailed zygote another test left for this process's end
    try:
        t.run(workers=2, validate=False)
        records = {r["id"]: r for r in t.records()}
        assert len(records) == 2, sorted(records)
        for order in (0, 1):
            r = records[f"zygote_attacker~thinker~0~{order}"]
            seat = r["agents"].index("zygote_attacker")
            # it played on: the very game of two first-free players (nothing of its opponent's changed)
            assert r["forfeit"] is None, (r["reason"], r["detail"])
            assert (r["moves"], r["winner"]) == first_free_game(), r
            assert "REPORT" not in r["output"][1 - seat]
            report = report_of(r["output"][seat])
            assert report["zygote"] == 1 and list(report["targets"]) == ["1"], report
            assert_got(report, "targets", REFUSED)
            assert_got(report, "siblings", REFUSED)  # its other game, where both ran in one jail at once
            assert_no_helper_escapes(report, r["output"][seat], one_process=not CGROUPS)
        assert not _outlived(before), "a process of the run's jails outlived it"
    finally:
        t.close()


MECHANISMS = ["this machine's"] + (["signals"] if CGROUPS else [])  # as root, also as a teacher without cgroups


@pytest.mark.parametrize("mechanism", MECHANISMS)
def test_a_game_process_reaches_neither_the_zygote_nor_its_sibling(mechanism, monkeypatch, fresh_jails):
    """Both seats are the attacker's file, so both games' processes are forked by one zygote in one
    jail: each attacks the zygote and the other (frozen or stopped) game's process, its sibling."""
    if mechanism == "signals":
        monkeypatch.setattr(cgroup, "mechanism", lambda: "signals")
    one_process = mechanism == "signals" or not CGROUPS
    source = attacker_source()
    record = play_game_spec(_spec((source, source), ("a", "b")))
    assert record["forfeit"] is None and (record["moves"], record["winner"]) == first_free_game(), record
    for seat in (0, 1):
        report = report_of(record["output"][seat])
        assert report["zygote"] == 1, report
        assert report["siblings"], f"seat {seat} saw no sibling: {report}"
        assert_got(report, "targets", REFUSED)
        assert_got(report, "siblings", REFUSED)
        assert_no_helper_escapes(report, record["output"][seat], one_process)
    assert not _left_in_jails(), "a process outlived its game in a jail"


# --- the same attacks with a protection switched off --------------------------------------------


def _dumpable_zygote(monkeypatch: pytest.MonkeyPatch) -> None:
    """Zygotes started from now on skip `seccomp.not_dumpable()` (the only change)."""
    start = "from gamekit.sandbox.zygote import serve_forever; "
    assert start in zygote.BOOT
    dumpable = "import gamekit.sandbox.seccomp as _s; _s.not_dumpable = lambda: None; " + start
    monkeypatch.setattr(zygote, "BOOT", zygote.BOOT.replace(start, dumpable))


SWITCHED_OFF = {"filter": WITHOUT_FILTER, "non-dumpable": DUMPABLE, "both": NEITHER}


@pytest.mark.parametrize("off", sorted(SWITCHED_OFF))
def test_each_protection_of_the_zygote_switched_off(off, monkeypatch, fresh_jails):
    """The control: the same attacker against the real zygote, with the filter (bubblewrap without
    --seccomp), the zygote's non-dumpable flag, or both switched off. What each protection refused
    above now goes through, so the refusals above are theirs and the test can fail."""
    if off in ("filter", "both"):
        command = Jail.command

        def without_filter(self, argv, seccomp_fd):
            line = command(self, argv, seccomp_fd)
            at = line.index("--seccomp")
            return line[:at] + line[at + 2 :]

        monkeypatch.setattr(Jail, "command", without_filter)
    if off in ("non-dumpable", "both"):
        _dumpable_zygote(monkeypatch)
    record = play_game_spec(_spec((attacker_source(ponder=0.0), THINKER), ("a", "t")))
    report = report_of(record["output"][0])
    assert_got(report, "targets", SWITCHED_OFF[off])
    assert record["forfeit"] is None and (record["moves"], record["winner"]) == first_free_game(), record


def test_without_the_process_filter_a_helper_leaves_the_stopped_group(monkeypatch, fresh_jails):
    """The control of (d) for a teacher without control groups (forced here where the machine has
    them): the zygote started without its `NO_PROCESSES` filter for games. As root the helper is
    made, leaves its game's process group and counts while its game is stopped (the issue's 260,000
    and more steps per opponent turn); as a teacher who is not root RLIMIT_NPROC, the courtesy
    backstop, refuses it with EAGAIN instead of the filter's EPERM."""
    monkeypatch.setattr(cgroup, "mechanism", lambda: "signals")
    one_process = "sys.argv[3] == 'one-process'"
    assert one_process in zygote.BOOT
    monkeypatch.setattr(zygote, "BOOT", zygote.BOOT.replace(one_process, "False"))
    record = play_game_spec(_spec((attacker_source(), THINKER), ("a", "t")))
    report, output = report_of(record["output"][0]), record["output"][0]
    if os.geteuid() != 0:
        assert (report["clone_parent"], report["fork"]) == ("EAGAIN", "EAGAIN"), report
        return
    assert report["clone_parent"] == "ok" and report["helper"]["pgid"] != report["pgid"], report
    outside, inside = pondered(output)
    assert outside > 0.3 * inside > 0, f"its helper counted {outside} steps outside its turns, {inside} in"


# --- (2) the zygote's descriptors ----------------------------------------------------------------


def _open_fds(pid: int) -> dict[int, tuple[str, int]]:
    """Each descriptor of process `pid` (host view): (what it is, its open flags)."""
    found = {}
    for name in os.listdir(f"/proc/{pid}/fd"):
        with contextlib.suppress(FileNotFoundError):  # one the listing itself opened and closed
            flags = Path(f"/proc/{pid}/fdinfo/{name}").read_text().split("flags:")[1].split()[0]
            found[int(name)] = (os.readlink(f"/proc/{pid}/fd/{name}"), int(flags, 8))
    return found


def inheritable(pid: int, passed: set[int] = frozenset({0, 1, 2})) -> dict[int, str]:
    """The descriptors of `pid` without close-on-exec, besides those it passes on deliberately."""
    return {fd: what for fd, (what, flags) in _open_fds(pid).items() if fd not in passed and not flags & O_CLOEXEC}


def unbounded_output(pid: int) -> dict[int, str]:
    """Its stdout and stderr that are files on the host's disk with no file-size limit on `pid`."""
    limit = [line.split()[3:5] for line in Path(f"/proc/{pid}/limits").read_text().splitlines() if "file size" in line]
    soft, hard = limit[0]
    found = {}
    for fd in (1, 2):
        target = f"/proc/{pid}/fd/{fd}"
        if stat.S_ISREG(os.stat(target).st_mode) and "unlimited" in (soft, hard):
            found[fd] = os.readlink(target)
    return found


def _started_agent() -> tuple[AgentProcess, int, int]:
    """A plain agent's process, started and loaded in its jail: (it, its zygote's host pid, its own)."""
    agent = AgentProcess("NAME = 'plain'\ndef agent(game, state):\n    return game.legal_moves(state)[0]\n", LIMITS)
    agent.wait_ready(agent.start())
    assert agent.zygote is not None
    zygote_pid, game_pid = agent.zygote.host_pid(agent.zygote.pid), agent.zygote.host_pid(agent.pid)
    assert zygote_pid and game_pid, (zygote_pid, game_pid)
    return agent, zygote_pid, game_pid


@pytest.mark.parametrize("mechanism", MECHANISMS)
def test_the_zygote_holds_no_descriptor_without_close_on_exec(mechanism, monkeypatch, fresh_jails):
    """Seen from the host (/proc/PID/fdinfo of the real zygote, while a game runs): every descriptor
    of the zygote but 0, 1 and 2 is close-on-exec (its socket to the referee was not, before issue
    34's third round), and so is every one of its game's process (its pipes to the referee); the
    zygote's stderr, a file of the referee's, is bounded by the jail's file-size limit (the issue's
    attacker filled it with 300 MB per game).

    A teacher who is not root cannot read a non-dumpable process's descriptors in a jail at all (nor
    can any process of the jail): that is checked, and the table is read from the same zygote
    started dumpable (the flag changes no descriptor)."""
    if mechanism == "signals":
        monkeypatch.setattr(cgroup, "mechanism", lambda: "signals")
    if os.geteuid() != 0:
        agent, zygote_pid, game_pid = _started_agent()
        try:
            for pid in (zygote_pid, game_pid):
                with pytest.raises(PermissionError):
                    os.listdir(f"/proc/{pid}/fd")
        finally:
            agent.close()
        close_jails()
        _dumpable_zygote(monkeypatch)
    agent, zygote_pid, game_pid = _started_agent()
    try:
        fds = _open_fds(zygote_pid)
        assert not inheritable(zygote_pid), f"the zygote's descriptors without close-on-exec: {fds}"
        assert not inheritable(game_pid), f"its game's: {_open_fds(game_pid)}"
        assert not unbounded_output(zygote_pid), fds
        if stat.S_ISREG(os.stat(f"/proc/{zygote_pid}/fd/2").st_mode):  # the bound is the jail's own
            limits = Path(f"/proc/{zygote_pid}/limits").read_text()
            size = [line.split()[3:5] for line in limits.splitlines() if "file size" in line][0]
            assert size == [str(LIMITS.output_kb << 10)] * 2, f"the zygote's stderr {fds[2]} has a size limit of {size}"
    finally:
        agent.close()


def test_the_descriptor_checks_find_what_they_look_for(tmp_path):
    """The control: a process with an inherited descriptor and an unbounded file as stderr is found."""
    r, w = os.pipe()
    with tempfile.TemporaryFile(dir=tmp_path) as err:
        child = subprocess.Popen(
            [sys.executable, "-c", "import time; time.sleep(30)"], pass_fds=[r], stderr=err, stdin=subprocess.DEVNULL
        )
        try:
            assert r in inheritable(child.pid)
            assert 2 in unbounded_output(child.pid)
        finally:
            child.kill()
            child.wait()
            os.close(r)
            os.close(w)
