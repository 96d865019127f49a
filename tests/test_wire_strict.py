"""The decoders refuse what the issue found accepted, with the game, the field and what is allowed named;
`from_params` takes the natural plain forms; the default codec is as strict as the games' own."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import pytest

from gamekit import GeneralizedNim, Nim, RandomTree, SubtractionGame, TicTacToe, wire
from gamekit.games.random_tree import TreeGame
from gamekit.protocol import MoveTypeError, WireError, WireMoveError
from gamekit.tournament.games import LocalRules


@pytest.mark.parametrize(
    "game, data, named",
    [
        (Nim((3, 5, 7)), [[1.5, 5, 7], 0], "pile 0 must be a whole number from 0 to 3"),
        (Nim((3, 5, 7)), [["3", 5, 7], 0], "'3' (a string)"),
        (Nim((3, 5, 7)), [[-1, 5, 7], 1], "got -1"),
        (Nim((3, 5, 7)), [[], 0], "piles must be a list of 3 whole numbers"),
        (Nim((3, 5, 7)), [[3, 5, 8], 1], "from 0 to 7"),  # a pile only shrinks
        (Nim((3, 5, 7)), [[3, 5, 7], 1], "cannot occur"),  # nobody moved, yet player 1 is to move
        (Nim((3, 5, 7)), [[2, 5, 7], 0], "cannot occur"),  # one stick taken in one move: player 1 moves
        (Nim((3, 5, 7)), [[3, 5, 7], True], "0 or 1"),
        (Nim((3, 5, 7)), [3, 5, 7], "a list [piles, player to move]"),
        (SubtractionGame(22), [-11, 0], "n must be a whole number >= -10"),  # below 1 - 11: no move gets there
        (SubtractionGame(22), [5.0, 0], "a decimal number"),
        (SubtractionGame(22), [5, 2], "0 or 1"),
        (SubtractionGame(22), {"n": 5}, "a list [n, player to move]"),
        (TicTacToe(), "XXXXXXXXX", "impossible board"),
        (TicTacToe(), "XXXOOO...", "both X and O have a line"),
        (TicTacToe(), "XXX.OO.O.", "cannot be reached"),  # X has a line, so X moved last: not 3 and 3
        (TicTacToe(), "XXXXOO.OO", "cannot be reached"),  # X won twice over: the game had ended
        (TicTacToe("X...O...."), ".........", "cannot be reached"),
        (TicTacToe(), "xo.......", "9 characters"),
        (TicTacToe(), list("........."), "a string of 9 characters"),
        (RandomTree(2, 3, seed=1), [0, 2], "from 0 to 1"),
        (RandomTree(2, 3, seed=1), [0, 1, 0, 1], "at most 3 child indices"),
        (TreeGame([[1, 2], 3]), [1, 0], "below a leaf"),
        (
            GeneralizedNim(13, {1: math.inf, 2: math.inf}),
            {"board": -1, "budgets": [], "to_move": 0, "won": False},
            "board",
        ),
    ],
)
def test_an_impossible_or_mistyped_state_is_refused_naming_game_field_and_what_is_allowed(game, data, named):
    with pytest.raises(WireError) as refused:
        wire.state_from_json(game, data)
    assert str(refused.value).startswith(type(game).__name__) and named in str(refused.value), str(refused.value)


def test_generalized_nim_refuses_budgets_and_turns_no_play_gives():
    game = GeneralizedNim(9, [{1: 3, 2: 2}, {1: 2, 3: 2}])
    start = wire.state_to_json(game, game.initial_state())
    after = wire.state_to_json(game, game.play(game.initial_state(), 2))
    assert wire.state_from_json(game, after) == game.play(game.initial_state(), 2)
    for change, named in [
        (lambda d: d["budgets"][0][0].__setitem__(1, 4), "from 0 to 3"),  # more uses than at the start
        (lambda d: d["budgets"][0][0].__setitem__(1, None), "from 0 to 3"),  # unlimited where the start has 3
        (lambda d: d["budgets"][0].reverse(), "move 1 must be the number 1"),  # the start's moves in another order
        (lambda d: d.__setitem__("to_move", 0), "cannot occur"),  # player 0 moved, yet moves again
        (lambda d: d.__setitem__("won", 1), "true or false"),
        (lambda d: d.__setitem__("board", 9), "cannot occur"),  # no stone gone, yet a use spent
    ]:
        data = {**after, "budgets": [[list(p) for p in b] for b in after["budgets"]]}
        change(data)
        with pytest.raises(WireError, match=named):
            wire.state_from_json(game, data)
    assert wire.state_from_json(game, start) == game.initial_state()


@pytest.mark.parametrize(
    "game, data",
    [
        (RandomTree(2, 3, seed=1), None),
        (RandomTree(2, 3, seed=1), "1"),
        (RandomTree(2, 3, seed=1), 1.5),
        (TreeGame([[1, 2], 3]), True),
        (Nim(), [0, 1.0]),
        (Nim(), [0, 1, 2]),
        (TicTacToe(), 4.0),
        (SubtractionGame(), "3"),
        (GeneralizedNim(5, {1: 1}), False),
    ],
)
def test_a_reply_that_is_not_a_move_is_refused_as_the_wrong_type(game, data):
    with pytest.raises(WireMoveError) as refused:
        wire.move_from_json(game, data)
    assert isinstance(refused.value, MoveTypeError) and isinstance(refused.value, WireError)
    assert str(refused.value).startswith(type(game).__name__)


def test_a_move_of_the_right_form_is_left_to_play_and_the_referee_tells_the_two_apart():
    rules = LocalRules(TicTacToe())
    start = wire.state_to_json(rules.game, rules.game.initial_state())
    assert wire.move_from_json(rules.game, 99) == 99  # a square that does not exist: illegal, not mistyped
    with pytest.raises(Exception) as bad:
        rules.play(start, 99)
    assert bad.value.reason == "illegal move"
    with pytest.raises(Exception) as bad:
        rules.play(start, 4.0)
    assert bad.value.reason == "wrong type"


@pytest.mark.parametrize(
    "params, budgets, first",
    [
        ({"board": 13, "moves": [1, 2, 4]}, [{1: math.inf, 2: math.inf, 4: math.inf}] * 2, 0),
        ({"board": 13, "moves": [[1, None], [2, 3]]}, [{1: math.inf, 2: 3}] * 2, 0),
        ({"board": 13, "moves": {"1": None, "2": 3}, "first": 1}, [{1: math.inf, 2: 3}] * 2, 1),
        ({"board": 13, "moves": [[[1, None]], {"3": 2}]}, [{1: math.inf}, {3: 2}], 0),
        ({"board": 13, "moves": [{"1": 1}, {"2": None}]}, [{1: 1}, {2: math.inf}], 0),
    ],
)
def test_generalized_nim_takes_the_natural_plain_forms(params, budgets, first):
    game = GeneralizedNim.from_params(params)
    assert game == GeneralizedNim(13, budgets, first=first)
    assert wire.build_game(GeneralizedNim, params) == game


@pytest.mark.parametrize(
    "params, named",
    [
        ({"moves": [1, 2]}, "needs the parameter"),
        ({"board": 13}, "needs the parameter"),
        ({"board": 13, "moves": [1, 2], "win": "x"}, "no parameter win"),
        ({"board": 13, "moves": 3}, "a list of stones taken"),
        ({"board": 13, "moves": [1.5]}, "a list of stones taken"),
        ({"board": 13, "moves": [True]}, "a list of stones taken"),
        ({"board": 13, "moves": ["1"]}, "a list of stones taken"),
        ({"board": 13, "moves": [[1, "many"]]}, "whole number >= 0 or null"),
        ({"board": 13, "moves": {"one": 1}}, "number of stones taken"),
        ({"board": 13, "moves": [1, 1]}, "given twice"),
        ({"board": 13, "moves": [0]}, ">= 1"),
        ({"board": 13, "moves": [[1, -2]]}, ">= 0"),
        ({"board": "13", "moves": [1]}, "board"),
        ({"board": 0, "moves": [1]}, "board"),
        ({"board": 13, "moves": [1], "first": 2}, "first"),
    ],
)
def test_generalized_nim_refuses_other_parameters_clearly(params, named):
    with pytest.raises((TypeError, ValueError), match=named):
        GeneralizedNim.from_params(params)


@pytest.mark.parametrize(
    "cls, params",
    [
        (Nim, {"piles": [3, 5, 7], "misere": True}),
        (SubtractionGame, {"start": 30, "moves": [1, 3, 4]}),
        (TicTacToe, {"start": "X...O...."}),
        (TreeGame, {"tree": [[3, 12], [2, 4]]}),
        (RandomTree, {"branching": 2, "depth": 3, "seed": 4}),
    ],
)
def test_every_course_game_is_built_from_plain_json_parameters(cls, params):
    game = wire.build_game(cls, params)
    assert isinstance(game, cls) and game.initial_state() is not None


@pytest.mark.parametrize(
    "cls, params, named",
    [
        (Nim, {"piles": 3}, "piles"),
        (Nim, {"piles": [3, -1]}, "pile"),
        (Nim, {"piles": [3], "misere": "yes"}, "misere"),
        (SubtractionGame, {"start": 2.5}, "start"),
        (SubtractionGame, {"moves": []}, "moves"),
        (TicTacToe, {"start": "XXXXXXXXX"}, "impossible board"),
        (RandomTree, {"branching": 2}, "depth"),
        (TreeGame, {"tree": [[]]}, "at least one child"),
    ],
)
def test_other_course_games_refuse_bad_parameters_clearly(cls, params, named):
    with pytest.raises((TypeError, ValueError), match=named):
        wire.build_game(cls, params)


# --- the default codec (a student's game without its own) ------------------------------------------


@dataclass(frozen=True)
class Board:
    cells: tuple[int, ...] = (0, 0, 0)
    score: float = 0.0
    over: bool = False
    history: tuple = ()


class Game:
    def initial_state(self):
        return Board()

    def legal_moves(self, s):
        return [(i, 1) for i in range(3)] + ["pass"]


@pytest.mark.parametrize(
    "data, named",
    [
        ({"cells": [0, 0, 0], "score": 0.0, "over": False}, "exactly the fields"),
        ({"cells": [0, 0, 0], "score": 0.0, "over": False, "history": [], "x": 1}, "exactly the fields"),
        ({"cells": [0, 0], "score": 0.0, "over": False, "history": []}, "exactly 3 items"),
        ({"cells": [0, 0, 0.0], "score": 0.0, "over": False, "history": []}, "cells[2] must be a whole number"),
        ({"cells": [0, 0, True], "score": 0.0, "over": False, "history": []}, "cells[2] must be a whole number"),
        ({"cells": [0, 0, 0], "score": 0, "over": False, "history": []}, "score must be a finite decimal"),
        ({"cells": [0, 0, 0], "score": math.nan, "over": False, "history": []}, "score must be a finite decimal"),
        ({"cells": [0, 0, 0], "score": 0.0, "over": 0, "history": []}, "over must be true or false"),
        ({"cells": [0, 0, 0], "score": 0.0, "over": False, "history": [{}]}, "history[0] must be a JSON scalar"),
        ([0, 0, 0], "an object with the fields"),
    ],
)
def test_the_default_codec_is_as_strict(data, named):
    with pytest.raises(WireError, match=re.escape(named)) as refused:
        wire.state_from_json(Game(), data)
    assert str(refused.value).startswith("Game: a state")


def test_the_default_codec_reads_what_it_writes_and_moves_of_every_kind_the_start_lists():
    state = Board((1, 2, 3), 0.5, True, (1, "a", (2, None)))
    assert wire.state_from_json(Game(), wire.state_to_json(Game(), state)) == state
    assert wire.move_from_json(Game(), [2, 1]) == (2, 1)
    assert wire.move_from_json(Game(), "pass") == "pass"
    for bad in ([2, 1.0], [2], True, 3, None, {"pile": 2}):
        with pytest.raises(WireMoveError, match="a legal move such as"):
            wire.move_from_json(Game(), bad)


def test_error_messages_stay_short_whatever_is_sent():
    huge = [[list(range(10**5))] * 3, 0]
    with pytest.raises(WireError) as refused:
        wire.state_from_json(Nim((3, 5, 7)), huge)
    assert len(str(refused.value)) < 400
    with pytest.raises(WireError) as refused:
        wire.state_from_json(TicTacToe(), "X" * 10**6)
    assert len(str(refused.value)) < 400


def test_every_registered_game_has_malformed_states_here():
    """A game added to gamekit.games.registry must bring its own malformed wire states to this file."""
    from gamekit.games.registry import COURSE_GAMES

    test = test_an_impossible_or_mistyped_state_is_refused_naming_game_field_and_what_is_allowed
    cases = [case for mark in test.pytestmark if mark.name == "parametrize" for case in mark.args[1]]
    covered = {type(case[0]).__module__ + ":" + type(case[0]).__name__ for case in cases}
    assert {entry.target for entry in COURSE_GAMES.values()} <= covered
