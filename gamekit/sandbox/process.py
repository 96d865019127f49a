"""One jailed process seen from the teacher's side: started warm, asked over its bounded channel,
run only in its own turn, charged its own CPU time, and ended with everything it started.

Whatever goes wrong ends in an `AgentFailure` carrying a `Reason` (`gamekit.sandbox.outcomes`) and
a detail in clean text; the teacher's side decides, never the process.
"""

from __future__ import annotations

import contextlib
import select
import time
from dataclasses import dataclass, field
from typing import Any

from .cgroup import GameGroup
from .channel import Channel, ChannelError, clean_text
from .limits import BoxLimits
from .outcomes import FORFEITS, Fault, Reason
from .zygote import Zygote, jailed_zygote, shared_zygote

#: A turn ends, whatever it is charged, after this many times its seconds plus WALL_SLACK of wall
#: clock (a process starved of CPU by the machine's other work is charged little).
WALL_FACTOR = 2.0
WALL_SLACK = 0.25
DETAIL_CHARS = 2000


class AgentFailure(Exception):
    """A jailed process lost by misbehaving: `reason` is a `Reason`, `detail` says what happened."""

    def __init__(self, reason: Reason | str, detail: str):
        self.reason = Reason.read(reason)
        if self.reason not in FORFEITS:  # the move cap is nobody's fault: no process forfeits for it
            raise ValueError(f"not a reason to forfeit: {self.reason.value!r} (the move cap ends a game as a draw)")
        detail = clean_text(detail, DETAIL_CHARS)
        super().__init__(f"{self.reason}: {detail}")
        self.detail = detail


@dataclass
class JailedProcess:
    """One process of a student's file in its jail (one per game and role)."""

    role: str  # "agent" or "game": what the entry point serves
    source: str  # the text of the student's file this jail exists for
    label: str  # the student's file name, as messages and tracebacks show it
    limits: BoxLimits
    entry: str  # the `module:function` the zygote's children run
    jailed: bool = True  # False: trusted code, no OS boundary (only with the teacher's --trusted-code)
    zygote: Zygote | None = None
    pid: int = 0
    ended: str = ""
    group: GameGroup | None = field(default=None, repr=False)
    channel: Channel | None = field(default=None, repr=False)
    _stopping: bool = False
    _oom_before: int = 0

    def start(self, load: dict[str, Any]) -> float:
        """Fork the process and send it `load` (its file's text and anything else it needs before it
        runs); returns the deadline by which it must say it is ready."""
        if self.zygote is None:  # one jail per file: an agent's, or a game's (never shared between them)
            self.zygote = (
                jailed_zygote(self.source, self.role, self.entry, self.limits)
                if self.jailed
                else shared_zygote(self.entry)
            )
        deadline = time.monotonic() + self.limits.startup_seconds
        try:
            self.pid, write, read, output = self.zygote.spawn({"role": self.role, "limits": self.limits.child()})
        except (OSError, RuntimeError, ValueError) as exc:  # its zygote is gone: only the agent can end it
            raise AgentFailure(Reason.CRASH, f"its sandbox ended before the game ({type(exc).__name__})") from None
        self.channel = Channel(write, read, output, output_bytes=self.limits.output_kb * 1024)
        host = self.zygote.host_pid(self.pid)
        if host is None:
            self.kill()
            raise AgentFailure(Reason.CRASH, "its process was gone before its file was loaded")
        self._oom_before = self.zygote.group.oom_kills()
        self.group = self.zygote.group.game(host)  # before any of its code runs: all it starts is in there
        self.send({"op": "load", "label": self.label, **load}, deadline)
        return deadline

    def send(self, message: dict[str, Any], deadline: float | None = None) -> None:
        """Send `message` by `deadline` (monotonic clock; default `channel.SEND_SECONDS` from now): a
        process that does not read it in time is ended with a timeout, never waited for."""
        assert self.channel is not None
        try:
            self.channel.send(message, deadline)
        except OSError:
            raise self._died() from None
        except ChannelError as exc:
            self.kill()
            raise AgentFailure(Reason.TIMEOUT, f"it stopped reading its pipe: {exc.detail}") from None

    def receive(
        self, deadline: float, late: str = "timeout", seconds: float | None = None, charged: Any = None
    ) -> dict[str, Any]:
        """Its next message by `deadline` (monotonic clock); with `seconds`, also charged at most that
        much (from now, or by the given `charged` function, see `charge`). A violation it reports, or
        anything but a bounded JSON object, ends it with an `AgentFailure`."""
        assert self.channel is not None and self.group is not None
        channel, output_cap = self.channel, self.limits.output_kb * 1024
        if charged is None and seconds is not None:
            charged = self.charge()

        def poll() -> None:  # the output limit is checked as the output comes (a printer forfeits for
            if channel.printed > output_cap:  # its printing however slowly a busy teacher's side reads it)
                raise ChannelError(Fault.OUTPUT, "printed too much")
            if charged is not None and seconds is not None and charged() > seconds:
                raise ChannelError(Fault.TIMEOUT, "its time")

        def printed_too_much() -> AgentFailure:
            self.kill()
            return AgentFailure(Reason.OUTPUT_LIMIT, f"it printed more than {self.limits.output_kb} KB")

        try:
            reply = self.channel.receive(deadline, time.monotonic, poll)
        except ChannelError as exc:
            if exc.fault is Fault.CLOSED:
                raise self._died() from None
            if exc.fault is Fault.OUTPUT:
                raise printed_too_much() from None
            self.kill()
            if exc.fault is Fault.TIMEOUT:
                if late == "startup":
                    raise AgentFailure(
                        Reason.STARTUP, f"not ready within the {self.limits.startup_seconds:g} s start-up limit"
                    ) from None
                raise AgentFailure(Reason.TIMEOUT, "no answer in time") from None
            raise AgentFailure(Reason.PROTOCOL, exc.detail) from None
        if self.channel.printed > output_cap:
            raise printed_too_much()
        if "violation" in reply:
            self.kill()
            raise AgentFailure(Reason.SANDBOX, str(reply["violation"]))
        return reply

    def charge(self, paused: Any = None) -> Any:
        """A function that says how many seconds to charge since now: the larger of the CPU time of
        its game's processes and the wall time its process did not wait for a CPU held by others
        (so sleeping counts, and a busy machine does not), nor, with `paused()`, the seconds it
        waited for answers someone else pays for (a game's rules relayed to an agent)."""
        group = self.group
        assert group is not None
        t0, c0, w0 = time.monotonic(), group.cpu_seconds(), group.waited_seconds()

        def charged() -> float:
            wall = time.monotonic() - t0 - (group.waited_seconds() - w0) - (paused() if paused else 0.0)
            return max(0.0, group.cpu_seconds() - c0, wall)

        return charged

    def turn(self, message: dict[str, Any], seconds: float, late: str = "timeout") -> tuple[dict[str, Any], float]:
        """One turn: thaw the process, send `message`, take its answer, freeze it again.

        Returns the answer and the seconds charged (see `charge`), at most `seconds`; the wall clock
        ends a turn anyway after `WALL_FACTOR * seconds + WALL_SLACK`."""
        assert self.group is not None
        t0, charged = time.monotonic(), self.charge()
        self.group.thaw()
        deadline = t0 + WALL_FACTOR * seconds + WALL_SLACK
        try:
            self.send(message, deadline)
            reply = self.receive(deadline, late, seconds=seconds, charged=charged)
        finally:
            if self.group is not None:
                self.group.freeze()
        return reply, charged()

    def request(self, message: dict[str, Any], seconds: float, late: str = "timeout") -> dict[str, Any]:
        """`turn` without the time charged."""
        return self.turn(message, seconds, late)[0]

    def _died(self) -> AgentFailure:
        """The failure for a process that ended by itself: how it ended, as the zygote saw it."""
        self.kill()
        reason, limit = Reason.CRASH, ""
        if self.zygote is not None and self.zygote.group.oom_kills() > self._oom_before:
            reason, limit = Reason.MEMORY, f" (its jail ran out of its {self.limits.memory_mb:g} MB of memory)"
        elif "SIGXFSZ" in self.ended:
            reason, limit = Reason.OUTPUT_LIMIT, f" (limit: {self.limits.output_kb} KB of output or any file)"
        elif "SIGXCPU" in self.ended:
            reason, limit = Reason.CPU_LIMIT, f" (limit: {self.limits.cpu_seconds:g} s of CPU time)"
        return AgentFailure(reason, f"the process ended: {self.ended}{limit}")

    def kill(self) -> None:
        """Kill the process and anything it started, and collect its exit status."""
        if self.group is not None:
            self.group.thaw()  # a stopped process dies only once it runs again
        if self.pid and not self.ended and self.zygote is not None:
            if self.zygote.jailed and (self.zygote.gone() or not self.zygote.ping()):
                self.zygote.close()  # it killed or froze its zygote: end its whole jail
                self.ended = "its jail was ended (it had killed its own zygote)"
            else:
                self.ended = self.zygote.reap(self.pid, kill=True)
        if self.group is not None:
            self.group.close()

    def sabotaged(self) -> bool:
        """Its jail's zygote is gone: only the process itself can have killed it."""
        return bool(self.pid and self.zygote is not None and self.zygote.jailed and not self.zygote.ping())

    def stop(self) -> None:
        """Ask the process to finish (it flushes its output and exits); `close` waits for that."""
        if self.pid and not self.ended and not self._stopping and self.channel is not None:
            self._stopping = True
            if self.group is not None:
                self.group.thaw()
            with contextlib.suppress(ChannelError, OSError):
                self.channel.send({"op": "stop"}, time.monotonic() + 0.5)

    def close(self) -> str:
        """Stop the process, end everything it started; returns the start of what it printed."""
        if self.pid and not self.ended and self.channel is not None:
            self.stop()
            with contextlib.suppress(OSError, ValueError):
                select.select([self.channel.read_fd], [], [], 0.2)  # its exit closes the pipe
        self.kill()
        if self.channel is None:
            return ""
        text = self.channel.output(self.limits.log_chars, wait=0.05)
        self.channel.close()
        return text
