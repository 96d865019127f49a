"""The course games' decoders are a boundary: random JSON and mutations of valid encodings are either
decoded to a state (or move) that can occur and is written back as the same text, or refused with
`WireError` (`WireMoveError` for moves); never another exception, never a silent change."""

from __future__ import annotations

import functools
import json
import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from own_games import DotsAndBoxes, PassOrTake

from gamekit import GeneralizedNim, Nim, SubtractionGame, TicTacToe, wire
from gamekit.games.registry import small_instances
from gamekit.protocol import MoveTypeError, WireError, WireMoveError

INF = math.inf


def reachable(game, limit=20_000):
    """Every position of `game` from its start (breadth first, at most `limit`)."""
    start = game.initial_state()
    seen, frontier = {start}, [start]
    while frontier and len(seen) < limit:
        s = frontier.pop()
        if game.is_terminal(s):
            continue
        for m in game.legal_moves(s):
            c = game.play(s, m)
            if c not in seen:
                seen.add(c)
                frontier.append(c)
    return seen


GAMES = {
    **dict(small_instances()),  # every game of the one registry (gamekit.games.registry)
    "tictactoe from a start": TicTacToe("X...O...."),
    "nim 3 5 7": Nim((3, 5, 7)),
    "generalized nim from params": GeneralizedNim.from_params({"board": 13, "moves": [1, 2, 4]}),
    "default codec: dots and boxes": DotsAndBoxes(),
    "default codec: pass or take": PassOrTake(6),
}
OWN_CODEC = {k for k in GAMES if not k.startswith("default")}
POSITIONS = {name: reachable(game) for name, game in GAMES.items()}


def possible(name, state):
    """Can `state` occur in the game? (The default codec cannot know: it checks types and shapes only.)"""
    game = GAMES[name]
    if isinstance(game, SubtractionGame):  # any n >= 1 - max(moves) is a position (random starts reach any n)
        return state.n >= 1 - game.moves[-1] and state.to_move in (0, 1)
    return name not in OWN_CODEC or state in POSITIONS[name]


def text(data):
    return json.dumps(data, sort_keys=True)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-(10**20), max_value=10**20) | st.floats() | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=6) | st.dictionaries(st.text(max_size=8), inner, max_size=5),
    max_leaves=20,
)


def _changes(value):
    """Small edits of one JSON value: each a near miss a hand (or a hostile sender) might make."""
    out = [None, True, 0, -1, 1.5, "", [], {}, float("nan"), float("inf")]
    if isinstance(value, bool):
        out += [not value, int(value), str(value).lower()]
    elif isinstance(value, int):
        out += [value + 1, value - 1, -value, -value - 1, float(value), str(value), bool(value % 2), value + 10**9]
    elif isinstance(value, float):
        out += [int(value), -value, str(value)]
    elif isinstance(value, str):
        out += [value[:-1], value + value[-1:], value + "X", value.lower(), value[::-1], "X" * len(value), list(value)]
    elif isinstance(value, list):
        out += [value[:-1], value + value[-1:], value + [0], value[::-1], [value], value[1:], value * 2]
    elif isinstance(value, dict):
        out += [{**value, "extra": 0}, list(value.values())]
        out += [{k: v for k, v in value.items() if k != key} for key in value]
    return out


@st.composite
def mutated(draw, value):
    """`value` with one of its parts (itself, or something inside) replaced by a near miss."""
    if isinstance(value, list) and value and draw(st.booleans()):
        i = draw(st.integers(0, len(value) - 1))
        return [*value[:i], draw(mutated(value[i])), *value[i + 1 :]]
    if isinstance(value, dict) and value and draw(st.booleans()):
        key = draw(st.sampled_from(sorted(value)))
        return {**value, key: draw(mutated(value[key]))}
    return draw(st.sampled_from(_changes(value)))


@functools.cache
def _state_texts(name):
    game = GAMES[name]
    return tuple(sorted((wire.state_to_json(game, s) for s in POSITIONS[name]), key=text))


@functools.cache
def _move_texts(name):
    game = GAMES[name]
    found = {
        text(wire.move_to_json(game, m)): wire.move_to_json(game, m)
        for s in POSITIONS[name]
        for m in game.legal_moves(s)
    }
    return tuple(found[k] for k in sorted(found))


FUZZ = settings(max_examples=100, deadline=None, database=None, suppress_health_check=list(HealthCheck))


@pytest.mark.parametrize("name", list(GAMES))
@FUZZ
@given(data=st.data())
def test_a_state_decoder_decodes_exactly_or_refuses_clearly(name, data):
    game = GAMES[name]
    raw = data.draw(json_values | mutated(data.draw(st.sampled_from(_state_texts(name)))))
    try:
        state = wire.state_from_json(game, raw)
    except WireError as refused:
        assert str(refused).startswith(type(game).__name__), str(refused)  # the game is named
        return
    assert text(wire.state_to_json(game, state)) == text(raw)  # nothing changed silently
    assert possible(name, state), f"{raw!r} decoded to {state!r}, which cannot occur"


@pytest.mark.parametrize("name", list(GAMES))
@FUZZ
@given(data=st.data())
def test_a_move_decoder_decodes_exactly_or_refuses_clearly(name, data):
    game = GAMES[name]
    raw = data.draw(json_values | mutated(data.draw(st.sampled_from(_move_texts(name)))))
    try:
        move = wire.move_from_json(game, raw)
    except WireMoveError as refused:
        assert isinstance(refused, MoveTypeError)  # the referee's "wrong type"
        assert str(refused).startswith(type(game).__name__), str(refused)
        return
    assert text(wire.move_to_json(game, move)) == text(raw)


@pytest.mark.parametrize("name", list(GAMES))
def test_every_position_and_move_decodes_to_itself(name):
    game = GAMES[name]
    for s in POSITIONS[name]:
        back = wire.state_from_json(game, json.loads(json.dumps(wire.state_to_json(game, s))))
        assert back == s and type(back) is type(s)
        for m in game.legal_moves(s):
            assert wire.move_from_json(game, json.loads(json.dumps(wire.move_to_json(game, m)))) == m
