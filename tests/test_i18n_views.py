"""The views speak the language in force (issue 38): figures, alt texts, widgets and their messages.

Real figures and widgets of `gamekit.views` are made under `use_language("de")` and under English.
In English every string is the code's own, byte for byte; in German each shown string is the
catalogue's translation of its English source. The German expectations are read from the catalogue
at run time (`de(...)`), and a test that needs a translation the catalogue does not hold yet is
skipped: it runs as soon as the catalogue has it, and then fails if a view shows its text without
gettext (the English would stay where the German belongs). What code compares (a widget's values,
`winner_name`, `outcome()`) stays English in both languages, and that is checked unconditionally.
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import string

import matplotlib.pyplot as plt
import pytest
from german import de, translated
from matplotlib.text import Text

from gamekit import TicTacToe, TreeGame, i18n
from gamekit.games.generalized_nim import GeneralizedNim
from gamekit.i18n import use_language
from gamekit.search import trace_alphabeta
from gamekit.views.alt import alt_text, describe_axes
from gamekit.views.nim import GNimMatch, NimMatch, NimPlay, draw_nim
from gamekit.views.subtraction import NumberGraphExplorer, SubtractionPlay, draw_course, draw_number_graph
from gamekit.views.tictactoe import TicTacToePlay, board_words, plot_outcomes_by_length
from gamekit.views.trees import AlphaBetaStepper, build_tree, step_text

FIG5 = [[3, 12, 8], [2, 4, 6], [14, 2, 5]]


@pytest.fixture(autouse=True)
def _figures_closed():
    """Every test closes its figures (conftest restores the language it found)."""
    yield
    plt.close("all")


# --- the catalogue's German, read at run time ----------------------------------------------------


def needs_german(*msgids: str | tuple[str, str]):
    """Skip until the German catalogue translates every one of `msgids` (a pair is (context, msgid))."""
    missing = [m for m in msgids if not (translated(m[1], context=m[0]) if isinstance(m, tuple) else translated(m))]
    return pytest.mark.skipif(bool(missing), reason=f"the German catalogue does not translate {missing!r} yet")


def _texts(fig) -> list[str]:
    """Every text a figure shows (titles, labels, tick labels, legends, annotations)."""
    return [t.get_text() for t in fig.findobj(Text) if t.get_text()]


def _views_messages() -> list[tuple[str | None, str]]:
    """(context, msgid) of every string of gamekit/views marked for gettext, without placeholders."""
    found = []
    for m in i18n.extract_messages():
        if not m.id or not any("/views/" in loc[0] for loc in m.locations):
            continue
        msgid = m.id[0] if isinstance(m.id, tuple) else m.id
        if not any(field is not None for _, field, _, _ in string.Formatter().parse(msgid)):
            found.append((m.context, msgid))
    return found


def test_the_views_mark_their_strings_for_the_catalogue():
    """The extractor finds the views' strings: titles, alt texts, widget labels, messages."""
    ids = {msgid for m in i18n.extract_messages() if m.id for msgid in ([m.id] if isinstance(m.id, str) else m.id)}
    for msgid in (
        "Bar chart",
        "{n} bars; the largest is {size} at {at}",
        "Numbers 0..{N}, moves {moves}: red and blue",
        "red: produce it",
        "New game from {start} against the random strategy.",
        "square {i}, empty",
        "There is no pile {pile}: choose a pile from 1 to {k}.",
        "enter the root: alpha={alpha}, beta={beta}",
        "X wins",
        "next phase",
    ):
        assert msgid in ids, msgid


# --- English: the code's own strings, byte for byte -----------------------------------------------


def test_english_is_the_source_text_even_after_german_was_in_force():
    with use_language("de"):
        draw_number_graph(10)
    ax = draw_number_graph(10)
    assert ax.get_title() == "Numbers 0..10, moves 3, 5, 11: red and blue"
    assert [t.get_text() for t in ax.get_legend().get_texts()] == [
        "red: produce it",
        "blue: avoid it",
        "move to a red number",
    ]
    assert alt_text(ax.figure).startswith("Graph (Numbers 0..10, moves 3, 5, 11: red and blue): numbers on a grid")
    w = SubtractionPlay(start=22, opponent="random", seed=1)
    assert w.new_button.description == "New game"
    assert w.opponent_box.options == (("optimal", "optimal"), ("random", "random"), ("mixed", "mixed"))
    assert "New game from 22 against the random strategy." in w.message.value
    assert NimMatch((3, 4, 5)).check_move(4, 1) == "There is no pile 4: choose a pile from 1 to 3."
    assert board_words(tuple("X........")) == "X on 0; O on none; empty: 1, 2, 3, 4, 5, 6, 7, 8; O to move"


def test_the_stepper_explains_each_step_as_the_trace_does_in_english():
    """`step_text` makes a step's sentence from its data (so it can speak German); in English it is
    exactly the text `trace_alphabeta` recorded."""
    trace = trace_alphabeta(TreeGame(FIG5))
    assert [step_text(st) for st in trace.steps] == [st.text for st in trace.steps]
    assert {st.kind for st in trace.steps} >= {"enter", "leaf", "update", "cut", "return"}


def test_what_code_compares_stays_english_in_german():
    """Widget values, `winner_name` and `outcome()` are data: the same words in either language."""
    with use_language("de"):
        w = SubtractionPlay(start=4, opponent="optimal", seed=0)
        assert w.first_box.value == "you start" and w.opponent_box.value == "optimal"
        assert [value for _, value in w.opponent_box.options] == ["optimal", "random", "mixed"]
        w.play_move(3)  # 4 -> 1: the computer takes 1 ... and so on to the end
        while not w.over:
            w.play_move(w.game.legal_moves(w.state)[0])
        assert w.winner_name in ("you", "computer")
        m = GNimMatch(GeneralizedNim(2, [{3: float("inf"), 1: float("inf")}, {1: float("inf")}]))
        m.human_move(1)
        assert m.over and m.outcome() == "computer won"
        t = TicTacToePlay()
        assert t.opponent.value == "random" and [v for _, v in t.opponent.options] == [
            "random",
            "1 − P(lose)",
            "perfect",
        ]


# --- German: the catalogue's translations ----------------------------------------------------------


@needs_german("Bar chart", "{n} bars; the largest is {size} at {at}")
def test_an_alt_text_read_from_a_plain_matplotlib_chart_is_german():
    fig, ax = plt.subplots()
    ax.bar(["a", "b", "c"], [1, 9, 3])
    english = describe_axes(ax)
    with use_language("de"):
        german = describe_axes(ax)
    body = de("{n} bars; the largest is {size} at {at}").format(n=3, size=9, at="b")
    assert german == f"{de('Bar chart')}: {body}" != english == "Bar chart: 3 bars; the largest is 9 at b"


@needs_german("Numbers 0..{N}, moves {moves}: red and blue", "red: produce it", "blue: avoid it")
def test_the_number_graph_has_a_german_title_legend_and_alt_text():
    with use_language("de"):
        ax = draw_number_graph(22)
        alt = alt_text(ax.figure)
    title = de("Numbers 0..{N}, moves {moves}: red and blue").format(N=22, moves="3, 5, 11")
    assert ax.get_title() == title
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend == [de("red: produce it"), de("blue: avoid it"), de("move to a red number")]
    assert alt.startswith(f"{de('Graph', 'figure')} ({title}): ")
    assert "red numbers" not in alt


@needs_german("player 1", "winning move", "win given away", "{a} to {b} ({who}, {kind})")
def test_the_course_graph_names_players_and_moves_in_german():
    with use_language("de"):
        ax = draw_course([22, 19, 14])
        alt = alt_text(ax.figure)
    texts = _texts(ax.figure)
    assert de("player 1") in texts and de("player 2") in texts and "player 1" not in texts
    assert de("win given away") in texts and "win given away" not in texts
    move = de("{a} to {b} ({who}, {kind})").format(
        a=22, b=19, who=de("player 1"), kind=de("win given away, blue dashed")
    )
    assert move in alt


@needs_german(
    "New game",
    "New game from {start} against the random strategy.",
    ("strategy", "random"),
    "subtract {d} (from {n} to {to})",
    "You subtracted {d}.",
)
def test_the_subtraction_widget_speaks_german():
    with use_language("de"):
        w = SubtractionPlay(start=30, opponent="random", seed=1)
        assert w.new_button.description == de("New game")
        assert w.opponent_box.options[1] == (de("random", "strategy"), "random")
        assert de("New game from {start} against the random strategy.").format(start=30) in w.message.value
        assert w.move_buttons[0].tooltip == de("subtract {d} (from {n} to {to})").format(d=3, n=30, to=27)
        w.play_move(3)
        assert de("You subtracted {d}.").format(d=3) in w.message.value
        refused = w.play_move(4)
    assert refused is False and "You can only subtract" not in w.message.value
    w.new_game(30, "random", True)  # back in English: the same widget speaks English again
    assert "New game from 30 against the random strategy." in w.message.value


@needs_german("Use these moves", "moves must be whole numbers separated by commas, got {text}")
def test_the_number_graph_explorer_refuses_in_german():
    with use_language("de"):
        e = NumberGraphExplorer(N=12)
        assert e.apply.description == de("Use these moves")
        assert e.set_moves("1, x") is False
    said = de("moves must be whole numbers separated by commas, got {text}").format(text=repr("1, x"))
    assert said.replace("'", "&#x27;") in e.message.value


@needs_german("square {i}, empty", ("player", "random"), "show hints", "New game: you play {mark} against {opponent}.")
def test_the_tictactoe_widget_names_squares_and_players_in_german():
    with use_language("de"):
        w = TicTacToePlay()
        assert [b.tooltip for b in w.squares] == [de("square {i}, empty").format(i=i) for i in range(9)]
        assert w.opponent.options[0] == (de("random", "player"), "random")
        assert w.hints.description == de("show hints")
        news = de("New game: you play {mark} against {opponent}.").format(mark="X", opponent=de("random", "player"))
        assert news in w.message.value


@needs_german("X wins", "O wins", "number of games", ("table head", "moves"), "{n} games of TicTacToe by length")
def test_the_outcomes_chart_has_german_labels_and_data_table():
    from gamekit.counting import games_by_length

    by_length = games_by_length(TicTacToe())
    with use_language("de"):
        ax = plot_outcomes_by_length(by_length)
        alt = alt_text(ax.figure)
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend == [de("X wins"), de("O wins"), de("draws", "outcomes")]
    assert ax.get_ylabel() == de("number of games")
    from gamekit.views.alt import alt_table

    assert alt_table(ax.figure)["columns"][0] == de("moves", "table head")
    assert de("{n} games of TicTacToe by length").format(n="255,168") in alt


@needs_german(
    "There is no pile {pile}: choose a pile from 1 to {k}.",
    "pile {k}",
    "your move: choose a pile and how many sticks to take",
    ("box", "pile"),
)
def test_nim_refuses_and_draws_in_german():
    with use_language("de"):
        m = NimMatch((3, 4, 5))
        assert m.check_move(4, 1) == de("There is no pile {pile}: choose a pile from 1 to {k}.").format(pile=4, k=3)
        fig = draw_nim(m, hints=False)
        w = NimPlay((3, 4, 5))
        assert w.pile.description == de("pile", "box")
        w.pile.value, w.take.value = 4, 1
        w.button.click()
    assert de("There is no pile {pile}: choose a pile from 1 to {k}.").format(pile=4, k=3) in w.message.value
    texts = _texts(fig)
    assert de("pile {k}").format(k=1) in texts and "pile 1" not in texts
    assert fig.axes[0].get_title() == de("your move: choose a pile and how many sticks to take")


@needs_german("enter the root: alpha={alpha}, beta={beta}", "Next ▶", ("alpha-beta step", "enter"))
def test_the_alphabeta_stepper_explains_in_german():
    game = TreeGame(FIG5)
    trace = trace_alphabeta(game)
    with use_language("de"):
        w = AlphaBetaStepper(trace, build_tree(game))
        title = w.snapshot().axes[0].get_title(loc="left")
    assert w.next.description == de("Next ▶")
    assert de("enter the root: alpha={alpha}, beta={beta}").format(alpha="-inf", beta="+inf") in w.message.value
    assert title.endswith(de("enter", "alpha-beta step")) and trace.steps[0].text not in w.message.value


@needs_german("next phase", "whole iteration", ("MCTS phase", "selection"))
def test_the_mcts_stepper_labels_its_buttons_and_phases_in_german():
    from gamekit import SubtractionGame
    from gamekit.views.mcts import MCTSStepper

    with use_language("de"):
        w = MCTSStepper(SubtractionGame(12, (1, 2, 3)), max_depth=2)
        w.step()
    assert w.next_btn.description == de("next phase") and w.iter_btn.description == de("whole iteration")
    assert w.explanation.startswith(f"<b>1 {de('selection', 'MCTS phase')}</b>: ")


def test_no_figure_keeps_an_english_label_the_catalogue_translates():
    """Drawn in German, no text of these figures is an English source string whose German the
    catalogue holds: every fixed label went through gettext (skipped while none is translated)."""
    english = {msgid: (ctx, msgid) for ctx, msgid in _views_messages() if translated(msgid, context=ctx)}
    if not english:
        pytest.skip("the German catalogue translates none of the views' strings yet")
    from gamekit.counting import games_by_length
    from gamekit.views.qlearning import plot_p_positions
    from gamekit.views.subtraction import draw_backward_step, draw_tree_growth, tree_growth

    with use_language("de"):
        figures = [
            draw_number_graph(22).figure,
            draw_backward_step(1).figure,
            draw_course([22, 19, 14, 11]).figure,
            draw_tree_growth(tree_growth(range(5, 12))).figure,
            plot_outcomes_by_length(games_by_length(TicTacToe())).figure,
            draw_nim(NimMatch((3, 4, 5))),
            plot_p_positions((2, 3, 4)),
        ]
        left = sorted({t for fig in figures for t in _texts(fig) if t in english})
    assert not left, f"English labels in German figures: {left}"
