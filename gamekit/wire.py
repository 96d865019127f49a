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

The decoders are a boundary (they read what a jailed process sends), so they are strict: they
take exactly what the encoder writes (no float for a whole number, no string for a number, no
true/false for a number, finite numbers only) and refuse anything else with `WireError`, whose
message names the game, the field and what is allowed. A move that is not a move of the game at
all raises `WireMoveError`, which is also a `MoveTypeError`, so a referee can tell "not a move at
all" from "a move the rules forbid". The course's games also refuse states that cannot occur
(an impossible board, a negative pile). Decoding is linear in the size of the data. JSON only,
never pickle: data that crosses a boundary can carry nothing but data.

Games are built from JSON parameters with `build_game(cls, params)`: `cls.from_params(params)`
when the class has it, else `cls(**params)`.
"""

from __future__ import annotations

import dataclasses
import inspect
import math
import reprlib
from collections.abc import Mapping
from typing import Any

import numpy as np

from .protocol import WireError, WireMoveError

__all__ = [
    "WireError",
    "WireMoveError",
    "build_game",
    "describe_state",
    "from_json",
    "json_int",
    "json_ints",
    "move_from_json",
    "move_to_json",
    "refuse",
    "show",
    "state_from_json",
    "state_to_json",
    "to_json",
]

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


def show(data: JSON, limit: int = 80) -> str:
    """A short, bounded repr of untrusted data for an error message (never the whole of a huge value)."""
    text = _SHORT.repr(data)
    return text if len(text) <= limit else text[: limit - 3] + "..."


_SHORT = reprlib.Repr()
_SHORT.maxlevel, _SHORT.maxlist, _SHORT.maxdict = 3, 6, 4
_SHORT.maxstring, _SHORT.maxlong, _SHORT.maxother = 40, 40, 40


def _json_type(data: JSON) -> str:
    """The JSON name of `data`'s type (what a person who wrote the JSON would call it)."""
    if data is None:
        return "null"
    if isinstance(data, bool):
        return "true/false"
    if isinstance(data, int):
        return "a whole number"
    if isinstance(data, float):
        return "a decimal number"
    if isinstance(data, str):
        return "a string"
    if isinstance(data, list):
        return "a list"
    if isinstance(data, dict):
        return "an object"
    return f"a Python {type(data).__name__}, not JSON data"


def refuse(what: str, allowed: str, data: JSON, error: type[WireError] = WireError) -> WireError:
    """The error for `data` at `what` (the game and the field): what is allowed and what came."""
    return error(f"{what} must be {allowed}; got {show(data)} ({_json_type(data)})")


def _scalar_kind(value: Any) -> str | None:
    """'bool', 'int', 'float', 'str' or 'null' for a scalar (numpy scalars as their Python kind), else None."""
    if value is None:
        return "null"
    if isinstance(value, (bool, np.bool_)):
        return "bool"
    if isinstance(value, (int, np.integer)):
        return "int"
    if isinstance(value, (float, np.floating)):
        return "float"
    if isinstance(value, str):
        return "str"
    return None


_ALLOWED = {
    "bool": "true or false",
    "int": "a whole number (no decimal point, no quotes)",
    "float": "a finite decimal number (written with a decimal point)",
    "str": "a string",
}


def _shape(value: Any, depth: int = 0) -> Any:
    """What a value's JSON form looks like (its scalar kind, its container and items), for comparing."""
    kind = _scalar_kind(value)
    if kind is not None or depth > 4:
        return kind
    if isinstance(value, tuple) and not hasattr(value, "_fields"):
        return ("tuple", len(value), tuple(_shape(v, depth + 1) for v in value[:8]))
    return type(value).__qualname__


def from_json(data: JSON, template: Any, what: str = "the value") -> Any:
    """Rebuild `data` in the shape of `template` (a value of the type wanted), strictly.

    A scalar must be of the template's JSON type (no decimal number for a whole number, no string
    for a number, no true/false for a number; a decimal number must be finite); a dataclass is an
    object of exactly its fields, a NamedTuple a list of exactly its fields, a tuple a list of the
    same length, item by item. Where the template says nothing (None, or an empty tuple such as a
    history that grows) any JSON scalar or list of them is taken. Anything else raises `WireError`
    naming `what` and what is allowed. Linear in the size of `data`."""
    try:
        return _from_json(data, template, what)
    except RecursionError:
        raise WireError(f"{what} is nested too deeply to be a value of this game") from None


def _from_json(data: JSON, template: Any, what: str) -> Any:
    if dataclasses.is_dataclass(template) and not isinstance(template, type):
        kind = type(template)
        names = [f.name for f in dataclasses.fields(template)]
        if not isinstance(data, dict):
            raise refuse(what, f"an object with the fields {', '.join(names)} of {kind.__name__}", data)
        if len(data) != len(names) or set(data) != set(names):
            got = sorted(str(k)[:20] for k in list(data)[: len(names) + 3])
            raise WireError(f"{what} must have exactly the fields {', '.join(names)} of {kind.__name__}; got {got}")
        values = {n: _from_json(data[n], getattr(template, n), f"{what}.{n}") for n in names}
        try:
            return kind(**values)
        except (TypeError, ValueError) as exc:
            raise WireError(f"{what}: {kind.__name__} refused these fields: {str(exc)[:200]}") from None
    if isinstance(template, tuple) and hasattr(template, "_fields"):  # a NamedTuple
        named = type(template)
        if not isinstance(data, list) or len(data) != len(template):
            fields = ", ".join(template._fields)
            raise refuse(what, f"a list of the {len(template)} fields {fields} of {named.__name__}", data)
        return named(*(_from_json(d, t, f"{what}.{n}") for d, t, n in zip(data, template, template._fields)))
    if isinstance(template, (tuple, list)):
        if not isinstance(data, list):
            raise refuse(what, "a list", data)
        if template and len(template) != len(data):
            raise refuse(what, f"a list of exactly {len(template)} items, like the start's", data)
        if template:
            items = [_from_json(d, t, f"{what}[{i}]") for i, (d, t) in enumerate(zip(data, template))]
        else:  # the start's is empty (a history, a hand): any length, items as plain JSON scalars or lists
            items = [_plain(d, f"{what}[{i}]") for i, d in enumerate(data)]
        return tuple(items) if isinstance(template, tuple) else items
    scalar = _scalar_kind(template)
    if scalar == "null":
        return _plain(data, what)
    if scalar is not None:
        if _scalar_kind(data) != scalar or isinstance(data, np.generic):
            raise refuse(what, _ALLOWED[scalar], data)
        if scalar == "float" and not math.isfinite(data):
            raise refuse(what, _ALLOWED[scalar], data)
        return data
    raise WireError(f"{what}: no default JSON form for {type(template).__name__}; define the game's own decoder")


def _plain(data: JSON, what: str) -> Any:
    """JSON scalars (finite numbers) and lists of them, every list turned into a tuple (hashable)."""
    if isinstance(data, list):
        return tuple(_plain(d, f"{what}[{i}]") for i, d in enumerate(data))
    kind = _scalar_kind(data)
    if kind is None or isinstance(data, np.generic) or (kind == "float" and not math.isfinite(data)):
        raise refuse(what, "a JSON scalar (a number, a string, true, false or null) or a list of them", data)
    return data


def _template_moves(game: Any) -> list[Any]:
    """One legal move of the start per shape of move (whole number, string, pair, ...): the forms a move may take."""
    shapes: dict[Any, Any] = {}
    for m in game.legal_moves(game.initial_state()):
        shapes.setdefault(_shape(m), m)
    return list(shapes.values())


def state_to_json(game: Any, state: Any) -> JSON:
    """`state` as JSON data (the game's `state_to_json`, or the default)."""
    own = getattr(game, "state_to_json", None)
    return own(state) if callable(own) else to_json(state, "a state")


def state_from_json(game: Any, data: JSON) -> Any:
    """The state `data` describes (the game's `state_from_json`, or the strict default after the
    initial state).

    Raises:
        WireError: `data` is not a state of the game: not JSON data of the state's shape (the wrong
            type, a decimal where the encoder writes a whole number, a list of the wrong length), or
            a position that cannot occur. The message names the game, the field and what is allowed.

    >>> from gamekit.games.nim import Nim
    >>> game = Nim([3, 5])
    >>> state_to_json(game, game.initial_state())
    [[3, 5], 0]
    >>> state_from_json(game, [[3, 4], 1])
    NimState(piles=(3, 4), to_move=1)
    >>> state_from_json(game, [[3, 4.0], 1])
    Traceback (most recent call last):
        ...
    gamekit.protocol.WireError: Nim: the state's pile 1 must be a whole number from 0 to 5; got 4.0 (a decimal number)
    >>> state_from_json(game, [[3, 4], 0])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
        ...
    gamekit.protocol.WireError: Nim: the state: [3, 4] with player 0 to move cannot occur from the start [3, 5] (...)
    """
    own = getattr(game, "state_from_json", None)
    if callable(own):
        return own(data)
    return from_json(data, game.initial_state(), f"{type(game).__name__}: a state")


def move_to_json(game: Any, move: Any) -> JSON:
    """`move` as JSON data (the game's `move_to_json`, or the default)."""
    own = getattr(game, "move_to_json", None)
    return own(move) if callable(own) else to_json(move, "a move")


def move_from_json(game: Any, data: JSON) -> Any:
    """The move `data` describes; `WireMoveError` (a `MoveTypeError`) if it is not a move of the game's
    kind at all. The default takes a move of the shape of one of the start's legal moves; whether it
    is legal is `play`'s to say."""
    own = getattr(game, "move_from_json", None)
    if callable(own):
        return own(data)
    what = f"{type(game).__name__}: a move"
    templates = _template_moves(game)
    if not templates:
        try:
            return from_json(data, None, what)
        except WireError as exc:
            raise WireMoveError(str(exc)) from None
    problems = []
    for template in templates:
        try:
            return from_json(data, template, what)
        except WireError as exc:
            problems.append(str(exc))
    shown = ", ".join(show(to_json(t)) for t in templates)
    raise WireMoveError(f"{problems[0]} (a move has the form of a legal move such as {shown})") from None


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


def json_int(
    data: JSON,
    what: str,
    minimum: int | None = None,
    maximum: int | None = None,
    error: type[WireError] = WireMoveError,
) -> int:
    """`data` as a whole number (within the bounds given), else `error` (a `WireMoveError` unless
    told otherwise) naming `what`: true/false, a decimal number or a string is not one."""
    if isinstance(data, bool) or not isinstance(data, int):
        raise refuse(what, _int_allowed(minimum, maximum), data, error)
    if (minimum is not None and data < minimum) or (maximum is not None and data > maximum):
        raise refuse(what, _int_allowed(minimum, maximum), data, error)
    return data


def _int_allowed(minimum: int | None, maximum: int | None) -> str:
    if minimum is not None and maximum is not None:
        return f"a whole number from {minimum} to {maximum}" if minimum < maximum else f"the number {minimum}"
    if minimum is not None:
        return f"a whole number >= {minimum}"
    if maximum is not None:
        return f"a whole number <= {maximum}"
    return "a whole number (no decimal point, no quotes)"


def json_list(
    data: JSON, what: str, allowed: str, length: int | None = None, error: type[WireError] = WireMoveError
) -> list:
    """`data` as a list (of exactly `length` items if given), else `error` saying it must be `allowed`."""
    if not isinstance(data, list) or (length is not None and len(data) != length):
        raise refuse(what, allowed, data, error)
    return data


def json_ints(data: JSON, n: int, what: str, error: type[WireError] = WireMoveError) -> tuple[int, ...]:
    """`data` as a list of `n` whole numbers, else `error` (a `WireMoveError` unless told otherwise)."""
    items = json_list(data, what, f"a list of {n} whole numbers", n, error)
    return tuple(json_int(d, f"{what}[{i}]", error=error) for i, d in enumerate(items))


def json_player(data: JSON, what: str) -> int:
    """`data` as a player, 0 or 1 (not true/false), else `WireError`."""
    if isinstance(data, bool) or data not in (0, 1) or not isinstance(data, int):
        raise refuse(what, "0 or 1 (the player to move)", data)
    return int(data)
