"""The page of a hand-graded exercise in a real browser (issue 37): the teacher types the points into
its fields, its button saves the CSV that `merge-points` reads, and a student's answer that holds
markup stays text (nothing of it runs, nothing is fetched)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

import browser_support as bs

from gamekit.course import grade, handgrade

pytestmark = [pytest.mark.browser, pytest.mark.skipif(bs.skip_reason() is not None, reason=str(bs.skip_reason()))]

QUESTIONS = [
    {"name": "q1_1", "points": 1.0, "manual": False},
    {"name": "q1_6", "points": 2.0, "manual": True},
]
ANSWERS = {
    "4711": "A die brings chance.",
    "4712": '<img src="http://evil.example/x.png" onerror="document.title=\'ran\'"> no end',
    "=cmd|' /C calc'!A0": "a name like a formula",
}


def test_the_points_typed_on_the_page_are_saved_as_the_csv_merge_points_reads(tmp_path):
    grader = grade.Autograder("01-x", tmp_path / "01-x.zip", QUESTIONS, {"questions": []})
    results = []
    for who, answer in ANSWERS.items():
        res = grade.SubmissionResult(who, "01-x", tmp_path / "lesson.ipynb")
        res.by_hand = {"q1_6": {"prompt": "**Exercise 1.6** (explain) Why?", "answer": answer}}
        results.append(res)
    handgrade.write_hand_pages(results, grader, tmp_path / "grades")
    page_file = tmp_path / "grades" / "hand" / "01-x" / "exercise-1.6.html"
    typed = {"4711": "2", "4712": "0.5", "=cmd|' /C calc'!A0": ""}
    with bs.chromium() as browser:
        context = browser.new_context(accept_downloads=True)
        page = context.new_page()
        log = bs.PageLog(page)
        page.goto(page_file.as_uri())
        for who, value in typed.items():
            page.locator(f'input[data-participant="{who}"]').fill(value)
        with page.expect_download() as download:
            page.get_by_role("button", name="Save the points as CSV").click()
        saved = tmp_path / download.value.suggested_filename
        download.value.save_as(saved)
        title = page.title()
        context.close()
    assert saved.name == "01-x-exercise-1.6-points.csv"
    assert log.errors == [] and log.blocked == []  # the student's <img> was text: nothing was fetched
    assert title.startswith("01-x: Exercise 1.6") and "ran" not in title
    got = handgrade.read_hand_points(saved, grader, list(ANSWERS))
    assert got.points == {"4711": {"q1_6": 2.0}, "4712": {"q1_6": 0.5}, "=cmd|' /C calc'!A0": {"q1_6": None}}
    assert "'=cmd" in saved.read_text(encoding="utf-8")  # inert when the teacher opens it in a spreadsheet
