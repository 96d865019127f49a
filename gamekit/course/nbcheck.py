"""Hygiene checks for course notebooks (used by the tests and by the course build).

The conventions (COURSE.md): notebooks are stored without outputs, with the kernel's own
metadata; every cell has slide metadata. A chapter is a master in otter-grader's assignment
format: an `# ASSIGNMENT CONFIG` cell first, then at least four exercises, each a
`# BEGIN QUESTION` ... `# END QUESTION` block whose prompt starts `**Exercise N.M**`, with a
solution, and (unless graded by hand, `manual: true`) public and hidden tests. The old
self-checks (`check(...)`) and `solution`-tagged cells are gone, and data is found through
`gamekit.data.data_path`, never through `../data`.
"""

from __future__ import annotations

import ast
import re

import nbformat

from .master import _TEST_CONFIG, CONFIG_MARK, is_assignment, questions, test_is_hidden

__all__ = [
    "EXERCISE",
    "exercise_problems",
    "exercises",
    "notebook_problems",
    "SLIDE_TYPES",
]

#: An exercise's prompt begins `**Exercise N.M**` (in the German edition `**Aufgabe N.M**`).
EXERCISE = re.compile(r"^\s*(?:<!--.*?-->\s*)?\*\*(?:Exercise|Aufgabe) (\d+)\.(\d+)\*\*", re.S)
SLIDE_TYPES = {"slide", "subslide", "fragment", "skip", "notes", "-"}
_OLD_CHECK = re.compile(r"(^|[^.\w])check\(|from gamekit import[^\n]*\bcheck\b|gamekit\.check\b")


def exercises(nb: nbformat.NotebookNode) -> list[tuple[str, int]]:
    """(exercise label like '1.2', index of its markdown cell) for every `**Exercise N.M**` cell."""
    found = []
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "markdown":
            m = EXERCISE.match(cell.source)
            if m:
                found.append((f"{m.group(1)}.{m.group(2)}", i))
    return found


def _test_body(source: str) -> str:
    return _TEST_CONFIG.sub("", source)


#: Methods that return None (a line calling one prints nothing under doctest).
_NONE_METHODS = frozenset(
    {"append", "extend", "insert", "remove", "clear", "update", "add", "discard", "sort", "reverse", "shuffle"}
)


def _returns_none(value: ast.expr) -> bool:
    return isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr in _NONE_METHODS


def _bare_expressions(body: str) -> list[str]:
    """Top-level expression lines of a test: otter runs tests as doctests, so a line whose value is
    shown (`t.search(...)`) fails the test under `otter run`, although the notebook runs fine."""
    try:
        tree = ast.parse(body)
    except SyntaxError as exc:
        return [f"test code is not valid Python ({exc.msg}, line {exc.lineno})"]
    found = []

    def visit(statements: list[ast.stmt]) -> None:
        # doctest runs each example in 'single' mode: an expression statement prints its value,
        # also inside a for/if/with block (but not inside a function or class body)
        for node in statements:
            shown = isinstance(node, ast.Expr) and not isinstance(node.value, ast.Constant)
            if shown and not _returns_none(node.value):  # type: ignore[attr-defined]
                found.append(
                    f"test line {node.lineno} is a bare expression; doctest would compare its printed "
                    "value: assign it (`_ = ...`) or assert on it"
                )
            elif not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                for field in ("body", "orelse", "finalbody"):
                    visit(getattr(node, field, []) or [])
                for handler in getattr(node, "handlers", []) or []:
                    visit(handler.body)

    visit(tree.body)
    return found


ANSWER = re.compile(r"\banswer_(\d+)_(\d+)\b")


def _naming_problems(name: str, label: re.Match, prompt: nbformat.NotebookNode, index: int) -> list[str]:
    """The exercise's three names agree: label **Exercise N.M**, question qN_M, answer variable
    answer_N_M (where the prompt names one); and an exercise with one right answer in that
    variable has its one-line `self_study_hint` (a `self-study-plausible` one, whose answer
    self-study cannot compare, needs none)."""
    number = f"{label.group(1)}.{label.group(2)}"
    found = []
    want = f"q{label.group(1)}_{label.group(2)}"
    if name != want:
        found.append(f"cell {index}: Exercise {number} is in question {name!r} (its question must be {want!r})")
    named = {f"answer_{a}_{b}" for a, b in ANSWER.findall(prompt.source)}
    own = f"answer_{label.group(1)}_{label.group(2)}"
    if named - {own}:
        found.append(f"cell {index}: Exercise {number} names {sorted(named - {own})} (its answer is `{own}`)")
    if own in named and "self-study-plausible" not in prompt.metadata.get("tags", []):
        hint = prompt.metadata.get("self_study_hint")
        if not isinstance(hint, str) or not hint.strip():
            found.append(f"cell {index}: Exercise {number} has no self_study_hint (one line that points to the method)")
    return found


def exercise_problems(nb: nbformat.NotebookNode) -> list[str]:
    """What breaks the otter exercise format in a chapter (empty list when fine)."""
    if not is_assignment(nb):
        return [f"no '{CONFIG_MARK}' raw cell among the first cells (see COURSE.md, Exercise format)"]
    problems = []
    qs = questions(nb)
    names = [q.name for q in qs]
    if len(set(names)) != len(names):
        problems.append(f"question names repeat: {names}")
    if len(qs) < 4:
        problems.append(f"only {len(qs)} exercises (at least 4 wanted)")
    labels = [label for label, _ in exercises(nb)]
    if len(set(labels)) != len(labels):
        problems.append(f"exercise numbers repeat: {labels}")
    for q in qs:
        where = f"question {q.name}"
        label = EXERCISE.match(nb.cells[q.prompt].source) if q.prompt is not None else None
        if label is None or q.prompt is None:
            problems.append(f"{where}: its first markdown cell does not start with **Exercise N.M**")
        else:
            problems += _naming_problems(q.name, label, nb.cells[q.prompt], q.prompt)
        if not q.solution_cells:
            problems.append(f"{where}: no solution (BEGIN SOLUTION ... END SOLUTION)")
        hidden = [i for i in q.test_cells if test_is_hidden(nb.cells[i].source)]
        public = [i for i in q.test_cells if i not in hidden]
        if q.manual and q.test_cells:
            problems.append(f"{where}: a manual question has tests")
        if not q.manual and (not hidden or not public):
            problems.append(f"{where}: needs at least one public and one hidden test")
        for i in q.test_cells:
            body = _test_body(nb.cells[i].source)
            if re.search(r"\bprint\(", body):
                problems.append(f"cell {i}: a test prints (tests are asserts that show nothing)")
            problems += [f"cell {i}: {p}" for p in _bare_expressions(body)]
    inside = {i for q in qs for i in (*q.solution_cells, *q.test_cells)}
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "markdown" and EXERCISE.match(cell.source) and i not in {q.prompt for q in qs}:
            problems.append(f"cell {i}: an exercise outside BEGIN QUESTION ... END QUESTION")
        if "solution" in cell.metadata.get("tags", []):
            problems.append(f"cell {i}: old-style `solution` tag (use BEGIN SOLUTION ... END SOLUTION)")
        if cell.cell_type == "code" and i not in inside and _OLD_CHECK.search(cell.source):
            problems.append(f"cell {i}: uses the old self-check `check(...)` (otter's tests replace it)")
    return problems


def notebook_problems(nb: nbformat.NotebookNode, stored: bool = True, chapter: bool = True) -> list[str]:
    """Everything about `nb` that breaks the course conventions (empty list when fine).

    With `stored=True` the notebook is checked as committed: no outputs allowed. With
    `chapter=True` it must be a master in the exercise format (00-start-here is no chapter).
    A bilingual master (gamekit/course/bilingual.py) is checked as each of its two editions; a
    problem of the German one says so ("German edition, cell 12: ...", its own cell numbers).
    """
    from .bilingual import edition, is_translation

    if any(is_translation(cell) for cell in nb.cells):
        english = _edition_problems(edition(nb, "en"), stored, chapter)
        german = _edition_problems(edition(nb, "de"), stored, chapter)
        return english + [f"German edition, {p}" for p in german if p not in english]
    return _edition_problems(nb, stored, chapter)


def _edition_problems(nb: nbformat.NotebookNode, stored: bool, chapter: bool) -> list[str]:
    problems = []
    kernel = nb.metadata.get("kernelspec", {}).get("name")
    if kernel != "python3":
        problems.append(f"kernelspec name is {kernel!r}, expected 'python3'")
    for i, cell in enumerate(nb.cells):
        slide = cell.metadata.get("slideshow", {}).get("slide_type")
        if slide not in SLIDE_TYPES:
            problems.append(f"cell {i}: slideshow.slide_type is {slide!r}")
        if stored and cell.cell_type == "code" and (cell.get("outputs") or cell.get("execution_count")):
            problems.append(f"cell {i}: stored with outputs")
        if cell.cell_type == "code" and "../data" in cell.source:
            problems.append(f"cell {i}: reads ../data (use gamekit.data.data_path)")
    if chapter:
        problems += exercise_problems(nb)
    return problems
