"""Red and blue numbers: gamekit's linear-time `red_blue` against the source's method.

The source's R script grows two vectors and, for every i, tests membership of i - d in the
red vector (`is.element`), which costs time proportional to the vector: quadratic overall.
Both are run here in the same process, so the ratio means something on any machine.

    python benchmarks/red_blue.py
"""

from __future__ import annotations

import time

from gamekit import red_blue


def seed_method(N: int, d=(3, 5, 11)) -> tuple[list[int], list[int]]:
    """The source's algorithm in Python: lists grown one number at a time, membership by scan."""
    A, B = [0, 1, 2], [3]
    for i in range(4, N + 1):
        if any((i - x) in A for x in d):
            B.append(i)
        else:
            A.append(i)
    return A, B


def best_of(fn, repeat=5):
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def main() -> None:
    big = 10**6
    t_big = best_of(lambda: red_blue(big))
    print(f"red_blue(N=10^6):             {t_big * 1e3:8.2f} ms  ({len(red_blue(big).red):,} red numbers)")
    from gamekit.games.subtraction import _prefix

    t_loop = best_of(lambda: _prefix((3, 5, 11), big + 1), repeat=2)
    print(f"the same without the period shortcut (plain linear loop): {t_loop * 1e3:8.1f} ms")
    for N in (2_000, 20_000):
        A, _ = seed_method(N)
        assert red_blue(N).red == A, "the two methods disagree"
        t_seed = best_of(lambda: seed_method(N), repeat=2)
        t_ours = best_of(lambda: red_blue(N))
        print(
            f"N={N:>6,}: source's method {t_seed * 1e3:9.2f} ms, red_blue {t_ours * 1e3:7.3f} ms, "
            f"ratio {t_seed / t_ours:,.0f}x"
        )
    t_plain = best_of(lambda: [n % 8 <= 2 for n in range(big + 1)], repeat=3)
    print(
        f"for scale: a plain Python list comprehension over 10^6 numbers takes {t_plain * 1e3:.1f} ms "
        f"({t_plain / t_big:.1f}x red_blue)"
    )


if __name__ == "__main__":
    main()
