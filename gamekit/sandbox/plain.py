"""Answers as plain data: what leaves a student's sandbox, and the only thing the grader believes.

A submission's answers are values in the student's own interpreter, where any object can lie
(a list whose `==` is always true, an `int` subclass, a proxy). So an answer leaves the sandbox
as JSON text in a small tagged format, and the grader rebuilds it from the text alone, with
exact built-in types (`type(x) is int`, never `isinstance`):

    JSON null, true/false, numbers, strings, arrays  ->  None, bool, int/float, str, list
    {"tuple": [...]}, {"set": [...]}, {"frozenset": [...]}
    {"dict": [[key, value], ...]}       (keys: any plain hashable value)
    {"fraction": [numerator, denominator]}
    {"float": "nan" | "inf" | "-inf"}

`encode` runs inside the sandbox (a courtesy: it converts numpy scalars and arrays to the
built-in values they stand for, and says clearly which type it cannot send). `decode` runs on
the teacher's side and is the boundary: it accepts only this format, bounded in size and
nesting, and builds nothing but the types above. No pickle, no class named by the sender.

Its cost is linear in the text (times the nesting depth): building a set or dict costs one
comparison per item unless many items share a hash value, which plain values never do by
chance but a sender can arrange (the integers k * (2**61 - 1) all hash to 0, and every
insertion would compare against all of them: quadratic, minutes for 4 MB). So before a set or
dict is built, its items' hash values are sorted and counted, and more than `SHARED_HASH`
items with one hash value are refused with a reason.
"""

from __future__ import annotations

import contextlib
import json
import math
from fractions import Fraction
from typing import Any

from ..jsonio import JSONLoadError, parse_json

__all__ = [
    "MAX_BYTES",
    "MAX_DEPTH",
    "SHARED_HASH",
    "PlainDataError",
    "as_graded",
    "decode",
    "dumps",
    "encode",
    "graded_answers",
    "loads",
]

#: Largest encoded answer accepted (bytes of JSON text).
MAX_BYTES = 4_000_000
#: Deepest nesting accepted (each tag adds one level).
MAX_DEPTH = 40
#: Most items of one set, or keys of one dict, that may share one hash value.
SHARED_HASH = 32
TAGS = ("tuple", "set", "frozenset", "dict", "fraction", "float")
ALLOWED = (
    "None, bool, int, float, str, list, tuple, dict, set, frozenset, fractions.Fraction "
    "(numpy numbers become int/float/bool)"
)


class PlainDataError(ValueError):
    """A value that cannot travel as plain data, or a text that is not in the plain-data format."""


def _numpy_to_builtin(value: Any) -> Any:
    """numpy scalars and arrays as the built-in values they stand for; anything else unchanged."""
    module = type(value).__module__
    if module != "numpy":
        return value
    import numpy as np

    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return float(value)
    return value


def encode(value: Any, depth: int = 0) -> Any:
    """`value` in the tagged JSON format; PlainDataError names a type that cannot be sent."""
    if depth > MAX_DEPTH:
        raise PlainDataError(f"nested deeper than {MAX_DEPTH} levels")
    value = _numpy_to_builtin(value)
    kind = type(value)
    if value is None or kind is bool or kind is int or kind is str:
        return value
    if kind is float:
        return value if math.isfinite(value) else {"float": repr(value)}
    if kind is list:
        return [encode(v, depth + 1) for v in value]
    if kind is tuple:
        return {"tuple": [encode(v, depth + 1) for v in value]}
    if kind is set or kind is frozenset:
        items = [encode(v, depth + 1) for v in value]
        items.sort(key=lambda v: json.dumps(v, sort_keys=True))
        return {kind.__name__: items}
    if kind is dict:
        return {"dict": [[encode(k, depth + 1), encode(v, depth + 1)] for k, v in value.items()]}
    if kind is Fraction:
        return {"fraction": [value.numerator, value.denominator]}
    raise PlainDataError(f"a value of type {kind.__module__}.{kind.__qualname__} is not plain data; allowed: {ALLOWED}")


def dumps(value: Any) -> str:
    """`encode(value)` as compact JSON text."""
    return json.dumps(encode(value), separators=(",", ":"), allow_nan=False)


def _hash(value: Any, where: str) -> int:
    try:
        return hash(value)
    except TypeError:
        raise PlainDataError(f"{where}: an unhashable {type(value).__name__} as a set item or dict key") from None


def _few_collisions(items: list[Any], where: str) -> None:
    """Refuse items of which more than SHARED_HASH share one hash value (sorting: n log n, no table)."""
    hashes = sorted(_hash(item, where) for item in items)
    run = 1
    for before, after in zip(hashes, hashes[1:]):
        run = run + 1 if before == after else 1
        if run > SHARED_HASH:
            raise PlainDataError(
                f"{where}: more than {SHARED_HASH} items share one hash value (equal or colliding items); "
                "a set or dict sent by the sandbox holds distinct values that do not collide"
            )


def decode(data: Any, depth: int = 0) -> Any:
    """Rebuild a value from parsed tagged JSON, accepting only the plain-data format."""
    if depth > MAX_DEPTH:
        raise PlainDataError(f"nested deeper than {MAX_DEPTH} levels")
    kind = type(data)
    if data is None or kind is bool or kind is int or kind is str:
        return data
    if kind is float:
        if not math.isfinite(data):
            raise PlainDataError("a non-finite number outside the {'float': ...} tag")
        return data
    if kind is list:
        return [decode(v, depth + 1) for v in data]
    if kind is not dict or len(data) != 1:
        raise PlainDataError(f"not plain data: a {kind.__name__} that is not one of the tags")
    ((tag, body),) = data.items()
    if tag not in TAGS:
        raise PlainDataError(f"unknown tag {tag!r}; allowed: {', '.join(TAGS)}")
    if tag == "float" and body in ("nan", "inf", "-inf"):
        return float(body)
    if tag == "fraction":
        if type(body) is not list or len(body) != 2 or any(type(x) is not int for x in body) or body[1] <= 0:
            raise PlainDataError("a fraction must be [numerator, denominator > 0], whole numbers")
        return Fraction(body[0], body[1])
    if type(body) is not list:
        raise PlainDataError(f"the tag {tag!r} needs a list")
    if tag == "tuple":
        return tuple(decode(v, depth + 1) for v in body)
    if tag in ("set", "frozenset"):
        items = [decode(v, depth + 1) for v in body]
        _few_collisions(items, tag)
        return set(items) if tag == "set" else frozenset(items)
    if tag == "dict":
        if any(type(pair) is not list or len(pair) != 2 for pair in body):
            raise PlainDataError("a dict entry must be [key, value]")
        keys = [decode(pair[0], depth + 1) for pair in body]
        _few_collisions(keys, "dict")
        return dict(zip(keys, (decode(pair[1], depth + 1) for pair in body)))
    raise PlainDataError(f"the tag {tag!r} needs {'a list' if tag != 'float' else 'nan, inf or -inf'}")


def loads(text: str) -> Any:
    """Parse and decode tagged JSON text, bounded in size and nesting (PlainDataError if refused)."""
    try:
        parsed = parse_json(text, max_bytes=MAX_BYTES, max_depth=2 * MAX_DEPTH + 4)  # a tag adds two levels
    except (JSONLoadError, ValueError) as exc:  # ValueError: an integer too long to parse, say
        raise PlainDataError(str(exc)) from None
    return decode(parsed)


def as_graded(value: Any) -> Any:
    """`value` as the grader's judge receives it: encoded as in the sandbox, decoded as on the
    teacher's side (a numpy integer becomes an int, an array a list). PlainDataError if it cannot
    travel."""
    return loads(dumps(value))


def graded_answers(env: dict[str, Any]) -> dict[str, Any]:
    """A copy of `env` whose answers (`answer_*`) are replaced by `as_graded(answer)`.

    Public checks run on this, in a class copy and a self-study copy alike, so they see an answer
    exactly as the hidden tests do: one statement of what an answer may be, and a NumPy number
    passes wherever the Python number does. An answer that cannot travel (a game object, a
    function) is left as it is: its exercise probes it instead (`gamekit.course.cases`).
    """
    out = dict(env)
    for name, value in env.items():
        if name.startswith("answer_") and value is not Ellipsis:
            with contextlib.suppress(PlainDataError, RecursionError, ValueError, TypeError):
                out[name] = as_graded(value)
    return out
