"""TicTacToe: the game, the source's integer encoding, the count-based players, the views and the widget."""

import matplotlib

matplotlib.use("Agg")

import pytest

from gamekit import IllegalMoveError, RandomPlayer, TicTacToe, play_game, reachable_positions, winner
from gamekit.counting import count_outcomes, outcome_probabilities
from gamekit.games.tictactoe import board_from_string, board_text, winning_mark
from gamekit.match import tournament  # the function; `gamekit.tournament` becomes the package once imported
from gamekit.players import LossAversePlayer, RawCountPlayer
from gamekit.sources.java_tictactoe import source_encoding, source_winner, source_x_to_move
from gamekit.views.tictactoe import (
    TicTacToePlay,
    board_html,
    board_strip,
    counting_hints,
    draw_board,
    heat_map,
    line_boards,
    show_board,
)

GAME = TicTacToe()
POSITIONS = sorted(reachable_positions(GAME))


def test_source_encoding_detects_the_same_winner_and_turn_everywhere():
    for board in POSITIONS:
        cells = source_encoding(board)
        assert source_winner(cells) == winning_mark(board)
        assert source_x_to_move(cells) == (GAME.to_move(board) == 0)
        assert (sum(cells) == 21) == ("." not in board)


def test_seed_text_value_two_for_o_would_break_both_tests():
    wrong_win = [b for b in POSITIONS if source_winner(source_encoding(b, o_value=2), o_value=2) != winning_mark(b)]
    assert wrong_win, "with O = 2 some board should be misjudged"
    assert all(source_winner(source_encoding(b, 2), 2) == "X" for b in wrong_win[:20])
    wrong_turn = [b for b in POSITIONS if source_x_to_move(source_encoding(b, 2)) != (GAME.to_move(b) == 0)]
    assert wrong_turn


def test_source_encoding_refuses_bad_boards():
    with pytest.raises(ValueError):
        source_encoding(("X",) * 8)
    with pytest.raises(ValueError):
        source_encoding(tuple("XO.XO.XOZ"))
    for bad in (True, 2.0, "4", None):
        with pytest.raises(TypeError, match="o_value"):
            source_encoding(GAME.initial_state(), o_value=bad)
    with pytest.raises(ValueError, match="o_value"):
        source_winner((0,) * 9, o_value=1)
    with pytest.raises(ValueError, match="nine cells"):
        source_x_to_move((0,) * 8)


def test_winner_is_a_player_index_like_every_winner_in_gamekit():
    """winner(board) is 0 (X), 1 (O) or None, the type of GameRecord.winner; winning_mark gives the mark."""
    marks = {None: None, 0: "X", 1: "O"}
    for board in POSITIONS[::5]:
        assert winner(board) in (0, 1, None) and winning_mark(board) == marks[winner(board)]
    for seed in range(4):
        rec = play_game(GAME, [RandomPlayer(seed=seed), RandomPlayer(seed=seed + 10)])
        assert winner(rec.states[-1]) == rec.winner
    assert winner(board_from_string("XXX|OO.|...")) == 0 and winner(board_from_string("OOO|XX.|X.X")) == 1
    assert winner(board_from_string("XOX|XOO|OXX")) is None and winner(GAME.initial_state()) is None


def test_seed_means_a_random_seed_only():
    import gamekit

    assert gamekit.source_encoding is source_encoding and gamekit.source_winner is source_winner
    assert gamekit.source_x_to_move is source_x_to_move
    old = [n for n in dir(gamekit) if n.startswith("seed_") or n == "minmax_counted"]
    assert old == [], f"source code under an old 'seed' name: {old}"


def test_games_built_alike_are_equal():
    assert TicTacToe() == TicTacToe() and hash(TicTacToe()) == hash(TicTacToe())
    assert TicTacToe("X........") != TicTacToe() and TicTacToe() != object()


def test_game_protocol_basics_and_errors():
    s = GAME.play(GAME.initial_state(), 4)
    assert s == board_from_string("....X....") and GAME.to_move(s) == 1
    with pytest.raises(IllegalMoveError, match="allowed moves"):
        GAME.play(s, 4)
    with pytest.raises(IllegalMoveError):
        GAME.play(s, True)
    with pytest.raises(ValueError):
        board_from_string("XX.......")
    won = board_from_string("XXXOO....")
    assert GAME.is_terminal(won) and GAME.utility(won, 0) == 1 and GAME.utility(won, 1) == -1
    with pytest.raises(IllegalMoveError):
        GAME.play(won, 8)


def test_raw_count_player_scores_are_the_mean_result_of_the_counted_games():
    player = RawCountPlayer()
    s = board_from_string("X...O....")
    scores = player.scores(GAME, s)
    for m, score in scores.items():
        c = count_outcomes(GAME, GAME.play(s, m))
        assert score == pytest.approx((c.p0_wins - c.p1_wins) / c.total)
    assert player(GAME, s) == max(scores, key=scores.get)


def test_loss_averse_player_maximises_one_minus_p_lose():
    player = LossAversePlayer()
    s = board_from_string("X...O....")
    chances = player.chances(GAME, s)
    for m, chance in chances.items():
        assert chance == 1 - outcome_probabilities(GAME, GAME.play(s, m)).p1_win
    assert player(GAME, s) == max(chances, key=chances.get)


def test_seed_tournament_reproduced_random_x_against_both_count_players():
    # the source's 100 games: random X against the count-based O (seats fixed)
    corrected = tournament(GAME, RandomPlayer(seed=2026), LossAversePlayer(), games=100, seed=2026, swap_seats=False)
    raw = tournament(GAME, RandomPlayer(seed=2026), RawCountPlayer(), games=100, seed=2026, swap_seats=False)
    assert corrected.wins[0] == 0 and corrected.games == 100  # "no longer loses" — in this sample
    assert raw.wins[0] > 0  # the first "optimal" player did lose now and then


def test_board_views():
    board = board_from_string("XXXOO....")
    assert str(show_board(board)) == board_text(board)
    assert board_html(board).count("<td") == 9 and "X" in board_html(board)
    ax = draw_board(board, title="t", mark_square=2)
    assert ax.get_title() == "t"
    notes, values = counting_hints(GAME, board_from_string("X...O...."))
    assert set(notes) == set(values) == set(GAME.legal_moves(board_from_string("X...O....")))
    heat_map(board_from_string("X...O...."), values, notes)
    fig = board_strip(line_boards(GAME, [4, 0, 8]), captions=list("abcd"))
    assert len(fig.axes) == 4
    import matplotlib.pyplot as plt

    plt.close("all")


def test_widget_callbacks_headless():
    w = TicTacToePlay(hints=True)
    assert w.state == GAME.initial_state()
    w.squares[4].click()
    assert w.state[4] == "X" and w.state.count("O") == 1
    taken = next(i for i, c in enumerate(w.state) if c == "O")
    before = w.state
    w.squares[taken].click()
    assert w.state == before and "taken" in w.message.value
    assert w.squares[0].tooltip.startswith("square 0, empty; X ") and "P(lose)" in w.squares[0].tooltip
    w.seat.value = "O"  # computer now plays X and moves first
    assert w.state.count("X") == 1 and w.state.count("O") == 0
    w.opponent.value = "perfect"
    while not GAME.is_terminal(w.state):
        w.squares[w.state.index(".")].click()
    assert winner(w.state) != 1  # the perfect player (X) never loses
    final = w.state
    w.squares[final.index(".") if "." in final else 0].click()
    assert w.state == final and "over" in w.message.value
    w.new_button.click()
    assert w.state.count("X") == 1 and "New game" in w.message.value
    assert "image/png" in w._repr_mimebundle_()


def test_widget_picture_alt_text_gives_the_values_shown():
    """The static picture's text alternative lists the P(lose) written under each square (not the
    colour shades rescaled to [0, 1]) and says that the colour only ranks them."""
    import matplotlib.pyplot as plt

    from gamekit.views.alt import alt_text

    fig = TicTacToePlay(hints=True).snapshot()
    text = alt_text(fig)
    plt.close(fig)
    assert "square 4: 0.193 (X 15648 O 5616 D 4608 P(lose) 0.19)" in text, text
    assert "square 1: 0.336" in text and "square 1: 1 " not in text and "square 4: 0 " not in text
    assert "the colour ranks them, lowest (reddest) at square 4" in text


def test_widget_refuses_bad_setup():
    with pytest.raises(ValueError):
        TicTacToePlay(seat="Z")
    with pytest.raises(ValueError):
        TicTacToePlay(players={})


def test_widget_shows_each_hint_under_its_square_and_colours_it():
    from gamekit.views.colors import LIGHT_BLUE, LIGHT_RED, RED
    from gamekit.views.tictactoe import hint_label_html

    w = TicTacToePlay(hints=True)
    # one grid: each row of three squares is followed by the row of their three hint labels
    for r in (0, 3, 6):
        k = 2 * r
        assert list(w.board.children[k : k + 3]) == w.squares[r : r + 3]
        assert list(w.board.children[k + 3 : k + 6]) == w.hint_labels[r : r + 3]
    notes, values = counting_hints(GAME, w.state)
    for i in range(9):
        assert w.hint_labels[i].value == hint_label_html(notes[i]) and "P(lose)" in w.hint_labels[i].value
        assert w.hint_labels[i].layout.display != "none" and w.squares[i].description == ""
    safest, riskiest = min(values, key=values.get), max(values, key=values.get)
    assert w.squares[safest].style.button_color == LIGHT_RED and w.squares[riskiest].style.button_color == LIGHT_BLUE
    w.squares[safest].click()
    taken = [i for i, c in enumerate(w.state) if c != "."]
    assert all(w.hint_labels[i].value == hint_label_html("") and w.squares[i].style.button_color is None for i in taken)
    w.hints.value = False  # hints off: labels gone, plain squares, marks unchanged
    assert all(lab.layout.display == "none" for lab in w.hint_labels)
    assert all(b.style.button_color is None and ";" not in b.tooltip for b in w.squares)  # no hint in the names
    names = [f"square {i}, {c if c != '.' else 'empty'}" for i, c in enumerate(w.state)]
    assert [b.tooltip for b in w.squares] == names
    assert [b.description for b in w.squares] == [c if c != "." else "" for c in w.state]
    # a won game: the winning line is drawn in red, the hint labels disappear
    w = TicTacToePlay(players={"first free": lambda: lambda game, s: game.legal_moves(s)[0]}, hints=True)
    for square in (6, 7, 8):  # the computer fills 0, 1, 2 ... and X completes the bottom row first
        w.squares[square].click()
    assert winner(w.state) == 0 and winning_mark(w.state) == "X" and "You win" in w.message.value
    assert [i for i, b in enumerate(w.squares) if b.style.text_color == RED] == [6, 7, 8]
    assert all(lab.layout.display == "none" for lab in w.hint_labels)


def test_winning_line_is_the_games_rule():
    from gamekit.games.tictactoe import winning_line

    for board in POSITIONS[::7]:
        line = winning_line(board)
        assert (line is None) == (winner(board) is None)
        if line:
            assert {board[i] for i in line} == {winning_mark(board)}


@pytest.mark.parametrize("players", [{"bad": 5}, {"bad": None}, {7: TicTacToePlay}, [("random", RandomPlayer)], {}])
def test_widget_refuses_bad_players_saying_what_is_allowed(players):
    with pytest.raises((TypeError, ValueError)) as err:
        TicTacToePlay(players=players)
    assert "factory" in str(err.value) and "callable" in str(err.value) or "non-empty dict" in str(err.value)


@pytest.mark.parametrize(
    ("square", "words"),
    [(9, "out of range"), (-1, "out of range"), ("4", "whole number"), (4.0, "whole number"), (True, "whole number")],
)
def test_widget_click_refuses_a_bad_square_and_changes_nothing(square, words):
    w = TicTacToePlay(players={"first free": lambda: lambda game, s: game.legal_moves(s)[0]})
    before = (w.state, list(w.moves), [b.description for b in w.squares], [b.tooltip for b in w.squares])
    w.click(square)
    assert words in w.message.value and "0 to 8" in w.message.value and "taken" not in w.message.value
    assert (w.state, w.moves, [b.description for b in w.squares], [b.tooltip for b in w.squares]) == before
    w.click(4)  # a good square still plays afterwards
    assert w.state[4] == "X" and w.moves[0] == 4  # then the computer answers
