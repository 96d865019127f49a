"""The tournament's statistics: game pairs found from the schedule's ids, the sequential test on
them, and leaderboard intervals that are never of zero width (records written here, no sandbox)."""

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


def test_four_one_sided_games_give_a_profile_interval_never_zero_width():
    games = [("x", "y", k, 0, 1.0) for k in range(2)] + [("y", "x", k, 1, 0.0) for k in range(2)]
    res = make_results(games)
    rows = res.standings(reps=1000)
    top = rows[0]
    assert top.id == "x" and top.profiled and top.low < top.rating < top.high and top.high - top.low > 100
    assert "*" in res.table(reps=1000) and "only by the prior" in res.table(reps=1000)


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
    page = _neighbours_html(res, res.standings(reps=1000))
    assert "pentanomial" in page and "undecided" in page


def test_a_lone_game_is_read_as_a_single_game():
    res = make_results([("x", "y", 0, 0, 1.0)])
    q = res.sequential("x", "y")
    assert q.test.model == "trinomial" and q.test.decision is None and math.isfinite(q.test.llr)
    with pytest.raises(ValueError, match="have not played"):
        make_results([("x", "y", 0, 0, 1.0), ("z", "y", 0, 0, 1.0)]).sequential("x", "z")
