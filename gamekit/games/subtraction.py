"""The subtraction game (German: *Zahlenspiel 3, 5, 11*) and its number theory.

Rules (from the course's first source): a natural number n is written down; the players
take turns, the first player starts; a move subtracts one of the allowed numbers (3, 5 or
11) from n. Whoever reaches exactly 0 wins; whoever goes below 0 loses. Going below 0 is a
legal move, it just loses at once.

Besides the game itself this module holds its number theory: the *red* numbers (German:
*rote Zahlen*, the numbers you want to produce: the player to move there loses, a
P-position) and the *blue* numbers (*blaue Zahlen*, the ones to avoid), their period with
a finite proof, and the strategy table derived from that period.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, NamedTuple

import numpy as np

from ..i18n import _, pgettext
from ..protocol import GameBase, WireError, check_int, check_player, is_int, kind_name
from ..wire import json_int, json_list, json_player

__all__ = [
    "check_moves",
    "check_number",
    "MAX_N",
    "MAX_PERIOD_SEARCH",
    "MAX_SCAN_BYTES",
    "Periodicity",
    "periodicity",
    "red_blue",
    "RedBlue",
    "SOURCE_MOVES",
    "strategy_table",
    "StrategyRow",
    "StrategyTable",
    "SubtractionGame",
    "SubtractionState",
    "winning_moves",
]

#: Largest N for which `red_blue` builds its arrays (a few hundred MB of memory at the limit).
MAX_N = 10**8
#: How far `periodicity` looks for a repeating window before it gives up.
MAX_PERIOD_SEARCH = 2_000_000
#: Memory the window search may use (bytes, about max(moves) + 100 per number scanned): the
#: scan stops after MAX_SCAN_BYTES // (max(moves) + 100) numbers, so a set such as
#: (1, 100000) is refused at once instead of filling the memory.
MAX_SCAN_BYTES = 100_000_000

#: The source's subtraction set (`d <- c(3, 5, 11)`).
SOURCE_MOVES = (3, 5, 11)


def check_moves(moves: Iterable[int]) -> tuple[int, ...]:
    """Validate a subtraction set; return it sorted. Distinct positive integers only."""
    if isinstance(moves, (str, bytes)) or not hasattr(moves, "__iter__"):
        raise TypeError(f"moves must be a collection of positive integers such as (3, 5, 11), got {moves!r}")
    moves = list(moves)
    if not moves:
        raise ValueError("moves must not be empty: give at least one positive integer, e.g. (3, 5, 11)")
    for d in moves:
        if not is_int(d):
            raise TypeError(f"every move must be a whole number >= 1, got {d!r} in {moves!r}")
        if d <= 0:
            raise ValueError(f"every move must be a positive integer (1, 2, 3, ...), got {d!r} in {moves!r}")
    counts = Counter(int(d) for d in moves)
    if len(counts) != len(moves):
        repeated = sorted(d for d, c in counts.items() if c > 1)
        raise ValueError(f"moves must be distinct, but {repeated} appear more than once in {moves!r}")
    return tuple(sorted(counts))


def check_number(n: Any, what: str = "start") -> int:
    """Validate a non-negative whole number (a start value or a bound N)."""
    return check_int(n, what, minimum=0)


class SubtractionState(NamedTuple):
    """A position: the current number and the player to move (0 = A, 1 = B)."""

    n: int
    to_move: int = 0


class SubtractionGame(GameBase[SubtractionState, int]):
    """The subtraction game from `start` with the allowed subtractions `moves`.

    Follows the `Game` protocol. A state is a `SubtractionState(n, to_move)`; the game is
    over when n <= 0. At n == 0 the player who just moved has won; at n < 0 the player who
    just moved has lost. Every move is legal while the game runs, even one that goes below
    zero (it loses).
    """

    def __init__(self, start: int = 22, moves: Iterable[int] = SOURCE_MOVES):
        self._moves = check_moves(moves)
        self._start = check_number(start, "start")

    @property
    def moves(self) -> tuple[int, ...]:
        """The allowed subtractions, ascending (read-only: the game is a value)."""
        return self._moves

    @property
    def start(self) -> int:
        """The start number (read-only)."""
        return self._start

    def __repr__(self) -> str:
        return f"SubtractionGame(start={self.start}, moves={self.moves})"

    def rules(self) -> dict:
        """The rules as JSON-ready data (what a saved Q-table records)."""
        return {"game": kind_name(self, SubtractionGame), "start": self.start, "moves": list(self.moves)}

    def _key(self) -> tuple:  # games built alike are equal and hash alike (GameBase)
        return (self._start, self._moves)

    # --- the wire format (gamekit.wire): a state [n, to_move], a move the number taken ---
    def state_to_json(self, state: SubtractionState) -> list:
        return [int(state.n), int(state.to_move)]

    def state_from_json(self, data: Any) -> SubtractionState:
        """[n, player to move]; n is never below 1 - max(moves) (a move is made only from n >= 1)."""
        what = "SubtractionGame: the state"
        n, to_move = json_list(data, what, "a list [n, player to move] such as [22, 0]", 2, WireError)
        lowest = 1 - self.moves[-1]
        n = json_int(n, f"{what}'s n", minimum=lowest, error=WireError)
        return SubtractionState(n, json_player(to_move, f"{what}'s player to move"))

    def move_to_json(self, move: int) -> int:
        return int(move)

    def move_from_json(self, data: Any) -> int:
        return json_int(data, "SubtractionGame: a move (the number subtracted)")

    def describe_state(self, state: SubtractionState) -> str:
        return f"n = {state.n}, player {state.to_move} to move"

    def initial_state(self) -> SubtractionState:
        return SubtractionState(self.start, 0)

    def to_move(self, state: SubtractionState) -> int:
        return state.to_move

    def legal_moves(self, state: SubtractionState) -> tuple[int, ...]:
        return () if state.n <= 0 else self.moves

    def play(self, state: SubtractionState, move: int) -> SubtractionState:
        if not is_int(move):
            raise self.refuse(state, move, self.legal_moves(state), "a whole number")
        if state.n <= 0 or move not in self.moves:
            raise self.refuse(state, move, self.legal_moves(state))
        return SubtractionState(state.n - int(move), 1 - state.to_move)

    def is_terminal(self, state: SubtractionState) -> bool:
        return state.n <= 0

    def utility(self, state: SubtractionState, player: int) -> float:
        if state.n > 0:
            raise ValueError(f"utility is defined only at the end of the game, not at {state!r}")
        player = check_player(player)
        just_moved = 1 - state.to_move
        winner = just_moved if state.n == 0 else state.to_move
        return 1.0 if player == winner else -1.0

    def state(self, n: int, to_move: int = 0) -> SubtractionState:
        """A state with number `n` and player `to_move` to move (for analysis; n <= 0 is a finished game)."""
        return SubtractionState(check_int(n, "n"), check_player(to_move, "to_move"))

    def random_start(self, rng: np.random.Generator, low: int = 20, high: int = 50) -> SubtractionState:
        """A start drawn with `rng`: n uniform in low..high (inclusive), player 0 to move.

        The source's playout starts every game this way (`sample(20:50, 1)`), so matches and
        tournaments that want varied starts ask the game for one (optional protocol method).
        """
        if not isinstance(rng, np.random.Generator):
            raise TypeError(f"rng must be a numpy Generator (numpy.random.default_rng(seed)), got {rng!r}")
        low, high = check_number(low, "low"), check_number(high, "high")
        if low > high:
            raise ValueError(f"low must not exceed high, got {low}..{high}")
        return SubtractionState(int(rng.integers(low, high + 1)), 0)


# --------------------------------------------------------------------------------------
# Red and blue numbers
# --------------------------------------------------------------------------------------


def _scan(moves: tuple[int, ...], stop: int) -> tuple[bytearray, int | None, int | None]:
    """Outcomes for n = 0, 1, ... (1 = red) until a window repeats or `stop` numbers are done.

    The colour of n depends only on the colours of n-1, ..., n-k (k = max(moves)), with
    numbers below zero counted as "not red" (moving there loses). So the k colours before n
    (the *window* at n) decide everything that follows. Returns the colours computed and,
    if a window repeated, the first position `a` of that window and its repeat `b`.
    """
    k = moves[-1]
    colours = bytearray(k)  # padding: the k numbers below zero are never red
    seen: dict[bytes, int] = {bytes(colours): 0}
    for n in range(stop):
        red = 1
        for d in moves:
            if colours[n + k - d]:
                red = 0  # a move reaches a red number, so n is blue
                break
        colours.append(red)
        window = bytes(colours[n + 1 : n + 1 + k])
        if window in seen:
            return colours[k:], seen[window], n + 1
        seen[window] = n + 1
    return colours[k:], None, None


@dataclass(frozen=True)
class Periodicity:
    """The colours of a subtraction set repeat with `period` from `preperiod` on.

    The proof is finite: the window of k = max(moves) colours before `first` equals the
    window before `second`; since each colour depends only on the window before it, the
    colours after both windows agree forever, so period = second - first.
    """

    moves: tuple[int, ...]
    period: int
    preperiod: int
    first: int
    second: int
    window: tuple[int, ...] = field(repr=False)
    pattern: tuple[int, ...] = field(repr=False)  # colours of preperiod .. preperiod+period-1
    prefix: tuple[int, ...] = field(default=(), repr=False)  # colours of 0 .. preperiod-1

    def is_red(self, n: int) -> bool:
        """The colour of any n >= 0, in constant time."""
        n = check_number(n, "n")
        if n < self.preperiod:
            prefix = self.prefix or tuple(_prefix(self.moves, self.preperiod))
            return bool(prefix[n])
        return bool(self.pattern[(n - self.preperiod) % self.period])

    def verify(self) -> bool:
        """Re-check the certificate: run the rule from `window` and see it come back."""
        k = self.moves[-1]
        colours = list(self.window)
        for _step in range(self.period):
            i = len(colours)
            colours.append(int(not any(colours[i - d] for d in self.moves)))
        return tuple(colours[-k:]) == self.window


def _prefix(moves: tuple[int, ...], count: int) -> bytearray:
    colours = bytearray(moves[-1]) + bytearray(count)
    k = moves[-1]
    for n in range(count):
        colours[n + k] = not any(colours[n + k - d] for d in moves)
    return colours[k:]


def periodicity(moves: Iterable[int] = SOURCE_MOVES) -> Periodicity:
    """Find the period and pre-period of the red/blue colours of a subtraction set, with proof."""
    return _periodicity(check_moves(moves))


def _scan_limit(moves: tuple[int, ...]) -> int:
    """How many numbers the window search may scan: MAX_PERIOD_SEARCH, and less for large moves."""
    return min(MAX_PERIOD_SEARCH, MAX_SCAN_BYTES // (moves[-1] + 100))


@lru_cache(maxsize=256)
def _periodicity(moves: tuple[int, ...]) -> Periodicity:
    limit = _scan_limit(moves)
    colours, a, b = _scan(moves, limit)
    if a is None or b is None:
        raise ValueError(
            f"no repeating window found among the first {limit:,} numbers for moves {moves}: the search "
            f"stops after min(MAX_PERIOD_SEARCH={MAX_PERIOD_SEARCH:,}, MAX_SCAN_BYTES // (max(moves) + 100)) "
            "numbers to stay within memory; allowed: sets whose period shows up within that limit "
            "(small moves, e.g. max(moves) <= 1000)"
        )
    k = moves[-1]
    period = b - a
    start = max(a - k, 0)  # the window at a covers a-k .. a-1, so colours agree from there on
    full = _prefix(moves, start + 2 * period + k)
    while start > 0 and full[start - 1] == full[start - 1 + period]:
        start -= 1
    padded = bytearray(k) + full
    window = tuple(padded[a : a + k])
    pattern = tuple(full[start : start + period])
    return Periodicity(moves, period, start, a, b, window, pattern, tuple(full[:start]))


@dataclass(frozen=True)
class RedBlue:
    """The red and blue numbers 0..N of a subtraction set (the source's sets A and B)."""

    moves: tuple[int, ...]
    N: int
    is_red: np.ndarray = field(repr=False)  # boolean array, index n

    @property
    def red(self) -> list[int]:
        """Numbers you want to produce: the player to move there loses (set A)."""
        return np.flatnonzero(self.is_red).tolist()

    @property
    def blue(self) -> list[int]:
        """Numbers to avoid producing: the player to move there can force a win (set B)."""
        return np.flatnonzero(~self.is_red).tolist()

    def colour(self, n: int) -> str:
        """'red' or 'blue' for 0 <= n <= N."""
        n = check_int(n, "n", minimum=0, maximum=self.N)
        return "red" if self.is_red[n] else "blue"


def red_blue(N: int, moves: Iterable[int] = SOURCE_MOVES) -> RedBlue:
    """Colour every number 0..N (inclusive) red or blue, in time linear in N.

    Works forwards from 0 as the source's backward construction does, stops as soon as a
    window of max(moves) colours repeats (the colours are then periodic) and fills the rest
    by repeating the period.
    """
    moves = check_moves(moves)
    N = check_number(N, "N")
    if N > MAX_N:
        raise ValueError(
            f"N={N:,} is too large for memory here (one byte per number); allowed: N <= {MAX_N:,}. "
            "Use periodicity(moves).is_red(n) for the colour of a single large n."
        )
    colours, a, b = _scan(moves, min(N + 1, _scan_limit(moves)))
    if len(colours) >= N + 1:
        return RedBlue(moves, N, np.frombuffer(bytes(colours[: N + 1]), dtype=np.uint8).astype(bool))
    if a is None or b is None:
        raise ValueError(
            f"no period found for moves {moves} among the first {len(colours):,} numbers (the memory limit "
            f"MAX_SCAN_BYTES={MAX_SCAN_BYTES:,}), so N={N:,} cannot be filled in; allowed here: N < {len(colours):,}"
        )
    period = b - a
    known = np.frombuffer(bytes(colours), dtype=np.uint8).astype(bool)
    cycle = known[-period:]  # the last `period` colours repeat from here on
    reps = (N + 1 - len(known)) // period + 1
    rest = np.tile(cycle, reps)[: N + 1 - len(known)]
    return RedBlue(moves, N, np.concatenate([known, rest]))


def winning_moves(n: int, moves: Iterable[int] = SOURCE_MOVES) -> tuple[int, ...]:
    """The moves from n that produce a red number (empty when n itself is red)."""
    moves = check_moves(moves)
    n = check_number(n, "n")
    p = periodicity(moves)
    return tuple(d for d in moves if n - d >= 0 and p.is_red(n - d))


# --------------------------------------------------------------------------------------
# The strategy table (the source's table 2), derived for any set
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class StrategyRow:
    residue: int
    red: bool
    moves: tuple[int, ...]  # winning moves for every large n in this class
    exceptions: tuple[tuple[int, tuple[int, ...]], ...]  # (n, its winning moves) for small n that differ


@dataclass(frozen=True)
class StrategyTable:
    """Which number to subtract, by n modulo the period (valid for all n, exceptions listed)."""

    moves: tuple[int, ...]
    period: int
    preperiod: int
    rows: tuple[StrategyRow, ...]

    def move_for(self, n: int) -> int | None:
        """The smallest winning move for n, or None when n is red (no win can be forced)."""
        found = winning_moves(n, self.moves)
        return found[0] if found else None

    def _heads(self) -> tuple[str, str, str, str]:
        """The table's column heads, in the language in force."""
        return (
            f"n mod {self.period}",
            pgettext("strategy table head", "colour"),
            # TRANSLATORS: the head of the column that says which number to subtract (3 or 11)
            pgettext("strategy table head", "subtract"),
            # TRANSLATORS: the head of the column that lists the small numbers n whose best moves differ from the rule
            pgettext("strategy table head", "small n that differ"),
        )

    def _lines(self) -> list[tuple[str, str, str, str]]:
        """The table's rows as text, in the language in force."""
        # TRANSLATORS: between two moves a player may choose: "3 or 11"
        either = " " + pgettext("between moves", "or") + " "
        red, blue = pgettext("colour of a number", "red"), pgettext("colour of a number", "blue")
        lines = []
        for row in self.rows:
            if row.red:
                # TRANSLATORS: the strategy table's cell for a red number: no move wins
                win = _("–  (red: no win can be forced)")
            else:
                win = either.join(str(d) for d in row.moves)
            exc = "; ".join(f"n={n}: {either.join(map(str, ms)) if ms else '–'}" for n, ms in row.exceptions)
            lines.append((str(row.residue), red if row.red else blue, win, exc))
        return lines

    def __str__(self) -> str:
        head = " | ".join(self._heads())
        body = [" | ".join(line) for line in self._lines()]
        return "\n".join([head, "-" * len(head), *body])

    def _repr_html_(self) -> str:
        heads = "".join(f"<th>{h}</th>" for h in self._heads())
        cells = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in line) + "</tr>" for line in self._lines())
        return f"<table><thead><tr>{heads}</tr></thead><tbody>{cells}</tbody></table>"


def strategy_table(moves: Iterable[int] = SOURCE_MOVES) -> StrategyTable:
    """Derive the strategy table for any subtraction set from its period.

    For each residue class of n modulo the period: is n red, and which moves produce a red
    number. The class rule is exact for n >= preperiod + max(moves); smaller n whose winning
    moves differ (a move that would go below zero, or the pre-period) are listed as exceptions.
    """
    moves = check_moves(moves)
    p = periodicity(moves)
    k = moves[-1]
    settled = p.preperiod + k  # from here on every n - d >= preperiod
    rows = []
    for r in range(p.period):
        n0 = settled + ((r - settled) % p.period)
        general = tuple(d for d in moves if p.is_red(n0 - d))
        exceptions = []
        for n in range(r, settled, p.period):
            actual = tuple(d for d in moves if n - d >= 0 and p.is_red(n - d))
            if actual != general and not (p.is_red(n) and not actual and not general):
                exceptions.append((n, actual))
        rows.append(StrategyRow(r, p.is_red(n0), general, tuple(exceptions)))
    return StrategyTable(moves, p.period, p.preperiod, tuple(rows))
