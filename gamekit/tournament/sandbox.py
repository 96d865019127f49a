"""The referee's side of the sandbox: limits, and one agent process seen from outside.

`AgentProcess` starts a submission in a process of its own (through the zygote), in a fresh
temporary folder, and asks it for moves. Every limit that decides a game is enforced here,
outside the agent: the start-up time, the time per move plus a time bank, the size of a reply.
When the agent overruns, the referee kills its whole process group; it never waits for an agent
to give up by itself. Whatever goes wrong ends in an `AgentFailure` carrying a short reason
(`timeout`, `crash`, `exception`, `sandbox`, `protocol`, ...) and a detail for the log.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import select
import shutil
import signal
import tempfile
import time
from dataclasses import asdict, dataclass, field
from typing import Any

from ..jsonio import JSONLoadError, parse_json
from .child import AGENT_FILE, OUTPUT_FILE
from .games import GAME_FILE, GameRef, resolve_game
from .zygote import Zygote, agent_zygote, shared_zygote

MAX_REPLY_BYTES = 1 << 20
MAX_REPLY_DEPTH = 32  # a move or a message never needs more


@dataclass(frozen=True)
class Limits:
    """What every agent gets, per game. Times are wall-clock seconds measured by the referee.

    move_seconds: each move; a move that takes longer draws the excess from the time bank.
    bank_seconds: extra time for the whole game (a move is lost only when the bank is empty too).
    startup_seconds: loading the file and building the agent for a game.
    memory_mb: how much memory the agent may allocate on top of the (shared) interpreter.
    cpu_seconds: CPU time of the whole process (a backstop; the clock above decides games).
    output_kb: the largest file the agent may write, its printed output included.
    log_chars: how much of its output is kept in the game's record.
    max_moves: moves after which a game is stopped as a draw.
    game_seconds: each request to a student's game's own process (its start positions, a move's
    result); a game that takes longer fails (`gamekit.tournament.games.GameFailure`), or, on a move,
    loses the game for the agent whose reply it could not take.
    """

    move_seconds: float = 1.0
    bank_seconds: float = 2.0
    startup_seconds: float = 5.0
    memory_mb: float = 256.0
    cpu_seconds: float | None = None
    output_kb: int = 256
    log_chars: int = 2000
    max_moves: int = 500
    game_seconds: float = 10.0

    def __post_init__(self) -> None:
        for name in ("move_seconds", "startup_seconds", "memory_mb", "output_kb", "max_moves", "game_seconds"):
            value = getattr(self, name)
            if not isinstance(value, (int, float)) or isinstance(value, bool) or not value > 0:
                raise ValueError(f"Limits.{name} must be a positive number, got {value!r}")
        for name in ("bank_seconds", "log_chars"):
            value = getattr(self, name)
            if not isinstance(value, (int, float)) or isinstance(value, bool) or value < 0:
                raise ValueError(f"Limits.{name} must be a number >= 0, got {value!r}")
        if self.cpu_seconds is not None and not self.cpu_seconds > 0:
            raise ValueError(f"Limits.cpu_seconds must be positive or None, got {self.cpu_seconds!r}")

    @property
    def cpu(self) -> float:
        """The CPU-time backstop: the given value, or everything the clock could allow, plus 2 s."""
        if self.cpu_seconds is not None:
            return self.cpu_seconds
        return self.startup_seconds * 2 + self.bank_seconds + self.move_seconds * self.max_moves / 2 + 2

    def child_limits(self) -> dict[str, Any]:
        return {"memory_mb": self.memory_mb, "cpu_seconds": self.cpu, "output_kb": self.output_kb}

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


class AgentFailure(Exception):
    """An agent lost its game by misbehaving: `reason` is a short word, `detail` says what happened."""

    def __init__(self, reason: str, detail: str):
        super().__init__(f"{reason}: {detail}")
        self.reason = reason
        self.detail = detail


@dataclass
class AgentProcess:
    """One submission running in its own sandboxed process, for one game."""

    source: str
    limits: Limits
    zygote: Zygote | None = None
    jailed: bool = True  # False: trusted code, no OS boundary (only with the teacher's --trusted-code)
    role: str = "agent"  # "game": the process of a student's game (`games.JailedRules`), not an agent
    game_source: str | None = None  # a student's game: its file's text, put beside the agent (GAME_FILE)
    name: str = ""
    kind: str = ""
    pid: int = 0
    folder: str = ""
    ended: str = ""
    _write: int = -1
    _read: int = -1
    _buffer: bytes = field(default=b"", repr=False)
    _stopping: bool = False

    def start(self) -> float:
        """Fork the process, load the file; returns the deadline by which it must say it is ready."""
        own = self.source if self.role == "agent" else (self.game_source or "")
        if self.zygote is None:  # one jail per file: an agent's, or a game's (never shared between them)
            self.zygote = agent_zygote(own, self.role) if self.jailed else shared_zygote()
        self.folder = tempfile.mkdtemp(prefix=f"gamekit-{self.role}-", dir=self.zygote.jail)
        files = {AGENT_FILE: self.source} if self.role == "agent" else {}
        if self.game_source is not None:
            files[GAME_FILE] = self.game_source
        for name, text in files.items():
            with open(os.path.join(self.folder, name), "w", encoding="utf-8") as f:
                f.write(text)
        deadline = time.monotonic() + self.limits.startup_seconds
        try:
            self.pid, self._write, self._read = self.zygote.spawn(self.folder, self.limits.child_limits(), self.role)
        except (OSError, RuntimeError, ValueError) as exc:  # its zygote is gone: only the agent can end it
            raise AgentFailure("crash", f"its sandbox ended before the game ({type(exc).__name__})") from None
        return deadline

    def wait_ready(self, deadline: float) -> None:
        """Wait for the loaded file's answer; a file that fails to load raises AgentFailure."""
        reply = self._receive(deadline, "startup")
        if "ready" not in reply:
            error = str(reply.get("error", f"unexpected first message {reply!r}"))[:500]
            trace = str(reply.get("trace", ""))[:1500]
            raise AgentFailure("startup", error + ("\n" + trace if trace else ""))
        self.name, self.kind = str(reply["name"]), str(reply["kind"])

    def begin(self, game: str | GameRef, params: dict[str, Any] | None, seat: int, seed: int) -> None:
        """Tell the agent a game starts: it builds its game and, for a class, its Agent(game, seat).

        `game` is a short name or a `GameRef`; a student's game is built from GAME_FILE in its folder."""
        ref = resolve_game(game, params)
        self._send({"op": "start", "game": ref.as_dict(source=False), "seat": seat, "seed": seed})
        reply = self._receive(time.monotonic() + self.limits.startup_seconds, "startup")
        if not reply.get("ok"):
            raise AgentFailure("exception", reply.get("error", f"unexpected answer {reply!r}"))

    def ask(self, state: Any, seconds: float) -> tuple[Any, float]:
        """The agent's reply (JSON data) to "your move in `state`", and the seconds it took."""
        t0 = time.monotonic()
        self._send({"op": "move", "state": state})
        try:
            reply = self._receive(t0 + seconds, "timeout")
        except AgentFailure as failure:
            if failure.reason != "timeout":
                raise
            raise AgentFailure(
                "timeout",
                f"no move within the {seconds:.2f} s it had ({self.limits.move_seconds:g} s per move plus what was "
                f"left in its {self.limits.bank_seconds:g} s bank)",
            ) from None
        elapsed = time.monotonic() - t0
        if self.zygote is not None and self.zygote.jail and self.zygote.gone():
            self.kill()
            raise AgentFailure("sandbox", "it killed its own sandbox's process manager (the zygote)")
        if "move" in reply:
            return reply["move"], elapsed
        if "wrong_type" in reply:
            raise AgentFailure("wrong type", f"the reply is not JSON data: {reply['wrong_type']}")
        if "error" in reply:
            memory = str(reply["error"]).startswith("MemoryError")
            detail = str(reply["error"])[:500]
            if memory:
                detail += f" (limit: {self.limits.memory_mb:g} MB on top of the interpreter)"
            if reply.get("trace"):
                detail += "\n" + str(reply["trace"])[:1500]
            raise AgentFailure("memory" if memory else "exception", detail)
        raise AgentFailure("protocol", f"unexpected answer {reply!r}"[:300])

    def request(self, message: dict[str, Any], seconds: float) -> dict[str, Any]:
        """Send `message` and return the answer (a role "game" process); `AgentFailure` if none comes in time."""
        self._send(message)
        return self._receive(time.monotonic() + seconds, "timeout")

    def _send(self, message: dict[str, Any]) -> None:
        data = (json.dumps(message, separators=(",", ":")) + "\n").encode()
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(self._write, view) :]
        except OSError:
            raise self._died() from None

    def _receive(self, deadline: float, late: str) -> dict[str, Any]:
        while b"\n" not in self._buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                self.kill()
                if late == "startup":
                    raise AgentFailure(
                        "startup", f"not ready within the {self.limits.startup_seconds:g} s start-up limit"
                    )
                raise AgentFailure("timeout", "no answer in time for a move")
            ready, _, _ = select.select([self._read], [], [], remaining)
            if not ready:
                continue
            chunk = os.read(self._read, 1 << 16)
            if not chunk:
                raise self._died()
            self._buffer += chunk
            if len(self._buffer) > MAX_REPLY_BYTES:
                self.kill()
                raise AgentFailure("protocol", f"a reply longer than {MAX_REPLY_BYTES} bytes")
        line, _, self._buffer = self._buffer.partition(b"\n")
        try:  # bounded in size and nesting before it is parsed: a reply is data, never trusted
            reply = parse_json(line, max_bytes=MAX_REPLY_BYTES, max_depth=MAX_REPLY_DEPTH, source="the reply")
        except (JSONLoadError, TypeError) as exc:
            self.kill()
            raise AgentFailure("protocol", f"a reply that is not plain JSON data: {str(exc)[:200]}") from None
        if not isinstance(reply, dict):
            raise AgentFailure("protocol", f"a reply that is not a message: {line[:100]!r}")
        if "violation" in reply:
            self.kill()
            detail = str(reply["violation"])[:500]
            if self.zygote is not None and self.zygote.jail:  # its own jail's path says nothing to a reader
                detail = detail.replace(self.zygote.jail, "<its jail>")
            raise AgentFailure("sandbox", detail)
        return reply

    def _died(self) -> AgentFailure:
        """The failure for a process that ended by itself: how it ended, as the zygote saw it."""
        self.kill()
        reason, limit = "crash", ""
        if "SIGXFSZ" in self.ended:
            reason, limit = "output limit", f" (limit: {self.limits.output_kb} KB of output or any file)"
        elif "SIGXCPU" in self.ended:
            reason, limit = "cpu limit", f" (limit: {self.limits.cpu:g} s of CPU time)"
        return AgentFailure(reason, f"the process ended: {self.ended}{limit}")

    def kill(self) -> None:
        """Kill the process group (the agent and anything it started) and collect the exit status."""
        if self.pid and not self.ended:
            if self.zygote is not None and self.zygote.jail:  # a pid of the jail's namespace: the zygote kills
                if self.zygote.gone() or not self.zygote.ping():  # it killed or froze it: end its whole jail
                    self.zygote.close()
                    self.ended = "its jail was ended (it had killed its own zygote)"
                    return
                self.ended = self.zygote.reap(self.pid, kill=True)
                return
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.pid, signal.SIGKILL)
            self.ended = self.zygote.reap(self.pid) if self.zygote is not None else "killed"

    def sabotaged(self) -> bool:
        """Its jail's zygote is gone: only the agent itself can have killed it."""
        return bool(self.pid and self.zygote is not None and self.zygote.jail and not self.zygote.ping())

    def output(self) -> str:
        """The start of what the agent printed (cut to `limits.log_chars`)."""
        path = os.path.join(self.folder, OUTPUT_FILE)
        if not self.folder or not os.path.exists(path):
            return ""
        with open(path, "rb") as f:
            head = f.read(self.limits.log_chars + 1)
        text = head.decode("utf-8", errors="replace")
        return text if len(text) <= self.limits.log_chars else text[: self.limits.log_chars] + " [cut]"

    def stop(self) -> None:
        """Ask the process to finish (it flushes its output and exits); `close` waits for that."""
        if self.pid and not self.ended and not self._stopping:
            self._stopping = True
            with contextlib.suppress(AgentFailure, OSError):
                self._send({"op": "stop"})

    def close(self) -> str:
        """Stop the process, keep its output, remove its folder; returns the output."""
        if self.pid and not self.ended:
            self.stop()
            with contextlib.suppress(OSError, ValueError):
                select.select([self._read], [], [], 0.2)  # its exit closes the pipe
        self.kill()
        text = self.output()
        for fd in (self._write, self._read):
            if fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self._write = self._read = -1
        if self.folder:
            shutil.rmtree(self.folder, ignore_errors=True)
        return text


def time_left(limits: Limits, bank: float) -> float:
    """Seconds an agent may think about its next move: the move's own time plus what is left in its bank."""
    return limits.move_seconds + max(0.0, bank)


def spend(limits: Limits, bank: float, elapsed: float) -> float:
    """The bank after a move that took `elapsed` seconds."""
    return bank - max(0.0, elapsed - limits.move_seconds) if math.isfinite(elapsed) else bank
