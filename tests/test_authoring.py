"""Exercises written as text (`python -m gamekit.course new-exercise`), and the naming rules every
exercise of a master obeys (`gamekit.course.nbcheck`): label, question and answer agree, a hint."""

from __future__ import annotations

import shutil
import subprocess
import sys

import nbformat
import pytest
from conftest import ROOT

from gamekit.course import authoring, master
from gamekit.course.nbcheck import exercise_problems, notebook_problems

LESSON = ROOT / "notebooks" / "01-subtraction-game.ipynb"

FILLED = """exercise: "1.9"
kind: compute
points: 1
prompt: |
  How many starts from 1 to 30 are red? Assign the count to `answer_1_9`.
hint: the red numbers are the starts whose value is -1 for the player to move
solution: |
  answer_1_9 = sum(solve(SubtractionGame(n))[SubtractionGame(n).initial_state()] == -1 for n in range(1, 31))
public:
  - message: answer_1_9 must be a whole number
    code: |
      assert type(as_answer(answer_1_9)) is int
hidden:
  - code: |
      red = [n for n in range(1, 31) if solve(SubtractionGame(n))[SubtractionGame(n).initial_state()] == -1]
      assert same_answer(answer_1_9, len(red))
"""


def test_a_template_filled_in_becomes_a_question_the_course_accepts():
    skeleton = authoring.template("1.9")
    assert "answer_1_9" in skeleton and authoring.parse_exercise(skeleton).question == "q1_9"
    nb = nbformat.read(LESSON, as_version=4)
    changed = authoring.insert_exercise(nb, authoring.parse_exercise(FILLED))
    assert notebook_problems(changed) == []
    added = {q.name: q for q in master.questions(changed)}["q1_9"]
    assert not added.manual and len(added.test_cells) == 2 and len(added.solution_cells) == 1
    prompt = changed.cells[added.prompt]
    assert prompt.source.startswith("**Exercise 1.9** (compute) How many starts")
    assert prompt.metadata["self_study_hint"].startswith("the red numbers")
    assert prompt.metadata["slideshow"] == {"slide_type": "subslide"}
    assert len(changed.cells) == len(nb.cells) + 10  # question, prompt, solution (3), tests (4), end
    assert nbformat.writes(nb) == nbformat.writes(nbformat.read(LESSON, as_version=4))  # the input is unchanged


def test_an_explain_exercise_is_graded_by_hand_with_a_model_answer():
    text = authoring.template("1.9", "explain")
    changed = authoring.insert_exercise(nbformat.read(LESSON, as_version=4), authoring.parse_exercise(text))
    added = {q.name: q for q in master.questions(changed)}["q1_9"]
    assert added.manual and not added.test_cells
    assert changed.cells[added.solution_cells[0]].cell_type == "markdown"


@pytest.mark.parametrize(
    "change, named",
    [
        (lambda t: t.replace('exercise: "1.9"', "exercise: one"), "label N.M"),
        (lambda t: t.replace("kind: compute", "kind: guess"), "'kind' is one of predict"),
        (lambda t: t.replace("points: 1", "points: -2"), "'points' is a positive number"),
        (lambda t: t.replace("points: 1", "points: yes"), "'points' is a positive number"),
        (lambda t: t.replace("prompt: |\n  How many", "prompt: ''\nx: |\n  How many"), "unknown fields ['x']"),
        (lambda t: t.replace("  - message: answer_1_9 must be a whole number\n    code:", "  - code:"), "a 'message'"),
        (lambda t: t.split("hidden:")[0], "at least one public and one hidden test"),
        (lambda t: t.replace("kind: compute", "kind: explain"), "graded by hand"),
        (lambda t: "[1, 2]", "YAML mapping"),
        (lambda t: t + "  - [oops", "not valid YAML"),
    ],
    ids=["label", "kind", "negative points", "bool points", "unknown field", "no message", "no hidden",
         "explain with tests", "not a mapping", "bad yaml"],
)  # fmt: skip
def test_a_malformed_exercise_text_is_refused_naming_the_field(change, named):
    with pytest.raises(ValueError, match=named.replace("[", r"\[").replace("]", r"\]")):
        authoring.parse_exercise(change(FILLED))


@pytest.mark.parametrize(
    "text, named",
    [
        (FILLED.replace('"1.9"', '"2.9"').replace("answer_1_9", "answer_2_9"), "not of this lesson"),
        (FILLED.replace('"1.9"', '"1.2"').replace("answer_1_9", "answer_1_2"), "exists already"),
        (FILLED.replace("Assign the count to `answer_1_9`", "Assign the count to `answer_1_8`"), "answer_1_8"),
        (FILLED.replace("hint: the red", "#hint: the red"), "no self_study_hint"),
    ],
    ids=["other lesson", "existing label", "wrong answer name", "no hint"],
)
def test_an_exercise_that_does_not_fit_its_lesson_is_refused_and_nothing_changes(text, named):
    nb = nbformat.read(LESSON, as_version=4)
    before = nbformat.writes(nb)
    with pytest.raises(ValueError, match=named):
        authoring.insert_exercise(nb, authoring.parse_exercise(text))
    assert nbformat.writes(nb) == before


def test_the_masters_naming_rules_name_the_cell():
    """A label inside another question's block, and a missing hint, are problems of the master."""
    nb = nbformat.read(LESSON, as_version=4)
    q = {q.name: q for q in master.questions(nb)}["q1_2"]
    nb.cells[q.prompt].source = nb.cells[q.prompt].source.replace("**Exercise 1.2**", "**Exercise 1.8**", 1)
    assert f"cell {q.prompt}: Exercise 1.8 is in question 'q1_2' (its question must be 'q1_8')" in exercise_problems(nb)
    nb = nbformat.read(LESSON, as_version=4)
    del nb.cells[q.prompt].metadata["self_study_hint"]
    assert any(p.startswith(f"cell {q.prompt}: Exercise 1.2 has no self_study_hint") for p in exercise_problems(nb))


def test_the_command_writes_a_checked_exercise_and_nothing_on_an_error(tmp_path):
    lesson = tmp_path / LESSON.name
    shutil.copy(LESSON, lesson)
    good, bad = tmp_path / "good.yaml", tmp_path / "bad.yaml"
    good.write_text(FILLED, encoding="utf-8")
    bad.write_text(FILLED.replace('"1.9"', '"1.2"').replace("answer_1_9", "answer_1_2"), encoding="utf-8")
    run = [sys.executable, "-m", "gamekit.course", "new-exercise", str(lesson)]
    before = lesson.read_bytes()
    refused = subprocess.run([*run, str(bad)], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert refused.returncode == 2 and "exists already" in refused.stderr and lesson.read_bytes() == before
    done = subprocess.run([*run, str(good)], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "q1_9" in {q.name for q in master.questions(nbformat.read(lesson, as_version=4))}
    skeleton = subprocess.run([*run, "--template", "1.9"], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert skeleton.returncode == 0 and authoring.parse_exercise(skeleton.stdout).label == "1.9"


@pytest.mark.notebook
def test_an_exercise_written_as_text_goes_through_assign_into_the_student_copy_and_the_autograder(tmp_path):
    from gamekit.course import assign

    lesson = tmp_path / LESSON.name
    nbformat.write(
        authoring.insert_exercise(nbformat.read(LESSON, as_version=4), authoring.parse_exercise(FILLED)), lesson
    )
    done = assign.assign_notebook(lesson, tmp_path / "out", run_tests=False)
    student = nbformat.read(done.student, as_version=4)
    assert any("**Exercise 1.9** (compute)" in c.source for c in student.cells)  # after otter's markers
    assert any('grader.check("q1_9")' in c.source for c in student.cells)
    assert not any("sum(solve(SubtractionGame(n))" in c.source for c in student.cells)  # no solution leaks
    assert any(c.source.strip() == "answer_1_9 = ...\nanswer_1_9" for c in student.cells)
    import zipfile

    with zipfile.ZipFile(done.autograder) as z:
        assert any("q1_9" in name for name in z.namelist())
