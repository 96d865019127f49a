"""MCTS simulations per second on TicTacToe from the empty board (random rollouts, pure Python).

Three searches run in this process, interleaved, each several times (best run counts, CPU time):

* baseline — a plain textbook UCT on a tuple board, as a student would first write it
  (a Node class, random.choice, a winner check over the eight lines, a new tuple per move);
* gamekit.MCTS — the course's readable, generic search through the Game protocol;
* gamekit.FastTicTacToeMCTS — the same algorithm as gamekit.MCTS with bitboards and an array tree.

Run: .venv/bin/python benchmarks/mcts_speed.py [--iterations 50000] [--repeats 3]
"""

from __future__ import annotations

import argparse
import math
import platform
import random
import time

from gamekit import FastTicTacToeMCTS, TicTacToe
from gamekit.mcts import MCTS

LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))


# --- the textbook baseline ---------------------------------------------------------------
def tb_winner(board):
    for a, b, c in LINES:
        if board[a] != "." and board[a] == board[b] == board[c]:
            return board[a]
    return None


def tb_moves(board):
    if tb_winner(board) is not None:
        return []
    return [i for i in range(9) if board[i] == "."]


def tb_player(board):
    return "X" if board.count("X") == board.count("O") else "O"


def tb_play(board, move):
    return board[:move] + (tb_player(board),) + board[move + 1 :]


class TBNode:
    def __init__(self, board, parent=None, move=None):
        self.board = board
        self.parent = parent
        self.move = move
        self.children = []
        self.untried = tb_moves(board)
        self.wins = 0.0
        self.visits = 0
        # the player who made the move into this node
        self.just_moved = "O" if tb_player(board) == "X" else "X"

    def uct_child(self, c):
        return max(self.children, key=lambda ch: ch.wins / ch.visits + c * math.sqrt(math.log(self.visits) / ch.visits))


def textbook_uct(board, iterations, c=1.4142135623730951, seed=0):  # c = sqrt(2)
    rng = random.Random(seed)
    root = TBNode(board)
    for _ in range(iterations):
        node = root
        while not node.untried and node.children:  # selection
            node = node.uct_child(c)
        if node.untried:  # expansion
            move = rng.choice(node.untried)
            node.untried.remove(move)
            child = TBNode(tb_play(node.board, move), node, move)
            node.children.append(child)
            node = child
        b = node.board  # rollout
        while tb_moves(b):
            b = tb_play(b, rng.choice(tb_moves(b)))
        w = tb_winner(b)
        while node is not None:  # backpropagation
            node.visits += 1
            node.wins += 0.5 if w is None else (1.0 if w == node.just_moved else 0.0)
            node = node.parent
    return max(root.children, key=lambda ch: ch.visits).move


# --- measuring ------------------------------------------------------------------------------
def rates(runs, iterations, repeats):
    """Simulations per second of each run: best of `repeats` rounds, the runs interleaved in
    every round so that a busy moment of the machine hits all of them alike."""
    best = {name: math.inf for name in runs}
    for _ in range(repeats):
        for name, run in runs.items():
            t = time.process_time()
            run()
            best[name] = min(best[name], time.process_time() - t)
    return {name: iterations / t for name, t in best.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--iterations", type=int, default=50_000)
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    n, r = args.iterations, args.repeats
    game = TicTacToe()
    empty = game.initial_state()
    runs = {
        "textbook UCT (baseline)": lambda: textbook_uct(empty, n, seed=1),
        "gamekit.MCTS (generic)": lambda: MCTS(game, seed=1).search(empty, iterations=n),
        "gamekit.FastTicTacToeMCTS": lambda: FastTicTacToeMCTS(seed=1).search(empty, iterations=n),
    }
    print(
        f"TicTacToe from the empty board, {n:,} iterations per run, best of {r} (CPU time), "
        f"Python {platform.python_version()}"
    )
    measured = rates(runs, n, r)
    base = measured["textbook UCT (baseline)"]
    print(f"{'search':28s} {'simulations/s':>14s} {'vs baseline':>12s}")
    for name, v in measured.items():
        print(f"{name:28s} {v:14,.0f} {v / base:11.2f}x")
    ratio = measured["gamekit.MCTS (generic)"] / base
    print(
        f"goal: the generic MCTS at least as fast as the textbook UCT (issue 12): {ratio:.2f}x, "
        f"{'met' if ratio >= 1.0 else 'NOT met'}"
    )
    goal = 100_000
    fast = measured["gamekit.FastTicTacToeMCTS"]
    print(f"goal >= {goal:,} simulations/s for the fast path: {'met' if fast >= goal else 'NOT met'}")


if __name__ == "__main__":
    main()
