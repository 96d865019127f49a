"""A warm parent for agent processes: one helper process that has imported gamekit and forks.

Starting a fresh Python for every agent in every game costs a few hundred milliseconds (the
interpreter, numpy, gamekit). The zygote pays that once: it starts clean (fixed hash seed, one
BLAS thread, no inherited environment), imports gamekit, and then forks one child per agent per
game on request (a few milliseconds). Each child starts a new session, so the referee can kill
it and anything it started with one signal to its process group, and enters the sandbox of
`gamekit.tournament.child` before the submission's code runs.

The referee talks to the zygote over a Unix socket pair (SOCK_SEQPACKET: one JSON message per
packet); the zygote answers a "spawn" with the child's pid and passes the two pipe ends (the
child's stdin for requests, its reply pipe) as file descriptors. "reap" collects a finished
child's exit status, so the referee can say *how* a process died (a signal, an exit code).
The zygote exits when its socket closes, i.e. when the referee's process ends.
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import importlib
import json
import os
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from .cgroup import JailGroup, host_pid
from .limits import BoxLimits

BOOT = (
    "import sys; sys.path.insert(0, sys.argv[1]); "
    "from gamekit.sandbox.zygote import serve_forever; "
    "serve_forever(int(sys.argv[2]), sys.argv[3] != 'open', sys.argv[4], sys.argv[3] == 'one-process')"
)
PACKET = 1 << 16


def clean_environment() -> dict[str, str]:
    """The zygote's whole environment: nothing of the teacher's, fixed hashing, one thread for BLAS."""
    from .bwrap import thread_environment

    return {
        "PATH": "/usr/bin:/bin",
        "LANG": "C.UTF-8",
        "PYTHONHASHSEED": "0",
        "PYTHONDONTWRITEBYTECODE": "1",
        **thread_environment(),
        "HOME": tempfile.gettempdir(),
    }


def describe_status(status: int) -> str:
    """How a process ended, in words (from a `waitpid` status)."""
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        name = signal.Signals(sig).name if sig in signal.Signals._value2member_map_ else str(sig)
        why = {
            "SIGXCPU": " (CPU time limit)",
            "SIGXFSZ": " (output or file size limit)",
            "SIGKILL": " (killed)",
            "SIGSEGV": " (segmentation fault)",
        }.get(name, "")
        return f"killed by {name}{why}"
    if os.WIFEXITED(status):
        return f"exited with code {os.WEXITSTATUS(status)}"
    return f"status {status}"


# --- the zygote process -------------------------------------------------------------------------


def _close_other_fds(keep: set[int]) -> None:
    """Close every file descriptor above 2 except `keep` (so an agent inherits nothing else)."""
    if os.path.isdir("/proc/self/fd"):
        fds = [int(name) for name in os.listdir("/proc/self/fd")]
    else:  # no /proc (macOS): every possible descriptor
        fds = list(range(3, min(4096, os.sysconf("SC_OPEN_MAX") if hasattr(os, "sysconf") else 1024)))
    for fd in fds:
        if fd > 2 and fd not in keep:
            with contextlib.suppress(OSError):
                os.close(fd)


def _sweep(keep: set[int]) -> int:
    """Kill every process of this PID namespace but its init, the zygote and `keep` (called only inside a jail).

    Inside an agent's jail only the zygote and the agent's running games (`keep`) may live: anything
    a finished game left behind (a daemon that left its process group, say) goes here. Orphans
    belong to the namespace's init (bubblewrap), which reaps them. Returns how many were killed.
    """
    spare = {1, os.getpid(), *keep}
    killed = 0
    for name in os.listdir("/proc"):
        if name.isdigit() and int(name) not in spare:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(int(name), signal.SIGKILL)
                killed += 1
    return killed


def _entry(name: str) -> Any:
    module, _, function = name.partition(":")
    return getattr(importlib.import_module(module), function)


def serve_forever(fd: int, jailed: bool = False, entry: str = "", one_process: bool = False) -> None:
    """The zygote's main loop (runs in its own process, started by `Zygote`).

    jailed: the zygote runs inside its own bubblewrap namespaces (one zygote per agent) as their
    pid 1: it makes itself non-dumpable first (no process of the jail can open its memory or attach
    to it), and after each reaped game it kills whatever else is left in its PID namespace and
    reaps it. one_process: the jail has no process limit of its own (no control groups), so each
    game's process gets the filter that refuses new processes (`seccomp.NO_PROCESSES`) before
    anything of the student's runs. entry: the `module:function` each forked child runs as
    `function(channel, output_fd, folder, request, readable)`.
    """
    from . import seccomp

    if jailed:
        seccomp.not_dumpable()
        if one_process:
            seccomp.prepared(seccomp.NO_PROCESSES)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    sock = socket.socket(fileno=fd)
    sock.set_inheritable(False)  # it arrived inheritable (pass_fds); nothing the zygote runs may inherit it
    import gamekit  # noqa: F401  (warm: what agents import is loaded once, before any fork)

    from . import inside

    run = _entry(entry)
    readable = inside.read_roots()
    live: dict[int, str] = {}  # this zygote's game processes whose games are still on, and their folders
    counter = 0
    sock.send(json.dumps({"ready": True, "pid": os.getpid()}).encode())
    while True:
        data = sock.recv(PACKET)
        if not data:
            break
        request = json.loads(data)
        if request["op"] == "spawn":
            counter += 1
            folder = tempfile.mkdtemp(prefix=f"game-{counter}-")  # on the jail's tmpfs (HOME), or a host temp folder
            pipes = [os.pipe() for _ in range(3)]  # requests, replies, printed output
            pid = os.fork()
            if pid == 0:  # the game's process
                try:
                    os.setsid()
                    for std in (1, 2):  # never the zygote's own output: the referee's bounded pipe
                        os.dup2(pipes[2][1], std)
                    if jailed and one_process:
                        seccomp.load(seccomp.NO_PROCESSES)
                    ours = {pipes[0][0], pipes[1][1], pipes[2][1]}
                    _close_other_fds(ours)
                    channel = inside.Channel(pipes[0][0], pipes[1][1])
                    run(channel, pipes[2][1], folder, request, readable)
                finally:
                    os._exit(70)
            live[pid] = folder
            for end in (pipes[0][0], pipes[1][1], pipes[2][1]):
                os.close(end)
            theirs = [pipes[0][1], pipes[1][0], pipes[2][0]]
            socket.send_fds(sock, [json.dumps({"pid": pid}).encode()], theirs)
            for end in theirs:
                os.close(end)
        elif request["op"] == "ping":
            sock.send(b'{"alive": true}')
        elif request["op"] == "reap":
            pid = int(request["pid"])
            if request.get("kill"):  # the referee outside cannot name a pid of this namespace: we kill
                for sig in (signal.SIGKILL, signal.SIGCONT):  # a stopped process dies only once it runs
                    with contextlib.suppress(ProcessLookupError, PermissionError):
                        os.killpg(pid, sig)
            status = _reap(pid)
            folder = live.pop(pid, "")
            left = _sweep(set(live)) if jailed else 0
            if left:
                status += f"; {left} process(es) it left behind were killed"
            if jailed:  # as the namespace's pid 1 the zygote inherits every orphan: reap the killed ones
                _reap_orphans(set(live))
            if folder:
                shutil.rmtree(folder, ignore_errors=True)
            sock.send(json.dumps({"status": status}).encode())
    os._exit(0)


_ENDED: dict[int, int] = {}  # exit statuses of live games that an orphan sweep reaped first


def _reap_orphans(live: set[int], patience: float = 1.0) -> None:
    """Reap every ended child of the zygote (orphans of finished games, killed by `_sweep`), keeping
    the status of a live game that happened to end meanwhile for its own reap."""
    end = time.monotonic() + patience
    while time.monotonic() < end:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            if not any(_is_orphan(p) for p in _children()):
                return
            time.sleep(0.002)
            continue
        if pid in live:
            _ENDED[pid] = status


def _children() -> list[int]:
    try:
        return [int(x) for x in Path(f"/proc/{os.getpid()}/task/{os.getpid()}/children").read_text().split()]
    except (OSError, ValueError):
        return []


def _is_orphan(pid: int) -> bool:
    """A child that is dying or dead (a zombie, or killed and not yet one)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state in ("Z", "X")


def _reap(pid: int, patience: float = 2.0) -> str:
    """Wait for child `pid` (its exit status in words); after `patience` seconds kill its group (a
    stopped process gets SIGCONT too) and wait as long again; never block for ever."""
    if pid in _ENDED:
        return describe_status(_ENDED.pop(pid))
    end, killed = time.monotonic() + patience, False
    while True:
        try:
            done, status = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            return "already reaped"
        if done:
            return describe_status(status)
        if time.monotonic() > end:
            if killed:
                return "did not end after SIGKILL (stopped or frozen); its jail will end it"
            for sig in (signal.SIGKILL, signal.SIGCONT):
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(pid, sig)
            end, killed = time.monotonic() + patience, True
        time.sleep(0.002)


# --- the referee's handle on it ------------------------------------------------------------------


class Zygote:
    """Start a zygote process and ask it for sandboxed processes (thread-safe).

    entry: the `module:function` every forked child runs (see `serve_forever`).
    limits: None runs the zygote as an ordinary process (trusted code only: the audit hook is no
    boundary); a `BoxLimits` runs it inside bubblewrap's namespaces (`gamekit.sandbox.bwrap.Jail`)
    with its own tmpfs as the only writable place and its own control groups
    (`gamekit.sandbox.cgroup`): one zygote per agent, so an agent sees no other agent's file or process.
    """

    def __init__(self, entry: str, limits: BoxLimits | None = None, timeout: float = 120.0):
        if not hasattr(os, "fork") or not hasattr(socket, "send_fds"):
            raise RuntimeError("sandboxed agents need Linux or macOS (os.fork and socket.send_fds)")
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        package_parent = str(Path(__file__).resolve().parents[2])
        self.jailed = limits is not None
        self.limits = limits
        self.group = JailGroup(pids=limits.processes) if limits is not None else JailGroup.__new__(JailGroup)
        if limits is None:
            self.group.folders = {}
        # the zygote's own complaints (it failed to start); inside a jail the file is bounded by the
        # jail's file-size limit, and no game's process keeps it (each gets the referee's pipe as 1 and 2)
        self._stderr = tempfile.TemporaryFile()  # noqa: SIM115  (kept open for the zygote's life)
        mode = "open" if not self.jailed else "jailed" if self.group.active else "one-process"
        argv = [sys.executable, "-s", "-c", BOOT, package_parent, str(theirs.fileno()), mode, entry]
        env = clean_environment()
        cwd = tempfile.gettempdir()
        popen_args: dict[str, Any] = {
            "pass_fds": [theirs.fileno()],
            "env": env,
            "stdin": subprocess.DEVNULL,
            "stdout": subprocess.DEVNULL,
            "stderr": self._stderr,
            "cwd": cwd,
        }
        if limits is not None:
            from .bwrap import HOME, Jail

            env["HOME"] = HOME
            env["TMPDIR"] = HOME
            jail = Jail(env=env, cwd=HOME, tmp_mb=limits.disk_mb, file_kb=limits.output_kb)
            self.process = jail.popen(argv, wrap=self.group.wrap, **popen_args)
        else:
            self.process = subprocess.Popen(argv, **popen_args)
        theirs.close()
        self.sock = ours
        self.lock = threading.Lock()
        self.sock.settimeout(timeout)
        try:
            data = self.sock.recv(PACKET)
        except OSError:
            data = b""
        if not data:
            self.process.kill()
            self.group.close()
            self._stderr.seek(0)
            raise RuntimeError("the agent zygote failed to start:\n" + self._stderr.read().decode(errors="replace"))
        self.pid = json.loads(data)["pid"]
        self.sock.settimeout(30.0)
        if limits is not None:  # the jail's memory: what the warm interpreter holds now, plus the limit
            self.group.limit_memory(self.group.memory_used() + int(limits.memory_mb * (1 << 20)))

    def spawn(self, request: dict[str, Any]) -> tuple[int, int, int, int]:
        """A new process (`request` is passed to the entry point): (its pid as the zygote sees it, fd to
        write requests to, fd to read replies from, fd to read its printed output from)."""
        with self.lock:
            self.sock.send(json.dumps({"op": "spawn", **request}).encode())
            data, fds, _, _ = socket.recv_fds(self.sock, PACKET, 3)
        if not data or len(fds) != 3:
            for fd in fds:
                os.close(fd)
            raise RuntimeError("the agent zygote stopped answering")
        return int(json.loads(data)["pid"]), fds[0], fds[1], fds[2]

    def host_pid(self, pid: int) -> int | None:
        """The pid the teacher's side sees for the zygote's child `pid` (the same without a jail)."""
        return host_pid(self.process.pid, pid) if self.jailed else pid

    def reap(self, pid: int, kill: bool = False) -> str:
        """Wait for process `pid` (killing its process group first if `kill`) and say how it ended.

        `pid` is the zygote's view: inside a jail it is a pid of the jail's own PID namespace, which
        means nothing (or another process) outside, so the zygote does the killing.
        """
        try:
            with self.lock:
                self.sock.send(json.dumps({"op": "reap", "pid": pid, "kill": kill}).encode())
                data = self.sock.recv(PACKET)
        except OSError:  # the zygote is gone (an agent may kill its own jail's zygote): its processes with it
            return "its jail ended (the agent's own processes were killed)"
        if not data:
            return "its jail ended (the agent's own processes were killed)"
        try:
            return str(json.loads(data)["status"])[:300]
        except (ValueError, KeyError, TypeError):
            return "its jail's process manager answered nonsense"

    def gone(self) -> bool:
        """The zygote process ended (its socket is at end of file), even if its jail still holds processes."""
        with self.lock:
            try:
                ready, _, _ = select.select([self.sock], [], [], 0)
                return bool(ready) and not self.sock.recv(PACKET, socket.MSG_PEEK)
            except (OSError, ValueError):  # closed already
                return True

    def ping(self, timeout: float = 1.0) -> bool:
        """Does the zygote still answer within `timeout` seconds (not killed, not stopped)?"""
        with self.lock:
            try:
                self.sock.settimeout(timeout)
                self.sock.send(b'{"op": "ping"}')
                return self.sock.recv(PACKET) == b'{"alive": true}'
            except (OSError, ValueError):
                return False
            finally:
                with contextlib.suppress(OSError, ValueError):
                    self.sock.settimeout(30.0)

    def alive(self) -> bool:
        return self.process.poll() is None and not (self.jailed and self.gone())

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.sock.close()
        if self.jailed:  # killing bubblewrap's init ends its PID namespace: every process in it dies
            self.process.kill()
        self.group.close()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(5)
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        self._stderr.close()


_SHARED: dict[str, Zygote] = {}
_SHARED_PID = 0
_ZYGOTE_LOCK = threading.Lock()


def shared_zygote(entry: str) -> Zygote:
    """The unjailed zygote of this process for `entry` (started on first use, restarted if it died)."""
    global _SHARED_PID
    with _ZYGOTE_LOCK:
        if os.getpid() != _SHARED_PID:
            _SHARED.clear()
            _SHARED_PID = os.getpid()
        zygote = _SHARED.get(entry)
        if zygote is None or not zygote.alive():
            zygote = _SHARED[entry] = Zygote(entry)
        return zygote


_JAILS: dict[str, Zygote] = {}
_JAILS_PID = 0


def jailed_zygote(source: str, role: str, entry: str, limits: BoxLimits) -> Zygote:
    """The jailed zygote of one agent, or of one student's game (role "game"), keyed by the role, the
    SHA-256 of its file's text and the limits, started on first use.

    Each agent and each game gets its own bubblewrap namespaces, tmpfs and control groups, so they
    never share a process namespace, a writable file or a memory budget. Needs `bwrap`.
    """
    global _JAILS_PID
    from .bwrap import require_bwrap

    require_bwrap()
    digest = hashlib.sha256(source.encode("utf-8", "surrogatepass")).hexdigest()
    key = json.dumps([role, digest, entry, limits.as_dict()], sort_keys=True)
    with _ZYGOTE_LOCK:
        if os.getpid() != _JAILS_PID:  # a forked worker starts its own
            _JAILS.clear()
            _JAILS_PID = os.getpid()
        zygote = _JAILS.get(key)
        if zygote is None or not zygote.alive():
            if zygote is not None:
                zygote.close()
            zygote = Zygote(entry, limits)
            _JAILS[key] = zygote
        return zygote


def close_jails() -> None:
    """End every jail of this process (its zygote, and with it every process in its namespaces)."""
    with _ZYGOTE_LOCK:
        if os.getpid() != _JAILS_PID:
            return
        for zygote in _JAILS.values():
            zygote.close()
        _JAILS.clear()


@atexit.register
def _close_shared() -> None:
    if os.getpid() == _SHARED_PID:
        for zygote in _SHARED.values():
            zygote.close()
    close_jails()
