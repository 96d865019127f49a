"""Counting TicTacToe games, positions and random-play chances, against independent oracles.

The oracle is the German source's own algorithm re-written here: a plain recursion over
nine integers (0 empty, 1 X, 4 O) that detects wins by line sums 3 and 12 and knows whose
turn it is from the sum modulo 5. It shares no code with gamekit.
"""

import random
from collections import Counter
from fractions import Fraction
from functools import cache

import pytest

from gamekit import Nim, SubtractionGame, TicTacToe, canonical, reachable_positions, solve, tree_size
from gamekit.counting import (
    OutcomeCounts,
    against_every_opponent,
    count_outcomes,
    count_outcomes_plain,
    games_by_length,
    line_probability,
    outcome_probabilities,
    terminal_positions,
)
from gamekit.games.tictactoe import SYMMETRIES, game_classes_up_to_symmetry, games_in_symmetry_reduced_tree
from gamekit.players import LossAversePlayer, PerfectPlayer, RandomPlayer, RawCountPlayer

LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]


def source_oracle(cells, depth=0, stats=None):
    """The source's pruefen_rekursiv, plus node count, game lengths and boards seen."""
    if stats is None:
        stats = {"result": Counter(), "length": Counter(), "nodes": 0, "boards": set(), "leaves": set()}
    stats["nodes"] += 1
    stats["boards"].add(tuple(cells))
    sums = [cells[a] + cells[b] + cells[c] for a, b, c in LINES]
    total = sum(cells)
    result = "X" if 3 in sums else "O" if 12 in sums else "D" if total == 21 else None
    if result:
        stats["result"][result] += 1
        stats["length"][(depth, result)] += 1
        stats["leaves"].add(tuple(cells))
        return stats
    mark = 1 if total % 5 == 0 else 4
    for i in range(9):
        if cells[i] == 0:
            cells[i] = mark
            source_oracle(cells, depth + 1, stats)
            cells[i] = 0
    return stats


@cache
def _source_probability(cells):
    sums = [cells[a] + cells[b] + cells[c] for a, b, c in LINES]
    if 3 in sums:
        return (Fraction(1), Fraction(0), Fraction(0))
    if 12 in sums:
        return (Fraction(0), Fraction(1), Fraction(0))
    if sum(cells) == 21:
        return (Fraction(0), Fraction(0), Fraction(1))
    mark = 1 if sum(cells) % 5 == 0 else 4
    free = [i for i in range(9) if cells[i] == 0]
    acc = [Fraction(0)] * 3
    for i in free:
        child = cells[:i] + (mark,) + cells[i + 1 :]
        acc = [a + p / len(free) for a, p in zip(acc, _source_probability(child))]
    return tuple(acc)


def source_probability(cells):
    """The source's probability-weighted recursion, with exact fractions: (P X wins, P O wins, P draw).

    Memoised on the nine integers (a cache of the oracle's own, sharing nothing with gamekit).
    """
    return _source_probability(tuple(cells))


def to_ints(board):
    return [{".": 0, "X": 1, "O": 4}[c] for c in board]


def to_board(cells):
    return tuple({0: ".", 1: "X", 4: "O"}[c] for c in cells)


@pytest.fixture(scope="module")
def oracle():
    return source_oracle([0] * 9)


def test_all_games_from_the_empty_board_match_the_oracle_and_the_literature(oracle):
    c = count_outcomes(TicTacToe())
    assert (c.p0_wins, c.p1_wins, c.draws) == (oracle["result"]["X"], oracle["result"]["O"], oracle["result"]["D"])
    # published values (e.g. Schaefer's TicTacToe counts)
    assert c.total == 255_168
    assert (c.p0_wins, c.p1_wins, c.draws) == (131_184, 77_904, 46_080)


def test_games_by_length_match_the_oracle(oracle):
    by_length = games_by_length(TicTacToe())
    expected = {}
    for (length, result), n in oracle["length"].items():
        x, o, d = expected.get(length, (0, 0, 0))
        expected[length] = (x + n * (result == "X"), o + n * (result == "O"), d + n * (result == "D"))
    assert {k: tuple(v) for k, v in by_length.items()} == expected
    assert min(by_length) == 5 and max(by_length) == 9
    assert sum((v for v in by_length.values()), OutcomeCounts()) == count_outcomes(TicTacToe())


def test_tree_nodes_positions_and_leaves_match_the_oracle(oracle):
    game = TicTacToe()
    positions = reachable_positions(game)
    assert tree_size(game) == oracle["nodes"] == 549_946
    assert positions == {to_board(b) for b in oracle["boards"]}
    assert len(positions) == 5_478
    assert terminal_positions(game) == {to_board(b) for b in oracle["leaves"]}
    assert len({canonical(p) for p in positions}) == 765
    assert len(terminal_positions(game)) == 958  # literature value


def test_nine_factorial_is_not_the_number_of_nodes():
    import math

    assert tree_size(TicTacToe()) != math.factorial(9)
    # 9! counts the ways to fill all nine squares; a tree that never stopped early would have
    # sum 9!/(9-k)! nodes, and the real tree has fewer because games end at a win.
    full = sum(math.perm(9, k) for k in range(10))
    assert tree_size(TicTacToe()) < full
    assert count_outcomes(TicTacToe()).total < math.factorial(9)


def test_memoised_count_equals_plain_recursion_from_many_positions():
    game = TicTacToe()
    positions = sorted(reachable_positions(game))
    rng = random.Random(2026)
    one_move = [p for p in positions if p.count(".") == 8]  # corner, edge and centre openings
    sample = rng.sample([p for p in positions if p.count(".") <= 7], 50) + [one_move[4]]  # and the centre opening
    memo = {}
    for p in sample:
        assert count_outcomes(game, p, memo) == count_outcomes(game, p) == count_outcomes_plain(game, p), p
        assert count_outcomes(game, p) == tuple(source_oracle(to_ints(p))["result"][k] for k in "XOD"), p


def test_plain_recursion_counts_every_game_of_a_small_nim():
    """Plain recursion from the start of Nim (1, 2, 2), against an independent enumeration of move sequences."""

    def sequences(piles):
        if not any(piles):
            return [()]
        return [
            ((i, t),) + rest
            for i, p in enumerate(piles)
            for t in range(1, p + 1)
            for rest in sequences(piles[:i] + (p - t,) + piles[i + 1 :])
        ]

    games = sequences((1, 2, 2))
    counts = count_outcomes_plain(Nim((1, 2, 2)))
    assert counts.total == len(games)
    assert counts.p0_wins == sum(len(g) % 2 == 1 for g in games)  # normal play: the last mover wins


def test_counts_are_generic_over_the_protocol():
    for game in (Nim((1, 2, 3)), SubtractionGame(17, (1, 2, 3))):
        assert count_outcomes(game) == count_outcomes_plain(game)
        assert sum(count_outcomes(game)) == sum(c.total for c in games_by_length(game).values())


def test_random_play_probabilities_are_the_exact_fractions():
    p = outcome_probabilities(TicTacToe())
    assert (p.p0_win, p.p1_win, p.draw) == (Fraction(737, 1260), Fraction(121, 420), Fraction(8, 63))
    assert (p.p0_win, p.p1_win, p.draw) == source_probability([0] * 9)


def test_random_play_probabilities_match_the_source_recursion_from_many_positions():
    game = TicTacToe()
    rng = random.Random(7)
    positions = [p for p in sorted(reachable_positions(game)) if p.count(".") <= 6]
    for p in rng.sample(positions, 120):
        r = outcome_probabilities(game, p)
        assert (r.p0_win, r.p1_win, r.draw) == source_probability(to_ints(p))
        assert r.p0_win + r.p1_win + r.draw == 1
        assert r.lose(0) == r.p1_win and r.win(1) == r.p1_win


def test_games_up_to_symmetry_under_both_definitions(oracle):
    game = TicTacToe()
    # whole games modulo the 8 symmetries: the symmetries form a group of 8 distinct permutations,
    # and none but the identity fixes more than 3 cells while every game has at least 5 moves, so
    # no game is its own image: every class has exactly 8 games (orbit-stabiliser)
    identity = tuple(range(9))
    perms = {tuple(p) for p in SYMMETRIES}
    assert len(perms) == 8 and identity in perms
    assert all(tuple(p[q[i]] for i in range(9)) in perms for p in perms for q in perms)  # closed: a group
    assert max(sum(p[i] == i for i in range(9)) for p in perms - {identity}) == 3
    assert min(length for length, _ in oracle["length"]) == 5
    games = sum(oracle["result"].values())
    assert game_classes_up_to_symmetry() == games // 8 == 31_896 and games % 8 == 0

    # the tree where each node expands one move per symmetry class of the resulting position;
    # symmetric positions have isomorphic reduced subtrees, so the count is memoised per class
    @cache
    def reduced(s):  # s is a class representative (a canonical board)
        if game.is_terminal(s):
            return 1
        return sum(reduced(c) for c in {canonical(game.play(s, m)) for m in game.legal_moves(s)})

    assert games_in_symmetry_reduced_tree() == reduced(game.initial_state()) == 26_830
    assert len({canonical(game.play(game.initial_state(), m)) for m in range(9)}) == 3  # corner, edge, centre


def _loss_chance_vs_random(game, player, seat, s):
    """Chance that `player` in `seat` loses against a uniformly random opponent (plain recursion)."""
    if game.is_terminal(s):
        return Fraction(int(game.utility(s, seat) < 0))
    if game.to_move(s) == seat:
        return _loss_chance_vs_random(game, player, seat, game.play(s, player(game, s)))
    moves = game.legal_moves(s)
    return sum(_loss_chance_vs_random(game, player, seat, game.play(s, m)) for m in moves) / len(moves)


@pytest.mark.parametrize("seat", [0, 1])
def test_perfect_player_never_loses_against_any_opponent(seat):
    game = TicTacToe()
    check = against_every_opponent(game, PerfectPlayer(), seat)
    assert not check.can_lose and check.lines == check.wins + check.draws > 0
    values = solve(game)
    rng = random.Random(seat)
    starts = [p for p in sorted(values) if not game.is_terminal(p) and values[p] == 0]
    for p in rng.sample(starts, 40):  # from drawn positions, it never loses either
        assert not against_every_opponent(game, PerfectPlayer(), seat, p).can_lose


def test_corrected_player_as_o_can_lose_and_the_lines_are_real_games():
    game = TicTacToe()
    player = LossAversePlayer()
    check = against_every_opponent(game, player, 1)
    assert check.can_lose
    for line in check.losses:
        s = game.initial_state()
        for m in line:
            if game.to_move(s) == 1:
                assert m == player(game, s)
            s = game.play(s, m)
        assert game.is_terminal(s) and game.utility(s, 1) == -1
    chance = sum(line_probability(game, line, 1) for line in check.losses)
    assert chance == _loss_chance_vs_random(game, player, 1, game.initial_state())
    assert 0 < chance < Fraction(1, 100)
    assert len(check.losses) == 4 and chance == Fraction(4, 945)  # the notebook's figures
    assert not against_every_opponent(game, player, 0).can_lose


def test_raw_count_player_as_o_can_lose():
    game = TicTacToe()
    check = against_every_opponent(game, RawCountPlayer(), 1)
    assert check.can_lose
    assert sum(line_probability(game, l, 1) for l in check.losses) == _loss_chance_vs_random(
        game, RawCountPlayer(), 1, game.initial_state()
    )


def test_bad_input_is_refused():
    with pytest.raises(TypeError):
        count_outcomes(object())
    with pytest.raises(ValueError):
        against_every_opponent(TicTacToe(), RandomPlayer(seed=1), 2)


def test_deep_games_get_a_clear_error_naming_the_recursion_limit():
    import sys

    from gamekit import SubtractionGame, games_by_length, outcome_probabilities
    from gamekit.protocol import GameTooDeepError

    deep = SubtractionGame(4 * sys.getrecursionlimit())
    for counter in (count_outcomes, outcome_probabilities, games_by_length):
        with pytest.raises(GameTooDeepError, match=r"recursion limit .*getrecursionlimit\(\) = \d+"):
            counter(deep)
    assert isinstance(GameTooDeepError("x"), RecursionError)  # old `except RecursionError` still works
    assert tree_size(deep) > 0  # the iterative counter copes


def test_counting_does_not_import_players():
    import ast
    import inspect

    import gamekit.counting

    tree = ast.parse(inspect.getsource(gamekit.counting))
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert "players" not in imported and not any("players" in (m or "") for m in imported)
