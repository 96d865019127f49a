"""Every exercise that a self-study copy checks against one right answer has a hint of its own.

For a wrong answer of the right form, `SelfStudy.check` shows the hint that the master's prompt cell
carries (`self_study_hint`); without one the student gets only a generic pointer. This test finds,
in every lesson, the exercises `assign.self_study_data` treats as having a single right answer and
asserts that each has a short one-line hint that does not spell out the model answer (read from the
solution cell's source, without running the lesson).
"""

from __future__ import annotations

import ast
import re
from typing import Any

import nbformat
import pytest
from conftest import NOTEBOOKS

from gamekit.course import assign, cases

CHAPTERS = [p for p in NOTEBOOKS if assign.is_assignment(nbformat.read(p, as_version=4))]
MAX_HINT = 250


def single_answer_exercises(nb: nbformat.NotebookNode) -> list[tuple[assign.Question, str]]:
    """(question, solution source) of every exercise self-study compares with one right answer.

    Decided by `assign.self_study_data` itself, given a plain stand-in for every answer: an exercise
    with answer variables (`answer_*`) in its solution, not an explanation, prompt not tagged
    plausible. (An answer that is no plain data, a game object say, is also checked as plausible
    there; such an exercise carries the plausible tag, so nothing is missed by the stand-ins.)
    """
    names = {n for c in nb.cells if c.cell_type == "code" for n in assign._ANSWER_VAR.findall(c.source)}
    data = assign.self_study_data(nb, nb, answers={n: 0 for n in names})["questions"]
    found = []
    for q in assign.questions(nb):
        if not data[q.name].get("single"):
            continue
        code = "\n".join(
            assign.solution_code(nb.cells[i].source) for i in q.solution_cells if nb.cells[i].cell_type == "code"
        )
        found.append((q, code))
    return found


def _spellings(value: Any) -> list[str]:
    """How a model answer could be spelled out (as tests/test_check_agreement.py reads it), plus the
    words of a literal answer: numbers >= 100 in plain, comma and underscore form; a list or tuple
    holding such a number; every string of four or more characters it holds."""
    out: list[str] = []
    if isinstance(value, str):
        return [value] if len(value.strip()) > 3 else []
    if isinstance(value, bool) or not isinstance(value, (int, tuple, list)):
        return []
    if isinstance(value, int):
        return [str(value), f"{value:,}", f"{value:_}"] if abs(value) >= 100 else []
    if any(isinstance(v, int) and not isinstance(v, bool) and abs(v) >= 100 for v in value):
        out += [repr(value), repr(list(value)), repr(tuple(value))]
    for v in value:
        out += _spellings(v) if isinstance(v, (int, str)) else []
    return out


def model_answers(code: str) -> list[tuple[str, str, Any]]:
    """(name, right-hand side's source, literal value or None) of each `answer_* = ...` in `code`."""
    values, _ = cases.bound_names(code)
    out = []
    for node in ast.parse(code).body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id.startswith("answer_") and t.id in values for t in node.targets
        ):
            source = ast.get_source_segment(code, node.value) or ""
            try:
                literal = ast.literal_eval(node.value)
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                literal = None
            out.append((node.targets[0].id if isinstance(node.targets[0], ast.Name) else "", source, literal))
    return out


def hint_problems(hint: object, code: str) -> list[str]:
    """What is wrong with `hint` for an exercise whose solution is `code` (empty: nothing)."""
    if not isinstance(hint, str) or not hint.strip():
        return ["no self_study_hint"]
    problems = []
    if "\n" in hint or "\r" in hint:
        problems.append("the hint has more than one line")
    if len(hint) > MAX_HINT:
        problems.append(f"the hint has {len(hint)} characters, more than {MAX_HINT}")
    for name, source, literal in model_answers(code):
        if len(source) > 3 and source in hint:
            problems.append(f"the hint holds the solution's right-hand side of {name}: {source!r}")
        for text in _spellings(literal):
            if re.search(rf"(?<![\w.]){re.escape(text)}(?![\w.])", hint, re.I):
                problems.append(f"the hint spells out {name}'s model answer: {text!r}")
    return problems


@pytest.mark.parametrize("path", CHAPTERS, ids=[p.stem for p in CHAPTERS])
def test_every_single_answer_exercise_has_a_hint_that_keeps_the_answer(path):
    nb = nbformat.read(path, as_version=4)
    exercises = single_answer_exercises(nb)
    assert exercises, f"{path.name}: no exercise with a single right answer found (is the rule still right?)"
    problems = [
        f"{q.name}: {problem}"
        for q, code in exercises
        for problem in hint_problems(nb.cells[q.prompt].metadata.get(assign.SELF_STUDY_HINT), code)
    ]
    assert problems == []


def test_the_hint_check_catches_an_answer_given_away():
    code = "g = 3\nanswer_1_1 = tree_size(g)\nanswer_1_2 = (40, 1_234)\n"
    code += "answer_1_3 = [3, 250]\nanswer_1_4 = ['more', 'x']\n"
    assert hint_problems("count the nodes of the tree, then the positions", code) == []
    assert hint_problems("", code) == ["no self_study_hint"] and hint_problems(None, code) == ["no self_study_hint"]
    assert any("right-hand side" in p for p in hint_problems("just run tree_size(g)", code))
    for leak in ("about 1,234", "1234 nodes", "try [3, 250]", "(3, 250) moves", "the answer is More", "a\nb"):
        assert hint_problems(leak, code) != [], leak
    assert hint_problems("x" * (MAX_HINT + 1), code) != []
    assert hint_problems("12345 and 2500 are not it; 3 of them", code) == []  # only whole numbers match
