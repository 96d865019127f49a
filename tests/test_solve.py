"""`solve` against a plain recursive minimax, on many subtraction games, from both seats."""

import random
import sys

import pytest

from gamekit import SubtractionGame, SubtractionState, best_moves, move_values, red_blue, solve


def plain_minimax(game, state):
    """The textbook definition, with no memo: the oracle."""
    if game.is_terminal(state):
        return game.utility(state, 0)
    values = [plain_minimax(game, game.play(state, m)) for m in game.legal_moves(state)]
    return max(values) if game.to_move(state) == 0 else min(values)


@pytest.mark.parametrize("trial", range(60))
def test_solve_equals_plain_minimax_for_random_sets_and_starts_from_both_seats(trial):
    rng = random.Random(trial)
    moves = tuple(sorted(rng.sample(range(1, 9), rng.randint(1, 3))))
    start = rng.randint(0, 22)
    game = SubtractionGame(start, moves)
    for seat in (0, 1):
        root = SubtractionState(start, seat)
        values = solve(game, root)
        for state, value in values.items():
            assert value == plain_minimax(game, state), (moves, state)


def test_values_agree_with_red_and_blue_for_both_seats():
    rb = red_blue(300)
    for seat in (0, 1):
        values = solve(SubtractionGame(300), SubtractionState(300, seat))
        for state, value in values.items():
            if state.n > 0:
                mover_wins = not rb.is_red[state.n]
                assert value == (1 if (mover_wins == (state.to_move == 0)) else -1), state


def test_deep_game_needs_no_recursion():
    limit = sys.getrecursionlimit()
    n = 30 * limit  # thirty times deeper than Python's recursion limit
    game = SubtractionGame(n)
    values = solve(game)
    assert sys.getrecursionlimit() == limit
    assert values[game.initial_state()] == (-1 if n % 8 <= 2 else 1)
    assert len(values) > n


def test_best_moves_are_the_moves_to_red_numbers():
    game = SubtractionGame(22)
    s = game.initial_state()
    assert best_moves(game, s) == [5]
    assert move_values(game, s) == {3: -1.0, 5: 1.0, 11: -1.0}
    # from a red number every move loses, so all moves are equally "best"
    assert best_moves(game, SubtractionState(24, 1)) == [3, 5, 11]


class Cycle:
    """A broken game whose graph has a cycle (0 -> 1 -> 0)."""

    def initial_state(self):
        return 0

    def to_move(self, s):
        return s

    def legal_moves(self, s):
        return (0,)

    def play(self, s, m):
        return 1 - s

    def is_terminal(self, s):
        return False

    def utility(self, s, p):
        return 0


def test_cycle_and_non_games_are_reported():
    with pytest.raises(ValueError, match="cycle"):
        solve(Cycle())
    with pytest.raises(TypeError, match="is not a Game"):
        solve(object())
