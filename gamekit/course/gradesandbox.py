"""One submission in the sandbox: grading's driver, the teacher's side of `gamekit.sandbox.sandboxrun`.

The submission's cells run in bubblewrap's namespaces (a jail of `GRADING` bounds: no network,
no file of the teacher's, no test file anywhere, nobody else's process, killed whole
afterwards), with a per-cell time limit kept by this process's clock. A cell that runs longer,
or kills Python, is replaced by a cell that raises an error saying so, and the notebook runs
again from the start: a loop or a crash costs only that exercise. After the last cell the
driver asks for the answers and the probes' results; what comes back is read through the
sandbox package's one reader (`gamekit.sandbox.channel.Channel`, with grading's bounds) and kept
as plain data in a `SandboxRun`. Nothing here judges: `gamekit.course.grade` does, in a clean
process.
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

from ..sandbox import plain, sandboxrun
from ..sandbox.bwrap import Jail, thread_environment
from ..sandbox.cgroup import JailGroup
from ..sandbox.channel import Channel, ChannelError, clean_text
from ..sandbox.limits import GRADING
from ..sandbox.outcomes import Fault
from .runresult import ERROR_NAME, SandboxRun

__all__ = [
    "CELL_TIMEOUT",
    "CHECK",
    "EXERCISE",
    "STOPPED_CELL",
    "SUBMISSION_SECONDS",
    "exercise_of",
    "run_in_sandbox",
]

#: Seconds any one cell of a submission may run (the reference solutions need well under 3 s).
CELL_TIMEOUT = 30.0
#: The source that replaces a cell that timed out or killed the kernel.
STOPPED_CELL = "raise RuntimeError({message!r})  # gamekit grade: this cell was replaced, see the feedback page"

# otter puts `<!-- BEGIN QUESTION -->` comments before hand-graded exercises' headings
EXERCISE = re.compile(r"^\s*(?:<!--.*?-->\s*)*\*\*Exercise\s+([0-9]+\.[0-9]+)", re.S)
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


def exercise_of(nb: nbformat.NotebookNode, index: int) -> tuple[str, str | None]:
    """How a student finds cell `index`: ("Exercise 4.3 (cell 54)", its question name), or ("cell 7", None)
    for a cell before the first exercise. The exercise is the nearest "**Exercise N.M**" heading above;
    its question is the name its `grader.check(...)` cell (below the heading) checks."""
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
            return f"Exercise {found.group(1)} (cell {index})", question
    return f"cell {index}", None


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
            why = f"sent more than the grader reads ({LINE_BYTES:,} bytes per answer)"
        else:
            why = "sent something that is not a report"
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
                    result.failed[msg["done"]] = str(kind) if named else "an exception"
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
                        result.names[name] = {"why": f"{name} is not defined in the notebook"}
                    else:
                        why = clean_text(msg.get("refused"), 300, one_line=True)
                        result.names[name] = {"why": f"{name} cannot be graded: {why}"}
                elif type(msg.get("probe")) is str and msg["probe"] in probe_ids:
                    current = ("probe", msg["probe"])
                    deadline, late = until(cell_timeout)
                elif type(msg.get("probe_done")) is str and msg["probe_done"] in probe_ids:
                    if "value" in msg:
                        result.probes[msg["probe_done"]] = {"value": json.dumps(msg["value"])}
                    else:
                        result.probes[msg["probe_done"]] = {
                            "why": "calling your code on the grader's input failed: "
                            + clean_text(msg.get("error"), 300, one_line=True)
                        }
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
        why = {
            "late": f"this cell ran longer than {cell_timeout:g} s and was stopped",
            "cap": f"the submission's {cap:g} s for grading (all runs together) ran out while this cell ran",
            "died": "Python died while this cell ran (it crashed, called os._exit or used all memory)",
        }.get(reason, f"while this cell ran the notebook {reason}; it was stopped")
        if kind == "cell" and type(item) is int and 0 <= item < len(cells) and item not in result.stopped:
            label, _ = exercise_of(nb, item)
            result.stopped[item] = f"{label}: {why}"
        elif kind == "probe":
            result.probes[item] = {
                "why": f"your code ran longer than {cell_timeout:g} s on the grader's input"
                if late
                else f"the submission's {cap:g} s for grading ran out while the grader called your code"
                if reason == "cap"
                else "Python died while the grader called your code"
                if reason == "died"
                else f"while the grader called your code, the notebook {reason}"
            }
        elif kind == "check":
            result.checks[item] = False
        elif kind == "job":
            for n in job["names"]:
                result.names.setdefault(n, {"why": "the answers could not be read from the notebook"})
        else:
            result.error = "the sandbox did not start" + (" in time" if late or reason == "cap" else "")
            return result
        if reason == "cap":
            result.error = (
                f"grading stopped: this submission used its {cap:g} s (all {result.rounds} run(s) of the notebook "
                "together); what had not finished counts as wrong"
            )
            return result
    result.error = f"grading stopped after {ROUNDS} runs of the notebook; what did not finish counts as wrong"
    return result
