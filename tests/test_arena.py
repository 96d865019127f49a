"""The arena: round robins over games, paired seats, deterministic pairings, ratings, saving results."""

import copy
import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from gamekit.data import data_path
from scipy import optimize

from gamekit import (
    MCTSPlayer,
    Nim,
    PerfectPlayer,
    RandomPlayer,
    SubtractionGame,
    TicTacToe,
    is_p_position,
)
from gamekit.arena import (
    Arena,
    ArenaResult,
    GameTable,
    expected_score,
    fit_bradley_terry,
    fit_elo,
    load_runs,
    pool_tables,
    save_runs,
)
from gamekit.match import random_start

GPP = 6  # games per pair: three starts, each from both seats
ROOT = Path(__file__).resolve().parent.parent


def small_arena() -> Arena:
    arena = Arena(
        games={
            "ttt": TicTacToe(),
            "misere": Nim([2, 3], misere=True),
            "sub": (SubtractionGame(start=30), random_start()),
        }
    )
    arena.enter("random", lambda s: RandomPlayer(seed=s))
    arena.enter("perfect", lambda s: PerfectPlayer(), deterministic=True)
    arena.enter("perfect 2", lambda s: PerfectPlayer(), games=["misere", "sub"], deterministic=True)
    arena.enter("mcts", lambda s: MCTSPlayer(20, seed=s), games=["ttt", "misere"])
    return arena


@pytest.fixture(scope="module")
def result() -> ArenaResult:
    return small_arena().run(GPP, seed=7, progress=False)


def test_every_pair_plays_every_game_it_can(result):
    assert set(result.tables) == {"ttt", "misere", "sub"}
    assert result["ttt"].agents == ["random", "perfect", "mcts"]
    assert result["sub"].agents == ["random", "perfect", "perfect 2"]
    assert len(small_arena().pairs()) == 3 + 6 + 3
    assert result.deterministic == ["perfect", "perfect 2"] and result.paired


def test_results_add_up_and_seats_are_shared_equally(result):
    for g, t in result.tables.items():
        n = len(t.agents)
        for i in range(n):
            assert t.games(i, i) == 0
            for j in range(n):
                if i == j:
                    continue
                both_fixed = g != "sub" and {t.agents[i], t.agents[j]} == {"perfect", "perfect 2"}
                assert t.games(i, j) == (2 if both_fixed else GPP)
                assert t.wins[i][j] == t.losses[j][i] and t.draws[i][j] == t.draws[j][i]
                assert t.first[i][j] == t.first[j][i] == t.games(i, j) // 2
                assert t.first_wins[i][j] <= t.first[i][j]
        assert all(m > 0 for m in t.moves) and all(s > 0 for s in t.seconds)
        score = t.score()
        assert math.isnan(score[0, 0]) and abs(score[0, 1] + score[1, 0] - 1) < 1e-12


def test_two_deterministic_agents_on_a_fixed_start_meet_once_per_seat(result):
    t = result["misere"]
    i, j = t.index("perfect"), t.index("perfect 2")
    # Misère Nim [2, 3] is a first-player win: each perfect player wins the one game it starts
    assert not is_p_position([2, 3], misere=True)
    assert (t.wins[i][j], t.losses[i][j], t.first_wins[i][j], t.first_wins[j][i]) == (1, 1, 1, 1)


def test_paired_starts_cancel_the_luck_of_the_start(result):
    # two perfect players from random starts: every start is won by one seat, played from both
    t = result["sub"]
    assert t.points("perfect", "perfect 2") == GPP / 2
    arena = Arena(games={"sub": (SubtractionGame(start=30), random_start())})
    arena.enter("A", lambda s: PerfectPlayer())
    arena.enter("B", lambda s: PerfectPlayer())
    for seed in range(3):
        u = arena.run(10, seed=seed, progress=False)["sub"]
        assert u.wins[0][1] == u.losses[0][1] == 5


def test_a_player_declared_deterministic_that_is_not_is_caught():
    arena = Arena(games={"ttt": TicTacToe()})
    arena.enter("random", lambda s: RandomPlayer(seed=s), deterministic=True)
    arena.enter("also random", lambda s: RandomPlayer(seed=s), deterministic=True)
    with pytest.raises(RuntimeError, match="deterministic"):
        arena.run(2, seed=1, progress=False)


def test_perfect_player_is_never_beaten_where_the_game_allows(result):
    ttt = result["ttt"]
    assert ttt.totals("perfect")[2] == 0  # TicTacToe is a draw: perfect play never loses
    nim = result["misere"]
    p = nim.index("perfect")
    assert all(nim.first_wins[p][j] == nim.first[p][j] for j in range(len(nim.agents)) if j != p)


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
    for g in ("ttt", "misere"):
        r = result.ratings(g, anchor="random")
        assert r["random"] == 0 and r["perfect"] > 100


# --- ratings --------------------------------------------------------------------------------------


def _table(agents, wins, draws=None):
    n = len(agents)
    draws = draws or [[0] * n for _ in range(n)]
    losses = [[wins[j][i] for j in range(n)] for i in range(n)]
    games = [[wins[i][j] + draws[i][j] + losses[i][j] for j in range(n)] for i in range(n)]
    first = [[games[i][j] // 2 if i < j else games[i][j] - games[i][j] // 2 for j in range(n)] for i in range(n)]
    return GameTable("g", agents, wins, draws, losses, first, [[0] * n for _ in range(n)], [1] * n, [0.1] * n)


def test_two_agents_closed_form_with_and_without_draws():
    t = _table(["a", "b"], [[0, 3], [1, 0]])
    p = fit_bradley_terry(t, prior=0)
    assert p["a"] / p["b"] == pytest.approx(3.0)  # MLE of p_a / (p_a + p_b) is 3 / 4
    elo = fit_elo(t, prior=0, anchor="b")
    assert elo["a"] == pytest.approx(400 * math.log10(3))
    assert expected_score(elo["a"], elo["b"]) == pytest.approx(0.75)
    # Davidson, two agents: the model reproduces the observed shares, so p_a / p_b = W / L, ν = D / √(W L)
    t = _table(["a", "b"], [[0, 4], [1, 0]], [[0, 2], [2, 0]])
    r = t.ratings(prior=0, anchor="b")
    assert r["a"] == pytest.approx(400 * math.log10(4), abs=1e-6) and r.draw == pytest.approx(1.0, abs=1e-8)


def _arena_negloglik(x, t, prior):
    """Davidson's penalised likelihood of a table, written out independently of gamekit."""
    n = len(t.agents)
    th, nu = x[:n], math.exp(x[n])
    f = 0.0
    for i in range(n):
        for j in range(i + 1, n):
            z = math.exp(th[i]) + math.exp(th[j]) + nu * math.exp((th[i] + th[j]) / 2)
            f += t.wins[i][j] * (th[i] - math.log(z)) + t.losses[i][j] * (th[j] - math.log(z))
            f += t.draws[i][j] * (math.log(nu) + (th[i] + th[j]) / 2 - math.log(z))
    f += sum(prior / 2 * (t_ - 2 * math.log1p(math.exp(t_))) for t_ in th)
    return -f


def test_fit_on_the_saved_arena_reaches_the_maximum_a_generic_optimiser_finds():
    run = load_runs(data_path("arena_seeds.json"))[0]
    for g in ("TicTacToe", "misère Nim 3,5,7"):
        t = run[g]
        fit = t.ratings(anchor="random")
        opt = optimize.minimize(_arena_negloglik, np.zeros(len(t.agents) + 1), args=(t, 1.0), method="BFGS",
                                options={"gtol": 1e-7})  # fmt: skip
        elo = 400 / math.log(10) * opt.x[: len(t.agents)]
        elo -= elo[t.index("random")]
        assert fit.elo == pytest.approx(tuple(elo), abs=0.1)  # the old renormalised MM was up to 26 Elo off
        assert fit.loglik >= -opt.fun - 1e-7


def test_undefeated_agent_needs_a_prior():
    t = _table(["a", "b"], [[0, 4], [0, 0]])
    with pytest.raises(ValueError, match="prior"):
        fit_bradley_terry(t, prior=0)
    r = fit_elo(t, prior=1.0)
    assert r["a"] > r["b"] and math.isfinite(r["a"])
    with pytest.raises(ValueError, match="prior"):
        fit_bradley_terry(t, prior=-1)
    with pytest.raises(ValueError, match="anchor"):
        fit_elo(t, anchor="nobody")


def test_bootstrap_of_a_table_is_reproducible(result):
    t = result["ttt"]
    a, b = t.bootstrap(seed=1, reps=40, anchor="random"), t.bootstrap(seed=1, reps=40, anchor="random")
    assert a == b and a.interval("random") == (0.0, 0.0)
    lo, hi = a.interval("perfect")
    assert lo <= a["perfect"] <= hi


def test_pooling_adds_runs_up(result):
    again = small_arena().run(GPP, seed=8, progress=False)
    both = pool_tables([result["ttt"], again["ttt"]])
    assert both.wins[0][1] == result["ttt"].wins[0][1] + again["ttt"].wins[0][1]
    assert both.games(0, 1) == 2 * GPP and len(both.results()) == len(result["ttt"].results()) * 2
    with pytest.raises(ValueError, match="same game"):
        pool_tables([result["ttt"], result["sub"]])


def test_pooling_counts_the_replays_of_two_deterministic_agents_once(result):
    again = small_arena().run(GPP, seed=8, progress=False)
    runs = [result["misere"], again["misere"], result["misere"]]
    five = pool_tables(runs)
    once = pool_tables(runs, deterministic=result.deterministic)
    i, j, r = once.index("perfect"), once.index("perfect 2"), once.index("random")
    assert five.games(i, j) == 6 and once.games(i, j) == 2  # one game pair, not one per run
    assert once.pairs[i][j] == result["misere"].pairs[i][j] and once.wins[j][i] == result["misere"].wins[j][i]
    assert once.games(i, r) == five.games(i, r) == 3 * GPP  # a random agent's games all count
    units = once.units()
    low = [k for k, (a, b, _) in enumerate(once.results()) if {a, b} == {i, j}]
    assert len({units[k] for k in low}) == 1  # the bootstrap sees one unit there
    changed = copy.deepcopy(again["misere"])
    kinds, k = changed.pairs[i][j], changed.pairs[i][j].index(1)
    kinds[k], kinds[(k + 1) % len(kinds)] = 0, 1  # another result in the replay
    with pytest.raises(ValueError, match="differ between the runs"):
        pool_tables([result["misere"], changed], deterministic=["perfect", "perfect 2"])
    with pytest.raises(TypeError, match="collection of agent names"):
        pool_tables(runs, deterministic="perfect")


def test_score_interval_and_table_text(result):
    t = result["ttt"]
    lo, hi = t.score_interval("perfect", "random")
    assert 0 <= lo <= t.score()[t.index("perfect"), t.index("random")] <= hi <= 1
    assert "[" in t.table() and "ms/move" in t.table()


# --- saving -----------------------------------------------------------------------------------------


def test_save_and_load_round_trip(result, tmp_path):
    path = tmp_path / "arena.json"
    result.save(path)
    back = ArenaResult.load(path)
    assert (back.games_per_pair, back.seed, back.paired, back.deterministic) == (GPP, 7, True, result.deterministic)
    for g, t in result.tables.items():
        b = back[g]
        assert (b.agents, b.wins, b.draws, b.losses, b.first, b.first_wins, b.moves) == (
            t.agents, t.wins, t.draws, t.losses, t.first, t.first_wins, t.moves,
        )  # fmt: skip
        assert b.seconds == pytest.approx(t.seconds, abs=1e-6)
        assert back.ratings(g).elo == pytest.approx(result.ratings(g).elo, abs=1e-6)
    save_runs(tmp_path / "runs.json", [result, back], command="test")
    assert [r["ttt"].wins for r in load_runs(tmp_path / "runs.json")] == [result["ttt"].wins] * 2


@pytest.mark.parametrize(
    "corrupt, message",
    [
        (lambda d: d.update(format="something else"), "not an arena results file"),
        (lambda d: d.update(version=1), "version"),
        (lambda d: d.pop("games"), "lacks games"),
        (lambda d: d.update(games_per_pair=0), "games_per_pair"),
        (lambda d: d.update(paired="yes"), "paired"),
        (lambda d: d.update(deterministic=[1]), "deterministic"),
        (lambda d: d["games"]["ttt"].pop("draws"), "lacks draws"),
        (lambda d: d["games"]["ttt"]["wins"][0].pop(), "3x3 matrix"),
        (lambda d: d["games"]["ttt"]["wins"][0].__setitem__(1, -1), "3x3 matrix"),
        (lambda d: d["games"]["ttt"]["wins"][0].__setitem__(1, d["games"]["ttt"]["wins"][0][1] + 1), "does not match"),
        (lambda d: d["games"]["ttt"]["first"][0].__setitem__(1, 0), "seat counts"),
        (lambda d: d["games"]["ttt"]["seconds"].__setitem__(0, "fast"), "seconds"),
        (lambda d: d["games"]["ttt"].update(agents=["a", "a", "b"]), "distinct"),
        (lambda d: d["games"]["ttt"].pop("pairs"), "lacks pairs"),
        (lambda d: d["games"]["ttt"]["pairs"][0][1].pop(), "lists of 6"),
        (lambda d: d["games"]["ttt"]["pairs"][0][1].__setitem__(0, d["games"]["ttt"]["pairs"][0][1][0] + 1), "mirror"),
        (lambda d: _shift_pair(d["games"]["ttt"]["pairs"]), "hold"),
    ],
)
def test_corrupt_files_give_clear_errors(result, tmp_path, corrupt, message):
    data = json.loads(json.dumps(result.to_json()))
    corrupt(data)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    with pytest.raises(ValueError, match=message):
        ArenaResult.load(path)


def _shift_pair(pairs):
    """Move one of random's game pairs against mcts (agents 0 and 2) to another kind, on both sides
    (so the sides still mirror, but the pairs no longer add up to the W/D/L matrices)."""
    mirror = (5, 4, 2, 3, 1, 0)
    k = next(k for k, c in enumerate(pairs[0][2]) if c)
    m = (k + 1) % 6 if (k + 1) % 6 != mirror[k] else (k + 2) % 6
    for a, b, kk, mm in ((0, 2, k, m), (2, 0, mirror[k], mirror[m])):
        pairs[a][b][kk] -= 1
        pairs[a][b][mm] += 1


def test_every_game_belongs_to_a_pair_and_the_pairs_add_up(result):
    for t in result.tables.values():
        n = len(t.agents)
        for i in range(n):
            for j in range(n):
                if i != j and t.games(i, j):
                    assert 2 * sum(t.pairs[i][j]) == t.games(i, j) and t.paired(t.agents[i], t.agents[j])
                    pent = t.pentanomial(t.agents[i], t.agents[j])
                    assert sum(k * c for k, c in enumerate(pent)) / 2 == t.points(t.agents[i], t.agents[j])
        results, units = t.results(), t.units()
        assert len(results) == len(units) and all(units.count(u) == 2 for u in set(units))
        for u in set(units):  # a unit's two games are one pairing's
            assert len({results[k][:2] for k in range(len(units)) if units[k] == u}) == 1
    # two perfect players from random starts: whoever holds the winning seat wins, so every pair is 1 : 1
    sub = result["sub"]
    assert sub.pentanomial("perfect", "perfect 2") == (0, 0, GPP // 2, 0, 0)
    assert sub.sequential("perfect", "perfect 2").model == "pentanomial"


def test_a_table_without_pairs_is_read_as_single_games():
    t = _table(["a", "b"], [[0, 3], [1, 0]])
    assert not t.paired("a", "b") and t.units() == [0, 1, 2, 3]
    assert t.sequential("a", "b").model == "trinomial" and t.sequential("a", "b").games == 4


def test_unsafe_json_is_refused(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text("{not json")
    with pytest.raises(ValueError):
        ArenaResult.load(path)
    path.write_text('{"format": "gamekit.arena", "x": NaN}')
    with pytest.raises(ValueError):
        ArenaResult.load(path)


def test_to_json_is_a_copy(result):
    wins, moves = result["ttt"].wins[0][1], result["ttt"].moves[0]
    data = result.to_json()
    data["games"]["ttt"]["wins"][0][1] += 100
    data["games"]["ttt"]["moves"][0] += 100
    assert (result["ttt"].wins[0][1], result["ttt"].moves[0]) == (wins, moves)


def test_bad_input_is_refused_and_changes_nothing():
    arena = small_arena()
    before = {g: dict(e) for g, e in arena.entries.items()}
    with pytest.raises(ValueError, match="unknown game"):
        arena.enter("x", lambda s: RandomPlayer(seed=s), games=["chess"])
    with pytest.raises(ValueError, match="already entered"):
        arena.enter("random", lambda s: RandomPlayer(seed=s))
    with pytest.raises(TypeError, match="factory"):
        arena.enter("y", {"ttt": lambda s: None, "sub": 3})
    with pytest.raises(TypeError, match="deterministic"):
        arena.enter("z", lambda s: None, deterministic="yes")
    assert {g: dict(e) for g, e in arena.entries.items()} == before
    with pytest.raises(ValueError, match="games_per_pair"):
        arena.run(1)
    with pytest.raises(ValueError, match="even"):
        arena.run(5)  # each start is played from both seats
    with pytest.raises(ValueError, match="seed"):
        arena.run(4, seed=-1)
    for bad in (True, 4.0, "4", None):
        with pytest.raises(TypeError, match="games_per_pair"):
            arena.run(bad)
    with pytest.raises(TypeError, match="seed"):
        arena.run(4, seed=1.5)
    with pytest.raises(TypeError, match="not a Game|missing"):
        arena.add_game("bad", object())
    with pytest.raises(KeyError, match="did not play"):
        GameTable("g", ["a"]).index("b")


# --- the course's line-up and its saved runs ---------------------------------------------------------

COMMAND = "python scripts/make_arena.py --games-per-pair 20 --seeds 0 1 2 3 4 --out data/arena_seeds.json"


def test_numpy_integers_are_accepted():
    arena = Arena(games={"misere": Nim([1, 2], misere=True)})
    arena.enter("a", lambda s: PerfectPlayer(), deterministic=True)
    arena.enter("b", lambda s: RandomPlayer(seed=s))
    t = arena.run(np.int64(4), seed=np.int64(3), progress=False)["misere"]
    assert t.games(0, 1) == 4


def test_the_class_arena_is_small_and_quick():
    from gamekit import class_arena

    t = class_arena().run(2, seed=0, progress=False)["subtraction 3,5,11"]
    assert len(t.agents) == 5 and all(t.games(i, j) == 2 for i in range(5) for j in range(5) if i != j)


def test_course_arena_enters_each_agent_where_it_can_play():
    from gamekit import course_arena

    arena = course_arena(seed=1, mcts_budgets=(5,), depths=(1,), q_episodes=200)
    entries = {g: set(e) for g, e in arena.entries.items()}
    assert entries["subtraction 3,5,11"] >= {"random", "smart random", "mixed p=0.5", "perfect", "MCTS 5"}
    assert "Q-learner" not in entries["subtraction 3,5,11"] and "h1 depth 1" not in entries["misère Nim 3,5,7"]
    assert {"h1 depth 1", "Q-learner", "raw counts", "1 − P(lose)"} <= entries["TicTacToe"]
    assert [g for g, e in entries.items() if "pole positions" in e] == ["misère Nim 3,5,7"]


def test_the_saved_runs_match_their_command_and_the_current_line_up():
    from gamekit import course_arena

    data = json.loads(data_path("arena_seeds.json").read_text(encoding="utf-8"))
    assert data["command"] + " --out data/arena_seeds.json" == COMMAND
    assert COMMAND in (ROOT / "docs" / "library.md").read_text(encoding="utf-8")
    assert COMMAND in (ROOT / "scripts" / "make_arena.py").read_text(encoding="utf-8")
    runs = load_runs(data_path("arena_seeds.json"))
    assert [r.seed for r in runs] == [0, 1, 2, 3, 4] and {r.games_per_pair for r in runs} == {20}
    line_up = course_arena(q_episodes=10)  # the default line-up; the Q-tables do not matter here
    for r in runs:
        assert {g: t.agents for g, t in r.tables.items()} == {g: list(e) for g, e in line_up.entries.items()}
        assert set(r.deterministic) == line_up.deterministic
        for g, t in r.tables.items():
            for i in range(len(t.agents)):
                for j in range(i + 1, len(t.agents)):
                    assert t.games(i, j) == line_up.games_in_pairing(g, t.agents[i], t.agents[j], 20)
        assert r["TicTacToe"].totals("perfect")[2] == 0


def test_the_regeneration_command_runs_without_warnings():
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
    [(["--games-per-pair", "1"], "games-per-pair"), (["--games-per-pair", "7"], "even"), (["--seeds", "-3"], "seeds")],
)
def test_command_line_refuses_bad_arguments_before_any_work(argv, message, capsys):
    from gamekit.course.lineup import main

    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 2 and message in capsys.readouterr().err


# --- views ------------------------------------------------------------------------------------------


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
    assert min(x.get_fontsize() for x in ax.texts) >= 14 and fig.get_figwidth() >= 10
    plt.close(fig)


def test_rating_views_draw_intervals(result):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from gamekit.views.arena import draw_ratings, draw_ratings_by_seed

    boot = result["ttt"].bootstrap(seed=1, reps=20, anchor="random")
    fig = draw_ratings({"ttt": boot, "misere": result.ratings("misere")})
    from matplotlib.container import ErrorbarContainer

    bars = [c for c in fig.axes[0].containers if isinstance(c, ErrorbarContainer)]
    assert len(bars) == 1 and len(bars[0].lines[2][0].get_segments()) == len(boot.names)  # one bar per agent
    assert not any(isinstance(c, ErrorbarContainer) for c in fig.axes[1].containers)  # no bootstrap, no bars
    plt.close(fig)
    fig = draw_ratings_by_seed([boot, boot], labels=["a", "b"])
    assert [x.get_text() for x in fig.axes[0].get_legend().get_texts()] == ["a", "b"]
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


def test_rate_curve_draws_wilson_intervals():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.container import ErrorbarContainer

    from gamekit.stats import wilson
    from gamekit.views.arena import draw_rate_curve

    fig = draw_rate_curve([10, 100], [(3, 30), (24, 30)], notes=["a", "b"])
    ax = fig.axes[0]
    (bars,) = [c for c in ax.containers if isinstance(c, ErrorbarContainer)]
    low_end = bars.lines[2][0].get_segments()[0][0][1]
    assert low_end == pytest.approx(wilson(3, 30)[0]) and [t.get_text() for t in ax.texts] == ["a", "b"]
    plt.close(fig)
