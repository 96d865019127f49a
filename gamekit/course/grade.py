"""Grade a folder of submitted notebooks with otter-grader, safely (no Docker).

    python -m gamekit.course grade SUBMISSIONS/ [--autograder ZIP_OR_FOLDER] [--timeout S] [--jobs N]

A submission is `SUBMISSIONS/<student>.ipynb` or `SUBMISSIONS/<student>/<anything>.ipynb`; the
assignment it belongs to is read from the notebook (otter stores it there) and its autograder
found among the given ones (default: `_build/assign/autograder/`, written by `assign`).

`otter run` alone hangs forever on a cell that loops, and a crash of the kernel would lose every
answer. So each submission is graded in a subprocess of its own with a time limit, in two steps:

1. the notebook is run once with nbclient and a per-cell time limit (`--timeout`); a cell that
   runs longer, or kills the kernel, is replaced by a cell that raises an error saying so;
2. the cleaned notebook goes to otter's grader, which runs it again and then the public and
   hidden tests.

A looping or crashing cell so costs only the exercises that need it; a syntax error costs only
its own cell (otter runs the other cells); a deleted `grader.check` cell changes nothing,
because the autograder's own copy of the tests grades every exercise at the end (the feedback
says which check cells are missing). If grading a submission still exceeds its overall limit,
that student gets zero with a note, and the others are graded as usual.

Output in `--out` (default `_build/grades/`): `<assignment>.csv` with one row per student and
one column per exercise (manual exercises left empty for the teacher), and
`feedback/<assignment>/<student>.html`, a page per student that shows the points per exercise
and the hints of failed public checks, but never the code of a hidden test.
"""

from __future__ import annotations

import argparse
import csv
import html
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from .assign import quiet_output
from .execute import ipc_config
from .tidy import make_readable

__all__ = [
    "Autograder",
    "CELL_TIMEOUT",
    "feedback_html",
    "find_autograders",
    "find_submissions",
    "grade",
    "grade_one",
    "prerun",
    "STOPPED_CELL",
    "Submission",
    "SubmissionResult",
    "worker",
    "write_reports",
]

#: Seconds any one cell of a submission may run (the reference solutions need well under 3 s).
CELL_TIMEOUT = 30.0
#: The source that replaces a cell that timed out or killed the kernel.
STOPPED_CELL = "raise RuntimeError({message!r})  # gamekit grade: this cell was replaced, see the feedback page"


# ---------------------------------------------------------------------------------------
# The worker: one submission, in its own process (python -m gamekit.course.grade --worker ...)
# ---------------------------------------------------------------------------------------


def prerun(nb: nbformat.NotebookNode, folder: str, cell_timeout: float, rounds: int = 4) -> dict[int, str]:
    """Run `nb` (a copy) in `folder` and find the cells that must not be graded as they are.

    Returns {cell index: why}: cells that ran longer than `cell_timeout` seconds and cells
    during which the kernel died. After a death the notebook is run again from the start with
    that cell stopped (up to `rounds` times).
    """
    import copy

    from nbclient import NotebookClient
    from nbclient.exceptions import DeadKernelError

    stopped: dict[int, str] = {}

    class Client(NotebookClient):
        current = -1

        async def _async_handle_timeout(self, timeout, cell=None):
            stopped[self.current] = f"this cell ran longer than {cell_timeout:g} s and was stopped"
            return await super()._async_handle_timeout(timeout, cell)

    for _ in range(rounds):
        run = copy.deepcopy(nb)
        for i in stopped:
            run.cells[i] = nbformat.v4.new_code_cell("pass")
        client = Client(
            run,
            config=ipc_config(folder),
            timeout=cell_timeout,
            allow_errors=True,
            interrupt_on_timeout=True,
            error_on_timeout={"ename": "TimeoutError", "evalue": "cell stopped", "traceback": []},
            resources={"metadata": {"path": folder}},
        )

        def start(cell, cell_index, client=client, **_):
            client.current = cell_index

        client.on_cell_start = start
        try:
            client.execute()
            return stopped
        except DeadKernelError:
            stopped[client.current] = "the kernel died while this cell ran (it crashed Python or used all memory)"
        except Exception as exc:  # any other failure of the run: stop the current cell
            if client.current < 0:
                raise
            stopped[client.current] = f"running this cell failed: {type(exc).__name__}"
    return stopped


def _patch_otter_timeout(seconds: float) -> None:
    """Give otter's own execution of the notebook a per-cell time limit (otter sets none)."""
    import otter.execute as otter_execute
    from traitlets.config import Config

    def config() -> Config:
        c = Config()
        c.ExecutePreprocessor.timeout = seconds
        c.ExecutePreprocessor.interrupt_on_timeout = True
        return c

    otter_execute.Config = config


def _test_results(results) -> dict:
    """The parts of otter's GradingResults a student may see: no hidden test code or output."""
    questions = {}
    for name, test_file in results.results.items():
        cases = []
        for r in test_file.test_case_results:
            case = r.test_case
            cases.append(
                {
                    "hidden": bool(case.hidden),
                    "passed": bool(r.passed),
                    "hint": None if r.passed or case.hidden else (case.failure_message or None),
                    "message": None if r.passed or case.hidden else (r.message or ""),
                }
            )
        questions[name] = {"score": float(test_file.score), "possible": float(test_file.possible), "cases": cases}
    return questions


EXERCISE = re.compile(r"^\*\*Exercise\s+([0-9]+\.[0-9]+)")
CHECK = re.compile(r"grader\.check\(\s*['\"]([^'\"]+)['\"]")


def exercise_of(nb: nbformat.NotebookNode, index: int) -> tuple[str, str | None]:
    """How a student finds cell `index`: ("Exercise 4.3 (cell 54)", its question name), or ("cell 7", None)
    for a cell before the first exercise. The exercise is the nearest "**Exercise N.M**" heading above;
    its question is the name its `grader.check(...)` cell (below the heading) checks."""
    for j in range(index, -1, -1):
        cell = nb.cells[j]
        found = EXERCISE.match(cell.source.lstrip()) if cell.cell_type == "markdown" else None
        if found:
            question = None
            for k in range(j + 1, len(nb.cells)):
                later = nb.cells[k]
                if later.cell_type == "markdown" and EXERCISE.match(later.source.lstrip()):
                    break
                check = CHECK.search(later.source) if later.cell_type == "code" else None
                if check:
                    question = check.group(1)
                    break
            return f"Exercise {found.group(1)} (cell {index})", question
    return f"cell {index}", None


def worker(submission: Path, autograder: Path, result: Path, cell_timeout: float) -> int:
    """Grade one submission; write a JSON result (see `SubmissionResult`). Exit status 0 if written."""
    out: dict = {"notes": [], "questions": {}, "error": None}
    with tempfile.TemporaryDirectory(prefix="grade-") as tmp:
        try:
            nb = nbformat.read(submission, as_version=4)
        except Exception as exc:  # a file that is not a notebook
            out["error"] = f"not a readable notebook: {type(exc).__name__}: {exc}"
            result.write_text(json.dumps(out), encoding="utf-8")
            return 0
        work = Path(tmp) / "run"
        work.mkdir()
        stopped = prerun(nb, str(work), cell_timeout)
        out["stopped"] = {}
        for i, why in sorted(stopped.items()):
            label, question = exercise_of(nb, i)
            nb.cells[i] = nbformat.v4.new_code_cell(STOPPED_CELL.format(message=f"{label}: {why}"))
            out["notes"].append(f"{label}: {why}; it counts as an error")
            if question:
                out["stopped"][question] = f"{label}: {why}"
        clean = Path(tmp) / submission.name
        nbformat.write(nb, clean)
        shutil.rmtree(work, ignore_errors=True)
        from otter.api import grade_submission

        _patch_otter_timeout(cell_timeout * 2)
        results = grade_submission(str(clean), str(autograder), quiet=True)
        error = results.catastrophic_error if hasattr(results, "catastrophic_error") else None
        if error is not None:
            out["error"] = f"otter could not grade it: {type(error).__name__}: {error}"
        out["questions"] = _test_results(results)
    result.write_text(json.dumps(out), encoding="utf-8")
    return 0


# ---------------------------------------------------------------------------------------
# The teacher's side: many submissions, CSV and feedback pages
# ---------------------------------------------------------------------------------------


@dataclass
class Autograder:
    """An autograder zip written by `assign`, and the exercises of its assignment."""

    name: str
    zip: Path
    questions: list[dict] = field(default_factory=list)

    @classmethod
    def load(cls, path: Path) -> Autograder:
        with zipfile.ZipFile(path) as z:
            name = json.loads(z.read("otter_config.json")).get("assignment_name")
            tests = sorted(n[len("tests/") : -3] for n in z.namelist() if n.startswith("tests/") and n.endswith(".py"))
        if not name:
            raise ValueError(f"{path} has no assignment_name in its otter_config.json (not made by `assign`?)")
        listing = path.with_name(path.name.replace("-autograder.zip", "-questions.json"))
        if listing.is_file() and listing != path:
            questions = json.loads(listing.read_text(encoding="utf-8"))["questions"]
        else:
            questions = [{"name": t, "points": None, "manual": False} for t in tests]
        return cls(name, path, questions)


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
    student: str
    path: Path
    assignment: str | None


def find_submissions(folder: Path) -> list[Submission]:
    """`folder/<student>.ipynb` and `folder/<student>/*.ipynb` (checkpoints ignored), by student."""
    folder = Path(folder)
    if not folder.is_dir():
        raise ValueError(f"{folder} is not a folder of submissions")
    found = []
    for path in sorted(folder.rglob("*.ipynb")):
        rel = path.relative_to(folder)
        if ".ipynb_checkpoints" in rel.parts or len(rel.parts) > 2:
            continue
        student = rel.parts[0] if len(rel.parts) == 2 else path.stem
        try:
            meta = json.loads(path.read_text(encoding="utf-8")).get("metadata", {})
            assignment = meta.get("otter", {}).get("assignment_name")
        except (ValueError, UnicodeDecodeError):
            assignment = None
        found.append(Submission(student, path, assignment))
    return found


@dataclass
class SubmissionResult:
    """The grade of one submission: points per question, notes, and an error if grading failed."""

    student: str
    assignment: str
    path: Path
    questions: dict = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    error: str | None = None
    seconds: float = 0.0
    stopped: dict = field(default_factory=dict)  # question -> why its cell was stopped (time, a crash)

    def score(self, name: str) -> float:
        return float(self.questions.get(name, {}).get("score", 0.0))

    @property
    def total(self) -> float:
        return sum(q["score"] for q in self.questions.values())


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        proc.kill()


def grade_one(sub: Submission, grader: Autograder, cell_timeout: float, total_timeout: float) -> SubmissionResult:
    """Grade one submission in a subprocess (its own process group, killed whole on time-out)."""
    res = SubmissionResult(sub.student, grader.name, sub.path)
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="grade-") as tmp:
        out = Path(tmp) / "result.json"
        cmd = [
            sys.executable, "-m", "gamekit.course.grade", "--worker",
            str(sub.path), str(grader.zip), str(out), "--timeout", str(cell_timeout),
        ]  # fmt: skip
        env = {**os.environ, "MPLBACKEND": "Agg", "PYTHONWARNINGS": "ignore"}
        proc = subprocess.Popen(
            cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, start_new_session=True
        )
        try:
            stdout, stderr = proc.communicate(timeout=total_timeout)
        except subprocess.TimeoutExpired:
            _kill_group(proc)
            proc.communicate()
            res.error = f"grading did not finish in {total_timeout:g} s and was stopped; every exercise scores 0"
        else:
            if proc.returncode == 0 and out.is_file():
                data = json.loads(out.read_text(encoding="utf-8"))
                res.questions, res.notes, res.error = data["questions"], data["notes"], data["error"]
                res.stopped = dict(data.get("stopped", {}))
            else:
                tail = quiet_output(stderr)[-1500:]
                res.error = f"the grader failed (exit status {proc.returncode}); every exercise scores 0\n{tail}"
    res.seconds = time.monotonic() - start
    return res


def _missing_checks(path: Path, grader: Autograder) -> list[str]:
    try:
        text = "\n".join(c.source for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code")
    except Exception:  # unreadable; the worker reports it
        return []
    auto = [q["name"] for q in grader.questions if not q.get("manual")]
    return [q for q in auto if not re.search(r"grader\.check\(\s*['\"]" + re.escape(q) + r"['\"]", text)]


def feedback_html(res: SubmissionResult, grader: Autograder) -> str:
    """A page for the student: points per exercise, hints of failed public checks, notes."""
    e = html.escape
    rows = []
    for q in grader.questions:
        name = q["name"]
        if q.get("manual"):
            rows.append(f"<tr><td>{e(name)}</td><td colspan='2'>graded by your teacher</td></tr>")
            continue
        got = res.questions.get(name)
        if got is None:
            rows.append(f"<tr><td>{e(name)}</td><td>0</td><td>not graded (see the notes)</td></tr>")
            continue
        hidden = [c for c in got["cases"] if c["hidden"]]
        public = [c for c in got["cases"] if not c["hidden"]]
        detail = []
        failed_public = [c for c in public if not c["passed"]]
        if name in res.stopped:  # its hints would mislead: the answer never ran to the end
            detail.append(e(f"not checked: {res.stopped[name]}; make the cell finish, then run the check again"))
            failed_public = []
        elif public:
            detail.append(f"public checks passed: {len(public) - len(failed_public)} of {len(public)}")
        for c in failed_public:
            detail.append("hint: " + e(c["hint"] or "a public check failed; run grader.check in your notebook"))
        if hidden:
            detail.append(f"hidden tests passed: {sum(c['passed'] for c in hidden)} of {len(hidden)}")
        rows.append(
            f"<tr><td>{e(name)}</td><td>{got['score']:g} / {got['possible']:g}</td><td>{'<br>'.join(detail)}</td></tr>"
        )
    notes = list(res.notes)
    if res.error:
        notes.insert(0, res.error)
    missing = _missing_checks(res.path, grader)
    if missing:
        notes.append(
            "check cells missing for " + ", ".join(missing) + ": these exercises were graded anyway, "
            "by the autograder's copy of the tests"
        )
    possible = sum(float(q["points"] or 0) for q in grader.questions if not q.get("manual"))
    notes_html = "".join(f"<li>{e(n)}</li>" for n in notes) or "<li>none</li>"
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{e(grader.name)}: feedback for {e(res.student)}</title>
<style>body {{ font-family: sans-serif; max-width: 52em; margin: 2em auto; }}
table {{ border-collapse: collapse; }} td, th {{ border: 1px solid #bbb; padding: 0.4em 0.7em; vertical-align: top; }}
</style></head><body>
<h1>{e(grader.name)}</h1>
<p>Feedback for <b>{e(res.student)}</b> ({e(res.path.name)}): <b>{res.total:g} of {possible:g}</b> points
from the autograder; exercises marked "graded by your teacher" come on top.</p>
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
        rows = sorted((r for r in results if r.assignment == name), key=lambda r: r.student)
        qnames = [q["name"] for q in grader.questions]
        manual = {q["name"] for q in grader.questions if q.get("manual")}
        csv_path = out / f"{name}.csv"
        out.mkdir(parents=True, exist_ok=True)
        with csv_path.open("w", newline="", encoding="utf-8") as f:
            w = csv.writer(f)
            # the header says which points the teacher still gives by hand
            header = [
                f"{q} (by hand, {float(g['points'] or 0):g} points)" if q in manual else q
                for q, g in zip(qnames, grader.questions)
            ]
            w.writerow(["student", *header, "total", "possible", "file", "notes"])
            possible = sum(float(q["points"] or 0) for q in grader.questions if q["name"] not in manual)
            for r in rows:
                notes = ([r.error] if r.error else []) + r.notes
                w.writerow(
                    [r.student]
                    + ["" if q in manual else f"{r.score(q):g}" for q in qnames]
                    + [f"{r.total:g}", f"{possible:g}", r.path.name, " | ".join(n.splitlines()[0] for n in notes)]
                )
        feedback = out / "feedback" / name
        feedback.mkdir(parents=True, exist_ok=True)
        for r in rows:
            (feedback / f"{r.student}.html").write_text(feedback_html(r, grader), encoding="utf-8")
        written.append(csv_path)
    make_readable(out)
    return written


def grade(
    submissions: Path,
    autograders: Iterable[Path],
    out: Path,
    cell_timeout: float = CELL_TIMEOUT,
    total_timeout: float | None = None,
    jobs: int | None = None,
) -> tuple[list[SubmissionResult], list[Path]]:
    """Grade every submission in `submissions` (in parallel, `jobs` at a time); write the reports."""
    graders = find_autograders(autograders)
    subs = find_submissions(submissions)
    if not subs:
        raise ValueError(f"no .ipynb files in {submissions}")
    total_timeout = total_timeout or max(300.0, 20 * cell_timeout)
    jobs = jobs or max(1, min(4, (os.cpu_count() or 2) // 2))
    todo: list[tuple[Submission, Autograder]] = []
    results: list[SubmissionResult] = []
    for sub in subs:
        name = sub.assignment or (next(iter(graders)) if len(graders) == 1 else None)
        if name not in graders:
            results.append(
                SubmissionResult(
                    sub.student,
                    name or "unknown",
                    sub.path,
                    error=f"no autograder for assignment {name!r} (have: {sorted(graders)})",
                )
            )
            continue
        todo.append((sub, graders[name]))
    done_count = 0

    def run(item: tuple[Submission, Autograder]) -> SubmissionResult:
        nonlocal done_count
        res = grade_one(item[0], item[1], cell_timeout, total_timeout)
        done_count += 1
        print(
            f"[{done_count}/{len(todo)}] {res.student} ({res.assignment}): {res.total:g} points "
            f"in {res.seconds:.1f} s" + (" - " + res.error.splitlines()[0] if res.error else ""),
            file=sys.stderr,
            flush=True,
        )
        return res

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        results += list(pool.map(run, todo))
    unknown = [r for r in results if r.assignment not in graders]
    for r in unknown:
        print(f"skipped {r.path}: {r.error}", file=sys.stderr)
    return results, write_reports([r for r in results if r.assignment in graders], graders, out)


def _worker_main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m gamekit.course.grade --worker")
    parser.add_argument("submission", type=Path)
    parser.add_argument("autograder", type=Path)
    parser.add_argument("result", type=Path)
    parser.add_argument("--timeout", type=float, default=CELL_TIMEOUT)
    args = parser.parse_args(argv)
    return worker(args.submission, args.autograder, args.result, args.timeout)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--worker"]:
        sys.exit(_worker_main(sys.argv[2:]))
    print("use: python -m gamekit.course grade SUBMISSIONS/ (this module's --worker is internal)", file=sys.stderr)
    sys.exit(2)
