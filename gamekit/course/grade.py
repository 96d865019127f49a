"""Grade a folder of submitted notebooks: each in a sandbox, judged on plain data by a clean process.

    python -m gamekit.course grade SUBMISSIONS/ [--autograder ZIP_OR_FOLDER] [--timeout S] [--jobs N]
                                                [--trusted-code]

A submission is `SUBMISSIONS/<student>.ipynb` or `SUBMISSIONS/<student>/<anything>.ipynb`; the
assignment it belongs to is read from the notebook (otter stores it there) and its autograder
found among the given ones (default: `_build/assign/autograder/`, written by `assign`).

Why not `otter run`: otter runs the hidden tests inside the student's kernel, after the
student's code, so a submission can replace otter's test runner, answer with an object whose
`==` is always true, read the test files, or leave processes behind. otter-grader still makes
the student copies and their public checks (`assign`); only what runs the hidden tests is ours:

1. **the sandbox**: the submission's cells run in bubblewrap's namespaces (`gamekit.sandbox`:
   no network, no file of the teacher's, no test file anywhere, nobody else's process, killed
   whole afterwards), with a per-cell time limit kept by this process's clock. A cell that runs
   longer, or kills Python, is replaced by a cell that raises an error saying so, and the
   notebook runs again from the start: a loop or a crash costs only that exercise.
2. **the answers leave as plain data**: after the last cell the grader asks for the answers
   (`answer_4_1`, ...) and, for exercises that grade a function, calls it on the hidden inputs
   there (the test's `def probe()`, see `gamekit.course.cases`); only tagged JSON comes back,
   rebuilt with exact built-in types (`gamekit.sandbox.plain`).
3. **the judge**: one fresh process per assignment runs the lesson's own code and then the
   tests on that data (`gamekit.sandbox.judge`); the student's code never ran in it.

Without bubblewrap (macOS, Windows) grading refuses to start unless the teacher passes
`--trusted-code` (then the notebooks run as ordinary processes; steps 2 and 3 are the same).

Output in `--out` (default `_build/grades/`): `<assignment>.csv` with one row per student and
one column per exercise (manual exercises left empty for the teacher, the header says how many
points), a `flags` column for signs that a notebook lied about its checks, and
`feedback/<assignment>/<student>.html`, a page per student that shows the points per exercise
and the hints of failed public checks, but never the code of a hidden test.
"""

from __future__ import annotations

import contextlib
import html
import json
import os
import re
import select
import signal
import subprocess
import sys
import tempfile
import threading
import time
import zipfile
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import nbformat

from ..jsonio import JSONLoadError, parse_json
from ..sandbox import judge, plain, sandboxrun
from ..sandbox.bwrap import Jail, require_bwrap, thread_environment
from ..sandbox.cgroup import JailGroup
from ..sandbox.channel import clean_text
from ..sandbox.limits import GRADING
from . import gradecluster, handgrade, intake
from .assign import quiet_output
from .cases import SPEC_FILE
from .runresult import ERROR_NAME, SandboxRun
from .spreadsheet import csv_line, feedback_page_names
from .tidy import make_readable

__all__ = [
    "Autograder",
    "CELL_TIMEOUT",
    "feedback_html",
    "find_autograders",
    "find_submissions",
    "grade",
    "grade_one",
    "load_results",
    "read_submission",
    "assemble",
    "run_in_sandbox",
    "SandboxRun",
    "STOPPED_CELL",
    "Submission",
    "SubmissionResult",
    "write_reports",
]

#: Seconds any one cell of a submission may run (the reference solutions need well under 3 s).
CELL_TIMEOUT = 30.0
NOTEBOOK_BYTES = intake.NOTEBOOK_BYTES
#: The source that replaces a cell that timed out or killed the kernel.
STOPPED_CELL = "raise RuntimeError({message!r})  # gamekit grade: this cell was replaced, see the feedback page"


# ---------------------------------------------------------------------------------------
# One submission in the sandbox (the teacher's side of gamekit.sandbox.sandboxrun's protocol)
# ---------------------------------------------------------------------------------------

# otter puts `<!-- BEGIN QUESTION -->` comments before hand-graded exercises' headings
EXERCISE = re.compile(r"^\s*(?:<!--.*?-->\s*)*\*\*Exercise\s+([0-9]+\.[0-9]+)", re.S)
CHECK = re.compile(r"grader\.check\(\s*['\"]([^'\"]+)['\"]")
#: Most bytes one line of the sandbox's reports may have (an answer is at most plain.MAX_BYTES),
#: and all its reports together.
LINE_BYTES = plain.MAX_BYTES + 4096
#: Deepest nesting of a report (an answer's tagged JSON plus the envelope).
REPORT_DEPTH = 2 * plain.MAX_DEPTH + 8
TOTAL_BYTES = 64 << 20
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


class _Channel:
    """Line-by-line reports from the sandbox, with the teacher's clock and byte limits."""

    def __init__(self, fd: int):
        self.fd = fd
        self.buffer = b""
        self.total = 0

    def read(self, deadline: float, waiting_for: tuple[str, Any], late: str) -> dict:
        while b"\n" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise _Stop(waiting_for, late)
            ready, _, _ = select.select([self.fd], [], [], left)
            if not ready:
                continue
            chunk = os.read(self.fd, 1 << 16)
            if not chunk:
                raise _Stop(waiting_for, "died")
            self.total += len(chunk)
            self.buffer += chunk
            if self.total > TOTAL_BYTES or (b"\n" not in self.buffer and len(self.buffer) > LINE_BYTES):
                raise _Stop(waiting_for, f"sent more than the grader reads ({LINE_BYTES:,} bytes per answer)")
        line, _, self.buffer = self.buffer.partition(b"\n")
        if len(line) > LINE_BYTES:
            raise _Stop(waiting_for, f"sent more than the grader reads ({LINE_BYTES:,} bytes per answer)")
        try:  # only the envelope (bounded in depth: no RecursionError); the answer inside is checked by plain.loads
            message = parse_json(line, max_bytes=LINE_BYTES, max_depth=REPORT_DEPTH, source="a report")
        except JSONLoadError:
            raise _Stop(waiting_for, "sent something that is not a report") from None
        if type(message) is not dict:
            raise _Stop(waiting_for, "sent something that is not a report")
        return message


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
        channel = _Channel(read_fd)
        probe_ids = {p["id"] for p in job["probes"]}  # only what was asked is taken from the reports
        check_ids = {c["id"] for c in job["checks"]}
        current: tuple[str, Any] = ("start", None)
        try:
            assert proc.stdin is not None
            proc.stdin.write((json.dumps({"cells": cells, "limits": LIMITS}) + "\n").encode())
            proc.stdin.flush()
            deadline, late = until(START_SECONDS)
            while True:
                msg = channel.read(deadline, current, late)
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
            proc.stdin.write((json.dumps(job) + "\n").encode())
            proc.stdin.flush()
            deadline, late = until(cell_timeout)
            while True:
                msg = channel.read(deadline, current, late)
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
            os.close(read_fd)


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


# ---------------------------------------------------------------------------------------
# The teacher's side: many submissions, CSV and feedback pages
# ---------------------------------------------------------------------------------------


@dataclass
class Autograder:
    """An autograder zip written by `assign`: its assignment, exercises, and grading spec."""

    name: str
    zip: Path
    questions: list[dict] = field(default_factory=list)
    spec: dict = field(default_factory=dict)

    @classmethod
    def load(cls, path: Path) -> Autograder:
        with zipfile.ZipFile(path) as z:
            name = json.loads(z.read("otter_config.json")).get("assignment_name")
            if SPEC_FILE not in z.namelist():
                raise ValueError(
                    f"{path} has no {SPEC_FILE}: it was made by an older `assign`; "
                    "run `python -m gamekit.course assign --rebuild` again"
                )
            spec = json.loads(z.read(SPEC_FILE))
        if not name:
            raise ValueError(f"{path} has no assignment_name in its otter_config.json (not made by `assign`?)")
        questions = [{"name": q["name"], "points": q["points"], "manual": q["manual"]} for q in spec["questions"]]
        return cls(name, path, questions, spec)


def find_autograders(given: Iterable[Path]) -> dict[str, Autograder]:
    """{assignment name: autograder} from zip files and folders of zips."""
    found: dict[str, Autograder] = {}
    for path in given:
        zips = sorted(Path(path).glob("*.zip")) if Path(path).is_dir() else [Path(path)]
        for z in zips:
            if not z.is_file():
                raise ValueError(f"no autograder {z}: build them with `python -m gamekit.course assign`")
            grader = Autograder.load(z)
            found[grader.name] = grader
    if not found:
        raise ValueError(f"no autograder zips in {[str(p) for p in given]}: run `python -m gamekit.course assign`")
    return found


@dataclass
class Submission:
    """One submitted notebook, read through descriptors (`gamekit.course.intake`); `path` only names it.

    Its bytes are `kept`, or read again when it is graded (`received`, with the checks of the first
    read), so that a class's notebooks are never all in memory at once."""

    student: str
    path: Path
    assignment: str | None
    kept: bytes | None = None
    refused: str | None = None
    received: intake.Received | None = field(default=None, repr=False, compare=False)
    scratch: Any = field(default=None, repr=False, compare=False)  # an unpacked archive's folder, kept while needed

    def read(self) -> bytes:
        """The notebook's bytes; `intake.Refused` (with the reason) if it is refused or cannot be read now."""
        if self.refused is not None:
            raise intake.Refused(self.refused)
        if self.kept is not None:
            return self.kept
        if self.received is None:
            raise intake.Refused("not read")
        return self.received.read()

    @property
    def data(self) -> bytes | None:
        """The notebook's bytes, or None if it is refused."""
        try:
            return self.read()
        except intake.Refused:
            return None


def find_submissions(source: Path) -> list[Submission]:
    """`source/<student>.ipynb` and `source/<student>/*.ipynb` (checkpoints ignored), by student;
    `source` may also be a zip archive of such a folder (unpacked into a temporary folder that lasts
    as long as its submissions). Each notebook is checked and read here, one at a time, for its
    assignment, and read again when it is graded: a link, a device, a FIFO, a hard link or an
    oversized file is a refused submission with a reason."""
    source = Path(source)
    scratch = None
    if source.is_file() and zipfile.is_zipfile(source):
        scratch = tempfile.TemporaryDirectory(prefix="gamekit-submissions-")
        try:
            received = intake.receive_archive(source, Path(scratch.name) / "unpacked", keep=False)
        except BaseException:
            scratch.cleanup()
            raise
    elif source.is_dir():
        received = intake.receive_folder(source, keep=False)
    else:
        raise ValueError(f"{source} is not a folder of submissions (nor a zip archive of one)")
    found = []
    for item in received:
        assignment, refused = None, item.refused
        try:
            meta = parse_json(item.read(), max_bytes=NOTEBOOK_BYTES).get("metadata", {})
            assignment = meta.get("otter", {}).get("assignment_name")
            assignment = assignment if type(assignment) is str else None
        except intake.Refused as why:
            refused = str(why)
        except (ValueError, AttributeError):
            assignment = None
        path = source / item.name
        found.append(Submission(item.student, path, assignment, None, refused, received=item, scratch=scratch))
    return found


@dataclass
class SubmissionResult:
    """The grade of one submission: points per question, notes, flags, and an error if grading failed."""

    student: str
    assignment: str
    path: Path
    questions: dict = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    error: str | None = None
    seconds: float = 0.0
    stopped: dict = field(default_factory=dict)  # question -> why its cell was stopped (time, a crash)
    flags: list[str] = field(default_factory=list)  # for the teacher: signs that the notebook lied about checks
    missing_checks: list[str] = field(default_factory=list)  # questions whose grader.check cell was deleted
    errors: dict = field(default_factory=dict)  # question -> how its cell failed ("... has a syntax error")
    unsent: dict = field(default_factory=dict)  # question -> why its answers could not reach the grader
    by_hand: dict = field(default_factory=dict)  # hand-graded question -> {"prompt", "answer"} (text, for the teacher)

    def score(self, name: str) -> float:
        return float(self.questions.get(name, {}).get("score", 0.0))

    @property
    def total(self) -> float:
        return sum(q["score"] for q in self.questions.values())


def _saved_check_claims(nb: nbformat.NotebookNode) -> set[str]:
    """Questions whose `grader.check` output, as saved in the submitted notebook, says "passed"."""
    claims = set()
    for cell in nb.cells:
        found = CHECK.search(cell.source) if cell.cell_type == "code" else None
        if not found:
            continue
        text = json.dumps(cell.get("outputs", []))[:20000]
        # otter's "q4_1 passed!" or the class copy's "q4_1: the public checks pass."
        if re.search(r"\bpass(ed)?\b", text, re.I) and not re.search(r"failed|not yet|error", text, re.I):
            claims.add(found.group(1))
    return claims


def assemble(
    sub: Submission, grader: Autograder, nb: nbformat.NotebookNode | None, run: SandboxRun, verdicts: dict
) -> SubmissionResult:
    """Points, hints, notes and flags of one submission from its sandbox run and the judge's verdicts."""
    res = SubmissionResult(sub.student, grader.name, sub.path, error=run.error)
    res.missing_checks = _missing_checks(nb, grader)
    if "error" in verdicts:
        res.error = "the judge failed; every exercise scores 0: " + str(verdicts["error"])[:300]
        verdicts = {}
    for index, why in sorted(run.stopped.items()):
        res.notes.append(f"{why}; it counts as an error")
        if nb is not None:
            _, question = exercise_of(nb, index)
            if question:
                res.stopped[question] = why
    _note_cell_errors(res, nb, run)
    # an answer that could not travel and that a graded test needed: say why, once, and what to change
    needed = {n for q in grader.spec["questions"] for c in q["cases"] if c["hidden"] for n in c["names"]}
    unsent = {
        name: _unsent_reason(name, item["why"])
        for name, item in sorted(run.names.items())
        if name in needed and "cannot be graded" in item.get("why", "")
    }
    blank = [name for name, why in unsent.items() if why is None]
    if blank:
        res.notes.append(f"not answered (still `...`): {', '.join(blank)}")
    res.notes += [why for why in unsent.values() if why is not None]
    for q in grader.spec["questions"]:
        names = [n for c in q["cases"] for n in c["names"] if n in unsent]
        if names:
            res.unsent[q["name"]] = "; ".join(
                dict.fromkeys(unsent[n] or f"not answered: `{n}` is still `...`" for n in names)
            )
    claims = _saved_check_claims(nb) if nb is not None else set()
    for q in grader.spec["questions"]:
        if q["manual"]:
            continue
        cases = []
        score = 0.0
        refuted_public = []
        for c in q["cases"]:
            verdict = verdicts.get(c["id"], {"passed": False, "why": "not judged"})
            # a public check is judged on data when its data arrived; one that calls the student's code, or reads
            # an answer that cannot travel as data (a game object), keeps its result from the notebook's own run
            arrived = all("value" in run.names.get(n, {}) for n in c["names"])
            judged = c["probe"] is not None or c["hidden"] or (not c["calls"] and arrived)
            passed = bool(verdict.get("passed")) if judged else bool(run.checks.get(c["id"]))
            if not c["hidden"] and judged and run.checks.get(c["id"]) and not passed:
                refuted_public.append(c["id"])
            if passed:
                score += float(c["points"])
            reason: str | None = None if passed else verdict.get("why")
            cases.append(
                {
                    "hidden": bool(c["hidden"]),
                    "passed": passed,
                    "hint": None if passed or c["hidden"] else (c["failure_message"] or None),
                    "message": None if c["hidden"] else reason,
                }
            )
        res.questions[q["name"]] = {"score": round(score, 6), "possible": float(q["points"]), "cases": cases}
        if refuted_public:
            res.flags.append(
                f"{q['name']}: a public check passed in the notebook's own run but fails on its answers' data"
            )
        public_failed = any(not x["passed"] for x, c in zip(cases, q["cases"]) if not c["hidden"])
        if q["name"] in claims and public_failed:
            res.flags.append(f"{q['name']}: the saved notebook says its check passed; the grader's public checks fail")
    return res


#: Errors that mean the cell's code could not even be read.
SYNTAX_ERRORS = ("SyntaxError", "IndentationError", "TabError")
_NOT_PLAIN = re.compile(r"a value of type ([A-Za-z0-9_.]{1,120}) is not plain data")


def _note_cell_errors(res: SubmissionResult, nb: nbformat.NotebookNode | None, run: SandboxRun) -> None:
    """Say which of the student's cells raised an error in the grader's run, and of what type: in
    the exercise's row (`res.errors`), or as a note for a syntax error outside the exercises. The
    checker's own cells (`grader = ...`, `grader.check(...)`) are not the student's and are left out."""
    if nb is None:
        return
    for index, kind in sorted(run.failed.items()):
        if index in run.stopped or not 0 <= index < len(nb.cells) or nb.cells[index].cell_type != "code":
            continue
        source = nb.cells[index].source
        if CHECK.search(source) or re.search(r"^\s*grader\s*=", source, re.M):
            continue
        label, question = exercise_of(nb, index)
        what = "has a syntax error" if kind in SYNTAX_ERRORS else f"stopped with an error ({kind})"
        if question:
            res.errors.setdefault(question, f"{label} {what}: fix it so that the cell runs, then run the check again")
        elif kind in SYNTAX_ERRORS:
            res.notes.append(f"{label} {what} ({kind}); the cells after it ran anyway")


def _unsent_reason(name: str, why: str) -> str | None:
    """What the student reads when `name` could not cross to the grader as plain data; None when it
    is still `...` (not answered)."""
    found = _NOT_PLAIN.search(why)
    if found and found.group(1) == "builtins.ellipsis":
        return None
    if found:
        return (
            f"`{name}` could not be sent to the grader: it is or holds a {found.group(1)}, which is not plain data. "
            "Use only None, True/False, numbers, strings, Fraction, and lists, tuples, sets or dicts of them "
            "(a NamedTuple or dataclass: tuple(...) of its fields; a NumPy array: .tolist())"
        )
    return f"`{name}` could not be sent to the grader: {why.partition(': ')[2] or why}"


def _judge(grader: Autograder, runs: list[tuple[str, SandboxRun]]) -> dict[str, dict]:
    """The judge's verdicts {submission id: {case id: verdict}}, from one fresh process per assignment."""
    package_parent = str(Path(__file__).resolve().parents[2])
    job = {
        "lesson": grader.spec["lesson"],
        "questions": grader.spec["questions"],
        "submissions": [{"id": key, "answers": {"names": run.names, "probes": run.probes}} for key, run in runs],
    }
    with tempfile.TemporaryDirectory(prefix="gamekit-judge-") as tmp:
        # the lesson's set-up may make temp folders and rely on atexit, which the judge's os._exit
        # skips: its temp folder is this one, removed with everything in it when the judge ends
        env = {**os.environ, **thread_environment(), "PYTHONWARNINGS": "ignore", "TMPDIR": tmp}
        proc = subprocess.run(
            [sys.executable, "-I", "-c", judge.BOOT, package_parent],
            input=json.dumps(job).encode(),
            capture_output=True,
            cwd=tmp,
            env=env,
            timeout=judge.SUBMISSION_SECONDS * (len(runs) + 1),
        )
    try:
        out = json.loads(proc.stdout)
    except ValueError:
        tail = quiet_output(proc.stderr.decode(errors="replace"))[-1500:]
        raise RuntimeError(f"the judge of {grader.name} failed (exit status {proc.returncode}):\n{tail}") from None
    if out["lesson_failed"]:
        print(
            f"warning: {len(out['lesson_failed'])} lesson cell(s) of {grader.name} failed in the judge "
            f"(indices {out['lesson_failed'][:5]}); tests that need them fail",
            file=sys.stderr,
        )
    return out["verdicts"]


def grade_one(
    sub: Submission,
    grader: Autograder,
    cell_timeout: float,
    trusted: bool = False,
    submission_seconds: float | None = None,
) -> tuple[nbformat.NotebookNode | None, SandboxRun]:
    """Run one submission in the sandbox (see `run_in_sandbox`); nothing is judged yet."""
    nb, failed = read_submission(sub)
    if nb is None:
        return None, failed
    return nb, run_in_sandbox(nb, grader.spec, cell_timeout, trusted, submission_seconds)


def read_submission(sub: Submission) -> tuple[nbformat.NotebookNode | None, SandboxRun]:
    """(the notebook, an empty run) or (None, a run whose error says why the file is refused or no notebook)."""
    try:
        data = sub.read()  # read now, not before: one notebook in memory at a time
    except intake.Refused as refused:
        return None, SandboxRun(error=f"refused: {refused}")
    try:
        nb = nbformat.reads(data.decode("utf-8"), as_version=4)
    except Exception as exc:  # a file that is not a notebook
        why = clean_text(str(exc), 200, one_line=True)
        return None, SandboxRun(error=f"not a readable notebook: {type(exc).__name__}: {why}")
    return nb, SandboxRun()


def _missing_checks(nb: nbformat.NotebookNode | None, grader: Autograder) -> list[str]:
    if nb is None:  # unreadable or refused; the error says so
        return []
    text = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    auto = [q["name"] for q in grader.questions if not q.get("manual")]
    return [q for q in auto if not re.search(r"grader\.check\(\s*['\"]" + re.escape(q) + r"['\"]", text)]


def hidden_messages(grader: Autograder, name: str, got: dict) -> list[str]:
    """The teacher's failure messages of the hidden tests `got` failed (never the tests themselves)."""
    spec = next((q for q in grader.spec.get("questions", []) if q["name"] == name), None)
    if spec is None:
        return []
    return list(
        dict.fromkeys(
            c["failure_message"]
            for c, v in zip(spec["cases"], got["cases"])
            if v["hidden"] and not v["passed"] and c.get("failure_message")
        )
    )


def points_summary(res: SubmissionResult, grader: Autograder) -> str:
    """The points line of a student's feedback: the autograder's points, the teacher's once given,
    and what may still come ("up to 2 more points from exercises your teacher grades")."""
    auto = [q for q in grader.questions if not q.get("manual")]
    manual = [q for q in grader.questions if q.get("manual")]
    possible = sum(float(q["points"] or 0) for q in auto)
    from_auto = sum(res.score(q["name"]) for q in auto)
    given = [q for q in manual if res.questions.get(q["name"], {}).get("by_hand")]
    pending = sum(float(q["points"] or 0) for q in manual if q not in given)
    text = f"{from_auto:g} of {possible:g} points from the autograder"
    if given:
        got = sum(res.score(q["name"]) for q in given)
        text += f", {got:g} of {sum(float(q['points'] or 0) for q in given):g} from your teacher"
    if pending:
        text += (
            f"; up to {pending:g} more point{'s' if pending != 1 else ''} from exercises your teacher grades "
            "(not given yet)"
        )
    return text


def feedback_html(res: SubmissionResult, grader: Autograder) -> str:
    """A page for the student: points per exercise, hints of failed public checks, notes; every
    exercise without its points says why."""
    e = html.escape
    label = handgrade.exercise_label
    rows = []
    for q in grader.questions:
        name = q["name"]
        got = res.questions.get(name)
        if q.get("manual"):
            if got is not None and got.get("by_hand"):
                rows.append(
                    f"<tr><td>{e(label(name))}</td><td>{got['score']:g} / {got['possible']:g}</td>"
                    "<td>graded by your teacher</td></tr>"
                )
            else:
                rows.append(
                    f"<tr><td>{e(label(name))}</td><td>–</td><td>graded by your teacher: up to "
                    f"{handgrade.points_text(float(q['points'] or 0))}, not given yet</td></tr>"
                )
            continue
        if got is None:
            rows.append(f"<tr><td>{e(label(name))}</td><td>0</td><td>not graded (see the notes)</td></tr>")
            continue
        hidden = [c for c in got["cases"] if c["hidden"]]
        public = [c for c in got["cases"] if not c["hidden"]]
        detail = []
        failed_public = [c for c in public if not c["passed"]]
        blank = "not answered" in res.unsent.get(name, "")
        if name in res.stopped:  # its hints would mislead: the answer never ran to the end
            detail.append(e(f"not checked: {res.stopped[name]}; make the cell finish, then run the check again"))
        else:
            if name in res.errors:  # first that the code failed (which cell, the error's type)
                detail.append(e(res.errors[name]))
            if name in res.unsent:  # not answered, or an answer that cannot reach the grader and why
                detail.append(e(res.unsent[name]))
            if public and not blank:
                detail.append(f"public checks passed: {len(public) - len(failed_public)} of {len(public)}")
                for c in failed_public:
                    detail.append("hint: " + e(c["hint"] or "a public check failed; run grader.check in your notebook"))
        messages = hidden_messages(grader, name, got) if not blank and name not in res.stopped else []
        if hidden:
            detail.append(f"hidden tests passed: {sum(c['passed'] for c in hidden)} of {len(hidden)}")
            detail += ["hint: " + e(m) for m in messages]
        explained = failed_public or messages or {name} & (res.errors.keys() | res.unsent.keys() | res.stopped.keys())
        if got["score"] < got["possible"] and not explained:
            # every missing point says why: here only the hidden tests disagree with the answer
            detail.append(
                "your answer has the right form, but the teacher's hidden tests do not accept it yet: "
                "compare it with the solutions when they are released"
            )
        rows.append(
            f"<tr><td>{e(label(name))}</td><td>{got['score']:g} / {got['possible']:g}</td>"
            f"<td>{'<br>'.join(detail)}</td></tr>"
        )
    notes = list(res.notes)
    if res.error:
        notes.insert(0, res.error)
    missing = res.missing_checks
    if missing:
        notes.append(
            "check cells missing for " + ", ".join(label(m) for m in missing) + ": these exercises were graded "
            "anyway, by the autograder's copy of the tests"
        )
    notes_html = "".join(f"<li>{e(n)}</li>" for n in notes) or "<li>none</li>"
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{e(grader.name)}: feedback for {e(res.student)}</title>
<style>body {{ font-family: sans-serif; max-width: 52em; margin: 2em auto; }}
table {{ border-collapse: collapse; }} td, th {{ border: 1px solid #bbb; padding: 0.4em 0.7em; vertical-align: top; }}
</style></head><body>
<h1>{e(grader.name)}</h1>
<p>Feedback for <b>{e(res.student)}</b> ({e(res.path.name)}): <b>{e(points_summary(res, grader))}</b>.</p>
<table><tr><th>exercise</th><th>points</th><th>details</th></tr>
{"".join(rows)}
</table>
<h2>Notes</h2><ul>{notes_html}</ul>
</body></html>
"""


def write_reports(results: list[SubmissionResult], graders: dict[str, Autograder], out: Path) -> list[Path]:
    """One CSV per assignment and one feedback page per submission; returns the CSV paths."""
    written = []
    for name in sorted({r.assignment for r in results}):
        grader = graders[name]
        rows = sorted((r for r in results if r.assignment == name), key=lambda r: (r.student, str(r.path)))
        qnames = [q["name"] for q in grader.questions]
        manual = {q["name"] for q in grader.questions if q.get("manual")}
        csv_path = out / f"{name}.csv"
        out.mkdir(parents=True, exist_ok=True)
        with csv_path.open("w", newline="", encoding="utf-8") as f:
            # the header says which points the teacher still gives by hand
            # exercises as the notebook names them ("Exercise 1.6"); the ids (q1_6) are in <name>.json
            header = [
                f"{handgrade.exercise_label(q)} (by hand, up to {handgrade.points_text(float(g['points'] or 0))})"
                if q in manual
                else handgrade.exercise_label(q)
                for q, g in zip(qnames, grader.questions)
            ]
            # possible: the autograder's points; "possible by hand": the points the teacher adds
            f.write(csv_line(["student", *header, "total", "possible", "possible by hand", "file", "notes", "flags"]))
            possible = sum(float(q["points"] or 0) for q in grader.questions if q["name"] not in manual)
            by_hand = sum(float(q["points"] or 0) for q in grader.questions if q["name"] in manual)
            for r in rows:
                notes = ([r.error] if r.error else []) + list(r.errors.values()) + r.notes
                scores = ["" if q in manual and q not in r.questions else f"{r.score(q):g}" for q in qnames]
                numbers = [*scores, f"{r.total:g}", f"{possible:g}", f"{by_hand:g}"]
                texts = [r.path.name, " | ".join(n.splitlines()[0] for n in notes), " | ".join(r.flags)]
                theirs = [0, *range(len(numbers) + 1, len(numbers) + 4)]  # student; file, notes, flags
                f.write(csv_line([r.student, *numbers, *texts], student=theirs))
        feedback = out / "feedback" / name
        feedback.mkdir(parents=True, exist_ok=True)
        for r, page in zip(rows, feedback_page_names([r.student for r in rows])):
            (feedback / page).parent.mkdir(exist_ok=True)
            (feedback / page).write_text(feedback_html(r, grader), encoding="utf-8")
        handgrade.save_results(rows, grader, out)
        if not (out / "hand" / name).exists():  # the teacher's points file is written once per grading
            handgrade.write_hand_pages(rows, grader, out)
        written.append(csv_path)
    make_readable(out)
    return written


def load_results(
    out: Path, assignment: str, autograder: Path | None = None
) -> tuple[list[SubmissionResult], Autograder]:
    """(results, grader) of the grading of `assignment` in `out`, as `write_reports` saved them
    (`handgrade.save_results`), for `merge-points`."""
    path = handgrade.results_path(out, assignment)
    if not path.is_file():
        raise ValueError(
            f"no grading of {assignment!r} in {out} ({path.name} is missing): run `python -m gamekit.course grade` "
            "first, or name the grades folder with --grades"
        )
    data = json.loads(path.read_text(encoding="utf-8"))
    zip_path = Path(autograder) if autograder is not None else Path(data["autograder"])
    if not zip_path.is_file():
        raise ValueError(f"the autograder {zip_path} of this grading is gone: name it with --autograder")
    grader = Autograder.load(zip_path)
    results = []
    for item in data["results"]:
        item = dict(item)
        item["path"] = Path(item["path"])
        results.append(SubmissionResult(**item))
    return results, grader


def require_sandbox(trusted_code: bool) -> None:
    """Refuse to grade without bubblewrap unless the teacher said `--trusted-code` (before anything runs)."""
    if not trusted_code:
        require_bwrap()


def grade(
    submissions: Path,
    autograders: Iterable[Path],
    out: Path,
    cell_timeout: float = CELL_TIMEOUT,
    jobs: int | None = None,
    trusted_code: bool = False,
    submission_seconds: float = SUBMISSION_SECONDS,
    scheduler: str | None = None,
    tls: str | Path | None = None,
    replace: bool = False,
) -> tuple[list[SubmissionResult], list[Path]]:
    """Grade every submission in `submissions` (a folder, or a zip archive of one; in parallel,
    `jobs` at a time); write the reports.

    An earlier grading of the same assignment in `out` is refused before anything runs, unless
    `replace`: then it is moved whole into `out/earlier/` (`handgrade.set_aside_earlier_run`).

    Each submission runs in its own sandbox (bubblewrap; see `gamekit.sandbox`) for at most
    `submission_seconds` in all, and its answers are judged as plain data by one fresh process
    per assignment (at most `judge.SUBMISSION_SECONDS` per submission). Without bubblewrap
    this raises `SandboxUnavailable` unless `trusted_code` (the teacher trusts every file).
    With `scheduler` ("tls://HOST:PORT") and `tls` (certificates) the sandboxes run on the class's
    Dask cluster (`gamekit.course.gradecluster`); the reports are the same.
    """
    if scheduler is not None:
        gradecluster.check_scheduler(scheduler, tls)
    else:
        require_sandbox(trusted_code)
    for limit, value in (("cell_timeout", cell_timeout), ("submission_seconds", submission_seconds)):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
            raise ValueError(f"{limit} must be a positive number of seconds, got {value!r}")
    graders = find_autograders(autograders)
    subs = find_submissions(submissions)
    if not subs:
        raise ValueError(f"no .ipynb files in {submissions}")
    jobs = jobs or max(1, min(4, (os.cpu_count() or 2) // 2))
    todo: list[tuple[Submission, Autograder]] = []
    results: list[SubmissionResult] = []
    for sub in subs:
        name = sub.assignment or (next(iter(graders)) if len(graders) == 1 else None)
        if name not in graders:
            why = f"no autograder for assignment {name!r} (have: {sorted(graders)})"
            error = f"refused: {sub.refused}" if sub.refused else why
            results.append(SubmissionResult(sub.student, name or "unknown", sub.path, error=error))
            continue
        todo.append((sub, graders[name]))
    handgrade.set_aside_earlier_run(Path(out), [g.name for _, g in todo], replace)
    done_count = 0
    lock = threading.Lock()

    def run(item: tuple[Submission, Autograder]) -> tuple[nbformat.NotebookNode | None, SandboxRun, float]:
        nonlocal done_count
        start = time.monotonic()
        nb, sandbox = grade_one(item[0], item[1], cell_timeout, trusted_code, submission_seconds)
        seconds = time.monotonic() - start
        with lock:
            done_count += 1
            print(
                f"[{done_count}/{len(todo)}] {item[0].student} ({item[1].name}): ran in {seconds:.1f} s"
                + (f", {len(sandbox.stopped)} cell(s) stopped" if sandbox.stopped else "")
                + (" - " + sandbox.error if sandbox.error else ""),
                file=sys.stderr,
                flush=True,
            )
        return nb, sandbox, seconds

    if scheduler is not None and tls is not None:
        runs = gradecluster.run_on_cluster(
            todo, cell_timeout, trusted_code, scheduler, tls, submission_seconds, read_submission, run_in_sandbox
        )
    else:
        with ThreadPoolExecutor(max_workers=jobs) as pool:
            runs = list(pool.map(run, todo))
    for name, grader in graders.items():
        mine = [(i, r) for i, ((sub, g), r) in enumerate(zip(todo, runs)) if g.name == name]
        if not mine:
            continue
        print(f"judging {len(mine)} submission(s) of {name} ...", file=sys.stderr, flush=True)
        verdicts = _judge(grader, [(str(i), r[1]) for i, r in mine])
        for i, (nb, sandbox, seconds) in mine:
            res = assemble(todo[i][0], grader, nb, sandbox, verdicts.get(str(i), {"error": "no verdict"}))
            res.seconds = seconds
            res.by_hand = handgrade.hand_answers(nb, grader)
            results.append(res)
    unknown = [r for r in results if r.assignment not in graders]
    for r in unknown:
        print(f"skipped {r.path}: {r.error}", file=sys.stderr)
    return results, write_reports([r for r in results if r.assignment in graders], graders, out)


if __name__ == "__main__":
    print("use: python -m gamekit.course grade SUBMISSIONS/", file=sys.stderr)
    sys.exit(2)
