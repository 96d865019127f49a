"""Self-study copies: each check says "correct" or "not yet" and the copy holds no answer.

Fast tests check the normal form of answers and the checker; the `notebook` tests make the
self-study copy of the fixture master with `assign --self-study` and run it.
"""

import json
import sys
from fractions import Fraction
from pathlib import Path

import nbformat
import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent / "fixtures"))
from make_fixture import FIXTURE

from gamekit import SubtractionGame, best_moves, red_blue
from gamekit.course import assign
from gamekit.course.checks import SELF_STUDY_KEY, as_answer, load_self_study, same_answer
from gamekit.course.execute import execute_notebook
from gamekit.course.selfstudy import SelfStudy, answer_digest, canonical, form_digest

RED_COUNT = len([n for n in red_blue(40).red if 1 <= n <= 40])


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ([3, 11], (3, 11)),
        ([3, 11], [np.int64(3), np.int64(11)]),
        (Fraction(2, 21), 2 / 21),
        (6, 6.0),
        ("more", " More "),
        ({1, 2}, {2, 1}),
        ((173, 87), np.array([173, 87])),
    ],
)
def test_answers_written_differently_have_one_normal_form(a, b):
    assert canonical(a) == canonical(b) is not None
    assert answer_digest("salt", a) == answer_digest("salt", b)


@pytest.mark.parametrize(("a", "b"), [([3, 11], [11, 3]), (Fraction(2, 21), 0.095), ("more", "fewer"), (1, True)])
def test_different_answers_stay_different(a, b):
    assert canonical(a) != canonical(b)


def test_code_is_not_an_answer_and_salts_differ():
    assert canonical({4: None, 5: 3}) == canonical({5: 3, 4: None}) is not None
    assert canonical(lambda: 1) is None and canonical([1, object()]) is None
    assert answer_digest("a", 5) != answer_digest("b", 5) == form_digest("b", 5)


def _checker(digests: dict, public=(), single=True, functions=False) -> SelfStudy:
    return SelfStudy(
        {
            "salt": "s",
            "questions": {
                "q1_1": {
                    "label": "Exercise 1.1",
                    "public": list(public),
                    "answers": {k: form_digest("s", canonical(v)) for k, v in digests.items()},
                    "single": single,
                    "functions": functions,
                }
            },
        }
    )


def test_the_check_says_correct_not_yet_or_plausible():
    public = [{"code": ">>> assert isinstance(answer_1_1, (list, tuple))\n", "hint": "answer_1_1 must be a list"}]
    grader = _checker({"answer_1_1": [3, 5, 11]}, public)
    assert grader.check("q1_1", {"answer_1_1": (3, 5, 11)}).verdict == "correct"
    assert grader.check("q1_1", {"answer_1_1": [3, 11]}).verdict == "not yet"
    still = grader.check("q1_1", {"answer_1_1": ...})
    assert still.verdict == "not yet" and "still" in still.detail
    hint = grader.check("q1_1", {"answer_1_1": 3})
    assert (hint.verdict, hint.detail) == ("not yet", "answer_1_1 must be a list")
    assert "\n" not in str(hint) and "Traceback" not in str(hint) and "doctest" not in str(hint)
    assert _checker({}, public, single=False).check("q1_1", {"answer_1_1": [1]}).verdict == "plausible"
    with pytest.raises(ValueError, match="no exercise 'q9_9'"):
        grader.check("q9_9", {})


@pytest.fixture(scope="module")
def self_study(tmp_path_factory):
    out = tmp_path_factory.mktemp("self-study")
    return assign.assign_notebook(FIXTURE, out, self_study=True, run_tests=False)  # otter's run: test_assign


#: What every lesson's set-up imports, so a public check that reads an answer through the rule finds it.
RULE = {"as_answer": as_answer, "same_answer": same_answer}


def _grader(nb) -> SelfStudy:
    """The copy's checker, as its set-up cell makes it (from the data the copy keeps in its metadata)."""
    assert "SelfStudy(load_self_study(" in next(c.source for c in nb.cells if "SelfStudy(" in c.source)
    return SelfStudy(nb.metadata[SELF_STUDY_KEY]["data"])


@pytest.mark.notebook
def test_self_study_copy_holds_no_answer_and_checks_truthfully(self_study):
    assert self_study.student.parent.name == "self-study"
    text = self_study.student.read_text(encoding="utf-8")
    nb = nbformat.reads(text, as_version=4)
    assert "otter" not in nb.metadata and "import otter" not in text
    assert assign.student_leaks(nbformat.read(FIXTURE, as_version=4), nb) == []
    for secret in ("[3, 11]", "(3, 11)", "3, 11]", json.dumps(canonical([3, 11])), f"answer_99_4 = {RED_COUNT}"):
        assert secret not in text
    grader = _grader(nb)
    assert grader.check("q99_1", {"answer_99_1": [np.int64(3), np.int64(11)]}).verdict == "correct"
    assert grader.check("q99_1", {"answer_99_1": (3, 11)}).detail.startswith("answer_99_1 should be a list")
    assert grader.check("q99_1", {"answer_99_1": [3]}).verdict == "not yet"
    assert grader.check("q99_4", {"answer_99_4": RED_COUNT}).verdict == "correct"
    assert grader.check("q99_4", {"answer_99_4": RED_COUNT + 1}).verdict == "not yet"
    env = {"SubtractionGame": SubtractionGame, "alphabeta_value": lambda game, state, *bounds: 1}
    assert grader.check("q99_2", env).verdict == "plausible"


@pytest.mark.notebook
def test_running_a_self_study_copy_writes_nothing_beside_it(self_study, tmp_path):
    copy = tmp_path / self_study.student.name
    copy.write_bytes(self_study.student.read_bytes())
    done = execute_notebook(copy)
    assert sorted(p.name for p in tmp_path.iterdir()) == [copy.name]
    shown = [
        out.get("data", {}).get("text/plain", "")
        for c in done.cells
        if c.cell_type == "code" and "grader.check(" in c.source
        for out in c.outputs
    ]
    assert shown and all("not yet" in s for s in shown[:1])


def test_any_order_answers_compare_as_sets():
    from gamekit.course.selfstudy import unordered

    assert unordered(canonical([(3, 4), (1, 4)])) == unordered(canonical([[1, 4], [3, 4]]))
    assert unordered(canonical([1, 2])) != unordered(canonical([1, 2, 3])) and unordered(5) == 5


@pytest.mark.notebook
def test_self_study_copy_of_a_chapter(tmp_path):
    """Chapter 6: Ex. 6.1 in any order is correct, a missing move is not yet, and no answer is in the copy."""
    from gamekit import Nim, NimState

    master = Path(__file__).resolve().parent.parent / "notebooks" / "06-q-learning-nim.ipynb"
    done = assign.assign_notebook(master, tmp_path, self_study=True, run_tests=False)
    text = done.student.read_text(encoding="utf-8")
    for secret in ("(1, 4), (2, 4), (3, 4)", "[1, 4], [2, 4], [3, 4]", "[1,4],[2,4],[3,4]"):
        assert secret not in text
    grader = _grader(nbformat.reads(text, as_version=4))
    env = RULE | {"Nim": Nim, "NimState": NimState}
    assert grader.check("q6_1", env | {"answer_6_1": [[3, 4], (1, 4), (2, 4)]}).verdict == "correct"
    assert grader.check("q6_1", env | {"answer_6_1": [(1, 4), (2, 4)]}).verdict == "not yet"
    assert grader.check("q6_4", {}).verdict in ("not yet", "plausible")


def test_an_explanation_is_read_by_the_teacher_and_a_wrong_answer_gets_a_hint():
    """Ex 1.6-like (graded by hand): not "no exercise"; a wrong answer of the right form: a hint, the
    master's own where it gives one (self_study_hint), else a pointer to the method."""
    master = nbformat.read(FIXTURE, as_version=4)
    manual = next(q for q in assign.questions(master) if q.manual)
    prompt = next(q for q in assign.questions(master) if not q.manual and q.prompt is not None).prompt
    master.cells[prompt].metadata[assign.SELF_STUDY_HINT] = "count the  moves\n that reach 0"
    data = assign.self_study_data(master, master, answers={})
    grader = SelfStudy(data)
    said = grader.check(manual.name, {})
    assert said.verdict == "read by your teacher" and "solutions" in said.detail
    with_hint = next(q for q, v in data["questions"].items() if v.get("hint"))
    assert data["questions"][with_hint]["hint"] == "count the moves that reach 0"
    hinted = _checker({"answer_1_1": [3, 5, 11]})
    hinted.questions["q1_1"]["hint"] = "count the moves that reach 0"
    wrong = hinted.check("q1_1", {"answer_1_1": [3, 11]})
    assert wrong.verdict == "not yet" and wrong.detail.endswith("Hint: count the moves that reach 0")
    plain = _checker({"answer_1_1": [3, 5, 11]}).check("q1_1", {"answer_1_1": [3, 11]})
    assert "right form" in plain.detail and "Hint: work through the section above" in plain.detail


@pytest.mark.parametrize("bad", [-1, 13, 2.5, True, "3", [2]])
def test_a_bad_decimals_setting_is_refused_with_what_is_allowed(bad):
    """`self_study_decimals` must be a whole number from 0 to 12: anything else stops the build with a
    message naming the exercise, the setting and what it got; the master is left as it was."""
    master = nbformat.read(FIXTURE, as_version=4)
    q = next(q for q in assign.questions(master) if not q.manual and q.prompt is not None)
    master.cells[q.prompt].metadata[assign.SELF_STUDY_DECIMALS] = bad
    before = nbformat.writes(master)
    with pytest.raises(ValueError, match=rf"{q.name}: self_study_decimals must be a whole number from 0 to 12, got "):
        assign.self_study_data(master, master, answers={})
    assert nbformat.writes(master) == before
    master.cells[q.prompt].metadata[assign.SELF_STUDY_DECIMALS] = 12  # the largest allowed is taken
    assert assign.self_study_data(master, master, answers={})["questions"][q.name]["decimals"] == 12


@pytest.mark.notebook
def test_a_wrong_answer_in_lesson_01_gets_the_exercises_own_hint(tmp_path):
    """Chapter 1: a wrong answer of the right form gets the master's self_study_hint, a right one is correct."""
    master = Path(__file__).resolve().parent.parent / "notebooks" / "01-subtraction-game.ipynb"
    nb = nbformat.read(master, as_version=4)
    prompts = {q.name: nb.cells[q.prompt] for q in assign.questions(nb) if q.prompt is not None}
    game13 = SubtractionGame(13)
    right = {"q1_1": list(best_moves(game13, game13.initial_state())), "q1_3": list(red_blue(40, (3, 5)).red[1:])}
    wrong = {"q1_1": right["q1_1"][:-1], "q1_3": [1, 2]}  # the right form (they pass the public checks)
    assert all(wrong[q] != right[q] for q in right)
    done = assign.assign_notebook(master, tmp_path, self_study=True, run_tests=False)
    grader = _grader(nbformat.read(done.student, as_version=4))
    for name in right:
        var = name.replace("q", "answer_")
        hint = " ".join(prompts[name].metadata[assign.SELF_STUDY_HINT].split())
        said = grader.check(name, RULE | {var: wrong[name]})
        assert said.verdict == "not yet" and said.detail.endswith(f"Hint: {hint}"), said
        assert grader.check(name, RULE | {var: right[name]}).verdict == "correct"


def test_answers_the_hidden_tests_accept_within_a_tolerance_compare_rounded():
    """An exercise whose hidden test accepts a score within 0.001 (Ex. 8.2) gives `self_study_decimals`:
    the copy compares every number at that many places, so a score to three places is "correct"."""
    from gamekit.course.selfstudy import rounded

    model = rounded(canonical((0.7597469266479578, 400)), 3)
    for same in [(0.76, 400.0), (0.7597, 400), (np.float64(0.75975), np.int64(400))]:
        assert rounded(canonical(same), 3) == model
    for other in [(0.75, 400), (0.76, 401), (0.76,)]:
        assert rounded(canonical(other), 3) != model
    assert rounded(canonical((None, 15.064, "H1")), 0) == rounded(canonical((None, 15, "h1")), 0)
    assert rounded(canonical(Fraction(1, 3)), 2) == rounded(canonical(0.33), 2) == ["float", "0.33"]
    assert rounded(canonical(0.5), None) == canonical(0.5)  # no decimals: unchanged
    salt = "s"
    check = SelfStudy(
        {
            "salt": salt,
            "questions": {
                "q": {
                    "label": "Exercise 8.2",
                    "public": [],
                    "single": True,
                    "decimals": 3,
                    "answers": {"answer": form_digest(salt, model)},
                }
            },
        }
    ).check
    assert check("q", {"answer": (0.76, 400)}).verdict == "correct"
    assert check("q", {"answer": (0.761, 400)}).verdict == "not yet"


def test_a_self_study_copy_opens_with_its_title_and_keeps_its_data_in_the_file(tmp_path):
    """No page of JSON above the title (new-user-5, 4.1): the set-up cell is a few lines under the title,
    the hints are in the file's metadata, and the copy finds them in its own file, renamed or not."""
    master = nbformat.read(FIXTURE, as_version=4)
    student = nbformat.v4.new_notebook(
        cells=[
            nbformat.v4.new_code_cell("# Initialize Otter\nimport otter\ngrader = otter.Notebook()"),
            nbformat.v4.new_markdown_cell("# 99 · A fixture\n\nThe lesson starts here."),
            nbformat.v4.new_code_cell("answer_99_1 = ..."),
        ],
        metadata={"otter": {"assignment_name": "99-fixture", "tests": {}}},
    )
    data = assign.self_study_data(master, student, answers={})
    data["questions"]["q99_1"]["hint"] = "a hint a student meets only under a wrong answer"
    nb = assign.self_study_copy(student, data)
    assert nb.cells[0].cell_type == "markdown" and nb.cells[0].source.startswith("# 99 · A fixture")
    init = nb.cells[1].source
    assert len(init.splitlines()) <= 7 and "hint a student" not in init and '"salt"' not in init
    assert 'grader = SelfStudy(load_self_study("99-fixture"))' in init and "otter" not in nb.metadata
    assert nb.metadata[SELF_STUDY_KEY] == {"assignment_name": "99-fixture", "data": data}
    nbformat.write(nb, tmp_path / "my copy.ipynb")  # renamed: still found by what it carries
    nbformat.write(nbformat.v4.new_notebook(), tmp_path / "another.ipynb")
    assert load_self_study("99-fixture", tmp_path) == data
    env: dict = {}
    exec(
        compile(
            init.replace('load_self_study("99-fixture")', f'load_self_study("99-fixture", {str(tmp_path)!r})'),
            "<init>",
            "exec",
        ),
        env,
    )
    wrong = env["grader"].check("q99_1", {"answer_99_1": ...})
    assert "hint a student" not in str(wrong)  # no hint before a wrong answer
    with pytest.raises(FileNotFoundError, match="run this notebook from the folder it is saved in"):
        load_self_study("98-other", tmp_path)
