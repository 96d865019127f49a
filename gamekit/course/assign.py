"""Student notebooks and autograders from the master notebooks (otter-grader), and the solutions set.

The notebooks in `notebooks/` are the teacher's master copies in otter-grader's assignment
format (COURSE.md): each exercise with its solution and its public and hidden tests. From a
master, `assign_notebook` writes

- a student notebook (`student/NN-title-student.ipynb`): answer cells with `...`, public checks
  (`grader.check("q1_1")`), no solutions, no hidden tests, no speaker notes (cells with
  slide_type `notes` or a `teacher-only` tag are removed before otter sees the master). Its
  file name differs from the master's, so copying it next to the masters overwrites nothing;
- an autograder (`autograder/NN-title-autograder.zip`) for `python -m gamekit.course grade`,
  with a small `NN-title-questions.json` beside it that lists every question, the manual ones too.

`otter assign` runs the master's tests against its solutions, so a chapter whose solutions fail
its own tests is refused. `student_leaks` then proves that no solution line, hidden test line or
speaker note reached the student notebook.

With `self_study=True` (`assign --self-study`) the student copy is made for a student working
alone (`self-study/NN-title-student.ipynb`): otter's checker is replaced by
`gamekit.course.selfstudy.SelfStudy`, which says "correct" or "not yet" for every exercise with a
single right answer (salted hashes of the canonical answers, which `canonical_answers` gets by
running the master) and "plausible" for the others; a failing check shows its hint in one line,
and no otter log file is written next to the notebook.

`solution_notebook` makes the solutions set: the master without speaker notes, tests or otter
markers, solutions shown as plain cells (`python -m gamekit.course solutions` executes it and
writes .ipynb and .html).
"""

from __future__ import annotations

import copy
import hashlib
import json
import re
import secrets
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import nbformat

from .master import (
    _TEST_CONFIG,
    CONFIG_MARK,
    KERNEL_TCP_WARNING,
    TEACHER_TAGS,
    Question,
    assignment_name,
    config_cell,
    is_assignment,
    is_teacher_only,
    marker,
    questions,
    quiet_output,
    solution_code,
    test_is_hidden,
)
from .tidy import make_readable, tidy_notebook

__all__ = [
    "assign_all",
    "assign_notebook",
    "Assigned",
    "assignment_name",
    "config_cell",
    "CONFIG_MARK",
    "is_assignment",
    "is_teacher_only",
    "KERNEL_TCP_WARNING",
    "marker",
    "Question",
    "questions",
    "quiet_output",
    "secret_lines",
    "self_study_copy",
    "self_study_data",
    "solution_code",
    "solution_notebook",
    "student_file_name",
    "student_leaks",
    "student_lines",
    "TEACHER_TAGS",
    "test_is_hidden",
    "without_teacher_cells",
]


def without_teacher_cells(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """A copy of `nb` without speaker notes and teacher-only cells."""
    out = copy.deepcopy(nb)
    out.cells = [c for c in out.cells if not is_teacher_only(c)]
    return out


def secret_lines(master: nbformat.NotebookNode, min_chars: int = 12) -> dict[str, list[str]]:
    """Lines a student copy must not contain: {'solution': [...], 'hidden test': [...], 'speaker notes': [...]}.

    A line counts if it has at least `min_chars` characters (stripped) and does not also occur
    in a cell the student is meant to see (a prompt, the set-up code): such a line is no secret.
    """
    secret: dict[str, set[int]] = {"solution": set(), "hidden test": set(), "speaker notes": set()}
    for q in questions(master):
        secret["solution"].update(q.solution_cells)
        secret["hidden test"].update(i for i in q.test_cells if test_is_hidden(master.cells[i].source))
    for i, cell in enumerate(master.cells):
        if is_teacher_only(cell):
            secret["speaker notes"].add(i)
        elif cell.cell_type == "code" and re.search(r"#\s*(SOLUTION|BEGIN SOLUTION)\b", cell.source):
            secret["solution"].add(i)

    def marked_code(source: str) -> bool:
        return bool(re.search(r"#\s*(BEGIN )?SOLUTION\b", source))

    def secret_part(source: str) -> str:
        # otter keeps a solution cell's unmarked lines: only the marked ones are secret
        inner = re.findall(r"#\s*BEGIN SOLUTION[^\n]*\n(.*?)#\s*END SOLUTION", source, re.S)
        marked = [ln for ln in source.splitlines() if re.search(r"#\s*SOLUTION\s*$", ln)]
        return "\n".join(marked + inner)

    def lines(i: int, kind: str) -> list[str]:
        cell = master.cells[i]
        source = cell.source
        if kind == "hidden test":
            source = _TEST_CONFIG.sub("", source)
        if kind == "solution" and cell.cell_type == "code" and marked_code(source):
            source = secret_part(source)
        return [_norm(solution_code(ln)) for ln in source.splitlines() if len(_norm(solution_code(ln))) >= min_chars]

    # What the student copy shows anyway: cells that are no secret, public tests, and the
    # unmarked lines of solution cells (the scaffold around the `...`).
    flagged = set().union(*secret.values())
    public: set[str] = set()
    for i, cell in enumerate(master.cells):
        if cell.cell_type == "raw" or i in secret["speaker notes"] or i in secret["hidden test"]:
            continue
        source = cell.source
        if i in secret["solution"]:
            if cell.cell_type != "code" or not marked_code(source):
                continue
            hidden = {_norm(ln) for ln in secret_part(source).splitlines()}
            source = "\n".join(ln for ln in source.splitlines() if _norm(ln) not in hidden)
        elif i not in flagged:
            source = _TEST_CONFIG.sub("", source)
        public.update(_norm(ln) for ln in solution_code(source).splitlines())
    return {
        kind: sorted({ln for i in cells for ln in lines(i, kind) if ln not in public}) for kind, cells in secret.items()
    }


def _norm(line: str) -> str:
    return " ".join(line.split())


def _strings(obj) -> Iterable[str]:
    if isinstance(obj, str):
        yield obj
    elif isinstance(obj, dict):
        for value in obj.values():
            yield from _strings(value)
    elif isinstance(obj, list):
        for value in obj:
            yield from _strings(value)


def student_lines(student: nbformat.NotebookNode) -> set[str]:
    """Every line of text anywhere in `student` (sources, outputs, metadata), whitespace-normalised,
    with doctest prompts (`>>> `, `... `) removed: otter keeps public tests in the metadata as doctests."""
    found = set()
    for text in _strings(dict(student)):
        for line in text.splitlines():
            line = _norm(line)
            found.add(line)
            if line.startswith((">>> ", "... ")):
                found.add(line[4:])
    return found


def student_leaks(master: nbformat.NotebookNode, student: nbformat.NotebookNode) -> list[str]:
    """Every secret line of `master` (solution, hidden test, speaker note) that is a line of `student`.

    The whole student file is searched, cell sources, outputs and metadata alike (otter keeps
    the public tests in the notebook's metadata), so a hidden test stored there is found too.
    """
    shown = student_lines(student)
    return [f"{kind}: {line}" for kind, lines in secret_lines(master).items() for line in lines if line in shown]


def student_file_name(master: Path) -> str:
    """`NN-title-student.ipynb`: never the master's own name, so a copy can sit beside it."""
    return f"{master.stem}-student.ipynb"


def _finish_student(nb: nbformat.NotebookNode, file_name: str) -> nbformat.NotebookNode:
    """Point otter's init cell at the student file, give otter's cells slide metadata, tidy."""
    for cell in nb.cells:
        if cell.cell_type == "code" and "otter.Notebook(" in cell.source:
            cell.source = re.sub(r'otter\.Notebook\("[^"]*"\)', f'otter.Notebook("{file_name}")', cell.source)
        show = cell.metadata.setdefault("slideshow", {})
        show.setdefault("slide_type", "-")
    return tidy_notebook(nb)


@dataclass(frozen=True)
class Assigned:
    """What `assign_notebook` wrote for one master."""

    name: str
    master: Path
    student: Path
    autograder: Path
    questions: Path


def _run_otter_assign(master: Path, result: Path, run_tests: bool, timeout: float) -> None:
    cmd = [sys.executable, "-m", "otter", "assign", "--no-pdfs"]
    if not run_tests:
        cmd.append("--no-run-tests")
    cmd += [str(master), str(result)]
    try:
        done = subprocess.run(cmd, cwd=master.parent, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise RuntimeError(f"otter assign {master.name} did not finish in {timeout:.0f} s") from None
    if done.returncode != 0:
        out = quiet_output(done.stdout + "\n" + done.stderr)
        raise RuntimeError(f"otter assign {master.name} failed:\n{out[-4000:]}")


#: Where a self-study build puts its autograder copies (below the output folder), apart from the
#: class's `autograder/` that `grade` reads: building self-study copies never changes class grading.
SELF_STUDY_AUTOGRADER = "self-study-autograder"
#: Tag of an exercise's prompt cell when its answer variables have no single right value
#: (for example a rate measured with the student's own random draws).
PLAUSIBLE_TAG = "self-study-plausible"
#: Key in an exercise's prompt-cell metadata: a one-line hint that a self-study copy shows for a wrong
#: answer of the right form (it must not give the answer away).
SELF_STUDY_HINT = "self_study_hint"
#: Key in an exercise's prompt-cell metadata: compare numbers that are not whole rounded to this many
#: decimal places (for an answer the hidden tests accept within a tolerance).
SELF_STUDY_DECIMALS = "self_study_decimals"
#: Tag of an exercise's prompt cell whose answer is a list that may come in any order.
UNORDERED_TAG = "self-study-unordered"
_ANSWER_VAR = re.compile(r"^\s*(answer_\w+)\s*=", re.M)
_ANSWERS_MARK = "SELF-STUDY-ANSWERS "


def canonical_answers(master: Path, timeout: float = 900) -> dict[str, object]:
    """Run `master` (solutions included) and return the canonical form of every `answer_*` variable.
    (Its English edition: both editions run the same code cells, so their answers are the same.)"""
    from .bilingual import read_edition
    from .execute import execute_notebook

    nb = without_teacher_cells(read_edition(master, "en"))
    nb.cells.append(
        nbformat.v4.new_code_cell(
            "import json as _json\nfrom gamekit.course.selfstudy import canonical as _canonical\n"
            f"print({_ANSWERS_MARK!r} + _json.dumps("
            "{k: _canonical(v) for k, v in dict(globals()).items() if k.startswith('answer_')}))"
        )
    )
    with tempfile.TemporaryDirectory(prefix="answers-") as tmp:
        copy_path = Path(tmp) / master.name
        nbformat.write(nb, copy_path)
        done = execute_notebook(copy_path, timeout=int(timeout))
    for out in done.cells[-1].get("outputs", []):
        for line in out.get("text", "").splitlines():
            if line.startswith(_ANSWERS_MARK):
                return json.loads(line[len(_ANSWERS_MARK) :])
    raise RuntimeError(f"running {master.name} gave no answers")


def self_study_data(master: nbformat.NotebookNode, student: nbformat.NotebookNode, answers: dict) -> dict:
    """What a self-study copy's checker needs: per question its label, public checks, and the
    salted digests of its answers (never the answers), and whether it has one right answer."""
    from .selfstudy import form_digest, rounded, unordered

    salt = secrets.token_hex(16)
    public = student.metadata.get("otter", {}).get("tests", {})
    data: dict = {"salt": salt, "questions": {}}
    for q in questions(master):
        if q.manual:  # an explanation: the copy says it is read by the teacher, never "no exercise"
            prompt = master.cells[q.prompt] if q.prompt is not None else None
            found = re.search(r"\*\*((?:Exercise|Aufgabe) [\d.]+)\*\*", prompt.source) if prompt is not None else None
            data["questions"][q.name] = {"label": found.group(1) if found else q.name, "manual": True}
            continue
        solution = "\n".join(master.cells[i].source for i in q.solution_cells if master.cells[i].cell_type == "code")
        names = list(dict.fromkeys(_ANSWER_VAR.findall(solution)))
        prompt = master.cells[q.prompt] if q.prompt is not None else None
        label = re.search(r"\*\*((?:Exercise|Aufgabe) [\d.]+)\*\*", prompt.source) if prompt is not None else None
        tags = prompt.metadata.get("tags", []) if prompt is not None else []
        plausible, any_order = PLAUSIBLE_TAG in tags, UNORDERED_TAG in tags
        decimals = prompt.metadata.get(SELF_STUDY_DECIMALS) if prompt is not None else None
        if decimals is not None and (type(decimals) is not int or not 0 <= decimals <= 12):
            raise ValueError(f"{q.name}: {SELF_STUDY_DECIMALS} must be a whole number from 0 to 12, got {decimals!r}")
        forms = {n: rounded(answers.get(n), decimals) for n in names}
        forms = {n: unordered(f) if any_order else f for n, f in forms.items()}
        single = bool(names) and not plausible and all(f is not None for f in forms.values())
        cases = [
            {"code": case["code"], "hint": case.get("failure_message") or ""}
            for suite in public.get(q.name, {}).get("suites", [])
            for case in suite.get("cases", [])
            if not case.get("hidden")
        ]
        data["questions"][q.name] = {
            "label": label.group(1) if label else q.name,
            "public": cases,
            "answers": {n: form_digest(salt, f) for n, f in forms.items() if f is not None} if single else {},
            "single": single,
            "unordered": any_order,
            "decimals": decimals,
            "functions": bool(re.search(r"^\s*(def|class)\s", solution, re.M)),
        }
        hint = prompt.metadata.get(SELF_STUDY_HINT) if prompt is not None else None
        if isinstance(hint, str) and hint.strip():
            data["questions"][q.name]["hint"] = " ".join(hint.split())
    return data


def _replace_init_cell(nb: nbformat.NotebookNode, source: str) -> None:
    """Put `source` in place of otter's init cell (`grader = otter.Notebook(...)`)."""
    for cell in nb.cells:
        if cell.cell_type == "code" and "otter.Notebook(" in cell.source:
            cell.source = source
            return
    raise ValueError("the student notebook has no otter init cell to replace")


def class_copy(student: nbformat.NotebookNode, file_name: str) -> nbformat.NotebookNode:
    """The class copy: otter's public checks, reported briefly and without a log file
    (`gamekit.course.checks.PublicChecks` instead of `otter.Notebook`)."""
    nb = copy.deepcopy(student)
    init = (
        '# The public checks: grader.check("...") under each exercise says "not yet" with a hint, or that\n'
        "# your answer has the right form (your teacher's hidden tests decide whether it is right).\n"
        "from gamekit.course.checks import PublicChecks\n\n"
        f'grader = PublicChecks("{student.metadata.get("otter", {}).get("assignment_name") or file_name}")'
    )
    _replace_init_cell(nb, init)
    return nb


def self_study_copy(student: nbformat.NotebookNode, data: dict) -> nbformat.NotebookNode:
    """The self-study version of otter's student notebook: `SelfStudy` instead of otter's checker.

    The checker's data (public checks, hints, salted hashes) goes into the file's metadata
    (`checks.SELF_STUDY_KEY`), out of the student's way: the copy opens with the lesson's title, its
    set-up cell is a few lines under it, and a hint shows only under an exercise whose answer is not
    right yet. The copy finds its data in its own file, whatever it is renamed to."""
    from .checks import SELF_STUDY_KEY

    nb = copy.deepcopy(student)
    name = student.metadata.get("otter", {}).get("assignment_name") or "self-study"
    init = (
        '# Self-study checks: grader.check("...") under each exercise says "correct" or "not yet" (with a\n'
        '# hint when an answer is not right yet), or "plausible" where an exercise has no single right answer.\n'
        "# Their data (public checks, salted hashes of the answers, never the answers) is in this file.\n"
        "from gamekit.course.checks import load_self_study\n"
        "from gamekit.course.selfstudy import SelfStudy\n\n"
        f'grader = SelfStudy(load_self_study("{name}"))'
    )
    _replace_init_cell(nb, init)
    cells = nb.cells
    at = next(i for i, c in enumerate(cells) if c.cell_type == "code" and c.source == init)
    title = next(
        (i for i, c in enumerate(cells) if c.cell_type == "markdown" and c.source.lstrip().startswith("# ")), None
    )
    if title is not None and title > at:  # the title first, the checker's set-up right under it
        cells.insert(title, cells.pop(at))
    nb.metadata.pop("otter", None)
    nb.metadata[SELF_STUDY_KEY] = {"assignment_name": name, "data": data}
    return nb


def assign_notebook(
    master: Path, out: Path, run_tests: bool = True, timeout: float = 900, self_study: bool = False, lang: str = "en"
) -> Assigned:
    """Write the student notebook and the autograder of `master` below `out` (see the module doc),
    from the master's `lang` edition (gamekit/course/bilingual.py: the German prose, the same code and tests).

    With `self_study` the student notebook is the self-study copy (`self-study/`), whose checks
    say "correct" or "not yet"; otherwise the class copy (`student/`) with otter's public checks.

    Raises ValueError if `master` is not in the assignment format or its student copy would
    leak a secret, RuntimeError if `otter assign` fails (for example: a solution fails its tests).
    """
    from ..i18n import mark_folder, use_language
    from .bilingual import read_edition
    from .execute import kernel_language

    master = Path(master)
    nb = read_edition(master, lang)
    name = assignment_name(nb)
    clean = without_teacher_cells(nb)
    folder = out / ("self-study" if self_study else "student")
    folder.mkdir(parents=True, exist_ok=True)
    # the class's autograders (what `grade` reads) are never touched by a self-study build
    graders = out / (SELF_STUDY_AUTOGRADER if self_study else "autograder")
    graders.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="assign-") as tmp:
        source = Path(tmp) / master.name
        nbformat.write(clean, source)
        result = Path(tmp) / "result"
        with kernel_language(lang):
            _run_otter_assign(source, result, run_tests, timeout)
        student_nb = nbformat.read(result / "student" / master.name, as_version=4)
        zips = sorted((result / "autograder").glob("*.zip"))
        if len(zips) != 1:
            raise RuntimeError(f"otter assign wrote {len(zips)} autograder zips for {master.name}, expected 1")
        file_name = student_file_name(master)
        student_nb = _finish_student(student_nb, file_name)
        with use_language(lang):
            if self_study:
                answers = canonical_answers(master, timeout)
                student_nb = self_study_copy(student_nb, self_study_data(nb, student_nb, answers))
            else:
                student_nb = class_copy(student_nb, file_name)
        leaks = student_leaks(nb, student_nb)
        if leaks:
            raise ValueError(f"the student copy of {master.name} would leak: " + "; ".join(leaks[:5]))
        student = folder / file_name
        nbformat.write(student_nb, student)
        mark_folder(folder, lang)  # a kernel started beside the copy speaks its language (gamekit.i18n)
        autograder = graders / f"{master.stem}-autograder.zip"
        shutil.copyfile(zips[0], autograder)
        from .cases import SPEC_FILE, spec

        with zipfile.ZipFile(autograder, "a") as z:  # what `grade` runs: tests split into probe and judge
            z.writestr(SPEC_FILE, json.dumps(spec(nb), indent=1))
    listing = graders / f"{master.stem}-questions.json"
    listing.write_text(
        json.dumps(
            {
                "assignment": name,
                "master": master.name,
                "questions": [{"name": q.name, "points": q.points, "manual": q.manual} for q in questions(nb)],
            },
            indent=1,
        ),
        encoding="utf-8",
    )
    make_readable(out)
    return Assigned(name, master, student, autograder, listing)


def _file_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def assign_key(master: Path, run_tests: bool, self_study: bool, lang: str = "en") -> str:
    """A hash of everything that determines what `assign_notebook` writes for `master`: the master
    itself, every file of the gamekit package (the solutions run on it, the build is part of it),
    the versions of Python and otter-grader, and the options."""
    from importlib.metadata import version

    package = Path(__file__).resolve().parent.parent
    h = hashlib.sha256()
    h.update(f"{sys.version_info[:3]} otter {version('otter-grader')} {run_tests} {self_study} {lang}\n".encode())
    h.update(f"master {_file_digest(Path(master))}\n".encode())
    for path in sorted(package.rglob("*")):
        kept = path.suffix in (".py", ".json", ".csv", ".sqlite", ".typed", ".po") and "__pycache__" not in path.parts
        if kept and path.is_file():
            h.update(f"{path.relative_to(package).as_posix()} {_file_digest(path)}\n".encode())
    return h.hexdigest()


def _record(out: Path, master: Path, self_study: bool) -> Path:
    return out / ".cache" / f"{master.stem}{'-self-study' if self_study else ''}.json"


def _cached(out: Path, master: Path, key: str, self_study: bool) -> Assigned | None:
    record = _record(out, master, self_study)
    try:
        data = json.loads(record.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if data.get("key") != key:
        return None
    files = {name: out / rel for name, rel in data["files"].items()}
    if any(not f.is_file() or _file_digest(f) != data["digests"][name] for name, f in files.items()):
        return None
    return Assigned(data["name"], master, files["student"], files["autograder"], files["questions"])


def _last_seconds(out: Path, master: Path, self_study: bool) -> float:
    """How long `master` took the last time it was made here; unknown: its size as a guess."""
    try:
        return float(json.loads(_record(out, master, self_study).read_text(encoding="utf-8"))["seconds"])
    except (OSError, ValueError, KeyError, TypeError):
        return Path(master).stat().st_size / 20_000  # about 20 kB of notebook per second of otter assign


def _remember(out: Path, done: Assigned, key: str, seconds: float, self_study: bool) -> None:
    files = {"student": done.student, "autograder": done.autograder, "questions": done.questions}
    record = {
        "key": key,
        "name": done.name,
        "files": {n: f.relative_to(out).as_posix() for n, f in files.items()},
        "digests": {n: _file_digest(f) for n, f in files.items()},
        "seconds": round(seconds, 1),
    }
    (out / ".cache").mkdir(parents=True, exist_ok=True)
    _record(out, done.master, self_study).write_text(json.dumps(record, indent=1), encoding="utf-8")


def assign_all(
    masters: Iterable[Path],
    out: Path,
    run_tests: bool = True,
    self_study: bool = False,
    jobs: int | None = None,
    reuse: bool = True,
    lang: str = "en",
) -> list[Assigned]:
    """`assign_notebook` for every master, `jobs` at a time (default: the number of CPUs).

    A master whose inputs did not change since the last run (`assign_key`) and whose files are
    still there as written is reused, not made again. Progress goes to stderr: each lesson as it
    finishes, with an estimate of the time left. A master that fails does not stop the others;
    the failures are raised together at the end.
    """
    import concurrent.futures as cf
    import os
    import time

    masters = list(masters)
    jobs = max(1, jobs or os.cpu_count() or 1)
    out.mkdir(parents=True, exist_ok=True)
    results: dict[Path, Assigned] = {}
    failed: list[str] = []
    todo: list[tuple[Path, str]] = []
    for master in masters:
        key = assign_key(master, run_tests, self_study, lang)
        hit = _cached(out, master, key, self_study) if reuse else None
        if hit is not None:
            results[master] = hit
        else:
            todo.append((master, key))

    def say(text: str) -> None:
        print(text, file=sys.stderr, flush=True)

    todo.sort(key=lambda item: -_last_seconds(out, item[0], self_study))  # the slowest first: the batch ends sooner
    n, done_count = len(masters), len(results)
    if results:
        say(f"reused {len(results)} of {n} lessons that did not change: {', '.join(m.stem for m in results)}")
    if todo:
        say(f"making {len(todo)} lesson(s), {min(jobs, len(todo))} at a time ...")
    started = time.monotonic()

    def make(master: Path) -> tuple[Assigned, float]:
        t0 = time.monotonic()
        made = assign_notebook(master, out, run_tests=run_tests, self_study=self_study, lang=lang)
        return made, time.monotonic() - t0

    from .execute import kernel_language

    with kernel_language(lang), cf.ThreadPoolExecutor(max_workers=min(jobs, len(todo)) or 1) as pool:
        futures = {pool.submit(make, master): (master, key) for master, key in todo}
        for finished, future in enumerate(cf.as_completed(futures), 1):
            master, key = futures[future]
            done_count += 1
            elapsed = time.monotonic() - started
            left = len(todo) - finished
            # lessons run `jobs` at a time: the rest take about as long per batch as the ones so far
            eta = elapsed / finished * left if left else 0.0
            try:
                results[master], seconds = future.result()
                _remember(out, results[master], key, seconds, self_study)
                status = "done"
            except (ValueError, RuntimeError) as exc:
                failed.append(f"{master.name}: {exc}")
                status = f"FAILED: {str(exc).splitlines()[0]}"
            tail = f", about {eta:.0f} s left" if left else ""
            say(f"[{done_count}/{n}] {master.stem}: {status} ({elapsed:.0f} s so far{tail})")
    if failed:
        raise RuntimeError(f"{len(failed)} of {n} notebooks failed:\n" + "\n\n".join(failed))
    return [results[m] for m in masters]


def solution_notebook(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """The self-study copy of a master: solutions shown as ordinary cells; speaker notes,
    teacher-only cells, tests and otter's marker cells removed; outputs cleared."""
    tests = {i for q in questions(nb) for i in q.test_cells}
    cells = []
    for i, cell in enumerate(nb.cells):
        if is_teacher_only(cell) or i in tests or marker(cell) is not None or i == config_cell(nb):
            continue
        cell = copy.deepcopy(cell)
        if cell.cell_type == "code":
            cell.source = solution_code(cell.source)
        cell.metadata.pop("jupyter", None)
        cells.append(cell)
    out = copy.deepcopy(nb)
    out.cells = cells
    return tidy_notebook(out)
