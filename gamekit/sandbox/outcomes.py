"""Outcomes as data: why a jailed process lost, and what went wrong on its channel.

A forfeit's reason is a `Reason`, never a free string (python-chess's `Termination` is the model):
the sandbox raises it, the referee stores its value in the game's record, the tournament's
database and reports read it back with `Reason(...)`, and a test can list every outcome. Each
member is a `str` whose value is the word stored and shown ("timeout", "illegal move"), so a
record written before this module existed reads the same.

`Fault` is the smaller set a channel reports (`ChannelError.fault`): the process took too long,
closed its pipe, broke the protocol, or printed too much. The process that owns the channel turns
each into a `Reason` (see `gamekit.sandbox.process`).
"""

from __future__ import annotations

from enum import Enum


class Reason(str, Enum):
    """Why a game ended otherwise than by its rules: why a jailed process (an agent, or a student's
    game) lost it, or the move cap that stopped it as a draw."""

    STARTUP = "startup"  #: not ready within its start-up limit
    TIMEOUT = "timeout"  #: no answer within its turn, or it stopped reading its pipe
    CRASH = "crash"  #: its process ended by itself
    EXCEPTION = "exception"  #: its code raised
    MEMORY = "memory"  #: its jail ran out of memory
    CPU_LIMIT = "cpu limit"  #: it used up its CPU seconds
    OUTPUT_LIMIT = "output limit"  #: it printed or wrote more than allowed
    SANDBOX = "sandbox"  #: it tried something the jail refuses (a violation it reported)
    PROTOCOL = "protocol"  #: a reply that is not a bounded JSON message of the protocol
    WRONG_TYPE = "wrong type"  #: a reply that is not a move of the game at all
    ILLEGAL_MOVE = "illegal move"  #: a move of the game that is not legal here
    MOVE_CAP = "move cap"  #: no one lost: the game was stopped as a draw at the tournament's move cap

    def __str__(self) -> str:
        return self.value

    @classmethod
    def read(cls, value: object) -> Reason:
        """The reason `value` names (a stored word, or a member); ValueError naming what is allowed."""
        try:
            return cls(value)
        except ValueError:
            allowed = ", ".join(repr(r.value) for r in cls)
            raise ValueError(f"not a forfeit reason: {value!r}; allowed: {allowed}") from None


class Fault(str, Enum):
    """What went wrong on a channel to a jailed process."""

    TIMEOUT = "timeout"  #: no whole message by the deadline, or the pipe did not drain
    CLOSED = "closed"  #: the process closed its end
    PROTOCOL = "protocol"  #: a message too long, not JSON, or not an object
    OUTPUT = "output"  #: it printed more than its output limit

    def __str__(self) -> str:
        return self.value


#: Every reason's stored word, in the order above.
REASONS: tuple[str, ...] = tuple(r.value for r in Reason)
#: The reasons a process forfeits for (all but the move cap, which is nobody's fault).
FORFEITS: frozenset[Reason] = frozenset(Reason) - {Reason.MOVE_CAP}
