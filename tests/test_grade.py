"""Grading submissions (otter run, no Docker): right scores, and no submission can hang the run
or cost another student points.

Fast tests cover the reports on made-up results; the `notebook` test grades the fixture
submissions (tests/fixtures/submissions.py: all correct, all blank, wrong answers, right answer
with too many nodes, an infinite loop, a syntax error, a kernel crash, a deleted check cell)
made from the student notebook of the fixture master, and checks every score.
"""

import csv
import json
import os
import sys
import time
import zipfile
from pathlib import Path

import nbformat
import pytest

sys.path.insert(0, str(Path(__file__).parent / "fixtures"))

from gamekit.course import grade
from gamekit.course.cases import SPEC_FILE

HIDDEN_CODE = "calls == alphabeta(SubtractionGame(15)).nodes - 1"


def _autograder(tmp_path, name="99-fixture"):
    path = tmp_path / f"{name}-autograder.zip"
    questions = [
        {"name": "q1", "points": 1.0, "manual": False, "cases": []},
        {"name": "q2", "points": 2.0, "manual": False, "cases": []},
        {"name": "q3", "points": 1.0, "manual": True, "cases": []},
    ]
    spec = {"version": 1, "assignment": name, "lesson": [], "answers": [], "questions": questions}
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("otter_config.json", json.dumps({"assignment_name": name}))
        z.writestr("tests/q1.py", "")
        z.writestr("tests/q2.py", "")
        z.writestr(SPEC_FILE, json.dumps(spec))
    return path


def _result(student, path, **questions):
    res = grade.SubmissionResult(student, "99-fixture", path)
    for name, (score, possible) in questions.items():
        res.questions[name] = {
            "score": score,
            "possible": possible,
            "cases": [
                {"hidden": False, "passed": score > 0, "hint": None if score else "a list of moves", "message": "x"},
                {"hidden": True, "passed": score == possible, "hint": None, "message": None},
            ],
        }
    return res


def test_autograders_are_found_by_assignment_name(tmp_path):
    zip_path = _autograder(tmp_path)
    found = grade.find_autograders([tmp_path])
    assert list(found) == ["99-fixture"] and found["99-fixture"].zip == zip_path
    assert [q["name"] for q in found["99-fixture"].questions] == ["q1", "q2", "q3"]
    with pytest.raises(ValueError, match="assign"):
        grade.find_autograders([tmp_path / "missing.zip"])


def test_submissions_are_files_or_folders_per_student(tmp_path):
    (tmp_path / "ann.ipynb").write_text(json.dumps({"metadata": {"otter": {"assignment_name": "99-fixture"}}}))
    (tmp_path / "bob").mkdir()
    (tmp_path / "bob" / "whatever.ipynb").write_text("not json")
    (tmp_path / "bob" / ".ipynb_checkpoints").mkdir()
    (tmp_path / "bob" / ".ipynb_checkpoints" / "whatever-checkpoint.ipynb").write_text("{}")
    found = grade.find_submissions(tmp_path)
    assert [(s.student, s.assignment) for s in found] == [("ann", "99-fixture"), ("bob", None)]
    with pytest.raises(ValueError, match="not a folder"):
        grade.find_submissions(tmp_path / "ann.ipynb")


def test_reports_give_a_row_per_student_and_never_show_hidden_tests(tmp_path):
    graders = grade.find_autograders([_autograder(tmp_path)])
    sub = tmp_path / "ann.ipynb"
    sub.write_text(json.dumps({"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    results = [
        _result("ann", sub, q1=(1.0, 1.0), q2=(1.0, 2.0)),
        grade.SubmissionResult("bob", "99-fixture", sub, error="grading did not finish in 300 s"),
    ]
    results[0].questions["q2"]["cases"][1]["message"] = HIDDEN_CODE  # must never be shown
    empty = nbformat.reads(sub.read_text(), as_version=4)
    results[0].missing_checks = grade._missing_checks(empty, graders["99-fixture"])
    [csv_path] = grade.write_reports(results, graders, tmp_path / "grades")
    rows = list(csv.DictReader(csv_path.open()))
    hand = "q3 (by hand, up to 1 point)"  # the header names the points the teacher still gives
    assert [(r["student"], r["q1"], r["q2"], r[hand], r["total"], r["possible"]) for r in rows] == [
        ("ann", "1", "1", "", "2", "3"),
        ("bob", "0", "0", "", "0", "3"),
    ]
    assert "did not finish" in rows[1]["notes"]
    page = (tmp_path / "grades" / "feedback" / "99-fixture" / "ann.html").read_text()
    assert "hidden tests passed: 0 of 1" in page and "graded by your teacher" in page
    assert HIDDEN_CODE not in page and "alphabeta" not in page
    assert "check cells missing for q1, q2" in page


def test_a_stopped_cell_is_named_by_its_exercise_and_replaces_the_hints(tmp_path):
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell("import otter"),
        nbformat.v4.new_markdown_cell("**Exercise 4.3** (compute) Count the nodes."),
        nbformat.v4.new_code_cell("while True: pass"),
        nbformat.v4.new_code_cell('grader.check("q2")'),
        nbformat.v4.new_markdown_cell("**Exercise 4.4** (explain)"),
    ]
    assert grade.exercise_of(nb, 2) == ("Exercise 4.3 (cell 2)", "q2")
    assert grade.exercise_of(nb, 0) == ("cell 0", None)
    graders = grade.find_autograders([_autograder(tmp_path)])
    sub = tmp_path / "cy.ipynb"
    sub.write_text(json.dumps({"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    res = _result("cy", sub, q1=(1.0, 1.0), q2=(0.0, 2.0))
    res.questions["q2"]["cases"][0].update(passed=False, hint="is the root counted?")
    res.stopped = {"q2": "Exercise 4.3 (cell 2): this cell ran longer than 20 s and was stopped"}
    grade.write_reports([res], graders, tmp_path / "grades")
    page = (tmp_path / "grades" / "feedback" / "99-fixture" / "cy.html").read_text()
    assert "Exercise 4.3 (cell 2): this cell ran longer than 20 s" in page
    assert "is the root counted?" not in page  # a hint about an answer that never finished would mislead


@pytest.mark.notebook
def test_fixture_submissions_get_the_expected_scores(tmp_path, artifacts):
    from assigned import assigned_fixture
    from submissions import EXPECTED, write_submissions

    done = assigned_fixture()
    write_submissions(done.student, tmp_path / "submissions")
    start = time.monotonic()
    results, [csv_path] = grade.grade(
        tmp_path / "submissions", [done.autograder], tmp_path / "grades", cell_timeout=10, jobs=2
    )
    seconds = time.monotonic() - start
    got = {r.student: {q: r.score(q) for q in EXPECTED[r.student]} for r in results}
    (artifacts / "grade-fixture.json").write_text(
        json.dumps(
            {
                "seconds": round(seconds, 1),
                "scores": got,
                "per_submission_s": {r.student: round(r.seconds, 1) for r in results},
            },
            indent=1,
        )
    )
    assert got == EXPECTED
    by_student = {r.student: r for r in results}
    assert any("Exercise 99.1" in n and "ran longer than 10 s" in n for n in by_student["infinite-loop"].notes)
    assert "q99_1" in by_student["infinite-loop"].stopped  # its feedback says so instead of a hint
    assert any("Exercise 99.4" in n and "Python died" in n for n in by_student["kernel-crash"].notes)
    rows = {r["student"]: r for r in csv.DictReader(csv_path.open())}
    assert rows["all-correct"]["total"] == "4" and rows["all-correct"]["Exercise 99.3 (by hand, up to 1 point)"] == ""
    for student in EXPECTED:
        page = (tmp_path / "grades" / "feedback" / "99-fixture" / f"{student}.html").read_text()
        assert HIDDEN_CODE not in page and "nodes - 1" not in page
    deleted = (tmp_path / "grades" / "feedback" / "99-fixture" / "deleted-check-cell.html").read_text()
    assert "check cells missing for Exercise 99.2" in deleted
    # one looping submission (10 s) must not make the run wait for it serially, nor hang it
    assert seconds < 600


@pytest.mark.slow  # grading checks for bubblewrap (it starts it) before it looks for the autograder
def test_the_cli_reports_a_missing_autograder(tmp_path, capsys):
    from gamekit.course.__main__ import main

    (tmp_path / "subs").mkdir()
    assert main(["--out", str(tmp_path), "grade", str(tmp_path / "subs")]) == 2
    assert "python -m gamekit.course assign" in capsys.readouterr().err


CHAPTER_04 = Path(__file__).resolve().parent.parent / "notebooks" / "04-game-trees.ipynb"


def _chapter_04_ready() -> bool:
    import nbformat

    from gamekit.course.assign import is_assignment

    return CHAPTER_04.is_file() and is_assignment(nbformat.read(CHAPTER_04, as_version=4))


@pytest.mark.notebook
@pytest.mark.skipif(not _chapter_04_ready(), reason="chapter 04 is not in the exercise format yet")
def test_chapter_04_submissions_get_the_expected_scores(tmp_path, artifacts):
    """The real chapter: its own solutions get every point; a negamax without pruning loses the
    process points of 4.3 only; a loop, a syntax error or a deleted check cell cost what they should."""
    import nbformat
    from chapter04 import submissions

    from gamekit.course.assign import assign_notebook, questions

    done = assign_notebook(CHAPTER_04, tmp_path / "assign", run_tests=False)  # test_assign runs them
    master = nbformat.read(CHAPTER_04, as_version=4)
    folder = tmp_path / "submissions"
    folder.mkdir()
    for student, nb in submissions(nbformat.read(done.student, as_version=4), master).items():
        nbformat.write(nb, folder / f"{student}.ipynb")
    start = time.monotonic()
    # 12 s a cell: the lesson's slowest takes 1.6 s on an idle machine; the endless loop waits for it in full
    results, _ = grade.grade(folder, [done.autograder], tmp_path / "grades", cell_timeout=12, jobs=2)
    seconds = time.monotonic() - start
    points = {q.name: q.points for q in questions(master) if not q.manual}
    got = {r.student: {q: r.score(q) for q in points} for r in results}
    (artifacts / "grade-chapter-04.json").write_text(
        json.dumps({"seconds": round(seconds, 1), "scores": got}, indent=1)
    )
    full = dict(points)
    assert got["all-correct"] == full
    assert got["written-differently"] == full  # [4, 5] for (4, 5), np.int64(35) for 35
    assert got["deleted-check-cell"] == full
    assert sum(got["all-blank"].values()) == 0
    assert got["too-many-nodes"] == {**full, "q4_3": got["too-many-nodes"]["q4_3"]}
    assert 0 < got["too-many-nodes"]["q4_3"] < full["q4_3"], "right value, too many nodes: part of the points"
    assert got["infinite-loop"] == {**full, "q4_1": 0}
    assert got["syntax-error"] == {**full, "q4_2": 0}


def _notebook_bytes(marker: str) -> bytes:
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(f"answer = {marker!r}", id="answer")])
    nb.metadata["otter"] = {"assignment_name": "99-fixture"}
    return nbformat.writes(nb).encode()


def test_submissions_are_read_as_regular_files_only_and_anything_else_is_refused_for_its_student(tmp_path):
    """A link to the teacher's key or master, a linked student folder, a FIFO (would block an open()),
    a device, a hard link: each is refused with a reason, for its student only, and never opened."""
    import os
    import stat

    teacher = tmp_path / "teacher"
    teacher.mkdir()
    (teacher / "id_rsa").write_text("CANARY-intake")
    (teacher / "master.ipynb").write_bytes(_notebook_bytes("the master's solution"))
    subs = tmp_path / "subs"
    subs.mkdir()
    (subs / "ann.ipynb").write_bytes(_notebook_bytes("ann's own"))
    (subs / "bob").mkdir()
    (subs / "bob" / "work.ipynb").write_bytes(_notebook_bytes("bob's own"))
    (subs / "bob" / "key.ipynb").symlink_to(teacher / "id_rsa")
    (subs / "eve.ipynb").symlink_to(teacher / "id_rsa")
    (subs / "mallory").symlink_to(teacher)  # a whole folder of the teacher's, master included
    os.mkfifo(subs / "fifo.ipynb")
    os.link(teacher / "master.ipynb", subs / "hardy.ipynb")
    devices = os.geteuid() == 0
    if devices:
        os.mknod(subs / "dev.ipynb", 0o600 | stat.S_IFCHR, os.makedev(1, 3))  # /dev/null's numbers
    found = {(s.student, s.path.name): s for s in grade.find_submissions(subs)}
    assert found[("ann", "ann.ipynb")].data == _notebook_bytes("ann's own")
    assert found[("ann", "ann.ipynb")].assignment == "99-fixture"
    assert found[("bob", "work.ipynb")].data == _notebook_bytes("bob's own")
    refused = {key: s.refused for key, s in found.items() if s.refused}
    assert refused[("bob", "key.ipynb")] == (
        "bob/key.ipynb is a symbolic link, not a notebook file; submit the notebook file itself"
    )
    assert refused[("eve", "eve.ipynb")] == "eve.ipynb is a symbolic link; submit files, not links"
    assert refused[("mallory", "mallory")] == "mallory is a symbolic link; submit files, not links"
    assert "is a FIFO (named pipe)" in refused[("fifo", "fifo.ipynb")]
    assert "hard link" in refused[("hardy", "hardy.ipynb")]
    if devices:
        assert "is a character device" in refused[("dev", "dev.ipynb")]
    for s in found.values():
        assert s.data is None or b"CANARY" not in s.data and b"master" not in s.data
    assert (subs / "fifo.ipynb").exists() and (teacher / "id_rsa").read_text() == "CANARY-intake"
    # the reports show the refusal, for that student only, and nothing of the target
    graders = grade.find_autograders([_autograder(tmp_path)])
    results = [grade.SubmissionResult(s.student, "99-fixture", s.path) for s in found.values()]
    for res, s in zip(results, found.values()):
        _, run = grade.grade_one(s, graders["99-fixture"], cell_timeout=1) if s.refused else (None, None)
        res.error = run.error if run else None
    [csv_path] = grade.write_reports(results, graders, tmp_path / "grades")
    text = csv_path.read_text() + "".join(p.read_text() for p in (tmp_path / "grades").rglob("*.html"))
    assert "CANARY" not in text and "refused: eve.ipynb is a symbolic link" in text


def test_a_large_or_strangely_named_submission_is_refused_or_named_in_clean_text(tmp_path):
    from gamekit.course import intake

    folder = tmp_path / "subs"
    folder.mkdir()
    (folder / "big.ipynb").write_bytes(b"x" * 1001)
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        with pytest.raises(intake.Refused, match="big.ipynb has 1001 bytes, more than the 1000 allowed"):
            intake.read_notebook(fd, "big.ipynb", "big.ipynb", limit=1000)
        assert intake.read_notebook(fd, "big.ipynb", "big.ipynb", limit=1001) == b"x" * 1001
    finally:
        os.close(fd)
    odd = os.fsencode(str(folder)) + b"/\xff\nname.ipynb"  # not UTF-8, with a line break
    with open(odd, "wb") as f:
        f.write(_notebook_bytes("odd"))
    [sub] = [s for s in grade.find_submissions(folder) if s.data and b"odd" in s.data]
    assert sub.student == "\ufffd name" and sub.student.encode("utf-8")


def test_an_archive_is_unpacked_without_links_or_paths_outside_and_within_its_size(tmp_path):
    import stat

    archive = tmp_path / "class.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("ann/work.ipynb", _notebook_bytes("ann's own"))
        z.writestr("bob.ipynb", _notebook_bytes("bob's own"))
        link = zipfile.ZipInfo("eve/work.ipynb")
        link.external_attr = (stat.S_IFLNK | 0o777) << 16
        z.writestr(link, str(tmp_path / "teacher-secret"))
        z.writestr("../escape.ipynb", _notebook_bytes("outside"))
        z.writestr("/tmp/absolute.ipynb", _notebook_bytes("outside"))
    (tmp_path / "teacher-secret").write_text("CANARY-archive")
    found = {s.student: s for s in grade.find_submissions(archive)}
    assert found["ann"].data == _notebook_bytes("ann's own") and found["bob"].data == _notebook_bytes("bob's own")
    assert found["eve"].refused == "eve/work.ipynb was not unpacked: a symbolic link, not a file"
    assert "outside the archive's folder" in found["escape"].refused
    assert "outside the archive's folder" in found["tmp"].refused  # named as its folder would be
    assert not (tmp_path / "escape.ipynb").exists() and not Path("/tmp/absolute.ipynb").exists()
    from gamekit.course import intake

    bomb = tmp_path / "bomb.zip"
    with zipfile.ZipFile(bomb, "w", compression=zipfile.ZIP_DEFLATED) as z:
        z.writestr("noise.ipynb", os.urandom(1_500_000))  # packs to its size: not a ratio bomb, just too much
    with pytest.raises(ValueError, match="unpacks to more than 1,000,000 bytes"):
        intake.unpack_zip(bomb, tmp_path / "bomb", max_bytes=1_000_000)


def test_time_limits_must_be_positive_numbers_of_seconds(tmp_path):
    (tmp_path / "subs").mkdir()
    for bad in ({"submission_seconds": 0}, {"submission_seconds": -5.0}, {"cell_timeout": float("nan")}):
        with pytest.raises(ValueError, match="must be a positive number of seconds"):
            grade.grade(tmp_path / "subs", [_autograder(tmp_path)], tmp_path / "out", trusted_code=True, **bad)
    assert not (tmp_path / "out").exists()


def test_the_judge_leaves_nothing_of_the_lessons_set_up_in_the_temp_folder(tmp_path, monkeypatch):
    """Lessons 09 and 10 make a temp folder and remove it at exit; the judge ends with os._exit (no
    student's clean-up may run), so its temp folder is one of its own that the grader removes."""
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    setup = (
        "import atexit, shutil, tempfile\n"
        "WORK = tempfile.mkdtemp(prefix='gamekit-lesson-')\n"
        "atexit.register(shutil.rmtree, WORK, True)\n"
    )
    case = {"id": "q1-0", "names": ["answer"], "probe": None, "judge": "assert answer == 1 and WORK", "hidden": True}
    spec = {"lesson": [setup], "questions": [{"name": "q1", "cases": [case]}]}
    grader = type("Grader", (), {"spec": spec, "name": "98-temp"})()
    run = grade.SandboxRun()
    run.names["answer"] = {"value": "1"}
    verdicts = grade._judge(grader, [("ann", run)])
    assert verdicts == {"ann": {"q1-0": {"passed": True, "why": None}}}
    assert list(tmp_path.iterdir()) == []
