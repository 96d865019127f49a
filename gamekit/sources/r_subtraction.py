"""The R script of source 000 (the subtraction game 3, 5, 11), ported literally, bugs included.

Each function mirrors one R function of the source line by line, so that the notebook can
run the source's own code and show where it goes wrong. R counts from 1; the ports keep the
source's indices where they matter (players 1 and 2) and say so. Randomness comes from a
`numpy.random.Generator` passed in (R uses its global generator), so every run can be
replayed. The course's own, correct code lives in `gamekit.games.subtraction`,
`gamekit.players` and `gamekit.match`; nothing there imports this module.

The bugs kept on purpose:

- `source_continue` loops `while(i < N)`, so N itself is never classified.
- `source_next_move_random` tests `if(n > 5 || n < 11)`, which is true for every n > 5, so
  its last branch (a uniform choice among 3, 5, 11 for n > 11) is dead: above 11 it picks
  only 3 or 5.
- `source_playout` pads its `course` vector with zeros (`vector(length = n %/% 3)`), so the
  printed course can end in zeros after the real last number; and its winner test
  `is.null(which(course < 0))` is never TRUE (`which` returns an empty vector, not NULL), so
  it always reports `idx`: correct when the game ended below 0, the loser when it ended at 0.
- `source_color_of_edge` classifies by `n %% 8` also for negative n, so the losing moves
  3 → -8, 4 → -7 and 5 → -6 get a red edge ("winning move found").
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, NamedTuple

import numpy as np

__all__ = [
    "SOURCE_D",
    "SourcePlayout",
    "r_is_null",
    "r_which",
    "source_color_of_edge",
    "source_colors_of_edges",
    "source_continue",
    "source_next_move_optimal",
    "source_next_move_prob",
    "source_next_move_random",
    "source_playout",
    "source_trim_course",
]

#: The source's line 1: `d <- c(3, 5, 11)`.
SOURCE_D = (3, 5, 11)

SourceStrategy = Callable[..., int]  # strategy(n, rng) -> the new n (the source returns n - d, not d)


# --- R's built-ins that the source's bugs hinge on -------------------------------------


def r_which(mask: Iterable[bool]) -> list[int]:
    """R's `which()`: the (1-based) positions where `mask` is TRUE; an EMPTY vector if none."""
    return [i + 1 for i, m in enumerate(mask) if m]


def r_is_null(x: Any) -> bool:
    """R's `is.null()`: TRUE only for NULL (Python's None), never for an empty vector."""
    return x is None


# --- "Berechnung der Gewinnzahlen": continue() ------------------------------------------


def source_continue(a: Sequence[int], b: Sequence[int], N: int, d: Sequence[int] = SOURCE_D) -> tuple[list, list]:
    """The source's `continue(a, b, N)`: extend the sets A (red) and B (blue) for i = 4 .. N-1.

    Literal, with the source's loop condition `while(i < N)`: N itself is not classified.
    """
    a, b = list(a), list(b)

    def test(n: int, set: Sequence[int]) -> bool:  # `set`: the source's argument name
        result = False
        if any(n - x in set for x in d):  # any(is.element(n - d, set = set))
            result = True
        return result

    i = 4
    while i < N:
        if test(i, set=a):
            b.append(i)
        else:
            a.append(i)
        i = i + 1
    return a, b


# --- the three strategies: nextMove.optimal, nextMove.random, nextMove.prob -------------


def source_next_move_optimal(n: int, rng: np.random.Generator | None = None) -> int:
    """The source's `nextMove.optimal(n)`: returns n - d with d from `switch(r + 1, 3, 3, 3, 3, 3, 3, 5, 5)`.

    `rng` is accepted (and ignored) so that every source strategy can be called as `f(n, rng)`.
    """
    if not n > 0:  # stopifnot(n > 0)
        raise ValueError(f"n > 0 is not TRUE (n = {n})")
    r = n % 8
    d_selected = (3, 3, 3, 3, 3, 3, 5, 5)[r]  # switch(EXPR = r + 1, ...): R counts from 1
    return n - d_selected


def source_next_move_random(n: int, rng: np.random.Generator) -> int:
    """The source's `nextMove.random(n)`, with its `||` bug: above 11 it subtracts only 3 or 5.

    The text says "for n > 11 one of 3, 5, 11 with probability 1/3"; the code's test
    `if(n > 5 || n < 11)` is TRUE for every n > 5, so the branch for n > 11 is never reached.
    """
    if not n > 0:  # stopifnot(n > 0)
        raise ValueError(f"n > 0 is not TRUE (n = {n})")
    d = SOURCE_D
    if n < 5:
        d_selected = 3
    else:
        if n == 5 or n == 11:
            d_selected = n
        else:
            if n > 5 or n < 11:  # the source: if(n > 5 || n < 11)  -- always TRUE here
                idx = int(rng.integers(1, 3))  # sample(x = (1:2), size = 1)
                d_selected = d[idx - 1]
            else:  # dead code: never reached
                idx = int(rng.integers(1, 4))  # sample(x = (1:3), size = 1)
                d_selected = d[idx - 1]
    return n - d_selected


def source_next_move_prob(n: int, rng: np.random.Generator, prob: float = 0.5) -> int:
    """The source's `nextMove.prob(n, prob = 0.5)`: optimal with probability `prob`, else random."""
    if not n > 0:  # stopifnot(n > 0)
        raise ValueError(f"n > 0 is not TRUE (n = {n})")
    next_move = [source_next_move_optimal, source_next_move_random]
    idx = 1
    x = rng.random()  # runif(n = 1)
    if x > prob:
        idx = 2
    return next_move[idx - 1](n, rng)


# --- the simulation: playout() -----------------------------------------------------------


class SourcePlayout(NamedTuple):
    """What `source_playout` returns: R's return value (1 or 2) and the `course` vector it printed."""

    winner: int  # what the source's code reports (1 = player1, 2 = player2); see the module docstring
    course: list  # the R vector, zero padding included


def source_playout(
    player1: SourceStrategy,
    player2: SourceStrategy,
    rng: np.random.Generator,
    *dots: Any,
    choices: Sequence[int] = range(20, 51),
) -> SourcePlayout:
    """The source's `playout(player1, player2, set = (20:50), ..., graph.output = FALSE)`.

    Literal: the start n is drawn from `choices` (R's `set`); `course` is created as an
    integer vector of length n %/% 3 (zeros) and filled move by move (R grows a vector
    assigned past its end); `dots` (R's `...`) are collected and never used, so
    `prob = 0.1` passed here never reaches the players. The winner test is the source's,
    `is.null(which(course < 0))`, which is never TRUE. Players are called as
    `player(n, rng)` (R's strategies take only n and use R's global generator).
    """
    player = [player1, player2]
    idx = 1  # idx gives the player who makes the next move (R counts from 1)

    n = int(rng.choice(list(choices)))  # sample(x = set, size = 1, replace = TRUE)
    course = [0] * (n // 3)  # vector(mode = "integer", length = n %/% 3)
    course[0] = n  # course[1] <- n
    cnt = 2

    while n > 0:
        n = player[idx - 1](n, rng)
        if cnt <= len(course):  # course[cnt] <- n  (R extends the vector when cnt is past its end)
            course[cnt - 1] = n
        else:
            course.append(n)
        cnt = cnt + 1
        idx = 3 - idx

    if r_is_null(r_which(c < 0 for c in course)):  # "game ends with n = 0" -- never TRUE
        return SourcePlayout(3 - idx, course)
    else:
        return SourcePlayout(idx, course)


# --- graph_output(): trimming the course and colouring its edges --------------------------

STATES_WIN = range(3, 8)  # STATES.WIN <- (3:7): "a win is possible"
STATES_LOSS = range(0, 3)  # STATES.LOSS <- (0:2)


def source_color_of_edge(n1: int, n2: int) -> str:
    """The source's `colorOfEdge(n1, n2)` inside `graph_output()`: classifies by n %% 8 only.

    R's `%%` and Python's `%` agree for a positive divisor (-8 %% 8 == 0), so a move into a
    negative number whose residue is 0, 1 or 2 (3 → -8, 4 → -7, 5 → -6) is coloured red.
    """
    color = "black"
    if n1 % 8 in STATES_WIN:  # a win is possible
        if n2 % 8 in STATES_LOSS:  # the winning move was found
            color = "red"
        else:
            color = "blue"  # the win was given away
    return color


def source_colors_of_edges(course: Sequence[int]) -> list[str]:
    """The source's `colorsOfEdges(course)`: one colour per consecutive pair of the course."""
    return [source_color_of_edge(course[i], course[i + 1]) for i in range(len(course) - 1)]


def source_trim_course(course: Sequence[int]) -> list[int]:
    """Step 1 of the source's `graph_output()`: cut the course after the first negative number,
    or, if there is none, after the first zero (`head(course, n = lgth)`).
    """
    lgth = r_which(c < 0 for c in course)
    if len(lgth) == 0:  # the game ends with n = 0
        lgth = [min(r_which(c == 0 for c in course))]
    return list(course[: lgth[0]])
