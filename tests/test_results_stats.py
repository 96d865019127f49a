"""The tournament's statistics: game pairs found from the schedule's ids, the sequential test on
them, and leaderboard intervals that are given only where they keep their level, else the plain
statement that the games are too few (records written here, no sandbox)."""

import math

import pytest

from gamekit.tournament.html import _neighbours_html
from gamekit.tournament.results import Results
from gamekit.tournament.runner import Entrant


def make_results(games: list[tuple[str, str, int, int, float]]) -> Results:
    """A Results over fabricated records: (first, second, start, order, score of the first)."""
    r = Results.__new__(Results)
    agents = sorted({x for g in games for x in g[:2]})
    r.tournament = None  # type: ignore[assignment]
    r.config = {"seed": 0}
    r.entrants = [Entrant(a, f"{a}.py", "", a, "accepted", "") for a in agents]
    r.names = {a: a for a in agents}
    r.records = []
    for first, second, k, order, s in games:
        a, b = (first, second) if order == 0 else (second, first)
        r.records.append(
            {
                "id": f"{a}~{b}~{k}~{order}",
                "agents": [first, second],
                "score": [s, 1 - s],
                "forfeit": None,
                "moves": [],
            }
        )
    return r


def test_four_one_sided_games_give_no_interval_and_say_why():
    games = [("x", "y", k, 0, 1.0) for k in range(2)] + [("y", "x", k, 1, 0.0) for k in range(2)]
    res = make_results(games)
    rows = res.standings()
    top = rows[0]
    assert top.id == "x" and math.isfinite(top.rating) and math.isnan(top.low) and math.isnan(top.high)
    assert "too few" in res.table() and "[" not in res.table().split("\n")[1]
    page = _neighbours_html(res, rows, res.ratings())
    assert "too few" in page and "settled (Holm)" not in page
    # the bootstrap is still there, to show what it does with two pairs: a likelihood interval
    boot = res.ratings(reps=1000, method="bootstrap")
    assert boot.profiled == ("x", "y") and boot.low is not None and boot.high is not None
    with pytest.raises(ValueError, match="method must be"):
        res.ratings(method="guess")


def round_robin(n: int, agents=("p", "q", "r", "s"), seed: int = 0):
    """n starts per pairing, both seat orders; the alphabetically earlier agent a bit stronger."""
    import numpy as np

    rng = np.random.default_rng(seed)
    games = []
    for i, a in enumerate(agents):
        for b in agents[i + 1 :]:
            for k in range(n):
                for order, (first, second) in enumerate([(a, b), (b, a)]):
                    s = float(rng.choice([1.0, 0.5, 0.0], p=[0.5, 0.2, 0.3]))
                    games.append((first, second, k, order, s if first == a else 1 - s))
    return make_results(games)


def test_from_five_pairs_per_pairing_the_board_prints_intervals_differences_and_holm():
    res = round_robin(4)
    assert "too few" in res.table()
    res = round_robin(5)
    r = res.ratings()
    assert r.too_few == "" and r.low is not None and r.cov is not None and r.df == 6 * 5 - 1  # 6 pairings, 5 pairs each
    for name in r.names:
        lo, hi = r.interval(name)
        assert lo < r[name] < hi
    nb = res.neighbours(r)
    assert len(nb) == 3 and all(row["low"] < row["difference"] < row["high"] for row in nb)
    assert all(row["difference"] >= 0 for row in nb)  # the board's order: upper minus lower
    text = res.table()
    assert "3 neighbour comparisons" in text and "Holm" in text and "profile likelihood" in text
    page = _neighbours_html(res, res.standings(ratings=r), r)
    assert "3 comparisons" in page and "Holm" in page and "overlapping bars" in page


def test_holm_settles_an_order_only_when_the_smallest_p_values_pass_in_turn():
    res = round_robin(10)
    r = res.ratings()
    nb = res.neighbours(r)
    ps = sorted(row["p"] for row in nb)
    settled = 0
    for k, p in enumerate(ps):  # Holm's step-down rule, written out again
        if p > 0.05 / (len(ps) - k):
            break
        settled += 1
    assert sum(row["settled"] for row in nb) == settled
    for row in nb:  # a settled order's 95 % interval excludes 0 (Holm is stricter than one test)
        assert not row["settled"] or row["low"] > 0


def test_pairs_are_found_from_the_ids_and_the_test_reads_pairs():
    games = []
    for k in range(6):  # x wins from the first seat, y from the first seat: every pair 1 : 1
        games += [("x", "y", k, 0, 1.0), ("y", "x", k, 1, 1.0)]
    games += [("x", "y", 6, 0, 1.0)]  # its partner is not played yet
    res = make_results(games)
    p = res.pairing("x", "y")
    assert (p.wins, p.draws, p.losses) == (7, 0, 6) and p.pairs == (0, 0, 6, 0, 0) and not p.paired
    q = res.sequential("x", "y")
    assert q.test.model == "pentanomial" and sum(q.test.counts) == 6 and q.test.decision is None
    assert q.test.more >= 2 and "6 game pairs" in q.text()
    units = res.units()
    assert len(set(units)) == 7 and units.count("x~y~0") == 2
    assert "too few" in res.table()  # 6 pairs but only two agents: the sequential test is the tool


def test_a_lone_game_is_read_as_a_single_game():
    res = make_results([("x", "y", 0, 0, 1.0)])
    q = res.sequential("x", "y")
    assert q.test.model == "trinomial" and q.test.decision is None and math.isfinite(q.test.llr)
    with pytest.raises(ValueError, match="have not played"):
        make_results([("x", "y", 0, 0, 1.0), ("z", "y", 0, 0, 1.0)]).sequential("x", "z")


def test_the_report_summary_is_strict_json_when_there_are_no_intervals():
    import json

    from gamekit.tournament.html import _finite_or_none

    rows = round_robin(2).standings()
    assert all(math.isnan(s.low) for s in rows)
    with pytest.raises(ValueError):
        json.dumps([dict(s.__dict__) for s in rows], allow_nan=False)
    text = json.dumps([_finite_or_none(dict(s.__dict__, score=s.score)) for s in rows], allow_nan=False)
    back = json.loads(text)
    assert all(r["low"] is None and r["high"] is None and isinstance(r["rating"], float) for r in back)


def test_an_unbeaten_agent_is_marked_and_its_interval_follows_the_likelihood():
    import numpy as np

    from gamekit.tournament.results import ONE_SIDED_NOTE

    rng = np.random.default_rng(3)
    games = []
    agents = ("champ", "p", "q", "r")
    for i, a in enumerate(agents):
        for b in agents[i + 1 :]:
            for k in range(5):
                for order, (first, second) in enumerate([(a, b), (b, a)]):
                    s = 1.0 if a == "champ" else float(rng.choice([1.0, 0.5, 0.0]))
                    games.append((first, second, k, order, s if first == a else 1 - s))
    res = make_results(games)
    top = res.standings()[0]
    assert top.id == "champ" and top.losses == 0 and top.one_sided
    assert top.high - top.rating > 1.5 * (top.rating - top.low)  # not Wald's symmetric interval
    text = res.table()
    assert "†" in text.split("\n")[1] and ONE_SIDED_NOTE in text
    page = _neighbours_html(res, res.standings(), res.ratings())
    assert "settled" in page
