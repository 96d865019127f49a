"""The teacher's end of a jailed process's pipes: bounded, framed, parsed as data; and clean text.

A jailed process answers with JSON lines on one pipe and prints on another. Every read and every
write has a deadline: the teacher's side never blocks on a jail (a process that stops reading its
requests is that process's timeout, however large the message). Nothing it sends is trusted: a
reply is read only up to a size, parsed strictly with a bound on nesting
(`gamekit.jsonio.parse_json`, never pickle), and must be a JSON object; what it prints is kept
only up to a size (the rest is counted, not stored). Every string that leaves this package for a
database, a web page, a CSV file or a terminal passes `clean_text` first.

`Channel` is the one reader of what a jail sends: the tournament's agents and games
(`process.JailedProcess`) and grading's notebook runner (`sandboxrun`, read by
`gamekit.course.gradesandbox` with its own bounds: larger answers, a cap on all reports together).
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import time
import unicodedata
from dataclasses import dataclass, field
from typing import Any

from ..jsonio import JSONLoadError, parse_json
from .outcomes import Fault

MAX_REPLY_BYTES = 1 << 20
MAX_REPLY_DEPTH = 32  # a move or a message never needs more
#: A write without a deadline of its own must be read within this many seconds.
SEND_SECONDS = 10.0
REPLACEMENT = "\ufffd"


def clean_text(value: Any, limit: int, one_line: bool = False) -> str:
    """`value` as text that is safe to store and show: valid UTF-8 (a lone surrogate becomes U+FFFD),
    no control characters but newlines and tabs (none at all with `one_line`; a terminal's escape
    sequences are control characters), at most `limit` characters (a longer one ends in " [cut]").
    One-line text (a name, a file name) also loses Unicode's format characters (category Cf: the
    bidi overrides U+202A-U+202E and isolates U+2066-U+2069 that show "exe.txt" for "txt.exe",
    zero-width spaces and joiners that make two names look alike)."""
    if limit < 0:
        raise ValueError(f"limit must be >= 0, got {limit!r}")
    text = value if isinstance(value, str) else str(value)
    if len(text) > 4 * limit + 64:  # never walk a megabyte character by character
        text = text[: 4 * limit + 64]
    dropped = ("Cf",) if one_line else ()
    text = "".join(
        ch
        if (ch in "\n\t" and not one_line) or unicodedata.category(ch) not in ("Cc", "Cs")
        else (" " if ch in "\n\t\r" else REPLACEMENT)
        for ch in text
        if unicodedata.category(ch) not in dropped
    )
    return text if len(text) <= limit else text[:limit] + " [cut]"


class ChannelError(Exception):
    """What went wrong on the channel: `fault` is a `Fault` (timeout, closed, protocol, output);
    `detail` says more; `limit` is the size in bytes a message broke when that was the protocol fault
    (None otherwise)."""

    def __init__(self, fault: Fault | str, detail: str, limit: int | None = None):
        self.fault = Fault(fault)
        super().__init__(f"{self.fault}: {detail}")
        self.detail = detail
        self.limit = limit


@dataclass
class Channel:
    """JSON lines to and from one jailed process, and its printed output (all file descriptors are
    the teacher's ends of pipes, read without blocking beyond a deadline)."""

    write_fd: int
    read_fd: int
    output_fd: int = -1
    output_bytes: int = 1 << 18  # the most printed output kept (more is counted: `printed`)
    printed: int = 0
    _buffer: bytes = field(default=b"", repr=False)
    _output: bytearray = field(default_factory=bytearray, repr=False)
    reply_bytes: int = MAX_REPLY_BYTES  # the longest message read
    reply_depth: int = MAX_REPLY_DEPTH  # its deepest nesting
    total_bytes: int | None = None  # the most read in all, every message together (None: no bound)
    received: int = 0  # bytes read so far

    def __post_init__(self) -> None:
        if self.write_fd >= 0:  # a write never blocks: `send` waits for room with select, up to its deadline
            os.set_blocking(self.write_fd, False)

    def send(self, message: dict[str, Any], deadline: float | None = None, clock: Any = time.monotonic) -> None:
        """Write one message by `deadline` (on `clock`; default `SEND_SECONDS` from now). A process
        that does not read it in time raises `ChannelError(Fault.TIMEOUT)`, one that has closed its end
        `OSError`; what it prints meanwhile is taken, so a printer cannot stall its own requests."""
        data = (json.dumps(message, separators=(",", ":")) + "\n").encode()
        if deadline is None:
            deadline = clock() + SEND_SECONDS
        view = memoryview(data)
        while view:
            with contextlib.suppress(BlockingIOError):
                view = view[os.write(self.write_fd, view) :]
            if not view:
                return
            remaining = deadline - clock()
            if remaining <= 0:
                raise ChannelError(
                    Fault.TIMEOUT,
                    f"it did not read its requests in time ({len(view)} of {len(data)} bytes left unread)",
                )
            reading = [self.output_fd] if self.output_fd >= 0 else []
            readable, _, _ = select.select(reading, [self.write_fd], [], min(remaining, 0.05))
            if readable:
                self._drain()

    def _drain(self) -> None:
        """Take what it printed so far (never blocks: the pipe is read only when select says so)."""
        while self.output_fd >= 0:
            ready, _, _ = select.select([self.output_fd], [], [], 0)
            if not ready:
                return
            chunk = os.read(self.output_fd, 1 << 16)
            if not chunk:
                os.close(self.output_fd)
                self.output_fd = -1
                return
            self.printed += len(chunk)
            room = self.output_bytes - len(self._output)
            if room > 0:
                self._output += chunk[:room]

    def receive(self, deadline: float, clock: Any, poll: Any = None) -> dict[str, Any]:
        """The next message, as a dict, by `deadline` (on `clock`); `ChannelError` if none comes, the
        pipe closes, or what comes is not one bounded JSON object. `poll()` is called every 50 ms while
        waiting, after what was printed is taken; it may raise to end the wait (a time or output limit)."""
        while b"\n" not in self._buffer:
            if len(self._buffer) > self.reply_bytes:  # a line too long is refused before its end comes
                raise ChannelError(Fault.PROTOCOL, f"a reply longer than {self.reply_bytes} bytes", self.reply_bytes)
            remaining = deadline - clock()
            if remaining <= 0:
                raise ChannelError(Fault.TIMEOUT, "no answer in time")
            fds = [self.read_fd] + ([self.output_fd] if self.output_fd >= 0 else [])
            ready, _, _ = select.select(fds, [], [], min(remaining, 0.05) if poll else remaining)
            if self.output_fd in ready:
                self._drain()
            if poll is not None:  # after the drain: it may judge what was printed
                poll()
            if self.read_fd not in ready:
                continue
            chunk = os.read(self.read_fd, 1 << 16)
            if not chunk:
                raise ChannelError(Fault.CLOSED, "the process closed its pipe")
            self.received += len(chunk)
            self._buffer += chunk
            if self.total_bytes is not None and self.received > self.total_bytes:
                raise ChannelError(Fault.PROTOCOL, f"more than {self.total_bytes} bytes in all", self.total_bytes)
        line, _, self._buffer = self._buffer.partition(b"\n")
        if len(line) > self.reply_bytes:
            raise ChannelError(Fault.PROTOCOL, f"a reply longer than {self.reply_bytes} bytes", self.reply_bytes)
        try:  # bounded in size and nesting before it is parsed: a reply is data, never trusted
            reply = parse_json(line, max_bytes=self.reply_bytes, max_depth=self.reply_depth, source="the reply")
        except (JSONLoadError, TypeError, ValueError) as exc:
            raise ChannelError(Fault.PROTOCOL, f"a reply that is not plain JSON data: {clean_text(exc, 200)}") from None
        if not isinstance(reply, dict):
            raise ChannelError(Fault.PROTOCOL, f"a reply that is not a message: {clean_text(line[:100], 100)}")
        return reply

    def output(self, limit: int, wait: float = 0.0) -> str:
        """The start of what it printed, as clean text of at most `limit` characters."""
        if wait > 0 and self.output_fd >= 0:
            select.select([self.output_fd], [], [], wait)
        self._drain()
        return clean_text(bytes(self._output).decode("utf-8", "replace"), limit)

    def close(self) -> None:
        for name in ("write_fd", "read_fd", "output_fd"):
            fd = getattr(self, name)
            if fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(fd)
                setattr(self, name, -1)
