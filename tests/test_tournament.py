"""The class tournament (issue 15), fast tier: codecs, schedule, a sandboxed tournament, the hostile zoo.

Everything here runs real agent processes with small limits (0.3 s per move), a few dozen games
in all, played two at a time. The slower checks (a Dask cluster, resuming after SIGKILL, the CLI)
are in test_tournament_cluster.py.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import tempfile
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from gamekit import RandomPlayer, play_game, wire
from gamekit.protocol import MoveTypeError
from gamekit.sandbox.bwrap import bwrap_path
from gamekit.tournament.games import GAMES, build, resolve_game
from gamekit.tournament.html import leaderboard_html, replay_html
from gamekit.tournament.referee import GameSpec, check_source, play_game_spec
from gamekit.tournament.results import Results
from gamekit.tournament.runner import Tournament, submissions, validate_agent
from gamekit.tournament.sandbox import Limits
from gamekit.tournament.schedule import derived_seed, draw_starts, pairings, schedule

AGENTS = Path(__file__).parent / "tournament_agents"
ZOO = sorted((AGENTS / "zoo").glob("*.py"))
FAST = Limits(move_seconds=0.5, bank_seconds=0.5, startup_seconds=20.0, memory_mb=64, output_kb=64)
SAMPLES = [AGENTS / "first_free.py", AGENTS / "random_mover.py", AGENTS / "perfect.py"]


def course_game(name: str, params: dict | None = None):
    """A game of the course by its short name, built as the tournament builds it."""
    return build(resolve_game(name, params))


def without_times(record: dict) -> dict:
    """A record without the wall-clock parts (everything else must repeat exactly)."""
    return {k: v for k, v in record.items() if k not in ("times", "seconds", "failed_after")}


# --- states and moves as JSON -------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(GAMES))
def test_states_and_moves_round_trip_through_json_along_random_games(name):
    game = course_game(name)
    for seed in range(5):
        record = play_game(game, [RandomPlayer(seed=seed), RandomPlayer(seed=seed + 100)])
        for state in record.states:
            back = wire.state_from_json(game, json.loads(json.dumps(wire.state_to_json(game, state))))
            assert back == state and type(back) is type(state)
            assert game.legal_moves(back) == game.legal_moves(state)
        for move in record.moves:
            assert wire.move_from_json(game, json.loads(json.dumps(wire.move_to_json(game, move)))) == move


@pytest.mark.parametrize(
    "name, reply", [("tictactoe", "4"), ("tictactoe", 4.0), ("tictactoe", True), ("nim", 3), ("nim", [0, "1"])]
)
def test_a_reply_of_the_wrong_type_is_refused_by_the_decoder(name, reply):
    with pytest.raises(MoveTypeError):
        wire.move_from_json(course_game(name), reply)


def test_unknown_games_and_parameters_are_refused_with_what_is_allowed():
    with pytest.raises(ValueError, match="tictactoe"):
        resolve_game("chess")
    with pytest.raises(ValueError, match="its parameters: piles, misere"):
        course_game("nim", {"pile": [1, 2]})
    assert course_game("nim", {"piles": [1, 2]}).initial_state().piles == (1, 2)


# --- the schedule --------------------------------------------------------------------------------


def test_round_robin_plays_every_pair_from_every_start_with_seats_swapped():
    agents = ["a", "b", "c", "d", "e"]
    slots = schedule(agents, ["s0", "s1", "s2"], seed=7)
    assert len(slots) == 10 * 3 * 2 and len({s.id for s in slots}) == len(slots)
    first = Counter(s.first for s in slots)
    assert set(first.values()) == {12}  # each agent moves first in half of its 24 games
    for a, b in pairings(agents):
        for k in range(3):
            games = [s for s in slots if {s.first, s.second} == {a, b} and s.start_index == k]
            assert sorted((s.first, s.second) for s in games) == sorted([(a, b), (b, a)])
    # seeds depend on the id alone: the same game gets the same seeds in any schedule
    again = {s.id: s.seeds for s in schedule(list(reversed(agents)), ["s0", "s1", "s2"], seed=7)}
    assert all(again[s.id] == s.seeds for s in slots)
    assert {s.id: s.seeds for s in schedule(agents, ["s0", "s1", "s2"], seed=8)} != again


def test_gauntlet_pairs_each_entrant_with_each_fixed_opponent_only():
    assert pairings(["a", "b", "g1", "g2"], "gauntlet", ["g1", "g2"]) == [
        ("a", "g1"),
        ("a", "g2"),
        ("b", "g1"),
        ("b", "g2"),
    ]
    with pytest.raises(ValueError, match="round-robin"):
        pairings(["a", "b"], "swiss")
    assert derived_seed(1, "x") != derived_seed(2, "x") and derived_seed(1, "x") == derived_seed(1, "x")


def test_submissions_are_checked_before_anything_runs(tmp_path):
    assert check_source("def agent(:\n", "x.py").startswith("syntax error in line 1")
    assert check_source("NAME = 'x'\n", "x.py") is None
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / "same.py").write_text("NAME='1'")
    (tmp_path / "b" / "same.py").write_text("NAME='2'")
    with pytest.raises(ValueError, match="same"):
        submissions([tmp_path / "a", tmp_path / "b"])
    with pytest.raises(FileNotFoundError):
        submissions([tmp_path / "missing.py"])


# --- a sandboxed tournament ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def nim_run(tmp_path_factory):
    """Three sample agents (plus two that fail validation) in a misère Nim round robin, 2 starts."""
    folder = tmp_path_factory.mktemp("subs")
    for p in SAMPLES:
        shutil.copy(p, folder)
    (folder / "nameless.py").write_text("def agent(game, state):\n    return game.legal_moves(state)[0]\n")
    (folder / "returns_none.py").write_text("NAME = 'forgets to return'\ndef agent(game, state):\n    pass\n")
    db = tmp_path_factory.mktemp("db") / "t.sqlite"
    t = Tournament(db, [folder], game="misere-nim", starts=2, seed=3, limits=FAST)
    played = t.run(workers=2)
    return t, played


@pytest.mark.slow  # a sandboxed run (seconds): in the full suite, not the quick loop
def test_validation_rejects_failing_submissions_with_their_reason(nim_run):
    t, _ = nim_run
    status = {e.id: (e.status, e.reason) for e in t.entrants()}
    assert status["nameless"][0] == "rejected" and "NAME" in status["nameless"][1]
    assert status["returns_none"][0] == "rejected" and "wrong type" in status["returns_none"][1]
    assert {e for e, (s, _) in status.items() if s == "accepted"} == {"first_free", "random_mover", "perfect"}
    assert {e.name for e in t.entrants() if e.status == "accepted"} == {
        "first legal move",
        "random mover",
        "perfect (solver)",
    }


@pytest.mark.slow  # a sandboxed run (seconds): in the full suite, not the quick loop
def test_the_tournament_plays_every_game_once_and_perfect_play_wins_what_it_starts(nim_run):
    t, played = nim_run
    records = t.records()
    assert played == len(records) == 3 * 2 * 2
    assert sorted(r["id"] for r in records) == sorted(g.id for g in t.games())
    for r in records:
        assert r["forfeit"] is None and r["winner"] in (0, 1)  # misère Nim has no draws
        assert r["score"][0] + r["score"][1] == 1
        assert len(r["states"]) == len(r["moves"]) + 1 == len(r["shown"])
        # replay the stored moves with the rules: they reach the stored final state
        game = course_game("misere-nim")
        state = wire.state_from_json(game, r["start"])
        for m in r["moves"]:
            state = game.play(state, wire.move_from_json(game, m))
        assert wire.state_to_json(game, state) == r["states"][-1] and game.is_terminal(state)
    # misère Nim 3,5,7 is a first-player win (Bouton): perfect wins all its first-seat games,
    # and every game it plays against the first-free agent (which blunders from either seat here)
    perfect_first = [r for r in records if r["agents"][0] == "perfect"]
    assert perfect_first and all(r["winner"] == 0 for r in perfect_first)


@pytest.mark.slow  # a sandboxed run (seconds): in the full suite, not the quick loop
def test_results_rate_the_perfect_player_first_with_intervals_and_a_sequential_answer(nim_run):
    t, _ = nim_run
    results = Results(t)
    rows = results.standings(reps=100)
    assert rows[0].id == "perfect" and rows[0].losses <= 2  # loses only from the second seat to a perfect start
    # two starts per pairing are too few for intervals that keep their level: the board says so
    assert all(math.isnan(s.low) and math.isnan(s.high) for s in rows) and "too few" in results.table()
    assert sum(s.wins for s in rows) == sum(s.losses for s in rows) == len(results.records)
    p = results.pairing("perfect", "first_free")
    assert p.games == 4 and 0 <= p.interval()[0] <= p.score <= p.interval()[1] <= 1
    q = results.sequential("perfect", "first_free")
    assert q.more >= 0 and "SPRT" in q.text()
    assert [e.id for e in results.rejected()] == ["nameless", "returns_none"]
    page = leaderboard_html(results, reps=50)
    assert "<svg" in page and "Forfeit log" in page and "forgets to return" in page and "Is the order settled?" in page
    assert "returns_none" not in page and "returns_none" in leaderboard_html(results, reps=50, show_files=True)
    assert "http://" not in page.replace('xmlns="http://www.w3.org/2000/svg"', "") and "https://" not in page


@pytest.mark.slow  # a sandboxed run of its own (seconds): in the full suite, not the quick loop
def test_a_rerun_with_the_same_seed_gives_identical_games(nim_run, tmp_path):
    t, _ = nim_run
    again = Tournament(tmp_path / "again.sqlite", SAMPLES, game="misere-nim", starts=2, seed=3, limits=FAST)
    again.run(workers=2)
    assert [without_times(r) for r in again.records()] == [without_times(r) for r in t.records()]


@pytest.mark.slow  # a sandboxed run of its own (seconds): in the full suite, not the quick loop
def test_a_stopped_run_resumes_where_it_stopped_and_never_replays_a_game(nim_run, tmp_path):
    t, _ = nim_run
    db = tmp_path / "stop.sqlite"
    first = Tournament(db, SAMPLES, game="misere-nim", starts=2, seed=3, limits=FAST)
    assert first.run(workers=2, limit=5) == 5
    first.close()
    resumed = Tournament.open(db)
    assert len(resumed.remaining()) == 12 - 5
    assert resumed.run(workers=2) == 7 and resumed.run(workers=2) == 0
    assert [without_times(r) for r in resumed.records()] == [without_times(r) for r in t.records()]
    with pytest.raises(ValueError, match="already holds"):
        Tournament(db, SAMPLES)


@pytest.mark.slow  # a sandboxed run of its own (seconds): in the full suite, not the quick loop
def test_in_process_games_equal_sandboxed_games_for_trusted_agents(nim_run):
    t, _ = nim_run
    spec = next(g for g in t.games() if g.agents == ("first_free", "random_mover"))
    sandboxed = play_game_spec(spec)
    inside = play_game_spec(GameSpec(**{**spec.as_dict(), "sandbox": False}))
    assert without_times(inside) == without_times(sandboxed)


@pytest.mark.slow  # a sandboxed run (seconds): in the full suite, not the quick loop
def test_the_replay_fragment_embeds_every_game_and_escapes_script_endings(nim_run):
    t, _ = nim_run
    records = t.records()[:3]
    records[0] = {**records[0], "names": ["</script><b>x", records[0]["names"][1]]}
    fragment = replay_html(records)
    assert fragment.count("<option") == 3 and "</script><b>" not in fragment
    assert records[0]["shown"][0].split("\n")[0] in fragment


# --- the hostile zoo -----------------------------------------------------------------------------

EXPECTED = {
    "loop": "timeout",
    "sleeper": "timeout",
    "memory_hog": "memory",
    "raiser": "exception",
    "illegal": "illegal move",
    "wrong_type": "wrong type",
    "printer": "output limit",
    "exiter": "crash",
    "forker": "sandbox",
    "writer": "sandbox",
    "reader": "sandbox",
    "snooper": "sandbox",
    "tamper": "illegal move",
    "threader": "sandbox",
}


def run_zoo(db: Path, folders: Path) -> Tournament:
    """Every hostile agent and one well-behaved control against the first-free agent, both seats.

    The agents' folders are made in `folders` (tempfile.tempdir), so the test can see that none
    is left behind and two runs see the same paths.
    """
    t = Tournament(
        db,
        [*ZOO, AGENTS / "random_mover.py"],
        gauntlet=[AGENTS / "first_free.py"],
        format="gauntlet",
        game="tictactoe",
        seed=5,
        limits=FAST,
    )
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(tempfile, "tempdir", str(folders))
        t.run(workers=2, validate=False)
    return t


@pytest.fixture(scope="module")
def zoo_folders(tmp_path_factory):
    return tmp_path_factory.mktemp("agent-folders")


@pytest.fixture(scope="module")
def zoo_run(tmp_path_factory, zoo_folders):
    secret = Path("/tmp/gamekit-zoo-secret")
    secret.mkdir(exist_ok=True)
    (secret / "agent.py").write_text("NAME = 'victim'  # the file the reader tries to read\n")
    escape = Path("/tmp/gamekit-zoo-escape.txt")
    escape.unlink(missing_ok=True)
    t = run_zoo(tmp_path_factory.mktemp("zoo") / "zoo.sqlite", zoo_folders)
    yield t, escape, list(zoo_folders.iterdir())
    shutil.rmtree(secret, ignore_errors=True)


def test_the_zoo_is_complete():
    assert sorted(p.stem for p in ZOO) == sorted(EXPECTED)


@pytest.mark.slow  # a sandboxed run of its own (seconds): in the full suite, not the quick loop
def test_every_hostile_agent_forfeits_with_the_right_reason_within_the_limit_plus_a_second(zoo_run):
    """A move is charged its CPU time; the wall clock ends it at WALL_FACTOR times its time plus
    WALL_SLACK even when it gets no CPU (a busy machine), so that, plus a second, bounds the kill."""
    from gamekit.sandbox.process import WALL_FACTOR, WALL_SLACK

    t, escape, left = zoo_run
    records = {r["id"]: r for r in t.records()}
    assert len(records) == 2 * (len(ZOO) + 1)  # the tournament completed
    for agent, reason in EXPECTED.items():
        for order in (0, 1):
            r = records[f"{agent}~first_free~0~{order}"]
            seat = r["agents"].index(agent)
            assert r["forfeit"] == seat, (agent, r["reason"], r["detail"])
            assert r["reason"] == reason, (agent, r["reason"], r["detail"])
            assert r["winner"] == 1 - seat and r["score"][1 - seat] == 1.0
            # the failing move (or start-up) ended within its limit plus a second, measured by the referee
            bound = WALL_FACTOR * (FAST.move_seconds + FAST.bank_seconds) + WALL_SLACK + 1.0
            assert r["failed_after"] <= bound, (agent, r["failed_after"])
    assert not escape.exists(), "the writer escaped its folder"
    assert not left, "agent folders were left behind"
    detail = records["reader~first_free~0~0"]["detail"]
    assert "reading a file outside its folder" in detail and "gamekit-zoo-secret" in detail
    assert records["printer~first_free~0~0"]["output"][0].startswith("spam")  # kept, but cut to size
    assert len(records["printer~first_free~0~0"]["output"][0]) <= FAST.log_chars + 10


@pytest.mark.slow  # a sandboxed run of its own (seconds): in the full suite, not the quick loop
def test_games_without_a_hostile_agent_are_unaffected_by_the_zoo(zoo_run, tmp_path):
    t, _, _ = zoo_run
    calm = Tournament(
        tmp_path / "calm.sqlite",
        [AGENTS / "random_mover.py"],
        gauntlet=[AGENTS / "first_free.py"],
        format="gauntlet",
        game="tictactoe",
        seed=5,
        limits=FAST,
    )
    calm.run(workers=2)
    zoo = {r["id"]: without_times(r) for r in t.records()}
    for r in calm.records():
        assert r["forfeit"] is None and zoo[r["id"]] == without_times(r)


@pytest.mark.slow  # a sandboxed run of its own (seconds): in the full suite, not the quick loop
def test_the_parent_process_and_its_game_module_are_untouched_by_the_tamperer(zoo_run):
    from gamekit import TicTacToe

    game = TicTacToe()
    assert game.legal_moves(game.play(game.initial_state(), 4)) == (0, 1, 2, 3, 5, 6, 7, 8)
    assert os.getcwd() != "/tmp" and np.isfinite(1.0)


@pytest.mark.slow  # a sandboxed run of its own (seconds): in the full suite, not the quick loop
def test_a_second_seeded_run_of_the_zoo_gives_identical_results(zoo_run, zoo_folders, tmp_path):
    t, _, _ = zoo_run
    again = run_zoo(tmp_path / "zoo2.sqlite", zoo_folders)

    # A memory hog is stopped by whichever guard is reached first, the interpreter's own limit
    # (MemoryError) or its jail's memory group (killed): the same forfeit with another detail.
    def same(record: dict) -> dict:
        kept = without_times(record)
        return {k: v for k, v in kept.items() if k != "detail"} if kept["reason"] == "memory" else kept

    assert [same(r) for r in again.records()] == [same(r) for r in t.records()]


def test_random_openings_vary_the_start_and_never_end_the_game():
    game = course_game("tictactoe")
    starts = draw_starts(game, 20, seed=1, opening=3)
    assert starts == draw_starts(game, 20, seed=1, opening=3) and len(set(starts)) > 10
    for start in starts:
        state = wire.state_from_json(game, start)
        assert start.count(".") == 6 and not game.is_terminal(state)
    with pytest.raises(ValueError, match="opening"):
        draw_starts(game, 1, seed=1, opening=-1)
    subtraction = [kind_start[0] for kind_start in draw_starts(course_game("subtraction"), 30, seed=2)]
    assert set(subtraction) <= set(range(20, 51)) and len(set(subtraction)) > 5


@pytest.mark.slow  # a sandboxed run (seconds): in the full suite, not the quick loop
def test_a_tournament_with_no_games_yet_still_reports_and_says_why_it_has_no_ratings(tmp_path):
    (tmp_path / "broken.py").write_text("NAME = 'broken'\ndef agent(game, state):\n    raise RuntimeError('oops')\n")
    t = Tournament(tmp_path / "t.sqlite", [tmp_path / "broken.py", AGENTS / "first_free.py"], game="nim", limits=FAST)
    assert t.run(workers=2) == 0  # one agent rejected, so nobody to play
    results = Results(t)
    with pytest.raises(ValueError, match="at least two accepted"):
        results.ratings()
    assert "no rating yet" in leaderboard_html(results) and "rejected: broken" in results.table()


@pytest.mark.slow  # a sandboxed run (seconds): in the full suite, not the quick loop
def test_importing_a_module_nobody_loaded_is_allowed_even_after_the_source_folder_changed():
    import gamekit
    from gamekit.sandbox.zygote import shared_zygote
    from gamekit.tournament import validate_agent
    from gamekit.tournament.games import ENTRY

    shared_zygote(ENTRY)  # the agents' parent is running and has listed sys.path once
    package_parent = Path(gamekit.__file__).resolve().parent.parent
    stat = package_parent.stat()
    os.utime(package_parent, (stat.st_atime, stat.st_mtime + 2))  # as if a file had been added there
    try:
        verdict = validate_agent(AGENTS / "importer.py", "tictactoe", limits=FAST)
    finally:
        os.utime(package_parent, (stat.st_atime, stat.st_mtime))
    assert verdict.status == "accepted", verdict.reason


@pytest.mark.slow  # a sandboxed run of its own (seconds): in the full suite, not the quick loop
def test_validation_warns_about_randomness_that_is_not_seeded_from_the_game(tmp_path):
    """Two runs of the same game with the same seeds: an agent with its own unseeded generator
    plays differently (a warning, still accepted); one using the module `random` does not."""
    from gamekit.tournament.runner import UNSEEDED_WARNING, validate_agent

    own = tmp_path / "own_generator.py"
    own.write_text(
        "import random\nNAME = 'own generator'\n_rng = random.Random()\n"
        "def agent(game, state):\n    return _rng.choice(list(game.legal_moves(state)))\n"
    )
    seeded = validate_agent(AGENTS / "random_mover.py", limits=FAST)
    unseeded = validate_agent(own, limits=FAST)
    assert seeded.status == "accepted" and seeded.reason == ""
    assert unseeded.status == "accepted" and unseeded.reason == UNSEEDED_WARNING


@pytest.mark.slow  # a sandboxed run of its own (seconds): in the full suite, not the quick loop
@pytest.mark.skipif(bwrap_path() is None, reason="needs bubblewrap")
def test_printing_past_the_limit_forfeits_for_output_even_if_the_agent_then_waits(tmp_path):
    """The output limit is judged while the turn runs, not only once a move comes: an agent that
    prints too much and then sleeps (or whose printing a busy referee reads slowly) forfeits for its
    printing, not on time, so a rerun on a loaded machine gives the same record."""
    agent = tmp_path / "loud_sleeper.py"
    agent.write_text(
        "import time\nNAME = 'loud sleeper'\n"
        "def agent(game, state):\n    print('x' * 200_000, flush=True)\n    time.sleep(30)\n"
    )
    verdict = validate_agent(agent, "nim", limits=FAST)
    assert verdict.status == "rejected" and "output limit" in verdict.reason, verdict.reason
