"""Code exercises are graded by what the code does: Ex 5.3 through its real public checks and hidden tests.

Ex 5.3 asks for a memoised MinMax `minmax_board_key(g, s, memo)` keyed by (board, player to move)
only, and a small game whose start value it gets wrong. Which wrong values such a memo produces
depends on the order the moves are tried in and on whether end positions are memoised, so the
hidden test asks what the function does (exact where the key is the whole position, a memo of
true values, no position expanded twice, and wrong on the game handed in). Here each submission is
the function a student could write plus the game the student's own search finds with it, run
through the master's own test cells: the public checks as a class copy runs them, the hidden tests
as the grader does (probe in one namespace, plain data, `gamekit.sandbox.judge`).
"""

from __future__ import annotations

import nbformat
import pytest
from conftest import NOTEBOOKS

from gamekit.course import assign, cases
from gamekit.sandbox import judge, plain

MASTER = next(p for p in NOTEBOOKS if p.stem == "05-generalized-nim")

FAITHFUL = {
    "the model (end positions memoised, moves in order)": """
def minmax_board_key(g, s, memo):
    key = (s.board, s.to_move)
    if key not in memo:
        if g.is_terminal(s):
            memo[key] = g.utility(s, 0)
        else:
            vals = [minmax_board_key(g, g.play(s, m), memo) for m in g.legal_moves(s)]
            memo[key] = max(vals) if s.to_move == 0 else min(vals)
    return memo[key]
""",
    "end positions not memoised": """
def minmax_board_key(g, s, memo):
    if g.is_terminal(s):
        return g.utility(s, 0)
    key = (s.board, s.to_move)
    if key in memo:
        return memo[key]
    vals = [minmax_board_key(g, g.play(s, m), memo) for m in g.legal_moves(s)]
    memo[key] = max(vals) if s.to_move == 0 else min(vals)
    return memo[key]
""",
    "moves tried in reverse order": """
def minmax_board_key(g, s, memo):
    key = (s.board, s.to_move)
    if key in memo:
        return memo[key]
    if g.is_terminal(s):
        value = g.utility(s, 0)
    else:
        best = -2 if s.to_move == 0 else 2
        for m in reversed(list(g.legal_moves(s))):
            v = minmax_board_key(g, g.play(s, m), memo)
            best = max(best, v) if s.to_move == 0 else min(best, v)
        value = best
    memo[key] = value
    return value
""",
    "memo.get, a loop, and a win ends the loop early": """
def minmax_board_key(g, s, memo):
    key = (s.board, s.to_move)
    known = memo.get(key)
    if known is not None:
        return known
    if g.is_terminal(s):
        return g.utility(s, 0)
    want = 1 if s.to_move == 0 else -1
    values = []
    for m in g.legal_moves(s):
        values.append(minmax_board_key(g, g.play(s, m), memo))
        if values[-1] == want:
            break
    memo[key] = max(values) if s.to_move == 0 else min(values)
    return memo[key]
""",
}

WRONG = {
    "max and min swapped": FAITHFUL["the model (end positions memoised, moves in order)"].replace(
        "max(vals) if s.to_move == 0 else min(vals)", "min(vals) if s.to_move == 0 else max(vals)"
    ),
    "the memo is filled but never read (no call saved)": """
def minmax_board_key(g, s, memo):
    key = (s.board, s.to_move)
    if g.is_terminal(s):
        memo[key] = g.utility(s, 0)
    else:
        vals = [minmax_board_key(g, g.play(s, m), memo) for m in g.legal_moves(s)]
        memo[key] = max(vals) if s.to_move == 0 else min(vals)
    return memo[key]
""",
    "keyed by the board alone": FAITHFUL["the model (end positions memoised, moves in order)"].replace(
        "key = (s.board, s.to_move)", "key = s.board"
    ),
    "keyed by the whole position (so it finds no wrong game)": FAITHFUL[
        "the model (end positions memoised, moves in order)"
    ].replace("key = (s.board, s.to_move)", "key = s"),
}


@pytest.fixture(scope="module")
def exercise():
    nb = nbformat.read(MASTER, as_version=4)
    [q] = [q for q in cases.spec(nb)["questions"] if q["name"] == "q5_3"]
    setup = next(c.source for c in nb.cells if c.cell_type == "code" and "def start_value" in c.source)
    lesson: dict = {}
    exec(compile(setup, "<05 set-up>", "exec"), lesson)
    return lesson, q


def _submission(lesson: dict, source: str) -> dict:
    """The student's namespace: the lesson, the function, and the game its own search finds."""
    env = dict(lesson)
    exec(compile(source, "<submission>", "exec"), env)
    f, small, start_value = env["minmax_board_key"], env["small_games"], env["start_value"]
    games = small(max_board=5, budget_choices=(1, env["INF"]))
    env["answer_5_3"] = next((g for g in games if f(g, g.initial_state(), {}) != start_value(g)), games[0])
    return env


def _grade(lesson: dict, q: dict, env: dict) -> tuple[bool, float]:
    """(all public checks pass, points from the hidden tests) as a class copy and the grader give them."""
    public = True
    for case in q["cases"]:
        if not case["hidden"]:
            try:
                exec(compile(case["judge"], f"<public {case['id']}>", "exec"), plain.graded_answers(dict(env)))
            except Exception:
                public = False
    hidden = [c for c in q["cases"] if c["hidden"]]
    probes = {}
    for case in hidden:
        scope = dict(env)
        try:
            exec(compile(case["probe"], f"<probe {case['id']}>", "exec"), scope)
            probes[case["id"]] = {"value": plain.dumps(scope["probe"]())}
        except Exception as exc:
            probes[case["id"]] = {"why": f"{type(exc).__name__}: {exc}"}
    verdicts = judge.judge_submission(lesson, hidden, {"names": {}, "probes": probes})
    return public, sum(c["points"] for c in hidden if verdicts[c["id"]]["passed"])


@pytest.mark.slow
def test_faithful_solutions_of_exercise_5_3_get_full_marks(exercise):
    lesson, q = exercise
    assert q["points"] == 2 and all(c["probe"] for c in q["cases"] if c["hidden"])
    for label, source in FAITHFUL.items():
        assert _grade(lesson, q, _submission(lesson, source)) == (True, 2), label


@pytest.mark.slow
def test_plausible_wrong_solutions_of_exercise_5_3_get_no_points(exercise):
    lesson, q = exercise
    for label, source in WRONG.items():
        assert _grade(lesson, q, _submission(lesson, source))[1] == 0, label


def test_the_faithful_solutions_really_differ(exercise):
    """The variants are not one solution written three ways: they find different games, or give
    different values on some small game (what made the old hidden test refuse two of them)."""
    lesson, _ = exercise
    envs = {label: _submission(lesson, source) for label, source in FAITHFUL.items()}
    games = envs["the model (end positions memoised, moves in order)"]["small_games"](
        max_board=5, budget_choices=(1, lesson["INF"])
    )
    found = {label: games.index(env["answer_5_3"]) for label, env in envs.items()}
    values = {label: [env["minmax_board_key"](g, g.initial_state(), {}) for g in games] for label, env in envs.items()}
    assert len(set(found.values())) >= 2 and len({tuple(v) for v in values.values()}) >= 3, found
    assert assign.is_assignment(nbformat.read(MASTER, as_version=4))
