"""Counting every TicTacToe game: the plain recursion against the memoised count.

Prints the time of each (best of several runs, each starting with an empty `winner` cache)
and their ratio. Goal: the memoised count of all 255,168 games in <= 20 ms and at least
20x faster than the plain recursion.

    .venv/bin/python benchmarks/count_tictactoe.py
"""

from __future__ import annotations

import time

from gamekit import TicTacToe
from gamekit.counting import count_outcomes, count_outcomes_plain
from gamekit.games.tictactoe import winner


def best_time(fn, repeats: int) -> tuple[float, object]:
    best, result = float("inf"), None
    for _ in range(repeats):
        winner.cache_clear()  # no help from an earlier run
        start = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - start)
    return best, result


def main() -> None:
    game = TicTacToe()
    plain_s, plain = best_time(lambda: count_outcomes_plain(game), 3)
    memo_s, memo = best_time(lambda: count_outcomes(game), 20)
    assert plain == memo, (plain, memo)
    print(f"games counted: {memo.total:,} (X {memo.p0_wins:,} / O {memo.p1_wins:,} / draws {memo.draws:,})")
    print(f"plain recursion : {plain_s * 1000:9.1f} ms")
    print(f"memoised count  : {memo_s * 1000:9.1f} ms")
    print(f"ratio           : {plain_s / memo_s:9.1f}x faster")


if __name__ == "__main__":
    main()
