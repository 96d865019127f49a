"""A fast path of the very same UCT search, for TicTacToe only.

`gamekit.mcts.MCTS` is the readable version and works for every game. This module runs the
identical algorithm on TicTacToe about twice as fast, so that a lesson can afford a hundred
thousand simulations a second: the board is two 9-bit integers (one per player), a 512-entry
table says whether a set of squares contains a line, another table lists the empty squares of
every occupancy, the tree is kept in parallel lists (the visits and scores of a node's children
sit in lists owned by the parent), logarithms come from a table, and hot names are bound to
local variables. Selection calls the same `gamekit.mcts.ucb1` as the readable search.

"Identical" is meant literally and tested: with the same seed, the same exploration constant
and the same number of iterations both versions build trees with the same visits and scores
at every root move, because they expand moves in the same order, draw the same random
numbers for the rollouts, break UCB ties the same way and compute UCB1 with the same function.
"""

from __future__ import annotations

import math
import random
import time

from .mcts import check_budget, check_exploration, ucb1

__all__ = [
    "board_bits",
    "EMPTIES",
    "FastTicTacToeMCTS",
    "FastTicTacToePlayer",
    "FULL",
    "LINES",
    "WINS",
]

# The board's own bitboard form. This module is TicTacToe's fast path and carries the rules it
# needs as bit masks; it imports no game module (algorithms know games only through the protocol),
# and tests/test_mcts.py checks these constants against gamekit.games.tictactoe and that both
# searches build identical trees.
EMPTY, X, O = ".", "X", "O"
LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))

_LINE_MASKS = tuple(sum(1 << i for i in line) for line in LINES)
#: WINS[bits] is True when the squares in `bits` contain a full line.
WINS = tuple(any(bits & m == m for m in _LINE_MASKS) for bits in range(512))
#: EMPTIES[occupied] lists the empty squares, ascending (the protocol's legal-move order).
EMPTIES = tuple(tuple(i for i in range(9) if not occ >> i & 1) for occ in range(512))
FULL = 511
_DRAW = 2  # winner code for a draw; -1 means "game not over"


def board_bits(board) -> tuple[int, int, int, int]:
    """(X bits, O bits, player to move, winner code) for a board tuple of 'X', 'O', '.'."""
    if len(board) != 9 or any(c not in (X, O, EMPTY) for c in board):
        raise ValueError(f"a TicTacToe board is 9 cells of 'X', 'O' or '.', got {board!r}")
    xb = sum(1 << i for i, c in enumerate(board) if c == X)
    ob = sum(1 << i for i, c in enumerate(board) if c == O)
    nx, no = bin(xb).count("1"), bin(ob).count("1")
    if nx - no not in (0, 1):
        raise ValueError(f"impossible board {''.join(board)!r}: X has {nx} marks, O has {no}")
    status = 0 if WINS[xb] else 1 if WINS[ob] else _DRAW if xb | ob == FULL else -1
    return xb, ob, nx - no, status


class FastTicTacToeMCTS:
    """UCT on TicTacToe with bitboards and an array tree; same results as `MCTS(TicTacToe(), ...)`.

    Scores in [0, 1] (win 1, draw 1/2, loss 0); UCB1 = mean score + c * sqrt(ln N / n).
    """

    def __init__(self, c: float = math.sqrt(2), seed: int | None = None):
        self.c = check_exploration(c)
        self.rng = random.Random(seed)
        self.simulations = 0
        self._logs = [-math.inf]

    def _new_tree(self, board) -> None:
        xb, ob, to_move, status = board_bits(board)
        if status != -1:
            raise ValueError(f"cannot search from {''.join(board)!r}: the game is already over")
        self.xb, self.ob, self.to_move, self.status = [xb], [ob], [to_move], [status]
        self.visits = [0]  # only the root's count is kept here; a child's is its edge count
        self.untried = [list(EMPTIES[xb | ob])]
        self.child_nodes: list[list] = [[]]  # node ids of the children, in expansion order
        self.child_moves: list[list] = [[]]
        self.child_visits: list[list] = [[]]  # parallel to child_nodes
        self.child_score: list[list] = [[]]

    def search(self, board, iterations: int | None = None, seconds: float | None = None) -> int:
        """Grow a fresh tree from `board` for the budget; return the most visited square."""
        iterations, seconds = check_budget(iterations, seconds)
        self._new_tree(tuple(board))
        if iterations is not None:
            self._run(iterations)
        else:
            stop = time.perf_counter() + seconds
            while time.perf_counter() < stop:
                self._run(256)
        return self.best_move()

    def best_move(self) -> int:
        cv = self.child_visits[0]
        return self.child_moves[0][cv.index(max(cv))]

    def root_stats(self) -> list[tuple[int, int, float]]:
        """(square, visits, summed score) for every expanded root move, in expansion order."""
        return list(zip(self.child_moves[0], self.child_visits[0], self.child_score[0]))

    def _run(self, iterations: int) -> None:
        c, rand, ucb = self.c, self.rng.random, ucb1
        log = self._logs  # log[n] = math.log(n), grown to cover every visit count of this run
        log.extend(math.log(n) for n in range(len(log), self.visits[0] + iterations + 1))
        wins, empties = WINS, EMPTIES
        XB, OB, TM, ST, V, UN = self.xb, self.ob, self.to_move, self.status, self.visits, self.untried
        CN, CM, CV, CS = self.child_nodes, self.child_moves, self.child_visits, self.child_score
        for _ in range(iterations):
            # 1. selection; an edge is (visits, scores of the siblings, index, mover)
            node, n, edges = 0, V[0], []
            while not UN[node]:
                kids = CN[node]
                if not kids:
                    break  # a terminal node
                logn = log[n]
                cv, cs = CV[node], CS[node]
                best = -1.0
                i = 0
                for k, (s, v) in enumerate(zip(cs, cv)):  # gamekit's one UCB1; the first child wins ties
                    u = ucb(s, v, logn, c)
                    if u > best:
                        best, i = u, k
                n = cv[i]  # a child's visits are the visits of the edge leading to it
                edges.append((cv, cs, i, TM[node]))
                node = kids[i]
            # 2. expansion of the next untried move
            untried = UN[node]
            if untried:
                move = untried.pop(0)
                xb, ob, p = XB[node], OB[node], TM[node]
                if p == 0:
                    xb |= 1 << move
                    status = 0 if wins[xb] else (_DRAW if xb | ob == FULL else -1)
                else:
                    ob |= 1 << move
                    status = 1 if wins[ob] else (_DRAW if xb | ob == FULL else -1)
                child = len(TM)
                XB.append(xb)
                OB.append(ob)
                TM.append(1 - p)
                ST.append(status)
                UN.append([] if status != -1 else list(empties[xb | ob]))
                CN.append([])
                CM.append([])
                CV.append([])
                CS.append([])
                cv, cs = CV[node], CS[node]
                CN[node].append(child)
                CM[node].append(move)
                cv.append(0)
                cs.append(0.0)
                edges.append((cv, cs, len(cv) - 1, p))
                node = child
            # 3. rollout with uniformly random moves (X and O moves unrolled)
            winner = ST[node]
            if winner == -1:
                xb, ob = XB[node], OB[node]
                free = list(empties[xb | ob])
                if TM[node] == 1:
                    ob |= 1 << free.pop(int(rand() * len(free)))
                    if wins[ob]:
                        winner = 1
                    elif not free:
                        winner = _DRAW
                while winner == -1:
                    xb |= 1 << free.pop(int(rand() * len(free)))
                    if wins[xb]:
                        winner = 0
                    elif not free:
                        winner = _DRAW
                    else:
                        ob |= 1 << free.pop(int(rand() * len(free)))
                        if wins[ob]:
                            winner = 1
                        elif not free:
                            winner = _DRAW
            # 4. backpropagation: each edge is scored for the player who moved along it
            V[0] += 1
            if winner == _DRAW:
                for cv, cs, i, _ in edges:
                    cv[i] += 1
                    cs[i] += 0.5
            else:  # a loss adds 0.0 to the score, which changes nothing
                for cv, cs, i, mover in edges:
                    cv[i] += 1
                    if mover == winner:
                        cs[i] += 1.0
        self.simulations += iterations


class FastTicTacToePlayer:
    """A TicTacToe player running `FastTicTacToeMCTS` for `iterations` per move."""

    def __init__(
        self, iterations: int = 2000, c: float = math.sqrt(2), seed: int | None = None, name: str | None = None
    ):
        check_budget(iterations, None)
        self.iterations = iterations
        self.search = FastTicTacToeMCTS(c=c, seed=seed)
        self.name = name or f"MCTS-fast({iterations})"

    def __call__(self, game, state) -> int:
        return self.search.search(state, iterations=self.iterations)
