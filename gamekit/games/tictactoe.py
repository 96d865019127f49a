"""TicTacToe on the `Game` protocol.

A state is a tuple of nine cells, read row by row (index 0 top left, 8 bottom right), each
'X', 'O' or '.' (empty). X is player 0 and moves first; whose turn it is follows from the
number of marks, so the board alone is the state. A move is the index of an empty square.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from ..protocol import GameBase, Winner, WireError
from ..wire import json_int, refuse

__all__ = [
    "Board",
    "BITBOARD",
    "Bitboard",
    "board_from_string",
    "board_text",
    "canonical",
    "game_classes_up_to_symmetry",
    "games_in_symmetry_reduced_tree",
    "h1",
    "h1_scaled",
    "LINES",
    "lines_order",
    "MARKS",
    "open_lines",
    "SYMMETRIES",
    "TicTacToe",
    "winner",
    "winning_line",
    "winning_mark",
]

EMPTY, X, O = ".", "X", "O"
MARKS = (X, O)  # MARKS[player]

#: The eight lines of three: rows, columns, diagonals.
LINES = (
    (0, 1, 2),
    (3, 4, 5),
    (6, 7, 8),
    (0, 3, 6),
    (1, 4, 7),
    (2, 5, 8),
    (0, 4, 8),
    (2, 4, 6),
)

Board = tuple  # tuple of 9 strings


# --- the bitboard form (the fast search's view of the rules) -------------------------------------


@dataclass(frozen=True)
class Bitboard:
    """TicTacToe's rules as bit masks, for a search that works on integers (`gamekit.mcts_fast`).

    A board is two 9-bit integers, one per player (bit i = square i). wins[bits] is True when the
    squares `bits` hold a full line; empties[occupied] lists the empty squares ascending (the
    protocol's legal-move order); full is the occupancy of a full board; `bits(board)` reads a
    board tuple.
    """

    wins: tuple[bool, ...]
    empties: tuple[tuple[int, ...], ...]
    full: int

    def bits(self, board: Sequence[str]) -> tuple[int, int, int, int]:
        """(X bits, O bits, player to move, winner code) of a board tuple of 'X', 'O', '.';
        winner code 0 or 1 for that player's line, 2 for a draw, -1 while the game goes on."""
        if len(board) != 9 or any(c not in (X, O, EMPTY) for c in board):
            raise ValueError(f"a TicTacToe board is 9 cells of 'X', 'O' or '.', got {board!r}")
        xb = sum(1 << i for i, c in enumerate(board) if c == X)
        ob = sum(1 << i for i, c in enumerate(board) if c == O)
        nx, no = bin(xb).count("1"), bin(ob).count("1")
        if nx - no not in (0, 1):
            raise ValueError(f"impossible board {''.join(board)!r}: X has {nx} marks, O has {no}")
        status = 0 if self.wins[xb] else 1 if self.wins[ob] else 2 if xb | ob == self.full else -1
        return xb, ob, nx - no, status


_LINE_MASKS = tuple(sum(1 << i for i in line) for line in LINES)
#: TicTacToe's bitboard form (`Bitboard`), made from `LINES`.
BITBOARD = Bitboard(
    wins=tuple(any(bits & m == m for m in _LINE_MASKS) for bits in range(512)),
    empties=tuple(tuple(i for i in range(9) if not occ >> i & 1) for occ in range(512)),
    full=511,
)


def winning_mark(board: Board) -> str | None:
    """'X' or 'O' if that mark fills a line, else None (the mark; `winner` gives the player).

    Remembered per board (there are only 5,478 legal ones), because every search of the
    course asks this question again and again for the same boards. `winning_mark.cache_clear()`
    (or `winner.cache_clear()`) forgets (benchmarks use it to time a cold start).
    """
    try:
        return _winner_memo(board)
    except TypeError:  # an unhashable board such as a list: answer without the memo
        return _winner_memo.__wrapped__(tuple(board))


@lru_cache(maxsize=1 << 16)
def _winner_memo(board: Board) -> str | None:
    for a, b, c in LINES:
        if board[a] != EMPTY and board[a] == board[b] == board[c]:
            return board[a]
    return None


def winner(board: Board) -> Winner:
    """The player who has three in a line: 0 (X), 1 (O), or None (nobody, yet or in a draw).

    The same type as `GameRecord.winner` and every other `winner` in gamekit
    (`gamekit.protocol.Winner`); `winning_mark` gives the mark instead.
    """
    mark = winning_mark(board)
    return None if mark is None else MARKS.index(mark)


winning_mark.cache_clear = _winner_memo.cache_clear  # type: ignore[attr-defined]
winner.cache_clear = _winner_memo.cache_clear  # type: ignore[attr-defined]


def winning_line(board: Sequence[str]) -> tuple | None:
    """The three squares of the completed line (the first in `LINES`), or None."""
    for line in LINES:
        a, b, c = line
        if board[a] != EMPTY and board[a] == board[b] == board[c]:
            return line
    return None


def board_from_string(text: str) -> Board:
    """A board from nine characters such as 'X.O......' (spaces and '|' are ignored).

    Refused: anything but a string, another number of cells, mark counts that X-first play cannot
    give, and boards where both players have a line (the game ends at the first line)."""
    if not isinstance(text, str):
        raise TypeError(
            f"a board is a string of 9 cells of 'X', 'O' and '.', such as 'X...O....'; got {type(text).__name__}"
        )
    cells = [ch for ch in text.upper() if ch in "XO.-_"]
    cells = [EMPTY if ch in "-_" else ch for ch in cells]
    if len(cells) != 9:
        raise ValueError(f"a board needs exactly 9 cells of 'X', 'O' or '.', got {len(cells)} in {text!r}")
    board = tuple(cells)
    nx, no = board.count(X), board.count(O)
    if nx - no not in (0, 1):
        raise ValueError(
            f"impossible board {text!r}: X moves first, so X has as many marks as O or one more "
            f"(here X has {nx}, O has {no})"
        )
    lines = {board[a] for a, b, c in LINES if board[a] != EMPTY and board[a] == board[b] == board[c]}
    if lines == {X, O}:
        raise ValueError(f"impossible board {text!r}: both X and O have a line; the game ends at the first line")
    return board


@lru_cache(maxsize=64)
def _reachable(start: Board) -> frozenset:
    """Every board that play can reach from `start` (5,478 from the empty board): what a decoder accepts."""
    seen, frontier = {start}, [start]
    while frontier:
        board = frontier.pop()
        if winning_mark(board) is not None:
            continue
        mark = X if board.count(EMPTY) % 2 else O
        for i, c in enumerate(board):
            if c == EMPTY:
                child = board[:i] + (mark,) + board[i + 1 :]
                if child not in seen:
                    seen.add(child)
                    frontier.append(child)
    return frozenset(seen)


def board_text(board: Board) -> str:
    """The board as three lines of text."""
    rows = [" | ".join(c if c != EMPTY else " " for c in board[r : r + 3]) for r in (0, 3, 6)]
    return "\n---------\n".join(rows)


# The eight symmetries of the square, as permutations: new[i] = old[perm[i]].
_ROT = (6, 3, 0, 7, 4, 1, 8, 5, 2)
_FLIP = (2, 1, 0, 5, 4, 3, 8, 7, 6)


def _compose(p: Sequence[int], q: Sequence[int]) -> tuple:
    return tuple(p[q[i]] for i in range(9))


def _symmetries() -> tuple:
    ident = tuple(range(9))
    rots = [ident]
    for _ in range(3):
        rots.append(_compose(rots[-1], _ROT))
    return tuple(rots + [_compose(r, _FLIP) for r in rots])


SYMMETRIES = _symmetries()


def canonical(board: Board) -> Board:
    """The smallest of the eight symmetric images of `board` (one representative per class)."""
    return min(tuple(board[p[i]] for i in range(9)) for p in SYMMETRIES)


class TicTacToe(GameBase[Board, int]):
    """TicTacToe (German: *Tic-Tac-Toe* / *Drei gewinnt*) on the `Game` protocol.

    Player 0 is X and moves first. `start` may give a position to start from (a board
    tuple or a string such as 'X...O....').
    """

    def __init__(self, start: Board | str | None = None):
        if start is None:
            self.start = (EMPTY,) * 9
        elif isinstance(start, str):
            self.start = board_from_string(start)
        elif isinstance(start, (tuple, list)) and all(isinstance(c, str) for c in start):
            self.start = board_from_string("".join(start))
        else:
            raise TypeError(
                "start must be None, a string such as 'X...O....' or a tuple of 9 marks 'X', 'O', '.'; "
                f"got {type(start).__name__} {start!r}"
            )

    def _key(self) -> tuple:  # games built alike are equal and hash alike (GameBase)
        return (self.start,)

    def __repr__(self) -> str:
        return "TicTacToe()" if self.start == (EMPTY,) * 9 else f"TicTacToe({''.join(self.start)!r})"

    # --- the wire format (gamekit.wire): a board as its 9 characters, a move as its square ---
    def state_to_json(self, state: Board) -> str:
        return "".join(state)

    def state_from_json(self, data: Any) -> Board:
        """The board as its 9 characters; only a board that play from this game's start can reach."""
        what = "TicTacToe: the state"
        if not isinstance(data, str) or len(data) != 9 or set(data) - {X, O, EMPTY}:
            raise refuse(what, "a string of 9 characters 'X', 'O' or '.' such as 'X...O....'", data)
        board = tuple(data)
        if board not in _reachable(self.start):
            try:
                board_from_string(data)  # the reason, when it is one of the simple ones
            except ValueError as exc:
                raise WireError(f"{what}: {exc}") from None
            raise WireError(f"{what}: the board {data!r} cannot be reached by play from {''.join(self.start)!r}")
        return board

    def move_to_json(self, move: int) -> int:
        return int(move)

    def move_from_json(self, data: Any) -> int:
        return json_int(data, "TicTacToe: a move (a square 0..8)")

    def describe_state(self, state: Board) -> str:
        return board_text(state)

    def initial_state(self) -> Board:
        return self.start

    def to_move(self, state: Board) -> int:
        return 0 if state.count(EMPTY) % 2 else 1  # X moves when an odd number of squares is free

    def legal_moves(self, state: Board) -> tuple[int, ...]:
        if len(state) != 9:
            raise ValueError(f"a TicTacToe state has 9 squares, got {len(state)}: {state!r}")
        if winning_mark(state) is not None:
            return ()
        return tuple(i for i, c in enumerate(state) if c == EMPTY)

    def play(self, state: Board, move: int) -> Board:
        if type(move) is not int and isinstance(move, numbers.Integral) and not isinstance(move, bool):
            move = int(move)  # a numpy integer is the square it stands for
        if (
            type(move) is not int or not 0 <= move < 9 or state[move] != EMPTY or winning_mark(state) is not None
        ):  # (type(True) is bool, so True/False are refused too)
            raise self.refuse(state, move, self.legal_moves(state))
        mark = X if state.count(EMPTY) % 2 else O
        return state[:move] + (mark,) + state[move + 1 :]

    def is_terminal(self, state: Board) -> bool:
        return winning_mark(state) is not None or EMPTY not in state

    def utility(self, state: Board, player: int) -> float:
        w = winner(state)
        if w is None:
            if EMPTY in state:
                raise ValueError(f"utility is defined only at the end of the game, not at {''.join(state)!r}")
            return 0.0
        return 1.0 if w == player else -1.0


# --- heuristics and move orders for search (passed to gamekit.search as arguments) -----------


def open_lines(board: Sequence[str], mark: str) -> int:
    """How many of the 8 lines `mark` could still complete (no opposing mark in them)."""
    if mark not in MARKS:
        raise ValueError(f"mark must be 'X' or 'O', got {mark!r}")
    other = O if mark == X else X
    return sum(1 for line in LINES if all(board[i] != other for i in line))


def h1(game: Any, state: Sequence[str]) -> int:
    """The seminar's heuristic h1 = open lines for X - open lines for O (X's view).

    Takes `game` only to have the signature `evaluate(game, state)` that searches call.
    """
    return open_lines(state, X) - open_lines(state, O)


def h1_scaled(game: Any, state: Sequence[str]) -> float:
    """h1 / 10: the same order as h1, but strictly between -1 and +1, so a real win (+1) or
    loss (-1) always counts more than any estimate. Use this one in depth-limited play."""
    return h1(game, state) / 10


_LINES_THROUGH = {i: (-sum(i in line for line in LINES), i) for i in range(9)}  # more lines first


def lines_order(game: Any, state: Sequence[str], moves: Sequence[int]) -> list[int]:
    """The classic static move order: squares on more lines first (centre 4 lines, corners 3,
    edges 2), ties by square. Cheap, and it cuts alpha-beta's work several times over."""
    return sorted(moves, key=_LINES_THROUGH.__getitem__)


lines_order.permutation = True  # type: ignore[attr-defined]  # it only sorts: gamekit.search need not check


# --- games up to symmetry: two different definitions ---------------------------------------


def _permute(board: Board, perm: Sequence[int]) -> Board:
    return tuple(board[perm[i]] for i in range(9))


def game_classes_up_to_symmetry(game: TicTacToe | None = None) -> int:
    """Whole games (move sequences) counted once per class of symmetric images: 31,896 from the start.

    Two games are the same when one symmetry of the square maps every move of one onto the
    corresponding move of the other. Counted with Burnside's lemma: the number of classes
    is the average, over the symmetries g that fix the start, of the games that g maps
    onto themselves (games played only on squares that g leaves in place).
    """
    game = TicTacToe() if game is None else game
    start = game.initial_state()
    group = [p for p in SYMMETRIES if _permute(start, p) == start]
    fixed_total = 0
    for perm in group:  # the identity fixes every square, so it counts every game
        still = {i for i in range(9) if perm[i] == i}
        memo: dict = {}

        def paths(s: Board) -> int:
            if s not in memo:
                memo[s] = (
                    1 if game.is_terminal(s) else sum(paths(game.play(s, m)) for m in game.legal_moves(s) if m in still)
                )
            return memo[s]

        fixed_total += paths(start)
    return fixed_total // len(group)


def games_in_symmetry_reduced_tree(game: TicTacToe | None = None) -> int:
    """Games in the tree where, at every position, moves leading to symmetric positions are merged: 26,830.

    This is what you count if you only ever play one move of each symmetric kind (e.g. 3
    first moves instead of 9): paths from the start to an end in the graph of positions
    taken up to symmetry.
    """
    game = TicTacToe() if game is None else game
    memo: dict = {}

    def paths(s: Board) -> int:
        key = canonical(s)
        if key not in memo:
            children = {canonical(game.play(s, m)): game.play(s, m) for m in game.legal_moves(s)}
            memo[key] = 1 if game.is_terminal(s) else sum(paths(c) for c in children.values())
        return memo[key]

    return paths(game.initial_state())
