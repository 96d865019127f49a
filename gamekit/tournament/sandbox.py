"""The referee's side of an agent: the tournament's limits, and one agent process seen from outside.

`AgentProcess` is a jailed process (`gamekit.sandbox.process.JailedProcess`) that plays one game:
it loads the submission, learns the game and its seat, and answers "your move". Every limit that
decides a game is enforced outside the agent: the start-up time, the time per move plus a time
bank (charged as the CPU time its jail used in its own turn; outside its turn it is frozen), the
size of a reply. Whatever goes wrong ends in an `AgentFailure` carrying a short reason
(`timeout`, `crash`, `exception`, `sandbox`, `protocol`, ...) and a detail for the log.

Nothing an agent's process says is a fact about anyone else: a reply is that agent's move
(`{"move": ...}`), or its own failure (`{"wrong_type": ...}`, `{"error": ...}`); any other key is
its protocol error. With a student's game, the agent's process asks the game's rules during its
own turn (`{"ask": ...}`, see `gamekit.tournament.proxy`), and the referee answers from the
game's jail (`relay`, `gamekit.tournament.games.JailedRules.answer`).

Who pays for a relayed question: the game. The seconds the referee and the game's jail spend
answering, and the time the referee's thread waited for a CPU, are not charged to the agent (its
clock counts its own process only); each answer has
the game's own time per question (`Limits.game_seconds`), and overrunning it is the game's
failure, observed by the referee. How many questions a turn asks is the agent's choice, so their
answers may take at most `RELAY_FACTOR` times the turn's own seconds (at least `game_seconds`)
in all: beyond that the agent loses on time.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

from ..sandbox import BoxLimits, clean_text
from ..sandbox.outcomes import Reason
from ..sandbox.process import WALL_FACTOR, WALL_SLACK, AgentFailure, JailedProcess
from ..sandbox.zygote import Zygote
from .games import ENTRY, GameRef, resolve_game

NAME_CHARS = 40
#: The relayed answers of one turn may take this many times the turn's own seconds (see the docstring).
RELAY_FACTOR = 10.0
#: True puts a student's game back into every agent's process (the design before issue 34). Only
#: for tests that show what that let a game do; never set it for a real tournament.
GAME_BESIDE_AGENTS = False
#: The keys an agent's reply to "your move" may have: its move, or its own failure.
REPLIES = ({"move"}, {"wrong_type"}, {"error"}, {"error", "trace"})


@dataclass(frozen=True)
class Limits:
    """What every agent gets, per game. The referee measures the times: a move is charged the larger
    of its processes' CPU time and the wall time it did not spend waiting for a CPU held by others
    (`gamekit.sandbox.process.JailedProcess.charge`); outside its turns its jail is frozen.

    move_seconds: each move; a move that takes longer draws the excess from the time bank.
    bank_seconds: extra time for the whole game (a move is lost only when the bank is empty too).
    startup_seconds: loading the file and building the agent for a game.
    memory_mb: how much memory the agent's jail may use on top of its warm interpreter (all its
    processes together where cgroups hold, else per process).
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

    def box(self) -> BoxLimits:
        """The limits of the agent's jail."""
        return BoxLimits(
            memory_mb=self.memory_mb,
            cpu_seconds=self.cpu,
            output_kb=self.output_kb,
            startup_seconds=self.startup_seconds,
            log_chars=self.log_chars,
        )

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


class AgentProcess(JailedProcess):
    """One submission running in its own jailed process, for one game."""

    def __init__(
        self,
        source: str,
        limits: Limits,
        zygote: Zygote | None = None,
        jailed: bool = True,
        label: str = "agent.py",
        relay: Callable[[Any], dict[str, Any]] | None = None,
    ):
        super().__init__("agent", source, label, limits.box(), ENTRY, jailed=jailed, zygote=zygote)
        self.tournament_limits = limits
        self.relay = relay  # answers the rules questions of a student's game (None: the game is the course's)
        self.relayed = 0  # rules questions answered for this agent
        self.name = ""
        self.kind = ""

    def start(self, load: dict[str, Any] | None = None) -> float:
        """Fork the process and send it its file; returns the deadline by which it must say it is ready."""
        return super().start({"source": self.source, **(load or {})})

    def wait_ready(self, deadline: float) -> None:
        """Wait for the loaded file's answer; a file that fails to load raises AgentFailure."""
        reply = self.receive(deadline, "startup")
        if "ready" not in reply:
            error = clean_text(reply.get("error", f"unexpected first message {reply!r}"), 500)
            trace = clean_text(reply.get("trace", ""), 1500)
            raise AgentFailure(Reason.STARTUP, error + ("\n" + trace if trace else ""))
        self.name = clean_text(reply.get("name", ""), NAME_CHARS, one_line=True).strip()
        self.kind = clean_text(reply.get("kind", ""), 20, one_line=True)

    def begin(self, game: str | GameRef, params: dict[str, Any] | None, seat: int, seed: int) -> None:
        """Tell the agent a game starts: it builds its game (a student's game: a proxy whose questions
        `relay` answers) and, for a class, its Agent(game, seat). Then it is frozen until its first turn."""
        ref = resolve_game(game, params)
        message: dict[str, Any] = {"op": "start", "seat": seat, "seed": seed}
        if ref.trusted:
            message["game"] = ref.as_dict(source=False)
        elif GAME_BESIDE_AGENTS:
            message["game"] = ref.as_dict()
        elif self.relay is None:
            raise ValueError(f"the game {ref.name} is a student's: its rules reach an agent only relayed (relay=)")
        else:
            message.update(game={"name": ref.name}, rules="relayed")
        reply, _ = self._converse(message, self.limits.startup_seconds, "startup")
        if reply == {"ok": True}:
            return
        if set(reply) in REPLIES[2:]:
            raise AgentFailure(Reason.EXCEPTION, self._error_detail(reply))
        raise AgentFailure(Reason.PROTOCOL, f"an unexpected answer to the start of a game: {str(reply)[:200]}")

    def _converse(self, message: dict[str, Any], seconds: float, late: str = "timeout") -> tuple[dict[str, Any], float]:
        """`turn`, answering the rules questions the agent's process asks meanwhile (`relay`).

        The seconds spent answering are the game's, not the agent's: they are taken off its clock and
        added to the turn's wall-clock end; in all they may be `RELAY_FACTOR * seconds` (at least
        `game_seconds`), beyond that the agent loses on time (see the module docstring)."""
        assert self.group is not None
        relayed = 0.0
        allowance = max(self.tournament_limits.game_seconds, RELAY_FACTOR * seconds)
        t0 = time.monotonic()
        referee_waited, done = _thread_waited() if self.relay is not None else (lambda: 0.0, lambda: None)
        w0 = referee_waited()
        charged = self.charge(lambda: relayed + referee_waited() - w0)
        self.group.thaw()
        try:
            self.send(message, t0 + WALL_FACTOR * seconds + WALL_SLACK)
            while True:
                deadline = t0 + WALL_FACTOR * seconds + WALL_SLACK + relayed
                reply = self.receive(deadline, late, seconds=seconds, charged=charged)
                if "ask" not in reply:
                    return reply, charged()
                r0 = time.monotonic()
                if self.relay is None or set(reply) != {"ask"}:
                    self.kill()
                    raise AgentFailure(Reason.PROTOCOL, f"a question about the rules out of place: {str(reply)[:200]}")
                try:
                    answer = self.relay(reply["ask"])
                except AgentFailure:
                    self.kill()
                    raise
                self.relayed += 1
                if relayed + (time.monotonic() - r0) > allowance:
                    self.kill()
                    raise AgentFailure(
                        "timeout",
                        f"its questions about the rules needed more than {allowance:g} s of the game's time in one "
                        f"turn ({self.relayed} questions)",
                    )
                self.send({"answer": answer}, deadline + (time.monotonic() - r0))
                relayed += time.monotonic() - r0  # answering, and writing the answer, is the game's time
        finally:
            done()
            if self.group is not None:
                self.group.freeze()

    def _error_detail(self, reply: dict[str, Any]) -> str:
        detail = clean_text(reply["error"], 500)
        if str(reply["error"]).startswith("MemoryError"):
            detail += f" (limit: {self.limits.memory_mb:g} MB on top of the interpreter)"
        if reply.get("trace"):
            detail += "\n" + clean_text(reply["trace"], 1500)
        return detail

    def ask(self, state: Any, seconds: float) -> tuple[Any, float]:
        """The agent's reply (JSON data) to "your move in `state`", and the seconds charged for it."""
        try:
            reply, elapsed = self._converse({"op": "move", "state": state}, seconds)
        except AgentFailure as failure:
            if failure.reason is not Reason.TIMEOUT or "questions" in failure.detail or "reading" in failure.detail:
                raise
            limits = self.tournament_limits
            raise AgentFailure(
                "timeout",
                f"no move within the {seconds:.2f} s it had ({limits.move_seconds:g} s per move plus what was "
                f"left in its {limits.bank_seconds:g} s bank)",
            ) from None
        if self.zygote is not None and self.zygote.jailed and self.zygote.gone():
            self.kill()
            raise AgentFailure(Reason.SANDBOX, "it killed its own sandbox's process manager (the zygote)")
        keys = set(reply)
        if keys == {"move"}:
            return reply["move"], elapsed
        if keys == {"wrong_type"}:
            raise AgentFailure(Reason.WRONG_TYPE, f"the reply is not JSON data: {clean_text(reply['wrong_type'], 300)}")
        if keys in REPLIES[2:] and isinstance(reply["error"], str):
            memory = reply["error"].startswith("MemoryError")
            raise AgentFailure(Reason.MEMORY if memory else Reason.EXCEPTION, self._error_detail(reply))
        shown = ", ".join(sorted(clean_text(k, 30, one_line=True) for k in list(keys)[:5]))
        raise AgentFailure(
            "protocol",
            f"a reply with the keys {shown}: a reply is this agent's move or its own error, nothing else",
        )


def _thread_waited() -> tuple[Callable[[], float], Callable[[], None]]:
    """(seconds this thread has waited for a CPU so far, a function that closes what it reads).

    While an agent asks a student's game about its rules, the referee's thread answers; the time
    that thread waited for a CPU held by others is no more the agent's than its own waiting is."""
    try:
        fd = os.open("/proc/thread-self/schedstat", os.O_RDONLY | os.O_CLOEXEC)
    except OSError:  # no /proc (macOS): nothing to subtract
        return (lambda: 0.0), (lambda: None)

    def waited() -> float:
        try:
            return int(os.pread(fd, 128, 0).split()[1]) / 1e9
        except (OSError, ValueError, IndexError):
            return 0.0

    return waited, lambda: os.close(fd)


def time_left(limits: Limits, bank: float) -> float:
    """Seconds an agent may think about its next move: the move's own time plus what is left in its bank."""
    return limits.move_seconds + max(0.0, bank)


def spend(limits: Limits, bank: float, elapsed: float) -> float:
    """The bank after a move that took `elapsed` seconds."""
    return bank - max(0.0, elapsed - limits.move_seconds) if math.isfinite(elapsed) else bank
