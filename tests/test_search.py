"""Search: minimax, alpha-beta (fail-soft), table, move orders, iterative deepening, the
search player, heuristics, random trees and the tree views, checked against exact oracles
(`solve`, a plain recursive minimax written here, Knuth-Moore's formula, published counts)."""

import math

import matplotlib
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

matplotlib.use("Agg")

from gamekit import (
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
    minimax,
    oracle_order,
    play_game,
    random_order,
    reachable_positions,
    solve,
    tree_size,
)
from gamekit.search import trace_alphabeta
from gamekit.views.trees import (
    AlphaBetaStepper,
    alphabeta_figures,
    build_tree,
    draw_alphabeta_storyboard,
    draw_tree,
)

INF = math.inf


def plain_minimax(game, s):
    """The oracle: the textbook recursion, nothing else."""
    if game.is_terminal(s):
        return game.utility(s, 0)
    vals = [plain_minimax(game, game.play(s, m)) for m in game.legal_moves(s)]
    return max(vals) if game.to_move(s) == 0 else min(vals)


def km_best_leaves(b, d):
    return b ** math.ceil(d / 2) + b ** math.floor(d / 2) - 1


# --- trees as data for hypothesis -------------------------------------------------------------

leaf = st.integers(-9, 9)
trees = st.recursive(leaf, lambda kids: st.lists(kids, min_size=1, max_size=4), max_leaves=40).filter(
    lambda t: isinstance(t, list)
)


@settings(max_examples=150, deadline=None)
@given(trees, st.integers(0, 10_000))
def test_alphabeta_equals_minimax_on_random_trees(tree, seed):
    g = TreeGame(tree)
    want = plain_minimax(g, ())
    assert minimax(g).value == want
    assert alphabeta(g).value == want
    assert alphabeta(g, order=random_order(seed)).value == want
    assert alphabeta(g, table=TranspositionTable()).value == want
    assert trace_alphabeta(g).result.value == want
    # the move alpha-beta picks really is worth the value
    r = alphabeta(g, order=random_order(seed))
    assert plain_minimax(g, g.play((), r.move)) == want
    assert alphabeta(g).leaves <= minimax(g).leaves


@settings(max_examples=150, deadline=None)
@given(trees, st.integers(-10, 10), st.integers(1, 12))
def test_knuth_moore_window_guarantees(tree, a, width):
    """Fail-soft: exact inside the window; outside, a bound that lies between the window edge and the truth."""
    g = TreeGame(tree)
    true = plain_minimax(g, ())
    alpha, beta = a - 0.5, a - 0.5 + width
    r = alphabeta(g, alpha=alpha, beta=beta)
    if alpha < true < beta:
        assert r.value == true and r.bound == "exact"
    elif true <= alpha:
        assert true <= r.value <= alpha and r.bound == "upper"
    else:
        assert beta <= r.value <= true and r.bound == "lower"


@pytest.mark.parametrize("b,d", [(2, 1), (2, 5), (3, 4), (3, 5), (4, 4), (5, 3), (2, 8)])
def test_best_order_leaf_count_is_knuth_moore_minimum(b, d):
    for seed in range(3):
        t = RandomTree(b, d, seed=seed)
        r = alphabeta(t, order=oracle_order(t))
        assert r.leaves == km_best_leaves(b, d)
        assert r.value == minimax(t).value
        assert minimax(t).leaves == b**d


def test_random_tree_orders_between_best_and_minimax():
    t = RandomTree(4, 6, seed=3)
    full = minimax(t)
    for order in (None, random_order(1)):
        r = alphabeta(t, order=order)
        assert r.value == full.value
        assert km_best_leaves(4, 6) <= r.leaves < 4**6


# --- games: every position, both seats -------------------------------------------------------

GAMES = [
    Nim((1, 2, 3)),
    Nim((2, 2, 3)),
    Nim((1, 2, 4), misere=True),
    Nim((2, 2, 2), misere=True),
    SubtractionGame(12, (1, 2, 3)),
    SubtractionGame(14, (3, 5, 11)),
    SubtractionGame(10, (1, 3, 4)),
]


@pytest.mark.parametrize("game", GAMES, ids=repr)
def test_alphabeta_equals_minimax_on_every_position(game):
    values = solve(game)
    table = TranspositionTable()
    for s in reachable_positions(game):
        want = values[s]
        assert minimax(game, s).value == want
        assert alphabeta(game, s).value == want
        assert alphabeta(game, s, table=table).value == want  # one table shared by all positions
        if not game.is_terminal(s):
            r = alphabeta(game, s)
            assert values[game.play(s, r.move)] == want  # the move keeps the value
    # both seats: the same piles / number with player 1 to move is worth minus for player 0
    for s in list(values)[:40]:
        flipped = s._replace(to_move=1 - s.to_move)
        assert alphabeta(game, flipped).value == plain_minimax(game, flipped)


def test_tictactoe_counts_and_value():
    g = TicTacToe()
    r = minimax(g)
    assert r.nodes == tree_size(g) == 549_946  # published tree size, root included
    assert r.leaves == 255_168  # published number of complete games
    assert r.value == 0  # a draw
    assert alphabeta(g).value == 0
    assert iterative_deepening(g).value == 0
    assert alphabeta(g).nodes < r.nodes


def test_table_never_changes_a_value_tictactoe():
    g = TicTacToe()
    values = solve(g)
    table = TranspositionTable()
    order = heuristic_order(h1)
    for i, s in enumerate(sorted(values)):
        assert alphabeta(g, s, table=table, order=order if i % 2 else None).value == values[s]


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_depth_limited_with_table_equals_depth_limited_minimax(depth):
    g = TicTacToe()
    for s in sorted(reachable_positions(g))[::97]:
        want = minimax(g, s, depth, h1).value
        assert alphabeta(g, s, depth, h1).value == want
        assert alphabeta(g, s, depth, h1, table=TranspositionTable()).value == want
        assert alphabeta(g, s, depth, h1, order=heuristic_order(h1), table=TranspositionTable()).value == want


def test_iterative_deepening_is_exact_and_uses_the_table():
    g = TicTacToe()
    values = solve(g)
    for s in sorted(values)[::211]:
        r = iterative_deepening(g, s)
        assert r.value == values[s]
        assert r.horizon == 0 and r.iterations
        assert r.nodes == sum(it.nodes for it in r.iterations)
    r = iterative_deepening(g, max_depth=2, evaluate=h1)
    assert len(r.iterations) == 2 and r.value == minimax(g, None, 2, h1).value


# --- the seminar's h1 and figure 4 -----------------------------------------------------------


def test_h1_depth_two_from_the_empty_board_prefers_the_centre():
    g = TicTacToe()
    s = g.initial_state()
    assert h1(g, s) == 0
    assert h1(g, g.play(s, 4)) == 4 and h1(g, g.play(s, 0)) == 3 and h1(g, g.play(s, 1)) == 2
    vals = {m: minimax(g, g.play(s, m), 1, h1).value for m in (4, 0, 1)}
    assert vals == {4: 1, 0: -1, 1: -2}
    r = minimax(g, s, 2, h1)
    assert r.move == 4 and r.value == 1
    assert alphabeta(g, s, 2, h1).move == 4
    assert -1 < h1_scaled(g, g.play(s, 4)) < 1


def test_symmetry_reduced_tree_has_1_3_12_nodes():
    t = build_tree(TicTacToe(), depth=2, evaluate=h1, same=canonical)
    assert t.level_sizes() == [1, 3, 12]
    assert sum(c.multiplicity for c in t.children) == 9
    assert sum(c.multiplicity * sum(g.multiplicity for g in c.children) for c in t.children) == 9 * 8
    assert t.value == 1


# --- the player ------------------------------------------------------------------------------


def test_perfect_player_draws_itself_and_warm_search_is_one_node():
    g = TicTacToe()
    p = SearchPlayer()
    rec = play_game(g, [p, p])
    assert rec.winner is None
    p(g, g.initial_state())
    assert p.last.nodes == 1 and p.last.table_hits == 1


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
    assert _never_loses(g, SearchPlayer(), seat, g.initial_state(), solve(g))


@pytest.mark.parametrize("seat", [0, 1])
def test_perfect_player_never_loses_nim_or_subtraction(seat):
    for g in (Nim((1, 2, 3)), Nim((2, 2, 3), misere=True), SubtractionGame(15, (3, 5, 11))):
        values = solve(g)
        p = SearchPlayer()
        # wherever the player's seat can hold the game (value not lost), it never loses
        s = g.initial_state()
        sign = 1 if seat == 0 else -1
        if sign * values[s] >= 0:
            assert _never_loses(g, p, seat, s, values)


def test_depth_limited_player_beats_random_mostly():
    g = TicTacToe()
    p = SearchPlayer(depth=2, evaluate=h1_scaled)
    results = [play_game(g, [p, RandomPlayer(seed=i)]).winner for i in range(20)]
    assert results.count(1) == 0  # X with a 2-ply look-ahead never loses to random here
    assert results.count(0) >= 15


# --- bad input -------------------------------------------------------------------------------


def test_bad_input_is_refused_clearly():
    g = TicTacToe()
    with pytest.raises(TypeError, match="evaluate must return a number"):
        minimax(g, None, 1, lambda game, s: "good")
    with pytest.raises(TypeError, match="evaluate must return a number"):
        alphabeta(g, None, 1, lambda game, s: None)
    with pytest.raises(TypeError, match="evaluate must return a number"):
        alphabeta(g, None, 1, lambda game, s: True)
    with pytest.raises(ValueError, match="NaN"):
        alphabeta(g, None, 1, lambda game, s: float("nan"))
    with pytest.raises(ValueError, match="needs evaluate"):
        alphabeta(g, None, 2)
    for bad in (-1, 1.5, True, "3"):
        with pytest.raises((TypeError, ValueError), match="depth must be"):
            minimax(g, None, bad, h1)
    with pytest.raises(ValueError, match="alpha < beta"):
        alphabeta(g, alpha=1, beta=1)
    with pytest.raises(TypeError, match="alpha"):
        alphabeta(g, alpha="low")
    with pytest.raises(TypeError, match="order"):
        alphabeta(g, order=3)
    with pytest.raises(ValueError, match="same moves"):
        alphabeta(g, order=lambda game, s, moves: list(moves)[:1])
    with pytest.raises(TypeError, match="TranspositionTable"):
        alphabeta(g, table={})
    with pytest.raises(TypeError, match="not a Game"):
        minimax(object())
    with pytest.raises(TypeError, match="evaluate must be a function"):
        SearchPlayer(depth=2, evaluate=5)
    with pytest.raises(ValueError, match="game is over"):
        SearchPlayer()(g, tuple("XXXOO...."))
    for args in ((0, 3), (2, 0), (2.5, 3), (10, 10)):
        with pytest.raises((TypeError, ValueError)):
            RandomTree(*args)
    for tree in ([], 5, [[1, []]], [["a"]], [[True]]):
        with pytest.raises((TypeError, ValueError)):
            TreeGame(tree)


def test_nothing_changes_on_error():
    g = TicTacToe()
    table = TranspositionTable()
    with pytest.raises(TypeError):
        alphabeta(g, g.play(g.initial_state(), 4), 1, lambda game, s: "x", table=table)
    assert len(table) == 0


# --- random trees and tree views -------------------------------------------------------------


def test_random_tree_is_a_seeded_game():
    a, b = RandomTree(3, 4, seed=7), RandomTree(3, 4, seed=7)
    assert a.leaf_values() == b.leaf_values()
    assert sorted(a.leaf_values()) == list(range(81))
    assert a.utility((0, 0, 0, 0), 1) == -a.utility((0, 0, 0, 0), 0)
    with pytest.raises(ValueError, match="illegal move"):
        a.play((0,), 3)
    assert a.nested()[0][0][0][0] == a.leaf_values()[0]


def test_trace_matches_alphabeta_and_the_seminar_example():
    g = TreeGame([[3, 12, 8], [2, 4, 6], [14, 2, 5]])
    tr = trace_alphabeta(g)
    r = alphabeta(g)
    assert (tr.result.value, tr.result.nodes, tr.result.leaves, tr.result.cutoffs) == (
        r.value,
        r.nodes,
        r.leaves,
        r.cutoffs,
    )
    cuts = [s for s in tr.steps if s.kind == "cut"]
    assert [len(c.pruned) for c in cuts] == [2, 1] and r.value == 3
    assert tr.window_at(len(tr) - 1)[()] == (3, INF)  # the root's beta never moves


@settings(max_examples=40, deadline=None)
@given(trees)
def test_trace_counts_equal_alphabeta(tree):
    g = TreeGame(tree)
    tr, r = trace_alphabeta(g), alphabeta(g)
    assert (tr.result.value, tr.result.nodes, tr.result.leaves, tr.result.cutoffs) == (
        r.value,
        r.nodes,
        r.leaves,
        r.cutoffs,
    )


def test_stepper_widget_headless():
    g = TreeGame([[3, 12, 8], [2, 4, 6], [14, 2, 5]])
    tr, tree = trace_alphabeta(g), build_tree(g)
    w = AlphaBetaStepper(tr, tree)
    w.back.click()
    assert w.k == 0 and "already the first step" in w.message.value
    for _ in range(len(tr) - 1):
        w.next.click()
    assert w.k == len(tr) - 1 and "returns 3" in w.message.value
    w.next.click()
    assert w.k == len(tr) - 1 and "already the last step" in w.message.value
    w.back.click()
    assert w.k == len(tr) - 2
    assert "image/png" in w._repr_mimebundle_()
    figs = alphabeta_figures(tr, tree)
    assert len(figs) == sum(s.kind in ("update", "cut") for s in tr.steps) + 1  # + the final step
    import matplotlib.pyplot as plt

    for f in figs:
        plt.close(f)
    plt.close(draw_alphabeta_storyboard(tr, tree, [0, 5]))
    plt.close(draw_tree(build_tree(TicTacToe(), depth=1, evaluate=h1, same=canonical), boards=True))


# --- the numbers notebook 04 states -----------------------------------------------------------


def test_numbers_stated_in_notebook_04():
    from gamekit import lines_order

    g = TicTacToe()
    positions = reachable_positions(g)
    assert len(positions) == 5478 and sum(g.is_terminal(k) for k in positions) == 958
    parents = {}
    for k in positions:
        for m in g.legal_moves(k):
            c = g.play(k, m)
            parents[c] = parents.get(c, 0) + 1
    assert sum(n > 1 for n in parents.values()) > 0  # the game graph is not a tree
    assert sum(math.perm(9, k) for k in range(10)) == 986_410
    # figure 3: the centre wins
    r3 = minimax(TicTacToe("..OX.OOXX"))
    assert r3.move == 4 and r3.value == 1
    # raw h1 passes up an immediate win; h1/10 does not
    trap = TicTacToe(".....XOOX")
    assert minimax(trap, None, 1, h1).move != 2 and minimax(trap, None, 1, h1_scaled).move == 2
    # refinement chain on the empty board
    runs = [
        minimax(g).nodes,
        alphabeta(g).nodes,
        alphabeta(g, order=lines_order).nodes,
        alphabeta(g, order=lines_order, table=TranspositionTable()).nodes,
    ]
    assert runs[0] == 549_946 and runs[0] > runs[1] > runs[2] > runs[3]
    assert iterative_deepening(g, order=lines_order).value == 0
    p = SearchPlayer(order=lines_order)
    assert p(g, g.initial_state()) == 4 and p.last.nodes < runs[3]
    # exercises
    t = RandomTree(3, 5, seed=2026)
    assert alphabeta(t, order=oracle_order(t)).leaves == 3**3 + 3**2 - 1
    r42 = alphabeta(TreeGame([[5, 1], [4, 7], [2, 9]]))
    assert (r42.value, r42.leaves) == (4, 5)
    worst = alphabeta(g, order=lambda gm, s, m: lines_order(gm, s, m)[::-1]).nodes
    assert worst > alphabeta(g).nodes
    r44 = alphabeta(TreeGame([[1, 1], [2, 0]]), alpha=2.5, beta=2.6)
    assert r44.value == 2 and r44.bound == "upper"
    assert alphabeta(Nim((3, 4, 5)), table=TranspositionTable()).value == 1


def test_orders_are_permutations():
    from gamekit import lines_order

    g = TicTacToe()
    s = g.play(g.initial_state(), 0)
    moves = g.legal_moves(s)
    for order in (lines_order, heuristic_order(h1), random_order(3), oracle_order(g, s)):
        out = list(order(g, s, moves))
        assert sorted(out) == sorted(moves)
    assert lines_order(g, g.initial_state(), g.legal_moves(g.initial_state())) == [4, 0, 2, 6, 8, 1, 3, 5, 7]
    assert heuristic_order(h1)(g, g.initial_state(), g.legal_moves(g.initial_state()))[0] == 4


def test_search_player_bounds():
    g = TreeGame([[3, 12, 8], [2, 4, 6], [14, 2, 5]])
    with pytest.raises(ValueError, match="bounds=None"):
        SearchPlayer()(g, ())
    assert SearchPlayer(bounds=None)(g, ()) == 0
    assert SearchPlayer(bounds=(0, 20))(g, ()) == 0
    with pytest.raises(ValueError, match="depth >= 1"):
        SearchPlayer(depth=0, evaluate=h1)
    with pytest.raises((TypeError, ValueError)):
        SearchPlayer(bounds=(1, -1))
    with pytest.raises(TypeError):
        SearchPlayer(bounds=3)
    t = RandomTree(3, 4, seed=5)
    p = SearchPlayer(bounds=None)
    assert minimax(t, t.play((), p(t, ()))).value == minimax(t).value


def test_more_numbers_stated_in_notebook_04():
    """Figure 1 (conceivable vs admissible), the shared parents, 9!, figure 5's cuts, the windows,
    and the refinement chain's last step: each number the notebook's text relies on."""
    from itertools import product

    from gamekit import IllegalMoveError, lines_order

    g = TicTacToe()
    k0 = g.initial_state()
    K = reachable_positions(g)
    conceivable = set(product("XO.", repeat=9))
    assert len(conceivable) == 3**9 == 19_683 and conceivable > K and tuple("XXXXX....") not in K
    with pytest.raises(IllegalMoveError):
        g.play(g.play(k0, 4), 4)
    parents = {}
    for k in K:
        for child in {g.play(k, m) for m in g.legal_moves(k)}:
            parents[child] = parents.get(child, 0) + 1
    assert sum(n > 1 for n in parents.values()) > (len(K) - 1) / 2  # "most positions" have several parents
    assert math.factorial(9) == 362_880 < tree_size(g)  # the paper's footnote 7 is not the node count
    # figure 5: two cuts skip three leaves; six leaves are evaluated
    fig5 = TreeGame([[3, 12, 8], [2, 4, 6], [14, 2, 5]])
    r5 = alphabeta(fig5)
    assert (r5.value, r5.leaves, r5.cutoffs) == (3, 6, 2) and len(fig5.leaf_values()) - r5.leaves == 3
    # the windows shown in the notebook
    assert alphabeta(fig5, alpha=2, beta=4).bound == "exact"
    r = alphabeta(fig5, alpha=4, beta=10)
    assert r.bound == "upper" and r.value <= 4
    r = alphabeta(fig5, alpha=-5, beta=1)
    assert r.bound == "lower" and r.value >= 1
    # iterative deepening repeats shallow searches: more nodes than one search with the table
    with_table = alphabeta(g, order=lines_order, table=TranspositionTable())
    deepening = iterative_deepening(g, order=lines_order)
    assert deepening.nodes > with_table.nodes and deepening.value == with_table.value == 0


def test_random_order_costs_more_than_the_three_quarter_rule():
    """The notebook's 'source says' box: shuffled alpha-beta on b = 4 trees evaluates more than
    b^(3d/4) leaves at every depth measured (the same trees and seeds as the notebook)."""
    seed, b = 2026, 4
    for d in range(2, 9):
        trees = [RandomTree(b, d, seed=seed + i) for i in range(10)]
        mean = sum(alphabeta(t, order=random_order(seed + i)).leaves for i, t in enumerate(trees)) / 10
        assert math.log(mean, b) / d > 0.75, d


def test_play_widget_with_search_players_headless():
    """Notebook 04's play widget: the chapter's players plug into TicTacToePlay."""
    from gamekit.views.tictactoe import TicTacToePlay, winner

    g = TicTacToe()
    w = TicTacToePlay(
        players={"perfect (alpha-beta)": lambda: SearchPlayer(), "depth 2, h1": lambda: SearchPlayer(2, h1_scaled)}
    )
    assert w.opponent.value == "perfect (alpha-beta)"
    w.squares[0].click()  # X in a corner: the perfect reply is the centre
    assert w.state[0] == "X" and w.state[4] == "O"
    before = w.state
    w.squares[4].click()
    assert w.state == before and "taken" in w.message.value
    while not g.is_terminal(w.state):
        w.squares[w.state.index(".")].click()
    assert winner(w.state) != "X"  # the human never beats the perfect player
    w.opponent.value = "depth 2, h1"
    w.seat.value = "O"  # the computer opens as X
    assert w.state.count("X") == 1 and w.state.count("O") == 0


def test_stepper_figures_refuse_a_bad_step():
    g = TreeGame([[3, 12, 8], [2, 4, 6], [14, 2, 5]])
    tr, tree = trace_alphabeta(g), build_tree(g)
    from gamekit.views.trees import draw_alphabeta_step

    for k in (-1, len(tr)):
        with pytest.raises(ValueError, match="step k"):
            draw_alphabeta_step(tr, tree, k)


def test_mid_game_positions_can_be_won():
    """Figure 3's caption says the value cannot be 1 since TicTacToe has no winning strategy: that
    holds for the empty board only. 2,310 of the 4,520 positions still in play are wins for X."""
    g = TicTacToe()
    values = solve(g)
    live = [k for k in reachable_positions(g) if not g.is_terminal(k)]
    won = [k for k in live if values[k] == 1]
    assert values[g.initial_state()] == 0 and (len(won), len(live)) == (2310, 4520)
    example = TicTacToe("..OX.OOXX").initial_state()
    assert plain_minimax(g, example) == values[example] == 1
    for k in won[::97]:  # spot checks against the plain recursion
        assert plain_minimax(g, k) == 1
