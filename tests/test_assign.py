"""Student notebooks and autograders (otter assign): no solution, hidden test or speaker note leaks.

Fast tests read the otter format of the fixture master (tests/fixtures/99-fixture.ipynb);
the `notebook` tests run `otter assign` on it and on every chapter in notebooks/.
"""

import json
import re
import stat
import sys
import zipfile
from pathlib import Path

import nbformat
import pytest
from conftest import NOTEBOOKS

sys.path.insert(0, str(Path(__file__).parent / "fixtures"))
from make_fixture import FIXTURE, fixture_notebook

from gamekit.course import assign

CHAPTERS = [p for p in NOTEBOOKS if not p.name.startswith("00-")]


def test_fixture_file_is_what_make_fixture_writes():
    def squeeze(nb):  # ruff format may respace the stored code
        return [(c.cell_type, re.sub(r"\s+", "", c.source)) for c in nb.cells]

    stored = nbformat.read(FIXTURE, as_version=4)
    assert squeeze(stored) == squeeze(fixture_notebook()), "run `python tests/fixtures/make_fixture.py`"


def test_questions_are_read_from_the_otter_markers():
    nb = fixture_notebook()
    qs = assign.questions(nb)
    assert [(q.name, q.points, q.manual) for q in qs] == [
        ("q99_1", 1, False),
        ("q99_2", 2, False),
        ("q99_3", 1, True),
        ("q99_4", 1, False),
    ]
    for q in qs:
        assert nb.cells[q.prompt].source.startswith("**Exercise 99.")
        assert q.solution_cells and all(nb.cells[i].cell_type in ("code", "markdown") for i in q.solution_cells)
    hidden = [assign.test_is_hidden(nb.cells[i].source) for i in qs[1].test_cells]
    assert hidden == [False, True, True]
    assert assign.assignment_name(nb) == "99-fixture" and assign.is_assignment(nb)
    nb.cells[1].source = "# not a config"
    assert not assign.is_assignment(nb)
    with pytest.raises(ValueError, match="ASSIGNMENT CONFIG"):
        assign.assignment_name(nb)


def test_secret_lines_are_solutions_hidden_tests_and_notes_but_not_public_code():
    secrets = assign.secret_lines(fixture_notebook())
    assert "answer_99_1 = [3, 11]" in secrets["solution"]
    assert "best = -math.inf if maximise else math.inf" in secrets["solution"]
    # the function header stays in the student copy: it is no secret
    assert not any(line.startswith("def alphabeta_value") for line in secrets["solution"])
    assert any("alphabeta(SubtractionGame(15)).nodes" in line for line in secrets["hidden test"])
    assert not any("in (-1, 1)" in line for line in secrets["hidden test"]), "a public test is no secret"
    assert any("secret-note" in line for line in secrets["speaker notes"])


def test_student_leaks_finds_a_planted_solution_note_or_hidden_test():
    master = fixture_notebook()
    clean = assign.without_teacher_cells(master)
    qs = assign.questions(master)
    student = nbformat.v4.new_notebook(cells=[c for i, c in enumerate(master.cells) if i < qs[0].prompt])
    student = assign.without_teacher_cells(student)
    assert assign.student_leaks(master, student) == []
    assert any(c.metadata.get("slideshow", {}).get("slide_type") == "notes" for c in master.cells)
    assert not any(assign.is_teacher_only(c) for c in clean.cells)
    for planted, kind in [
        ("x = 1\nanswer_99_1 = [3, 11]", "solution"),
        ("Speaker notes: the answer to Exercise 99.1 is secret-note-3-and-11.", "speaker notes"),
    ]:
        leaky = nbformat.from_dict(json.loads(json.dumps(student)))
        leaky.cells.append(nbformat.v4.new_code_cell(planted))
        assert any(f.startswith(kind) for f in assign.student_leaks(master, leaky)), kind
    hidden_in_metadata = nbformat.from_dict(json.loads(json.dumps(student)))
    test = "assert type(calls) is int and calls == alphabeta(SubtractionGame(15)).nodes - 1"
    hidden_in_metadata.metadata["otter"] = {"tests": {"q99_2": test}}
    assert any(f.startswith("hidden test") for f in assign.student_leaks(master, hidden_in_metadata))


def test_teacher_only_cells_are_notes_or_tagged():
    md = nbformat.v4.new_markdown_cell
    assert assign.is_teacher_only(md("x", metadata={"slideshow": {"slide_type": "notes"}}))
    assert assign.is_teacher_only(md("x", metadata={"tags": ["teacher-only"]}))
    assert not assign.is_teacher_only(md("x", metadata={"slideshow": {"slide_type": "skip"}}))


def test_solution_notebook_shows_solutions_without_notes_tests_or_markers():
    sol = assign.solution_notebook(fixture_notebook())
    text = "\n".join(c.source for c in sol.cells)
    assert "answer_99_1 = [3, 11]" in text and "best = -math.inf" in text
    assert "# SOLUTION" not in text and "BEGIN" not in text and "secret-note" not in text
    assert "nodes - 1" not in text and all(c.cell_type != "raw" for c in sol.cells)


def test_solution_code_drops_otter_comments():
    src = "x = 1  # SOLUTION\n    # BEGIN SOLUTION\ny = 2\n    # END SOLUTION\nz = 3"
    assert assign.solution_code(src) == "x = 1\ny = 2\nz = 3"


def test_quiet_output_drops_the_kernel_tcp_warning():
    text = "a\n[IPKernelApp] WARNING | Kernel is running over TCP without encryption. All ...\nb"
    assert assign.quiet_output(text) == "a\nb"


# --- otter assign --------------------------------------------------------------------------------


@pytest.mark.notebook
def test_assign_fixture_writes_a_clean_student_notebook_and_an_autograder():
    from assigned import assigned_fixture

    done = assigned_fixture()
    assert done.student.name == "99-fixture-student.ipynb" != FIXTURE.name
    student = nbformat.read(done.student, as_version=4)
    nbformat.validate(student)
    assert assign.student_leaks(nbformat.read(FIXTURE, as_version=4), student) == []
    text = "\n".join(c.source for c in student.cells)
    assert 'PublicChecks("99-fixture")' in text
    assert [q for q in ("q99_1", "q99_2", "q99_4") if f'grader.check("{q}")' in text] == ["q99_1", "q99_2", "q99_4"]
    assert "answer_99_1 = ..." in text and "answer_99_4 = ..." in text
    assert "def alphabeta_value(game, state" in text, "the function header stays for the student to fill in"
    assert not any(c.metadata.get("slideshow", {}).get("slide_type") == "notes" for c in student.cells)
    assert all("slide_type" in c.metadata.get("slideshow", {}) for c in student.cells)
    assert student.metadata["kernelspec"]["display_name"] == "Python 3 (ipykernel)"
    with zipfile.ZipFile(done.autograder) as z:
        assert {"tests/q99_1.py", "tests/q99_2.py", "tests/q99_4.py", "otter_config.json"} <= set(z.namelist())
    listing = json.loads(done.questions.read_text())
    assert [q["name"] for q in listing["questions"] if q["manual"]] == ["q99_3"]
    for path in (done.student, done.autograder, done.student.parent):
        assert stat.S_IMODE(path.stat().st_mode) in (0o644, 0o755)


@pytest.mark.notebook
def test_assign_refuses_a_master_whose_solution_fails_its_tests(tmp_path):
    nb = fixture_notebook()
    i = next(i for i, c in enumerate(nb.cells) if c.source.startswith("answer_99_4 ="))
    nb.cells[i].source = "answer_99_4 = 41  # SOLUTION"
    master = tmp_path / "99-broken.ipynb"
    nbformat.write(nb, master)
    with pytest.raises(RuntimeError, match="q99_4"):
        assign.assign_notebook(master, tmp_path / "out")
    assert not (tmp_path / "out" / "student" / "99-broken-student.ipynb").exists()


@pytest.mark.notebook
@pytest.mark.parametrize("path", CHAPTERS, ids=[p.stem for p in CHAPTERS])
def test_assign_every_chapter(path, tmp_path):
    """Every chapter is a master in otter's format; nothing leaks; and its own solutions, handed in
    as a student would, get every point from the grader (sandbox, probes, judge) and pass every
    public check: the tests split into probe and judge still test what they did.

    The German edition too: its student copy (German prose, the same code and tests, nothing leaked)
    and its autograder hold the same tests. The solutions are handed in in the German copy: filled in,
    its code cells are the English copy's filled in, cell for cell, and the grader runs only code, so
    its grade (every point, every case passed, from the English autograder) is the English copy's too.
    The English copy as handed out gets no point at all. Two sandboxed runs per chapter, not three:
    an English copy of the solutions would repeat the German one's run byte for byte."""
    from chapter04 import fill, solutions

    from gamekit.course import cases, grade
    from gamekit.sandbox import bwrap_path

    nb = nbformat.read(path, as_version=4)
    assert assign.is_assignment(nb), f"{path.name} has no '{assign.CONFIG_MARK}' cell (COURSE.md: Exercise format)"
    done = assign.assign_notebook(path, tmp_path, run_tests=False)  # the grader checks the solutions below
    student = nbformat.read(done.student, as_version=4)
    assert assign.student_leaks(nb, student) == []
    assert not any(assign.is_teacher_only(c) for c in student.cells)
    assert sum('grader.check("' in c.source for c in student.cells) >= 3
    german = assign.assign_notebook(path, tmp_path / "de", run_tests=False, lang="de")  # leak check inside
    student_de = nbformat.read(german.student, as_version=4)
    assert assign.student_leaks(nb, student_de) == []

    def code(copy):
        return [(c.cell_type, c.source) for c in copy.cells if c.cell_type != "markdown"]

    assert code(student_de) == code(student), "the German copy runs exactly the English copy's code"
    assert any(c.source.lstrip().startswith("**Aufgabe") for c in student_de.cells)
    assert not any(c.source.lstrip().startswith("**Exercise") for c in student_de.cells)
    with zipfile.ZipFile(done.autograder) as en, zipfile.ZipFile(german.autograder) as de:
        tests = sorted(n for n in en.namelist() if n.startswith("tests/") or n == cases.SPEC_FILE)
        assert tests and tests == sorted(n for n in de.namelist() if n.startswith("tests/") or n == cases.SPEC_FILE)
        for name in tests:
            same = en.read(name) == de.read(name) or name == cases.SPEC_FILE
            assert same, f"the German autograder's {name} differs from the English one's"
        spec_en, spec_de = (json.loads(z.read(cases.SPEC_FILE)) for z in (en, de))
        assert spec_en["questions"] == spec_de["questions"] and spec_en["answers"] == spec_de["answers"]
    folder = tmp_path / "submissions"
    folder.mkdir()
    right = solutions(nb)
    filled, filled_de = fill(student, nb, right), fill(student_de, nb, right)
    assert code(filled_de) == code(filled), "the German copy, filled in, runs exactly the English copy's code"
    assert [c.cell_type for c in filled_de.cells] == [c.cell_type for c in filled.cells]  # cell for cell
    nbformat.write(filled_de, folder / "solutions-de.ipynb")
    nbformat.write(student, folder / "blank.ipynb")  # the English copy as handed out: no point at all
    results, _ = grade.grade(
        folder, [done.autograder], tmp_path / "grades", cell_timeout=120, jobs=2, trusted_code=bwrap_path() is None
    )
    by = {r.student: r for r in results}
    res, blank = by["solutions-de"], by["blank"]
    assert blank.total == 0, {q: blank.score(q) for q in blank.questions}
    full = {q.name: q.points for q in assign.questions(nb) if not q.manual}
    assert res.error is None and res.notes == [], (res.error, res.notes)
    assert {q: res.score(q) for q in full} == full
    failed = [(q, i) for q, got in res.questions.items() for i, c in enumerate(got["cases"]) if not c["passed"]]
    assert failed == [], f"cases failing on the master's own solutions: {failed}"
    assert {q: blank.score(q) for q in full} == dict.fromkeys(full, 0)


def test_a_test_line_that_shows_a_value_is_flagged():
    """otter runs tests as doctests: `t.search(...)` alone on a line prints a value and fails."""
    from gamekit.course.nbcheck import _bare_expressions

    body = "t = f()\nt.search(3)\nfor _ in range(3):\n    t.step()\n    x.append(1)\n"
    body += "def g():\n    h()\n_ = t.search(4)\nassert t"
    assert [p.split(" is ")[0] for p in _bare_expressions(body)] == ["test line 2", "test line 4"]
    assert _bare_expressions("assert (") and _bare_expressions('"""doc"""\nassert 1') == []


@pytest.mark.notebook
def test_assign_all_reuses_what_did_not_change_and_reports_progress(tmp_path, capsys):
    """Without running the solutions' tests (otter's own run of the notebook): reuse is the same with them,
    and `test_assign_refuses_a_master_whose_solution_fails_its_tests` runs them."""
    master = tmp_path / FIXTURE.name
    master.write_bytes(FIXTURE.read_bytes())
    out = tmp_path / "out"
    first = assign.assign_all([master], out, run_tests=False, jobs=2)
    err = capsys.readouterr().err
    assert "[1/1] 99-fixture: done" in err and "reused" not in err
    stamp = first[0].student.stat().st_mtime_ns
    again = assign.assign_all([master], out, run_tests=False, jobs=2)
    assert "reused 1 of 1" in capsys.readouterr().err
    assert again == first and again[0].student.stat().st_mtime_ns == stamp
    # a change of the master, or a student copy edited by hand, makes the lesson again
    nb = nbformat.read(master, as_version=4)
    nb.cells[0].source += " (changed)"
    nbformat.write(nb, master)
    assert assign.assign_key(master, False, False) != assign.assign_key(FIXTURE, False, False)
    assert assign.assign_key(master, True, False) != assign.assign_key(master, False, False)  # the options count
    assign.assign_all([master], out, run_tests=False)
    assert "[1/1] 99-fixture: done" in capsys.readouterr().err
    first[0].student.write_text("{}", encoding="utf-8")
    assign.assign_all([master], out, run_tests=False)
    assert "reused" not in capsys.readouterr().err


@pytest.mark.slow  # needs the assigned fixture (otter assign, 10-15 s): not in the quick loop
def test_a_class_copys_check_gives_a_short_hint_and_writes_no_file(tmp_path, monkeypatch):
    """The class copy's init cell and a check, run as a student runs them: a failing check is "not yet"
    and its hint in two lines (no doctest trace, no paths into Python's library), a passing one says
    that only the form is checked; nothing is written beside the notebook."""
    import shutil

    from assigned import assigned_fixture

    done = assigned_fixture()
    shutil.copy(done.student, tmp_path / done.student.name)
    monkeypatch.chdir(tmp_path)
    nb = nbformat.read(done.student, as_version=4)
    init = next(c.source for c in nb.cells if "PublicChecks(" in c.source)
    env: dict = {}
    exec(init, env)
    wrong = env["grader"].check("q99_1", {"answer_99_1": "eleven"})
    text = repr(wrong)
    assert text.splitlines() == ["q99_1: not yet.", "Hint: answer_99_1 should be a list of moves, each 3, 5 or 11"]
    assert "Traceback" not in wrong._repr_html_() and "doctest" not in wrong._repr_html_()
    right_form = env["grader"].check("q99_1", {"answer_99_1": [5]})
    assert right_form.passed and "hidden tests decide" in repr(right_form)
    assert sorted(p.name for p in tmp_path.iterdir()) == [done.student.name]  # no .OTTER_LOG


@pytest.mark.slow  # needs the assigned fixture (otter assign, 10-15 s): not in the quick loop
def test_a_renamed_class_copy_still_checks(tmp_path, monkeypatch):
    """Saved as bob.ipynb (the form `grade` collects), beside other notebooks, the copy's first cell
    finds its own tests; where no notebook carries them, the error says what to do."""
    import shutil

    from assigned import assigned_fixture

    done = assigned_fixture()
    (tmp_path / "alice-notes.ipynb").write_text('{"cells": [], "metadata": {}}', encoding="utf-8")
    shutil.copy(done.student, tmp_path / "bob.ipynb")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("JPY_SESSION_NAME", raising=False)
    init = next(c.source for c in nbformat.read(done.student, as_version=4).cells if "PublicChecks(" in c.source)
    env: dict = {}
    exec(init, env)
    assert repr(env["grader"].check("q99_1", {"answer_99_1": "eleven"})).startswith("q99_1: not yet.")
    (tmp_path / "bob.ipynb").unlink()
    with pytest.raises(FileNotFoundError, match="run this notebook from the folder it is saved in"):
        exec(init, {})
