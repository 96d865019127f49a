"""Seed 001, "TicTacToe recursive" (Java): the source's board encoding, ported literally.

The source stores a board as nine integers, 0 for an empty square, 1 for X and 4 for O (its
text says 2 for O, its code uses 4). A line summing to 3 is X's, to 12 is O's, and X is to move
when the sum of all cells is a multiple of 5. These functions do exactly that, so a notebook
can check the encoding against `gamekit.games.tictactoe` on every board, and show why the
text's value 2 would break both tests.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..games.tictactoe import EMPTY, LINES, Board, O, X
from ..protocol import check_int

__all__ = ["SOURCE_VALUES", "source_encoding", "source_winner", "source_x_to_move"]

#: The source's cell values (its code: O = 4).
SOURCE_VALUES = {EMPTY: 0, X: 1, O: 4}


def _check_o_value(o_value: object) -> int:
    return check_int(o_value, "o_value (the value of an O: 4 in the source's code, 2 in its text)", minimum=2)


def source_encoding(board: Board, o_value: int = 4) -> tuple[int, ...]:
    """The board as the source's nine integers: 0 empty, 1 X, `o_value` (4 in its code) O.

    `o_value` exists so the notebook can show why the source's *text* (which says O is 2)
    would not work with its line-sum test.
    """
    o_value = _check_o_value(o_value)
    if len(board) != 9 or any(c not in SOURCE_VALUES for c in board):
        raise ValueError(f"a board is nine cells of 'X', 'O' or '.', got {board!r}")
    return tuple({EMPTY: 0, X: 1, O: o_value}[c] for c in board)


def source_winner(cells: Sequence[int], o_value: int = 4) -> str | None:
    """The source's win test on integer cells: a line summing to 3 is X's, to 3*o_value is O's.

    Like the source it checks the lines in a fixed order and reports the first hit.
    """
    o_value = _check_o_value(o_value)
    if len(cells) != 9:
        raise ValueError(f"the source's board has nine cells, got {len(cells)}: {cells!r}")
    for a, b, c in LINES:
        total = cells[a] + cells[b] + cells[c]
        if total == 3:
            return X
        if total == 3 * o_value:
            return O
    return None


def source_x_to_move(cells: Sequence[int]) -> bool:
    """The source's turn test: X is to move when the sum of all cells is a multiple of 5."""
    if len(cells) != 9:
        raise ValueError(f"the source's board has nine cells, got {len(cells)}: {cells!r}")
    return sum(cells) % 5 == 0
