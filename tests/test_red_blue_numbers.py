"""The numbers notebook 02 (red and blue numbers) states, checked against independent oracles.

Oracles used here: a plain recursive definition of "red" (no move reaches a red number), the
exact game values of `solve`, the rule n mod 8 from the source, a brute-force period finder,
and an exact probability computed with fractions. Expected values come from these, not from
the library functions under test.
"""

import itertools
import math
from fractions import Fraction
from functools import cache

import numpy as np

from gamekit import (
    MixedPlayer,
    PerfectPlayer,
    SmartRandomPlayer,
    SubtractionGame,
    periodicity,
    play_game,
    random_start,
    red_blue,
    solve,
    strategy_table,
    winning_moves,
)
from gamekit.match import tournament  # the function; `gamekit.tournament` becomes the package once imported

MOVES = (3, 5, 11)
SEED = 2026  # the notebook's seed


def naive_colours(moves, count):
    """Red (True) / blue (False) for 0..count-1 straight from the definition, no library code."""
    red = []
    for n in range(count):
        red.append(all(n - d < 0 or not red[n - d] for d in moves))
    return red


def brute_period(moves, count=600):
    """Smallest P with colour(n) == colour(n + P) for all n in the second half of a long prefix."""
    red = naive_colours(moves, count)
    half = count // 2
    return next(P for P in range(1, half) if all(red[n] == red[n + P] for n in range(half // 2, half)))


# --------------------------------------------------------------------------------------
# Sections 1-3: backwards from the end, the rule mod 8, the certificate
# --------------------------------------------------------------------------------------


def test_red_numbers_up_to_22_and_agreement_with_solve():
    assert red_blue(22).red == [n for n, r in enumerate(naive_colours(MOVES, 23)) if r]
    assert red_blue(22).red == [0, 1, 2, 8, 9, 10, 16, 17, 18]
    game = SubtractionGame(0, MOVES)
    for n in range(151):
        for seat in (0, 1):
            # from both seats: the player to move at a red number loses (value from player 0's view)
            value = solve(game, game.state(n, seat))[game.state(n, seat)]
            mover_loses = value == (-1 if seat == 0 else +1)
            assert mover_loses == (n % 8 in (0, 1, 2)), (n, seat)


def test_the_three_regularities_of_figure_4_up_to_100000():
    N = 100_000
    red = red_blue(N).is_red
    assert (red == np.isin(np.arange(N + 1) % 8, [0, 1, 2])).all()
    reaches_red = np.zeros(N + 1, dtype=bool)
    for d in MOVES:
        reaches_red[d:] |= red[:-d]
    assert not (red & reaches_red).any()
    assert (reaches_red == ~red).all()
    blue = ~red[: N - 11]
    pred_red = np.zeros(N - 11, dtype=bool)
    pred_blue = np.zeros(N - 11, dtype=bool)
    for d in MOVES:
        pred_red |= red[d : N - 11 + d]
        pred_blue |= ~red[d : N - 11 + d]
    assert (blue & pred_red).any() and (blue & pred_blue).any()


def test_blue_numbers_where_every_move_wins_are_5_mod_8_from_13_on():
    red = naive_colours(MOVES, 400)
    no_mistake = [n for n in range(1, 400) if not red[n] and all(n - d >= 0 and red[n - d] for d in MOVES)]
    assert no_mistake == [n for n in range(13, 400) if n % 8 == 5]


def test_period_certificate_of_the_source_set():
    p = periodicity(MOVES)
    assert (p.period, p.preperiod, p.first, p.second) == (8, 0, 6, 14)
    assert p.period == brute_period(MOVES)
    assert p.window == (0, 0, 0, 0, 0, 1, 1, 1, 0, 0, 0) and p.verify()


# --------------------------------------------------------------------------------------
# Sections 4-6: table 2, the script, the source's exercises
# --------------------------------------------------------------------------------------


def test_strategy_table_is_table_2_with_the_small_exceptions():
    table = strategy_table(MOVES)
    source_table_2 = {7: {5}, 6: {5}, 5: {3, 5, 11}, 4: {3, 11}, 3: {3, 11}, 2: set(), 1: set(), 0: set()}
    assert {row.residue: set(row.moves) for row in table.rows} == source_table_2
    assert {n: ms for row in table.rows for n, ms in row.exceptions} == {3: (3,), 4: (3,), 5: (3, 5)}


def test_example_game_of_table_1_is_won_by_A_with_perfect_play():
    course = [22, 17, 12, 9, 6, 1]
    red = naive_colours(MOVES, 23)
    assert all(a - b in MOVES for a, b in zip(course, course[1:]))
    assert all(red[n] for n in course[1::2])
    assert all(1 - d < 0 for d in MOVES)  # B must go below zero


def test_the_scripts_output_misses_80():
    red = naive_colours(MOVES, 81)
    printed_A = [
        0,
        1,
        2,
        8,
        9,
        10,
        16,
        17,
        18,
        24,
        25,
        26,
        32,
        33,
        34,
        40,
        41,
        42,
        48,
        49,
        50,
        56,
        57,
        58,
        64,
        65,
        66,
        72,
        73,
        74,
    ]
    assert printed_A == red_blue(79).red
    assert red[80] and red_blue(80).red == printed_A + [80]


def test_exercise_answers_of_the_source():
    # 2.1: 4..14
    assert [n for n in range(4, 15) if red_blue(14).is_red[n]] == [8, 9, 10]
    # 2.2: {3, 5} gives the same colours, for every n (same period, pre-period and pattern)
    p35, p = periodicity((3, 5)), periodicity(MOVES)
    assert (p35.period, p35.preperiod, p35.pattern) == (p.period, p.preperiod, p.pattern) == (8, 0, p.pattern)
    assert naive_colours((3, 5), 500) == naive_colours(MOVES, 500)
    # 2.3: 11 is a winning move exactly when 3 is and n >= 11
    for n in range(1, 3000):
        wins = winning_moves(n, MOVES)
        assert (11 in wins) == (3 in wins and n >= 11)
    # 2.4: {3, 5, 8} has period 11, red = n mod 11 in {0, 1, 2}
    red = naive_colours((3, 5, 8), 300)
    assert periodicity((3, 5, 8)).period == brute_period((3, 5, 8)) == 11
    assert all(red[n] == (n % 11 in (0, 1, 2)) for n in range(300))
    # 2.5: {4, 11, 15} has period 100
    assert periodicity((4, 11, 15)).period == brute_period((4, 11, 15), 1200) == 100
    # 2.6: predictions
    assert periodicity((4, 7)).period == 11 and periodicity((3, 15)).period == 6


# --------------------------------------------------------------------------------------
# Section 7: periods of many sets
# --------------------------------------------------------------------------------------


def test_periods_of_all_pairs_up_to_12():
    for a, b in itertools.combinations(range(1, 13), 2):
        expected = 2 * a if (b % a == 0 and (b // a) % 2 == 1) else a + b
        p = periodicity((a, b))
        assert p.period == expected == brute_period((a, b)), (a, b)
        assert p.preperiod == 0


def test_three_move_sets_up_to_15():
    triples = {s: periodicity(s) for s in itertools.combinations(range(1, 16), 3)}
    assert len(triples) == 455 == math.comb(15, 3)
    longest = max(triples, key=lambda s: triples[s].period)
    assert (longest, triples[longest].period) == ((4, 11, 15), 100)
    assert sum(q.preperiod > 0 for q in triples.values()) == 73
    assert triples[(1, 4, 10)].preperiod == 11 and triples[(1, 4, 10)].period == brute_period((1, 4, 10)) == 11


# --------------------------------------------------------------------------------------
# Sections 8-11: strategies, playouts, course graphs, mixed(p)
# --------------------------------------------------------------------------------------


def source_optimal(n):
    """The source's nextMove.optimal: switch(n %% 8 + 1, 3, 3, 3, 3, 3, 3, 5, 5)."""
    return n - [3, 3, 3, 3, 3, 3, 5, 5][n % 8]


def test_perfect_player_is_the_sources_switch_statement():
    game, perfect = SubtractionGame(0, MOVES), PerfectPlayer()
    for seat in (0, 1):
        assert all(source_optimal(n) == n - perfect(game, game.state(n, seat)) for n in range(1, 600))


def test_smart_random_player_subtracts_11_a_third_of_the_time():
    game, smart = SubtractionGame(0, MOVES), SmartRandomPlayer(seed=SEED)
    picks = [smart(game, game.state(n)) for n in range(12, 60) for _ in range(100)]
    assert all(abs(picks.count(d) / len(picks) - 1 / 3) < 0.03 for d in MOVES)
    for n in range(6, 11):
        assert {smart(game, game.state(n)) for _ in range(100)} == {3, 5}


@cache
def p_end_at_zero(n):
    """Exact probability that smart random vs smart random from n ends at exactly 0."""
    if n <= 0:
        return Fraction(int(n == 0))
    if n in MOVES:
        return Fraction(1)
    options = ([d for d in MOVES if d <= n] or [3]) if n <= 11 else list(MOVES)
    return sum(p_end_at_zero(n - d) for d in options) / len(options)


def test_share_of_wrong_winners_under_the_sources_rule_matches_the_exact_probability():
    game = SubtractionGame(22, MOVES)
    recs = tournament(
        game,
        SmartRandomPlayer(seed=1),
        SmartRandomPlayer(seed=2),
        games=2000,
        seed=SEED,
        start=random_start(20, 50),
        keep_records=True,
    ).records
    source_rule_wrong = [(1 - r.movers[-1]) != r.winner for r in recs]
    ends_at_zero = [r.states[-1].n == 0 for r in recs]
    assert source_rule_wrong == ends_at_zero  # the source's rule fails exactly on games ending at 0
    exact = float(sum(p_end_at_zero(n) for n in range(20, 51)) / 31)
    share = float(np.mean(source_rule_wrong))
    assert 0.5 < exact < 0.52
    assert abs(share - exact) < 4 * math.sqrt(exact * (1 - exact) / 2000)


def test_course_vector_of_the_source_is_too_short_by_one_or_two():
    always_3 = lambda g, s: 3
    for n in range(20, 51):
        needed = len(play_game(SubtractionGame(n, MOVES), [always_3, always_3]).states)
        assert needed == 1 + math.ceil(n / 3)
        assert needed - n // 3 == (1 if n % 3 == 0 else 2)


PRINTED = {
    5: [50, 47, 42, 39, 34, 31, 26, 21, 18, 15, 12, 7, 2, -1],
    6: [44, 41, 38, 33, 30, 25, 22, 17, 14, 9, 6, 1, -2],
    7: [45, 42, 39, 36, 31, 26, 21, 18, 15, 12, 7, 2, -1],
    8: [50, 45, 42, 39, 34, 31, 26, 23, 18, 13, 10, 7, 4, 1, -2],
}


def oracle_colour(n1, n2):
    red = lambda n: n >= 0 and n % 8 in (0, 1, 2)
    return "black" if red(n1) else ("red" if red(n2) else "blue")


def test_claims_about_the_printed_courses():
    from gamekit.views.subtraction import edge_colours

    colours = {f: [oracle_colour(a, b) for a, b in zip(c, c[1:])] for f, c in PRINTED.items()}
    assert {f: edge_colours(c) for f, c in PRINTED.items()} == colours
    assert colours[5][1::2].count("blue") == 1 and colours[5][0::2].count("blue") == 1
    assert "red" not in colours[5][0::2]
    assert set(colours[6][0::2]) == {"red"}
    assert colours[8][1::2] == ["red"] * 5 + ["blue", "black"] and PRINTED[8][11] == 7
    for cs in colours.values():
        assert all(b == "black" for a, b in zip(cs, cs[1:]) if a == "red")
    # moves certainly made by the random strategy at n > 11: none subtracts 11
    random_seats = {6: {2}, 7: {1, 2}, 8: {1}}
    moves = [
        a - b
        for f, seats in random_seats.items()
        for i, (a, b) in enumerate(zip(PRINTED[f], PRINTED[f][1:]))
        if i % 2 + 1 in seats and a > 11
    ]
    assert len(moves) == 19 and 11 not in moves


def test_win_rates_of_the_strategies():
    from gamekit.views.subtraction import mixed_win_rate

    game = SubtractionGame(22, MOVES)
    result = tournament(
        game, PerfectPlayer(), SmartRandomPlayer(seed=SEED), games=300, seed=SEED, start=random_start(20, 50)
    )
    assert result.win_rate(0) > 0.9
    low, high = mixed_win_rate(0.0, games=300, seed=SEED), mixed_win_rate(1.0, games=300, seed=SEED)
    assert abs(low - 0.5) < 0.1 and high > 0.9 and high - low > 0.35
    # from the red number 48 the random player moving first never wins against perfect play
    res = tournament(
        game,
        SmartRandomPlayer(seed=SEED),
        PerfectPlayer(),
        games=200,
        seed=SEED,
        start=lambda g, rng: g.state(48),
        swap_seats=False,
    )
    assert res.wins == [0, 200]
    # and mixed(1) is the perfect player from both seats
    mixed = MixedPlayer(1.0, seed=SEED)
    assert all(
        mixed(game, game.state(n, s)) == PerfectPlayer()(game, game.state(n, s)) for n in range(1, 100) for s in (0, 1)
    )
