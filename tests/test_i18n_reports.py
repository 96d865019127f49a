"""What students and teachers read after the work is done speaks the language in force (issue 38):
the feedback page after grading, the tournament's leaderboard with its method note, and
check_game's verdicts. In English every page is what it was; in German the page says
`<html lang="de">` and shows the catalogue's German instead of the English sentence.

The German sentences come from the catalogue (gamekit/locale/de/LC_MESSAGES/gamekit.po): a
German assertion is made only once the catalogue translates its string (`translated` skips the
test before that), while the pages' language and everything that is no sentence (data, identifiers,
which hints are shown) is checked in both languages. Fast tier: no notebook, no browser, no
sandbox (the tournament is played in-process by trusted sample agents).
"""

from __future__ import annotations

import os
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import nbformat
import pytest
from test_results_stats import round_robin

from gamekit import i18n
from gamekit.course import feedback, grade
from gamekit.games.nim import Nim
from gamekit.i18n import use_language
from gamekit.stats import COVERAGE_CHECKED
from gamekit.testing import GameCheckError, check_game
from gamekit.tournament import results as board
from gamekit.tournament.html import leaderboard_html
from gamekit.tournament.results import Results
from gamekit.tournament.runner import Tournament

AGENTS = Path(__file__).parent / "tournament_agents"


def translated(msgid: str, context: str | None = None) -> str:
    """`msgid` in German from the catalogue; the test is skipped while the catalogue does not
    translate it yet (the German strings are merged into the catalogue separately)."""
    german = i18n._translations("de")
    said = german.pgettext(context, msgid) if context else german.gettext(msgid)
    if said == msgid:
        pytest.skip(f"the German catalogue does not translate {msgid!r} yet")
    return said


def translated_plural(singular: str, plural: str, n: int) -> str:
    """The German form for `n` of a plural message (skipped like `translated` while untranslated)."""
    said = i18n._translations("de").ngettext(singular, plural, n)
    if said in (singular, plural):
        pytest.skip(f"the German catalogue does not translate {singular!r} yet")
    return said


def page_language(page: str) -> str | None:
    """The `lang` of a page's <html> element."""
    found: list[str | None] = []

    class Html(HTMLParser):
        def handle_starttag(self, tag, attrs):
            if tag == "html" and not found:
                found.append(dict(attrs).get("lang"))

    Html().feed(page)
    return found[0] if found else None


# --- the feedback page ----------------------------------------------------------------------------


def _case(cid: str, name: str, hidden: bool, hint: str = "") -> dict:
    return {"id": cid, "names": [name], "hidden": hidden, "probe": None, "calls": [], "points": float(hidden),
            "failure_message": hint, "judge": ""}  # fmt: skip


def _grader(tmp_path: Path) -> grade.Autograder:
    questions = [
        {"name": "q1_1", "points": 1.0, "manual": False,
         "cases": [_case("a", "answer_1_1", False, "must be a list"), _case("b", "answer_1_1", True)]},
        {"name": "q1_2", "points": 1.0, "manual": False,
         "cases": [_case("c", "answer_1_2", False, "must be a pair"), _case("d", "answer_1_2", True)]},
        {"name": "q1_3", "points": 2.0, "manual": True, "cases": []},
    ]  # fmt: skip
    spec = {"version": 1, "assignment": "01-x", "lesson": [], "answers": [], "questions": questions}
    qs = [{"name": q["name"], "points": q["points"], "manual": q["manual"]} for q in questions]
    return grade.Autograder("01-x", tmp_path / "01-x.zip", qs, spec)


def _graded(tmp_path: Path) -> tuple[grade.SubmissionResult, grade.Autograder]:
    """A real grading's result, made in the language in force: a syntax error in exercise 1.1, a blank
    answer (still `...`) in exercise 1.2, a hand-graded exercise not graded yet."""
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_markdown_cell("**Exercise 1.1** (predict)"),
        nbformat.v4.new_code_cell("answer_1_1 = [3, 5"),
        nbformat.v4.new_code_cell('grader.check("q1_1")'),
        nbformat.v4.new_markdown_cell("**Exercise 1.2** (compute)"),
        nbformat.v4.new_code_cell("answer_1_2 = ..."),
        nbformat.v4.new_code_cell('grader.check("q1_2")'),
    ]
    blank = "answer_1_2 cannot be graded: a value of type builtins.ellipsis is not plain data; allowed: None"
    run = grade.SandboxRun(failed={1: "SyntaxError"}, names={"answer_1_2": {"why": blank}})
    verdicts = {cid: {"passed": False, "why": "x"} for cid in "abcd"}
    grader = _grader(tmp_path)
    sub = grade.Submission("bob", tmp_path / "bob.ipynb", "01-x")
    return grade.assemble(sub, grader, nb, run, verdicts), grader


def test_the_feedback_page_speaks_english_as_before_and_german_when_asked(tmp_path):
    res, grader = _graded(tmp_path)
    page = feedback.feedback_html(res, grader)
    assert page_language(page) == "en"
    assert "<title>01-x: feedback for bob</title>" in page and "<h2>Notes</h2>" in page
    assert "<th>exercise</th><th>points</th><th>details</th>" in page
    assert "Exercise 1.1 (cell 1) has a syntax error: fix it so that the cell runs, then run the check again" in page
    assert "not answered: `answer_1_2` is still `...`" in page and "must be a pair" not in page
    assert "public checks passed: 0 of 1<br>hint: must be a list" in page
    assert "0 of 2 points from the autograder; up to 2 more points from exercises your teacher grades" in page
    assert "graded by your teacher: up to 2 points, not given yet" in page

    with use_language("de"):
        res, grader = _graded(tmp_path)  # grading writes its notes in the language in force, too
        page = feedback.feedback_html(res, grader)
    assert page_language(page) == "de"
    assert res.blank == ["q1_2"] and "must be a pair" not in page, "a blank answer gets no form hints in German either"
    assert "must be a list" in page, "the teacher's hint is shown as the teacher wrote it"
    heading = translated("Notes", "heading of the feedback page")
    assert f"<h2>{heading}</h2>" in page and "<h2>Notes</h2>" not in page
    passed = translated("public checks passed: {passed} of {total}").format(passed=0, total=1)
    hint = translated("hint: {hint}").format(hint="must be a list")
    assert f"{passed}<br>{hint}" in page and "public checks passed" not in page
    blank = translated("not answered: `{name}` is still `...`").format(name="answer_1_2")
    assert blank in page and "not answered" not in page
    waiting = translated_plural(
        "graded by your teacher: up to {points} point, not given yet",
        "graded by your teacher: up to {points} points, not given yet",
        2,
    )
    assert waiting.format(points="2") in page and "graded by your teacher" not in page
    summary = translated_plural(
        "{auto} of {possible} points from the autograder; up to {pending} more point from exercises your "
        "teacher grades (not given yet)",
        "{auto} of {possible} points from the autograder; up to {pending} more points from exercises your "
        "teacher grades (not given yet)",
        2,
    )
    assert summary.format(auto="0", possible="2", pending="2") in page and "from the autograder" not in page
    exercise = translated("Exercise {number}").format(number="1.2")
    assert f"<td>{exercise}</td>" in page and "<td>Exercise 1.2</td>" not in page


# --- the leaderboard ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def tournament(tmp_path_factory) -> Results:
    """A real tournament of three sample agents on tic-tac-toe, played in-process (no sandbox)."""
    folder = tmp_path_factory.mktemp("board")
    files = [AGENTS / "first_free.py", AGENTS / "random_mover.py", AGENTS / "perfect.py"]
    t = Tournament(folder / "t.sqlite", files, game="tictactoe", starts=1, seed=1, sandbox=False)
    t.run(workers=1)
    t.close()
    return Results(folder / "t.sqlite")


def test_the_leaderboard_speaks_english_as_before_and_german_when_asked(tournament):
    page = leaderboard_html(tournament, reps=20)
    assert page_language(page) == "en"
    assert "<h1>Class tournament: tictactoe</h1>" in page and "<h2>Standings</h2>" in page
    assert "<b>No intervals</b>: too few games" in page and "The order of the board is not settled" in page
    assert "perfect (solver) vs first legal move, start 1, seats swapped" in page
    assert "Dot chart: ratings of 3 agents, best first, no intervals (too few games)" in page

    with use_language("de"):
        page = leaderboard_html(tournament, reps=20)
    assert page_language(page) == "de"
    assert "perfect (solver)" in page and "first legal move" in page, "agents keep their names"
    title = translated("Class tournament: {game}").format(game="tictactoe")
    assert f"<h1>{title}</h1>" in page and "Class tournament" not in page
    assert f"<h2>{translated('Standings')}</h2>" in page and "Standings" not in page
    said = translated("{first} vs {second}, start {start}, seats swapped")
    assert said.format(first="perfect (solver)", second="first legal move", start=1) in page
    assert "seats swapped" not in page
    alt = translated("Dot chart: ratings of {n} agents, best first, no intervals (too few games): {ratings}")
    assert alt.split("{ratings}")[0].format(n=3) in page and "Dot chart" not in page
    note = translated("<b>No intervals</b>: {reason}. The order of the board is not settled by these games.")
    assert note.split("{reason}")[0] in page and "The order of the board is not settled" not in page


def test_the_method_note_and_the_neighbours_speak_the_language_in_force():
    res = round_robin(5)  # five game pairs per pairing: intervals, and each two neighbours compared
    limits = {"move_seconds": 1.0, "bank_seconds": 2.0, "startup_seconds": 5.0, "memory_mb": 64.0}
    res.config = {"seed": 0, "game": "nim", "format": "round-robin", "starts": 5, "limits": limits}
    for record in res.records:
        record.update(names=list(record["agents"]), winner=None, reason="", detail="", shown=[""])
    assert board.coverage_text() == COVERAGE_CHECKED.text(), "the method note's range is the one stats states"
    assert board.interval_method() == board.INTERVAL_METHOD and "1,500 Elo" in board.INTERVAL_METHOD
    english = res.table()
    assert f"intervals: {board.INTERVAL_METHOD}" in english and "3 neighbour comparisons" in english
    page = leaderboard_html(res)
    assert page_language(page) == "en" and "The bar is the 95 % profile likelihood intervals" in page

    with use_language("de"):
        text, page = res.table(), leaderboard_html(res)
        method = board.interval_method()
    assert page_language(page) == "de"
    assert board.INTERVAL_METHOD.startswith("95 % profile likelihood intervals"), "ratings.json keeps English"
    german = translated(
        "95 % profile likelihood intervals, widened by the game pairs' design effect, with Student's t "
        "(chosen because they follow the likelihood where a pairing is one-sided or an agent unbeaten, "
        "where a symmetric interval would claim an end the games do not support, and treat the pair as "
        "the unit; checked: {checked})"
    )
    assert method.startswith(german.split("{checked}")[0]) and method in text
    assert "profile likelihood intervals, widened" not in text + page
    separator = translated(",", "thousands separator")
    assert f"1{separator}500 Elo" in method
    comparisons = translated_plural("{n} neighbour comparisons ({note}):", "{n} neighbour comparisons ({note}):", 3)
    assert comparisons.split("(")[0].format(n=3) in text and "neighbour comparisons" not in text


def test_the_notes_of_ratings_json_stay_english_in_a_german_process():
    code = "from gamekit.tournament import results as r; print(r.INTERVAL_METHOD == r.interval_method())"
    english = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    env = {**os.environ, "GAMEKIT_LANG": "de"}
    code = "from gamekit.tournament import results as r; print(r.INTERVAL_METHOD[:40]); print(r.HOLM_NOTE[:20])"
    german = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert english.stdout.split() == ["True"], english.stderr
    assert german.stdout.splitlines() == [board.INTERVAL_METHOD[:40], board.HOLM_NOTE[:20]], german.stderr


# --- check_game's verdicts ------------------------------------------------------------------------------


class NotZeroSum(Nim):
    def utility(self, state, player):
        return 1.0  # both players win


def test_a_check_game_verdict_speaks_the_language_in_force_and_keeps_its_property():
    with pytest.raises(GameCheckError) as english:
        check_game(NotZeroSum([1, 2]), games=10)
    assert english.value.prop == "utility" and english.value.path
    assert str(english.value) == (
        "utility: not zero-sum: utility for player 0 is 1.0, for player 1 1.0 (they must add up to 0) "
        f"(after the moves {list(english.value.path)!r} from the start)"
    )
    report = check_game(Nim([1, 2]), games=10)
    assert str(report).startswith("Nim: all 11 properties hold on 8 positions from 10 random games;")

    with use_language("de"):
        with pytest.raises(GameCheckError) as german:
            check_game(NotZeroSum([1, 2]), games=10)
        said = str(check_game(Nim([1, 2]), games=10))
    assert german.value.prop == "utility" and german.value.path == english.value.path, "the verdict stays data"
    assert str(german.value).startswith("utility: "), "the property keeps its name"
    detail = translated("not zero-sum: utility for player 0 is {first}, for player 1 {second} (they must add up to 0)")
    where = translated("after the moves {moves} from the start").format(moves=repr(list(german.value.path)))
    assert str(german.value) == f"utility: {detail.format(first=1.0, second=1.0)} ({where})"
    assert "not zero-sum" not in str(german.value) and "from the start" not in str(german.value)
    whole = translated(
        "{game}: all {properties} properties hold on {positions} positions from {games} random games; "
        "solve, minimax, alpha-beta and MCTS agree on {agreement} small positions ({seconds} s)"
    )
    assert said.startswith(whole.split("{agreement}")[0].format(game="Nim", properties=11, positions=8, games=10))
