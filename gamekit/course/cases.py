"""What the grader needs from a master notebook: the lesson's code and every test, split in two.

otter-grader runs a test inside the student's kernel, after the student's code: there a
submission can replace the test runner, answer with an object whose `==` is always true, or read
the test file. So `gamekit.course.grade` never runs a test where the student's code ran. Each
test case of a master becomes two parts:

* what must be asked of the student's code (the *probe*), run in the sandbox after the
  submission: for a test that reads only answers (`answer_4_1`, a list, a number) that is just
  the values of those names; for a test that calls a function the student wrote, the test itself
  says what to ask, with a function named `probe` at the top of the test cell:

        class _Counted: ...                    # helpers the probe needs
        def probe():                           # runs in the sandbox, returns plain data
            return [negamax(_Counted(g), g.initial_state()) for g in games()]
        values = probe()                       # from here on: the judge
        assert values == [...reference computed here...]

  In the master the cell runs as it is (otter's validation is unchanged); when grading, the
  sandbox runs the cell up to `def probe` and calls it, and the judge runs the cell without that
  definition, with `probe()` returning the plain data that came back;
* the *judge*: the test's code, run in a fresh process that never ran the student's code, on
  the lesson's own definitions (the master's cells outside the exercises) and the plain answers.

Public checks and hidden tests cannot disagree about what an answer may be: public checks see
the answers as the judge does (`gamekit.sandbox.plain.graded_answers`: a NumPy number as a Python
one, an array as a list), and a hidden test's judge starts with the exercise's public checks of
the answers it reads, so no answer passes the hidden tests that a public check calls "not yet"
(`tests/test_check_agreement.py` tries every exercise with right and wrong answers).

`spec(master)` writes this down as JSON; `assign` puts it into the autograder zip as
`gamekit-grading.json`, and the grader reads it from there.
"""

from __future__ import annotations

import ast
import builtins
from dataclasses import asdict, dataclass, field
from typing import Any

import nbformat

from .master import _TEST_CONFIG, assignment_name, is_teacher_only, marker, questions, solution_code

__all__ = ["SPEC_FILE", "Case", "SpecError", "free_names", "split_probe", "spec"]

SPEC_FILE = "gamekit-grading.json"
SPEC_VERSION = 1
_BUILTINS = frozenset(dir(builtins))


class SpecError(ValueError):
    """A master whose tests cannot be graded safely (the message names the test and the fix)."""


@dataclass
class Case:
    """One test case: its judge code, how to probe the student's code for it, its points."""

    id: str
    question: str
    hidden: bool
    points: float
    failure_message: str | None
    judge: str  # the code run in the fresh process (for a probe test: without `def probe`)
    probe: str | None = None  # the code run in the sandbox, up to and including `def probe`
    names: list[str] = field(default_factory=list)  # the answers it reads (plain data)
    calls: list[str] = field(default_factory=list)  # functions or classes of the student it uses


def free_names(source: str) -> set[str]:
    """Names a piece of code reads but never binds itself (a generous approximation)."""
    tree = ast.parse(source)
    loads: set[str] = set()
    stores: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            (loads if isinstance(node.ctx, ast.Load) else stores).add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            stores.add(node.name)
        elif isinstance(node, ast.arg):
            stores.add(node.arg)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            stores |= {(a.asname or a.name).split(".")[0] for a in node.names}
    return loads - stores - _BUILTINS


def bound_names(source: str) -> tuple[set[str], set[str]]:
    """(values, code): the names a solution cell binds at its top level (code: def and class)."""
    values: set[str] = set()
    code: set[str] = set()
    for node in ast.parse(source).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            code.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                values |= {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
    return values - code, code


def split_probe(source: str) -> tuple[str, str] | None:
    """(probe part, judge part) of a test with a top-level `def probe():`, else None."""
    tree = ast.parse(source)
    lines = source.splitlines()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == "probe":
            start = min([node.lineno] + [d.lineno for d in node.decorator_list]) - 1
            end = node.end_lineno or node.lineno
            if node.args.args or node.args.posonlyargs or node.args.kwonlyargs or node.args.vararg:
                raise SpecError("`def probe()` takes no arguments")
            return "\n".join(lines[:end]) + "\n", "\n".join(lines[:start] + lines[end:]) + "\n"
    return None


def _config(source: str) -> tuple[dict[str, Any], str]:
    import yaml

    m = _TEST_CONFIG.search(source)  # group 1: the config's text
    if not m:
        return {}, source
    return (yaml.safe_load(m.group(1)) or {}), source[: m.start()] + source[m.end() :]


def _answer_statements(body: str, values: set[str], code: set[str], reads: set[str]) -> list[str]:
    """The statements of a public check that the judge can run for a hidden test reading `reads`:
    those that read only these answers, call no code of the student's, and use nothing bound by a
    statement left out (`assert callable(f)` goes, `assert isinstance(answer, int)` stays)."""
    runnable: list[tuple[str, set[str], set[str]]] = []
    left_out: set[str] = set()
    for stmt in ast.parse(body).body:
        source = ast.get_source_segment(body, stmt) or ""
        used = free_names(source)
        binds = {n.id for n in ast.walk(stmt) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
        if used & (code | left_out) or not (used & values) <= reads:
            left_out |= binds
        else:
            runnable.append((source, used, binds))
    derived = set(values)  # answers, and names computed from them
    checking = []
    for _, used, binds in runnable:
        checking.append(bool(used & derived))
        if checking[-1]:
            derived |= binds
    kept: list[str] = []
    needed: set[str] = set()
    for (source, used, binds), checks in zip(reversed(runnable), reversed(checking)):
        if checks or binds & needed:  # a statement about an answer, or one it needs
            kept.insert(0, source)
            needed |= used
    return kept


def _with_public_checks(judge: str, checks: list[str]) -> str:
    """A hidden test's judge code with the exercise's public checks of the same answers in front of
    it. So a hidden test never accepts an answer its public check calls "not yet": both run on the
    same plain data (`gamekit.sandbox.plain.graded_answers`), and the hidden one demands the public one."""
    if not checks:
        return judge
    return "# the exercise's public checks first: a right answer passes them too\n" + "\n".join(checks) + "\n" + judge


def spec(master: nbformat.NotebookNode) -> dict[str, Any]:
    """The grading spec of a master (see the module doc). Raises SpecError for a hidden test that
    uses a function the student wrote without saying what to ask of it (`def probe`)."""
    qs = questions(master)
    # the lesson: code cells outside every question block, as students get them (teacher-only cells out)
    inside: set[int] = set()
    depth = 0
    for i, cell in enumerate(master.cells):
        mark = marker(cell)
        depth += mark == ("BEGIN", "QUESTION")
        if depth:
            inside.add(i)
        depth -= mark == ("END", "QUESTION")
    lesson = [
        c.source
        for i, c in enumerate(master.cells)
        if c.cell_type == "code" and i not in inside and not is_teacher_only(c) and c.source.strip()
    ]
    values: set[str] = set()
    code: set[str] = set()
    for q in qs:
        for i in q.solution_cells:
            cell = master.cells[i]
            if cell.cell_type == "code":
                bound_values, bound_code = bound_names(solution_code(cell.source))
                values |= bound_values
                code |= bound_code
    out_questions = []
    for q in qs:
        cases: list[Case] = []
        explicit = 0.0
        tests: list[tuple[int, dict[str, Any], str]] = [
            (k, *_config(master.cells[i].source))
            for k, i in enumerate(q.test_cells)
            if master.cells[i].cell_type == "code"
        ]
        public = [body for _, config, body in tests if not config.get("hidden", False) and split_probe(body) is None]
        for k, config, body in tests:
            hidden = bool(config.get("hidden", False))
            case_id = f"{q.name}.{k}"
            split = split_probe(body)
            probe, judge = split if split else (None, body)
            if hidden:
                reads = free_names(judge) & values
                checks = [line for body in public for line in _answer_statements(body, values, code, reads)]
                judge = _with_public_checks(judge, checks)
            names = sorted(free_names(judge) & values)
            calls = sorted(free_names(probe if probe else body) & code)
            if split is None and calls and hidden:
                raise SpecError(
                    f"{q.name}: a hidden test uses {', '.join(calls)}, written by the student; give the test a "
                    "`def probe():` that calls it and returns plain data, and judge that data after it "
                    "(see gamekit/course/cases.py)"
                )
            if split is not None and free_names(judge) & code:
                raise SpecError(
                    f"{q.name}: after `def probe` a test uses {', '.join(sorted(free_names(judge) & code))}, "
                    "written by the student; only the probe may call the student's code"
                )
            points = config.get("points")
            if points is not None:
                explicit += float(points)
            cases.append(
                Case(
                    case_id,
                    q.name,
                    hidden,
                    float(points) if points is not None else -1.0,
                    config.get("failure_message"),
                    judge,
                    probe,
                    names,
                    calls,
                )
            )
        unspecified = [c for c in cases if c.points < 0]
        share = max(q.points - explicit, 0.0) / len(unspecified) if unspecified else 0.0
        for c in unspecified:
            c.points = share
        out_questions.append(
            {"name": q.name, "points": q.points, "manual": q.manual, "cases": [asdict(c) for c in cases]}
        )
    return {
        "version": SPEC_VERSION,
        "assignment": assignment_name(master),
        "lesson": lesson,
        "answers": sorted(values),
        "questions": out_questions,
    }
