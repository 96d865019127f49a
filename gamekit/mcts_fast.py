"""A fast path of the very same UCT search, for a game that offers a bitboard form (TicTacToe's).

`gamekit.mcts.MCTS` is the readable version and works for every game. This module runs the
identical algorithm about twice as fast on a two-player game whose board is a set of squares
each player fills, won by a line: the board is two integers (one per player), and the game
passes its rules as tables (`gamekit.games.tictactoe.BITBOARD`: which sets of squares hold a
line, the empty squares of every occupancy). The tree is kept in parallel lists (the visits and
scores of a node's children sit in lists owned by the parent), logarithms come from a table, and
hot names are bound to local variables. Selection calls the same `gamekit.mcts.ucb1` as the
readable search. Like every algorithm, it knows the game only through what it is passed.

"Identical" is meant literally and tested: with the same seed, the same exploration constant
and the same number of iterations both versions build trees with the same visits and scores
at every root move, because they expand moves in the same order, draw the same random
numbers for the rollouts, break UCB ties the same way and compute UCB1 with the same function.
"""

from __future__ import annotations

import math
import random
import time
from typing import Any

from .mcts import check_exploration, check_search_budget, ucb1

__all__ = ["BitboardMCTS", "BitboardMCTSPlayer"]

_DRAW = 2  # winner code for a draw; -1 means "game not over"


class BitboardMCTS:
    """UCT with bitboards and an array tree on the game whose bitboard form is `form` (an object
    with `wins`, `empties`, `full` and `bits(board)`, as `gamekit.games.tictactoe.BITBOARD`); the
    same results as `MCTS(game, ...)`.

    Scores in [0, 1] (win 1, draw 1/2, loss 0); UCB1 = mean score + c * sqrt(ln N / n).
    """

    def __init__(self, form: Any, c: float = math.sqrt(2), seed: int | None = None):
        self.form = form
        self.c = check_exploration(c)
        self.rng = random.Random(seed)
        self.simulations = 0
        self._logs = [-math.inf]

    def _new_tree(self, board) -> None:
        xb, ob, to_move, status = self.form.bits(board)
        if status != -1:
            raise ValueError(f"cannot search from {''.join(board)!r}: the game is already over")
        self.xb, self.ob, self.to_move, self.status = [xb], [ob], [to_move], [status]
        self.visits = [0]  # only the root's count is kept here; a child's is its edge count
        self.untried = [list(self.form.empties[xb | ob])]
        self.child_nodes: list[list] = [[]]  # node ids of the children, in expansion order
        self.child_moves: list[list] = [[]]
        self.child_visits: list[list] = [[]]  # parallel to child_nodes
        self.child_score: list[list] = [[]]

    def search(self, board, iterations: int | None = None, seconds: float | None = None) -> int:
        """Grow a fresh tree from `board` for the budget; return the most visited square."""
        iterations, seconds = check_search_budget(iterations, seconds)
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
        wins, empties, FULL = self.form.wins, self.form.empties, self.form.full
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


class BitboardMCTSPlayer:
    """A player running `BitboardMCTS` on the bitboard form `form` for `iterations` per move."""

    def __init__(
        self,
        form: Any,
        iterations: int = 2000,
        c: float = math.sqrt(2),
        seed: int | None = None,
        name: str | None = None,
    ):
        check_search_budget(iterations, None)
        self.iterations = iterations
        self.search = BitboardMCTS(form, c=c, seed=seed)
        self.name = name or f"MCTS-bitboard({iterations})"

    def __call__(self, game, state) -> int:
        return self.search.search(state, iterations=self.iterations)
