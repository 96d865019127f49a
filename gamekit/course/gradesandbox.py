"""One submission in the sandbox: grading's driver, the teacher's side of `gamekit.sandbox.sandboxrun`.

The submission's cells run in bubblewrap's namespaces (a jail of `GRADING` bounds: no network,
no file of the teacher's, no test file anywhere, nobody else's process, killed whole
afterwards), with a per-cell time limit kept by this process's clock. A cell that runs longer,
or kills Python, is replaced by a cell that raises an error saying so, and the notebook runs
again from the start: a loop or a crash costs only that exercise. After the last cell the
driver asks for the answers and the probes' results; what comes back is read through the
sandbox package's one reader (`gamekit.sandbox.channel.Channel`, with grading's bounds) and kept
as plain data in a `SandboxRun`. Nothing here judges: `gamekit.course.grade` does, in a clean
process. What a `SandboxRun` says (why a cell was stopped, why an answer or a probe has no value, the
run's error) is English data, whatever language the process speaks (a run may come from a cluster
worker); `sandbox_text` shows it in the language in force.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import nbformat

from ..i18n import N_, _, pgettext
from ..sandbox import plain, sandboxrun
from ..sandbox.bwrap import Jail, thread_environment
from ..sandbox.cgroup import JailGroup
from ..sandbox.channel import Channel, ChannelError, clean_text
from ..sandbox.limits import GRADING
from ..sandbox.outcomes import Fault, made_by, reworded
from .runresult import ERROR_NAME, SandboxRun

__all__ = [
    "CELL_TIMEOUT",
    "CHECK",
    "EXERCISE",
    "STOPPED_CELL",
    "SUBMISSION_SECONDS",
    "exercise_of",
    "run_in_sandbox",
    "sandbox_text",
]

#: Seconds any one cell of a submission may run (the reference solutions need well under 3 s).
CELL_TIMEOUT = 30.0
#: The source that replaces a cell that timed out or killed the kernel.
STOPPED_CELL = "raise RuntimeError({message!r})  # gamekit grade: this cell was replaced, see the feedback page"

# otter puts `<!-- BEGIN QUESTION -->` comments before hand-graded exercises' headings; the German edition's
# headings say `**Aufgabe N.M**`
EXERCISE = re.compile(r"^\s*(?:<!--.*?-->\s*)*\*\*(?:Exercise|Aufgabe)\s+([0-9]+\.[0-9]+)", re.S)
CHECK = re.compile(r"grader\.check\(\s*['\"]([^'\"]+)['\"]")
#: Most bytes one line of the sandbox's reports may have (an answer is at most plain.MAX_BYTES),
#: and all its reports together.
LINE_BYTES = plain.MAX_BYTES + 4096
TOTAL_BYTES = 64 << 20
#: Deepest nesting of a report (an answer's tagged JSON plus the envelope).
REPORT_DEPTH = 2 * plain.MAX_DEPTH + 8
#: Seconds the sandbox may take to start (Python and IPython inside bubblewrap, on a busy machine).
START_SECONDS = 60.0
#: How often a submission is run again after a cell or a probe had to be stopped.
ROUNDS = 6
#: Seconds one submission may use in its sandbox in all (every run of the notebook and its probes
#: together); when they are used up, grading it stops and what had not finished counts as wrong.
SUBMISSION_SECONDS = 300.0
#: Limits inside the sandbox (lowered by the runner before any student code runs).
LIMITS = {"memory_mb": 4096, "file_mb": 64, "files": 256}


# How a student finds a cell (English data in a `SandboxRun`; `exercise_of` and `sandbox_text` show it).
# TRANSLATORS: a cell of a student's notebook below the heading of Exercise {number}, {index} counted from 0
CELL_IN_EXERCISE = N_("Exercise {number} (cell {index})")
# TRANSLATORS: a cell of a student's notebook before its first exercise, {index} counted from 0
CELL_ALONE = N_("cell {index}")

# Why a cell was stopped: "{cell}: {why}" (English data in `SandboxRun.stopped`).
STOPPED = "{cell}: {why}"
CELL_LATE = N_("this cell ran longer than {seconds} s and was stopped")
CELL_CAP = N_("the submission's {seconds} s for grading (all runs together) ran out while this cell ran")
CELL_DIED = N_("Python died while this cell ran (it crashed, called os._exit or used all memory)")
# TRANSLATORS: {what} says what the notebook did, e.g. "sent something that is not a report"
CELL_OTHER = N_("while this cell ran the notebook {what}; it was stopped")
# Why a probe (the grader calling the student's code) has no value.
PROBE_LATE = N_("your code ran longer than {seconds} s on the grader's input")
PROBE_CAP = N_("the submission's {seconds} s for grading ran out while the grader called your code")
PROBE_DIED = N_("Python died while the grader called your code")
# TRANSLATORS: {what} says what the notebook did, e.g. "sent something that is not a report"
PROBE_OTHER = N_("while the grader called your code, the notebook {what}")
PROBE_FAILED = N_("calling your code on the grader's input failed: {error}")
# What the notebook did wrong on its channel (the {what} above).
SENT_TOO_MUCH = N_("sent more than the grader reads ({bytes} bytes per answer)")
SENT_NO_REPORT = N_("sent something that is not a report")
# Why an answer has no value.
NOT_DEFINED = N_("{name} is not defined in the notebook")
NOT_GRADABLE = N_("{name} cannot be graded: {why}")
NOT_READ = N_("the answers could not be read from the notebook")
# The run's error.
NOT_STARTED = N_("the sandbox did not start")
NOT_STARTED_IN_TIME = N_("the sandbox did not start in time")
# TRANSLATORS: {seconds} is the submission's time for grading, {rounds} how often its notebook was run
USED_ITS_TIME = N_(
    "grading stopped: this submission used its {seconds} s (all {rounds} run(s) of the notebook together); "
    "what had not finished counts as wrong"
)
TOO_MANY_RUNS = N_("grading stopped after {rounds} runs of the notebook; what did not finish counts as wrong")
# A cell that raised an error whose type the sandbox could not name (`SandboxRun.failed`).
AN_EXCEPTION = N_("an exception")


def sandbox_text(text: str) -> str:
    """What a `SandboxRun` says, as a student reads it, in the language in force: a stopped cell's note
    ("Exercise 4.3 (cell 54): this cell ran longer than 30 s and was stopped"), an answer's or a probe's
    why, the run's error or a failed cell's error. Words the student's code or Python wrote (an error's
    message) are shown as they are, and so is a text of another making."""

    def what(did: str) -> str:
        return reworded(did, (SENT_TOO_MUCH, SENT_NO_REPORT), bytes=thousands)

    def thousands(number: str) -> str:  # "1,234" as stored; "1.234" in German
        # TRANSLATORS: the character between thousands in a number (1,500): "." in German
        return number.replace(",", pgettext("thousands separator", ","))

    labels = (CELL_IN_EXERCISE, CELL_ALONE)
    label, colon, why = text.partition(": ")
    if colon and any(made_by(label, t) is not None for t in labels):  # a stopped cell's note
        why = reworded(why, (CELL_LATE, CELL_CAP, CELL_DIED, CELL_OTHER), what=what)
        return STOPPED.format(cell=reworded(label, labels), why=why)
    probes = (PROBE_LATE, PROBE_CAP, PROBE_DIED, PROBE_OTHER, PROBE_FAILED)
    others = (NOT_DEFINED, NOT_GRADABLE, NOT_READ, NOT_STARTED, NOT_STARTED_IN_TIME, USED_ITS_TIME, TOO_MANY_RUNS)
    return reworded(text, (*probes, *others, AN_EXCEPTION), what=what)


def _cell_label(nb: nbformat.NotebookNode, index: int) -> tuple[str, dict[str, Any], str | None]:
    """(the English label's template, its values, the question) of cell `index` (see `exercise_of`)."""
    for j in range(index, -1, -1):
        cell = nb.cells[j]
        found = EXERCISE.match(cell.source) if cell.cell_type == "markdown" else None
        if found:
            question = None
            for k in range(j + 1, len(nb.cells)):
                later = nb.cells[k]
                if later.cell_type == "markdown" and EXERCISE.match(later.source):
                    break
                check = CHECK.search(later.source) if later.cell_type == "code" else None
                if check:
                    question = check.group(1)
                    break
            return CELL_IN_EXERCISE, {"number": found.group(1), "index": index}, question
    return CELL_ALONE, {"index": index}, None


def exercise_of(nb: nbformat.NotebookNode, index: int) -> tuple[str, str | None]:
    """How a student finds cell `index`: ("Exercise 4.3 (cell 54)", its question name), or ("cell 7", None)
    for a cell before the first exercise, the label in the language in force ("Aufgabe 4.3 (Zelle 54)"). The
    exercise is the nearest "**Exercise N.M**" (or "**Aufgabe N.M**") heading above; its question is the
    name its `grader.check(...)` cell (below the heading) checks."""
    template, values, question = _cell_label(nb, index)
    return _(template).format(**values), question


class _Stop(Exception):
    """The sandbox must be stopped: `item` ("cell 3", "probe q4_3.2", ...) did not finish; why."""

    def __init__(self, item: tuple[str, Any], why: str):
        super().__init__(why)
        self.item, self.why = item, why


def _report(channel: Channel, deadline: float, waiting_for: tuple[str, Any], late: str) -> dict[str, Any]:
    """The sandbox's next report, read by the teacher's clock and within grading's byte limits; a
    report that does not come in time, a sandbox that ended, or anything but a bounded report
    raises `_Stop` for `waiting_for` with the reason `run_in_sandbox` turns into the student's note."""
    try:
        return channel.receive(deadline, time.monotonic)
    except ChannelError as exc:
        if exc.fault is Fault.TIMEOUT:
            why = late
        elif exc.fault is Fault.CLOSED:
            why = "died"
        elif exc.limit is not None:
            why = SENT_TOO_MUCH.format(bytes=f"{LINE_BYTES:,}")
        else:
            why = SENT_NO_REPORT
        raise _Stop(waiting_for, why) from None


def _tell(channel: Channel, message: dict[str, Any], deadline: float, waiting_for: tuple[str, Any], late: str) -> None:
    """Send the runner `message` by `deadline` (the teacher's clock): a runner that does not read it
    in time (its student's code holds or ignores the pipe) raises `_Stop` as a late report does,
    one that has gone `_Stop` "died"; the grader never blocks on a jail."""
    try:
        channel.send(message, deadline, time.monotonic)
    except ChannelError:
        raise _Stop(waiting_for, late) from None
    except OSError:
        raise _Stop(waiting_for, "died") from None


def _start_sandbox(
    work: Path, fd: int, trusted: bool, env: dict[str, str]
) -> tuple[subprocess.Popen, JailGroup | None]:
    """Start the runner: in a jail of `GRADING` bounds (the tournament's jail: the same filter, a
    tmpfs as the only writable place, the jail's memory and processes bounded as a whole where
    control groups hold), or as a plain process for trusted code (in `work`)."""
    package_parent = str(Path(__file__).resolve().parents[2])
    boot = [sys.executable, "-I", "-c", sandboxrun.BOOT, package_parent, str(fd)]
    common: dict[str, Any] = {
        "stdin": subprocess.PIPE,
        "stdout": subprocess.DEVNULL,
        "stderr": subprocess.DEVNULL,
        "pass_fds": [fd],  # bubblewrap passes the fd on under its number
        "env": env,
        "cwd": work,
        "start_new_session": True,
    }
    if trusted:
        return subprocess.Popen([*boot, "open"], **common), None
    group = JailGroup(memory_bytes=int(GRADING.memory_mb * (1 << 20)), pids=GRADING.processes)
    mode = "jailed" if group.active else f"jailed:{GRADING.processes}"
    inside = {**thread_environment(), "PYTHONDONTWRITEBYTECODE": "1"}
    jail = Jail(env=inside, tmp_mb=GRADING.disk_mb, file_kb=GRADING.output_kb)
    try:
        return jail.popen([*boot, mode], wrap=group.wrap, **common), group
    except BaseException:
        group.close()
        raise


def _run_once(
    cells: list[str], job: dict[str, Any], cell_timeout: float, trusted: bool, result: SandboxRun, ends: float
) -> tuple[str, Any, str] | None:
    """Run the cells and then the job once, by the monotonic time `ends` at the latest; fill `result`.
    Returns the item that had to be stopped: (kind, which, reason): reason "late" (out of its time),
    "cap" (the submission's total time is used up), "died", or what else went wrong."""

    def until(seconds: float) -> tuple[float, str]:
        deadline = time.monotonic() + seconds
        return (deadline, "late") if deadline < ends else (ends, "cap")

    with tempfile.TemporaryDirectory(prefix="gamekit-grade-") as tmp:
        work = Path(tmp)
        read_fd, write_fd = os.pipe()
        # TMPDIR too: a trusted run (no jail) makes its temp folders in this one, removed with it
        env = {
            **thread_environment(),
            "PATH": "/usr/bin:/bin",
            "LANG": "C.UTF-8",
            "HOME": str(work),
            "TMPDIR": str(work),
        }
        try:
            proc, group = _start_sandbox(work, write_fd, trusted, env)
        finally:
            os.close(write_fd)
        # only the envelope is bounded in depth here (no RecursionError); the answer inside is checked by plain.loads
        assert proc.stdin is not None  # requests go through the channel: every write has a deadline
        to_runner = os.dup(proc.stdin.fileno())
        channel = Channel(to_runner, read_fd, reply_bytes=LINE_BYTES, reply_depth=REPORT_DEPTH, total_bytes=TOTAL_BYTES)
        probe_ids = {p["id"] for p in job["probes"]}  # only what was asked is taken from the reports
        check_ids = {c["id"] for c in job["checks"]}
        current: tuple[str, Any] = ("start", None)
        try:
            deadline, late = until(START_SECONDS)
            _tell(channel, {"cells": cells, "limits": LIMITS}, deadline, current, late)
            while True:
                msg = _report(channel, deadline, current, late)
                if "cell" in msg and type(msg["cell"]) is int:
                    current = ("cell", msg["cell"])
                    deadline, late = until(cell_timeout)
                elif msg.get("ready") is True:
                    break
                elif type(msg.get("done")) is int and msg.get("ok") is False:  # a cell that raised: its error's type
                    kind = msg.get("error")
                    named = isinstance(kind, str) and ERROR_NAME.fullmatch(kind) is not None
                    result.failed[msg["done"]] = str(kind) if named else AN_EXCEPTION
            current = ("job", None)
            deadline, late = until(cell_timeout)
            _tell(channel, job, deadline, current, late)
            while True:
                msg = _report(channel, deadline, current, late)
                if msg.get("end") is True:
                    return None
                name = msg.get("name")
                if type(name) is str and name in job["names"]:
                    if "value" in msg:
                        result.names[name] = {"value": json.dumps(msg["value"])}
                    elif msg.get("missing") is True:
                        result.names[name] = {"why": NOT_DEFINED.format(name=name)}
                    else:
                        why = clean_text(msg.get("refused"), 300, one_line=True)
                        result.names[name] = {"why": NOT_GRADABLE.format(name=name, why=why)}
                elif type(msg.get("probe")) is str and msg["probe"] in probe_ids:
                    current = ("probe", msg["probe"])
                    deadline, late = until(cell_timeout)
                elif type(msg.get("probe_done")) is str and msg["probe_done"] in probe_ids:
                    if "value" in msg:
                        result.probes[msg["probe_done"]] = {"value": json.dumps(msg["value"])}
                    else:
                        error = clean_text(msg.get("error"), 300, one_line=True)
                        result.probes[msg["probe_done"]] = {"why": PROBE_FAILED.format(error=error)}
                elif type(msg.get("check")) is str and msg["check"] in check_ids:
                    current = ("check", msg["check"])
                    deadline, late = until(cell_timeout)
                elif type(msg.get("check_done")) is str and msg["check_done"] in check_ids:
                    result.checks[msg["check_done"]] = msg.get("passed") is True
        except _Stop as stop:
            return (stop.item[0], stop.item[1], stop.why)
        except OSError:  # a broken pipe: the sandbox ended while being told what to do
            return (current[0], current[1], "died")
        finally:
            _end_sandbox(proc)
            if group is not None:  # every process of the jail, wherever it went
                group.close()
            channel.close()


def _end_sandbox(proc: subprocess.Popen) -> None:
    """Kill bubblewrap (its PID namespace dies with it: every process the submission started)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    with contextlib.suppress(ProcessLookupError):
        proc.kill()
    with contextlib.suppress(OSError):
        if proc.stdin:
            proc.stdin.close()
    proc.wait()


def run_in_sandbox(
    nb: nbformat.NotebookNode,
    spec: dict[str, Any],
    cell_timeout: float,
    trusted: bool = False,
    submission_seconds: float | None = None,
) -> SandboxRun:
    """Run a submission in bubblewrap's namespaces and ask it for its answers as plain data.

    A cell that runs longer than `cell_timeout` seconds, or kills Python, is replaced by a cell
    that raises an error saying so, and the notebook is run again from the start (up to `ROUNDS`
    times); a probe that does not finish fails its test and is left out of the next run. All runs
    together get `submission_seconds` (default `SUBMISSION_SECONDS`): then the sandbox is ended,
    whatever had not finished counts as wrong, and `error` says so.
    """
    cap = SUBMISSION_SECONDS if submission_seconds is None else float(submission_seconds)
    if not cap > 0:
        raise ValueError(f"submission_seconds must be a positive number of seconds, got {submission_seconds!r}")
    ends = time.monotonic() + cap
    cells = [c.source if c.cell_type == "code" else "" for c in nb.cells]
    result = SandboxRun()
    cases = [c for q in spec["questions"] for c in q["cases"]]
    names = sorted({n for c in cases for n in c["names"]})
    probes = [{"id": c["id"], "code": c["probe"]} for c in cases if c["probe"] is not None]
    checks = [{"id": c["id"], "code": c["judge"]} for c in cases if not c["hidden"] and c["probe"] is None]
    for round_ in range(ROUNDS):
        result.rounds = round_ + 1
        run = [
            STOPPED_CELL.format(message=result.stopped[i]) if i in result.stopped else source
            for i, source in enumerate(cells)
        ]
        todo_probes = [p for p in probes if p["id"] not in result.probes]
        todo_checks = [c for c in checks if c["id"] not in result.checks]
        job = {
            "names": [n for n in names if n not in result.names],
            "probes": todo_probes,
            "checks": todo_checks,
        }
        stuck = _run_once(run, job, cell_timeout, trusted, result, ends)
        if stuck is None:
            return result
        kind, item, reason = stuck
        late = reason == "late"
        # what is stored is English data, whatever the language in force (`sandbox_text` shows it)
        why = {
            "late": CELL_LATE.format(seconds=f"{cell_timeout:g}"),
            "cap": CELL_CAP.format(seconds=f"{cap:g}"),
            "died": CELL_DIED,
        }.get(reason, CELL_OTHER.format(what=reason))
        if kind == "cell" and type(item) is int and 0 <= item < len(cells) and item not in result.stopped:
            template, values, _question = _cell_label(nb, item)
            result.stopped[item] = STOPPED.format(cell=template.format(**values), why=why)
        elif kind == "probe":
            result.probes[item] = {
                "why": PROBE_LATE.format(seconds=f"{cell_timeout:g}")
                if late
                else PROBE_CAP.format(seconds=f"{cap:g}")
                if reason == "cap"
                else PROBE_DIED
                if reason == "died"
                else PROBE_OTHER.format(what=reason)
            }
        elif kind == "check":
            result.checks[item] = False
        elif kind == "job":
            for n in job["names"]:
                result.names.setdefault(n, {"why": NOT_READ})
        else:
            result.error = NOT_STARTED_IN_TIME if late or reason == "cap" else NOT_STARTED
            return result
        if reason == "cap":
            result.error = USED_ITS_TIME.format(seconds=f"{cap:g}", rounds=result.rounds)
            return result
    result.error = TOO_MANY_RUNS.format(rounds=ROUNDS)
    return result
