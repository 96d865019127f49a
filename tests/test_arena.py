"""The arena: round robins over games, seats, bookkeeping, ratings, and saving results."""

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

from gamekit import (
    MCTSPlayer,
    Nim,
    PerfectPlayer,
    RandomPlayer,
    SearchPlayer,
    SubtractionGame,
    TicTacToe,
    h1_scaled,
    is_p_position,
    red_blue,
)
from gamekit.arena import Arena, ArenaResult, GameTable, expected_score, fit_bradley_terry, fit_elo
from gamekit.match import random_start

GPP = 6  # games per pair: both seats, three times each


def small_arena() -> Arena:
    arena = Arena(
        games={
            "ttt": TicTacToe(),
            "misere": Nim([2, 3], misere=True),
            "sub": (SubtractionGame(start=30), random_start(20, 50)),
        }
    )
    arena.enter("random", lambda s: RandomPlayer(seed=s))
    arena.enter("perfect", lambda s: PerfectPlayer())
    arena.enter("mcts", lambda s: MCTSPlayer(20, seed=s), games=["ttt", "misere"])
    arena.enter("depth 1", {"ttt": lambda s: SearchPlayer(depth=1, evaluate=h1_scaled)})
    return arena


@pytest.fixture(scope="module")
def result() -> ArenaResult:
    return small_arena().run(GPP, seed=7, progress=False)


def test_every_pair_plays_every_game_it_can(result):
    assert set(result.tables) == {"ttt", "misere", "sub"}
    assert result["ttt"].agents == ["random", "perfect", "mcts", "depth 1"]
    assert result["sub"].agents == ["random", "perfect"]
    assert len(small_arena().pairs()) == 6 + 3 + 1


def test_results_add_up_and_seats_alternate(result):
    for t in result.tables.values():
        n = len(t.agents)
        for i in range(n):
            assert t.games(i, i) == 0
            for j in range(n):
                if i == j:
                    continue
                assert t.games(i, j) == GPP
                assert t.wins[i][j] == t.losses[j][i] and t.draws[i][j] == t.draws[j][i]
                assert t.first[i][j] == t.first[j][i] == GPP // 2  # each moves first half the time
                assert t.first_wins[i][j] <= t.first[i][j]
        assert all(m > 0 for m in t.moves) and all(s > 0 for s in t.seconds)
        score = t.score()
        assert math.isnan(score[0, 0])
        assert abs(score[0, 1] + score[1, 0] - 1) < 1e-12


def test_perfect_player_is_never_beaten_where_the_game_allows(result):
    ttt = result["ttt"]
    p = ttt.index("perfect")
    assert sum(ttt.losses[p]) == 0  # TicTacToe is a draw: perfect play never loses from either seat
    # Misere Nim [2, 3] is a first-player win (Bouton's rule), so perfect wins every game it starts.
    assert not is_p_position([2, 3], misere=True)
    nim = result["misere"]
    p = nim.index("perfect")
    assert all(nim.first_wins[p][j] == nim.first[p][j] for j in range(len(nim.agents)) if j != p)


def test_perfect_wins_every_blue_start_of_the_subtraction_game():
    blue = [n for n in range(20, 51) if red_blue(50).colour(n) == "blue"]
    arena = Arena(
        games={"sub": (SubtractionGame(start=30), lambda g, rng: g.state(blue[int(rng.integers(len(blue)))], 0))}
    )
    arena.enter("random", lambda s: RandomPlayer(seed=s))
    arena.enter("perfect", lambda s: PerfectPlayer())
    t = arena.run(10, seed=3, progress=False)["sub"]
    p = t.index("perfect")
    assert t.first_wins[p][1 - p] == t.first[p][1 - p] == 5


def test_a_pairing_does_not_depend_on_who_else_is_entered(result):
    arena = Arena(games={"ttt": TicTacToe()})
    arena.enter("random", lambda s: RandomPlayer(seed=s))
    arena.enter("mcts", lambda s: MCTSPlayer(20, seed=s))
    t, big = arena.run(GPP, seed=7, progress=False)["ttt"], result["ttt"]
    i, j = big.index("random"), big.index("mcts")
    assert (t.wins[0][1], t.draws[0][1], t.losses[0][1], t.first_wins[0][1]) == (
        big.wins[i][j],
        big.draws[i][j],
        big.losses[i][j],
        big.first_wins[i][j],
    )


def test_same_seed_same_results(result):
    again = small_arena().run(GPP, seed=7, progress=False)
    for g in result.tables:
        assert again[g].wins == result[g].wins and again[g].moves == result[g].moves


def test_rating_orders_perfect_above_random(result):
    for g in result.tables:
        r = result.ratings(g, anchor="random")
        assert r["random"] == 0 and r["perfect"] > 100


def _table(agents, wins, draws=None):
    n = len(agents)
    draws = draws or [[0] * n for _ in range(n)]
    losses = [[wins[j][i] for j in range(n)] for i in range(n)]
    games = [[wins[i][j] + draws[i][j] + losses[i][j] for j in range(n)] for i in range(n)]
    first = [[games[i][j] // 2 if i < j else games[i][j] - games[i][j] // 2 for j in range(n)] for i in range(n)]
    return GameTable("g", agents, wins, draws, losses, first, [[0] * n for _ in range(n)], [1] * n, [0.1] * n)


def test_bradley_terry_two_agents_closed_form():
    t = _table(["a", "b"], [[0, 3], [1, 0]])
    p = fit_bradley_terry(t, prior=0)
    assert p["a"] / p["b"] == pytest.approx(3.0)  # MLE of p_a / (p_a + p_b) is 3 / 4
    elo = fit_elo(t, prior=0, anchor="b")
    assert elo["a"] == pytest.approx(400 * math.log10(3))
    assert expected_score(elo["a"], elo["b"]) == pytest.approx(0.75)


def test_bradley_terry_satisfies_the_likelihood_equations():
    wins = [[0, 5, 7], [3, 0, 4], [1, 2, 0]]
    draws = [[0, 2, 0], [2, 0, 2], [0, 2, 0]]
    t = _table(["a", "b", "c"], wins, draws)
    p = fit_bradley_terry(t, prior=0)
    for i, a in enumerate(t.agents):
        observed = sum(wins[i]) + sum(draws[i]) / 2
        expected = sum(t.games(i, j) * p[a] / (p[a] + p[b]) for j, b in enumerate(t.agents) if j != i)
        assert observed == pytest.approx(expected, rel=1e-8)
    assert math.prod(p.values()) == pytest.approx(1.0)


def test_undefeated_agent_needs_a_prior():
    t = _table(["a", "b"], [[0, 4], [0, 0]])
    with pytest.raises(ValueError, match="prior"):
        fit_bradley_terry(t, prior=0)
    r = fit_elo(t, prior=1.0)
    assert r["a"] > r["b"] and math.isfinite(r["a"])
    with pytest.raises(ValueError, match="prior"):
        fit_bradley_terry(t, prior=-1)
    with pytest.raises(KeyError, match="anchor"):
        fit_elo(t, anchor="nobody")


def test_save_and_load_round_trip(result, tmp_path):
    path = tmp_path / "arena.json"
    result.save(path)
    back = ArenaResult.load(path)
    assert back.games_per_pair == GPP and back.seed == 7
    for g, t in result.tables.items():
        b = back[g]
        assert (b.agents, b.wins, b.draws, b.losses, b.first, b.first_wins, b.moves) == (
            t.agents,
            t.wins,
            t.draws,
            t.losses,
            t.first,
            t.first_wins,
            t.moves,
        )
        assert b.seconds == pytest.approx(t.seconds, abs=1e-6)
        assert back.ratings(g) == pytest.approx(result.ratings(g), abs=1e-3)


@pytest.mark.parametrize(
    "corrupt, message",
    [
        (lambda d: d.update(format="something else"), "not an arena results file"),
        (lambda d: d.update(version=99), "version"),
        (lambda d: d.pop("games"), "lacks games"),
        (lambda d: d.update(games_per_pair=0), "games_per_pair"),
        (lambda d: d["games"]["ttt"].pop("draws"), "lacks draws"),
        (lambda d: d["games"]["ttt"]["wins"][0].pop(), "4x4 matrix"),
        (lambda d: d["games"]["ttt"]["wins"][0].__setitem__(1, -1), "4x4 matrix"),
        (lambda d: d["games"]["ttt"]["wins"][0].__setitem__(1, d["games"]["ttt"]["wins"][0][1] + 1), "does not match"),
        (lambda d: d["games"]["ttt"]["first"][0].__setitem__(1, 0), "seat counts"),
        (lambda d: d["games"]["ttt"]["seconds"].__setitem__(0, "fast"), "seconds"),
        (lambda d: d["games"]["ttt"].update(agents=["a", "a", "b", "c"]), "distinct"),
    ],
)
def test_corrupt_files_give_clear_errors(result, tmp_path, corrupt, message):
    data = json.loads(json.dumps(result.to_json()))
    corrupt(data)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    with pytest.raises(ValueError, match=message):
        ArenaResult.load(path)


def test_to_json_is_a_copy(result):
    wins, moves = result["ttt"].wins[0][1], result["ttt"].moves[0]
    data = result.to_json()
    data["games"]["ttt"]["wins"][0][1] += 100
    data["games"]["ttt"]["moves"][0] += 100
    assert (result["ttt"].wins[0][1], result["ttt"].moves[0]) == (wins, moves)


def test_not_json_is_a_clear_error(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text("{not json")
    with pytest.raises(ValueError, match="not valid JSON"):
        ArenaResult.load(path)


def test_bad_input_is_refused_and_changes_nothing():
    arena = small_arena()
    before = {g: dict(e) for g, e in arena.entries.items()}
    with pytest.raises(ValueError, match="unknown game"):
        arena.enter("x", lambda s: RandomPlayer(seed=s), games=["chess"])
    with pytest.raises(ValueError, match="already entered"):
        arena.enter("random", lambda s: RandomPlayer(seed=s))
    with pytest.raises(TypeError, match="factory"):
        arena.enter("y", {"ttt": lambda s: None, "sub": 3})
    assert {g: dict(e) for g, e in arena.entries.items()} == before
    with pytest.raises(ValueError, match="games_per_pair"):
        arena.run(1)
    with pytest.raises(ValueError, match="even"):
        arena.run(5)  # an odd count would give one agent the first move more often
    with pytest.raises(ValueError, match="seed"):
        arena.run(4, seed=-1)
    with pytest.raises(TypeError, match="not a Game"):
        arena.add_game("bad", object())
    with pytest.raises(KeyError, match="did not play"):
        GameTable("g", ["a"]).index("b")


def test_course_arena_enters_each_agent_where_it_can_play():
    from gamekit import course_arena

    arena = course_arena(seed=1, mcts_budgets=(5,), depths=(1,), q_episodes=200)
    entries = {g: set(e) for g, e in arena.entries.items()}
    assert entries["subtraction 3,5,11"] >= {"random", "smart random", "mixed p=0.5", "perfect", "MCTS 5"}
    assert "Q-learner" not in entries["subtraction 3,5,11"] and "h1 depth 1" not in entries["misère Nim 3,5,7"]
    assert {"h1 depth 1", "Q-learner", "raw counts", "1 − P(lose)"} <= entries["TicTacToe"]
    result = arena.run(2, seed=1, progress=False)
    ttt = result["TicTacToe"]
    assert ttt.totals("perfect")[2] == 0


ROOT = Path(__file__).resolve().parent.parent


def _documented_command() -> str:
    """The regeneration command of data/arena_small.json, as data/README.md gives it."""
    row = next(
        line
        for line in (ROOT / "data" / "README.md").read_text(encoding="utf-8").splitlines()
        if line.startswith("| `arena_small.json`")
    )
    return row.rstrip(" |").rsplit("| `", 1)[1].rstrip("`")


def test_documented_regeneration_command_runs_without_warnings():
    command = _documented_command()
    assert command.startswith("python scripts/make_arena.py ") and "--out data/arena_small.json" in command
    assert command.split("python ", 1)[1] in (ROOT / "README.md").read_text(encoding="utf-8")
    # -W error: any warning on the way in (e.g. runpy's "found in sys.modules") would fail the run
    run = subprocess.run(
        [sys.executable, "-W", "error", "scripts/make_arena.py", "--help"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    assert run.stderr == "" and "scripts/make_arena.py" in run.stdout and "--games-per-pair" in run.stdout


@pytest.mark.parametrize(
    "argv, message",
    [(["--games-per-pair", "1"], "games-per-pair"), (["--games-per-pair", "7"], "even"), (["--seed", "-3"], "seed")],
)
def test_command_line_refuses_bad_arguments_before_any_work(argv, message, capsys):
    from gamekit.arena import main

    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 2 and message in capsys.readouterr().err


def test_saved_arena_matches_its_command_and_the_current_line_up():
    from gamekit import course_arena

    saved = ArenaResult.load(ROOT / "data" / "arena_small.json")
    command = _documented_command()
    assert f"--games-per-pair {saved.games_per_pair} " in command and f"--seed {saved.seed} " in command
    line_up = course_arena(q_episodes=10)  # the default line-up; the Q-tables do not matter here
    assert {g: t.agents for g, t in saved.tables.items()} == {g: list(e) for g, e in line_up.entries.items()}
    for t in saved.tables.values():
        assert all(
            t.games(i, j) == saved.games_per_pair for i in range(len(t.agents)) for j in range(len(t.agents)) if i != j
        )
    assert saved["TicTacToe"].totals("perfect")[2] == 0


def test_fit_of_an_empty_table_is_empty():
    assert fit_bradley_terry(GameTable("g", [])) == {} and fit_elo(GameTable("g", [])) == {}


def test_heat_map_shows_every_pairing_as_wins_draws_losses(result):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from gamekit.views.arena import draw_heat_map

    t = result["ttt"]
    fig = draw_heat_map(t)
    ax = fig.axes[0]
    n = len(t.agents)
    labels = {(round(x.get_position()[1]), round(x.get_position()[0])): x.get_text() for x in ax.texts}
    assert len(labels) == n * n
    for i in range(n):
        for j in range(n):
            assert labels[i, j] == ("—" if i == j else f"{t.wins[i][j]}/{t.draws[i][j]}/{t.losses[i][j]}")
    image = ax.images[0].get_array()
    assert image.mask[0, 0] and image[0, 1] == pytest.approx(t.score()[0, 1])
    assert [x.get_text() for x in ax.get_yticklabels()] == t.agents
    plt.close(fig)


def test_time_against_strength_labels_every_agent_without_overlaps():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from gamekit.views.arena import draw_time_vs_strength

    agents = ["alpha-beta 4", "MCTS 300", "perfect", "1 − P(lose)", "random"]
    t = _table(agents, [[0] * 5 for _ in range(5)])
    t.seconds = [0.0015, 0.003, 0.0045, 0.012, 0.00001]  # a cluster of four, as in the course's TicTacToe run
    ratings = {"alpha-beta 4": 518, "MCTS 300": 500, "perfect": 472, "1 − P(lose)": 521, "random": 0}
    fig = draw_time_vs_strength(t, ratings)
    ax = fig.axes[0]
    assert sorted(x.get_text() for x in ax.texts) == sorted(agents)
    renderer = fig.canvas.get_renderer()
    overlapping = [
        (a.get_text(), b.get_text())
        for k, a in enumerate(ax.texts)
        for b in ax.texts[k + 1 :]
        if a.get_window_extent(renderer).overlaps(b.get_window_extent(renderer))
    ]
    assert not overlapping
    plt.close(fig)
