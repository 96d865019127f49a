"""Views of the subtraction game: number graphs, course graphs, tree growth and the widgets.

Colours are checked against independent oracles: the mod-8 rule for 3, 5, 11, exact values
from `solve` for other sets, and a plain recursive tree count for the growth plot.
"""

import matplotlib

matplotlib.use("Agg")

import ipywidgets as widgets
import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.figure import Figure

from gamekit import PerfectPlayer, SubtractionGame, play_game, reachable_positions, red_blue, solve
from gamekit.views.alt import FIGURE_KINDS
from gamekit.views.subtraction import (
    MixedRateExplorer,
    NumberGraphExplorer,
    SubtractionPlay,
    backward_labels,
    course_graph,
    course_numbers,
    draw_backward_step,
    draw_course,
    draw_number_graph,
    draw_tree_growth,
    edge_colour,
    edge_colours,
    grid_layout,
    mixed_win_rate,
    number_graph,
    parse_start,
    tree_growth,
    trim_course,
)

OTHER_SETS = [(3, 5), (3, 5, 8), (1, 2), (2, 7), (4, 9, 10), (1, 3, 4), (2, 5, 6)]

# The four courses the source prints (figures 5-8), R's trailing zeros dropped.
SOURCE_COURSES = {
    5: [50, 47, 42, 39, 34, 31, 26, 21, 18, 15, 12, 7, 2, -1],
    6: [44, 41, 38, 33, 30, 25, 22, 17, 14, 9, 6, 1, -2],
    7: [45, 42, 39, 36, 31, 26, 21, 18, 15, 12, 7, 2, -1],
    8: [50, 45, 42, 39, 34, 31, 26, 23, 18, 13, 10, 7, 4, 1, -2],
}


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def mover_value(n, moves, to_move=0):
    """Exact value of n for the player to move there (+1: can force a win), via solve."""
    game = SubtractionGame(max(n, 0), moves)
    state = game.state(n, to_move)
    if n <= 0:
        return game.utility(state, to_move)
    v = solve(game, state)[state]  # player 0's view
    return v if to_move == 0 else -v


# -- number graph ------------------------------------------------------------------------


@pytest.mark.parametrize("N", [0, 1, 2, 3, 7, 8, 22, 80, 81, 200])
def test_number_graph_colours_follow_the_mod_8_rule(N):
    g = number_graph(N)
    assert sorted(g.nodes) == list(range(N + 1))
    for n in g.nodes:
        assert g.nodes[n]["colour"] == ("red" if n % 8 in (0, 1, 2) else "blue"), n


def test_number_graph_edges_are_the_moves_that_stay_at_or_above_zero():
    g = number_graph(30)
    expected = {(n, n - d) for n in range(31) for d in (3, 5, 11) if n - d >= 0}
    assert set(g.edges) == expected
    for u, v, data in g.edges(data=True):
        assert data["move"] == u - v
        assert data["winning"] == (v % 8 in (0, 1, 2))


@pytest.mark.parametrize("moves", OTHER_SETS)
def test_number_graph_colours_for_other_sets_match_red_blue_and_solve(moves):
    N = 60
    g = number_graph(N, moves)
    rb = red_blue(N, moves)
    for n in range(N + 1):
        assert g.nodes[n]["colour"] == rb.colour(n)
    for n in range(1, 40):  # independent oracle: red = the mover loses with best play
        assert (g.nodes[n]["colour"] == "red") == (mover_value(n, moves) == -1), (moves, n)


def test_grid_layout_puts_residues_in_columns_and_rejects_bad_periods():
    pos = grid_layout(range(23), 8)
    assert pos[17] == (1.0, 2.0) and pos[0] == (0.0, 0.0)
    assert all(pos[n][0] == n % 8 for n in pos)
    with pytest.raises(ValueError, match="period"):
        grid_layout(range(3), 0)


def test_backward_step_one_is_figure_3():
    labels = backward_labels(N=30, steps=1)
    red = {n for n, (c, _) in labels.items() if c == "red"}
    blue = {n for n, (c, _) in labels.items() if c == "blue"}
    assert red == {0, 1, 2}
    assert blue == {r + d for r in red for d in (3, 5, 11)}


@pytest.mark.parametrize("moves", [(3, 5, 11), *OTHER_SETS])
def test_backward_construction_run_to_the_end_gives_red_blue(moves):
    N = 50
    labels = backward_labels(moves, N=N, steps=2 * N + 2)
    rb = red_blue(N, moves)
    assert {n: c for n, (c, _) in labels.items()} == {n: rb.colour(n) for n in range(N + 1)}


def test_drawings_return_axes_with_content():
    ax = draw_number_graph(22)
    assert len(ax.collections) >= 1 and ax.get_title()
    ax = draw_backward_step(1)
    assert len(ax.texts) == 11  # 0, 1, 2 and their eight predecessors
    with pytest.raises(ValueError, match="too large"):
        draw_number_graph(10_000)


# -- course graph --------------------------------------------------------------------------


def oracle_edge_colour(n1, n2, moves, to_move):
    """The source's rule from exact values: could the mover force a win, and did the move keep it?"""
    if mover_value(n1, moves, to_move) != 1:
        return "black"
    kept = mover_value(n2, moves, 1 - to_move) == -1  # the opponent now loses with best play
    return "red" if kept else "blue"


@pytest.mark.parametrize("moves", [(3, 5, 11), (3, 5, 8), (2, 7)])
def test_edge_colours_match_the_rule_from_exact_values(moves):
    for n1 in range(1, 45):
        for d in moves:
            for to_move in (0, 1):
                assert edge_colour(n1, n1 - d, moves) == oracle_edge_colour(n1, n1 - d, moves, to_move)


def test_course_graph_of_a_played_game_matches_the_oracle_from_both_seats():
    from gamekit import SmartRandomPlayer

    for seed in range(6):
        game = SubtractionGame(30 + seed, (3, 5, 11))
        rec = play_game(game, [SmartRandomPlayer(seed=seed), SmartRandomPlayer(seed=100 + seed)])
        g = course_graph(rec)
        for (s1, s2), mover in zip(zip(rec.states, rec.states[1:]), rec.movers):
            data = g.edges[s1.n, s2.n]
            assert data["mover"] == mover
            assert data["colour"] == oracle_edge_colour(s1.n, s2.n, (3, 5, 11), mover)
        assert course_numbers(rec) == [s.n for s in rec.states]


def replay(numbers):
    """Replay a printed course through play_game (a scripted player) and return the record."""
    moves = iter(a - b for a, b in zip(numbers, numbers[1:]))
    script = lambda game, state: next(moves)
    return play_game(SubtractionGame(numbers[0]), [script, script])


def test_the_source_courses_and_what_the_text_claims_about_them():
    colours = {k: edge_colours(c) for k, c in SOURCE_COURSES.items()}
    winners = {k: replay(c).winner for k, c in SOURCE_COURSES.items()}
    assert winners == {5: 1, 6: 0, 7: 0, 8: 0}  # the printed results: 2, 1, 1, 1
    by_player = {k: (c[0::2], c[1::2]) for k, c in colours.items()}
    # Fig. 5: player 2 played best except once; player 1 had one chance and missed it.
    p1, p2 = by_player[5]
    assert p2.count("blue") == 1 and set(p2) == {"red", "blue"}
    assert p1.count("blue") == 1 and "red" not in p1
    # Fig. 6: the optimal player 1 takes every winning move.
    assert set(by_player[6][0]) == {"red"}
    # Fig. 8: player 2 errs exactly once, at 7.
    steps8 = zip(SOURCE_COURSES[8], SOURCE_COURSES[8][1:])
    blue_moves = [step for step, c in zip(steps8, colours[8]) if c == "blue"]
    assert blue_moves == [(7, 4)] and SOURCE_COURSES[8].index(7) % 2 == 1  # 7 was produced by player 1
    # "A red edge is always followed by a black edge" holds in all four courses ...
    for c in colours.values():
        assert all(b == "black" for a, b in zip(c, c[1:]) if a == "red")
    # ... but "a blue edge is followed by a red edge" does not: in fig. 7 both players err in a row.
    assert ("blue", "blue") in list(zip(colours[7], colours[7][1:]))


def test_the_sources_r_edge_rule_colours_some_losing_moves_red():
    """R's colorOfEdge tests n2 %% 8 in 0:2, and -6, -7, -8 are 2, 1, 0 modulo 8 (a loss coloured red)."""

    def r_colour(n1, n2):
        if n1 % 8 in range(3, 8):  # Python's % agrees with R's %% for negative numbers
            return "red" if n2 % 8 in range(0, 3) else "blue"
        return "black"

    differ = {
        (n1, n1 - d) for n1 in range(1, 100) for d in (3, 5, 11) if r_colour(n1, n1 - d) != edge_colour(n1, n1 - d)
    }
    assert differ == {(5, -6), (4, -7), (3, -8)}
    assert all(edge_colour(a, b) == "blue" for a, b in differ)


def test_course_validation_and_trimming():
    assert trim_course([44, 41, 38, 33, 30, 25, 22, 17, 14, 9, 6, 1, -2, 0]) == SOURCE_COURSES[6]
    assert trim_course([45, 42, 39, 36, 31, 26, 21, 18, 15, 12, 7, 2, -1, 0, 0]) == SOURCE_COURSES[7]
    with pytest.raises(ValueError, match="trim_course"):
        course_numbers([6, 3, 0, 0])
    with pytest.raises(ValueError, match="subtracts 4"):
        course_numbers([10, 6, 3])
    with pytest.raises(ValueError, match="starts with a number > 0"):
        course_numbers([0])
    with pytest.raises(TypeError):
        course_numbers([10, 7.0])
    with pytest.raises(TypeError):
        course_numbers("10 7 4")


def test_course_graph_layout_attributes_and_drawing():
    g = course_graph(SOURCE_COURSES[5])
    assert g.nodes[50]["player"] is None and g.nodes[47]["player"] == 0 and g.nodes[42]["player"] == 1
    assert g.nodes[-1]["colour"] == "end" and g.nodes[50]["colour"] == "red" and g.nodes[47]["colour"] == "blue"
    ax = draw_course(SOURCE_COURSES[5], names=("mixed 0.1", "mixed 0.9"))
    xs = {round(t.get_position()[0], 2) for t in ax.texts if t.get_text() in ("47", "42", "50")}
    assert xs == {0.0, 0.5, 1.0}
    with pytest.raises(ValueError):
        draw_course(SOURCE_COURSES[5], names=("only one",))


# -- the wrong approach: tree growth -----------------------------------------------------------


def plain_tree_size(n, moves):
    """Nodes of the forward game tree, counted by plain recursion (no memo)."""
    return 1 if n <= 0 else 1 + sum(plain_tree_size(n - d, moves) for d in moves)


def test_tree_growth_counts_and_growth_factor():
    tg = tree_growth(range(2, 31, 4))
    assert tg.tree_sizes == tuple(plain_tree_size(n, (3, 5, 11)) for n in tg.ns)
    assert tg.positions == tuple(len(reachable_positions(SubtractionGame(n))) for n in tg.ns)
    big = tree_growth(range(40, 121, 8))
    # the tree grows like x**n where x is the largest root of x**11 = x**8 + x**6 + 1
    root = max(r.real for r in np.roots([1, 0, 0, -1, 0, -1, 0, 0, 0, 0, 0, -1]) if abs(r.imag) < 1e-9)
    assert abs(big.factor - root) < 0.005 * root
    assert big.positions[-1] < 150 < big.tree_sizes[0]
    assert draw_tree_growth(big).get_yscale() == "log"
    with pytest.raises(ValueError):
        tree_growth([5])


# -- widgets (headless) ------------------------------------------------------------------------


def test_play_widget_button_plays_a_move_and_the_computer_answers():
    w = SubtractionPlay(start=22, opponent="optimal", seed=1)
    assert w.course == [22]
    w.move_buttons[0].click()  # -3: 22 -> 19, a blue number, so the optimal computer wins from here
    assert w.course[:2] == [22, 19] and len(w.course) == 3
    assert w.course[2] in [19 - d for d in (3, 5, 11)] and w.course[2] % 8 in (0, 1, 2)
    assert "computer subtracted" in w.message.value
    assert isinstance(w.snapshot(), Figure)
    assert "image/png" in w._repr_mimebundle_()
    assert len(w.image.png) > 1000 and 'alt="' in w.image.value


def test_play_widget_perfect_human_beats_the_optimal_computer_from_a_blue_start():
    w = SubtractionPlay(start=22, opponent="optimal")
    while not w.over:
        n = w.n
        d = next(d for d in (3, 5, 11) if n - d >= 0 and (n - d) % 8 in (0, 1, 2))
        assert w.play_move(d)
    assert w.winner == 0 and w.winner_name == "you" and "you won" in w.status.value  # you moved first


def test_play_widget_after_game_over_changes_nothing():
    w = SubtractionPlay(start=4, opponent="optimal")
    w.move_buttons[0].click()  # 4 -> 1, then the computer must go below zero
    assert w.over and w.winner == 0 and w.winner_name == "you"
    before = list(w.course)
    w.move_buttons[1].click()
    assert w.course == before
    assert "over" in w.message.value and "b00020" in w.message.value  # the error colour


@pytest.mark.parametrize("bad", ["-4", "2.5", "abc", "", "0", "100000"])
def test_play_widget_bad_start_shows_a_message_and_changes_nothing(bad):
    w = SubtractionPlay(start=22, opponent="optimal")
    w.move_buttons[0].click()
    before, game = list(w.course), w.game
    assert not w.new_game(bad)
    assert w.course == before and w.game is game and w.start_box.value == 22
    assert "start must be a whole number" in w.message.value
    with pytest.raises(ValueError):
        parse_start(bad)


@pytest.mark.parametrize("bad", [-4, 0, 201, 100_000])
def test_play_widget_start_box_refuses_a_number_out_of_range_and_keeps_the_game(bad):
    w = SubtractionPlay(start=22, opponent="optimal")
    w.move_buttons[0].click()
    before, game = list(w.course), w.game
    w.start_box.value = bad  # typed (or stepped with the arrow keys) and sent with Enter
    assert w.course == before and w.game is game and not w.over
    assert "start must be a whole number from 1 to 200" in w.message.value and "b00020" in w.message.value
    assert not any(b.disabled for b in w.move_buttons)  # the game on the board goes on
    assert w.play_move(w.game.legal_moves(w.state)[0])


def test_play_widget_enter_in_the_start_box_starts_a_new_game_and_buttons_end_disabled():
    w = SubtractionPlay(start=22, opponent="optimal", seed=3)
    assert isinstance(w.start_box, widgets.IntText) and not w.start_box.continuous_update  # arrows step, Enter sends
    w.start_box.value = 4  # Enter after typing 4: a new game at once, no click on "New game"
    assert w.course == [4] and "New game from 4" in w.message.value
    assert not any(b.disabled for b in w.move_buttons)
    w.move_buttons[0].click()  # 4 -> 1: the computer must go below zero
    assert w.over and all(b.disabled for b in w.move_buttons)
    assert all(b.tooltip.endswith("(game over)") for b in w.move_buttons)
    assert "Press 'New game' to play again" in w.message.value
    w.new_button.click()  # the same start again
    assert w.course == [4] and not any(b.disabled for b in w.move_buttons)
    w.new_game(13)  # a start set by code shows in the box, and starts no second game
    assert w.start_box.value == 13 and w.course == [13] and w._games_started == 4


def test_play_widget_new_game_settings_and_reproducible_random_opponent():
    w = SubtractionPlay(start=22, opponent="random", seed=7, human_first=False)
    assert len(w.course) == 2 and w.players == ("computer", "you")
    w2 = SubtractionPlay(start=22, opponent="random", seed=7, human_first=False)
    assert w2.course == w.course
    w.start_box.value = "31"
    w.opponent_box.value = "mixed"
    w.first_box.value = "you start"
    w.new_button.click()
    assert w.course == [31] and w.kind == "mixed" and w.players == ("you", "computer")
    assert not w.play_move(4) and w.course == [31]
    with pytest.raises(ValueError):
        SubtractionPlay(opponent="clever")


def test_number_graph_explorer_n_box_and_moves_box():
    w = NumberGraphExplorer(N=10, max_N=40)
    first = w.image.value
    w.slider.value = 30
    assert w.N == 30 and w.image.value != first
    assert isinstance(w.snapshot(), Figure)
    w.moves_box.value = "3, 5, x"
    w.apply.click()
    assert w.moves == (3, 5, 11) and "b00020" in w.message.value
    w.moves_box.value = "3, 5, 8"
    w.apply.click()
    assert w.moves == (3, 5, 8) and "period 11" in w.message.value
    assert not w.set_moves([3, 3]) and w.moves == (3, 5, 8)


def test_mixed_rate_explorer_and_its_model():
    ps = (0.0, 0.5, 1.0)
    w = MixedRateExplorer(ps=ps, games=60, seed=3)
    assert w.rates == {p: mixed_win_rate(p, 60, 3) for p in ps}
    assert w.rates[1.0] > w.rates[0.0]
    w.slider.value = 1.0
    assert f"{w.rates[1.0]:.1%}" in w.readout.value
    assert isinstance(w.snapshot(), Figure)
    assert mixed_win_rate(0.5, 60, 3) == mixed_win_rate(0.5, 60, 3)
    for bad in (1.5, -0.1, True, "0.5"):
        with pytest.raises((ValueError, TypeError), match="p must be a probability"):
            MixedRateExplorer(ps=ps, games=10, p=bad)


def _shown_width(widget):
    import html
    import re

    shown = re.search(r"<img [^>]*alt=\"([^\"]+)\"[^>]*style=\"width:(\d+)px", widget.image.value)
    assert shown, "the picture needs its alt text and a fixed width, else JupyterLab stretches it"
    alt = html.unescape(shown.group(1))
    assert alt == widget.image.alt and any(alt.startswith(kind) for kind in FIGURE_KINDS), alt
    assert widget.image.layout.align_self == "flex-start"  # and the box must not stretch it either
    return int(shown.group(2))


def test_widget_images_have_a_fixed_width_equal_to_their_pixel_width():
    """JupyterLab stretches an Image without a width across the output area (big and blurry)."""
    from gamekit.views.subtraction import png_size

    play = SubtractionPlay(start=20, opponent="random", seed=2)
    graph = NumberGraphExplorer(N=10, max_N=40)
    rate = MixedRateExplorer(ps=(0.0, 1.0), games=10)
    for w in (play, graph, rate):
        assert _shown_width(w) == w.IMAGE_WIDTH
        assert abs(png_size(w.image.png)[0] - w.IMAGE_WIDTH) <= 2  # shown at its own size: not rescaled
    heights = [png_size(play.image.png)[1]]
    while not play.over:  # the course graph grows downwards; its width stays the same
        play.play_move(3)
        assert _shown_width(play) == play.IMAGE_WIDTH
        heights.append(png_size(play.image.png)[1])
    assert heights[-1] > heights[0]
    graph.slider.value = 40
    graph.set_moves("3, 5, 8")
    assert _shown_width(graph) == graph.IMAGE_WIDTH
    assert abs(png_size(graph.image.png)[0] - graph.IMAGE_WIDTH) <= 2
    with pytest.raises(ValueError, match="not a PNG"):
        png_size(b"GIF89a" + bytes(20))


def test_optimal_against_random_wins_from_every_blue_start_when_moving_first():
    """The mixed(1.0) curve end: the perfect player always wins from a blue start."""
    from gamekit import SmartRandomPlayer

    for n in range(20, 51):
        if n % 8 in (0, 1, 2):
            continue
        rec = play_game(SubtractionGame(n), [PerfectPlayer(), SmartRandomPlayer(seed=n)])
        assert rec.winner == 0


# -- the forward tree and the numbers notebook 01 states ------------------------------------------


def test_forward_tree_has_tree_size_nodes_and_repeats_numbers():
    from gamekit.views.subtraction import draw_forward_tree, forward_tree, tree_layout

    for n in (1, 5, 10, 13):
        g = forward_tree(n)
        assert len(g) == tree_size_of(n) == plain_tree_size(n, (3, 5, 11))
        leaves = [v for v in g if g.out_degree(v) == 0]
        assert all(g.nodes[v]["n"] <= 0 for v in leaves)
        pos = tree_layout(g)
        assert len({pos[v] for v in g}) == len(g)  # no two nodes on the same spot
    g = forward_tree(10)
    assert [g.nodes[v]["n"] for v in g].count(2) == 2
    assert len(draw_forward_tree(10).texts) == 22
    with pytest.raises(ValueError, match="at most"):
        forward_tree(60)


def tree_size_of(n):
    from gamekit import tree_size

    return tree_size(SubtractionGame(n))


def test_numbers_stated_in_notebook_01():
    import math

    from gamekit import TicTacToe, tree_size, winning_moves

    # Table 1: 22, A 17, B 12, A 9, B 6, A 1, then B must go below 0 -> A wins; A played perfectly.
    numbers = [22, 17, 12, 9, 6, 1]
    assert replay(numbers + [-2]).winner == 0
    assert all(a - b in winning_moves(a) for a, b in zip(numbers[0::2], numbers[1::2]))
    assert not any(winning_moves(n) for n in numbers[1::2])
    assert edge_colours(numbers + [-2]) == ["red", "black"] * 3
    assert winning_moves(12) == (3, 11)
    # Determined: every start 1..200 has value +1 or -1; longest game ceil(n/3); TicTacToe is a draw.
    values = [mover_value(n, (3, 5, 11)) for n in range(1, 201)]
    assert set(values) == {1, -1} and values.count(1) == 125
    always3 = lambda game, state: 3
    assert all(play_game(SubtractionGame(n), [always3, always3]).length == math.ceil(n / 3) for n in range(1, 61))
    ttt = TicTacToe()
    assert solve(ttt)[ttt.initial_state()] == 0
    # The wrong approach: tree nodes vs positions, growth factor 1.2287, and the start 200.
    tg = tree_growth([40, 50, 80])
    assert list(zip(tg.tree_sizes, tg.positions)) == [(10_939, 47), (86_041, 57), (41_303_275, 87)]
    assert tree_size(SubtractionGame(200)) > 2 * 10**18
    assert 60 < tree_size(SubtractionGame(200)) / 1e9 / (365.25 * 24 * 3600) < 80  # "about 70 years"
    assert 9 < (tree_size(SubtractionGame(211)) / tree_size(SubtractionGame(200))) < 10  # "+11: almost x10"
    assert len(reachable_positions(SubtractionGame(200))) == 207
    assert abs(tree_growth(range(1, 81)).factor - 1.2287) < 0.002
    # Teaser: red numbers up to 40 from solve equal red_blue's.
    assert [0] + [n for n in range(1, 41) if mover_value(n, (3, 5, 11)) == -1] == red_blue(40).red


def test_number_graph_edge_options():
    full = draw_number_graph(22)
    few = draw_number_graph(22, edges="winning")
    assert len(few.patches) < len(full.patches)  # arrows are patches
    assert len(draw_number_graph(22, edges="none").patches) == 0
    with pytest.raises(ValueError, match="edges must be"):
        draw_number_graph(22, edges="some")


def _controls(widget):
    yield widget
    for child in getattr(widget, "children", ()):
        yield from _controls(child)


@pytest.mark.parametrize("make", [lambda: SubtractionPlay(start=22), lambda: NumberGraphExplorer(22)])
def test_widget_labels_are_as_wide_as_their_text(make):
    """On a slide (larger font than JupyterLab) a fixed label width cut "opponent" to "oppon…" and
    "computer starts" to "computer st…": every described control sizes its label to the text, and
    toggle buttons size to their words."""
    import ipywidgets as widgets

    described = [c for c in _controls(make().root) if getattr(c, "description", "") and hasattr(c, "style")]
    labelled = [c for c in described if not isinstance(c, widgets.Button)]
    assert labelled, "no labelled control found"
    for c in labelled:
        assert c.style.description_width == "initial", f"{c.description!r} has a fixed label width"
    for c in _controls(make().root):
        if isinstance(c, widgets.ToggleButtons):
            assert c.style.button_width == "auto"


# -- the red-numbers strip, the forward tree's and the rate widget's texts -------------------------


def _boxes(fig, artists):
    renderer = fig.canvas.get_renderer()
    return [a.get_window_extent(renderer) for a in artists]


@pytest.mark.parametrize("upto", [40, 60])
def test_number_strip_labels_overlap_nothing_and_colours_follow_the_mod_8_rule(upto):
    from gamekit.views.alt import alt_text
    from gamekit.views.subtraction import draw_number_strip

    for dpi in (72, 100):  # JupyterLab's width and a projector slide
        ax = draw_number_strip(upto)
        fig = ax.figure
        fig.set_dpi(dpi)
        fig.canvas.draw()
        texts = [t for t in ax.texts]
        assert [int(t.get_text()) for t in texts] == list(range(upto + 1))
        labels = _boxes(fig, texts)
        hatched = _boxes(fig, [p for p in ax.patches if p.get_hatch()])
        assert all(not a.overlaps(b) for i, a in enumerate(labels) for b in labels[i + 1 :])
        assert all(not a.overlaps(h) for a in labels for h in hatched)  # a number never sits on the hatching
        assert min(b.height for b in labels) >= 14 * dpi / 72 * 0.6  # 14-point digits
        plt.close(fig)
    red = [n for n in range(upto + 1) if n % 8 in (0, 1, 2)]
    assert len(hatched) == len(red) and alt_text(ax.figure).endswith(
        f"{', '.join(map(str, red))}; the other {upto + 1 - len(red)} blue"
    )


def test_forward_tree_alt_text_names_the_repeated_number_and_the_leaves():
    from gamekit.views.alt import alt_text
    from gamekit.views.subtraction import draw_forward_tree, forward_tree

    g = forward_tree(10)
    leaves = sum(1 for v in g if g.nodes[v]["n"] <= 0)
    text = alt_text(draw_forward_tree(10).figure)
    assert text.startswith("Tree (The forward game tree from 10: 22 nodes): 22 nodes, ")
    assert f"{leaves} of them leaves" in text and leaves == 15
    assert "the number 2 appears 2 times (after −3 −5 and after −5 −3)" in text
    plt.close("all")


def test_mixed_rate_widget_shows_every_rate_with_its_wilson_interval():
    from gamekit.stats import wilson
    from gamekit.views.alt import alt_text

    w = MixedRateExplorer(ps=(0.0, 0.5, 1.0), games=40, seed=2026, p=0.5)
    k = round(w.rates[0.5] * 40)
    lo, hi = wilson(k, 40)
    assert w.intervals[0.5] == (lo, hi) and lo < w.rates[0.5] < hi
    assert f"95 % interval {lo:.1%} to {hi:.1%}" in w.readout.value
    w.slider.value = 1.0
    assert f"{w.intervals[1.0][0]:.1%} to {w.intervals[1.0][1]:.1%}" in w.readout.value
    fig = w.snapshot()
    assert "grey band of 95 % Wilson intervals" in alt_text(fig) and f"1: {w.rates[1.0]:.2f}" in alt_text(fig)
    plt.close("all")
