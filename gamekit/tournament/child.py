"""The agent's side of the sandbox: what runs inside the process that hosts one submission.

The referee (`gamekit.tournament.sandbox`) owns the game; this process only answers "your move
in this state" with a move, as JSON lines over two pipes. Before the submission's code runs,
`enter_sandbox` takes away what an agent must not do:

* its own, fresh working folder (also its HOME); its output goes to a file there, cut to size;
* resource limits (`resource.setrlimit`): address space, CPU seconds, file size (so printing
  megabytes or filling the disk ends the process), open files, no core dumps, and no new
  processes (RLIMIT_NPROC; the kernel does not apply it to root, so the audit hook below also
  refuses to fork);
* an audit hook (PEP 578) that ends the process at the first forbidden act, reporting it: starting
  processes, signals to others, sockets, ctypes, writing outside its folder, reading files outside
  its folder and the Python installation (so it cannot read another agent's file);
* after every move, a check that the agent runs no second thread (which would go on thinking, on
  the machine's shared cores, while the opponent moves).

This is a classroom sandbox: it stops accidents and the usual tricks, and every limit that
matters (the clock, the game's state, the rules) is enforced by the referee from outside. It is
not a security boundary against an attacker with a kernel exploit; run untrusted code from
strangers in a container or VM as well.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import math
import os
import random
import signal
import site
import sys
import threading
import traceback
from collections.abc import Iterable, Iterator
from typing import Any, NoReturn

from .. import wire
from ..isolation import thread_environment
from .games import GAME_FILE, GameRef, LocalRules, build, serve_rules

try:  # POSIX only; without it gamekit.tournament still imports (reports, in-process games)
    import resource
except ImportError:  # pragma: no cover  (Windows)
    resource = None  # type: ignore[assignment]

OUTPUT_FILE = "output.txt"
AGENT_FILE = "agent.py"
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
    """JSON lines over two pipe file descriptors (the referee's end is in `sandbox.py`)."""

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


def enter_sandbox(channel: Channel, folder: str, limits: dict[str, Any], readable: list[str]) -> Guard:
    """Move into `folder`, send output to a capped file there, set the limits, install the guard."""
    if resource is None:  # pragma: no cover
        raise RuntimeError("sandboxed agents need Linux or macOS (the resource module)")
    os.chdir(folder)
    os.environ.clear()
    os.environ.update({"HOME": folder, "TMPDIR": folder, "LANG": "C.UTF-8", "PATH": "/usr/bin:/bin"})
    os.environ.update(thread_environment())  # one thread for BLAS: a library loaded later must see it too
    out = os.open(OUTPUT_FILE, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_APPEND, 0o600)
    os.dup2(out, 1)
    os.dup2(out, 2)
    os.close(out)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    sys.stdin = open(0, closefd=False)  # noqa: SIM115
    sys.stdout = open(1, "w", buffering=1, closefd=False)  # noqa: SIM115
    sys.stderr = open(2, "w", buffering=1, closefd=False)  # noqa: SIM115
    signal.signal(signal.SIGXFSZ, signal.SIG_DFL)  # Python ignores it; the limit must end the process
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


def load_agent(folder: str) -> Any:
    """Run the submission's file as the module `agent` and return it."""
    spec = importlib.util.spec_from_file_location("agent", os.path.join(folder, AGENT_FILE))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["agent"] = module
    spec.loader.exec_module(module)
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


def _error(exc: BaseException, own_file: str = AGENT_FILE) -> dict[str, Any]:
    """The student's own error: its message and the traceback lines of the student's file only
    (file name and line numbers of `agent.py`, or of `game.py`; nothing of gamekit's or the referee's frames)."""
    own = [
        f"{own_file}, line {frame.lineno}, in {frame.name}" + (f": {frame.line.strip()}" if frame.line else "")
        for frame in traceback.extract_tb(exc.__traceback__)
        if os.path.basename(frame.filename) == own_file
    ]
    return {"error": f"{type(exc).__name__}: {exc}"[:500], "trace": "\n".join(own[-8:])[-1500:]}


def seed_everything(seed: int) -> None:
    """Seed the global generators an agent might use without being asked (random, numpy)."""
    random.seed(seed)
    numpy = sys.modules.get("numpy")
    if numpy is not None:
        numpy.random.seed(seed % 2**32)


def _requests(channel: Channel) -> Iterator[dict[str, Any]]:
    """The referee's requests, one by one, until it says stop (or closes the pipe)."""
    while True:
        message = channel.receive()
        if message is None or message.get("op") == "stop":
            return
        yield message


def _end() -> NoReturn:
    """Flush what the process printed, and exit without running any cleanup of the student's."""
    sys.stdout.flush()
    os._exit(0)


def _send_safely(channel: Channel, message: dict[str, Any]) -> None:
    """Send `message`; a message that is not JSON data (a game's state of a set, say) becomes an error."""
    try:
        channel.send(message)
    except (TypeError, ValueError) as exc:
        channel.send({"error": f"an answer that is not JSON data: {exc}"[:500]})


def serve(channel: Channel, folder: str, limits: dict[str, Any], readable: list[str], role: str = "agent") -> NoReturn:
    """The whole life of a sandboxed process: sandbox, load, then answer requests until told to stop.

    role "agent": a submission (agent.py) answering "your move"; role "game": a student's game
    (game.py) answering the referee's questions about its rules (`gamekit.tournament.games`).
    """
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    if role == "game":
        _serve_game(channel, folder, limits, readable)
    try:
        guard = enter_sandbox(channel, folder, limits, readable)
        module = load_agent(folder)
        name, kind = describe(module)
    except BaseException as exc:  # the submission failed to load: report it, the referee decides
        channel.send(_error(exc))
        os._exit(0)
    channel.send({"ready": True, "name": name, "kind": kind})
    game = agent = None
    for message in _requests(channel):
        try:
            if message["op"] == "start":
                game = build(GameRef.from_dict(message["game"]), folder)
                seed_everything(int(message["seed"]))
                agent = module.Agent(game, int(message["seat"])) if kind == "class" else module.agent
                channel.send({"ok": True})
            elif message["op"] == "move":
                state = wire.state_from_json(game, message["state"])
                move = agent.move(state) if kind == "class" else agent(game, state)  # type: ignore[union-attr,misc]
                if threads() > 1:  # it would go on thinking during the opponent's move
                    guard.violation("running a second thread (an agent thinks on one thread, in its own move)")
                try:
                    channel.send({"move": _reply_json(game, move)})
                except (TypeError, ValueError, IndexError, KeyError, AttributeError):
                    channel.send({"wrong_type": f"{type(move).__name__}: {move!r}"[:300]})
        except BaseException as exc:  # the agent's own error (also SystemExit, MemoryError)
            channel.send(_error(exc))
    _end()


def _reply_json(game: Any, move: Any) -> Any:
    """The reply as JSON: plain data as it is (the referee's decoder judges its type), anything else
    in the game's own wire format (a move that is an object of the game's)."""
    try:
        return wire.to_json(move, "the reply")
    except TypeError:
        return wire.move_to_json(game, move)


def _serve_game(channel: Channel, folder: str, limits: dict[str, Any], readable: list[str]) -> NoReturn:
    """A student's game in its own sandbox: build it, then answer the referee (`games.serve_rules`)."""
    try:
        enter_sandbox(channel, folder, limits, readable)
    except BaseException as exc:
        channel.send(_error(exc, GAME_FILE))
        os._exit(0)
    channel.send({"ready": True, "name": "game", "kind": "game"})
    rules: LocalRules | None = None
    for message in _requests(channel):
        try:
            if message["op"] == "new":
                rules = LocalRules(build(GameRef.from_dict(message["game"]), folder))
                channel.send({"ok": True})
            elif rules is None:
                channel.send({"error": "no game built yet"})
            else:
                _send_safely(channel, serve_rules(rules, message))
        except BaseException as exc:  # the game's own code failed
            channel.send(_error(exc, GAME_FILE))
    _end()
