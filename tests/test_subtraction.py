"""The subtraction game: rules, validation, red/blue numbers, periods and strategy tables."""

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gamekit import (
    IllegalMoveError,
    PerfectPlayer,
    SubtractionGame,
    SubtractionState,
    periodicity,
    red_blue,
    solve,
    strategy_table,
    winning_moves,
)
from gamekit.games.subtraction import MAX_N


def brute_red(N, moves):
    """Red numbers by the definition, straight from the rules (no tricks): n is red when no
    move from n reaches a red number that is >= 0."""
    red = []
    for n in range(N + 1):
        red.append(not any(n - d >= 0 and red[n - d] for d in moves))
    return red


# --- rules ----------------------------------------------------------------------------


def test_rules_reaching_zero_wins_and_going_below_loses():
    g = SubtractionGame(5)
    s = g.play(g.initial_state(), 5)
    assert g.is_terminal(s) and s == SubtractionState(0, 1)
    assert g.utility(s, 0) == 1 and g.utility(s, 1) == -1  # A reached 0
    s = g.play(g.initial_state(), 11)  # legal, goes below zero, loses
    assert g.is_terminal(s) and s.n == -6
    assert g.utility(s, 0) == -1 and g.utility(s, 1) == 1


def test_play_does_not_mutate_and_alternates_players():
    g = SubtractionGame(22)
    s0 = g.initial_state()
    s1 = g.play(s0, 5)
    assert s0 == SubtractionState(22, 0) and s1 == SubtractionState(17, 1)
    assert g.to_move(s1) == 1 and g.legal_moves(s1) == (3, 5, 11)


def test_moves_are_sorted_and_any_set_allowed():
    assert SubtractionGame(10, moves=[11, 3, 5]).moves == (3, 5, 11)
    assert SubtractionGame(10, moves={7}).moves == (7,)


def test_illegal_move_names_move_and_allowed_moves():
    g = SubtractionGame(22)
    with pytest.raises(IllegalMoveError, match=r"illegal move 4 .*allowed moves: 3, 5, 11"):
        g.play(g.initial_state(), 4)
    end = g.play(SubtractionState(3, 0), 3)
    with pytest.raises(IllegalMoveError, match="game is over"):
        g.play(end, 3)
    assert issubclass(IllegalMoveError, ValueError)


@pytest.mark.parametrize(
    "moves, message",
    [
        ([], "must not be empty"),
        ([3, 0], "positive integer"),
        ([3, -5], "positive integer"),
        ([3, 5, 3], "distinct"),
        ([3, 2.5], "whole number"),
        ([3, True], "whole number"),
        ("35", "collection"),
        (7, "collection"),
    ],
)
def test_bad_moves_are_rejected_with_a_clear_message(moves, message):
    with pytest.raises((ValueError, TypeError), match=message):
        SubtractionGame(10, moves=moves)


@pytest.mark.parametrize("start", [-1, 2.5, "7", None, True])
def test_bad_start_is_rejected(start):
    with pytest.raises((ValueError, TypeError), match="start must be a whole number >= 0"):
        SubtractionGame(start)


def test_utility_before_the_end_is_an_error():
    g = SubtractionGame(9)
    with pytest.raises(ValueError, match="only at the end"):
        g.utility(g.initial_state(), 0)


# --- red and blue numbers ---------------------------------------------------------------


def test_red_numbers_follow_the_mod_8_rule():
    rb = red_blue(100_000)
    n = np.arange(100_001)
    assert np.array_equal(rb.is_red, n % 8 <= 2)


def test_source_sets_A_and_B_up_to_80():
    rb = red_blue(80)
    assert rb.red == [n for n in range(81) if n % 8 in (0, 1, 2)]
    assert rb.blue == [n for n in range(81) if n % 8 not in (0, 1, 2)]
    assert 80 in rb.red  # the source's script stops at 79 and misses it


@pytest.mark.parametrize("trial", range(40))
def test_red_blue_matches_brute_force_for_random_sets(trial):
    rng = random.Random(trial)
    moves = tuple(sorted(rng.sample(range(1, 16), rng.randint(1, 4))))
    N = rng.randint(0, 400)
    assert red_blue(N, moves).is_red.tolist() == brute_red(N, moves)


def test_red_blue_large_N_is_consistent_with_its_period():
    rb = red_blue(10**6, (3, 5, 8))
    n = np.arange(10**6 + 1)
    assert np.array_equal(rb.is_red, n % 11 <= 2)


def test_3_5_gives_the_same_sets_as_3_5_11():
    assert np.array_equal(red_blue(10_000, (3, 5)).is_red, red_blue(10_000).is_red)
    assert periodicity((3, 5)).pattern == periodicity((3, 5, 11)).pattern


def test_N_too_large_for_memory_is_rejected():
    with pytest.raises(ValueError, match="too large for memory"):
        red_blue(MAX_N + 1)
    with pytest.raises(ValueError, match="N must be a whole number >= 0"):
        red_blue(-1)


# --- periods with proof ------------------------------------------------------------------


def test_periods_of_known_sets():
    assert (periodicity((3, 5, 11)).period, periodicity((3, 5, 11)).preperiod) == (8, 0)
    assert periodicity((3, 5, 8)).period == 11
    assert periodicity((1, 2)).period == 3
    assert periodicity((1,)).period == 2


@pytest.mark.parametrize("trial", range(40))
def test_period_certificate_and_brute_force_agree(trial):
    rng = random.Random(1000 + trial)
    moves = tuple(sorted(rng.sample(range(1, 13), rng.randint(1, 4))))
    p = periodicity(moves)
    assert p.verify()
    colours = brute_red(p.preperiod + 6 * p.period + 50, moves)
    # periodic from the pre-period on ...
    assert all(colours[n] == colours[n + p.period] for n in range(p.preperiod, len(colours) - p.period))
    # ... and not one step earlier, and no smaller period works
    if p.preperiod > 0:
        n = p.preperiod - 1
        assert colours[n] != colours[n + p.period]
    for q in range(1, p.period):
        assert any(colours[n] != colours[n + q] for n in range(p.preperiod, len(colours) - q))
    for n in range(len(colours)):
        assert p.is_red(n) == colours[n]


def test_a_broken_certificate_does_not_verify():
    p = periodicity((3, 5, 11))
    from dataclasses import replace

    assert not replace(p, period=p.period - 1).verify()


# --- the strategy table ---------------------------------------------------------------------


def test_strategy_table_reproduces_the_sources_table_2():
    table = strategy_table((3, 5, 11))
    rows = {r.residue: r for r in table.rows}
    assert table.period == 8
    assert [r for r in rows if rows[r].red] == [0, 1, 2]
    assert rows[7].moves == (5,) and rows[6].moves == (5,)
    assert rows[5].moves == (3, 5, 11)
    assert rows[4].moves == (3, 11) and rows[3].moves == (3, 11)
    assert dict(rows[5].exceptions) == {5: (3, 5)}  # 11 not yet possible at n = 5


@pytest.mark.parametrize("moves", [(3, 5, 11), (3, 5, 8), (1, 4), (2, 7), (2, 5, 6), (4, 9, 10)])
def test_strategy_table_gives_the_winning_moves_for_every_n(moves):
    table = strategy_table(moves)
    colours = brute_red(600, moves)
    rows = {r.residue: r for r in table.rows}
    for n in range(1, 601):
        truth = tuple(d for d in moves if n - d >= 0 and colours[n - d])
        row = rows[n % table.period]
        expected = dict(row.exceptions).get(n, row.moves)
        assert truth == expected, (moves, n)
        assert winning_moves(n, moves) == truth
        assert (table.move_for(n) is None) == colours[n]


# --- property tests (hypothesis): exact values against the mod-8 rule, from both seats -----------


_SOLVED: dict = {}
_PERFECT = PerfectPlayer()  # one player for every example: its values are reused across starts


def _values_up_to_2000():
    if not _SOLVED:  # every position 0..2000, both seats, in one shared table (each solved once)
        g = SubtractionGame(2000)
        for n in range(2001):
            for seat in (0, 1):
                solve(g, g.state(n, seat), table=_SOLVED)
    return _SOLVED


@settings(max_examples=200, deadline=None)
@given(n=st.integers(1, 2000), seat=st.sampled_from([0, 1]))
def test_values_and_perfect_moves_follow_the_mod_8_rule_from_both_seats(n, seat):
    red = n % 8 in (0, 1, 2)  # the source's rule, the oracle
    game = SubtractionGame(2000)
    s = game.state(n, seat)
    value = _values_up_to_2000()[s]
    assert (value if seat == 0 else -value) == (-1 if red else 1)
    after = n - _PERFECT(game, s)
    if not red:
        assert after >= 0 and after % 8 in (0, 1, 2)  # a winning move produces a red number


@settings(max_examples=60, deadline=None)
@given(moves=st.sets(st.integers(1, 12), min_size=1, max_size=4), n=st.integers(0, 300))
def test_periodicity_and_red_blue_match_the_definition_for_any_set(moves, n):
    moves = tuple(sorted(moves))
    red = brute_red(n, moves)
    assert periodicity(moves).is_red(n) == red[n]
    assert red_blue(n, moves).is_red.tolist() == red
