"""Generalised Nim (chapter 5): rules, bad input, minimax = alpha-beta = solve on every position
of small games from both seats, the value of memoisation, the seed's AlphaBeta bug,
Sprague-Grundy against brute force, the tree drawing and the Nim widget driven headless."""

import math
from functools import cache

import matplotlib
import pytest

matplotlib.use("Agg")

from gamekit import IllegalMoveError, Nim, is_p_position, solve
from gamekit.counting import reachable_positions, tree_size
from gamekit.games.generalized_nim import (
    GeneralizedNim,
    GNimState,
    find_counterexample,
    fixed_alphabeta,
    grundy_numbers,
    mex,
    minmax_counted,
    seed_alphabeta_literal,
    seed_alphabeta_max_repaired,
    small_games,
    sum_is_lost,
    took_last,
)
from gamekit.search import TranspositionTable, alphabeta, minimax
from gamekit.views.nim import NimMatch, NimPlay, draw_game_tree, game_tree

INF = math.inf
ONE_TWO = {1: INF, 2: INF}


def plain_minimax(game, s):
    """An independent oracle: the definition, recursively, no memo, no pruning."""
    if game.is_terminal(s):
        return game.utility(s, 0)
    vals = [plain_minimax(game, game.play(s, m)) for m in game.legal_moves(s)]
    return max(vals) if game.to_move(s) == 0 else min(vals)


# --- rules -----------------------------------------------------------------------------------


def test_rules_budgets_and_draw():
    g = GeneralizedNim(5, [{1: 1, 2: INF}, {3: 1}])
    s = g.initial_state()
    assert g.legal_moves(s) == (1, 2)
    s = g.play(s, 1)
    assert s.board == 4 and s.to_move == 1 and s.moves_left(0) == {1: 0, 2: INF}
    assert g.legal_moves(s) == (3,)
    s = g.play(s, 3)
    assert s.board == 1 and g.legal_moves(s) == ()  # move 1 used up, move 2 larger than the board
    assert g.is_terminal(s) and g.utility(s, 0) == 0 and g.utility(s, 1) == 0


def test_move_larger_than_board_is_illegal_and_message_names_moves():
    g = GeneralizedNim(1, ONE_TWO)
    with pytest.raises(IllegalMoveError, match=r"illegal move 2 .*allowed moves: 1"):
        g.play(g.initial_state(), 2)


def test_last_stone_wins_and_utility_both_seats():
    g = GeneralizedNim(2, ONE_TWO)
    s = g.play(g.initial_state(), 2)
    assert s.won and g.is_terminal(s)
    assert g.utility(s, 0) == 1 and g.utility(s, 1) == -1
    with pytest.raises(ValueError, match="only at the end"):
        g.utility(g.initial_state(), 0)


def test_custom_win_condition_is_called_after_each_move():
    seen = []

    def win(state):
        seen.append(state.board)
        return state.board == 1  # whoever leaves exactly one stone wins

    g = GeneralizedNim(3, ONE_TWO, win)
    s = g.play(g.initial_state(), 2)
    assert seen == [1] and s.won and g.utility(s, 0) == 1


@pytest.mark.parametrize("board", [0, -3])
def test_bad_board_value(board):
    with pytest.raises(ValueError, match="board must be a whole number of stones >= 1"):
        GeneralizedNim(board, ONE_TWO)


@pytest.mark.parametrize("board", [2.5, "6", None, True])
def test_bad_board_type(board):
    with pytest.raises(TypeError, match="board"):
        GeneralizedNim(board, ONE_TWO)


@pytest.mark.parametrize(
    "moves, err",
    [
        ({1: -1}, ValueError),
        ({1: 2.5}, TypeError),
        ({1: "3"}, TypeError),
        ({1: None}, TypeError),
        ({1: True}, TypeError),
        ({1: -INF}, TypeError),
        ({0: 1}, ValueError),
        ({1.5: 1}, ValueError),
        ([ONE_TWO], TypeError),
        ([ONE_TWO, ONE_TWO, ONE_TWO], TypeError),
        ("12", TypeError),
    ],
)
def test_bad_budgets(moves, err):
    with pytest.raises(err, match="moves|uses|dict"):
        GeneralizedNim(6, moves)


def test_win_condition_that_raises_is_wrapped_naming_the_state():
    g = GeneralizedNim(4, ONE_TWO, lambda s: 1 / 0 > 0)
    s0 = g.initial_state()
    with pytest.raises(ValueError, match=r"win condition raised ZeroDivisionError.*board=3"):
        g.play(s0, 1)
    assert s0 == g.initial_state()  # nothing changed


@pytest.mark.parametrize("verdict", [1, None, "yes", 0.0])
def test_win_condition_must_return_bool(verdict):
    g = GeneralizedNim(4, ONE_TWO, lambda s: verdict)
    with pytest.raises(TypeError, match=r"must return True or False.*board=2"):
        g.play(g.initial_state(), 2)


def test_win_condition_not_callable():
    with pytest.raises(TypeError, match="win must be a function"):
        GeneralizedNim(4, ONE_TWO, win=3)


def test_states_are_hashable_and_immutable():
    s = GeneralizedNim(6, ONE_TWO).initial_state()
    assert hash(s) == hash(GNimState(6, s.budgets, 0, False))
    with pytest.raises(AttributeError):
        s.board = 3


def test_literal_draw_reading_changes_small_games():
    """The seed's "a draw when ONE of the two players has no moves left", read literally, ends games
    early: 120 of the 864 small games change value, the first with 1 stone (notebook 5)."""

    class EitherStuck(GeneralizedNim):
        def is_terminal(self, s):
            other = GNimState(s.board, s.budgets, 1 - s.to_move)
            return s.won or not self.legal_moves(s) or not self.legal_moves(other)

    games = small_games(max_board=6, budget_choices=(1, INF))
    changed = []
    for g in games:
        e = EitherStuck(g.board, [dict(b) for b in g.budgets])
        if solve(g)[g.initial_state()] != solve(e)[e.initial_state()]:
            changed.append((g, solve(g)[g.initial_state()], solve(e)[e.initial_state()]))
    assert (len(changed), len(games)) == (120, 864)
    first, ours, literal = changed[0]
    assert first.board == 1 and ours == 1 and literal == 0  # P1 could take the last stone; P2 is stuck


# --- values: oracles, minimax = alpha-beta = solve from both seats -----------------------------


@pytest.mark.parametrize("k", [1, 2, 3, 4])
def test_take_last_unlimited_matches_mod_rule(k):
    for n in range(1, 16):
        g = GeneralizedNim(n, {t: INF for t in range(1, k + 1)}, took_last)
        expected = -1.0 if n % (k + 1) == 0 else 1.0
        assert solve(g)[g.initial_state()] == expected


def test_small_games_all_algorithms_agree_on_every_position():
    games = small_games(max_board=7, takes=(1, 2, 3), budget_choices=(1, 2, INF))
    assert len(games) == 7 * (3 * 3 * 3) ** 2  # boards x (move pairs x budgets)^2
    seats = set()
    for g in games:
        values = solve(g)
        for s, v in values.items():
            seats.add(s.to_move)
            assert alphabeta(g, s).value == v
            assert minimax(g, s).value == v
            assert fixed_alphabeta(g, s) == v
            assert plain_minimax(g, s) == v
        table = TranspositionTable()
        for s, v in values.items():
            assert alphabeta(g, s, table=table).value == v  # memoised alpha-beta
    assert seats == {0, 1}


def test_memoised_minmax_equals_plain_recursion_and_counts():
    for g in small_games(max_board=6, takes=(1, 2), budget_choices=(2, INF)):
        plain = minmax_counted(g, memo=False)
        memo = minmax_counted(g, memo=True)
        assert plain.value == memo.value == plain_minimax(g, g.initial_state())
        assert plain.calls == tree_size(g) == minimax(g).nodes
        assert memo.stored == len(reachable_positions(g))
        assert memo.calls <= plain.calls


def test_project_example_numbers():
    g = GeneralizedNim(6, ONE_TWO)
    assert solve(g)[g.initial_state()] == -1  # P1 cannot force a win: the seed's "> -1" is False
    assert tree_size(g) == 33 and len(reachable_positions(g)) == 12
    assert minmax_counted(g, memo=True).calls == 19
    tree = game_tree(g)
    assert tree.number_of_nodes() == 33 and sum(1 for n in tree if tree.out_degree(n) == 0) == 13
    # the seed's example game: 2, 1, 1, 2 -> P2 takes the last stones and wins
    s = g.initial_state()
    for m in (2, 1, 1, 2):
        s = g.play(s, m)
    assert g.is_terminal(s) and g.utility(s, 1) == 1


def test_memo_key_without_budgets_goes_wrong():
    """Exercise 5.3: a memo keyed on (board, to_move) alone mixes up positions with different budgets."""

    def board_key_minmax(g, s, memo):
        key = (s.board, s.to_move)
        if key not in memo:
            vals = [board_key_minmax(g, g.play(s, m), memo) for m in g.legal_moves(s)]
            memo[key] = g.utility(s, 0) if not vals else max(vals) if s.to_move == 0 else min(vals)
        return memo[key]

    games = small_games(max_board=5, budget_choices=(1, INF))
    wrong = [g for g in games if board_key_minmax(g, g.initial_state(), {}) != solve(g)[g.initial_state()]]
    assert wrong
    for g in wrong:  # every failure needs two positions that share (board, to_move) but not their value
        values = solve(g)
        assert len({(s.board, s.to_move, v) for s, v in values.items()}) > len({(s.board, s.to_move) for s in values})
    # with unlimited budgets the key is enough
    assert all(
        board_key_minmax(g, g.initial_state(), {}) == solve(g)[g.initial_state()]
        for g in small_games(max_board=7, budget_choices=(INF,))
    )


# --- the seed's AlphaBeta --------------------------------------------------------------------


def test_seed_alphabeta_literal_fails_at_board_4():
    found = find_counterexample(GeneralizedNim(n, ONE_TWO) for n in range(1, 10))
    game, state, got, right = found
    assert game.board == 4 and state == game.initial_state() and got == -1 and right == 1
    # the bug: a MAX node returns its LAST child's value; 4 -> take 2 leaves 2, a win for P2
    last_child = game.play(state, game.legal_moves(state)[-1])
    assert solve(game)[last_child] == got


def test_seed_alphabeta_literal_on_example_and_fixed_version_everywhere():
    g = GeneralizedNim(6, ONE_TWO)
    assert seed_alphabeta_literal(g, g.initial_state()) == -1
    assert find_counterexample(small_games(max_board=5, budget_choices=(1, INF)), fixed_alphabeta) is None


def test_seed_alphabeta_min_branch_bug_hidden_by_the_max_bug():
    # repairing only the MAX branch exposes the MIN branch's stale-beta cutoff: 3 stones look like +inf
    found = find_counterexample((GeneralizedNim(n, ONE_TWO) for n in range(1, 10)), seed_alphabeta_max_repaired)
    game, state, got, right = found
    assert game.board == 3 and state == game.initial_state() and got == INF and right == -1
    # with the window (-1, 1) the literal port's MIN cutoff fires too: it says +1 on every board >= 2,
    # so the project's example check `alphaBeta(game, game.root) > -1` "passes" at 6 stones
    for n in range(2, 16):
        g = GeneralizedNim(n, ONE_TWO)
        assert seed_alphabeta_literal(g, g.initial_state(), -1, 1) == 1
    g6 = GeneralizedNim(6, ONE_TWO)
    assert solve(g6)[g6.initial_state()] == -1 == fixed_alphabeta(g6, g6.initial_state(), -1, 1)


def test_fixed_alphabeta_fail_hard_window_property():
    """Knuth-Moore: exact inside the window; outside it, a bound between the true value and the window."""
    windows = [(-INF, INF), (-1, 1), (-1, 0), (0, 1), (-0.5, 0.5)]
    for g in small_games(max_board=5, takes=(1, 2), budget_choices=(1, INF)):
        for s, v in solve(g).items():
            for lo, hi in windows:
                got = fixed_alphabeta(g, s, lo, hi)
                if lo < v < hi:
                    assert got == v
                elif v <= lo:
                    assert v <= got <= lo  # an upper bound: "at most lo"
                else:
                    assert hi <= got <= v  # a lower bound: "at least hi"


# --- Sprague-Grundy --------------------------------------------------------------------------


def test_mex_and_grundy():
    assert mex([0, 1, 3]) == 2 and mex([]) == 0
    assert grundy_numbers([1, 2], 20) == [n % 3 for n in range(21)]
    assert grundy_numbers(range(1, 30), 29) == list(range(30))  # Nim: one pile of n has Grundy number n
    with pytest.raises(ValueError):
        grundy_numbers([0, 1], 5)


def test_sum_rule_against_brute_force_and_bouton():
    moves = (1, 3, 4)

    @cache
    def lost(piles):
        return not any(
            lost(tuple(sorted(piles[:i] + (p - m,) + piles[i + 1 :])))
            for i, p in enumerate(piles)
            for m in moves
            if m <= p
        )

    for a in range(7):
        for b in range(7):
            for c in range(5):
                assert sum_is_lost([a, b, c], moves) == lost(tuple(sorted((a, b, c))))
                assert sum_is_lost([a, b, c], range(1, 7)) == is_p_position([a, b, c])


def test_nim_bouton_from_both_seats():
    game = Nim((2, 3, 4))
    values = solve(game)
    for s, v in values.items():
        mover_loses = is_p_position(s.piles)
        assert v == (-1 if mover_loses else 1) * (1 if s.to_move == 0 else -1)
    assert {s.to_move for s in values} == {0, 1}


# --- views -----------------------------------------------------------------------------------


def test_tree_drawing_and_bad_highlight():
    import matplotlib.pyplot as plt

    g = GeneralizedNim(6, ONE_TWO)
    fig = draw_game_tree(g, highlight=(2, 1, 1, 2), values=solve(g))
    assert fig.axes
    plt.close(fig)
    with pytest.raises(ValueError, match="not a line of play"):
        draw_game_tree(g, highlight=(2, 2, 2, 2))
    with pytest.raises(ValueError, match="max_nodes"):
        game_tree(GeneralizedNim(20, ONE_TWO))


def test_nim_match_values_follow_bouton():
    m = NimMatch((3, 4, 5))
    for (pile, take), v in m.move_values().items():
        after = list(m.state.piles)
        after[pile - 1] -= take
        assert (v > 0) == is_p_position(after)


def test_widget_headless_illegal_input_changes_nothing():
    w = NimPlay((3, 4, 5))
    start = w.model.state
    for pile, take, text in [(4, 1, "no pile 4"), (1, 4, "only 3 sticks"), (2, 0, "at least 1")]:
        w.pile.value, w.take.value = pile, take
        w.button.click()
        assert text in w.message.value and "b00020" in w.message.value
        assert w.model.state == start and w.model.history == []
    w.pile.value, w.take.value = 1, 3  # empty pile 1 (a losing move: nim-sum 4 ^ 5 = 1)
    w.button.click()
    assert w.model.state.piles[0] == 0 and len(w.model.history) == 2  # the computer answered
    w.take.value = 1
    before = w.model.state
    w.button.click()
    assert "Pile 1 is empty" in w.message.value and w.model.state == before


def test_widget_perfect_player_wins_and_game_over_message():
    w = NimPlay((1, 2), misere=False)
    w.pile.value, w.take.value = 1, 1  # leaves (0, 2): the computer takes both and wins
    w.button.click()
    assert w.model.over and w.model.winner() == "computer" and "Game over" in w.message.value
    before = (w.model.state, list(w.model.history))
    w.button.click()
    assert "game is over" in w.message.value and (w.model.state, w.model.history) == before
    w.new.click()
    assert w.model.state == w.model.game.initial_state() and w.model.history == []
    assert "image/png" in w._repr_mimebundle_()


def test_widget_misere_and_second_seat():
    m = NimMatch((1, 1, 1), misere=True, human=1)
    assert len(m.history) == 1 and m.state.to_move == 1  # the computer moved first
    # three single sticks in misere: the first mover loses, so every reply wins for the person
    assert m.move_values() and all(v == 1 for v in m.move_values().values())
    with pytest.raises(ValueError, match="human must be 0"):
        NimMatch((3,), human=2)


# --- every number the notebook states ---------------------------------------------------------


def test_notebook_numbers():
    g = GeneralizedNim(6, ONE_TWO)
    tree = game_tree(g)
    leaves = [tree.nodes[n]["state"] for n in tree if tree.out_degree(n) == 0]
    assert sum(g.utility(s, 0) == 1 and s.to_move == 1 for s in leaves) == 6
    assert sum(g.utility(s, 0) == -1 and s.to_move == 0 for s in leaves) == 7
    boards = [tree.nodes[n]["state"] for n in tree]
    assert sum((s.board, s.to_move) == (3, 0) for s in boards) == 2
    assert sum((s.board, s.to_move) == (2, 1) for s in boards) == 3
    big = GeneralizedNim(30, ONE_TWO)
    assert tree_size(big) == 3_524_577 and len(reachable_positions(big)) == 60
    assert all(len(reachable_positions(GeneralizedNim(n, ONE_TWO))) == 2 * n for n in range(1, 31))
    wrong = [
        n
        for n in range(1, 16)
        if seed_alphabeta_literal(h := GeneralizedNim(n, ONE_TWO), h.initial_state()) != solve(h)[h.initial_state()]
    ]
    assert wrong == [4, 7, 10, 13]
    budget_game = GeneralizedNim(7, [{1: 2, 3: INF}, {2: INF}])
    bvals = solve(budget_game)
    assert bvals[budget_game.initial_state()] == 0
    assert {s.board for s in bvals if budget_game.is_terminal(s)} == {1}
    row4 = [solve(h := GeneralizedNim(n, [{1: 3, 2: INF}, ONE_TWO]))[h.initial_state()] for n in range(13, 21)]
    assert max(row4) <= 0
    g23 = grundy_numbers((2, 3), 15)
    differ = [
        n
        for n in range(1, 16)
        if (solve(h := GeneralizedNim(n, {2: INF, 3: INF}))[h.initial_state()] == -1) != (g23[n] == 0)
    ]
    assert differ == [1, 6, 11]
    assert all(solve(h := GeneralizedNim(n, {2: INF, 3: INF}))[h.initial_state()] == 0 for n in differ)
    for n in (6, 8, 12, 16):  # the node table of the alpha-beta slide
        h = GeneralizedNim(n, {1: INF, 2: INF, 3: INF})
        mm, ab, abt = minimax(h), alphabeta(h), alphabeta(h, table=TranspositionTable())
        assert mm.value == ab.value == abt.value and abt.nodes < ab.nodes < mm.nodes
    e51 = GeneralizedNim(10, {1: INF, 2: INF, 3: INF})
    assert solve(e51)[e51.initial_state()] == 1
    e52 = GeneralizedNim(10, ONE_TWO)
    assert (minmax_counted(e52, memo=False).calls, minmax_counted(e52).stored) == (232, 20)
