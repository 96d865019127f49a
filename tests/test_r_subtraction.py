"""The literal ports of source 000's R script reproduce the source's printed output and its bugs."""

import numpy as np
import pytest

from gamekit import red_blue
from gamekit.sources.r_subtraction import (
    SOURCE_D,
    r_is_null,
    r_which,
    source_color_of_edge,
    source_colors_of_edges,
    source_continue,
    source_next_move_optimal,
    source_next_move_prob,
    source_next_move_random,
    source_playout,
    source_trim_course,
)

# the four courses the source prints ("course in playout: ..."), zero padding included
PRINTED = {
    5: [50, 47, 42, 39, 34, 31, 26, 21, 18, 15, 12, 7, 2, -1, 0, 0],
    6: [44, 41, 38, 33, 30, 25, 22, 17, 14, 9, 6, 1, -2, 0],
    7: [45, 42, 39, 36, 31, 26, 21, 18, 15, 12, 7, 2, -1, 0, 0],
    8: [50, 45, 42, 39, 34, 31, 26, 23, 18, 13, 10, 7, 4, 1, -2, 0],
}


def scripted(course):
    """A strategy f(n, rng) that replays a printed course (the numbers after the start)."""
    rest = iter(course[1:])
    return lambda n, rng: next(rest)


def test_continue_prints_the_sources_sets_and_misses_N():
    a, b = source_continue([0, 1, 2], [3], N=80)
    printed_a = [0, 1, 2, 8, 9, 10, 16, 17, 18, 24, 25, 26, 32, 33, 34, 40, 41, 42, 48, 49, 50, 56, 57, 58]
    assert a == printed_a + [64, 65, 66, 72, 73, 74]  # the source's output of `continue(N = 80)`
    rb = red_blue(79)
    assert a == rb.red and b == rb.blue  # the printed B: 3 4 5 6 7 11 ... 79
    assert 80 not in a + b  # `while(i < N)`: N itself is never classified


def test_optimal_is_the_switch_statement():
    for n in range(1, 400):
        d = n - source_next_move_optimal(n)
        assert d == (5 if n % 8 in (6, 7) else 3)
    with pytest.raises(ValueError, match="n > 0"):
        source_next_move_optimal(0)


def test_random_never_subtracts_11_above_11_the_dead_branch():
    rng = np.random.default_rng(0)
    picks = {n - source_next_move_random(n, rng) for n in range(12, 80) for _ in range(30)}
    assert picks == {3, 5}
    assert source_next_move_random(5, rng) == 0 and source_next_move_random(11, rng) == 0
    assert {source_next_move_random(4, rng) for _ in range(20)} == {1}


def test_prob_strategy_extremes():
    rng = np.random.default_rng(1)
    assert all(source_next_move_prob(n, rng, prob=1.0) == source_next_move_optimal(n) for n in range(1, 100))
    assert {n - source_next_move_prob(n, rng, prob=0.0) for n in range(12, 60)} == {3, 5}


@pytest.mark.parametrize("figure", sorted(PRINTED))
def test_playout_reproduces_the_printed_zero_padded_courses(figure):
    printed = PRINTED[figure]
    real = source_trim_course(printed)
    strategy = scripted(real)
    rng = np.random.default_rng(0)
    out = source_playout(strategy, strategy, rng, choices=[printed[0]])
    assert out.course == printed  # zeros after the end: the vector has length n %/% 3
    assert len(printed) == max(printed[0] // 3, len(real))
    assert printed[-1] == 0 and real[-1] < 0  # "the last number" is a padding zero, not the end


def test_playout_winner_is_wrong_exactly_when_the_game_ends_at_zero():
    rng = np.random.default_rng(2026)
    for _ in range(300):
        winner, course = source_playout(source_next_move_random, source_next_move_random, rng)
        real = source_trim_course(course)
        last_mover = 1 if len(real) % 2 == 0 else 2
        true_winner = last_mover if real[-1] == 0 else 3 - last_mover
        assert (winner == true_winner) == (real[-1] < 0)
        assert 20 <= course[0] <= 50 and len(course) >= course[0] // 3


def test_playout_ignores_its_dots():
    def run(*dots):
        rng = np.random.default_rng(5)
        return [source_playout(source_next_move_prob, source_next_move_prob, rng, *dots) for _ in range(50)]

    assert run(("prob", 0.1), ("prob", 0.9)) == run()


def test_r_which_and_is_null():
    assert r_which([False, True, True]) == [2, 3] and r_which([False]) == []
    assert not r_is_null(r_which([False])) and r_is_null(None)


def test_color_of_edge_colours_three_losing_moves_red():
    def oracle(n1, n2):
        red = lambda n: n >= 0 and n % 8 in (0, 1, 2)
        return "black" if red(n1) else ("red" if red(n2) else "blue")

    wrong = [(n, n - d) for n in range(1, 80) for d in SOURCE_D if source_color_of_edge(n, n - d) != oracle(n, n - d)]
    assert wrong == [(3, -8), (4, -7), (5, -6)]
    assert source_colors_of_edges([22, 17, 12]) == [oracle(22, 17), oracle(17, 12)]


def test_trim_course():
    assert source_trim_course([9, 4, -1, 0, 0]) == [9, 4, -1]
    assert source_trim_course([8, 5, 0, 0]) == [8, 5, 0]
