"""Generalised Nim (chapter 5): what memoisation and pruning save, in calls and in time.

Plain MinMax (the game tree), the project's MinMax with its dictionary of known positions,
alpha-beta, and alpha-beta with a transposition table, on the same games in the same process,
so the ratios against the plain baseline mean something on any machine.

    python benchmarks/generalized_nim.py
"""

from __future__ import annotations

import math
import time

from gamekit import GeneralizedNim, TranspositionTable, alphabeta, minimax, source_minmax

INF = math.inf


def timed(fn):
    t = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t


def main() -> None:
    games = [
        GeneralizedNim(22, {1: INF, 2: INF}),
        GeneralizedNim(18, {1: INF, 2: INF, 3: INF}),
        GeneralizedNim(24, [{1: 4, 2: INF, 3: 2}, {1: INF, 2: 3, 4: INF}]),
    ]
    for g in games:
        print(g)
        plain, t_plain = timed(lambda: source_minmax(g, memo=False))
        memo, t_memo = timed(lambda: source_minmax(g, memo=True))
        ab, t_ab = timed(lambda: alphabeta(g))
        abt, t_abt = timed(lambda: alphabeta(g, table=TranspositionTable()))
        mm, t_mm = timed(lambda: minimax(g))
        assert plain.value == memo.value == ab.value == abt.value == mm.value
        rows = [
            ("source MinMax (no memo)", plain.calls, t_plain),
            ("source MinMax + memo dict", memo.calls, t_memo),
            ("gamekit.minimax", mm.nodes, t_mm),
            ("alpha-beta", ab.nodes, t_ab),
            ("alpha-beta + table", abt.nodes, t_abt),
        ]
        for name, nodes, t in rows:
            print(f"  {name:24} {nodes:>12,} nodes {t * 1e3:10.1f} ms  ({t_plain / t:8.1f}x faster than plain)")
        print(f"  value {plain.value:+.0f}")


if __name__ == "__main__":
    main()
