"""Outcomes as data: why a jailed process lost, and what went wrong on its channel.

A forfeit's reason is a `Reason`, never a free string (python-chess's `Termination` is the model):
the sandbox raises it, the referee stores its value in the game's record, the tournament's
database and reports read it back with `Reason(...)`, and a test can list every outcome. Each
member is a `str` whose value is the word stored and shown ("timeout", "illegal move"), so a
record written before this module existed reads the same.

`Fault` is the smaller set a channel reports (`ChannelError.fault`): the process took too long,
closed its pipe, broke the protocol, or printed too much. The process that owns the channel turns
each into a `Reason` (see `gamekit.sandbox.process`).

What is stored stays English data, whatever language the process speaks; a student reads it in the
language in force when it is shown: `Reason.text` (or `reason_text` of a stored word) is the reason's
word, and `reworded` turns any stored English sentence that a known template made back into that
template's translation with the same values (the referee's details, the grader's stop notes).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable
from enum import Enum

from ..i18n import LANGUAGES, _, get_language, pgettext


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

    @property
    def text(self) -> str:
        """The reason's word in the language in force (its `value` stays the English word that is stored)."""
        return reason_text(self)

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


def reason_text(reason: object) -> str:
    """A forfeit reason (a `Reason`, or the word a record stores) as a student reads it, in the language
    in force; a word that names no reason (a record of a later version) is shown as it is."""
    try:
        member = Reason(reason)
    except ValueError:
        return str(reason)
    words = {
        # TRANSLATORS: a forfeit's reason, one or two words: why an agent lost a game without playing it out
        Reason.STARTUP: pgettext("forfeit reason", "startup"),
        Reason.TIMEOUT: pgettext("forfeit reason", "timeout"),
        Reason.CRASH: pgettext("forfeit reason", "crash"),
        Reason.EXCEPTION: pgettext("forfeit reason", "exception"),
        Reason.MEMORY: pgettext("forfeit reason", "memory"),
        Reason.CPU_LIMIT: pgettext("forfeit reason", "cpu limit"),
        Reason.OUTPUT_LIMIT: pgettext("forfeit reason", "output limit"),
        Reason.SANDBOX: pgettext("forfeit reason", "sandbox"),
        Reason.PROTOCOL: pgettext("forfeit reason", "protocol"),
        Reason.WRONG_TYPE: pgettext("forfeit reason", "wrong type"),
        Reason.ILLEGAL_MOVE: pgettext("forfeit reason", "illegal move"),
        Reason.MOVE_CAP: pgettext("forfeit reason", "move cap"),
    }
    return words[member]


_FIELD = re.compile(r"\{(\w+)\}")


@functools.lru_cache(maxsize=256)
def _pattern(template: str) -> re.Pattern[str]:
    """A regular expression that matches what `template.format(...)` makes, each field a named group."""
    parts, seen, at = [], set(), 0
    for field in _FIELD.finditer(template):
        name = field.group(1)
        parts += [re.escape(template[at : field.start()]), f"(?P={name})" if name in seen else f"(?P<{name}>.*?)"]
        seen.add(name)
        at = field.end()
    parts.append(re.escape(template[at:]))
    return re.compile("".join(parts), re.S)


def made_by(text: str, template: str) -> dict[str, str] | None:
    """The values that `template.format(...)` was given to make `text` ({field: text}), or None if it did not."""
    found = _pattern(template).fullmatch(text)
    return None if found is None else found.groupdict()


def reworded(text: str, templates: Iterable[str], **convert: Callable[[str], str]) -> str:
    """`text`, an English sentence kept as data, in the language in force: the first of `templates` (English
    messages marked with `N_`, fields `{name}` without format specs) that made it is translated and filled
    with the same values, each passed through `convert[name]` first where given (a value that is itself
    stored English); a text no template made is returned as it is. In English: `text` unchanged."""
    if get_language() == LANGUAGES[0]:
        return text
    for template in templates:
        found = made_by(text, template)
        if found is not None:
            values = {k: convert[k](v) if k in convert else v for k, v in found.items()}
            return _(template).format(**values)
    return text
