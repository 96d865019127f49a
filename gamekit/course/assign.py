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

`solution_notebook` makes the self-study copy: the master without speaker notes, tests or otter
markers, solutions shown as plain cells (`python -m gamekit.course solutions` executes it and
writes .ipynb and .html).
"""

from __future__ import annotations

import copy
import json
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import nbformat

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
    "solution_code",
    "solution_notebook",
    "student_file_name",
    "student_leaks",
    "student_lines",
    "TEACHER_TAGS",
    "test_is_hidden",
    "without_teacher_cells",
]

CONFIG_MARK = "# ASSIGNMENT CONFIG"
#: Tags that keep a cell out of every student copy (besides slide_type "notes").
TEACHER_TAGS = frozenset({"teacher-only", "teacher_only", "teacher"})
#: The line of kernel log that ipykernel 7 prints for every TCP kernel; it alarms teachers and
#: says nothing about the course, so build output drops it.
KERNEL_TCP_WARNING = "Kernel is running over TCP without encryption"

_MARKER = re.compile(r"^\s*#\s*(BEGIN|END)\s+(QUESTION|SOLUTION|TESTS|PROMPT)\b", re.I)
_TEST_CONFIG = re.compile(r'^\s*"""\s*#\s*BEGIN TEST CONFIG.*?"""\s*#\s*END TEST CONFIG\s*\n?', re.S | re.M)


def quiet_output(text: str) -> str:
    """`text` without the kernel's TCP warning lines (and without the empty lines they leave)."""
    return "\n".join(line for line in text.splitlines() if KERNEL_TCP_WARNING not in line).strip()


# ---------------------------------------------------------------------------------------
# Reading the otter format
# ---------------------------------------------------------------------------------------


def config_cell(nb: nbformat.NotebookNode) -> int | None:
    """Index of the `# ASSIGNMENT CONFIG` raw cell among the first three cells, else None."""
    for i, cell in enumerate(nb.cells[:3]):
        if cell.cell_type == "raw" and cell.source.lstrip().startswith(CONFIG_MARK):
            return i
    return None


def is_assignment(nb: nbformat.NotebookNode) -> bool:
    """True when `nb` is a master in otter's assignment format (it has an ASSIGNMENT CONFIG cell)."""
    return config_cell(nb) is not None


def assignment_name(nb: nbformat.NotebookNode) -> str:
    """The `name:` line of the ASSIGNMENT CONFIG cell (raises ValueError without one)."""
    i = config_cell(nb)
    if i is None:
        raise ValueError(f"no '{CONFIG_MARK}' raw cell among the first three cells")
    m = re.search(r"^name:\s*(\S+)\s*$", nb.cells[i].source, re.M)
    if not m:
        raise ValueError("the ASSIGNMENT CONFIG cell has no 'name:' line")
    return m.group(1)


def marker(cell) -> tuple[str, str] | None:
    """('BEGIN'|'END', 'QUESTION'|'SOLUTION'|'TESTS'|'PROMPT') for an otter raw marker cell, else None."""
    if cell.cell_type != "raw":
        return None
    m = _MARKER.match(cell.source)
    return (m.group(1).upper(), m.group(2).upper()) if m else None


def is_teacher_only(cell) -> bool:
    """Speaker notes (slide_type `notes`) and cells tagged `teacher-only` never reach students."""
    slide = cell.metadata.get("slideshow", {}).get("slide_type")
    return slide == "notes" or bool(TEACHER_TAGS & set(cell.metadata.get("tags", [])))


@dataclass(frozen=True)
class Question:
    """One exercise of a master: its otter name, points, whether it is graded by hand, its cells."""

    name: str
    points: float
    manual: bool
    prompt: int | None
    solution_cells: tuple[int, ...]
    test_cells: tuple[int, ...]


def _question_config(source: str) -> dict:
    body = source.split("\n", 1)[1] if "\n" in source else ""
    config: dict = {}
    for line in body.splitlines():
        key, _, value = line.partition(":")
        if key.strip():
            config[key.strip()] = value.strip()
    return config


def questions(nb: nbformat.NotebookNode) -> list[Question]:
    """The exercises of a master, in order (cells are indices into `nb.cells`)."""
    found: list[Question] = []
    current: dict | None = None
    block: str | None = None
    for i, cell in enumerate(nb.cells):
        mark = marker(cell)
        if mark == ("BEGIN", "QUESTION"):
            config = _question_config(cell.source)
            current = {
                "name": config.get("name", f"cell{i}"),
                "points": float(config.get("points", 1) or 1),
                "manual": config.get("manual", "false").lower() == "true",
                "prompt": None,
                "solution": [],
                "tests": [],
            }
        elif mark == ("END", "QUESTION") and current is not None:
            found.append(
                Question(
                    current["name"],
                    current["points"],
                    current["manual"],
                    current["prompt"],
                    tuple(current["solution"]),
                    tuple(current["tests"]),
                )
            )
            current, block = None, None
        elif mark is not None and mark[1] in ("SOLUTION", "TESTS", "PROMPT"):
            block = mark[1] if mark[0] == "BEGIN" else None
        elif current is not None and mark is None:
            if block == "SOLUTION":
                current["solution"].append(i)
            elif block == "TESTS":
                current["tests"].append(i)
            elif block is None and current["prompt"] is None and cell.cell_type == "markdown":
                current["prompt"] = i
    return found


def test_is_hidden(source: str) -> bool:
    """True for a test cell whose TEST CONFIG says `hidden: true`."""
    m = _TEST_CONFIG.search(source)
    return bool(m and re.search(r"^\s*hidden:\s*true\s*$", m.group(0), re.M | re.I))


def solution_code(source: str) -> str:
    """A solution cell's code as a reader should see it: otter's `# SOLUTION` comments and
    `# BEGIN/END SOLUTION` lines removed."""
    lines = []
    for line in source.splitlines():
        if re.match(r"^\s*#\s*(BEGIN|END) SOLUTION\b", line):
            continue
        lines.append(re.sub(r"\s*#\s*SOLUTION\s*$", "", line))
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------
# Student copies and the solutions set
# ---------------------------------------------------------------------------------------


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


def assign_notebook(master: Path, out: Path, run_tests: bool = True, timeout: float = 900) -> Assigned:
    """Write the student notebook and the autograder of `master` below `out` (see the module doc).

    Raises ValueError if `master` is not in the assignment format or its student copy would
    leak a secret, RuntimeError if `otter assign` fails (for example: a solution fails its tests).
    """
    master = Path(master)
    nb = nbformat.read(master, as_version=4)
    name = assignment_name(nb)
    clean = without_teacher_cells(nb)
    (out / "student").mkdir(parents=True, exist_ok=True)
    (out / "autograder").mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="assign-") as tmp:
        source = Path(tmp) / master.name
        nbformat.write(clean, source)
        result = Path(tmp) / "result"
        _run_otter_assign(source, result, run_tests, timeout)
        student_nb = nbformat.read(result / "student" / master.name, as_version=4)
        zips = sorted((result / "autograder").glob("*.zip"))
        if len(zips) != 1:
            raise RuntimeError(f"otter assign wrote {len(zips)} autograder zips for {master.name}, expected 1")
        file_name = student_file_name(master)
        student_nb = _finish_student(student_nb, file_name)
        leaks = student_leaks(nb, student_nb)
        if leaks:
            raise ValueError(f"the student copy of {master.name} would leak: " + "; ".join(leaks[:5]))
        student = out / "student" / file_name
        nbformat.write(student_nb, student)
        autograder = out / "autograder" / f"{master.stem}-autograder.zip"
        shutil.copyfile(zips[0], autograder)
    listing = out / "autograder" / f"{master.stem}-questions.json"
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


def assign_all(masters: Iterable[Path], out: Path, run_tests: bool = True) -> list[Assigned]:
    """`assign_notebook` for each master in turn, saying which one runs (it can take a while).

    A master that fails does not stop the others; the failures are raised together at the end.
    """
    masters = list(masters)
    done, failed = [], []
    for k, master in enumerate(masters, 1):
        print(f"[{k}/{len(masters)}] otter assign {master.name} ...", file=sys.stderr, flush=True)
        try:
            done.append(assign_notebook(master, out, run_tests=run_tests))
        except (ValueError, RuntimeError) as exc:
            print(f"      FAILED: {str(exc).splitlines()[0]}", file=sys.stderr, flush=True)
            failed.append(f"{master.name}: {exc}")
    if failed:
        raise RuntimeError(f"{len(failed)} of {len(masters)} notebooks failed:\n" + "\n\n".join(failed))
    return done


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
