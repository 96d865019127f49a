"""Moodle and Canvas: submissions in (unpacked as hostile input), grades and feedback out (only
two columns of the teacher's worksheet change, byte for byte).

The fast tests fill worksheets from made-up results; the `notebook` test grades a 30-student
Moodle archive through the command line, in the sandbox, into the worksheet.
"""

from __future__ import annotations

import csv
import io
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "fixtures"))

import moodle
from moodle import FEEDBACK, GRADE

from gamekit.course import grade, lms

ROOT = Path(__file__).resolve().parent.parent
PIDS = list(range(100001, 100031))  # 30 participants in the archive


def _grader() -> grade.Autograder:
    questions = [
        {"name": "q1", "points": 1.0, "manual": False},
        {"name": "q2", "points": 2.0, "manual": False},
        {"name": "q3", "points": 1.0, "manual": True},
    ]
    return grade.Autograder("99-fixture", Path("x.zip"), questions, {"questions": []})


def _result(student: str, q1: float, q2: float, hint: str = "a list of moves") -> grade.SubmissionResult:
    res = grade.SubmissionResult(student, "99-fixture", Path(f"{student}/lesson.ipynb"))
    for name, score, possible in (("q1", q1, 1.0), ("q2", q2, 2.0)):
        res.questions[name] = {
            "score": score,
            "possible": possible,
            "cases": [
                {"hidden": False, "passed": score > 0, "hint": None if score else hint, "message": None},
                {"hidden": True, "passed": score == possible, "hint": None, "message": "SECRET hidden test code"},
            ],
        }
    return res


def _cells(data: bytes) -> list[list[str]]:
    return list(csv.reader(io.StringIO(data.decode("utf-8-sig"), newline="")))


@pytest.mark.parametrize("language", ["en", "de"])
def test_the_worksheet_changes_only_grade_and_feedback_of_graded_participants(tmp_path, language):
    sheet = tmp_path / "worksheet.csv"
    participants = PIDS[:6] + [100099]  # 100099 handed in nothing
    rows = moodle.worksheet_rows(participants, language)
    sheet.write_bytes(moodle.worksheet_bytes(rows))
    results = [_result(str(p), 1.0, 2.0 if p % 2 else 0.0) for p in PIDS[:6]] + [_result("555", 1.0, 2.0)]
    done = lms.fill_moodle_worksheet(sheet, results, _grader())
    assert done.filled == [str(p) for p in PIDS[:6]] and done.without_row == ["555"] and done.untouched == ["100099"]
    filled = sheet.read_bytes()
    # what Moodle itself would have written with these two cells: byte for byte the same file
    sep = "," if language == "de" else "."
    expected = {
        p: (f"{(75 if p % 2 else 25)}{sep}00", lms.moodle_feedback(r, _grader())) for p, r in zip(PIDS, results)
    }
    assert filled == moodle.worksheet_bytes(moodle.worksheet_rows(participants, language, expected))
    before, after = _cells(moodle.worksheet_bytes(rows)), _cells(filled)
    changed = {(i, k) for i, (a, b) in enumerate(zip(before, after)) for k in range(len(a)) if a[k] != b[k]}
    assert {k for _, k in changed} == {GRADE, FEEDBACK} and after[-1] == before[-1]  # 100099 as it was
    comment = after[1][FEEDBACK]
    assert "q2: 2 of 2" in comment and "\n" in comment and "graded by your teacher" in comment
    assert "SECRET" not in filled.decode() and "hidden" not in comment


def test_feedback_gives_points_and_the_hints_of_failed_public_checks_only():
    text = lms.moodle_feedback(_result("1", 1.0, 0.0, hint="count <the> nodes & edges"), _grader())
    assert "<p>q2: 0 of 2; public checks passed 0 of 1; hint: count &lt;the&gt; nodes &amp; edges.</p>" in text
    assert (
        "99-fixture: 1 of 3 points from the autograder; up to 1 more point from exercises your teacher grades" in text
    )
    assert "<p>q3: graded by your teacher, up to 1 point (not given yet).</p>" in text and "SECRET" not in text


def test_the_worksheet_is_found_by_its_content_not_by_words_or_positions(tmp_path):
    rows = moodle.worksheet_rows(PIDS[:4], "de")
    # columns in another order, headers in a language the code has no word for (except the named feedback)
    order = [9, 2, 0, 3, 1, 4, 5, 8, 7, 6]
    shuffled = [[r[k] for k in order] for r in rows]
    shuffled[0] = ["Commentaire", "Courriel", "Identifiant", "Statut", "Nom", "Note", "Note maximale", "x", "y", "z"]
    sheet = tmp_path / "w.csv"
    sheet.write_bytes(moodle.worksheet_bytes(shuffled))
    with pytest.raises(ValueError, match="--feedback-column"):
        lms.fill_moodle_worksheet(sheet, [_result(str(PIDS[0]), 1, 2)], _grader())
    assert sheet.read_bytes() == moodle.worksheet_bytes(shuffled)  # nothing changed
    done = lms.fill_moodle_worksheet(sheet, [_result(str(PIDS[0]), 1, 2)], _grader(), feedback_column="Commentaire")
    after = _cells(sheet.read_bytes())
    assert done.filled == [str(PIDS[0])] and after[1][5] == "75,00" and after[1][0].startswith("<p>99-fixture")


def test_a_worksheet_without_numbers_or_ids_is_refused_and_left_alone(tmp_path):
    rows = moodle.worksheet_rows(PIDS[:3], "en")
    for r in rows[1:]:
        r[5] = "Pass / fail scale"
    sheet = tmp_path / "w.csv"
    sheet.write_bytes(moodle.worksheet_bytes(rows))
    with pytest.raises(ValueError, match="grade column"):
        lms.fill_moodle_worksheet(sheet, [_result(str(PIDS[0]), 1, 2)], _grader())
    (tmp_path / "broken.csv").write_bytes(b'Identifier,Grade\n"Participant 1,')
    with pytest.raises(ValueError, match="not a CSV file"):
        lms.fill_moodle_worksheet(tmp_path / "broken.csv", [], _grader())


def test_csv_cells_keep_their_bytes_through_quotes_and_line_breaks():
    data = b'\xef\xbb\xbfa,"b ""q"", c","line\none"\r\n,x,\n'
    bom, rows = lms.read_csv_cells(data)
    assert bom == 3 and [[c.text for c in r] for r in rows] == [["a", 'b "q", c', "line\none"], ["", "x", ""]]
    assert all(data[c.start : c.end].decode() == lms.php_csv_field(c.text) or c.text == "a" for c in rows[0])


def test_the_canvas_gradebook_gets_scores_in_the_assignments_column_only(tmp_path):
    users = [2001, 2002, 2003]
    book = tmp_path / "grades.csv"
    book.write_bytes(moodle.canvas_gradebook_bytes(users))
    done = lms.fill_canvas_gradebook(
        book, [_result("2001", 1, 2), _result("2003", 0, 1), _result("7", 1, 1)], _grader()
    )
    assert done.filled == ["2001", "2003"] and done.untouched == ["2002"] and done.without_row == ["7"]
    # 3 of 4 points, scaled to the column's 20 points possible
    assert book.read_bytes() == moodle.canvas_gradebook_bytes(users, graded={2001: "15.00", 2003: "5.00"})
    with pytest.raises(ValueError, match="--canvas-column"):
        lms.fill_canvas_gradebook(book, [], grade.Autograder("07-mcts", Path("x"), [], {}))


def _archive_notebooks(count: int) -> dict[int, bytes]:
    nb = {"cells": [], "metadata": {"otter": {"assignment_name": "99-fixture"}}, "nbformat": 4, "nbformat_minor": 5}
    return {pid: json.dumps(nb).encode() for pid in PIDS[:count]}


ATTACKS = {"symlink": 100026, "dotdot": 100027, "empty": 100028, "not-a-notebook": 100029}


def test_moodles_archive_is_unpacked_safely_and_names_students_by_participant_id(tmp_path):
    archive = tmp_path / "submissions.zip"
    moodle.moodle_archive(archive, _archive_notebooks(25) | {100030: b"{}"}, ATTACKS)
    got = lms.moodle_submissions(archive, tmp_path / "out")
    assert got.participants == {str(p) for p in PIDS}
    handed_in = sorted(p.name for p in (tmp_path / "out").iterdir() if any(p.glob("*.ipynb")))
    assert handed_in == [str(p) for p in PIDS[:25]] + ["100030"]
    assert not (tmp_path / "escaped.ipynb").exists() and not list(tmp_path.rglob("escaped*"))
    assert all(not p.is_symlink() for p in (tmp_path / "out").rglob("*"))
    for kind, pid in ATTACKS.items():
        notes = " ".join(got.problems[str(pid)])
        assert "no notebook handed in" in notes, kind
        assert {
            "symlink": "symbolic link",
            "dotdot": "'..'",
            "empty": "no notebook",
            "not-a-notebook": "not a notebook",
        }[kind] in notes
    assert set(got.problems) == {str(p) for p in ATTACKS.values()}  # nobody else paid for them
    found = grade.find_submissions(tmp_path / "out")
    assert len(found) == 26 and all(s.student.isdigit() for s in found)
    assert not any("Müller" in str(s.path) for s in found)  # names stay out of the grading folder


def test_an_oversized_or_unreadable_archive_costs_the_student_not_the_class(tmp_path, monkeypatch):
    monkeypatch.setattr(lms, "FILE_BYTES", 1000)
    archive = tmp_path / "a.zip"
    notebooks = _archive_notebooks(3)
    notebooks[PIDS[1]] = b"{" + b" " * 5000 + b"}"  # compresses to almost nothing, unpacks past the limit
    moodle.moodle_archive(archive, notebooks, {})
    got = lms.moodle_submissions(archive)
    assert "larger than 1,000 bytes" in " ".join(got.problems[str(PIDS[1])])
    assert sorted(p.name for p in got.folder.iterdir() if any(p.glob("*.ipynb"))) == [str(PIDS[0]), str(PIDS[2])]
    shutil.rmtree(got.folder)  # a temporary folder of the caller's to remove
    (tmp_path / "plain.zip").write_bytes(b"not a zip")
    with pytest.raises(ValueError, match="not a zip archive"):
        lms.moodle_submissions(tmp_path / "plain.zip")


def test_an_unpacked_moodle_folder_is_read_like_the_archive(tmp_path):
    src = tmp_path / "src"
    ok = src / moodle.folder_name(0, 100001)
    ok.mkdir(parents=True)
    (ok / "mine.ipynb").write_text("{}")
    evil = src / moodle.folder_name(1, 100002)
    evil.mkdir()
    (evil / "link.ipynb").symlink_to("/etc/passwd")
    (src / moodle.folder_name(2, 100003)).symlink_to(tmp_path)
    got = lms.moodle_submissions(src, tmp_path / "out")
    assert (tmp_path / "out" / "100001" / "mine.ipynb").read_text() == "{}"
    assert "symbolic link" in " ".join(got.problems["100002"]) and "symbolic link" in " ".join(got.problems["100003"])
    assert lms.is_moodle_layout(src) and not lms.is_moodle_layout(tmp_path / "out")


@pytest.mark.notebook
def test_a_30_student_moodle_archive_is_graded_into_the_german_worksheet(tmp_path):
    """Through the command line: Moodle's archive in, sandboxed grading, the worksheet filled in place."""
    import nbformat
    from assigned import assigned_fixture
    from submissions import make_submission

    done = assigned_fixture()
    student_nb = nbformat.read(done.student, as_version=4)
    kinds = ["all-correct", "all-blank", "wrong-answers", "too-many-nodes", "syntax-error"]
    notebooks = {
        pid: nbformat.writes(make_submission(student_nb, kinds[k % len(kinds)])).encode()
        for k, pid in enumerate(PIDS[:25])
    }
    notebooks[100030] = notebooks[PIDS[0]]  # a participant the worksheet has no row for
    archive = tmp_path / "Lesson 99-Alle Abgaben.zip"
    moodle.moodle_archive(archive, notebooks, ATTACKS)
    sheet_rows = moodle.worksheet_rows(PIDS[:29] + [100031, 100032], "de")  # 100031/2 handed in nothing
    sheet = tmp_path / "Bewertungen.csv"
    original = moodle.worksheet_bytes(sheet_rows)
    sheet.write_bytes(original)
    run = subprocess.run(
        [sys.executable, "-m", "gamekit.course", "grade", str(archive), "--autograder", str(done.autograder),
         "--grades", str(tmp_path / "grades"), "--moodle-worksheet", str(sheet), "--timeout", "120", "--jobs", "2"],
        capture_output=True, text=True, timeout=1500, cwd=ROOT,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-3000:]
    assert "25 row(s) filled" in run.stdout and "6 left as they were" in run.stdout
    # the participant who uploaded only a PDF is told apart from those who uploaded nothing
    assert "with no notebook: 100029 (uploaded: answers.pdf)" in run.stdout, run.stdout
    # the hand-graded exercise: one page with every graded participant's answer, and the points file
    page = (tmp_path / "grades" / "hand" / "99-fixture" / "exercise-99.3.html").read_text(encoding="utf-8")
    assert page.count("<section>") == 25 and "merge-points" in run.stdout  # the worksheet's 25 with a notebook
    # a participant the worksheet does not have is not graded at all (ids are checked against it)
    assert "is for participant 100030, who is not in the worksheet: not graded" in run.stderr
    before, after = _cells(original), _cells(sheet.read_bytes())
    changed = {k for a, b in zip(before, after) for k in range(len(a)) if a[k] != b[k]}
    assert changed == {GRADE, FEEDBACK}
    values = {int(r[0].removeprefix("Teilnehmer/in")): (r[GRADE], r[FEEDBACK]) for r in after[1:]}
    # every other byte as it was: the very file Moodle would write with these two columns
    everyone = PIDS[:29] + [100031, 100032]
    graded = {p: values[p] for p in PIDS[:25]}
    assert sheet.read_bytes() == moodle.worksheet_bytes(moodle.worksheet_rows(everyone, "de", graded))
    for pid in set(ATTACKS.values()) | {100031, 100032}:  # no notebook: the row as it was
        assert values[pid] == (before[everyone.index(pid) + 1][GRADE], before[everyone.index(pid) + 1][FEEDBACK])
    with_csv = {r["student"]: r for r in csv.DictReader((tmp_path / "grades" / "99-fixture.csv").open())}
    possible = sum(q["points"] for q in grade.Autograder.load(done.autograder).questions)
    for k, pid in enumerate(PIDS[:25]):
        total = float(with_csv[str(pid)]["total"])
        assert values[pid][0] == f"{total / possible * 100:.2f}".replace(".", ","), (pid, kinds[k % 5])
        assert "hidden tests" not in values[pid][1] and values[pid][1].startswith("<p>99-fixture: ")
    assert values[PIDS[0]][0] == "80,00"  # all correct: the 4 automatic points of 5 (1 is given by hand)
