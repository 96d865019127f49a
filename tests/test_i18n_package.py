"""What the package's objects say when a lesson prints them speaks the language in force (issue 38).

A game record, a match result, a search's result, an exhaustive check and the strategy table read in
German under `use_language("de")` and byte for byte as before in English. What is stored or sent
(a rating's `too_few`, an entrant's reason, a record's detail, a grading run's notes) stays English
data in any language, and is shown in the language in force by `too_few_text`, `rejection_text`,
`detail_text`, `reason_text` and `sandbox_text`. The German expectations are read from the catalogue
at run time (`de(...)`); a test that needs a translation the catalogue does not hold yet is skipped,
and runs (and fails if a string is shown without gettext) as soon as the catalogue has it.
"""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from german import de, translated

from gamekit import SubtractionGame, TicTacToe, i18n
from gamekit.counting import ExhaustiveCheck, against_every_opponent
from gamekit.course.gradesandbox import (
    AN_EXCEPTION,
    CELL_ALONE,
    CELL_CAP,
    CELL_DIED,
    CELL_IN_EXERCISE,
    CELL_LATE,
    CELL_OTHER,
    NOT_DEFINED,
    NOT_GRADABLE,
    NOT_READ,
    NOT_STARTED,
    NOT_STARTED_IN_TIME,
    PROBE_CAP,
    PROBE_DIED,
    PROBE_FAILED,
    PROBE_LATE,
    PROBE_OTHER,
    SENT_NO_REPORT,
    SENT_TOO_MUCH,
    TOO_MANY_RUNS,
    USED_ITS_TIME,
    exercise_of,
    sandbox_text,
)
from gamekit.games.subtraction import strategy_table
from gamekit.i18n import use_language
from gamekit.match import GameRecord, TournamentResult, play_game, playout, random_start, tournament
from gamekit.players import PerfectPlayer, SmartRandomPlayer
from gamekit.sandbox.outcomes import REASONS, Reason, made_by, reason_text
from gamekit.search import SearchPlayer, SearchResult, alphabeta
from gamekit.stats import TOO_FEW_AGENTS, TOO_FEW_GAMES, robust_ratings, too_few_text
from gamekit.tournament import Limits, Tournament
from gamekit.tournament.referee import DETAILS, MOVE_CAP_DRAW, SYNTAX_ERROR, ZYGOTE_KILLED, check_source, detail_text
from gamekit.tournament.runner import (
    AGAINST_ITSELF,
    AGAINST_RANDOM,
    UNSEEDED_WARNING,
    Entrant,
    rejection_text,
    status_text,
)

AGENTS = Path(__file__).parent / "tournament_agents"
FILES = (
    "gamekit/match.py",
    "gamekit/search.py",
    "gamekit/counting.py",
    "gamekit/stats.py",
    "gamekit/qlearning.py",
    "gamekit/games/subtraction.py",
    "gamekit/tournament/runner.py",
    "gamekit/tournament/referee.py",
    "gamekit/sandbox/outcomes.py",
    "gamekit/course/gradesandbox.py",
)


# --- the catalogue's German, read at run time ----------------------------------------------------


def needs_german(*msgids: str | tuple[str | None, str] | tuple[str | None, str, str]):
    """Skip until the German catalogue translates every one of `msgids`: a msgid, (context, msgid) or
    (None, singular, plural) for a plural."""
    missing = []
    for m in msgids:
        if isinstance(m, str):
            m = (None, m)
        context, msgid, plural = (m[0], m[1], m[2] if len(m) > 2 else None)
        if not translated(msgid, context, plural):
            missing.append(msgid)
    return pytest.mark.skipif(bool(missing), reason=f"the German catalogue does not translate {missing!r} yet")


RECORD_WIN = "{n} moves, {name} (player {seat}) wins"
RECORD_DRAW = "{n} moves, draw"
PAIRED = "{games} games ({pairs} paired starts): {a} won {a_won} ({a_rate}), {b} won {b_won} ({b_rate}), draws {draws}"
UNPAIRED = "{games} games: {a} won {a_won} ({a_rate}), {b} won {b_won} ({b_rate}), draws {draws}"
SEARCH = "value {value}, move {move}, {nodes} nodes, {leaves} leaves, {cutoffs} cutoffs, {table_hits} table hits"
UPPER = (
    "value {value} (upper bound), move {move}, {nodes} nodes, {leaves} leaves, {cutoffs} cutoffs, "
    "{table_hits} table hits"
)
CHECKED = "{name} in seat {seat}: {lines} lines against every opponent, {won} won, {drawn} drawn, {lost} lost"


def _notebook() -> nbformat.NotebookNode:
    new = nbformat.v4
    return new.new_notebook(
        cells=[
            new.new_code_cell("x = 1"),
            new.new_markdown_cell("**Aufgabe 4.3** (berechnen) Wie viele?"),
            new.new_code_cell("answer_4_3 = 2"),
            new.new_code_cell("grader.check('q4_3')"),
        ]
    )


# --- the package marks its strings ---------------------------------------------------------------


def test_the_package_marks_what_lessons_print_for_the_catalogue():
    found: dict[str, set[str]] = {}
    for m in i18n.extract_messages():
        if m.id:
            msgid = m.id[0] if isinstance(m.id, tuple) else m.id
            found.setdefault(msgid, set()).update(loc[0] for loc in m.locations)
    for msgid, where in (
        (RECORD_WIN, "gamekit/match.py"),
        (PAIRED, "gamekit/match.py"),
        (SEARCH, "gamekit/search.py"),
        (CHECKED, "gamekit/counting.py"),
        ("–  (red: no win can be forced)", "gamekit/games/subtraction.py"),
        (TOO_FEW_GAMES, "gamekit/stats.py"),
        ("illegal move", "gamekit/sandbox/outcomes.py"),
        (MOVE_CAP_DRAW, "gamekit/tournament/referee.py"),
        (AGAINST_ITSELF, "gamekit/tournament/runner.py"),
        (UNSEEDED_WARNING, "gamekit/tournament/runner.py"),
        (CELL_IN_EXERCISE, "gamekit/course/gradesandbox.py"),
        (CELL_LATE, "gamekit/course/gradesandbox.py"),
        ("Q-learning ({target})", "gamekit/qlearning.py"),
    ):
        assert where in found.get(msgid, set()), msgid
    assert all(any(f in loc for loc in set().union(*found.values())) for f in FILES)


# --- English: the code's own strings, byte for byte ------------------------------------------------


def test_english_is_the_code_s_own_text_even_after_german_was_in_force():
    game = SubtractionGame()
    with use_language("de"):
        str(playout(game, PerfectPlayer(), SmartRandomPlayer(seed=1), seed=1))
    record = playout(game, PerfectPlayer(), SmartRandomPlayer(seed=1), seed=1)
    assert str(record) == "8 moves, perfect (player 0) wins"
    assert str(play_game(TicTacToe(), [PerfectPlayer(), PerfectPlayer()])) == "9 moves, draw"
    assert str(GameRecord((), (1,), (0,), 1, (-1, 1), ("A", "B"))) == "1 moves, B (player 1) wins"
    result = tournament(game, PerfectPlayer(), SmartRandomPlayer(seed=2), games=40, seed=3, start=random_start())
    assert str(result) == (
        "40 games (20 paired starts): perfect won 38 (95.0%), random (smart end) won 2 (5.0%), draws 0"
    )
    single = TournamentResult(("a", "b"), games=1, wins=[1, 0])
    assert str(single) == "1 games: a won 1 (100.0%), b won 0 (0.0%), draws 0"
    assert str(alphabeta(TicTacToe())) == ("value 0, move 0, 18,297 nodes, 7,330 leaves, 4,237 cutoffs, 0 table hits")
    narrowed = alphabeta(TicTacToe(), TicTacToe().initial_state(), alpha=0, beta=0.5)
    assert str(narrowed) == "value 0 (upper bound), move 0, 16,159 nodes, 6,470 leaves, 3,670 cutoffs, 0 table hits"
    proof = against_every_opponent(TicTacToe(), SearchPlayer(), 0)
    assert str(proof) == "perfect (alpha-beta) in seat 0: 101 lines against every opponent, 99 won, 2 drawn, 0 lost"
    table = strategy_table()
    assert str(table).splitlines()[:3] == [
        "n mod 8 | colour | subtract | small n that differ",
        "-------------------------------------------------",
        "0 | red | –  (red: no win can be forced) | ",
    ]
    assert "3 | blue | 3 or 11 | n=3: 3" in str(table)
    assert table._repr_html_().startswith(
        "<table><thead><tr><th>n mod 8</th><th>colour</th><th>subtract</th><th>small n that differ</th></tr>"
    )
    assert exercise_of(_notebook(), 0) == ("cell 0", None)
    assert exercise_of(_notebook(), 2) == ("Exercise 4.3 (cell 2)", "q4_3"), "a German heading is found too"


def test_in_english_every_shown_text_is_the_stored_text():
    few = robust_ratings(["a", "b"], [(0, 1, 1.0), (0, 1, 0.0)] * 6).too_few
    stored = [
        few,
        UNSEEDED_WARNING,
        AGAINST_ITSELF.format(seat=1, reason="timeout", detail="no answer within 1 s"),
        MOVE_CAP_DRAW.format(moves=9),
        "Exercise 4.3 (cell 54): " + CELL_LATE.format(seconds="30"),
        PROBE_FAILED.format(error="ValueError: no"),
    ]
    for text in stored:
        assert too_few_text(text) == rejection_text(text) == detail_text(text) == sandbox_text(text) == text
    assert [reason_text(r) for r in REASONS] == list(REASONS) == [Reason(r).text for r in REASONS]
    assert status_text("rejected") == "rejected"


def test_every_stored_sentence_is_read_back_into_its_values():
    """What `reworded` needs: a stored sentence gives back the values its template was filled with."""
    values = {
        "seconds": "30",
        "what": "sent something that is not a report",
        "error": "ValueError: a: b",
        "bytes": "1,234",
        "name": "answer_1_1",
        "why": "a function: cannot travel",
        "rounds": "3",
        "number": "4.3",
        "index": "54",
        "moves": "500",
        "kind": "set",
        "reply": "{1, 2}",
        "line": "2",
        "message": "invalid syntax",
        "seat": "1",
        "reason": "timeout",
        "detail": "no answer: within 1 s",
        "agents": "2",
        "least": "3",
        "pairs": "5",
        "games": "10",
    }
    templates = [
        *DETAILS,
        AGAINST_ITSELF,
        AGAINST_RANDOM,
        CELL_IN_EXERCISE,
        CELL_ALONE,
        CELL_LATE,
        CELL_CAP,
        CELL_DIED,
        CELL_OTHER,
        PROBE_LATE,
        PROBE_CAP,
        PROBE_DIED,
        PROBE_OTHER,
        PROBE_FAILED,
        SENT_TOO_MUCH,
        SENT_NO_REPORT,
        NOT_DEFINED,
        NOT_GRADABLE,
        NOT_READ,
        NOT_STARTED,
        NOT_STARTED_IN_TIME,
        USED_ITS_TIME,
        TOO_MANY_RUNS,
        AN_EXCEPTION,
        TOO_FEW_AGENTS,
        TOO_FEW_GAMES,
    ]
    for template in templates:
        found = made_by(template.format(**values), template)
        assert found is not None, template
        assert template.format(**found) == template.format(**values), template
    assert made_by("something else", MOVE_CAP_DRAW) is None


def test_what_is_stored_stays_english_in_german(tmp_path):
    """A tournament's records and entrants, a rating's reason and a syntax error's reason are data: English
    in any language (a record may be made by a cluster worker that speaks another)."""
    bad = tmp_path / "crasher.py"
    bad.write_text('NAME = "crasher"\n\n\ndef agent(game, state):\n    raise ValueError("no move")\n')
    files = [AGENTS / "first_free.py", AGENTS / "random_mover.py", bad]
    limits = Limits(max_moves=3)
    with use_language("de"):
        t = Tournament(tmp_path / "t.sqlite", files, game="tictactoe", starts=1, seed=1, sandbox=False, limits=limits)
        t.run(workers=1)
        entrants = {e.id: e for e in t.entrants()}
        records = t.records()
        t.close()
        few = robust_ratings(["a", "b", "c"], [(0, 1, 1.0), (0, 2, 0.5), (1, 2, 0.0)] * 2).too_few
        problem = check_source("def f(:\n", "x.py")
    crasher = entrants["crasher"]
    assert crasher.status == "rejected"
    assert crasher.reason == AGAINST_RANDOM.format(seat=0, reason="exception", detail="ValueError: no move")
    assert {r["detail"] for r in records} == {MOVE_CAP_DRAW.format(moves=3)}
    assert {r["reason"] for r in records} == {"move cap"}
    assert few == TOO_FEW_GAMES.format(pairs=5, games=10)
    assert problem == SYNTAX_ERROR.format(line=1, message="invalid syntax")


# --- German: the catalogue's translations -----------------------------------------------------------


@needs_german((None, RECORD_WIN, RECORD_WIN), (None, RECORD_DRAW, RECORD_DRAW), (None, PAIRED, PAIRED))
def test_a_real_match_and_its_records_print_in_german():
    game = SubtractionGame()
    with use_language("de"):
        record = playout(game, PerfectPlayer(), SmartRandomPlayer(seed=1), seed=1)
        german_record = str(record)
        draw = str(play_game(TicTacToe(), [PerfectPlayer(), PerfectPlayer()]))
        result = tournament(game, PerfectPlayer(), SmartRandomPlayer(seed=2), games=40, seed=3, start=random_start())
        german_result = str(result)
    assert german_record != str(record)
    assert german_record == de(RECORD_WIN, plural=RECORD_WIN, n=8).format(n=8, name="perfect", seat=0)
    assert draw == de(RECORD_DRAW, plural=RECORD_DRAW, n=9).format(n=9) != "9 moves, draw"
    expected = de(PAIRED, plural=PAIRED, n=20).format(
        games=40,
        pairs=20,
        a="perfect",
        b="random (smart end)",
        a_won=38,
        b_won=2,
        a_rate="95.0%",
        b_rate="5.0%",
        draws=0,
    )
    assert german_result == expected != str(result)
    assert "perfect" in german_result and "random (smart end)" in german_result, "players keep their names"
    assert " games" not in german_result and " won " not in german_result


@needs_german(SEARCH, UPPER, (None, CHECKED, CHECKED), ("thousands separator", ","))
def test_a_search_and_an_exhaustive_check_print_in_german():
    with use_language("de"):
        full = str(alphabeta(TicTacToe()))
        narrowed = str(alphabeta(TicTacToe(), TicTacToe().initial_state(), alpha=0, beta=0.5))
        small = str(SearchResult(1.0, 2, (2,), 1, 1))
        proof = str(ExhaustiveCheck("perfect", 1, lines=1, wins=1))
    sep = de(",", "thousands separator")
    counts = {"nodes": f"18{sep}297", "leaves": f"7{sep}330", "cutoffs": f"4{sep}237", "table_hits": "0"}
    assert full == de(SEARCH).format(value="0", move="0", **counts)
    assert narrowed.startswith(de(UPPER).split("{move}")[0].format(value="0"))
    assert small == de(SEARCH).format(value="1", move="2", nodes="1", leaves="1", cutoffs="0", table_hits="0")
    assert proof == de(CHECKED, plural=CHECKED, n=1).format(name="perfect", seat=1, lines=1, won=1, drawn=0, lost=0)


@needs_german(
    ("strategy table head", "colour"),
    ("strategy table head", "subtract"),
    ("strategy table head", "small n that differ"),
    ("colour of a number", "red"),
    ("colour of a number", "blue"),
    ("between moves", "or"),
    "–  (red: no win can be forced)",
)
def test_the_strategy_table_prints_in_german():
    table = strategy_table()
    with use_language("de"):
        text, html = str(table), table._repr_html_()
    head = " | ".join(
        ["n mod 8", *(de(h, "strategy table head") for h in ("colour", "subtract", "small n that differ"))]
    )
    assert text.splitlines()[0] == head
    either = f" {de('or', 'between moves')} "
    assert f"3 | {de('blue', 'colour of a number')} | 3{either}11 | n=3: 3" in text
    assert de("–  (red: no win can be forced)") in html and "colour" not in html and " or " not in html


@needs_german(CELL_IN_EXERCISE, CELL_ALONE, CELL_LATE, PROBE_FAILED)
def test_a_stopped_cell_and_a_cell_label_read_in_german():
    with use_language("de"):
        assert exercise_of(_notebook(), 2) == (de(CELL_IN_EXERCISE).format(number="4.3", index=2), "q4_3")
        assert exercise_of(_notebook(), 0)[0] == de(CELL_ALONE).format(index=0)
        note = sandbox_text("Exercise 4.3 (cell 54): " + CELL_LATE.format(seconds="30"))
        probe = sandbox_text(PROBE_FAILED.format(error="ValueError: no"))
    label = de(CELL_IN_EXERCISE).format(number="4.3", index=54)
    assert note == f"{label}: {de(CELL_LATE).format(seconds='30')}"
    assert probe == de(PROBE_FAILED).format(error="ValueError: no"), "the error's own words stay as they are"


@needs_german(AGAINST_ITSELF, ("forfeit reason", "timeout"), ("forfeit reason", "exception"), UNSEEDED_WARNING)
def test_a_rejection_and_a_forfeit_read_in_german():
    stored = AGAINST_ITSELF.format(seat=0, reason="timeout", detail="no answer within 1 s")
    entrant = Entrant("x", "x.py", "", status="rejected", reason=stored)
    with use_language("de"):
        shown, status = entrant.reason_text, entrant.status_text
        warning = rejection_text(UNSEEDED_WARNING)
        word = Reason.EXCEPTION.text
    assert shown == de(AGAINST_ITSELF).format(
        seat=0, reason=de("timeout", "forfeit reason"), detail="no answer within 1 s"
    )
    assert status == de("rejected", "a submission's status")
    assert warning == de(UNSEEDED_WARNING) != UNSEEDED_WARNING
    assert word == de("exception", "forfeit reason") and Reason.EXCEPTION.value == "exception"


@needs_german(TOO_FEW_GAMES, MOVE_CAP_DRAW, ZYGOTE_KILLED)
def test_the_reasons_shown_on_boards_read_in_german():
    few = robust_ratings(["a", "b", "c"], [(0, 1, 1.0), (0, 2, 0.5), (1, 2, 0.0)] * 2).too_few
    with use_language("de"):
        shown = too_few_text(few)
        cap = detail_text(MOVE_CAP_DRAW.format(moves=500))
        zygote = detail_text(ZYGOTE_KILLED)
        other = detail_text("ValueError: no move")
    assert shown == de(TOO_FEW_GAMES).format(pairs=5, games=10) != few
    assert cap == de(MOVE_CAP_DRAW).format(moves=500)
    assert zygote == de(ZYGOTE_KILLED)
    assert other == "ValueError: no move"
