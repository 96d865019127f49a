"""Nim against Bouton's rule: search values and the search player's moves, normal and misère
play, every position up to (5, 5, 5), both players to move."""

import itertools
from functools import reduce
from operator import xor

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gamekit import (
    Nim,
    PerfectPlayer,
    SearchPlayer,
    TranspositionTable,
    alphabeta,
    is_p_position,
    minimax,
    nim_sum,
    solve,
    winning_nim_moves,
)


@pytest.mark.parametrize("misere", [False, True])
def test_alphabeta_agrees_with_bouton_up_to_555(misere):
    game = Nim((5, 5, 5), misere=misere)
    table = TranspositionTable()
    player = SearchPlayer()
    checked = 0
    for piles in itertools.product(range(6), repeat=3):
        for to_move in (0, 1):
            s = game.state(piles, to_move)
            v = alphabeta(game, s, table=table).value
            mover_value = v if to_move == 0 else -v
            assert mover_value == (-1 if is_p_position(piles, misere) else 1), (piles, to_move)
            if not game.is_terminal(s):
                move = player(game, s)
                if is_p_position(piles, misere):
                    assert move in game.legal_moves(s)
                else:
                    assert move in winning_nim_moves(piles, misere)
            checked += 1
    assert checked == 6**3 * 2


@pytest.mark.parametrize("piles", [(1, 2, 3, 4), (2, 2, 3, 3), (1, 1, 1, 1, 2)])
@pytest.mark.parametrize("misere", [False, True])
def test_four_and_five_piles(piles, misere):
    game = Nim(piles, misere=misere)
    r = alphabeta(game, table=TranspositionTable())
    assert r.value == (-1 if is_p_position(piles, misere) else 1)


def test_plain_minimax_on_a_small_nim_from_both_seats():
    for piles in [(1, 2), (2, 2), (1, 2, 3), (3, 1, 1)]:
        game = Nim(piles)
        for to_move in (0, 1):
            v = minimax(game, game.state(piles, to_move)).value
            sign = 1 if to_move == 0 else -1
            assert sign * v == (1 if nim_sum(piles) else -1)


# --- property tests (hypothesis): exact values and the rules' functions against Bouton's rule ---


def bouton_mover_loses(piles, misere):
    """Independent oracle (written from Bouton's theorem, not from gamekit): does the mover lose?"""
    if misere and all(p <= 1 for p in piles):
        return sum(piles) % 2 == 1  # an odd number of single sticks: the mover must take the last one
    return reduce(xor, piles, 0) == 0


small_piles = st.lists(st.integers(0, 4), min_size=1, max_size=3)


@settings(max_examples=60, deadline=None)
@given(piles=small_piles, misere=st.booleans(), seat=st.sampled_from([0, 1]))
def test_solve_and_perfect_player_follow_bouton_from_both_seats(piles, misere, seat):
    game = Nim(piles, misere=misere)
    s = game.state(piles, seat)
    value = solve(game, s)[s]
    mover_value = value if seat == 0 else -value
    assert mover_value == (-1 if bouton_mover_loses(piles, misere) else 1)
    if not game.is_terminal(s) and not bouton_mover_loses(piles, misere):
        after = game.play(s, PerfectPlayer()(game, s))
        assert bouton_mover_loses(after.piles, misere)  # the perfect move leaves a losing position


@settings(max_examples=100, deadline=None)
@given(piles=st.lists(st.integers(0, 40), min_size=1, max_size=5), misere=st.booleans())
def test_is_p_position_and_winning_moves_match_the_oracle(piles, misere):
    assert is_p_position(piles, misere) == bouton_mover_loses(piles, misere)
    brute = [
        (i, take)
        for i, size in enumerate(piles)
        for take in range(1, size + 1)
        if bouton_mover_loses(piles[:i] + [size - take] + piles[i + 1 :], misere)
    ]
    assert winning_nim_moves(piles, misere) == brute
