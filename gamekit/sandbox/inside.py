"""Inside a jail: what a forked process does to itself before a student's code runs (a courtesy).

Everything here runs in the student's own interpreter, so none of it is the boundary (that is the
kernel's: `gamekit.sandbox.bwrap`, `gamekit.sandbox.cgroup`). It turns accidents and the usual
tricks into clear messages:

* its own fresh working folder on the jail's tmpfs (also its HOME); what it prints goes into a
  pipe the referee reads and bounds (never a file the referee would open);
* resource limits (`resource.setrlimit`) as backstops: address space, CPU seconds, file size,
  open files, no core dumps, no new processes;
* an audit hook (PEP 578) that ends the process at the first forbidden act, reporting it: starting
  processes, signals to others, sockets, ctypes, writing outside its folder, reading files outside
  its folder and the Python installation;
* `threads()`, so a caller can refuse a second thread after a move.

The request loop that uses these (which game, which agent) belongs to the caller: the zygote
runs the entry point it is given (`gamekit.tournament.child.serve`).
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import linecache
import math
import os
import random
import signal
import site
import sys
import threading
import traceback
import types
from collections.abc import Iterable, Iterator
from typing import Any, NoReturn

from .bwrap import thread_environment

try:  # POSIX only; without it gamekit.tournament still imports (reports, in-process games)
    import resource
except ImportError:  # pragma: no cover  (Windows)
    resource = None  # type: ignore[assignment]

MB = 1 << 20

# Audit events that end the game at once (the agent tried something no game needs).
FORBIDDEN_EVENTS = {
    "os.fork": "starting a process (fork)",
    "os.forkpty": "starting a process (forkpty)",
    "os.system": "running a shell command",
    "os.exec": "replacing the process (exec)",
    "os.spawn": "starting a process (spawn)",
    "os.posix_spawn": "starting a process (posix_spawn)",
    "subprocess.Popen": "starting a process (subprocess)",
    "os.kill": "sending a signal to a process",
    "os.killpg": "sending a signal to a process group",
    "signal.pthread_kill": "sending a signal to a thread",
    "socket.__new__": "opening a network socket",
    "ctypes.dlopen": "loading a C library with ctypes",
    "ctypes.dlsym": "calling into a C library with ctypes",
    "os.chdir": "leaving its folder (chdir)",
}
# Events whose path arguments must lie inside the agent's folder.
CHANGE_EVENTS = {
    "os.remove",
    "os.rename",
    "os.rmdir",
    "os.mkdir",
    "os.chmod",
    "os.chown",
    "os.link",
    "os.symlink",
    "os.truncate",
    "os.utime",
    "shutil.rmtree",
    "shutil.move",
    "shutil.copyfile",
    "shutil.copymode",
    "shutil.copystat",
}
READ_EVENTS = {"os.listdir", "os.scandir", "glob.glob"}
DENIED_IMPORTS = {"ctypes", "_ctypes", "cffi", "_posixsubprocess", "_socket", "socket", "multiprocessing", "pty"}
WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND


class Channel:
    """JSON lines over two pipe file descriptors (the referee's end: `gamekit.sandbox.process`)."""

    def __init__(self, fd_in: int, fd_out: int):
        self.reader = os.fdopen(fd_in, "rb", buffering=1 << 16)
        self.fd_out = fd_out

    def send(self, message: dict[str, Any]) -> None:
        data = (json.dumps(message, separators=(",", ":"), allow_nan=False) + "\n").encode()
        view = memoryview(data)
        while view:
            view = view[os.write(self.fd_out, view) :]

    def receive(self) -> dict[str, Any] | None:
        line = self.reader.readline()
        return json.loads(line) if line else None


def _resolve(path: Any) -> str:
    return os.path.realpath(os.fsdecode(path))


def _under(path: str, roots: Iterable[str]) -> bool:
    return any(path == r or path.startswith(r.rstrip("/") + "/") for r in roots)


def read_roots() -> list[str]:
    """The folders any agent may read: the Python installation, site-packages, and gamekit."""
    import gamekit

    roots = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix, os.path.dirname(os.__file__)}
    roots.update(site.getsitepackages())
    roots.add(os.path.dirname(os.path.abspath(gamekit.__file__)))
    spec = importlib.util.find_spec("gamekit.data")
    if spec is not None and spec.submodule_search_locations:
        roots.update(spec.submodule_search_locations)
    return sorted({os.path.realpath(r) for r in roots if r})


def _metadata(path: str) -> bool:
    """A package's installed metadata (what `importlib.metadata` reads for entry points): harmless to read."""
    folder = os.path.dirname(path)
    return folder.endswith((".dist-info", ".egg-info")) and os.path.dirname(folder) in {
        os.path.realpath(p or ".") for p in sys.path
    }


class Guard:
    """The audit hook: the first forbidden act is reported to the referee and ends the process."""

    def __init__(self, channel: Channel, folder: str, readable: list[str]):
        self.channel = channel
        self.folder = [os.path.realpath(folder)]
        self.readable = self.folder + readable + [f"/proc/{os.getpid()}"]
        self.devices = {"/dev/null", "/dev/urandom", "/dev/random"}
        # Python's import system lists the folders on sys.path (names only, never contents) when it
        # looks for a module that is not loaded yet; listing exactly those folders is allowed.
        self.import_folders = {os.path.realpath(p or ".") for p in sys.path}

    def violation(self, what: str) -> NoReturn:
        with contextlib.suppress(Exception):
            self.channel.send({"violation": what})
        os._exit(86)

    def __call__(self, event: str, args: tuple[Any, ...]) -> None:
        if event in FORBIDDEN_EVENTS:
            self.violation(FORBIDDEN_EVENTS[event])
        elif event == "open":
            path, mode, flags = (tuple(args) + (None, None))[:3]
            if path is None or isinstance(path, int):
                return
            target = _resolve(path)
            writes = (isinstance(mode, str) and any(c in mode for c in "wax+")) or (
                isinstance(flags, int) and flags & WRITE_FLAGS
            )
            if writes and not _under(target, self.folder):
                self.violation(f"writing outside its folder: {target}")
            if (
                not writes
                and target not in self.devices
                and not _under(target, self.readable)
                and not _metadata(target)
            ):
                self.violation(f"reading a file outside its folder: {target}")
        elif event in READ_EVENTS:
            if args and args[0] is not None and not isinstance(args[0], int):
                target = _resolve(args[0])
                if not _under(target, self.readable) and target not in self.import_folders:
                    self.violation(f"listing a folder outside its own: {target}")
        elif event in CHANGE_EVENTS:
            for arg in args:
                if isinstance(arg, (str, bytes, os.PathLike)) and not _under(_resolve(arg), self.folder):
                    self.violation(f"changing a file outside its folder ({event}): {_resolve(arg)}")
        elif event == "import" and args and str(args[0]).split(".")[0] in DENIED_IMPORTS:
            self.violation(f"importing {args[0]}")


def _blocked(*args: Any, **kwargs: Any) -> NoReturn:
    raise PermissionError("starting processes is not allowed in the sandbox")


def _set_limit(which: int, value: int) -> None:
    soft, hard = resource.getrlimit(which)
    if hard != resource.RLIM_INFINITY:
        value = min(value, hard)
    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(which, (value, value if which != resource.RLIMIT_CPU else value + 1))


def _virtual_memory() -> int:
    """This process's address space in bytes (what RLIMIT_AS counts; 0 where it cannot be read)."""
    kb = _proc_status("VmSize")
    return 0 if kb is None else kb * 1024


def enter_sandbox(channel: Channel, folder: str, limits: dict[str, Any], readable: list[str], output_fd: int) -> Guard:
    """Move into `folder`, send what is printed to `output_fd` (a pipe the referee bounds), set the
    limits (backstops: the jail's cgroup bounds the whole jail), install the guard."""
    if resource is None:  # pragma: no cover
        raise RuntimeError("sandboxed agents need Linux or macOS (the resource module)")
    os.chdir(folder)
    os.environ.clear()
    os.environ.update({"HOME": folder, "TMPDIR": folder, "LANG": "C.UTF-8", "PATH": "/usr/bin:/bin"})
    os.environ.update(thread_environment())  # one thread for BLAS: a library loaded later must see it too
    os.dup2(output_fd, 1)
    os.dup2(output_fd, 2)
    if output_fd > 2:
        os.close(output_fd)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    sys.stdin = open(0, closefd=False)  # noqa: SIM115
    sys.stdout = open(1, "w", buffering=1, closefd=False)  # noqa: SIM115
    sys.stderr = open(2, "w", buffering=1, closefd=False)  # noqa: SIM115
    signal.signal(signal.SIGXFSZ, signal.SIG_DFL)  # Python ignores it; the limit must end the process
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    if sys.modules.get("_posixsubprocess") is not None:
        sys.modules["_posixsubprocess"].fork_exec = _blocked  # type: ignore[attr-defined]
    if _virtual_memory():  # the limit is "what it has now + memory_mb"; unknown size: no limit (macOS ignores it)
        _set_limit(resource.RLIMIT_AS, _virtual_memory() + int(limits["memory_mb"] * MB))
    _set_limit(resource.RLIMIT_CPU, max(1, math.ceil(limits["cpu_seconds"])))
    _set_limit(resource.RLIMIT_FSIZE, int(limits["output_kb"] * 1024))
    _set_limit(resource.RLIMIT_CORE, 0)
    _set_limit(resource.RLIMIT_NOFILE, 64)
    _set_limit(resource.RLIMIT_NPROC, 0)
    guard = Guard(channel, folder, readable)
    sys.addaudithook(guard)
    return guard


def _proc_status(field: str) -> int | None:
    """A number from /proc/<pid>/status (None where there is no /proc, e.g. macOS)."""
    path = f"/proc/{os.getpid()}/status"
    if not os.path.exists(path):
        return None
    with open(path) as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return None


def threads() -> int:
    """The threads of this process, as the kernel counts them (also those threading does not know)."""
    count = _proc_status("Threads")
    return threading.active_count() if count is None else count


def load_source(source: str, label: str, module_name: str) -> types.ModuleType:
    """Run a student's file, received as text, as the module `module_name` (registered first:
    dataclasses look it up). Tracebacks name the student's own file, `label`."""
    module = types.ModuleType(module_name)
    module.__file__ = label
    linecache.cache[label] = (len(source), None, source.splitlines(keepends=True), label)
    sys.modules[module_name] = module
    try:
        exec(compile(source, label, "exec"), module.__dict__)
    except BaseException:
        del sys.modules[module_name]
        raise
    return module


def describe(module: Any) -> tuple[str, str]:
    """(display name, kind) of a loaded submission; ValueError names what is missing."""
    name = getattr(module, "NAME", None)
    if not isinstance(name, str) or not name.strip() or len(name) > 40:
        raise ValueError('the file must set NAME = "a display name" (a non-empty string of at most 40 characters)')
    if isinstance(getattr(module, "Agent", None), type):
        return name.strip(), "class"
    if callable(getattr(module, "agent", None)):
        return name.strip(), "function"
    raise ValueError("the file must define a function agent(game, state) -> move, or a class Agent(game, seat)")


def error(exc: BaseException, own_file: str) -> dict[str, Any]:
    """The student's own error: its message and the traceback lines of the student's file only
    (the file's own name and line numbers; nothing of gamekit's or the referee's frames)."""
    own = [
        f"{own_file}, line {frame.lineno}, in {frame.name}" + (f": {frame.line.strip()}" if frame.line else "")
        for frame in traceback.extract_tb(exc.__traceback__)
        if frame.filename == own_file
    ]
    return {"error": f"{type(exc).__name__}: {exc}"[:500], "trace": "\n".join(own[-8:])[-1500:]}


def seed_everything(seed: int) -> None:
    """Seed the global generators an agent might use without being asked (random, numpy)."""
    random.seed(seed)
    numpy = sys.modules.get("numpy")
    if numpy is not None:
        numpy.random.seed(seed % 2**32)


def requests(channel: Channel) -> Iterator[dict[str, Any]]:
    """The referee's requests, one by one, until it says stop (or closes the pipe)."""
    while True:
        message = channel.receive()
        if message is None or message.get("op") == "stop":
            return
        yield message


def end() -> NoReturn:
    """Flush what the process printed, and exit without running any cleanup of the student's."""
    sys.stdout.flush()
    os._exit(0)
