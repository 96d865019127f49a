"""Accessibility of figures, colours and widgets (WCAG 2.1 AA), without a browser.

- Every drawing function gives its figure an alt text made from its data: the kind of figure and
  numbers from what it plots; plain matplotlib figures get one read from their artists.
- The build writes it into `<img alt>` (escaped), and on pages the data table behind a figure.
- Never colour alone: red/blue stay apart for the common colour-vision deficiencies (simulated
  with colorspacious), and red/blue things also differ by marker, line style or hatch.
- Text colours have a contrast of at least 4.5:1 on white.
- Widgets announce what happened in a live region and name their controls by their state.
"""

import re

import matplotlib
import nbformat
import numpy as np
import pytest

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from gamekit import TicTacToe
from gamekit.counting import games_by_length
from gamekit.course import build
from gamekit.views import alt, colors
from gamekit.views.alt import FIGURE_KINDS, alt_text, describe_axes, set_alt

KIND = re.compile(r"^(" + "|".join(FIGURE_KINDS) + r")\b")


def _ok(text: str) -> bool:
    """An alt text names its kind first and holds at least one number."""
    return bool(KIND.match(text)) and bool(re.search(r"\d", text))


@pytest.fixture(autouse=True)
def _close():
    yield
    plt.close("all")


# --- alt text from the data -----------------------------------------------------------------


def test_bar_chart_of_game_lengths_says_what_the_issue_asks():
    from gamekit.views.tictactoe import plot_outcomes_by_length

    by_length = games_by_length(TicTacToe())
    text = alt_text(plot_outcomes_by_length(by_length).figure)
    total = sum(c.p0_wins + c.p1_wins + c.draws for c in by_length.values())
    nine = by_length[9].p0_wins + by_length[9].p1_wins + by_length[9].draws
    assert text.startswith(f"Bar chart: {total:,} games of TicTacToe by length")
    assert f"most end after 9 moves ({nine:,})" in text
    table = alt.alt_table(plt.gcf())
    assert table["columns"][0] == "moves" and [r[0] for r in table["rows"]] == sorted(by_length)


def test_board_pictures_give_the_position_in_words():
    from gamekit.views.tictactoe import board_words, draw_board

    board = ("X", "O", ".", ".", "X", ".", ".", "O", ".")
    assert board_words(board) == "X on 0, 4; O on 1, 7; empty: 2, 3, 5, 6, 8; X to move"
    won = ("X", "X", "X", "O", "O", ".", ".", ".", ".")
    assert "X wins with the line 0, 1, 2" in board_words(won)
    text = alt_text(draw_board(board).figure)
    assert text.startswith("Board") and "O on 1, 7" in text


def test_number_graph_lists_the_red_and_blue_numbers():
    from gamekit import red_blue
    from gamekit.views.subtraction import draw_number_graph

    text = alt_text(draw_number_graph(22).figure)
    red = red_blue(22).red
    assert text.startswith("Graph") and f"{len(red)} red numbers (squares, produce them): " in text
    assert ", ".join(map(str, red)) in text


def test_course_graph_names_every_edge_by_words_not_colour():
    from gamekit.views.subtraction import draw_course, edge_colours

    course = [22, 17, 12, 9, 4, -1]
    text = alt_text(draw_course(course).figure)
    kinds = edge_colours(course)
    assert text.count("winning move") == kinds.count("red")
    assert text.count("win given away") == kinds.count("blue")
    assert "22 to 17 (player 1," in text


def test_nim_board_in_words():
    from gamekit.views.nim import NimMatch, draw_nim

    match = NimMatch((3, 4, 5))
    text = alt_text(draw_nim(match, hints=True))
    assert text.startswith("Board: Nim, pile 1: 3 sticks, pile 2: 4 sticks, pile 3: 5 sticks")
    assert "winning moves for you: take 2 from pile 1" in text  # 3^4^5 = 2: the only winning move


@pytest.mark.parametrize(
    "draw, kind",
    [
        (lambda ax: ax.plot([1, 2, 3], [10, 20, 15]), "Line chart"),
        (lambda ax: ax.bar(["a", "b", "c"], [1, 9, 4]), "Bar chart"),
        (lambda ax: ax.scatter([1, 2], [3, 4]), "Scatter plot"),
        (lambda ax: ax.imshow(np.arange(6).reshape(2, 3)), "Heat map"),
    ],
)
def test_plain_matplotlib_figures_are_described_from_their_artists(draw, kind):
    fig, ax = plt.subplots()
    draw(ax)
    text = alt_text(fig)
    assert text.startswith(kind) and _ok(text), text


def test_read_numbers_are_the_plotted_ones():
    fig, ax = plt.subplots()
    ax.bar(["a", "b", "c"], [1, 9, 4])
    assert describe_axes(ax) == "Bar chart: 3 bars; the largest is 9 at b"
    fig, ax = plt.subplots()
    ax.imshow(np.array([[0.5, -2.0], [3.0, 1.0]]))
    assert "2 by 2 cells, values from -2 to 3" in alt_text(fig)


def test_a_stated_alt_text_wins_and_bad_alt_text_is_refused():
    fig, ax = plt.subplots()
    ax.plot([0, 1], [0, 1])
    set_alt(ax, "Line chart: the diagonal, from 0 to 1")
    assert alt_text(fig) == "Line chart: the diagonal, from 0 to 1"
    for bad in ("", "   ", None, 3):
        with pytest.raises(ValueError, match="alt text must be a non-empty string"):
            set_alt(ax, bad)
    assert alt_text(fig) == "Line chart: the diagonal, from 0 to 1"  # unchanged


def test_panels_are_described_one_by_one():
    fig, (a, b) = plt.subplots(1, 2)
    a.bar([1, 2], [3, 4])
    b.plot([0, 1], [5, 6])
    text = alt_text(fig)
    assert text.startswith("2 panels. 1. Bar chart") and "2. Line chart" in text


# --- the build writes it into the pages and slides ------------------------------------------------


def _figure_nb(alt_meta: str | None, plain: str) -> nbformat.NotebookNode:
    import base64
    import io

    fig, ax = plt.subplots(figsize=(2, 1))
    ax.plot([0, 1])
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    out = nbformat.v4.new_output(
        "display_data",
        data={"image/png": base64.b64encode(buf.getvalue()).decode(), "text/plain": plain},
        metadata={"gamekit_alt": alt_meta, "gamekit_alt_table": {"columns": ["x", "y"], "rows": [[0, 0], [1, 1]]}}
        if alt_meta
        else {},
    )
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("draw()")
    cell.outputs = [out]
    nb.cells = [nbformat.v4.new_markdown_cell("# Title"), cell]
    return nb


def image_alts(page: str) -> list[str | None]:
    """The alt attribute of every <img> of an HTML page, unescaped (None: no alt)."""
    from html.parser import HTMLParser

    found: list[str | None] = []

    class Images(HTMLParser):
        def handle_starttag(self, tag, attrs):
            if tag == "img":
                found.append(dict(attrs).get("alt"))

    Images().feed(page)
    return found


def test_pages_and_slides_carry_the_alt_text_escaped():
    nb = _figure_nb('Line chart: "a" < b & 2 > 1', "<Figure size 200x100 with 1 Axes>")
    for page in (build.page_html(nb, local=False), build.slides_html(nb, local=False)):
        assert image_alts(page) == ['Line chart: "a" < b & 2 > 1']
        assert "< b &" not in page  # escaped in the HTML
    page = build.page_html(nb, local=False)
    assert '<details class="gamekit-data">' in page and '<th scope="col">x</th>' in page


def test_without_metadata_the_plain_text_is_the_alt_but_never_matplotlibs_repr():
    page = build.page_html(_figure_nb(None, "Board: TicTacToe, X on 4"), local=False)
    assert image_alts(page) == ["Board: TicTacToe, X on 4"]
    page = build.page_html(_figure_nb(None, "<Figure size 200x100 with 1 Axes>"), local=False)
    assert image_alts(page) == ["figure"]


# --- never colour alone ------------------------------------------------------------------------


def _jab(hex_colour: str, cvd: dict | None = None):
    from colorspacious import cspace_convert

    rgb = np.array([int(hex_colour[i : i + 2], 16) for i in (1, 3, 5)]) / 255
    if cvd is not None:
        rgb = np.clip(cspace_convert(rgb, cvd, "sRGB1"), 0, 1)
    return cspace_convert(rgb, "sRGB1", "CAM02-UCS")


DEFICIENCIES = {
    name: {"name": "sRGB1+CVD", "cvd_type": kind, "severity": 100}
    for name, kind in [("protanopia", "protanomaly"), ("deuteranopia", "deuteranomaly"), ("tritanopia", "tritanomaly")]
}


@pytest.mark.parametrize("cvd", [None, *DEFICIENCIES], ids=["normal", *DEFICIENCIES])
@pytest.mark.parametrize(
    "a, b", [(colors.RED, colors.BLUE), (colors.LIGHT_RED, colors.LIGHT_BLUE), (colors.RED, colors.BLACK)]
)
def test_the_course_colours_stay_apart_for_colour_blind_readers(cvd, a, b):
    """CAM02-UCS distance >= 15 (about a clearly visible difference) under full protanopia,
    deuteranopia and tritanopia, as colorspacious simulates them (Machado et al. 2009)."""
    sim = DEFICIENCIES.get(cvd) if cvd else None
    distance = float(np.linalg.norm(_jab(a, sim) - _jab(b, sim)))
    assert distance >= 15, f"{a} and {b} are only {distance:.1f} apart for {cvd or 'normal vision'}"


def _luminance(hex_colour: str) -> float:
    def channel(c: float) -> float:
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(int(hex_colour[i : i + 2], 16) / 255) for i in (1, 3, 5))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(fg: str, bg: str = "#ffffff") -> float:
    hi, lo = sorted((_luminance(fg), _luminance(bg)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_contrast_formula_matches_wcag_examples():
    assert contrast("#000000") == pytest.approx(21.0)
    assert contrast("#777777") == pytest.approx(4.48, abs=0.01)  # the classic just-failing grey


@pytest.mark.parametrize("name", ["RED", "BLUE", "BLACK"])
def test_course_text_colours_have_aa_contrast_on_white(name):
    assert contrast(getattr(colors, name)) >= 4.5


def test_widget_message_colours_have_aa_contrast():
    from gamekit.views.widgets import MESSAGE_COLOURS

    for kind, colour in MESSAGE_COLOURS.items():
        assert contrast(colour) >= 4.5, kind


def test_red_and_blue_differ_by_more_than_colour():
    from gamekit.views.subtraction import course_legend_handles, draw_number_graph

    styles = {h.get_label(): h.get_linestyle() for h in course_legend_handles()}
    assert len(set(styles.values())) == 3, styles
    ax = draw_number_graph(22, edges="none")
    markers = {h.get_label(): h.get_marker() for h in ax.get_legend().legend_handles}
    assert markers["red: produce it"] != markers["blue: avoid it"]
    from gamekit.views.tictactoe import plot_outcomes_by_length

    ax = plot_outcomes_by_length(games_by_length(TicTacToe()))
    hatches = {c.get_label(): c.patches[0].get_hatch() for c in ax.containers}
    assert len(set(hatches.values())) == 3, hatches


# --- widgets: live region, names by state --------------------------------------------------


def test_widget_messages_are_a_polite_live_region():
    from gamekit.views.tictactoe import TicTacToePlay

    w = TicTacToePlay()
    w.click(4)
    assert "aria-live='polite'" in w.message.value and "role='status'" in w.message.value
    assert "You played square 4 (X)." in w.message.value and "X to move: your turn." in w.message.value


# --- the tournament's page ------------------------------------------------------------------------


def test_game_ids_read_as_people_say_them():
    from gamekit.tournament.html import game_label

    names = {"perfect": "perfect (solver)", "first_free": "first legal move"}
    assert game_label("first_free~perfect~0~0", names) == "first legal move vs perfect (solver), start 1"
    assert game_label("first_free~perfect~1~1", names) == "perfect (solver) vs first legal move, start 2, seats swapped"
    assert game_label("first_free~perfect~1~1", names, show_files=True).endswith("[first_free~perfect~1~1]")
    assert game_label("validate~x~self", names) == "validate~x~self"  # not a scheduled game: as it is


@pytest.fixture(scope="module")
def small_tournament(tmp_path_factory):
    from pathlib import Path

    from gamekit.tournament.results import Results
    from gamekit.tournament.runner import Tournament

    agents = Path(__file__).parent / "tournament_agents"
    folder = tmp_path_factory.mktemp("board")
    (folder / "nameless.py").write_text("def agent(game, state):\n    return game.legal_moves(state)[0]\n")
    files = [agents / "first_free.py", agents / "random_mover.py", agents / "perfect.py", folder / "nameless.py"]
    t = Tournament(folder / "t.sqlite", files, game="tictactoe", starts=1, seed=1, sandbox=False)
    t.run(workers=1)
    t.close()
    return Results(folder / "t.sqlite")


def test_the_leaderboard_shows_display_names_unless_the_teacher_asks_for_files(small_tournament):
    from gamekit.tournament.html import leaderboard_html

    page = leaderboard_html(small_tournament, reps=20)
    assert "first legal move" in page and "perfect (solver)" in page
    for stem in ("first_free", "random_mover", "nameless"):
        assert stem not in page, stem
    assert "submission 1 (no NAME)" in page
    files = leaderboard_html(small_tournament, reps=20, show_files=True)
    assert "(first_free)" in files and "(nameless)" in files and "[first_free~perfect~0~0]" in files


def test_the_rating_chart_has_its_data_as_text(small_tournament):
    from gamekit.tournament.html import ratings_alt, ratings_svg

    rows = small_tournament.standings(reps=20)
    text = ratings_alt(rows)
    assert text.startswith(f"Dot chart: ratings of {len(rows)} agents")
    if rows[0].low == rows[0].low:  # intervals given: each rating with its interval
        assert f"{rows[0].name} {rows[0].rating:.0f} [{rows[0].low:.0f}, {rows[0].high:.0f}]" in text
    else:  # too few games for intervals: the ratings, and that there are no intervals
        assert "no intervals (too few games)" in text and f"{rows[0].name} {rows[0].rating:.0f}" in text
    svg = ratings_svg(rows)
    assert 'role="img"' in svg and "Dot chart: ratings of" in svg and "font:16px" in svg


def test_tictactoe_squares_are_named_by_their_state_and_playable_by_number():
    from gamekit.views.tictactoe import TicTacToePlay

    w = TicTacToePlay(players={"first free": lambda: lambda game, state: game.legal_moves(state)[0]})
    assert [b.tooltip for b in w.squares] == [f"square {i}, empty" for i in range(9)]
    w.square_box.value = "4"  # typed, then Enter (the box syncs on Enter)
    assert w.state[4] == "X" and w.state[0] == "O" and w.square_box.value == ""
    assert w.squares[4].tooltip == "square 4, X" and w.squares[0].tooltip == "square 0, O"
    assert "You played square 4 (X). first free played square 0 (O). X to move: your turn." in w.message.value
    before = w.state
    for bad in ("9", "x", "-1"):
        w.square_box.value = bad
        assert w.state == before and "is not a square" in w.message.value and "#b00020" in w.message.value


def test_subtraction_moves_are_named_and_announced():
    from gamekit.views.subtraction import SubtractionPlay

    w = SubtractionPlay(start=22, opponent="optimal")
    assert [b.tooltip for b in w.move_buttons] == ["subtract 3 (from 22 to 19)", "subtract 5 (from 22 to 17)",
                                                   "subtract 11 (from 22 to 11)"]  # fmt: skip
    w.play_move(3)
    assert f"Now at {w.n}: your move." in w.message.value and "aria-live='polite'" in w.message.value


def test_p_position_chart_says_what_it_draws():
    """The alt text's counts are the figure's own: filled circles, hollow circles, crosses."""
    from gamekit.views.qlearning import plot_p_positions

    fig = plot_p_positions((3, 5, 7))
    lines = [ln for ax in fig.axes for ln in ax.lines]
    filled = sum(ln.get_marker() == "o" and ln.get_markerfacecolor() != "white" for ln in lines)
    hollow = sum(ln.get_marker() == "o" and ln.get_markerfacecolor() == "white" for ln in lines)
    crosses = sum(ln.get_marker() == "x" for ln in lines)
    text = alt_text(fig)
    assert f"{filled} on the source's list (filled circles), {hollow} missing" in text
    assert f"{crosses} listed but not P-positions" in text


def test_single_markers_count_as_points_with_their_shapes():
    fig, ax = plt.subplots()
    ax.plot(1, 2, "o")
    ax.plot(2, 3, "x")
    assert alt_text(fig) == "Scatter plot: 2 points (1 drawn as circles, 1 drawn as crosses)"


def test_report_shows_files_only_when_the_teacher_asks(small_tournament, tmp_path):
    import subprocess
    import sys

    db = str(small_tournament.tournament.store.path)
    for flag, shown in (([], False), (["--show-files"], True)):
        out = tmp_path / ("files" if shown else "names")
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "gamekit.tournament",
                "report",
                "--db",
                db,
                "--out",
                str(out),
                "--reps",
                "20",
                *flag,
            ],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        page = (out / "leaderboard.html").read_text(encoding="utf-8")
        assert ("(first_free)" in page) is shown and "first legal move" in page


def test_q_table_heat_map_hatches_the_negative_values():
    from gamekit.games.nim import Nim
    from gamekit.qlearning import QLearner
    from gamekit.sources.q_nim import pile_tuple
    from gamekit.views.qlearning import plot_value_heatmap, value_grid

    learner = QLearner(Nim([1, 2, 3], misere=True), seed=1, encoding=pile_tuple)  # the pile tuple as the key
    learner.train(2_000, progress=False)
    grid = value_grid(learner)
    fig = plot_value_heatmap(learner)
    hatched = sum(1 for ax in fig.axes for p in ax.patches if p.get_hatch() == "//")
    assert hatched == int((grid < 0).sum()) > 0
    assert f"{hatched} positions below 0" in alt_text(fig)
