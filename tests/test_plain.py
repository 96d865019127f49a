"""Answers as plain data (gamekit.sandbox.plain) and tests split into probe and judge (gamekit.course.cases).

The decoder is the grader's boundary: it must rebuild exactly the built-in values that were sent,
refuse anything else with a reason, and stay bounded however the text is crafted.
"""

from __future__ import annotations

import json
import math
from fractions import Fraction

import nbformat
import numpy as np
import pytest

from gamekit.course.cases import SpecError, free_names, spec, split_probe
from gamekit.sandbox import plain

VALUES = [
    None,
    True,
    0,
    -(10**30),
    2.5,
    "é",
    [1, [2, "x"]],
    (1, (2,), ()),
    {3, 1},
    frozenset({(1, 2)}),
    {"a": 1, (1, 2): [3], 4: {5}},
    Fraction(1, 3),
    [math.inf, -math.inf],
    {"moves": {12: [3, 5, 11]}, "same": [1, 1, 1]},
]


@pytest.mark.parametrize("value", VALUES, ids=[f"value{i}" for i in range(len(VALUES))])
def test_plain_values_travel_with_their_exact_types(value):
    back = plain.loads(plain.dumps(value))
    assert back == value

    def types(v):
        if isinstance(v, (list, tuple)):
            return (type(v), [types(x) for x in v])
        if isinstance(v, dict):
            return (dict, sorted((repr(k), types(x)) for k, x in v.items()))
        return type(v)

    assert types(back) == types(value)


def test_nan_travels_and_numpy_numbers_become_builtins():
    assert math.isnan(plain.loads(plain.dumps(math.nan)))
    back = plain.loads(plain.dumps([np.int64(3), np.float64(0.5), np.bool_(True), np.array([[1, 2]])]))
    assert back == [3, 0.5, True, [[1, 2]]]
    assert [type(x) for x in back[:3]] == [int, float, bool]


class _Yes(list):
    def __eq__(self, other):
        return True

    __hash__ = None  # type: ignore[assignment]


class _Int(int):
    pass


@pytest.mark.parametrize(
    "value",
    [_Yes([1]), _Int(3), object(), [1, _Int(2)], {"k": print}, np.float64],
    ids=["list always equal", "int subclass", "object", "nested int subclass", "function", "a type"],
)
def test_objects_that_are_not_plain_data_are_refused_by_name(value):
    with pytest.raises(plain.PlainDataError, match="is not plain data; allowed: None, bool, int"):
        plain.dumps(value)


@pytest.mark.parametrize(
    "text, why",
    [
        ('{"pickle": "x"}', "unknown tag 'pickle'"),
        ('{"tuple": [1], "set": [2]}', "not one of the tags"),
        ('{"fraction": [1, 0]}', "denominator > 0"),
        ('{"fraction": [1.5, 2]}', "whole numbers"),
        ('{"set": [[1]]}', "unhashable list"),
        ('{"dict": [[1]]}', "must be \\[key, value\\]"),
        ("[" * 200 + "]" * 200, "deeper"),
        ("1" * 5000, "digits|integer|Exceeds"),
        ("NaN", "NaN|not JSON|Infinity"),
        ('"' + "x" * (plain.MAX_BYTES + 1) + '"', "larger than"),
    ],
    ids=[
        "unknown tag",
        "two tags",
        "zero denominator",
        "float fraction",
        "list in set",
        "bad dict entry",
        "deep",
        "huge int",
        "bare NaN",
        "too large",
    ],  # fmt: skip
)
def test_crafted_texts_are_refused_with_a_reason(text, why):
    with pytest.raises(plain.PlainDataError, match=why):
        plain.loads(text)


def test_decoding_builds_only_builtins_whatever_the_tags_say():
    crafted = json.dumps({"dict": [[{"tuple": [1, {"frozenset": [2]}]}, {"fraction": [2, 4]}]]})
    value = plain.loads(crafted)
    assert value == {(1, frozenset({2})): Fraction(1, 2)}
    assert type(next(iter(value))) is tuple


# --- the tests of a master, split into probe and judge -------------------------------------------


def test_split_probe_keeps_helpers_in_both_parts_and_the_probe_only_in_the_sandbox():
    source = (
        "def _games():\n    return [1, 2]\n\ndef probe():\n    return f(_games())\n\n"
        "values = probe()\nassert values == 3\n"
    )
    probe, judge = split_probe(source)
    assert "def probe" in probe and "def _games" in probe and "assert" not in probe
    assert "def probe" not in judge and "def _games" in judge and "values = probe()" in judge
    assert split_probe("assert answer == 1\n") is None
    with pytest.raises(SpecError, match="no arguments"):
        split_probe("def probe(x):\n    return x\n")
    assert free_names("x = answer + len(y)\nfor k in z:\n    pass\n") == {"answer", "y", "z"}


def _master(hidden_test: str) -> nbformat.NotebookNode:
    raw = nbformat.v4.new_raw_cell
    code = nbformat.v4.new_code_cell
    return nbformat.v4.new_notebook(
        cells=[
            raw("# ASSIGNMENT CONFIG\nname: 98-spec"),
            code("import math"),
            raw("# BEGIN QUESTION\nname: q1\npoints: 2"),
            nbformat.v4.new_markdown_cell("**Exercise 98.1** Write `f` and set `answer`."),
            raw("# BEGIN SOLUTION"),
            code("def f(x):\n    return x + 1\n\nanswer = f(1)  # SOLUTION"),
            raw("# END SOLUTION"),
            raw("# BEGIN TESTS"),
            code('""" # BEGIN TEST CONFIG\npoints: 0\n""" # END TEST CONFIG\nassert type(answer) is int'),
            code('""" # BEGIN TEST CONFIG\nhidden: true\n""" # END TEST CONFIG\n' + hidden_test),
            raw("# END TESTS"),
            raw("# END QUESTION"),
        ]
    )


def test_a_hidden_test_that_calls_the_students_code_needs_a_probe():
    with pytest.raises(SpecError, match="q1: a hidden test uses f, written by the student"):
        spec(_master("assert f(2) == 3"))
    with pytest.raises(SpecError, match="only the probe may call"):
        spec(_master("def probe():\n    return 1\n\nassert f(probe()) == 2"))
    good = spec(_master("def probe():\n    return [f(2), f(3)]\n\nassert probe() == [3, 4] and answer == 2"))
    [q] = good["questions"]
    public, hidden = q["cases"]
    assert good["lesson"] == ["import math"] and good["answers"] == ["answer"]
    assert public["names"] == ["answer"] and public["points"] == 0 and not public["hidden"]
    assert hidden["calls"] == ["f"] and hidden["names"] == ["answer"] and hidden["points"] == 2
    assert "def probe" in hidden["probe"] and "def probe" not in hidden["judge"]


def test_sets_and_dicts_of_colliding_hash_values_are_refused_before_they_are_built():
    """The integers k * (2**61 - 1) all hash to 0: a set of 170,000 of them (4 MB of text) would take
    CPython's set about k**2 / 2 comparisons (minutes). Refused with a reason instead, by a sort."""
    modulus = 2**61 - 1
    assert len({hash(k * modulus) for k in range(1, 100)}) == 1
    colliding = [k * modulus for k in range(1, 20_000)]
    for text in (
        json.dumps({"set": colliding}),
        json.dumps({"frozenset": colliding}),
        json.dumps({"dict": [[k, 0] for k in colliding]}),
        json.dumps({"tuple": [{"set": [{"tuple": [k]} for k in colliding]}]}),  # nested, through tuple hashes
    ):
        with pytest.raises(plain.PlainDataError, match="share one hash value"):
            plain.loads(text)
    # a few collisions are fine (honest values can collide: hash(-1) == hash(-2)), and so are big honest sets
    few = [k * modulus for k in range(1, plain.SHARED_HASH + 1)] + [-1, -2]
    assert plain.loads(json.dumps({"set": few})) == set(few)
    honest = set(range(200_000))
    assert plain.loads(plain.dumps(honest)) == honest
    assert plain.loads(plain.dumps({str(k): k for k in range(50_000)})) == {str(k): k for k in range(50_000)}
    # the same value many times is not what the encoder sends either
    with pytest.raises(plain.PlainDataError, match="share one hash value"):
        plain.loads(json.dumps({"set": [7] * 1000}))
