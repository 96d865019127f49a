"""Games written as a student would for chapter 10, with turn orders the course's own games lack.

`DotsAndBoxes` (1 x 2 boxes): completing a box gives the mover another turn, so a player may move
twice in a row. `PassOrTake`: a take-away game where a player may pass once per game, so the same
player can be to move in two consecutive positions only through the opponent's choice.
"""

from __future__ import annotations

from dataclasses import dataclass

from gamekit import IllegalMoveError

# The seven lines of a 1 x 2 board: 0-1 top, 2-3 bottom (horizontal), 4-6 vertical (left to right).
BOXES = ((0, 2, 4, 5), (1, 3, 5, 6))


@dataclass(frozen=True)
class DotsState:
    lines: tuple[bool, ...] = (False,) * 7
    score: tuple[int, int] = (0, 0)
    player: int = 0


class DotsAndBoxes:
    """Dots and Boxes on 1 x 2 boxes: draw a line; close a box, score it and move again."""

    def initial_state(self) -> DotsState:
        return DotsState()

    def to_move(self, state: DotsState) -> int:
        return state.player

    def legal_moves(self, state: DotsState) -> tuple[int, ...]:
        return tuple(i for i, drawn in enumerate(state.lines) if not drawn)

    def play(self, state: DotsState, move: int) -> DotsState:
        if move not in self.legal_moves(state):
            raise IllegalMoveError(f"line {move!r} is not free; free lines: {self.legal_moves(state)}")
        lines = tuple(drawn or i == move for i, drawn in enumerate(state.lines))
        closed = sum(1 for box in BOXES if move in box and all(lines[i] for i in box))
        score = list(state.score)
        score[state.player] += closed
        return DotsState(lines, (score[0], score[1]), state.player if closed else 1 - state.player)

    def is_terminal(self, state: DotsState) -> bool:
        return all(state.lines)

    def utility(self, state: DotsState, player: int) -> float:
        mine, theirs = state.score[player], state.score[1 - player]
        return float((mine > theirs) - (mine < theirs))


@dataclass(frozen=True)
class PassState:
    stones: int
    player: int = 0
    passes: tuple[bool, bool] = (False, False)  # has each player used their one pass?


class PassOrTake:
    """Take 1 or 2 stones; taking the last wins. Each player may pass ("pass") once per game."""

    def __init__(self, stones: int = 7):
        self.stones = stones

    def initial_state(self) -> PassState:
        return PassState(self.stones)

    def to_move(self, state: PassState) -> int:
        return state.player

    def legal_moves(self, state: PassState) -> tuple:
        takes = tuple(t for t in (1, 2) if t <= state.stones)
        return (*takes, "pass") if takes and not state.passes[state.player] else takes

    def play(self, state: PassState, move) -> PassState:
        if move not in self.legal_moves(state):
            raise IllegalMoveError(f"{move!r} is not allowed; allowed: {self.legal_moves(state)}")
        if move == "pass":
            used = list(state.passes)
            used[state.player] = True
            return PassState(state.stones, 1 - state.player, (used[0], used[1]))
        return PassState(state.stones - move, 1 - state.player, state.passes)

    def is_terminal(self, state: PassState) -> bool:
        return state.stones == 0

    def utility(self, state: PassState, player: int) -> float:
        return 1.0 if state.player != player else -1.0  # the player who took the last stone won
