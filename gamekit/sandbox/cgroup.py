"""Limits for a jail as a whole, and stopping it outside its turn: control groups, or signals.

Which mechanism holds where (`mechanism()` says which one this machine gets):

Its clock: a turn is charged the larger of the CPU time its game's processes used and the wall
time its process did not spend waiting for a CPU that others held (/proc/PID/schedstat): sleeping
or blocking costs time, a busy machine does not.

* **cgroups v1, as root** (this course's CI): every jail gets its own group in the
  `memory`, `pids`, `freezer` and `cpuacct` hierarchies, below the teacher's own group. Memory
  (without swap), the number of processes and threads, and so the jail's tmpfs (its pages are
  charged to the jail's memory) hold for the zygote and every process it forks, together. Each
  game's process gets a group of its own below the jail's in `freezer` and `cpuacct`: it and
  every process it starts are frozen outside their turn, and its CPU time is read from there.
* **no writable cgroups** (a teacher who is not root, the course's container too: it runs as the user
  `teacher`; cgroup v2 delegation is not used yet): a game's process group gets SIGSTOP outside its
  turn and SIGCONT in it, its CPU time is read from /proc, and memory is bounded per process by
  rlimits. A game's process cannot start another, so nothing leaves the group: its system-call filter
  refuses `fork`, `vfork` and `clone` without `CLONE_THREAD` (`gamekit.sandbox.seccomp`), and
  RLIMIT_NPROC is 0 as well.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import shlex
import signal
import time
from pathlib import Path

V1 = Path("/sys/fs/cgroup")
JAIL_CONTROLLERS = ("memory", "pids", "freezer", "cpuacct")
GAME_CONTROLLERS = ("freezer", "cpuacct")
_COUNTER = itertools.count()


def _own_path(controller: str) -> str | None:
    """This process's group in a v1 hierarchy (from /proc/self/cgroup), or None."""
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        _, names, path = line.split(":", 2)
        if controller in names.split(","):
            return path
    return None


def _v1_parent(controller: str) -> Path | None:
    own = _own_path(controller)
    if own is None:
        return None
    folder = V1 / controller / own.lstrip("/")
    return folder if os.access(folder, os.W_OK) and (folder / "cgroup.procs").exists() else None


def mechanism() -> str:
    """ "cgroup-v1" where this process may make groups in every hierarchy a jail needs, else "signals"."""
    return "cgroup-v1" if all(_v1_parent(c) is not None for c in JAIL_CONTROLLERS) else "signals"


def _write(path: Path, value: str) -> None:
    with open(path, "w") as f:
        f.write(value)


def _procs(folder: Path) -> list[int]:
    try:
        return [int(x) for x in (folder / "cgroup.procs").read_text().split()]
    except (OSError, ValueError):
        return []


def _proc_cpu(pid: int) -> float:
    """CPU seconds of process `pid` and its reaped children (from /proc; 0 if it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return 0.0
    return sum(int(fields[i]) for i in (11, 12, 13, 14)) / os.sysconf("SC_CLK_TCK")


class GameGroup:
    """One game's process and everything it starts: frozen outside its turn, its CPU time measured."""

    def __init__(self, pid: int, folders: dict[str, Path] | None):
        self.pid = pid
        self.folders = folders  # None: signals to the process group
        self.frozen = False
        self._state = self._usage = -1  # kept open: a write or read costs microseconds, an open() far more
        try:  # its process's scheduler statistics: how long it waited for a CPU that others held
            self._sched = os.open(f"/proc/{pid}/schedstat", os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            self._sched = -1
        if folders is not None:
            for folder in folders.values():
                folder.mkdir()
                _write(folder / "cgroup.procs", str(pid))
            self._state = os.open(folders["freezer"] / "freezer.state", os.O_WRONLY | os.O_CLOEXEC)
            self._usage = os.open(folders["cpuacct"] / "cpuacct.usage", os.O_RDONLY | os.O_CLOEXEC)

    def freeze(self) -> None:
        """Stop every process of the game (it gets nothing done until `thaw`)."""
        if self.frozen:
            return
        self.frozen = True
        with contextlib.suppress(OSError):
            if self._state >= 0:
                os.write(self._state, b"FROZEN")
            elif self.folders is None:
                os.killpg(self.pid, signal.SIGSTOP)

    def thaw(self) -> None:
        if not self.frozen:
            return
        self.frozen = False
        with contextlib.suppress(OSError):
            if self._state >= 0:
                os.write(self._state, b"THAWED")
            elif self.folders is None:
                os.killpg(self.pid, signal.SIGCONT)

    def cpu_seconds(self) -> float:
        """CPU time used so far by the game's processes together (its own process only, with signals)."""
        if self._usage >= 0:
            with contextlib.suppress(OSError, ValueError):
                return int(os.pread(self._usage, 32, 0)) / 1e9
        return _proc_cpu(self.pid)

    def waited_seconds(self) -> float:
        """How long its process has waited, runnable, for a CPU held by others (0 where not measured)."""
        if self._sched >= 0:
            with contextlib.suppress(OSError, ValueError, IndexError):
                return int(os.pread(self._sched, 96, 0).split()[1]) / 1e9
        return 0.0

    def close(self) -> None:
        """Kill whatever of the game is left and remove its groups."""
        if self._sched >= 0:
            os.close(self._sched)
            self._sched = -1
        self.thaw()
        if self.folders is None:
            with contextlib.suppress(OSError):
                os.killpg(self.pid, signal.SIGKILL)
            return
        _empty(self.folders["freezer"])
        for fd in (self._state, self._usage):
            if fd >= 0:
                os.close(fd)
        self._state = self._usage = -1
        for folder in self.folders.values():
            with contextlib.suppress(OSError):
                folder.rmdir()


def _empty(folder: Path, patience: float = 5.0) -> None:
    """Kill every process in the group `folder` (thawed first: a frozen task dies only when thawed)."""
    end = time.monotonic() + patience
    while True:
        pids = _procs(folder)
        if not pids or time.monotonic() > end:
            return
        if (folder / "freezer.state").exists():
            with contextlib.suppress(OSError):
                _write(folder / "freezer.state", "THAWED")
        for pid in pids:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.005)


def _remove(folder: Path) -> None:
    """Kill everything in a jail's group `folder` and remove it with its game groups (a group that
    is already gone, removed by another teacher's process sweeping at the same time, is fine)."""
    try:
        subs = [p for p in folder.iterdir() if p.is_dir()]
    except OSError:
        subs = []
    for sub in subs:
        _empty(sub)
        with contextlib.suppress(OSError):
            sub.rmdir()
    _empty(folder)
    with contextlib.suppress(OSError):
        folder.rmdir()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


_SWEPT: set[int] = set()


def sweep_stale() -> list[str]:
    """Remove the groups of jails whose teacher's process is gone (killed before it could clean up:
    `kill -9`, a power cut); once per process. Returns the names removed."""
    if os.getpid() in _SWEPT:
        return []
    _SWEPT.add(os.getpid())
    removed = []
    for controller in JAIL_CONTROLLERS:
        parent = _v1_parent(controller)
        if parent is None:
            continue
        for folder in parent.glob("gamekit-*-*"):
            owner = folder.name.split("-")[1]
            if owner.isdigit() and not _alive(int(owner)):
                _remove(folder)
                removed.append(f"{controller}/{folder.name}")
    return removed


class JailGroup:
    """The control groups of one jail (see the module docstring); `None`-free: with signals only it
    holds nothing but makes `GameGroup`s that stop by signal."""

    def __init__(self, memory_bytes: int | None = None, pids: int | None = None):
        self.folders: dict[str, Path] = {}
        if mechanism() != "cgroup-v1":
            return
        sweep_stale()
        name = f"gamekit-{os.getpid()}-{next(_COUNTER)}"
        try:
            for controller in JAIL_CONTROLLERS:
                parent = _v1_parent(controller)
                assert parent is not None
                folder = parent / name
                folder.mkdir()
                self.folders[controller] = folder
            if pids is not None:
                _write(self.folders["pids"] / "pids.max", str(int(pids)))
            if memory_bytes is not None:
                self.limit_memory(memory_bytes)
        except OSError:
            self.close()
            self.folders = {}

    @property
    def active(self) -> bool:
        return bool(self.folders)

    def limit_memory(self, memory_bytes: int) -> None:
        """Memory of the whole jail, swap included (where the kernel accounts swap)."""
        if not self.active:
            return
        memory = self.folders["memory"]
        swap = memory / "memory.memsw.limit_in_bytes"
        current = int((memory / "memory.limit_in_bytes").read_text())
        order = (
            [memory / "memory.limit_in_bytes", swap]
            if memory_bytes < current
            else [swap, memory / "memory.limit_in_bytes"]
        )
        for path in order:
            if path.exists():
                with contextlib.suppress(OSError):
                    _write(path, str(int(memory_bytes)))

    def memory_used(self) -> int:
        if not self.active:
            return 0
        try:
            return int((self.folders["memory"] / "memory.usage_in_bytes").read_text())
        except (OSError, ValueError):
            return 0

    def oom_kills(self) -> int:
        """How many processes of the jail the kernel killed for want of memory."""
        if not self.active:
            return 0
        with contextlib.suppress(OSError, ValueError):
            for line in (self.folders["memory"] / "memory.oom_control").read_text().splitlines():
                if line.startswith("oom_kill "):
                    return int(line.split()[1])
        return 0

    def wrap(self, argv: list[str]) -> list[str]:
        """`argv` started inside the jail's groups (a shell joins them, then becomes `argv`)."""
        if not self.active:
            return argv
        joins = " && ".join(f"echo $$ > {shlex.quote(str(self.folders[c] / 'cgroup.procs'))}" for c in JAIL_CONTROLLERS)
        return ["/bin/sh", "-c", f'{joins} && exec "$@"', "sh", *argv]

    def game(self, pid: int) -> GameGroup:
        """A group of its own for the game process `pid` (a host pid; it has run no student code yet)."""
        folders = None
        if self.active:
            tag = f"g{pid}"
            folders = {c: self.folders[c] / tag for c in GAME_CONTROLLERS}
        return GameGroup(pid, folders)

    def close(self) -> None:
        """Kill every process of the jail and remove its groups."""
        if not self.folders:
            return
        for controller in ("freezer", "memory", "pids", "cpuacct"):  # thawed and killed first
            if controller in self.folders:
                _remove(self.folders[controller])
        self.folders = {}


def host_pid(root: int, ns_pid: int) -> int | None:
    """The host pid of the process that is `ns_pid` in the PID namespace of `root`'s descendants."""
    todo, seen = [root], set()
    while todo:
        pid = todo.pop()
        if pid in seen:
            continue
        seen.add(pid)
        try:
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            continue
        for line in status.splitlines():
            if line.startswith("NSpid:") and pid != root and int(line.split()[-1]) == ns_pid:
                return pid
        with contextlib.suppress(OSError):
            for task in os.listdir(f"/proc/{pid}/task"):
                todo += [int(x) for x in Path(f"/proc/{pid}/task/{task}/children").read_text().split()]
    return None
