"""A student's own game in the class tournament (issue 20): named by its file, run only in sandboxes.

Dots and Boxes (tests/own_games.py, where a player who closes a box moves again) is played by
the tournament's sandboxed agents exactly as the course's games are; neither the teacher's process
nor an agent's ever runs the game's file (only the game's own jail does). Hostile and broken games
are stopped with `GameFailure` naming the game, never an agent; a reply the game did not list
loses for the agent that sent it, without reaching the game's code.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from gamekit import solve, wire
from gamekit.sandbox.bwrap import bwrap_path
from gamekit.tournament import GameFailure, Results, Tournament, leaderboard_html, resolve_game
from gamekit.tournament.referee import GameSpec, play_game_spec
from gamekit.tournament.sandbox import Limits

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(bwrap_path() is None, reason="bubblewrap (bwrap) is not installed"),
]

HERE = Path(__file__).parent
OWN = HERE / "own_games.py"
AGENTS = HERE / "tournament_agents"
FAST = Limits(move_seconds=1.0, bank_seconds=1.0, startup_seconds=5.0, memory_mb=128, output_kb=64, game_seconds=2.0)


def dots_and_boxes():
    """The test's own copy of the game (this test trusts its own file; the tournament does not)."""
    sys.path.insert(0, str(HERE))
    try:
        from own_games import DotsAndBoxes
    finally:
        sys.path.remove(str(HERE))
    return DotsAndBoxes()


@pytest.fixture(scope="module")
def dots_run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("dots")
    agents = [AGENTS / "perfect.py", AGENTS / "random_mover.py", AGENTS / "first_free.py"]
    t = Tournament(folder / "t.sqlite", agents, game=f"{OWN}:DotsAndBoxes", starts=2, opening=1, seed=3, limits=FAST)
    played = t.run(workers=2)
    return t, played


def test_dots_and_boxes_is_played_through_the_tournament_by_sandboxed_agents(dots_run):
    t, played = dots_run
    assert [e.status for e in t.entrants()] == ["accepted"] * 3
    records = t.records()
    assert played == len(records) == 3 * 2 * 2
    game = dots_and_boxes()
    extra_turns = 0
    for r in records:
        assert r["forfeit"] is None and r["game"] == "own_games.py:DotsAndBoxes"
        state = wire.state_from_json(game, r["start"])
        for mover, move in zip(r["movers"], r["moves"]):
            assert mover == game.to_move(state)  # the referee asked whoever the game said moves
            state = game.play(state, wire.move_from_json(game, move))
        assert game.is_terminal(state) and wire.state_to_json(game, state) == r["states"][-1]
        u = game.utility(state, 0)
        assert r["winner"] == (None if u == 0 else (0 if u > 0 else 1))
        extra_turns += sum(a == b for a, b in zip(r["movers"], r["movers"][1:]))
    assert extra_turns > 0  # some player really moved twice in a row
    # the solver scores at least the exact value of each start from its seat, and beats first-free overall
    table = solve(game)
    for r in records:
        if "perfect" in r["agents"]:
            seat = r["agents"].index("perfect")
            value = table[wire.state_from_json(game, r["start"])] * (1 if seat == 0 else -1)
            assert r["score"][seat] >= (value + 1) / 2, r["id"]
    results = Results(t)
    assert results.standings(reps=50)[0].id == "perfect"
    page = leaderboard_html(results)
    assert "own_games.py:DotsAndBoxes" in page and "Replay" in page and str(HERE) not in page


def test_the_teachers_process_never_runs_the_games_file(dots_run):
    assert "own_games" not in sys.modules or not getattr(sys.modules["own_games"], "__gamekit_game__", False)
    ref = resolve_game(f"{OWN}:DotsAndBoxes")
    assert not ref.trusted and ref.source == OWN.read_text() and ref.target == "own_games:DotsAndBoxes"


SNOOP = """
import os, socket

for what, act in [
    ("secret", lambda: open({secret!r}).read()),
    ("write", lambda: open({planted!r}, "w").write("planted")),
    ("network", lambda: socket.create_connection(("127.0.0.1", {port}), timeout=1)),
    ("kill", lambda: os.kill(1, 9)),
]:
    act()
"""

COUNTDOWN = '''
class Countdown:
    """Take 1 or 2; whoever takes the last wins."""

    def initial_state(self):
        return (5, 0)

    def to_move(self, state):
        return state[1]

    def legal_moves(self, state):
        return tuple(t for t in (1, 2) if t <= state[0])

    def play(self, state, move):
        if move not in self.legal_moves(state):
            from gamekit import IllegalMoveError
            raise IllegalMoveError(f"take 1 or 2, got {move!r}")
        return (state[0] - move, 1 - state[1])

    def is_terminal(self, state):
        return state[0] == 0

    def utility(self, state, player):
        return 1.0 if state[1] != player else -1.0

    def describe_state(self, state):
        return f"{state[0]} left"
'''


@pytest.mark.parametrize("act", ["secret", "write", "network", "kill"])
def test_a_snooping_game_reads_writes_and_reaches_nothing_outside_its_sandbox(tmp_path, act):
    import socket

    secret = tmp_path / "teacher-secret.txt"
    secret.write_text("CANARY-7f3a")
    planted = tmp_path / "planted.txt"
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    server.settimeout(0.1)
    snoop = SNOOP.format(secret=str(secret), planted=str(planted), port=server.getsockname()[1])
    # this game tries one act only (at load, where the teacher's process would run it if it imported it)
    snoop = snoop.replace("]:\n    act()", "]:\n    if what == " + repr(act) + ":\n        act()", 1)
    source = snoop + COUNTDOWN
    game_file = tmp_path / "snoop.py"
    game_file.write_text(source)
    t = Tournament(
        tmp_path / "t.sqlite",
        [AGENTS / "random_mover.py", AGENTS / "first_free.py"],
        game=f"{game_file}:Countdown",
        seed=1,
        limits=FAST,
    )
    with pytest.raises(GameFailure, match="the game snoop.py:Countdown failed") as failure:
        t.run(workers=2)
    assert "sandbox" in str(failure.value) and "CANARY" not in str(failure.value)
    assert t.records() == [] and [e.status for e in t.entrants()] == ["new", "new"]  # no agent blamed
    assert not planted.exists() and secret.read_text() == "CANARY-7f3a"
    with pytest.raises(OSError):
        server.accept()  # nobody called
    server.close()


BROKEN = {
    "loops": ("def is_terminal(self, state):\n        while True:\n            pass", "failed"),
    "bad utility": ("def utility(self, state, player):\n        return 5.0", "[-1, 1]"),
    "to_move 2": ("def to_move(self, state):\n        return 2", "must be 0 or 1"),
    "crash at load": (None, "my game does not load"),
}


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_a_broken_game_stops_the_tournament_and_blames_the_game_not_an_agent(tmp_path, name):
    method, expected = BROKEN[name]
    source = COUNTDOWN
    if method is None:
        source = "raise RuntimeError('my game does not load')\n" + source
    else:
        head = method.split("(")[0]  # "def is_terminal"
        start = source.index("    " + head)
        end = source.index("\n\n", start)
        source = source[:start] + "    " + method + source[end:]
    (tmp_path / "broken.py").write_text(source)
    spec = GameSpec(
        id="g",
        game=f"{tmp_path / 'broken.py'}:Countdown",
        target="broken:Countdown",
        game_source=source,
        params={},
        start=[5, 0],
        agents=("a", "b"),
        sources=((AGENTS / "random_mover.py").read_text(),) * 2,
        seeds=(1, 2),
        limits=FAST.as_dict(),
    )
    with pytest.raises(GameFailure, match="the game .*broken.py:Countdown") as failure:
        play_game_spec(spec)
    assert expected in str(failure.value)


@pytest.mark.parametrize(("reply", "reason"), [("99", "illegal move"), ("'take two'", "wrong type")])
def test_a_reply_the_game_did_not_list_loses_and_never_reaches_the_games_code(tmp_path, reply, reason):
    source = COUNTDOWN.replace(
        "        if move not in self.legal_moves(state):",
        "        if move == 99:  # the game's weak spot\n            while True:\n                pass\n"
        "        if move not in self.legal_moves(state):",
    )
    spec = GameSpec(
        id="g",
        game="countdown.py:Countdown",
        target="countdown:Countdown",
        game_source=source,
        params={},
        start=[5, 0],
        agents=("hang", "random"),
        sources=(
            f"NAME = 'hangs the game'\ndef agent(game, state):\n    return {reply}\n",
            (AGENTS / "random_mover.py").read_text(),
        ),
        seeds=(1, 2),
        limits=FAST.as_dict(),
    )
    record = play_game_spec(spec)  # the referee judges by the moves the game listed: its play never sees 99
    assert record["forfeit"] == 0 and record["reason"] == reason and "[1, 2]" in record["detail"], record["detail"]
    assert record["failed_after"] < FAST.game_seconds  # the game's code did not hang on it


def test_the_command_line_validates_agents_for_a_game_given_by_its_file(tmp_path):
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "gamekit.tournament",
            "validate",
            str(AGENTS / "random_mover.py"),
            "--game",
            f"{OWN}:DotsAndBoxes",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert run.returncode == 0, run.stderr
    assert "accepted" in run.stdout
    bad = subprocess.run(
        [sys.executable, "-m", "gamekit.tournament", "validate", str(AGENTS / "random_mover.py"), "--game", "chess"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    assert bad.returncode == 2 and "module:Class" in bad.stderr


FICKLE = COUNTDOWN.replace(
    """    def legal_moves(self, state):
        return tuple(t for t in (1, 2) if t <= state[0])""",
    """    asked = [0]

    def legal_moves(self, state):  # after its first position, it lists its moves the other way round
        moves = tuple(t for t in (1, 2) if t <= state[0])
        return moves if self.asked[0] <= 1 else moves[::-1]""",
).replace(
    '''        return f"{state[0]} left"''',
    '''        self.asked[0] += 1
        return f"{state[0]} left"''',
)


def test_a_game_that_answers_the_same_question_twice_differently_fails_named(monkeypatch):
    from gamekit.tournament.games import GameRef, JailedRules

    ref = GameRef("fickle.py:Countdown", "fickle:Countdown", {}, FICKLE)
    spec = GameSpec(
        id="g",
        game=ref.name,
        target=ref.target,
        game_source=FICKLE,
        params={},
        start=[5, 0],
        agents=("a", "b"),
        sources=((AGENTS / "random_mover.py").read_text(),) * 2,
        seeds=(1, 2),
        limits=FAST.as_dict(),
    )
    record = play_game_spec(spec)  # each question is answered once, for the referee and the agents alike
    assert record["forfeit"] is None and record["winner"] is not None
    monkeypatch.setattr("gamekit.tournament.games.MEMO_BYTES", 1)  # the memo keeps one answer: questions recur
    rules = JailedRules(ref, seconds=FAST.game_seconds)
    try:
        assert rules.look([5, 0])["to_move"] == 0 and rules.look([4, 1])["to_move"] == 1
        with pytest.raises(GameFailure, match="fickle.py:Countdown answered the same question twice differently"):
            rules.look([5, 0])
    finally:
        rules.close()
