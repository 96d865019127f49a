"""The wire's decoders against malformed data, and check_game against broken games.

    python benchmarks/wire.py

Prints, per course game, how many of several hundred malformed inputs (near misses of valid
encodings and random JSON, drawn with a fixed seed) each decoder refuses clearly (`WireError`,
`MoveTypeError`), accepts silently, or refuses with another exception; then how many of the
broken games of tests/test_testing.py check_game names with the right property and position,
its time on each game of the suites (the slowest first), and how decoding time grows with the
input. Run it with PYTHONPATH pointing at an older checkout to measure that one.
"""

from __future__ import annotations

import contextlib
import json
import math
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from gamekit import GeneralizedNim, Nim, RandomTree, SubtractionGame, TicTacToe, reachable_positions, wire
from gamekit.games.random_tree import TreeGame
from gamekit.protocol import IllegalMoveError, MoveTypeError

CLEAR = (getattr(wire, "WireError", MoveTypeError), MoveTypeError)
CORPUS = 400  # malformed inputs per game and kind (states, moves)
GAMES = {
    "subtraction": SubtractionGame(22),
    "tictactoe": TicTacToe(),
    "nim": Nim((3, 5, 7)),
    "generalized nim": GeneralizedNim(9, [{1: 3, 2: math.inf}, {1: 2, 3: 2}]),
    "random tree": RandomTree(3, 3, seed=1),
    "tree": TreeGame([[3, [12, 8]], [2, 4, 6]]),
}


def text(data):
    return json.dumps(data, sort_keys=True)


def near_misses(value, rng):
    """One random edit somewhere inside `value` (the same kinds as the fuzz test's)."""
    if isinstance(value, list) and value and rng.random() < 0.5:
        i = rng.randrange(len(value))
        return [*value[:i], near_misses(value[i], rng), *value[i + 1 :]]
    if isinstance(value, dict) and value and rng.random() < 0.5:
        key = rng.choice(sorted(value))
        return {**value, key: near_misses(value[key], rng)}
    out = [None, True, 0, -1, 1.5, "", [], {}, float("nan")]
    if isinstance(value, bool):
        out += [not value, int(value)]
    elif isinstance(value, int):
        out += [value + 1, value - 1, -value - 1, float(value), str(value), bool(value % 2), value + 10**9]
    elif isinstance(value, str):
        out += [value[:-1], value + "X", value.lower(), "X" * len(value), list(value)]
    elif isinstance(value, list):
        out += [value[:-1], value + value[-1:], value + [0], value[::-1], [value], value * 2]
    elif isinstance(value, dict):
        out += [{**value, "extra": 0}, list(value.values())] + [
            {k: v for k, v in value.items() if k != key} for key in value
        ]
    return rng.choice(out)


def random_json(rng, depth=0):
    """A random JSON value, at most three levels deep."""
    kind = rng.randrange(8 if depth < 2 else 6)
    if kind == 6:
        return [random_json(rng, depth + 1) for _ in range(rng.randrange(4))]
    if kind == 7:
        return {str(rng.randrange(5)): random_json(rng, depth + 1) for _ in range(rng.randrange(4))}
    return [
        None,
        rng.random() < 0.5,
        rng.randint(-(10**6), 10**6),
        rng.uniform(-10, 10),
        "".join(rng.choice("XO.01ab") for _ in range(rng.randrange(12))),
        rng.choice([float("inf"), -0.0, 10**30]),
    ][kind]


def corpus(valid, rng, also_valid=lambda raw: False):
    """CORPUS inputs none of which is the encoding of anything in `valid` (texts) or passes `also_valid`."""
    out, seen, sources = [], set(), sorted(valid.values(), key=text)
    while len(out) < CORPUS:
        raw = random_json(rng) if rng.random() < 0.25 else near_misses(rng.choice(sources), rng)
        t = text(raw)
        if t not in valid and t not in seen and not also_valid(raw):
            seen.add(t)
            out.append(raw)
    return out


def valid_states(name, game, states):
    return {text(wire.state_to_json(game, s)): wire.state_to_json(game, s) for s in states}


def subtraction_position(game):
    """[n, player] with n >= 1 - max(moves): a position (random starts make every such n one)."""

    def valid(raw):
        return (
            isinstance(raw, list)
            and len(raw) == 2
            and all(type(x) is int for x in raw)
            and raw[0] >= 1 - game.moves[-1]
            and raw[1] in (0, 1)
        )

    return valid


def classify(decode, raw, game=None):
    try:
        value = decode(raw)
    except CLEAR:
        return "refused clearly"
    except Exception:
        return "refused with Python internals"
    if game is not None:  # a move: whether play refuses it at the start
        try:
            game.play(game.initial_state(), value)
        except IllegalMoveError:
            return "decoded, play refuses"
        except Exception:
            return "refused with Python internals"
    return "accepted silently"


def measure_decoders():
    rng = random.Random(29)
    print(f"malformed inputs, {CORPUS} states and {CORPUS} moves per game (seed 29):")
    totals: dict = {}
    for name, game in GAMES.items():
        states = reachable_positions(game)
        valid = valid_states(name, game, states)
        counts: dict = {}
        rule = subtraction_position(game) if isinstance(game, SubtractionGame) else (lambda raw: False)
        for raw in corpus(valid, rng, rule):
            verdict = classify(lambda d, g=game: wire.state_from_json(g, d), raw)
            counts[("state", verdict)] = counts.get(("state", verdict), 0) + 1
        moves = {
            text(wire.move_to_json(game, m)): wire.move_to_json(game, m) for s in states for m in game.legal_moves(s)
        }
        for raw in corpus(moves, rng):
            verdict = classify(lambda d, g=game: wire.move_from_json(g, d), raw, game)
            counts[("move", verdict)] = counts.get(("move", verdict), 0) + 1
        for key, c in counts.items():
            totals[key] = totals.get(key, 0) + c

        def c(kind, verdict):
            return counts.get((kind, verdict), 0)

        clear_s = c("state", "refused clearly")
        clear_m = c("move", "refused clearly") + c("move", "decoded, play refuses")
        print(
            f"  {name:16s} states refused clearly {clear_s:3d}/{CORPUS} ({100 * clear_s / CORPUS:5.1f} %), "
            f"silently accepted {c('state', 'accepted silently'):3d}, "
            f"internals {c('state', 'refused with Python internals'):3d}"
        )
        print(
            f"  {'':16s} moves  refused clearly {clear_m:3d}/{CORPUS} ({100 * clear_m / CORPUS:5.1f} %; by the decoder "
            f"{c('move', 'refused clearly')}, by play {c('move', 'decoded, play refuses')}), silently accepted "
            f"{c('move', 'accepted silently')}, internals {c('move', 'refused with Python internals')}"
        )
    n = CORPUS * len(GAMES)
    clear = totals.get(("state", "refused clearly"), 0)
    print(f"  all states: {clear}/{n} refused clearly ({100 * clear / n:.1f} %)")
    clear = totals.get(("move", "refused clearly"), 0) + totals.get(("move", "decoded, play refuses"), 0)
    print(f"  all moves:  {clear}/{n} refused clearly ({100 * clear / n:.1f} %)")


def measure_checker():
    try:
        import test_testing as suite
    except ImportError as exc:
        print(f"(no broken-game suite: {exc})")
        return
    from gamekit.testing import GameCheckError, check_game

    where = getattr(suite, "WHERE", {})
    right, times = 0, []
    for kind, (cls, prop) in suite.BROKEN.items():
        t = time.perf_counter()
        try:
            check_game(cls(), games=30)
            got = None
        except GameCheckError as error:
            got = error
        seconds = time.perf_counter() - t
        times.append((seconds, f"broken: {kind}"))
        ok = got is not None and got.prop == prop and where.get(kind, lambda p: p == [])(list(got.path))
        right += ok
        if not ok:
            print(f"  MISSED {kind}: expected {prop}, got {got}")
    print(f"broken games named with the right property and position: {right}/{len(suite.BROKEN)}")
    import own_games

    correct = {
        "SubtractionGame(22)": SubtractionGame(22),
        "TicTacToe()": TicTacToe(),
        "Nim((1, 2, 3))": Nim((1, 2, 3)),
        "Nim((3, 5, 7))": Nim((3, 5, 7)),
        "GeneralizedNim(7, ...)": GeneralizedNim(7, [{1: 2, 2: math.inf}, {1: math.inf, 3: 1}]),
        "DotsAndBoxes()": own_games.DotsAndBoxes(),
        "PassOrTake(6)": own_games.PassOrTake(6),
    }
    for name, game in correct.items():
        t = time.perf_counter()
        report = check_game(game)  # the defaults: 60 games, time_limit 20 s
        seconds = time.perf_counter() - t
        times.append((seconds, f"correct, defaults: {name}"))
        if not getattr(report, "complete", True):
            print(f"  {name}: the time budget ran out ({report.games_checked} of {report.games} games)")
    times.sort(reverse=True)
    print("check_game's time, slowest first:")
    for seconds, name in times[:6]:
        print(f"  {seconds:6.2f} s  {name}")


def measure_linear():
    print("decoding time against input size (a history of n moves in the default codec):")

    class History:
        def initial_state(self):
            return ()

        def legal_moves(self, s):
            return [0]

    for n in (10_000, 100_000, 1_000_000):
        data = list(range(n))
        t = time.perf_counter()
        wire.state_from_json(History(), data)
        print(f"  n = {n:>9,}: {1000 * (time.perf_counter() - t):8.1f} ms")
    game, data = Nim((3, 5, 7)), [list(range(1_000_000)), 0]
    t = time.perf_counter()
    with contextlib.suppress(Exception):
        wire.state_from_json(game, data)
    print(f"  Nim piles of 1,000,000 items refused in {1000 * (time.perf_counter() - t):.2f} ms (the length first)")


if __name__ == "__main__":
    measure_decoders()
    measure_checker()
    measure_linear()
