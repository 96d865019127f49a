"""Nim against Bouton's rule: search values and the search player's moves, normal and misère
play, every position up to (5, 5, 5), both players to move."""

import itertools

import pytest

from gamekit import Nim, SearchPlayer, TranspositionTable, alphabeta, is_p_position, minimax, nim_sum, winning_nim_moves


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
