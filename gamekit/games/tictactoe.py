"""TicTacToe on the `Game` protocol.

A state is a tuple of nine cells, read row by row (index 0 top left, 8 bottom right), each
'X', 'O' or '.' (empty). X is player 0 and moves first; whose turn it is follows from the
number of marks, so the board alone is the state. A move is the index of an empty square.
"""
from __future__ import annotations

from typing import Sequence

from ..protocol import illegal_move

EMPTY, X, O = ".", "X", "O"
MARKS = (X, O)  # MARKS[player]

#: The eight lines of three: rows, columns, diagonals.
LINES = (
    (0, 1, 2), (3, 4, 5), (6, 7, 8),
    (0, 3, 6), (1, 4, 7), (2, 5, 8),
    (0, 4, 8), (2, 4, 6),
)

Board = tuple  # tuple of 9 strings


def winner(board: Board) -> str | None:
    """'X' or 'O' if that mark fills a line, else None."""
    for a, b, c in LINES:
        if board[a] != EMPTY and board[a] == board[b] == board[c]:
            return board[a]
    return None


def board_from_string(text: str) -> Board:
    """A board from nine characters such as 'X.O......' (spaces and '|' are ignored)."""
    cells = [ch for ch in text.upper() if ch in "XO.-_"]
    cells = [EMPTY if ch in "-_" else ch for ch in cells]
    if len(cells) != 9:
        raise ValueError(f"a board needs exactly 9 cells of 'X', 'O' or '.', got {len(cells)} in {text!r}")
    board = tuple(cells)
    nx, no = board.count(X), board.count(O)
    if nx - no not in (0, 1):
        raise ValueError(f"impossible board {text!r}: X moves first, so X has as many marks as O or one more "
                         f"(here X has {nx}, O has {no})")
    return board


def board_text(board: Board) -> str:
    """The board as three lines of text."""
    rows = [" | ".join(c if c != EMPTY else " " for c in board[r:r + 3]) for r in (0, 3, 6)]
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


class TicTacToe:
    """TicTacToe (German: *Tic-Tac-Toe* / *Drei gewinnt*) on the `Game` protocol.

    Player 0 is X and moves first. `start` may give a position to start from (a board
    tuple or a string such as 'X...O....').
    """

    def __init__(self, start: Board | str | None = None):
        if start is None:
            self.start = (EMPTY,) * 9
        elif isinstance(start, str):
            self.start = board_from_string(start)
        else:
            self.start = board_from_string("".join(start))

    def __repr__(self) -> str:
        return "TicTacToe()" if self.start == (EMPTY,) * 9 else f"TicTacToe({''.join(self.start)!r})"

    def initial_state(self) -> Board:
        return self.start

    def to_move(self, state: Board) -> int:
        return 0 if state.count(X) == state.count(O) else 1

    def legal_moves(self, state: Board) -> tuple[int, ...]:
        if winner(state) is not None:
            return ()
        return tuple(i for i, c in enumerate(state) if c == EMPTY)

    def play(self, state: Board, move: int) -> Board:
        if isinstance(move, bool) or not isinstance(move, int) or not 0 <= move < 9 \
                or state[move] != EMPTY or winner(state) is not None:
            raise illegal_move(move, state, self.legal_moves(state))
        mark = MARKS[self.to_move(state)]
        return state[:move] + (mark,) + state[move + 1:]

    def is_terminal(self, state: Board) -> bool:
        return winner(state) is not None or EMPTY not in state

    def utility(self, state: Board, player: int) -> float:
        w = winner(state)
        if w is None:
            if EMPTY in state:
                raise ValueError(f"utility is defined only at the end of the game, not at {''.join(state)!r}")
            return 0.0
        return 1.0 if w == MARKS[player] else -1.0
