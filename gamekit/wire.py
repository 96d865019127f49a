"""A game's states and moves as JSON: the wire format every process boundary uses.

The tournament plays a game in one process and asks agents for moves in others (on other
machines, too), so a state and a move must travel as JSON and come back as the game's own
types. A game MAY define the four methods below; the functions of this module call them when
they exist and fall back to a default that fits the usual student game (numbers, strings,
tuples, NamedTuples and frozen dataclasses of those):

    def state_to_json(self, state) -> JSON          def move_to_json(self, move) -> JSON
    def state_from_json(self, data) -> State        def move_from_json(self, data) -> Move
    def describe_state(self, state) -> str          (how a replay shows a position; default str())

The default decoder rebuilds containers after a *template*: the initial state for states, a
legal move of it for moves (a list becomes a tuple, a list of a dataclass's fields that
dataclass again). `gamekit.testing.check_game` checks the round trip on every state it visits;
a game whose states need more (a dict with number keys, a set) defines its own methods.

A decoder is strict about types: a move of the wrong kind raises `MoveTypeError`, so a referee
can tell "not a move at all" from "a move the rules forbid". JSON only, never pickle: data
that crosses a boundary can carry nothing but data.

Games are built from JSON parameters with `build_game(cls, params)`: `cls.from_params(params)`
when the class has it, else `cls(**params)`.
"""

from __future__ import annotations

import dataclasses
import inspect
import math
from collections.abc import Mapping
from typing import Any

from .protocol import MoveTypeError

JSON = Any

SCALARS = (str, int, float, bool, type(None))


def to_json(value: Any, what: str = "value") -> JSON:
    """`value` as JSON data: scalars as they are, tuples/lists as lists, NamedTuples and frozen
    dataclasses as the list/object of their fields, numpy scalars as Python numbers; else TypeError."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"{what} holds {value!r}, which JSON cannot carry")
        return float(value)
    if hasattr(value, "dtype") and hasattr(value, "item") and getattr(value, "shape", None) == ():  # numpy scalar
        return to_json(value.item(), what)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_json(getattr(value, f.name), what) for f in dataclasses.fields(value)}
    if isinstance(value, (tuple, list)):
        return [to_json(v, what) for v in value]
    raise TypeError(
        f"{what} of type {type(value).__name__} has no JSON form by default; define state_to_json/"
        "state_from_json (or move_to_json/move_from_json) on the game"
    )


def from_json(data: JSON, template: Any) -> Any:
    """Rebuild `data` in the shape of `template` (a value of the type wanted); lists become tuples."""
    if dataclasses.is_dataclass(template) and not isinstance(template, type):
        if not isinstance(data, dict):
            raise TypeError(f"expected an object of the fields of {type(template).__name__}, got {data!r}")
        names = [f.name for f in dataclasses.fields(template)]
        if sorted(data) != sorted(names):
            raise ValueError(f"{type(template).__name__} has the fields {names}, got {sorted(data)}")
        return type(template)(**{n: from_json(data[n], getattr(template, n)) for n in names})
    if isinstance(template, tuple) and hasattr(template, "_fields"):  # a NamedTuple
        if not isinstance(data, list) or len(data) != len(template):
            raise TypeError(f"expected a list of {len(template)} fields of {type(template).__name__}, got {data!r}")
        return type(template)(*(from_json(d, t) for d, t in zip(data, template)))
    if isinstance(template, (tuple, list)):
        if not isinstance(data, list):
            raise TypeError(f"expected a list, got {data!r} ({type(data).__name__})")
        if len(template) == len(data):
            items = [from_json(d, t) for d, t in zip(data, template)]
        else:  # a sequence of another length: its items are like the template's first (or plain)
            items = [from_json(d, template[0] if template else None) for d in data]
        return tuple(items) if isinstance(template, tuple) else items
    if template is None or isinstance(template, SCALARS):
        return _plain(data)
    raise TypeError(f"no default JSON form for {type(template).__name__}; define the game's own decoder")


def _plain(data: JSON) -> Any:
    """JSON data with every list turned into a tuple (hashable, as states and moves must be)."""
    if isinstance(data, list):
        return tuple(_plain(d) for d in data)
    if isinstance(data, dict):
        raise TypeError(f"an object {data!r} where a plain value was expected")
    return data


def _template_move(game: Any) -> Any:
    state = game.initial_state()
    moves = list(game.legal_moves(state))
    return moves[0] if moves else None


def state_to_json(game: Any, state: Any) -> JSON:
    """`state` as JSON data (the game's `state_to_json`, or the default)."""
    own = getattr(game, "state_to_json", None)
    return own(state) if callable(own) else to_json(state, "a state")


def state_from_json(game: Any, data: JSON) -> Any:
    """The state `data` describes (the game's `state_from_json`, or the default after the initial state)."""
    own = getattr(game, "state_from_json", None)
    return own(data) if callable(own) else from_json(data, game.initial_state())


def move_to_json(game: Any, move: Any) -> JSON:
    """`move` as JSON data (the game's `move_to_json`, or the default)."""
    own = getattr(game, "move_to_json", None)
    return own(move) if callable(own) else to_json(move, "a move")


def move_from_json(game: Any, data: JSON) -> Any:
    """The move `data` describes; `MoveTypeError` if it is not a move of the game's kind at all."""
    own = getattr(game, "move_from_json", None)
    if callable(own):
        return own(data)
    try:  # a scalar comes back as it is: whether it is legal (or of the right kind) is `play`'s to say
        return from_json(data, _template_move(game))
    except (TypeError, ValueError) as exc:
        raise MoveTypeError(f"not a move of this game: {exc}") from None


def describe_state(game: Any, state: Any) -> str:
    """The position as text, for a replay (the game's `describe_state`, or `str(state)`)."""
    own = getattr(game, "describe_state", None)
    return str(own(state)) if callable(own) else str(state)


def build_game(cls: type, params: Mapping[str, Any] | None = None) -> Any:
    """The game `cls` with JSON parameters: `cls.from_params(params)` if it has one, else `cls(**params)`;
    a parameter the class does not take is refused with the ones it does."""
    params = dict(params or {})
    maker = getattr(cls, "from_params", None)
    if callable(maker):
        return maker(params)
    try:
        allowed = [p for p in inspect.signature(cls).parameters if p not in ("self", "args", "kwargs")]
    except (TypeError, ValueError):  # no signature to read: let the call say what is wrong
        allowed = list(params)
    unknown = sorted(set(params) - set(allowed))
    if unknown:
        raise ValueError(
            f"{cls.__name__} has no parameter {', '.join(unknown)}; its parameters: {', '.join(allowed) or 'none'}"
        )
    try:
        return cls(**params)
    except TypeError as exc:
        raise ValueError(f"{cls.__name__} cannot be built from the parameters {params!r}: {exc}") from None


def json_int(data: JSON, what: str) -> int:
    """`data` as a whole number, or `MoveTypeError` (a bool, a float, a string is not one)."""
    if isinstance(data, bool) or not isinstance(data, int):
        raise MoveTypeError(f"{what} must be a whole number, got {data!r} ({type(data).__name__})")
    return data


def json_ints(data: JSON, n: int, what: str) -> tuple[int, ...]:
    """`data` as a list of `n` whole numbers, or `MoveTypeError`."""
    if not isinstance(data, list) or len(data) != n:
        raise MoveTypeError(f"{what} is a list of {n} whole numbers, got {data!r} ({type(data).__name__})")
    return tuple(json_int(d, what) for d in data)
