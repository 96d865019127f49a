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

BOOT = (
    "import sys; sys.path.insert(0, sys.argv[1]); "
    "from gamekit.tournament.zygote import serve_forever; serve_forever(int(sys.argv[2]), sys.argv[3] == 'jailed')"
)
PACKET = 1 << 16


def clean_environment() -> dict[str, str]:
    """The zygote's whole environment: nothing of the teacher's, fixed hashing, one thread for BLAS."""
    from ..isolation import thread_environment

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


def serve_forever(fd: int, jailed: bool = False) -> None:
    """The zygote's main loop (runs in its own process, started by `Zygote`).

    jailed: the zygote runs inside its own bubblewrap namespaces (one zygote per agent); after
    each reaped game it kills whatever else is left in its PID namespace.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    sock = socket.socket(fileno=fd)
    import gamekit  # noqa: F401  (warm: what agents import is loaded once, before any fork)

    from . import child

    readable = child.read_roots()
    live: set[int] = set()  # this zygote's agent processes whose games are still on
    sock.send(json.dumps({"ready": True, "pid": os.getpid()}).encode())
    while True:
        data = sock.recv(PACKET)
        if not data:
            break
        request = json.loads(data)
        if request["op"] == "spawn":
            to_child_r, to_child_w = os.pipe()
            from_child_r, from_child_w = os.pipe()
            pid = os.fork()
            if pid == 0:  # the agent's process
                try:
                    os.setsid()
                    _close_other_fds({to_child_r, from_child_w})
                    channel = child.Channel(to_child_r, from_child_w)
                    child.serve(channel, request["folder"], request["limits"], readable, request.get("role", "agent"))
                finally:
                    os._exit(70)
            live.add(pid)
            os.close(to_child_r)
            os.close(from_child_w)
            socket.send_fds(sock, [json.dumps({"pid": pid}).encode()], [to_child_w, from_child_r])
            os.close(to_child_w)
            os.close(from_child_r)
        elif request["op"] == "ping":
            sock.send(b'{"alive": true}')
        elif request["op"] == "reap":
            if request.get("kill"):  # the referee outside cannot name a pid of this namespace: we kill
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(int(request["pid"]), signal.SIGKILL)
            status = _reap(int(request["pid"]))
            live.discard(int(request["pid"]))
            left = _sweep(live) if jailed else 0
            if left:
                status += f"; {left} process(es) it left behind were killed"
            sock.send(json.dumps({"status": status}).encode())
    os._exit(0)


def _reap(pid: int, patience: float = 2.0) -> str:
    end = time.monotonic() + patience
    while True:
        try:
            done, status = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            return "already reaped"
        if done:
            return describe_status(status)
        if time.monotonic() > end:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(pid, signal.SIGKILL)
            _, status = os.waitpid(pid, 0)
            return describe_status(status)
        time.sleep(0.002)


# --- the referee's handle on it ------------------------------------------------------------------


class Zygote:
    """Start a zygote process and ask it for sandboxed agent processes (thread-safe).

    jail: a folder for this zygote's agents. The zygote then runs inside bubblewrap's namespaces
    (`gamekit.isolation.Jail`) where that folder is the only writable place it shares with the
    host: one zygote per agent, so an agent sees no other agent's file or process. Without
    `jail` the zygote runs as an ordinary process (trusted code only: the audit hook is no boundary).
    """

    def __init__(self, timeout: float = 120.0, jail: str | None = None):
        if not hasattr(os, "fork") or not hasattr(socket, "send_fds"):
            raise RuntimeError("sandboxed agents need Linux or macOS (os.fork and socket.send_fds)")
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        package_parent = str(Path(__file__).resolve().parents[2])
        self.jail = jail
        self._stderr = tempfile.TemporaryFile()  # noqa: SIM115  (kept open for the zygote's life)
        argv = [sys.executable, "-s", "-c", BOOT, package_parent, str(theirs.fileno()), "jailed" if jail else "open"]
        env = clean_environment()
        cwd = tempfile.gettempdir()
        if jail is not None:
            from ..isolation import HOME, Jail

            env["HOME"] = HOME
            argv = Jail(writable=[jail], env=env, cwd=jail).command(argv)
            cwd = jail
        self.process = subprocess.Popen(
            argv,
            pass_fds=[theirs.fileno()],
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=self._stderr,
            cwd=cwd,
        )
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
            self._stderr.seek(0)
            raise RuntimeError("the agent zygote failed to start:\n" + self._stderr.read().decode(errors="replace"))
        self.pid = json.loads(data)["pid"]
        self.sock.settimeout(30.0)

    def spawn(self, folder: str, limits: dict[str, Any], role: str = "agent") -> tuple[int, int, int]:
        """A new process in `folder` (an agent, or a student's game with role "game"):
        (pid, fd to write requests to, fd to read replies from)."""
        with self.lock:
            self.sock.send(json.dumps({"op": "spawn", "folder": folder, "limits": limits, "role": role}).encode())
            data, fds, _, _ = socket.recv_fds(self.sock, PACKET, 2)
        if not data or len(fds) != 2:
            raise RuntimeError("the agent zygote stopped answering")
        return json.loads(data)["pid"], fds[0], fds[1]

    def reap(self, pid: int, kill: bool = False) -> str:
        """Wait for agent process `pid` (killing its process group first if `kill`) and say how it ended.

        `pid` is the zygote's view: inside a jail it is a pid of the jail's own PID namespace, which
        means nothing (or another process) outside, so the zygote does the killing.
        """
        try:
            with self.lock:
                self.sock.send(json.dumps({"op": "reap", "pid": pid, "kill": kill}).encode())
                data = self.sock.recv(PACKET)
        except OSError:  # the zygote is gone (an agent may kill its own jail's zygote): its processes with it
            return "its jail ended (the agent's own processes were killed)"
        return json.loads(data)["status"] if data else "its jail ended (the agent's own processes were killed)"

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
        return self.process.poll() is None and not (self.jail and self.gone())

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.sock.close()
        if self.jail:  # killing bubblewrap's init ends its PID namespace: every process in it dies
            self.process.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(5)
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        self._stderr.close()


_ZYGOTE: Zygote | None = None
_ZYGOTE_PID = 0
_ZYGOTE_LOCK = threading.Lock()


def shared_zygote() -> Zygote:
    """The zygote of this process (started on first use, restarted if it died)."""
    global _ZYGOTE, _ZYGOTE_PID
    with _ZYGOTE_LOCK:
        if _ZYGOTE is None or os.getpid() != _ZYGOTE_PID or not _ZYGOTE.alive():
            _ZYGOTE = Zygote()
            _ZYGOTE_PID = os.getpid()
        return _ZYGOTE


_JAILS: dict[str, Zygote] = {}
_JAILS_PID = 0


def agent_zygote(source: str, role: str = "agent") -> Zygote:
    """The jailed zygote of one agent, or of one student's game (role "game"), keyed by the role and
    the SHA-256 of its file's text, started on first use.

    Each agent and each game gets its own bubblewrap namespaces and its own folder, so they never
    share a process namespace or a writable file. Needs `bwrap` (`gamekit.isolation.require_bwrap`).
    """
    global _JAILS_PID
    from ..isolation import require_bwrap

    require_bwrap()
    key = role + ":" + hashlib.sha256(source.encode("utf-8", "surrogatepass")).hexdigest()
    with _ZYGOTE_LOCK:
        if os.getpid() != _JAILS_PID:  # a forked worker starts its own
            _JAILS.clear()
            _JAILS_PID = os.getpid()
        zygote = _JAILS.get(key)
        if zygote is None or not zygote.alive():
            if zygote is not None:
                zygote.close()
                if zygote.jail:
                    shutil.rmtree(zygote.jail, ignore_errors=True)
            zygote = Zygote(jail=tempfile.mkdtemp(prefix="gamekit-jail-"))
            _JAILS[key] = zygote
        return zygote


def close_jails() -> None:
    """End every agent's jail of this process (its zygote, and with it every process in its namespaces)."""
    with _ZYGOTE_LOCK:
        if os.getpid() != _JAILS_PID:
            return
        for zygote in _JAILS.values():
            zygote.close()
            if zygote.jail:
                shutil.rmtree(zygote.jail, ignore_errors=True)
        _JAILS.clear()


@atexit.register
def _close_shared() -> None:
    if _ZYGOTE is not None and os.getpid() == _ZYGOTE_PID:
        _ZYGOTE.close()
    close_jails()
