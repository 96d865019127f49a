"""What a student reads on the feedback page and the teacher in the CSV (issue 30): a cell that
crashed or had a syntax error is named with its error's type; a blank answer is "not answered",
once; an answer that cannot cross the plain-data boundary is named with what to change; the CSV
gives the hand-graded points in a column of their own."""

from __future__ import annotations

import csv

import nbformat
import pytest

from gamekit.course import grade
from gamekit.sandbox import bwrap_path, sandboxrun

ALLOWED = "allowed: None, bool, int, float, str, list, tuple, dict, set, frozenset, fractions.Fraction"


def _case(cid: str, name: str, hidden: bool, hint: str = "") -> dict:
    points = 1.0 if hidden else 0.0
    return {"id": cid, "names": [name], "hidden": hidden, "probe": None, "calls": [], "points": points,
            "failure_message": hint, "judge": ""}  # fmt: skip


def _grader(tmp_path) -> grade.Autograder:
    questions = [
        {"name": "q1_1", "points": 1.0, "manual": False,
         "cases": [_case("q1_1.0", "answer_1_1", False, "must be a list"), _case("q1_1.1", "answer_1_1", True)]},
        {"name": "q1_2", "points": 1.0, "manual": False,
         "cases": [_case("q1_2.0", "answer_1_2", False, "must be a pair"), _case("q1_2.1", "answer_1_2", True)]},
        {"name": "q1_3", "points": 2.0, "manual": True, "cases": []},
    ]  # fmt: skip
    spec = {"version": 1, "assignment": "01-x", "lesson": [], "answers": [], "questions": questions}
    qs = [{"name": q["name"], "points": q["points"], "manual": q["manual"]} for q in questions]
    return grade.Autograder("01-x", tmp_path / "01-x.zip", qs, spec)


def _notebook() -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell('grader = PublicChecks("01-x")'),
        nbformat.v4.new_markdown_cell("**Exercise 1.1** (predict)"),
        nbformat.v4.new_code_cell("answer_1_1 = [3, 5"),
        nbformat.v4.new_code_cell('grader.check("q1_1")'),
        nbformat.v4.new_markdown_cell("**Exercise 1.2** (compute)"),
        nbformat.v4.new_code_cell("answer_1_2 = {}[1]"),
        nbformat.v4.new_code_cell('grader.check("q1_2")'),
    ]
    return nb


def _verdicts(passed: bool) -> dict:
    return {cid: {"passed": passed, "why": "x"} for cid in ("q1_1.0", "q1_1.1", "q1_2.0", "q1_2.1")}


def _page(tmp_path, res, grader) -> str:
    grade.write_reports([res], {"01-x": grader}, tmp_path / "grades")
    return (tmp_path / "grades" / "feedback" / "01-x" / f"{res.student}.html").read_text(encoding="utf-8")


def _submission(tmp_path, name="bob") -> grade.Submission:
    path = tmp_path / f"{name}.ipynb"
    nbformat.write(_notebook(), path)
    return grade.Submission(name, path, "01-x")


def test_a_crash_and_a_syntax_error_are_named_with_cell_and_type(tmp_path):
    grader, nb = _grader(tmp_path), _notebook()
    run = grade.SandboxRun(
        failed={0: "FileNotFoundError", 2: "SyntaxError", 3: "NameError", 5: "KeyError", 6: "NameError"}
    )
    res = grade.assemble(_submission(tmp_path), grader, nb, run, _verdicts(False))
    assert res.errors == {
        "q1_1": "Exercise 1.1 (cell 2) has a syntax error: fix it so that the cell runs, then run the check again",
        "q1_2": "Exercise 1.2 (cell 5) stopped with an error (KeyError): fix it so that the cell runs, "
        "then run the check again",
    }  # the checker's own cells (0, 3, 6) are not the student's
    page = _page(tmp_path, res, grader)
    assert "Exercise 1.1 (cell 2) has a syntax error" in page and "(KeyError)" in page
    assert "NameError" not in page and "FileNotFoundError" not in page
    rows = list(csv.DictReader((tmp_path / "grades" / "01-x.csv").open(encoding="utf-8")))
    assert "has a syntax error" in rows[0]["notes"]


def test_a_blank_submission_says_not_answered_once(tmp_path):
    grader, nb = _grader(tmp_path), _notebook()
    why = "cannot be graded: a value of type builtins.ellipsis is not plain data; " + ALLOWED
    run = grade.SandboxRun(names={n: {"why": f"{n} {why}"} for n in ("answer_1_1", "answer_1_2")})
    res = grade.assemble(_submission(tmp_path, "carol"), grader, nb, run, _verdicts(False))
    assert res.notes == ["not answered (still `...`): answer_1_1, answer_1_2"]
    page = _page(tmp_path, res, grader)
    assert "ellipsis" not in page and "plain data" not in page
    assert page.count("not answered: `answer_1_1` is still `...`") == 1
    assert "must be a list" not in page  # no form hints for an answer that is not there


def test_an_answer_that_cannot_cross_the_boundary_is_named_with_what_to_change(tmp_path):
    grader, nb = _grader(tmp_path), _notebook()
    run = grade.SandboxRun(
        names={
            "answer_1_2": {
                "why": f"answer_1_2 cannot be graded: a value of type __main__.RS is not plain data; {ALLOWED}"
            }
        }
    )
    res = grade.assemble(_submission(tmp_path), grader, nb, run, _verdicts(False))
    page = _page(tmp_path, res, grader)
    row = page[page.index("<td>Exercise 1.2</td>") : page.index("<td>Exercise 1.3</td>")]
    assert "`answer_1_2` could not be sent to the grader: it is or holds a __main__.RS" in row.replace("&#x27;", "'")
    assert "tuple(...)" in row


def test_the_hand_graded_points_are_in_the_csv_and_on_the_page(tmp_path):
    grader = _grader(tmp_path)
    res = grade.assemble(_submission(tmp_path), grader, _notebook(), grade.SandboxRun(), _verdicts(True))
    page = _page(tmp_path, res, grader)
    [row] = list(csv.DictReader((tmp_path / "grades" / "01-x.csv").open(encoding="utf-8")))
    assert (row["total"], row["possible"], row["possible by hand"]) == ("2", "2", "2")
    # what is still to come is said as what it is: up to 2 more points, not a promise of them
    assert "<b>2 of 2 points from the autograder; up to 2 more points from exercises your teacher grades" in page
    assert "in all" not in page and "graded by your teacher: up to 2 points, not given yet" in page


def test_the_sandbox_reports_the_type_of_a_cells_error():
    shell = sandboxrun.make_shell()
    assert sandboxrun.cell_error(shell, "x = 1") is None
    assert sandboxrun.cell_error(shell, "x = [1,") == "SyntaxError"
    assert sandboxrun.cell_error(shell, "{}[1]") == "KeyError"
    assert sandboxrun.cell_error(shell, "class Odd(Exception): pass\nraise Odd()") == "Odd"


@pytest.mark.slow  # starts bubblewrap
@pytest.mark.skipif(bwrap_path() is None, reason="bubblewrap (bwrap) is not installed")
def test_a_real_sandbox_run_names_the_failed_cells(tmp_path):
    grader = _grader(tmp_path)
    run = grade.run_in_sandbox(_notebook(), grader.spec, cell_timeout=30)
    assert run.failed.get(2) == "SyntaxError" and run.failed.get(5) == "KeyError"
    assert run.error is None and run.stopped == {}
