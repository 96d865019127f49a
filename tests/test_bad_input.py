"""Bad input across the foundation's public API and its widget models (issue 12).

Every case asserts three things: the error type (a wrong TYPE is a TypeError, a right type
out of range is a ValueError), that the message names what is allowed, and that nothing
changed (the object the call was made on, or the argument passed in, is as before).
numpy integers are accepted wherever an int is.
"""

from __future__ import annotations

import copy
import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pytest
from gamekit.data import data_path

from gamekit import (
    ArenaResult,
    GeneralizedNim,
    MixedPlayer,
    Nim,
    NimState,
    PerfectPlayer,
    RandomPlayer,
    RandomTree,
    SearchPlayer,
    SmartRandomPlayer,
    SubtractionGame,
    TicTacToe,
    TreeGame,
    against_every_opponent,
    alphabeta,
    best_moves,
    board_from_string,
    h1_scaled,
    is_p_position,
    lines_order,
    nim_sum,
    periodicity,
    play_game,
    playout,
    red_blue,
    solve,
    strategy_table,
    winning_moves,
    winning_nim_moves,
)
from gamekit.jsonio import parse_json
from gamekit.match import tournament  # the function; `gamekit.tournament` becomes the package once imported
from gamekit.protocol import IllegalMoveError, check_int, check_player
from gamekit.views import subtraction as views

G = SubtractionGame(22)
S = G.initial_state()
_TTT = TicTacToe()
_FINISHED = TicTacToe("XXXOO....").initial_state()
_SEARCHER = SearchPlayer(depth=2, evaluate=h1_scaled)
_SEARCHER(_TTT, _TTT.initial_state())  # it has played TicTacToe: its table must survive the refusal


def _arena_without_agents():
    data = json.loads(data_path("arena_seeds.json").read_text(encoding="utf-8"))["runs"][0]
    first = next(iter(data["games"]))
    data["games"] = {first: {**data["games"][first], "agents": []}}
    return data


def _stepper():
    from gamekit import trace_alphabeta
    from gamekit.views.trees import AlphaBetaStepper, build_tree

    g = TreeGame([[3, 12], [2, 4]])
    return AlphaBetaStepper(trace_alphabeta(g), build_tree(g))


@dataclass
class Case:
    """`call(target)` must raise `error` with a message matching `allowed`; `snapshot(target)` unchanged."""

    id: str
    call: Callable[[Any], Any]
    error: type[BaseException]
    allowed: str
    make: Callable[[], Any] = lambda: None
    snapshot: Callable[[Any], Any] = lambda target: None


def _game_snapshot(g):
    return (type(g), g, repr(g))


def _widget_snapshot(w):
    keys = ("course", "moves", "kind", "players", "p", "N")
    return {k: copy.deepcopy(getattr(w, k)) for k in keys if hasattr(w, k)}, w.image.value


_PLAY = views.SubtractionPlay(start=22, opponent="optimal", seed=1)
_PLAY.play_move(3)
_GRAPH = views.NumberGraphExplorer(N=10, max_N=40)


def _play_widget():
    return _PLAY


def _graph_widget():
    return _GRAPH


def _widget_refuses(method_name, *args):
    """Widgets do not raise: they return False and show the message; the case re-raises it as ValueError."""

    def call(w):
        ok = getattr(w, method_name)(*args)
        assert ok is False and "b00020" in w.message.value  # the error colour
        raise ValueError(w.message.value)

    return call


CASES = [
    # --- the subtraction game --------------------------------------------------------------
    Case("start float", lambda _: SubtractionGame(2.5), TypeError, "start must be a whole number >= 0"),
    Case("start str", lambda _: SubtractionGame("7"), TypeError, "start must be a whole number >= 0"),
    Case("start None", lambda _: SubtractionGame(None), TypeError, "start must be a whole number >= 0"),
    Case("start bool", lambda _: SubtractionGame(True), TypeError, "start must be a whole number >= 0"),
    Case("start negative", lambda _: SubtractionGame(-1), ValueError, "start must be a whole number >= 0"),
    Case("moves str", lambda _: SubtractionGame(9, "35"), TypeError, "collection of positive integers"),
    Case("move float", lambda _: SubtractionGame(9, (3, 2.0)), TypeError, "whole number >= 1"),
    Case("move bool", lambda _: SubtractionGame(9, (3, True)), TypeError, "whole number >= 1"),
    Case("move zero", lambda _: SubtractionGame(9, (3, 0)), ValueError, r"positive integer \(1, 2, 3"),
    Case("moves repeated", lambda _: SubtractionGame(9, [3, 3]), ValueError, "must be distinct"),
    Case("moves empty", lambda _: SubtractionGame(9, []), ValueError, "at least one positive integer"),
    Case("play float move", lambda g: g.play(S, 3.0), TypeError, "allowed moves: 3, 5, 11", lambda: G, _game_snapshot),
    Case("play bool move", lambda g: g.play(S, True), IllegalMoveError, "allowed moves: 3, 5, 11", lambda: G),
    Case("play str move", lambda g: g.play(S, "3"), IllegalMoveError, "allowed moves: 3, 5, 11", lambda: G),
    Case("play other move", lambda g: g.play(S, 4), IllegalMoveError, "allowed moves: 3, 5, 11", lambda: G),
    Case("state float n", lambda g: g.state(4.5), TypeError, "n must be a whole number", lambda: G),
    Case("state to_move 2", lambda g: g.state(4, 2), ValueError, "to_move must be 0 or 1", lambda: G),
    Case("state to_move str", lambda g: g.state(4, "1"), TypeError, "to_move must be 0 or 1", lambda: G),
    Case("utility player 2", lambda g: g.utility(g.state(0, 1), 2), ValueError, "player must be 0 or 1", lambda: G),
    Case(
        "utility player None", lambda g: g.utility(g.state(0, 1), None), TypeError, "player must be 0 or 1", lambda: G
    ),
    Case("random_start rng int", lambda g: g.random_start(3), TypeError, "numpy Generator", lambda: G),
    Case(
        "random_start low>high",
        lambda g: g.random_start(np.random.default_rng(0), 9, 3),
        ValueError,
        "low must",
        lambda: G,
    ),
    Case(
        "set moves attribute",
        lambda g: setattr(g, "moves", (1, 2)),
        AttributeError,
        "no setter",
        lambda: G,
        _game_snapshot,
    ),
    # --- its number theory ----------------------------------------------------------------------
    Case("red_blue N float", lambda _: red_blue(10.0), TypeError, "N must be a whole number >= 0"),
    Case("red_blue N huge", lambda _: red_blue(10**12), ValueError, r"allowed: N <= 100,000,000"),
    Case("periodicity huge move", lambda _: periodicity((1, 100_000)), ValueError, r"MAX_SCAN_BYTES"),
    Case("is_red negative", lambda _: periodicity().is_red(-1), ValueError, "n must be a whole number >= 0"),
    Case("winning_moves str", lambda _: winning_moves("12"), TypeError, "n must be a whole number >= 0"),
    Case("colour beyond N", lambda rb: rb.colour(11), ValueError, "from 0 to 10", lambda: red_blue(10)),
    Case("colour negative", lambda rb: rb.colour(-1), ValueError, "from 0 to 10", lambda: red_blue(10)),
    Case("strategy_table None", lambda _: strategy_table(None), TypeError, "collection of positive integers"),
    # --- Nim ------------------------------------------------------------------------------------
    Case("piles float", lambda _: Nim([1, 2.0]), TypeError, "whole number >= 0"),
    Case("piles negative", lambda _: Nim([1, -2]), ValueError, "whole number >= 0"),
    Case("piles too big", lambda _: Nim([10**9]), ValueError, "from 0 to 10000"),
    Case("misere int", lambda _: Nim([1, 2], misere=1), TypeError, "misere must be True or False"),
    Case(
        "nim play float take",
        lambda g: g.play(g.initial_state(), (0, 1.5)),
        TypeError,
        "pair of whole numbers",
        lambda: Nim([1, 2]),
        _game_snapshot,
    ),
    Case(
        "nim play no pair",
        lambda g: g.play(g.initial_state(), 3),
        IllegalMoveError,
        r"allowed moves: \(0, 1\)",
        lambda: Nim([1, 2]),
    ),
    Case("nim_sum str", lambda _: nim_sum("357"), TypeError, "list of whole numbers >= 0"),
    Case("is_p_position misere str", lambda _: is_p_position([1, 2], "yes"), TypeError, "True or False"),
    Case("winning_nim_moves None", lambda _: winning_nim_moves(None), TypeError, "list of whole numbers >= 0"),
    # --- solve, players, matches ----------------------------------------------------------------
    Case("solve table list", lambda _: solve(G, S, table=[]), TypeError, "dict from an earlier solve"),
    Case("solve not a game", lambda _: solve("nim"), TypeError, "is not a Game"),
    Case("best_moves values list", lambda _: best_moves(G, S, values=[1]), TypeError, "dict from solve"),
    Case("random player seed float", lambda _: RandomPlayer(seed=1.5), TypeError, "whole number >= 0 or a numpy"),
    Case("random player seed negative", lambda _: RandomPlayer(seed=-3), ValueError, "whole number >= 0"),
    Case("random player name int", lambda _: RandomPlayer(name=3), TypeError, "name must be a text"),
    Case("smart player seed str", lambda _: SmartRandomPlayer(seed="1"), TypeError, "whole number >= 0"),
    Case("perfect player name empty", lambda _: PerfectPlayer(name=" "), ValueError, "non-empty text"),
    Case("mixed p str", lambda _: MixedPlayer("0.5"), TypeError, "probability between 0 and 1"),
    Case("mixed p nan", lambda _: MixedPlayer(float("nan")), ValueError, "probability between 0 and 1"),
    Case("mixed optimal not callable", lambda _: MixedPlayer(0.5, optimal=3), TypeError, "callable"),
    Case("play_game one player", lambda _: play_game(G, [PerfectPlayer()]), ValueError, "exactly two players"),
    Case(
        "play_game player not callable",
        lambda _: play_game(G, [PerfectPlayer(), 7]),
        TypeError,
        "player 1 must be callable",
    ),
    Case(
        "play_game max_moves float",
        lambda _: play_game(G, [PerfectPlayer()] * 2, max_moves=1e3),
        TypeError,
        "max_moves must be a whole number >= 1",
    ),
    Case("play_game names str", lambda _: play_game(G, [PerfectPlayer()] * 2, names="AB"), TypeError, "pair of texts"),
    Case(
        "tournament games float",
        lambda _: tournament(G, PerfectPlayer(), PerfectPlayer(), games=10.0),
        TypeError,
        "games must be a whole number >= 1",
    ),
    Case(
        "tournament games odd", lambda _: tournament(G, PerfectPlayer(), PerfectPlayer(), games=7), ValueError, "even"
    ),
    Case(
        "tournament seed str",
        lambda _: tournament(G, PerfectPlayer(), PerfectPlayer(), games=2, seed="1"),
        TypeError,
        "seed must be None, a whole number >= 0",
    ),
    Case(
        "tournament start not callable",
        lambda _: tournament(G, PerfectPlayer(), PerfectPlayer(), 2, start=20),
        TypeError,
        r"start\(game, rng\)",
    ),
    Case(
        "tournament paired int",
        lambda _: tournament(G, PerfectPlayer(), PerfectPlayer(), 2, paired=1),
        TypeError,
        "paired must be True or False",
    ),
    Case(
        "playout low str",
        lambda _: playout(G, PerfectPlayer(), PerfectPlayer(), low="20"),
        TypeError,
        "low must be a whole number >= 0",
    ),
    Case(
        "against_every_opponent seat 2",
        lambda _: against_every_opponent(G, PerfectPlayer(), 2),
        ValueError,
        "seat must be 0 or 1",
    ),
    Case(
        "against_every_opponent seat float",
        lambda _: against_every_opponent(G, PerfectPlayer(), 0.0),
        TypeError,
        "seat must be 0 or 1",
    ),
    # --- shared checkers and JSON ----------------------------------------------------------------
    Case("check_int None", lambda _: check_int(None, "k", minimum=1), TypeError, "k must be a whole number >= 1"),
    Case("check_player numpy 3", lambda _: check_player(np.int64(3)), ValueError, "player must be 0 or 1"),
    Case("json NaN", lambda _: parse_json("[NaN]"), ValueError, "finite"),
    Case("json too deep", lambda _: parse_json("[" * 100 + "]" * 100), ValueError, "max_depth=64"),
    # --- views: functions -------------------------------------------------------------------------
    Case("number_graph huge set", lambda _: views.number_graph(10, range(1, 50)), ValueError, "at most 12 moves"),
    Case("number_graph huge move", lambda _: views.draw_number_graph(10, (3, 10**6)), ValueError, "from 1 to 1000"),
    Case("number_graph N huge", lambda _: views.number_graph(10**7), ValueError, "from 0 to 10000"),
    Case("draw N too large", lambda _: views.draw_number_graph(500), ValueError, "0 <= N <= 200"),
    Case("grid period float", lambda _: views.grid_layout(range(3), 2.0), TypeError, "period must be a whole number"),
    Case("backward steps str", lambda _: views.backward_labels(N=10, steps="1"), TypeError, "steps must be"),
    Case("forward tree start huge", lambda _: views.forward_tree(10**6), ValueError, "0 <= start <= 200"),
    Case("tree_growth start huge", lambda _: views.tree_growth([10, 10**7]), ValueError, "from 0 to 5000"),
    Case("edge_colour float", lambda _: views.edge_colour(7.0, 2), TypeError, "n1 must be a whole number"),
    Case("trim_course str", lambda _: views.trim_course("9 4 -1"), TypeError, "list of whole numbers"),
    Case("course float", lambda _: views.course_numbers([22, 19.0]), TypeError, "whole numbers"),
    Case("parse_start float", lambda _: views.parse_start(2.5), TypeError, "whole number from 1 to 200"),
    Case("parse_start text", lambda _: views.parse_start("½"), ValueError, "whole number from 1 to 200"),
    Case("mixed_win_rate odd games", lambda _: views.mixed_win_rate(0.5, games=7), ValueError, "even"),
    Case("png_size str", lambda _: views.png_size("PNG"), TypeError, "bytes of a PNG"),
    # --- views: widget models keep their state and show the message ---------------------------------
    Case(
        "play widget float move",
        _widget_refuses("play_move", 3.0),
        ValueError,
        r"one of \(3, 5, 11\)",
        _play_widget,
        _widget_snapshot,
    ),
    Case(
        "play widget move 4",
        _widget_refuses("play_move", 4),
        ValueError,
        r"one of \(3, 5, 11\)",
        _play_widget,
        _widget_snapshot,
    ),
    Case(
        "play widget start float",
        _widget_refuses("new_game", 2.5),
        ValueError,
        "whole number from 1 to 200",
        _play_widget,
        _widget_snapshot,
    ),
    Case(
        "play widget start None text",
        _widget_refuses("new_game", "x"),
        ValueError,
        "whole number from 1 to 200",
        _play_widget,
        _widget_snapshot,
    ),
    Case(
        "play widget opponent",
        _widget_refuses("new_game", 22, "clever"),
        ValueError,
        "opponent must be one of",
        _play_widget,
        _widget_snapshot,
    ),
    Case(
        "play widget human_first int",
        _widget_refuses("new_game", 22, "optimal", 1),
        ValueError,
        "human_first must be True or False",
        _play_widget,
        _widget_snapshot,
    ),
    Case(
        "graph widget moves text",
        _widget_refuses("set_moves", "3, five"),
        ValueError,
        "whole numbers separated",
        _graph_widget,
        _widget_snapshot,
    ),
    Case(
        "graph widget huge move",
        _widget_refuses("set_moves", "1, 100000"),
        ValueError,
        "from 1 to 1000",
        _graph_widget,
        _widget_snapshot,
    ),
    Case(
        "graph widget huge set",
        _widget_refuses("set_moves", list(range(1, 40))),
        ValueError,
        "at most 12 moves",
        _graph_widget,
        _widget_snapshot,
    ),
    Case(
        "graph widget float move",
        _widget_refuses("set_moves", [3, 5.5]),
        ValueError,
        "whole number",
        _graph_widget,
        _widget_snapshot,
    ),
    Case("play widget ctor start", lambda _: views.SubtractionPlay(start=2.5), TypeError, "whole number from 1 to"),
    Case("play widget ctor seed", lambda _: views.SubtractionPlay(seed="7"), TypeError, "seed must be"),
    Case("graph widget ctor max_N", lambda _: views.NumberGraphExplorer(max_N=10**6), ValueError, "max_N <= 200"),
    Case("rate widget ctor games", lambda _: views.MixedRateExplorer(games=None), TypeError, "games must be"),
    # --- the last bad inputs (issue 20): other games, their states, players and helpers -------------
    Case("ttt both lines", lambda _: TicTacToe("XXXOOO..."), ValueError, "both X and O have a line"),
    Case("ttt start int", lambda _: TicTacToe(123), TypeError, "a string such as 'X...O....'"),
    Case("board_from_string None", lambda _: board_from_string(None), TypeError, "string of 9 cells"),
    Case(
        "ttt legal_moves 8 cells",
        lambda g: g.legal_moves(tuple("........")),
        ValueError,
        "has 9 squares, got 8",
        lambda: _TTT,
        _game_snapshot,
    ),
    Case("gnim no moves", lambda _: GeneralizedNim(5, {}), ValueError, "at least one move"),
    Case(
        "random tree float move",
        lambda g: g.play(g.initial_state(), 1.0),
        IllegalMoveError,
        "allowed moves: 0, 1",
        lambda: RandomTree(2, 3, seed=1),
        _game_snapshot,
    ),
    Case("tree nan leaf", lambda _: TreeGame([[math.nan, 1], [2, 3]]), ValueError, "finite number"),
    Case("tree inf leaf", lambda _: TreeGame([[1, math.inf]]), ValueError, "finite number"),
    Case(
        "solve state of another game",
        lambda _: solve(TicTacToe(), NimState((1, 2), 0)),
        ValueError,
        r"not a position of TicTacToe\(\).*pass a state of this game",
    ),
    Case(
        "alphabeta order of another game",
        lambda _: alphabeta(Nim((1, 2)), order=lines_order),
        ValueError,
        "order=lines_order does not work on Nim.*Pass an order function for this game",
    ),
    Case(
        "search player evaluate of another game",
        lambda p: p(Nim((1, 2)), Nim((1, 2)).initial_state()),
        ValueError,
        "evaluate=h1_scaled does not work on Nim",
        lambda: _SEARCHER,
        lambda p: (p.last, p._table, p.depth),
    ),
    Case(
        "perfect player in a finished game",
        lambda p: p(TicTacToe(), _FINISHED),
        ValueError,
        "the game is over",
        lambda: PerfectPlayer(),
    ),
    Case(
        "random player in a finished game",
        lambda p: p(TicTacToe(), _FINISHED),
        ValueError,
        "the game is over",
        lambda: RandomPlayer(seed=1),
        lambda p: p.rng.bit_generator.state,
    ),
    Case(
        "arena table without agents",
        lambda _: ArenaResult.from_json(_arena_without_agents()),
        ValueError,
        "at least two agents",
    ),
    Case(
        "stepper half a step",
        lambda w: w.step(1.5),
        TypeError,
        "whole number of steps",
        _stepper,
        lambda w: w.k,
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_input_is_refused_clearly_and_changes_nothing(case):
    target = case.make()
    before = case.snapshot(target)
    with pytest.raises(case.error, match=case.allowed) as info:
        case.call(target)
    assert len(str(info.value)) > 15  # a sentence, not a bare value
    assert case.snapshot(target) == before


def test_at_least_forty_kinds_of_bad_input():
    assert len(CASES) >= 40 and len({c.id for c in CASES}) == len(CASES)


def test_numpy_integers_are_accepted_as_integers_everywhere():
    n = np.int64
    g = SubtractionGame(n(22), (n(3), n(5), n(11)))
    assert g == SubtractionGame(22) and g.play(g.initial_state(), n(3)).n == 19
    assert type(g.play(g.initial_state(), n(3)).n) is int
    assert g.state(n(7), n(1)) == g.state(7, 1) and g.utility(g.state(0, 1), n(0)) == 1.0
    assert red_blue(n(30)).colour(n(8)) == "red" and winning_moves(n(12)) == (3, 11)
    assert Nim([n(1), n(2)]).play(Nim([1, 2]).initial_state(), (n(1), n(2))).piles == (1, 0)
    assert is_p_position([n(1), n(1)]) and nim_sum([n(3), n(5)]) == 6
    assert tournament(g, PerfectPlayer(), PerfectPlayer(), games=n(2), seed=n(1)).games == 2
    assert RandomPlayer(seed=n(3))(g, g.initial_state()) in (3, 5, 11)
    assert views.parse_start(n(9)) == 9 and len(views.number_graph(n(10))) == 11


def test_the_play_widget_still_plays_after_refusals():
    w = views.SubtractionPlay(start=22, opponent="optimal", seed=1)
    assert not w.play_move(2.5) and not w.new_game("abc") and w.course == [22]
    assert "&#x27;abc&#x27;" in w.message.value  # user text is escaped in the message
    assert w.play_move(3) and w.course[:2] == [22, 19]
