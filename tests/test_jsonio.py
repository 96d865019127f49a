"""gamekit.jsonio: JSON files are refused, with a clear error, when too large, too deep, not UTF-8 or not finite."""

import json

import pytest

from gamekit.jsonio import JSONLoadError, load_json, parse_json


def write(tmp_path, data, name="f.json"):
    p = tmp_path / name
    p.write_bytes(data if isinstance(data, bytes) else data.encode())
    return p


def test_loads_ordinary_json(tmp_path):
    doc = {"piles": [3, 5, 7], "alpha": 0.5, "name": "Grüße", "ok": True, "none": None}
    assert load_json(write(tmp_path, json.dumps(doc, ensure_ascii=False))) == doc
    assert load_json(str(write(tmp_path, "[1, 2]"))) == [1, 2]


@pytest.mark.parametrize(
    "data, message",
    [
        ("x" * 101, "larger than max_bytes=100"),
        ("[" * 11 + "]" * 11, "deeper than max_depth=10"),
        (b"\xff\xfe[1]", "not UTF-8"),
        ("[NaN]", "NaN is not allowed"),
        ("[Infinity]", "Infinity is not allowed"),
        ("[-Infinity]", "-Infinity is not allowed"),
        ("[1e999]", "finite numbers"),
        ('{"a": 1, "a": 2}', "appears twice"),
        ("[1, 2", "not valid JSON"),
        ("\ufeff[1]", "byte-order mark"),
        ("[" + "9" * 5000 + "]", "refused"),
    ],
)
def test_refused_files(tmp_path, data, message):
    p = write(tmp_path, data)
    with pytest.raises(JSONLoadError, match=message):
        load_json(p, max_bytes=100 if data == "x" * 101 else 100_000, max_depth=10)


def test_depth_counts_only_brackets_outside_strings():
    assert parse_json('["[[[[[[[[[[[[", {"k": "}}}}"}]', max_depth=2) == ["[[[[[[[[[[[[", {"k": "}}}}"}]
    deep = "[" * 100_000 + "]" * 100_000  # Python's own parser would raise a bare RecursionError
    with pytest.raises(JSONLoadError, match="max_depth=64"):
        parse_json(deep, max_bytes=10**6)


def test_bad_arguments(tmp_path):
    with pytest.raises(TypeError, match="file path"):
        load_json(3)
    with pytest.raises(TypeError, match="max_bytes must be a whole number >= 1"):
        load_json(write(tmp_path, "[]"), max_bytes=1.5)
    with pytest.raises(TypeError, match="max_depth must be a whole number >= 1"):
        parse_json("[]", max_depth=True)
    with pytest.raises(FileNotFoundError, match="no JSON file"):
        load_json(tmp_path / "missing.json")
    with pytest.raises(TypeError, match="str or bytes"):
        parse_json(None)
    assert issubclass(JSONLoadError, ValueError)
