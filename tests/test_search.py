"""Search: minimax, alpha-beta (textbook and production, fail-soft), the transposition table, move
orders, iterative deepening, the search player, TicTacToe's heuristic and order, random trees and
the tree views, checked against exact oracles (`solve`, a plain recursive minimax written here,
Knuth-Moore's formula, the published TicTacToe counts) from both seats."""

import inspect
import math

import matplotlib
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gamekit.games.registry import small_instances

matplotlib.use("Agg")

import matplotlib.pyplot as plt

from gamekit import (
    GameTooDeepError,
    Nim,
    RandomPlayer,
    RandomTree,
    SearchPlayer,
    SubtractionGame,
    TicTacToe,
    TranspositionTable,
    TreeGame,
    alphabeta,
    canonical,
    h1,
    h1_scaled,
    heuristic_order,
    iterative_deepening,
    lines_order,
    minimax,
    oracle_order,
    play_game,
    random_order,
    reachable_positions,
    solve,
    textbook_alphabeta,
    trace_alphabeta,
    tree_size,
)
from gamekit import search as search_module
from gamekit.views.trees import (
    AlphaBetaStepper,
    alphabeta_figures,
    build_tree,
    draw_alphabeta_step,
    draw_alphabeta_storyboard,
    draw_tree,
)

INF = math.inf
FIG5 = [[3, 12, 8], [2, 4, 6], [14, 2, 5]]


def plain_minimax(game, s):
    """The oracle: the textbook recursion, nothing else."""
    if game.is_terminal(s):
        return game.utility(s, 0)
    vals = [plain_minimax(game, game.play(s, m)) for m in game.legal_moves(s)]
    return max(vals) if game.to_move(s) == 0 else min(vals)


def plain_depth_minimax(game, s, d, evaluate):
    """The oracle for depth-limited search."""
    if game.is_terminal(s):
        return game.utility(s, 0)
    if d == 0:
        return evaluate(game, s)
    vals = [plain_depth_minimax(game, game.play(s, m), d - 1, evaluate) for m in game.legal_moves(s)]
    return max(vals) if game.to_move(s) == 0 else min(vals)


def km_best_leaves(b, d):
    return b ** math.ceil(d / 2) + b ** math.floor(d / 2) - 1


# --- trees as data for hypothesis -------------------------------------------------------------

leaf = st.integers(-9, 9)
trees = st.recursive(leaf, lambda kids: st.lists(kids, min_size=1, max_size=4), max_leaves=30).filter(
    lambda t: isinstance(t, list)
)


@settings(max_examples=60, deadline=None)
@given(trees, st.integers(0, 10_000))
def test_every_search_equals_plain_minimax_on_random_trees(tree, seed):
    g = TreeGame(tree)
    want = plain_minimax(g, ())
    assert minimax(g).value == want == textbook_alphabeta(g, ())
    assert alphabeta(g).value == want and alphabeta(g, table=TranspositionTable()).value == want
    r = alphabeta(g, order=random_order(seed))
    assert r.value == want and plain_minimax(g, g.play((), r.move)) == want  # the move is worth the value
    tr = trace_alphabeta(g)
    assert (tr.result.value, tr.result.nodes, tr.result.leaves, tr.result.cutoffs) == (
        want,
        alphabeta(g).nodes,
        alphabeta(g).leaves,
        alphabeta(g).cutoffs,
    )
    assert alphabeta(g).leaves <= minimax(g).leaves


@settings(max_examples=60, deadline=None)
@given(trees, st.integers(-10, 10), st.integers(1, 12))
def test_knuth_moore_window_guarantees(tree, a, width):
    """Fail-soft: exact inside the window; outside, a bound between the window edge and the truth."""
    g = TreeGame(tree)
    true = plain_minimax(g, ())
    alpha, beta = a - 0.5, a - 0.5 + width
    r = alphabeta(g, alpha=alpha, beta=beta)
    t = textbook_alphabeta(g, (), alpha, beta)
    if alpha < true < beta:
        assert r.value == true == t and r.bound == "exact"
    elif true <= alpha:
        assert true <= r.value <= alpha and r.bound == "upper" and t <= alpha
    else:
        assert beta <= r.value <= true and r.bound == "lower" and t >= beta


@pytest.mark.parametrize("b,d", [(2, 5), (3, 4), (4, 4), (5, 3), (2, 8)])
def test_best_order_leaf_count_is_knuth_moore_minimum(b, d):
    t = RandomTree(b, d, seed=b * 10 + d)
    r = alphabeta(t, order=oracle_order(t))
    assert r.leaves == km_best_leaves(b, d) and r.value == minimax(t).value and minimax(t).leaves == b**d


# --- games: every position, both seats ---------------------------------------------------------

#: Instances whose every position is searched (each a whole minimax): the registry's small ones
#: up to this many positions (TicTacToe from the empty board, 5,478 positions, is checked by counts below).
EVERY_POSITION_LIMIT = 1000
GAMES = [
    Nim((1, 2, 4), misere=True),
    SubtractionGame(14, (3, 5, 11)),
    SubtractionGame(10, (1, 3, 4)),
] + [game for _, game in small_instances() if len(reachable_positions(game)) <= EVERY_POSITION_LIMIT]


def test_every_registered_game_is_searched_at_every_position():
    """A game added to the registry must come with a small instance that this file searches whole."""
    from gamekit.games.registry import COURSE_GAMES

    covered = {type(g).__module__ + ":" + type(g).__name__ for g in GAMES}
    assert {entry.target for entry in COURSE_GAMES.values()} <= covered


@pytest.mark.parametrize("game", GAMES, ids=repr)
def test_alphabeta_equals_solve_on_every_position(game):
    """Positions of both players to move; one table shared over all of them must not change a value."""
    values = solve(game)
    table = TranspositionTable()
    for s in reachable_positions(game):
        want = values[s]
        assert minimax(game, s).value == want == textbook_alphabeta(game, s)
        assert alphabeta(game, s).value == want == alphabeta(game, s, table=table).value


def test_tictactoe_published_counts_and_value():
    g = TicTacToe()
    r = minimax(g)
    assert r.nodes == tree_size(g) == 549_946  # the tree, root included
    assert r.leaves == 255_168 and r.value == 0  # the complete games; a draw
    ab = alphabeta(g)
    assert ab.value == 0 and ab.nodes < r.nodes


def test_table_never_changes_a_value_on_any_tictactoe_position():
    g = TicTacToe()
    values = solve(g)
    table = TranspositionTable()
    for i, s in enumerate(sorted(values)):
        assert alphabeta(g, s, table=table, order=lines_order if i % 2 else None).value == values[s]
    assert len(table) > 0


def test_depth_limited_searches_equal_depth_limited_minimax():
    g = TicTacToe()
    table = TranspositionTable()  # shared across positions and depths
    for s in sorted(reachable_positions(g))[::157]:
        for depth in (1, 2, 3):
            want = plain_depth_minimax(g, s, depth, h1)
            assert minimax(g, s, depth, h1).value == want
            assert alphabeta(g, s, depth, h1, order=heuristic_order(h1), table=table).value == want


# --- defect 3: a reused table must not turn estimates into exact values -------------------------


def test_reused_table_does_not_turn_a_depth_limited_estimate_into_the_value():
    g, table = Nim([1, 2]), TranspositionTable()
    shallow = iterative_deepening(g, max_depth=1, table=table)
    assert shallow.value == 0 and shallow.horizon > 0  # an estimate ("unknown")
    r = iterative_deepening(g, table=table)
    assert r.value == 1 == solve(g)[g.initial_state()] and r.horizon == 0
    assert len(r.iterations) > 1  # the table hit at depth 1 counted as a horizon estimate


def test_table_hits_below_a_horizon_count_as_horizon_evaluations():
    g, table = TicTacToe(), TranspositionTable()
    first = alphabeta(g, None, 2, h1, table=table)
    again = alphabeta(g, None, 2, h1, table=table)
    assert again.table_hits >= 1 and again.horizon >= 1 and again.value == first.value


def test_table_entries_remember_which_evaluate_made_them():
    g, table = TicTacToe(), TranspositionTable()
    s = g.play(g.initial_state(), 0)

    def pessimist(game, state):
        return -0.5

    alphabeta(g, s, 2, h1, table=table)
    r = alphabeta(g, s, 2, pessimist, table=table)
    assert r.value == plain_depth_minimax(g, s, 2, pessimist) == -0.5


def test_exact_entries_answer_deeper_searches_and_estimates_only_their_own_depth():
    g, table = TicTacToe("XOXXOO..."), TranspositionTable()  # X to move, three squares free
    s = g.initial_state()
    exact = alphabeta(g, s, 9, h1, table=table)  # reaches only ends of the game: no horizon
    assert exact.horizon == 0 and exact.value == solve(g)[s]
    deeper = alphabeta(g, s, 10, h1, table=table)
    assert deeper.nodes == 1 and deeper.table_hits == 1 and deeper.value == exact.value
    shallow = alphabeta(g, s, 1, h1, table=table)  # an entry for depth 9 says nothing about depth 1
    assert shallow.value == plain_depth_minimax(g, s, 1, h1) and shallow.nodes > 1


def test_a_table_belongs_to_one_game():
    table = TranspositionTable()
    alphabeta(Nim([1, 1, 2]), table=table)
    alphabeta(Nim([1, 1, 2]), table=table)  # an equal game may share it
    with pytest.raises(ValueError, match="new TranspositionTable"):
        alphabeta(Nim([1, 1, 2], misere=True), table=table)
    table.clear()
    misere = Nim([1, 1, 2], misere=True)
    assert alphabeta(misere, table=table).value == solve(misere)[misere.initial_state()]


def test_one_player_reused_over_many_fresh_games_plays_each_correctly():
    """The id()-cache defect, for the search player: fresh games freed one after the other."""
    p = SearchPlayer()
    for misere in [False, True] * 20:
        game = Nim([1, 1, 2], misere=misere)
        values = solve(game)
        s = game.initial_state()
        assert values[game.play(s, p(game, s))] == values[s]  # a best move in *this* game
        del game


# --- one alpha-beta, observed ------------------------------------------------------------------


def test_trace_is_alphabeta_observed_and_the_seminar_example():
    g = TreeGame(FIG5)
    events = []
    r = alphabeta(g, observer=events.append)
    tr = trace_alphabeta(g)
    assert [(e.kind, e.node, e.alpha, e.beta, e.value) for e in events] == [
        (s.kind, s.node, s.alpha, s.beta, s.value) for s in tr.steps
    ]
    assert sum(e.kind == "enter" for e in events) == r.nodes and sum(e.kind == "leaf" for e in events) == r.leaves
    cuts = [s for s in tr.steps if s.kind == "cut"]
    assert [c.pruned for c in cuts] == [((1, 1), (1, 2)), ((2, 2),)] and r.value == 3 and r.cutoffs == 2
    assert tr.window_at(len(tr) - 1)[()] == (3, INF)  # the root's beta is only handed down
    assert all(s.text for s in tr.steps) and "returns 3" in tr.steps[-1].text
    assert "play(" not in inspect.getsource(trace_alphabeta)  # it records alphabeta, no loop of its own


def test_observer_sees_table_hits():
    g, table = TicTacToe(), TranspositionTable()
    alphabeta(g, order=lines_order, table=table)
    events = []
    alphabeta(g, order=lines_order, table=table, observer=events.append)
    assert [e.kind for e in events] == ["enter", "hit"]


def test_search_knows_games_only_through_the_protocol():
    source = inspect.getsource(search_module).split("# --- old homes of TicTacToe")[0]
    assert "tictactoe" not in source.lower() and "id(" not in source and "repr(game" not in source


# --- deep games ----------------------------------------------------------------------------------


def test_deep_games_get_a_clear_error_naming_the_limit():
    deep = RandomTree(1, 1500)  # (iterative deepening would get there too, after ~1000 iterations)
    for run in (
        lambda: minimax(deep),
        lambda: alphabeta(deep),
        lambda: textbook_alphabeta(deep, ()),
        lambda: SearchPlayer(bounds=None)(deep, ()),
        lambda: build_tree(deep, values=False),
    ):
        with pytest.raises(GameTooDeepError, match="recursion"):
            run()
    assert alphabeta(deep, depth=3, evaluate=lambda g, s: 0.0).value == 0.0  # a depth limit is fine
    with pytest.raises(ValueError, match="at most 200 levels"):
        deep.nested()


# --- TicTacToe's heuristic, order and the seminar's figure 4 -------------------------------------


def test_h1_depth_two_from_the_empty_board_prefers_the_centre():
    g = TicTacToe()
    s = g.initial_state()
    assert h1(g, s) == 0 and (h1(g, g.play(s, 4)), h1(g, g.play(s, 0)), h1(g, g.play(s, 1))) == (4, 3, 2)
    assert {m: minimax(g, g.play(s, m), 1, h1).value for m in (4, 0, 1)} == {4: 1, 0: -1, 1: -2}
    r = minimax(g, s, 2, h1)
    assert (r.move, r.value) == (4, 1) and alphabeta(g, s, 2, h1).move == 4
    t = build_tree(g, depth=2, evaluate=h1, same=canonical)
    assert t.level_sizes() == [1, 3, 12] and t.value == 1
    assert sum(c.multiplicity * sum(x.multiplicity for x in c.children) for c in t.children) == 72
    trap = TicTacToe(".....XOOX")  # raw h1 passes up the win on 2; h1/10 takes it
    assert minimax(trap, None, 1, h1).move != 2 and minimax(trap, None, 1, h1_scaled).move == 2
    assert all(-1 < h1_scaled(g, k) < 1 for k in list(reachable_positions(g))[::50])


def test_orders_are_permutations():
    g = TicTacToe()
    s = g.play(g.initial_state(), 0)
    for order in (lines_order, heuristic_order(h1), random_order(3), oracle_order(g, s)):
        assert sorted(order(g, s, g.legal_moves(s))) == sorted(g.legal_moves(s))
    assert lines_order(g, g.initial_state(), range(9)) == [4, 0, 2, 6, 8, 1, 3, 5, 7]
    assert heuristic_order(h1)(g, g.initial_state(), g.legal_moves(g.initial_state()))[0] == 4
    runs = [alphabeta(g, order=o).nodes for o in (None, lines_order)]
    assert runs[0] > runs[1] and alphabeta(g, order=lines_order, table=TranspositionTable()).nodes < runs[1]


# --- the player ------------------------------------------------------------------------------


def _never_loses(game, player, seat, s, values):
    """Every opponent strategy, exhaustively: follow all opponent moves, the player's one move."""
    if game.is_terminal(s):
        return game.utility(s, seat) >= 0
    if game.to_move(s) == seat:
        m = player(game, s)
        assert values[game.play(s, m)] == values[s]  # the move keeps the exact value
        return _never_loses(game, player, seat, game.play(s, m), values)
    return all(_never_loses(game, player, seat, game.play(s, m), values) for m in game.legal_moves(s))


@pytest.mark.parametrize("seat", [0, 1])
def test_perfect_player_never_loses_to_any_opponent(seat):
    g = TicTacToe()
    assert _never_loses(g, SearchPlayer(order=lines_order), seat, g.initial_state(), solve(g))


def test_perfect_player_warm_search_is_one_node_and_depth_player_beats_random():
    g = TicTacToe()
    p = SearchPlayer()
    assert play_game(g, [p, p]).winner is None
    p(g, g.initial_state())
    assert p.last.nodes == 1 and p.last.table_hits == 1
    d2 = SearchPlayer(depth=2, evaluate=h1_scaled)
    results = [play_game(g, [d2, RandomPlayer(seed=i)]).winner for i in range(10)]
    assert results.count(1) == 0 and results.count(0) >= 7


def test_search_player_bounds():
    g = TreeGame(FIG5)
    with pytest.raises(ValueError, match="bounds=None"):
        SearchPlayer()(g, ())
    assert SearchPlayer(bounds=None)(g, ()) == 0 and SearchPlayer(bounds=(0, 20))(g, ()) == 0
    t = RandomTree(3, 4, seed=5)
    assert minimax(t, t.play((), SearchPlayer(bounds=None)(t, ()))).value == minimax(t).value


# --- bad input -------------------------------------------------------------------------------


def test_bad_input_is_refused_clearly():
    g = TicTacToe()
    for bad_value in ("good", None, True):
        with pytest.raises(TypeError, match="evaluate must return a number"):
            alphabeta(g, None, 1, lambda game, s, v=bad_value: v)
    with pytest.raises(ValueError, match="NaN"):
        alphabeta(g, None, 1, lambda game, s: float("nan"))
    with pytest.raises(ValueError, match="needs evaluate"):
        alphabeta(g, None, 2)
    for bad in (-1, 1.5, True, "3"):
        with pytest.raises((TypeError, ValueError), match="depth must be"):
            minimax(g, None, bad, h1)
        with pytest.raises((TypeError, ValueError), match="depth must be"):
            iterative_deepening(g, max_depth=bad)
    with pytest.raises(ValueError, match="alpha < beta"):
        alphabeta(g, alpha=1, beta=1)
    for alpha in ("low", None, True, float("nan")):
        with pytest.raises(TypeError, match="alpha"):
            alphabeta(g, alpha=alpha)
    with pytest.raises(TypeError, match="order"):
        alphabeta(g, order=3)
    with pytest.raises(TypeError, match="observer"):
        alphabeta(g, observer="print")
    with pytest.raises(ValueError, match="same moves"):
        alphabeta(g, order=lambda game, s, moves: list(moves)[:1])
    with pytest.raises(TypeError, match="TranspositionTable"):
        alphabeta(g, table={})
    with pytest.raises(TypeError, match="not a Game"):
        minimax(object())
    with pytest.raises(TypeError, match="evaluate must be a function"):
        SearchPlayer(depth=2, evaluate=5)
    with pytest.raises(ValueError, match="depth >= 1"):
        SearchPlayer(depth=0, evaluate=h1)
    for bounds in ((1, -1), 3, (1, 2, 3)):
        with pytest.raises((TypeError, ValueError)):
            SearchPlayer(bounds=bounds)
    with pytest.raises(ValueError, match="game is over"):
        SearchPlayer()(g, tuple("XXXOO...."))
    for seed in (1.5, "1", True):
        with pytest.raises(TypeError, match="seed"):
            random_order(seed)
    for args in ((0, 3), (2, 0), (2.5, 3), (10, 10), (2, 3, -1), (2, 3, 1.5), (2, 3, True), (1, 10**6)):
        with pytest.raises((TypeError, ValueError)):
            RandomTree(*args)
    for tree in ([], 5, [[1, []]], [["a"]], [[True]]):
        with pytest.raises((TypeError, ValueError)):
            TreeGame(tree)
    with pytest.raises(ValueError, match="mark"):
        from gamekit import open_lines

        open_lines(g.initial_state(), "Z")


def test_nothing_changes_on_error():
    g = TicTacToe()
    table = TranspositionTable()
    with pytest.raises(TypeError):
        alphabeta(g, g.play(g.initial_state(), 4), 1, lambda game, s: "x", table=table)
    assert len(table) == 0


# --- random trees and tree views -------------------------------------------------------------


def test_random_tree_is_a_seeded_game_and_equal_trees_compare_equal():
    a, b = RandomTree(3, 4, seed=7), RandomTree(3, 4, seed=7)
    assert a.leaf_values() == b.leaf_values() and a == b and hash(a) == hash(b)
    assert a != RandomTree(3, 4, seed=8) and TreeGame(FIG5) == TreeGame(FIG5) != TreeGame([[1]])
    assert sorted(a.leaf_values()) == list(range(81))
    assert a.utility((0, 0, 0, 0), 1) == -a.utility((0, 0, 0, 0), 0)
    with pytest.raises(ValueError, match="illegal move"):
        a.play((0,), 3)
    assert a.nested()[0][0][0][0] == a.leaf_values()[0]


def test_stepper_widget_and_figures_headless():
    g = TreeGame(FIG5)
    tr, tree = trace_alphabeta(g), build_tree(g)
    w = AlphaBetaStepper(tr, tree)
    w.back.click()
    assert w.k == 0 and "already the first step" in w.message.value
    w.k = len(tr) - 2  # jump near the end (each click renders a picture)
    w.next.click()
    assert w.k == len(tr) - 1 and "returns 3" in w.message.value
    w.next.click()
    assert w.k == len(tr) - 1 and "already the last step" in w.message.value
    assert "image/png" in w._repr_mimebundle_()
    figs = alphabeta_figures(tr, tree, kinds=("cut",))
    assert len(figs) == 3
    for k in (-1, len(tr)):
        with pytest.raises(ValueError, match="step k"):
            draw_alphabeta_step(tr, tree, k)
    figs.append(draw_alphabeta_storyboard(tr, tree, [0, 5]))
    figs.append(draw_tree(tree))
    exact = solve(TicTacToe()).__getitem__
    excerpt = build_tree(
        TicTacToe(), depth=2, same=canonical, values=exact, order=lines_order, keep=lambda p: len(p) < 2 or p[0] == 4
    )
    assert [c.path[0] for c in excerpt.children] == [4, 0, 1] and excerpt.value == 0
    assert [len(c.children) for c in excerpt.children] == [2, 0, 0]
    figs.append(draw_tree(excerpt, boards=True, best="first"))
    for f in figs:
        plt.close(f)


def test_tree_alt_text_names_the_red_edges_it_draws():
    """The alt text counts and names the edges drawn red: one with best="first", every best one
    without it, none with best=False (the figure and its text alternative from the same data)."""
    from gamekit.views.alt import alt_text
    from gamekit.views.colors import RED
    from gamekit.views.trees import _red_children

    exact = solve(TicTacToe()).__getitem__
    tree = build_tree(TicTacToe(), depth=1, same=canonical, values=exact, order=lines_order)
    ties = [c.path[0] for c in tree.children if c.value == tree.value]
    assert tree.value == 0 and len(ties) == 3  # centre, corner and edge all draw
    for best, red_moves in (("first", ties[:1]), (True, ties), (False, [])):
        fig = draw_tree(tree, best=best)
        reds = [ln for ln in fig.axes[0].lines if matplotlib.colors.same_color(ln.get_color(), RED)]
        assert len(reds) == len(red_moves) == len(_red_children(tree, best))
        text = alt_text(fig)
        if red_moves:
            word = "move" if len(red_moves) == 1 else "moves"
            moves = ", ".join(map(str, red_moves))
            assert f"{len(red_moves)} best {word} from the root ({moves}) drawn red" in text, text
        else:
            assert "red" not in text, text
        assert ("2 other moves as good" in text) == (best == "first"), text
        plt.close(fig)


def test_nested_sets_figure_and_its_input_check():
    from gamekit.views.trees import draw_nested_sets

    fig, ax = plt.subplots()
    draw_nested_sets(ax, [("conceivable", 19_683), ("admissible K", 5_478), ("end F", 958)], "configurations")
    assert [t.get_text() for t in ax.texts] == ["conceivable: 19,683", "admissible K: 5,478", "end F: 958"]
    with pytest.raises(ValueError, match="largest to the smallest"):
        draw_nested_sets(ax, [("small", 1), ("big", 2)])
    plt.close(fig)


def test_numpy_integers_are_whole_numbers_and_one_error_class():
    import numpy as np

    from gamekit import protocol

    g = TicTacToe()
    assert minimax(g, None, np.int64(1), h1).value == minimax(g, None, 1, h1).value
    assert RandomTree(np.int64(2), np.int64(3), seed=np.int64(1)) == RandomTree(2, 3, seed=1)
    assert random_order(np.int64(3))(g, g.initial_state(), range(9)) == random_order(3)(g, g.initial_state(), range(9))
    assert GameTooDeepError is protocol.GameTooDeepError
