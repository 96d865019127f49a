"""Monte Carlo Tree Search (MCTS) with UCT, for any game on the protocol.

MCTS knows only the rules. It grows a search tree one *iteration* at a time, and each
iteration has four phases:

1. **selection** — walk down from the root, always to the child with the highest UCB1 score,
   while the node is fully expanded and the game is not over;
2. **expansion** — add one child for a move not tried yet (in legal-move order);
3. **rollout** (simulation) — play on from the new child with a rollout policy (random moves
   by default) until the game ends;
4. **backpropagation** — add the result to every node on the path, each scored for the
   player who made the move *into* that node (so every level sees it from its own side).

Scores lie in [0, 1]: win 1, draw 1/2, loss 0. The UCB1 score of a child is

    UCB1(child) = score(child) / visits(child) + c * sqrt( ln visits(parent) / visits(child) )

with c = sqrt(2) by default (Auer et al. 2002 for rewards in [0, 1]; Kocsis & Szepesvári write
2·C_p with C_p = 1/sqrt(2), the same number). Libraries differ: OpenSpiel scores in [-1, 1]
(twice the range) and takes uct_c as an argument (its example script uses 2, which equals
c = 1 here; its tests use sqrt(2), which equals c = 1/sqrt(2) here); other texts use
c = 1/sqrt(2) or 1. Compare constants only after converting to the same reward range.

After the budget (a number of iterations or of seconds) the move whose child has the most
visits is chosen. The tree stays available for inspection (`stats`, `to_networkx`).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from .protocol import Game, Move, State, check_int, check_name, require_game_methods

__all__ = [
    "MCTS",
    "ChildStats",
    "Iteration",
    "MCTSPlayer",
    "Node",
    "RolloutPolicy",
    "estimate_history",
    "random_rollout",
    "score_for",
    "ucb1",
    "winner_of",
]

#: A rollout policy: (game, state, rng) -> the move to play in `state`.
RolloutPolicy = Callable[[Game, State, random.Random], Move]


def ucb1(score: float, visits: int, log_parent_visits: float, c: float) -> float:
    """The UCB1 score of a child: its mean score plus the exploration bonus.

        UCB1 = score / visits + c * sqrt( ln(parent visits) / visits )   (infinite when unvisited)

    The one definition in gamekit: selection (here and in `gamekit.mcts_fast`), the statistics
    and the widgets all call it. The caller passes ln(parent visits), computed once per parent.
    """
    if visits == 0:
        return math.inf
    return score / visits + c * math.sqrt(log_parent_visits / visits)


def random_rollout(game: Game, state: State, rng: random.Random) -> Move:
    """The default rollout policy: a uniformly random legal move."""
    moves = game.legal_moves(state)
    return moves[int(rng.random() * len(moves))]


def score_for(winner: int | None, player: int) -> float:
    """The score of a finished game for `player`: 1 win, 0.5 draw, 0 loss."""
    if winner is None:
        return 0.5
    return 1.0 if winner == player else 0.0


class Node:
    """One node of the search tree: a state reached by `move` from `parent`.

    `score` sums the results of all iterations through this node, scored for `mover`, the
    player who made `move` (the player to move at the parent).
    """

    __slots__ = ("state", "move", "parent", "mover", "children", "untried", "visits", "score", "wins")

    def __init__(self, state: State, move: Move, parent: Node | None, mover: int, untried: list):
        self.state = state
        self.move = move
        self.parent = parent
        self.mover = mover
        self.children: list[Node] = []
        self.untried = untried  # moves not expanded yet, in legal-move order
        self.visits = 0
        self.score = 0.0
        self.wins = 0

    @property
    def mean_value(self) -> float:
        """Average result for `mover` in [-1, 1] (loss -1, draw 0, win +1)."""
        return 2.0 * self.score / self.visits - 1.0 if self.visits else float("nan")

    @property
    def win_probability(self) -> float:
        """Fraction of iterations through this node that `mover` won (draws not counted)."""
        return self.wins / self.visits if self.visits else float("nan")

    def ucb(self, c: float) -> float:
        """The UCB1 score that selection at the parent compares (infinite when unvisited)."""
        if self.parent is None:
            raise ValueError("the root has no UCB1 score: it is never selected")
        return ucb1(self.score, self.visits, math.log(self.parent.visits) if self.parent.visits else 0.0, c)

    def __repr__(self) -> str:
        return f"Node(move={self.move!r}, visits={self.visits}, score={self.score:g})"


@dataclass(frozen=True)
class ChildStats:
    """What the tree knows about one move at a node (values for the player making the move)."""

    move: Any
    visits: int
    mean_value: float  # in [-1, 1]
    win_probability: float  # wins / visits, in [0, 1]
    score: float  # mean score in [0, 1] (draws count 1/2)
    ucb: float


class Iteration(NamedTuple):
    """The record of one iteration, phase by phase (for stepping through and for plots)."""

    path: tuple  # nodes from the root to the selected leaf
    expanded: Node | None  # the new child, or None when the leaf was terminal
    rollout_moves: tuple
    winner: int | None


class MCTS:
    """UCT search for any game on the protocol: `MCTS(game, c, rollout, seed).search(state, ...)`.

    `c` is the exploration constant of UCB1 for scores in [0, 1] (see the module docstring);
    `rollout(game, state, rng)` picks moves during simulations; `seed` makes every run repeatable.
    """

    def __init__(
        self, game: Game, c: float = math.sqrt(2), rollout: RolloutPolicy = random_rollout, seed: int | None = None
    ):
        require_game_methods(game)
        self.c = check_exploration(c)
        check_rollout(rollout)
        self.game = game
        self.rollout_policy = rollout
        self.rng = random.Random(_check_seed(seed))
        self.root: Node | None = None

    # --- building the tree ------------------------------------------------------------
    def new_root(self, state: State) -> Node:
        """Start a fresh tree at `state` (which must not be terminal)."""
        if self.game.is_terminal(state):
            raise ValueError(f"cannot search from {state!r}: the game is already over")
        mover = 1 - self.game.to_move(state)
        self.root = Node(state, None, None, mover, list(self.game.legal_moves(state)))
        return self.root

    def select(self, node: Node) -> list:
        """Phase 1: from `node`, follow the best UCB1 child while fully expanded; the path."""
        path = [node]
        while not node.untried and node.children:
            node = self.best_child(node)
            path.append(node)
        return path

    def best_child(self, node: Node) -> Node:
        """The child with the highest UCB1 score (the first one on ties)."""
        log_n, c = math.log(node.visits), self.c
        best, best_score = node.children[0], -math.inf
        for child in node.children:
            score = ucb1(child.score, child.visits, log_n, c)
            if score > best_score:
                best, best_score = child, score
        return best

    def expand(self, node: Node) -> Node | None:
        """Phase 2: add a child for the next untried move; None if `node` is terminal."""
        if not node.untried:
            return None
        move = node.untried.pop(0)
        state = self.game.play(node.state, move)
        # the protocol: no legal moves exactly when the game is over
        child = Node(state, move, node, self.game.to_move(node.state), list(self.game.legal_moves(state)))
        node.children.append(child)
        return child

    def simulate(self, state: State) -> tuple:
        """Phase 3: play the rollout policy from `state` to the end; (winner or None, moves)."""
        game, rng, policy = self.game, self.rng, self.rollout_policy
        legal_moves, play = game.legal_moves, game.play
        moves = []
        if policy is random_rollout:  # the default policy, inlined (the same random numbers)
            rand = rng.random
            options = legal_moves(state)
            while options:
                move = options[int(rand() * len(options))]
                moves.append(move)
                state = play(state, move)
                options = legal_moves(state)
        else:
            while not game.is_terminal(state):
                move = policy(game, state, rng)
                moves.append(move)
                state = play(state, move)
        return winner_of(game, state), tuple(moves)

    def backpropagate(self, path: list, winner: int | None) -> None:
        """Phase 4: every node on the path counts the visit and the result for its mover
        (`score_for`: 1 win, 1/2 draw, 0 loss)."""
        for node in path:
            node.visits += 1
            if winner is None:
                node.score += 0.5
            elif node.mover == winner:
                node.score += 1.0
                node.wins += 1

    def iterate(self) -> Iteration:
        """One full iteration on the current tree: select, expand, simulate, backpropagate."""
        if self.root is None:
            raise ValueError("no tree yet: call new_root(state) or search(state, ...) first")
        path = self.select(self.root)
        child = self.expand(path[-1])
        if child is not None:
            path.append(child)
        winner, moves = self.simulate(path[-1].state)
        self.backpropagate(path, winner)
        return Iteration(tuple(path), child, moves, winner)

    # --- searching ----------------------------------------------------------------------
    def search(self, state: State, iterations: int | None = None, seconds: float | None = None) -> Move:
        """Grow a fresh tree from `state` for the given budget; return the most visited move."""
        iterations, seconds = check_search_budget(iterations, seconds)
        self.new_root(state)
        if iterations is not None:
            for _ in range(iterations):
                self.iterate()
        else:
            stop = time.perf_counter() + seconds
            while time.perf_counter() < stop:
                self.iterate()
        return self.best_move()

    def best_move(self) -> Move:
        """The root move with the most visits (the first in legal order on ties)."""
        if self.root is None or not self.root.children:
            raise ValueError("no search has been run yet: call search(state, iterations=...) first")
        return max(self.root.children, key=lambda ch: ch.visits).move

    # --- inspecting -----------------------------------------------------------------------
    def stats(self, node: Node | None = None) -> list[ChildStats]:
        """Per child of `node` (default: the root): visits, values and UCB1 score."""
        node = self.root if node is None else node
        if node is None:
            raise ValueError("no tree yet: call search(...) or new_root(state) first")
        return [
            ChildStats(
                ch.move,
                ch.visits,
                ch.mean_value,
                ch.win_probability,
                ch.score / ch.visits if ch.visits else float("nan"),
                ch.ucb(self.c),
            )
            for ch in node.children
        ]

    def estimates(self) -> dict[Move, float]:
        """Win-probability estimate of each expanded root move (for the player to move at the root)."""
        return {s.move: s.win_probability for s in self.stats()}

    def to_networkx(self, max_depth: int | None = None, min_visits: int = 1):
        """The tree as a networkx DiGraph; nodes are move paths from the root (tuples).

        Node attributes: state, visits, score, mean_value, win_probability, ucb, mover,
        depth; edge attribute: move. Only nodes with at least `min_visits` visits.
        """
        import networkx as nx

        if self.root is None:
            raise ValueError("no tree yet: call search(...) first")
        g = nx.DiGraph()
        stack: list[tuple[Node, tuple]] = [(self.root, ())]
        while stack:
            node, key = stack.pop()
            g.add_node(
                key,
                state=node.state,
                visits=node.visits,
                score=node.score,
                mean_value=node.mean_value,
                win_probability=node.win_probability,
                ucb=node.ucb(self.c) if node.parent is not None else float("nan"),
                mover=node.mover,
                depth=len(key),
            )
            if node.parent is not None:
                g.add_edge(key[:-1], key, move=node.move)
            if max_depth is not None and len(key) >= max_depth:
                continue
            for ch in reversed(node.children):
                if ch.visits >= min_visits:
                    stack.append((ch, key + (ch.move,)))
        return g


def winner_of(game: Game, state: State) -> int | None:
    """0 or 1 for the player who won at terminal `state`, None for a draw."""
    u0 = game.utility(state, 0)
    u1 = game.utility(state, 1)
    if u0 == u1:
        return None
    return 0 if u0 > u1 else 1


def _check_real(value: Any, name: str, allowed: str) -> float:
    """A real number (int, float, numpy number; not bool) as a float, or a TypeError naming what is allowed."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name} must be {allowed}, got {value!r} (a {type(value).__name__})")
    return float(value)


def _check_seed(seed: Any) -> int | None:
    """None or a whole number >= 0 (Python or numpy int) for this search's own random.Random."""
    return None if seed is None else check_int(seed, "seed", minimum=0)


def check_exploration(c: Any) -> float:
    """Validate an exploration constant: a finite number >= 0; returned as a float."""
    value = _check_real(c, "c", "a finite number >= 0")
    if not value >= 0 or math.isinf(value):
        raise ValueError(f"c must be a finite number >= 0, got {c!r}")
    return value


def check_rollout(rollout: Any) -> None:
    """Validate a rollout policy: anything callable as rollout(game, state, rng) -> move."""
    if not callable(rollout):
        raise TypeError(f"rollout must be a function (game, state, rng) -> move, got {rollout!r}")


def check_search_budget(iterations: Any, seconds: Any) -> tuple:
    """Validate a search budget: exactly one of a positive iteration count or seconds."""
    if (iterations is None) == (seconds is None):
        raise ValueError("give exactly one budget: iterations=<whole number >= 1> or seconds=<number > 0>")
    if iterations is not None:
        iterations = check_int(iterations, "iterations", minimum=1)
    if seconds is not None:
        seconds = _check_real(seconds, "seconds", "a finite number > 0")
        if not seconds > 0 or math.isinf(seconds):
            raise ValueError(f"seconds must be a finite number > 0, got {seconds!r}")
    return iterations, seconds


class MCTSPlayer:
    """A player that runs a fresh MCTS search for every move it makes.

    Its random generator lives across moves, so a whole game is repeatable from `seed`.
    """

    def __init__(
        self,
        iterations: int = 1000,
        c: float = math.sqrt(2),
        rollout: RolloutPolicy = random_rollout,
        seed: int | None = None,
        name: str | None = None,
    ):
        check_search_budget(iterations, None)
        check_rollout(rollout)
        self.iterations = iterations
        self.c = check_exploration(c)
        self.rollout = rollout
        self.rng = random.Random(_check_seed(seed))
        self.name = f"MCTS({iterations})" if name is None else check_name(name)
        self.last: MCTS | None = None  # the search behind the last move, for inspection

    def __call__(self, game: Game, state: State) -> Move:
        search = MCTS(game, c=self.c, rollout=self.rollout, seed=self.rng.getrandbits(32))
        move = search.search(state, iterations=self.iterations)
        self.last = search
        return move


def estimate_history(
    game: Game,
    state: State,
    iterations: int,
    c: float = math.sqrt(2),
    seed: int | None = None,
    rollout: RolloutPolicy = random_rollout,
) -> dict[Move, list]:
    """Win-probability estimate of every root move after each iteration (NaN before its first visit).

    The source's figures 1 and 2 as a time series: how the estimates p1, p2, p3 form.
    """
    check_search_budget(iterations, None)
    search = MCTS(game, c=c, rollout=rollout, seed=seed)
    root = search.new_root(state)
    history: dict[Move, list] = {m: [] for m in game.legal_moves(state)}
    for _ in range(iterations):
        search.iterate()
        seen = {ch.move: ch for ch in root.children}
        for m, series in history.items():
            ch = seen.get(m)
            series.append(ch.win_probability if ch is not None else float("nan"))
    return history
