"""Reading a master notebook in otter's assignment format: its config cell, markers, questions,
solutions and test configs. Below both `assign` (student copies) and `cases` (the grading spec)."""

from __future__ import annotations

import re
from dataclasses import dataclass

import nbformat

CONFIG_MARK = "# ASSIGNMENT CONFIG"
#: Tags that keep a cell out of every student copy (besides slide_type "notes").
TEACHER_TAGS = frozenset({"teacher-only", "teacher_only", "teacher"})
#: The line of kernel log that ipykernel 7 prints for every TCP kernel; it alarms teachers and
#: says nothing about the course, so build output drops it.
KERNEL_TCP_WARNING = "Kernel is running over TCP without encryption"

_MARKER = re.compile(r"^\s*#\s*(BEGIN|END)\s+(QUESTION|SOLUTION|TESTS|PROMPT)\b", re.I)
_TEST_CONFIG = re.compile(r'^\s*"""\s*#\s*BEGIN TEST CONFIG(.*?)"""\s*#\s*END TEST CONFIG\s*\n?', re.S | re.M)


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
    """The exercises of a master, in order (cells are indices into `nb.cells`). Of a bilingual master
    (gamekit/course/bilingual.py) the English cells: its German cells are skipped."""
    from .bilingual import is_translation

    found: list[Question] = []
    current: dict | None = None
    block: str | None = None
    for i, cell in enumerate(nb.cells):
        if is_translation(cell):
            continue
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
