"""Loading JSON files safely: size, nesting depth, encoding and number limits, clear errors.

Every data file of the course (stored Q-tables, arena results, tournament submissions) is
JSON, and some come from students. `load_json` reads one with limits checked *before* the
cost is paid: the file size before reading, the nesting depth before parsing (Python's
parser would otherwise die with a bare RecursionError), strict UTF-8, and no NaN or
Infinity (not JSON, though Python's `json` accepts them). Loading only parses text; it
never executes anything (no pickle, no eval, no object hooks that build classes).
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

__all__ = ["DEFAULT_MAX_BYTES", "DEFAULT_MAX_DEPTH", "JSONLoadError", "load_json", "parse_json"]

#: Largest file `load_json` reads by default (10 MB; the course's data files are far smaller).
DEFAULT_MAX_BYTES = 10_000_000
#: Deepest nesting of lists/objects accepted by default.
DEFAULT_MAX_DEPTH = 64


class JSONLoadError(ValueError):
    """A JSON file or text that was refused; the message says why and what is allowed."""


def _check_limit(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise TypeError(f"{name} must be a whole number >= 1, got {value!r}")
    return int(value)


def _nesting_depth(text: str, max_depth: int, where: str) -> None:
    """Raise if brackets outside strings nest deeper than `max_depth` (one linear scan, no recursion)."""
    depth = 0
    in_string = escaped = False
    for i, ch in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > max_depth:
                raise JSONLoadError(
                    f"{where}: nested deeper than max_depth={max_depth} (at character {i}); "
                    f"allowed: at most {max_depth} levels of lists/objects"
                )
        elif ch in "]}":
            depth -= 1


def _refuse_constant(name: str) -> Any:
    raise JSONLoadError(f"{name} is not allowed: JSON numbers must be finite (no NaN, Infinity or -Infinity)")


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise JSONLoadError(f"the key {key!r} appears twice in one object; allowed: each key once")
        result[key] = value
    return result


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):  # e.g. 1e999 overflows to inf
        raise JSONLoadError(f"the number {text[:40]} is too large for a float; allowed: finite numbers")
    return value


def parse_json(
    data: str | bytes,
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    max_depth: int = DEFAULT_MAX_DEPTH,
    source: str = "<text>",
) -> Any:
    """Parse JSON text (str, or bytes that must be UTF-8) with the same limits as `load_json`."""
    max_bytes = _check_limit(max_bytes, "max_bytes")
    max_depth = _check_limit(max_depth, "max_depth")
    if isinstance(data, (bytes, bytearray)):
        if len(data) > max_bytes:
            raise JSONLoadError(f"{source}: {len(data):,} bytes is larger than max_bytes={max_bytes:,}")
        try:
            text = bytes(data).decode("utf-8")
        except UnicodeDecodeError as err:
            raise JSONLoadError(
                f"{source}: not UTF-8 (byte {err.start}: {err.reason}); allowed: JSON text encoded as UTF-8"
            ) from None
    elif isinstance(data, str):
        text = data
        if len(text) > max_bytes:
            raise JSONLoadError(f"{source}: {len(text):,} characters is larger than max_bytes={max_bytes:,}")
    else:
        raise TypeError(f"JSON data must be str or bytes, got {type(data).__name__}")
    if text.startswith("\ufeff"):
        raise JSONLoadError(f"{source}: starts with a byte-order mark; allowed: plain UTF-8 without BOM")
    _nesting_depth(text, max_depth, source)
    try:
        return json.loads(
            text,
            parse_constant=_refuse_constant,
            parse_float=_finite_float,
            object_pairs_hook=_no_duplicate_keys,
        )
    except JSONLoadError as err:
        raise JSONLoadError(f"{source}: {err}") from None
    except json.JSONDecodeError as err:
        raise JSONLoadError(f"{source}: not valid JSON: {err}") from None
    except (ValueError, RecursionError) as err:  # e.g. an integer with more than 4300 digits
        raise JSONLoadError(f"{source}: refused: {err}") from None


def load_json(
    path: str | os.PathLike[str],
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    max_depth: int = DEFAULT_MAX_DEPTH,
) -> Any:
    """Read the JSON file at `path`, refusing it with `JSONLoadError` (a ValueError) when it is
    larger than `max_bytes`, nested deeper than `max_depth`, not UTF-8, not valid JSON, holds
    NaN/Infinity or a key twice. The size is checked before the file is read.
    """
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path must be a file path (str or pathlib.Path), got {type(path).__name__}")
    max_bytes = _check_limit(max_bytes, "max_bytes")
    p = Path(path)
    if not p.is_file():
        raise FileNotFoundError(f"no JSON file at {str(p)!r}")
    size = p.stat().st_size
    if size > max_bytes:
        raise JSONLoadError(f"{p}: {size:,} bytes is larger than max_bytes={max_bytes:,}; allowed: smaller files")
    with p.open("rb") as f:
        data = f.read(max_bytes + 1)  # the file may have grown since stat()
    return parse_json(data, max_bytes=max_bytes, max_depth=max_depth, source=str(p))
