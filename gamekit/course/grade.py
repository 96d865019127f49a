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

1. **the sandbox** (`gamekit.course.gradesandbox`): the submission's cells run in bubblewrap's
   namespaces (`gamekit.sandbox`: no network, no file of the teacher's, no test file anywhere,
   nobody else's process, killed whole afterwards), with a per-cell time limit kept by this
   process's clock. A cell that runs longer, or kills Python, is replaced by a cell that raises
   an error saying so, and the notebook runs again from the start: a loop or a crash costs only
   that exercise.
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
and the hints of failed public checks, but never the code of a hidden test (`gamekit.course.feedback`).
"""

from __future__ import annotations

import json
import os
import re
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

from ..i18n import _
from ..jsonio import parse_json
from ..sandbox import judge
from ..sandbox.bwrap import require_bwrap, thread_environment
from ..sandbox.channel import clean_text
from . import gradecluster, handgrade, intake
from .assign import quiet_output
from .feedback import feedback_html
from .gradedata import Autograder, SubmissionResult
from .gradesandbox import (
    CELL_TIMEOUT,
    CHECK,
    STOPPED_CELL,
    SUBMISSION_SECONDS,
    exercise_of,
    run_in_sandbox,
    sandbox_text,
)
from .runresult import SandboxRun
from .spreadsheet import csv_line, feedback_page_names
from .tidy import make_readable

# Grading, and (under the same names) what it is made of, from the modules that hold it.
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

NOTEBOOK_BYTES = intake.NOTEBOOK_BYTES


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
    error = sandbox_text(run.error) if run.error else run.error
    res = SubmissionResult(sub.student, grader.name, sub.path, error=error)
    res.missing_checks = _missing_checks(nb, grader)
    # what the student reads (the notes, errors and reasons on the feedback page) is written in the language in force
    if "error" in verdicts:
        res.error = _("the judge failed; every exercise scores 0: {error}").format(error=str(verdicts["error"])[:300])
        verdicts = {}
    for index, said in sorted(run.stopped.items()):
        why = sandbox_text(said)
        # TRANSLATORS: {why} says why grading stopped a cell (written by the grader's sandbox, in English)
        res.notes.append(_("{why}; it counts as an error").format(why=why))
        if nb is not None:
            question = exercise_of(nb, index)[1]
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
        res.notes.append(_("not answered (still `...`): {names}").format(names=", ".join(blank)))
    res.notes += [why for why in unsent.values() if why is not None]
    for q in grader.spec["questions"]:
        names = [n for c in q["cases"] for n in c["names"] if n in unsent]
        if names:
            res.unsent[q["name"]] = "; ".join(
                dict.fromkeys(unsent[n] or _("not answered: `{name}` is still `...`").format(name=n) for n in names)
            )
        if any(unsent[n] is None for n in names):
            res.blank.append(q["name"])
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
        if question and kind in SYNTAX_ERRORS:
            # TRANSLATORS: {cell} names a cell of the notebook, such as "Exercise 4.3 (cell 54)" or "cell 7"
            why = _("{cell} has a syntax error: fix it so that the cell runs, then run the check again")
            res.errors.setdefault(question, why.format(cell=label))
        elif question:
            # TRANSLATORS: {cell} names a cell of the notebook; {error} is the name of a Python exception
            why = _("{cell} stopped with an error ({error}): fix it so that the cell runs, then run the check again")
            res.errors.setdefault(question, why.format(cell=label, error=kind))
        elif kind in SYNTAX_ERRORS:
            # TRANSLATORS: {cell} names a cell of the notebook; {error} is SyntaxError, IndentationError or TabError
            why = _("{cell} has a syntax error ({error}); the cells after it ran anyway")
            res.notes.append(why.format(cell=label, error=kind))


def _unsent_reason(name: str, why: str) -> str | None:
    """What the student reads when `name` could not cross to the grader as plain data; None when it
    is still `...` (not answered)."""
    found = _NOT_PLAIN.search(why)
    if found and found.group(1) == "builtins.ellipsis":
        return None
    if found:
        # TRANSLATORS: {name} is an answer variable, {kind} a Python type such as numpy.ndarray
        return _(
            "`{name}` could not be sent to the grader: it is or holds a {kind}, which is not plain data. "
            "Use only None, True/False, numbers, strings, Fraction, and lists, tuples, sets or dicts of them "
            "(a NamedTuple or dataclass: tuple(...) of its fields; a NumPy array: .tolist())"
        ).format(name=name, kind=found.group(1))
    # TRANSLATORS: {why} is the sandbox's reason (in English)
    return _("`{name}` could not be sent to the grader: {why}").format(name=name, why=why.partition(": ")[2] or why)


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
    except intake.Refused as refused:  # the student reads why on the feedback page
        # TRANSLATORS: {why} says why the submitted file was refused (in English)
        return None, SandboxRun(error=_("refused: {why}").format(why=refused))
    try:
        nb = nbformat.reads(data.decode("utf-8"), as_version=4)
    except Exception as exc:  # a file that is not a notebook
        why = clean_text(str(exc), 200, one_line=True)
        # TRANSLATORS: {error} is the name of a Python exception, {why} its message
        error = _("not a readable notebook: {error}: {why}").format(error=type(exc).__name__, why=why)
        return None, SandboxRun(error=error)
    return nb, SandboxRun()


def _missing_checks(nb: nbformat.NotebookNode | None, grader: Autograder) -> list[str]:
    if nb is None:  # unreadable or refused; the error says so
        return []
    text = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    auto = [q["name"] for q in grader.questions if not q.get("manual")]
    return [q for q in auto if not re.search(r"grader\.check\(\s*['\"]" + re.escape(q) + r"['\"]", text)]


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
            res = assemble(todo[i][0], grader, nb, sandbox, verdicts.get(str(i), {"error": _("no verdict")}))
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
