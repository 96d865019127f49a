"""The referee's side of an agent: the tournament's limits, and one agent process seen from outside.

`AgentProcess` is a jailed process (`gamekit.sandbox.process.JailedProcess`) that plays one game:
it loads the submission, learns the game and its seat, and answers "your move". Every limit that
decides a game is enforced outside the agent: the start-up time, the time per move plus a time
bank (charged as the CPU time its jail used in its own turn; outside its turn it is frozen), the
size of a reply. Whatever goes wrong ends in an `AgentFailure` carrying a short reason
(`timeout`, `crash`, `exception`, `sandbox`, `protocol`, ...) and a detail for the log.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

from ..sandbox import BoxLimits, clean_text
from ..sandbox.process import AgentFailure, JailedProcess
from ..sandbox.zygote import Zygote
from .games import ENTRY, GameFailure, GameRef, resolve_game

NAME_CHARS = 40


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
        game_source: str | None = None,
        label: str = "agent.py",
    ):
        super().__init__("agent", source, label, limits.box(), ENTRY, jailed=jailed, zygote=zygote)
        self.tournament_limits = limits
        self.game_source = game_source
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
            raise AgentFailure("startup", error + ("\n" + trace if trace else ""))
        self.name = clean_text(reply.get("name", ""), NAME_CHARS, one_line=True).strip()
        self.kind = clean_text(reply.get("kind", ""), 20, one_line=True)

    def begin(self, game: str | GameRef, params: dict[str, Any] | None, seat: int, seed: int) -> None:
        """Tell the agent a game starts: it builds its game and, for a class, its Agent(game, seat).
        Then it is frozen until its first turn."""
        ref = resolve_game(game, params)
        message = {"op": "start", "game": ref.as_dict(source=not ref.trusted), "seat": seat, "seed": seed}
        reply = self.request(message, self.limits.startup_seconds, "startup")
        if not reply.get("ok"):
            raise AgentFailure("exception", str(reply.get("error", f"unexpected answer {reply!r}")))

    def ask(self, state: Any, seconds: float, legal: list[Any] | None = None) -> tuple[Any, float]:
        """The agent's reply (JSON data) to "your move in `state`", and the seconds charged for it.

        `legal`: the referee's legal moves (a student's game): the agent's process checks that its
        copy of the game agrees before the agent is asked; if not, the game fails (`GameFailure`)."""
        message: dict[str, Any] = {"op": "move", "state": state}
        if legal is not None:
            message["legal"] = legal
        try:
            reply, elapsed = self.turn(message, seconds)
        except AgentFailure as failure:
            if failure.reason != "timeout":
                raise
            limits = self.tournament_limits
            raise AgentFailure(
                "timeout",
                f"no move within the {seconds:.2f} s it had ({limits.move_seconds:g} s per move plus what was "
                f"left in its {limits.bank_seconds:g} s bank)",
            ) from None
        if self.zygote is not None and self.zygote.jailed and self.zygote.gone():
            self.kill()
            raise AgentFailure("sandbox", "it killed its own sandbox's process manager (the zygote)")
        if "move" in reply:
            return reply["move"], elapsed
        if "game_differs" in reply:
            raise GameFailure(
                f"the game's code behaves differently in an agent's process: {clean_text(reply['game_differs'], 300)}"
            )
        if "wrong_type" in reply:
            raise AgentFailure("wrong type", f"the reply is not JSON data: {reply['wrong_type']}")
        if "error" in reply:
            memory = str(reply["error"]).startswith("MemoryError")
            detail = clean_text(reply["error"], 500)
            if memory:
                detail += f" (limit: {self.limits.memory_mb:g} MB on top of the interpreter)"
            if reply.get("trace"):
                detail += "\n" + clean_text(reply["trace"], 1500)
            raise AgentFailure("memory" if memory else "exception", detail)
        raise AgentFailure("protocol", f"unexpected answer {reply!r}"[:300])


def time_left(limits: Limits, bank: float) -> float:
    """Seconds an agent may think about its next move: the move's own time plus what is left in its bank."""
    return limits.move_seconds + max(0.0, bank)


def spend(limits: Limits, bank: float, elapsed: float) -> float:
    """The bank after a move that took `elapsed` seconds."""
    return bank - max(0.0, elapsed - limits.move_seconds) if math.isfinite(elapsed) else bank
