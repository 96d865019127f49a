"""Generalised Nim (chapter 5): rules, bad input, equality by value, who starts, minimax =
alpha-beta = solve on every position of small games from both seats, the value of memoisation,
the source's AlphaBeta bugs (gamekit.sources.julia_nim), Sprague-Grundy against brute force,
the tree drawing, and the widget models driven headless (no browser)."""

import math
from functools import cache

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")

import gamekit
from gamekit import IllegalMoveError, Nim, is_p_position, solve
from gamekit.counting import reachable_positions, tree_size
from gamekit.games.generalized_nim import (
    GeneralizedNim,
    GNimState,
    grundy_numbers,
    mex,
    small_games,
    sum_is_lost,
    took_last,
)
from gamekit.search import TranspositionTable, alphabeta, minimax
from gamekit.sources.julia_nim import (
    find_counterexample,
    source_alphabeta,
    source_alphabeta_max_repaired,
    source_minmax,
)
from gamekit.views.nim import GNimMatch, GNimPlay, NimMatch, NimPlay, draw_game_tree, draw_gnim, game_tree

INF = math.inf
ONE_TWO = {1: INF, 2: INF}


def plain_minimax(game, s):
    """An independent oracle: the definition, recursively, no memo, no pruning."""
    if game.is_terminal(s):
        return game.utility(s, 0)
    vals = [plain_minimax(game, game.play(s, m)) for m in game.legal_moves(s)]
    return max(vals) if game.to_move(s) == 0 else min(vals)


def start_value(g):
    return solve(g)[g.initial_state()]


def leaves_one(state):
    return state.board == 1


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


@pytest.mark.parametrize("move", [2, 3, 0, 1.0, True, "1", None, (1,)])
def test_illegal_moves_raise_and_name_the_legal_ones(move):
    g = GeneralizedNim(1, ONE_TWO)
    s0 = g.initial_state()
    kind = IllegalMoveError if isinstance(move, int) and not isinstance(move, bool) else TypeError
    with pytest.raises(IllegalMoveError, match=r"illegal move .*allowed moves: 1") as err:
        g.play(s0, move)
    assert isinstance(err.value, kind)  # a wrongly typed move is also a TypeError
    assert s0 == g.initial_state()


def test_numpy_integers_are_accepted_everywhere():
    g = GeneralizedNim(np.int64(6), {np.int32(1): np.int64(3), 2: INF}, first=np.int8(1))
    assert g == GeneralizedNim(6, {1: 3, 2: INF}, first=1)
    s = g.play(g.initial_state(), np.int64(2))
    assert type(s.board) is int and s.board == 4
    assert grundy_numbers(np.array([1, 2]), np.int64(5)) == [0, 1, 2, 0, 1, 2]
    assert sum_is_lost(np.array([1, 2, 3]), (1, 2, 3)) is True


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


@pytest.mark.parametrize("board", [0, -3, np.int64(0)])
def test_bad_board_value(board):
    with pytest.raises(ValueError, match=r"board \(the number of stones\) must be a whole number >= 1"):
        GeneralizedNim(board, ONE_TWO)


@pytest.mark.parametrize("board", [2.5, 6.0, "6", None, True, np.float64(6), [6]])
def test_bad_board_type_names_what_is_allowed(board):
    with pytest.raises(TypeError, match=r"board \(the number of stones\) must be a whole number >= 1, got .* \(a "):
        GeneralizedNim(board, ONE_TWO)


@pytest.mark.parametrize(
    "moves, err",
    [
        ({1: -1}, ValueError),
        ({1: 2.5}, TypeError),
        ({1: 2.0}, TypeError),
        ({1: "3"}, TypeError),
        ({1: None}, TypeError),
        ({1: True}, TypeError),
        ({1: -INF}, TypeError),
        ({1: math.nan}, TypeError),
        ({0: 1}, ValueError),
        ({1.5: 1}, TypeError),
        ({True: 1}, TypeError),
        ({"1": 1}, TypeError),
        ({None: 1}, TypeError),
        ([ONE_TWO], TypeError),
        ([ONE_TWO, ONE_TWO, ONE_TWO], TypeError),
        ([ONE_TWO, [1, 2]], TypeError),
        ("12", TypeError),
        (None, TypeError),
        (3, TypeError),
    ],
)
def test_bad_budgets(moves, err):
    with pytest.raises(err, match="moves|uses|dict"):
        GeneralizedNim(6, moves)


@pytest.mark.parametrize(
    "first, err",
    [(2, ValueError), (-1, ValueError), (True, TypeError), (0.0, TypeError), ("1", TypeError), (None, TypeError)],
)
def test_bad_first(first, err):
    with pytest.raises(err, match=r"first \(the player who starts: 0 = :P1, 1 = :P2\) must be 0 or 1"):
        GeneralizedNim(6, ONE_TWO, first=first)


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


@pytest.mark.parametrize("win", [3, "took_last", True])
def test_win_condition_not_callable(win):
    with pytest.raises(TypeError, match="win must be a function"):
        GeneralizedNim(4, ONE_TWO, win=win)


@pytest.mark.parametrize(
    "call, err",
    [
        (lambda: grundy_numbers((1, 2), 2.0), TypeError),
        (lambda: grundy_numbers((1, 2), None), TypeError),
        (lambda: grundy_numbers((1, 2), True), TypeError),
        (lambda: grundy_numbers((1, 2), -1), ValueError),
        (lambda: grundy_numbers((1, 2), 10**9), ValueError),
        (lambda: grundy_numbers((0, 1), 5), ValueError),
        (lambda: grundy_numbers((), 5), ValueError),
        (lambda: grundy_numbers((1.0, 2), 5), TypeError),
        (lambda: grundy_numbers("12", 5), TypeError),
        (lambda: sum_is_lost([1, 2.0], (1, 2)), TypeError),
        (lambda: sum_is_lost([1, -2], (1, 2)), ValueError),
        (lambda: sum_is_lost([], (1, 2)), ValueError),
        (lambda: small_games(max_board=0), ValueError),
        (lambda: small_games(max_board=2.0), TypeError),
        (lambda: source_minmax(GeneralizedNim(3, ONE_TWO), memo=1), TypeError),
        (
            lambda: source_alphabeta(GeneralizedNim(3, ONE_TWO), GeneralizedNim(3, ONE_TWO).initial_state(), None),
            TypeError,
        ),
        (lambda: find_counterexample([], algorithm=3), TypeError),
    ],
)
def test_bad_input_to_helpers(call, err):
    with pytest.raises(err):
        call()


def test_states_are_hashable_and_immutable():
    s = GeneralizedNim(6, ONE_TWO).initial_state()
    assert hash(s) == hash(GNimState(6, s.budgets, 0, False))
    with pytest.raises(AttributeError):
        s.board = 3


# --- equality, hashing and repr (issue 12, defect 2: caches keyed by repr) ---------------------


def test_games_built_alike_are_equal_and_hash_alike():
    a = GeneralizedNim(7, [{1: 2, 3: INF}, {2: INF}], leaves_one)
    b = GeneralizedNim(7, ({3: INF, 1: 2}, {2: math.inf}), win=leaves_one)
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1
    assert GeneralizedNim(6, ONE_TWO) == GeneralizedNim(6, [ONE_TWO, dict(ONE_TWO)])
    for other in (
        GeneralizedNim(8, [{1: 2, 3: INF}, {2: INF}], leaves_one),
        GeneralizedNim(7, [{1: 3, 3: INF}, {2: INF}], leaves_one),
        GeneralizedNim(7, [{2: INF}, {1: 2, 3: INF}], leaves_one),
        GeneralizedNim(7, [{1: 2, 3: INF}, {2: INF}], took_last),
        GeneralizedNim(7, [{1: 2, 3: INF}, {2: INF}], leaves_one, first=1),
    ):
        assert other != a
    assert GeneralizedNim(6, ONE_TWO) != Nim((6,)) and GeneralizedNim(6, ONE_TWO) != "GeneralizedNim"


def test_repr_names_every_parameter():
    r = repr(GeneralizedNim(7, [{1: 2, 3: INF}, {2: INF}], leaves_one, first=1))
    assert r == "GeneralizedNim(board=7, moves=[{1: 2, 3: inf}, {2: inf}], win=leaves_one, first=1)"
    assert repr(GeneralizedNim(6, ONE_TWO)) == "GeneralizedNim(board=6, moves={1: inf, 2: inf}, win=took_last, first=0)"
    # the win condition is part of the repr, so two games that differ only there are told apart
    assert repr(GeneralizedNim(6, ONE_TWO, leaves_one)) != repr(GeneralizedNim(6, ONE_TWO))


def test_values_follow_the_game_not_a_stale_cache():
    """Two games that differ only in their win condition get their own values (defect 2's shape)."""
    a, b = GeneralizedNim(4, ONE_TWO), GeneralizedNim(4, ONE_TWO, leaves_one)
    assert start_value(a) == 1 and start_value(b) == -1  # take 1 leaves 3; leave-one: 4 -> 2 or 3, P2 leaves 1
    assert {a: start_value(a), b: start_value(b)}[GeneralizedNim(4, ONE_TWO)] == 1


# --- who starts (the project's players vector) --------------------------------------------------


def test_second_player_starting_flips_the_sign_of_the_swapped_game():
    games = small_games(max_board=6, takes=(1, 2, 3), budget_choices=(1, INF))[::7]
    assert len(games) > 100
    seen = set()
    for g in games:
        p2_starts = GeneralizedNim(g.board, [dict(b) for b in g.budgets], g.win, first=1)
        assert p2_starts.initial_state().to_move == 1
        renamed = p2_starts.swapped()  # player 0 gets P2's moves and starts: the same game, roles renamed
        assert renamed == GeneralizedNim(g.board, [dict(g.budgets[1]), dict(g.budgets[0])], g.win)
        v = start_value(p2_starts)
        assert v == -start_value(renamed) == plain_minimax(p2_starts, p2_starts.initial_state())
        seen.add(v)
    assert seen == {-1.0, 0.0, 1.0}
    # with the same moves for both players, letting P2 start only flips the sign
    for n in range(1, 13):
        assert start_value(GeneralizedNim(n, ONE_TWO, first=1)) == -start_value(GeneralizedNim(n, ONE_TWO))


def test_literal_draw_reading_changes_small_games():
    """The source's "a draw when ONE of the two players has no moves left", read literally, ends games
    early: 120 of the 864 small games change value, the first with 1 stone (notebook 5)."""

    class EitherStuck(GeneralizedNim):
        def is_terminal(self, s):
            other = GNimState(s.board, s.budgets, 1 - s.to_move)
            return s.won or not self.legal_moves(s) or not self.legal_moves(other)

    games = small_games(max_board=6, budget_choices=(1, INF))
    changed = []
    for g in games:
        e = EitherStuck(g.board, [dict(b) for b in g.budgets])
        if start_value(g) != start_value(e):
            changed.append((g, start_value(g), start_value(e)))
    assert (len(changed), len(games)) == (120, 864)
    first, ours, literal = changed[0]
    assert first.board == 1 and ours == 1 and literal == 0  # P1 could take the last stone; P2 is stuck


# --- values: oracles, minimax = alpha-beta = solve from both seats -----------------------------


@pytest.mark.parametrize("k", [1, 2, 3, 4])
def test_take_last_unlimited_matches_mod_rule(k):
    for n in range(1, 16):
        g = GeneralizedNim(n, {t: INF for t in range(1, k + 1)}, took_last)
        expected = -1.0 if n % (k + 1) == 0 else 1.0
        assert start_value(g) == expected
        assert start_value(GeneralizedNim(n, {t: INF for t in range(1, k + 1)}, first=1)) == -expected


def test_small_games_all_algorithms_agree_on_every_position():
    games = small_games(max_board=6, takes=(1, 2, 3), budget_choices=(1, 2, INF))
    assert len(games) == 6 * (3 * 3 * 3) ** 2  # boards x (move pairs x budgets)^2
    seats, kinds = set(), set()
    for g in games[::5]:
        values = solve(g)
        table = TranspositionTable()
        for s, v in values.items():
            seats.add(s.to_move)
            kinds.add(v)
            assert v == plain_minimax(g, s) == minimax(g, s).value == alphabeta(g, s).value
            assert alphabeta(g, s, table=table).value == v  # memoised alpha-beta
    assert seats == {0, 1} and kinds == {-1.0, 0.0, 1.0}  # determinacy: a win for one side or a draw


def test_alphabeta_window_is_a_bound_on_the_right_side():
    """Knuth-Moore on the project's game: exact inside the window; outside it, a bound."""
    windows = [(-1, 1), (-1, 0), (0, 1), (-0.5, 0.5)]
    for g in small_games(max_board=5, takes=(1, 2), budget_choices=(1, INF))[::3]:
        for s, v in solve(g).items():
            for lo, hi in windows:
                got = alphabeta(g, s, alpha=lo, beta=hi).value
                if lo < v < hi:
                    assert got == v
                elif v <= lo:
                    assert v <= got <= lo  # an upper bound: "at most lo"
                else:
                    assert hi <= got <= v  # a lower bound: "at least hi"


def test_memoised_minmax_equals_plain_recursion_and_counts():
    for g in small_games(max_board=6, takes=(1, 2), budget_choices=(2, INF)):
        plain = source_minmax(g, memo=False)
        memo = source_minmax(g, memo=True)
        assert plain.value == memo.value == plain_minimax(g, g.initial_state())
        assert plain.calls == tree_size(g) == minimax(g).nodes
        assert memo.stored == len(reachable_positions(g))
        assert memo.calls <= plain.calls


def test_project_example_numbers():
    g = GeneralizedNim(6, ONE_TWO)
    assert start_value(g) == -1  # P1 cannot force a win: the source's "> -1" is False
    assert tree_size(g) == 33 and len(reachable_positions(g)) == 12
    assert source_minmax(g, memo=True).calls == 19
    tree = game_tree(g)
    assert tree.number_of_nodes() == 33 and sum(1 for n in tree if tree.out_degree(n) == 0) == 13
    s = g.initial_state()
    for m in (2, 1, 1, 2):  # the source's example game: P2 takes the last stones and wins
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
    wrong = [g for g in games if board_key_minmax(g, g.initial_state(), {}) != start_value(g)]
    assert wrong
    for g in wrong:  # every failure needs two positions that share (board, to_move) but not their value
        values = solve(g)
        assert len({(s.board, s.to_move, v) for s, v in values.items()}) > len({(s.board, s.to_move) for s in values})
    assert all(
        board_key_minmax(g, g.initial_state(), {}) == start_value(g)
        for g in small_games(max_board=7, budget_choices=(INF,))
    )


# --- the source's AlphaBeta (gamekit.sources.julia_nim) ------------------------------------------


def test_the_source_functions_are_exported_under_their_source_names():
    assert gamekit.source_minmax is source_minmax and gamekit.source_alphabeta is source_alphabeta
    assert gamekit.source_alphabeta_max_repaired is source_alphabeta_max_repaired
    assert not any(hasattr(gamekit, old) for old in ("minmax_counted", "seed_alphabeta_literal"))


def test_source_alphabeta_fails_at_board_4():
    game, state, got, right = find_counterexample(GeneralizedNim(n, ONE_TWO) for n in range(1, 10))
    assert game.board == 4 and state == game.initial_state() and got == -1 and right == 1
    # the bug: a MAX node returns its LAST child's value; 4 -> take 2 leaves 2, a win for P2
    last_child = game.play(state, game.legal_moves(state)[-1])
    assert solve(game)[last_child] == got


def test_source_alphabeta_wrong_only_at_max_nodes_in_a_clean_pattern():
    """W5.2 and exercise 5.4: MIN nodes (searched with alpha = -inf) are always right; the root
    is wrong where its last child loses but another move wins."""
    for moves, rule in (
        ({1: INF, 2: INF}, lambda n: n % 3 == 1 and n > 1),
        ({1: INF, 2: INF, 3: INF}, lambda n: n % 4 in (1, 2) and n > 4),
    ):
        for n in range(1, 15):
            g = GeneralizedNim(n, moves)
            for s, v in solve(g).items():
                got = source_alphabeta(g, s)
                if s.to_move == 1:
                    assert got == v
            assert (source_alphabeta(g, g.initial_state()) != start_value(g)) == rule(n)


def test_source_alphabeta_on_example_and_correct_search_everywhere():
    g = GeneralizedNim(6, ONE_TWO)
    assert source_alphabeta(g, g.initial_state()) == -1
    correct = lambda game, s: alphabeta(game, s).value
    assert find_counterexample(small_games(max_board=5, budget_choices=(1, INF)), correct) is None


def test_source_alphabeta_min_branch_bug_hidden_by_the_max_bug():
    found = find_counterexample((GeneralizedNim(n, ONE_TWO) for n in range(1, 10)), source_alphabeta_max_repaired)
    game, state, got, right = found
    assert game.board == 3 and state == game.initial_state() and got == INF and right == -1
    # with the window (-1, 1) the literal port's MIN cutoff fires too: it says +1 on every board >= 2,
    # so the project's example check `alphaBeta(game, game.root) > -1` "passes" at 6 stones
    for n in range(2, 16):
        g = GeneralizedNim(n, ONE_TWO)
        assert source_alphabeta(g, g.initial_state(), -1, 1) == 1
    g6 = GeneralizedNim(6, ONE_TWO)
    assert start_value(g6) == -1 == alphabeta(g6, alpha=-1, beta=1).value


# --- Sprague-Grundy --------------------------------------------------------------------------


def test_mex_and_grundy():
    assert mex([0, 1, 3]) == 2 and mex([]) == 0
    assert grundy_numbers([1, 2], 20) == [n % 3 for n in range(21)]
    assert grundy_numbers(range(1, 30), 29) == list(range(30))  # Nim: one pile of n has Grundy number n
    g = grundy_numbers((3, 5, 11), 40)
    assert [n for n in range(41) if g[n] == 0] == [n for n in range(41) if n % 8 in (0, 1, 2)]


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


def test_nim_bouton_from_both_seats_normal_and_misere():
    for misere in (False, True):
        values = solve(Nim((2, 3, 4), misere=misere))
        for s, v in values.items():
            mover_loses = is_p_position(s.piles, misere)
            assert v == (-1 if mover_loses else 1) * (1 if s.to_move == 0 else -1)
        assert {s.to_move for s in values} == {0, 1}


# --- views -----------------------------------------------------------------------------------


def test_tree_drawing_and_bad_highlight():
    import matplotlib.pyplot as plt

    g = GeneralizedNim(6, ONE_TWO)
    fig = draw_game_tree(g, highlight=(2, 1, 1, 2), values=solve(g))
    assert fig.axes and fig.get_size_inches()[0] >= 10  # projector size
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


def test_nim_widget_illegal_input_changes_nothing():
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
    with pytest.raises(ValueError, match="no pile"):
        w.model.human_move(1.0, 1)


def test_nim_widget_hints_are_off_by_default_and_can_be_switched_on():
    w = NimPlay((3, 4, 5))
    assert w.hints.value is False and w.table_html() == "" and "nim-sum" not in w._repr_mimebundle_()["text/html"]
    w.hints.value = True
    assert "value of each move" in w.table_html() and "+1" in w.table_html()
    with pytest.raises(TypeError, match="hints must be True or False"):
        NimPlay((3, 4, 5), hints="yes")


def test_nim_widget_perfect_player_wins_and_game_over_message():
    w = NimPlay((1, 2), misere=False)
    w.pile.value, w.take.value = 1, 1  # leaves (0, 2): the computer takes both and wins
    w.button.click()
    assert w.model.over and w.model.winner_name == "computer" and "Game over" in w.message.value
    assert w.model.winner == 1 and w.model.human == 0
    before = (w.model.state, list(w.model.history))
    w.button.click()
    assert "game is over" in w.message.value and (w.model.state, w.model.history) == before
    w.new.click()
    assert w.model.state == w.model.game.initial_state() and w.model.history == []
    assert "image/png" in w._repr_mimebundle_()


def test_nim_match_misere_and_second_seat():
    m = NimMatch((1, 1, 1), misere=True, human=1)
    assert len(m.history) == 1 and m.state.to_move == 1  # the computer moved first
    assert m.move_values() and all(v == 1 for v in m.move_values().values())
    with pytest.raises(ValueError, match=r"human \(your seat: 0 = P1, 1 = P2\) must be 0 or 1"):
        NimMatch((3,), human=2)
    with pytest.raises(TypeError, match=r"human .* must be 0 or 1"):
        NimMatch((3,), human=True)


# --- the project's game against the perfect player ----------------------------------------------


BUDGET_GAME = GeneralizedNim(9, [{1: 2, 2: INF, 3: 1}, {1: INF, 2: INF}])


def test_gnim_match_refused_moves_change_nothing_and_say_why():
    m = GNimMatch(GeneralizedNim(4, [{1: 1, 3: INF}, {1: INF, 2: INF}]))
    start = (m.state, list(m.history))
    for take, text in [
        (2, "not one of your moves"),
        (5, "not one of your moves"),
        (1.0, "whole number"),
        ("1", "whole number"),
        (None, "whole number"),
        (True, "whole number"),
    ]:
        assert text in m.check_move(take)
        with pytest.raises(ValueError, match=text):
            m.human_move(take)
        assert (m.state, m.history) == start
    m.human_move(1)  # uses up "take 1"; the computer answers
    assert m.history[0] == ("you", 1) and len(m.history) == 2
    if not m.over:
        assert "used up 'take 1'" in m.check_move(1)
        assert "take 1 (" not in m.check_move(1)  # a used-up move is not offered among "your moves"
        assert "left" in m.check_move(3) or m.state.board >= 3


def test_gnim_match_too_many_stones_and_game_over():
    m = GNimMatch(GeneralizedNim(2, [{3: INF, 1: INF}, {1: INF}]))
    assert m.check_move(3) == "Only 2 stones left: you cannot take 3."
    m.human_move(1)  # 1 left; the computer takes it and wins
    assert m.over and m.outcome() == "computer won"
    assert "game is over" in m.check_move(1)


def test_gnim_perfect_player_never_lets_a_won_or_drawn_position_go():
    """From both seats, against every line of play by the person, the computer gets at least the
    start value for itself (it plays a move of best exact value)."""
    for game in (BUDGET_GAME, GeneralizedNim(8, [{1: 2, 3: INF}, {2: INF, 1: 1}]), GeneralizedNim(7, ONE_TWO, first=1)):
        for human in (0, 1):
            m0 = GNimMatch(game, human)
            start_for_computer = -m0.value_for_you() if m0.your_turn else None

            def explore(m_state, history):
                m = GNimMatch.__new__(GNimMatch)
                m.__dict__.update(m0.__dict__)
                m.state, m.history = m_state, list(history)
                if m.over:
                    return [m.game.utility(m.state, 1 - human)]
                results = []
                for take in m.game.legal_moves(m.state):
                    m.state, m.history = m_state, list(history)
                    m.human_move(take)
                    results += explore(m.state, m.history)
                return results

            outcomes = explore(m0.state, m0.history)
            if start_for_computer is not None:
                assert min(outcomes) >= start_for_computer


def test_gnim_match_values_draws_and_seats():
    m = GNimMatch(BUDGET_GAME, human=0)
    mv = m.move_values()
    assert set(mv) == set(BUDGET_GAME.legal_moves(BUDGET_GAME.initial_state()))
    assert all(v == -solve(BUDGET_GAME)[BUDGET_GAME.play(BUDGET_GAME.initial_state(), t)] * -1 for t, v in mv.items())
    drawn = GNimMatch(GeneralizedNim(7, [{1: 2, 3: INF}, {2: INF}]), human=1)  # value 0: a draw with best play
    assert drawn.value_for_you() == 0
    p2_first = GNimMatch(GeneralizedNim(5, ONE_TWO, first=1), human=0)
    assert p2_first.history and p2_first.history[0][0] == "computer"  # P2 (the computer) started
    with pytest.raises(TypeError, match="GeneralizedNim"):
        GNimMatch(Nim((3,)))
    with pytest.raises(ValueError, match=r"human .* must be 0 or 1"):
        GNimMatch(BUDGET_GAME, human=3)


def test_gnim_widget_headless_state_message_hints_and_snapshot():
    import matplotlib.pyplot as plt

    w = GNimPlay(BUDGET_GAME)
    assert w.hints.value is False
    before = (w.model.state, list(w.model.history))
    w.take.value = 4
    w.button.click()
    assert "not one of your moves" in w.message.value and "b00020" in w.message.value
    assert (w.model.state, w.model.history) == before
    bundle = w._repr_mimebundle_()
    assert "image/png" in bundle and "wins" not in bundle["text/html"]
    fig = draw_gnim(w.model, hints=True)
    texts = " ".join(t.get_text() for t in fig.axes[0].texts)
    assert "(wins)" in texts or "(loses)" in texts or "(draws)" in texts
    assert fig.get_size_inches()[0] >= 10 and min(t.get_fontsize() for t in fig.axes[0].texts) >= 14
    plt.close(fig)
    w.take.value = 1
    w.button.click()
    assert w.model.history[0] == ("you", 1) and "took" in w.message.value
    w.seat.value = 1
    w.new.click()
    assert w.model.human == 1 and w.model.history[0][0] == "computer"


def test_deep_games_get_a_clear_error_not_a_bare_recursion_error():
    from gamekit.protocol import GameTooDeepError

    deep = GeneralizedNim(5000, {1: INF})
    for call in (
        lambda: source_minmax(deep),
        lambda: source_alphabeta(deep, deep.initial_state()),
        lambda: source_alphabeta_max_repaired(deep, deep.initial_state()),
    ):
        with pytest.raises(GameTooDeepError, match="recursion limit"):
            call()
    assert start_value(deep) == -1  # solve iterates: 5000 single steps, the second player takes the last
