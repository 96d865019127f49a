"""The match runner: paired starts, start choosers owned by the games, clear player errors."""

import numpy as np
import pytest

from gamekit import (
    IllegalMoveError,
    Nim,
    PerfectPlayer,
    PlayerError,
    RandomPlayer,
    SmartRandomPlayer,
    SubtractionGame,
    TicTacToe,
    draw_start,
    play_game,
    random_start,
)
from gamekit.match import tournament  # the function; `gamekit.tournament` becomes the package once imported


def test_two_perfect_players_score_exactly_half_with_paired_starts():
    game = SubtractionGame(22)
    for seed in range(3):
        res = tournament(game, PerfectPlayer(), PerfectPlayer(), games=40, seed=seed, start=random_start())
        assert res.paired and res.games == 40 and res.wins == [20, 20]
        assert res.score(0) == res.score(1) == 0.5
        assert res.pair_scores == [1.0] * 20  # each start won once by each seat


def test_unpaired_starts_do_not_cancel_start_luck():
    """The same line-up without pairing: the score drifts from 1/2 with the red starts drawn."""
    game = SubtractionGame(22)
    scores = {
        tournament(game, PerfectPlayer(), PerfectPlayer(), games=41, seed=s, start=random_start(), paired=False).score(
            0
        )
        for s in range(5)
    }
    assert scores != {0.5}


def test_each_pair_shares_its_start_and_swaps_seats():
    game = SubtractionGame(22)
    res = tournament(
        game, PerfectPlayer(), SmartRandomPlayer(1), games=30, seed=4, start=random_start(20, 50), keep_records=True
    )
    starts = [r.states[0] for r in res.records]
    assert starts[0::2] == starts[1::2]
    assert len(set(starts[0::2])) > 5 and all(20 <= s.n <= 50 and s.to_move == 0 for s in starts)
    assert [r.names[0] for r in res.records[:4]] == ["perfect", "random (smart end)"] * 2
    assert res.seat_games == [[15, 15], [15, 15]]
    assert sum(res.pair_scores) == res.wins[0] + res.draws / 2


def test_paired_tournament_wants_an_even_number_of_games():
    with pytest.raises(ValueError, match="even"):
        tournament(SubtractionGame(9), RandomPlayer(1), RandomPlayer(2), games=7)
    # without swapped seats there is nothing to pair: any count is fine
    res = tournament(SubtractionGame(9), RandomPlayer(1), RandomPlayer(2), games=7, swap_seats=False)
    assert res.seat_games[0] == [7, 0] and not res.paired


def test_games_own_their_random_start():
    game, rng = SubtractionGame(22), np.random.default_rng(0)
    assert {game.random_start(rng).n for _ in range(400)} == set(range(20, 51))
    assert {game.random_start(rng, 3, 4).n for _ in range(50)} == {3, 4}
    # a game without random_start starts at its initial state, and refuses start options
    assert draw_start(TicTacToe(), rng) == TicTacToe().initial_state()
    assert draw_start(Nim([1, 2]), rng) == Nim([1, 2]).initial_state()
    with pytest.raises(TypeError, match="no random_start"):
        draw_start(Nim([1, 2]), rng, 20, 50)
    with pytest.raises(ValueError, match="low must not exceed high"):
        game.random_start(rng, 9, 3)


def test_random_starts_are_seeded():
    game = SubtractionGame(22)
    run = lambda seed: [
        r.states
        for r in tournament(
            game, RandomPlayer(1), RandomPlayer(2), games=6, seed=seed, start=random_start(), keep_records=True
        ).records
    ]
    assert run(3) == run(3) and run(3) != run(4)


def test_a_player_that_raises_is_named():
    def broken(game, state):
        raise ZeroDivisionError("oops")

    with pytest.raises(PlayerError, match=r"broken \(player 1\) raised ZeroDivisionError") as info:
        play_game(SubtractionGame(22), [PerfectPlayer(), broken])
    assert isinstance(info.value.__cause__, ZeroDivisionError)


def test_an_illegal_move_is_still_an_illegal_move_error_naming_the_player():
    with pytest.raises(
        IllegalMoveError, match=r"liar \(player 0\) chose an illegal move: illegal move 4 .*allowed moves: 3, 5, 11"
    ):
        play_game(SubtractionGame(22), [lambda g, s: 4, PerfectPlayer()], names=["liar", "perfect"])
