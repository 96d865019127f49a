"""Abstract game trees on the `Game` protocol: a tree given by its leaf values, and uniform
random trees for measuring search algorithms.

A state is the tuple of child indices on the path from the root, e.g. (2, 0) = "third move,
then first move". Player 0 (MAX) moves at even depths, player 1 (MIN) at odd depths. A leaf's
utility is its value for player 0 (and minus that for player 1), so values need not be
+-1: textbook trees use numbers like 3, 12, 8.
"""

from __future__ import annotations

import math
import numbers
import sys
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..protocol import GameBase, WireError, check_int, kind_name
from ..wire import json_int, json_list, show

__all__ = [
    "RandomTree",
    "TreeGame",
]


def _as_move(move: Any) -> Any:
    """A numpy integer as the int it stands for; anything else unchanged (1.0 is not a move)."""
    if type(move) is not int and isinstance(move, numbers.Integral) and not isinstance(move, bool):
        return int(move)
    return move


def _check_tree(tree: Any, path: tuple = ()) -> Any:
    if isinstance(tree, bool):
        raise TypeError(f"a leaf must be a number, got {tree!r} at path {path}")
    if isinstance(tree, numbers.Real):
        if not math.isfinite(tree):
            raise ValueError(f"a leaf must be a finite number, got {tree!r} at path {path} (no nan or infinity)")
        return float(tree)
    if isinstance(tree, (list, tuple)):
        if not tree:
            raise ValueError(f"an inner node needs at least one child; the node at path {path} has none")
        return tuple(_check_tree(t, path + (i,)) for i, t in enumerate(tree))
    raise TypeError(f"a tree is a number (a leaf) or a list of trees, got {tree!r} at path {path}")


class TreeGame(GameBase[tuple, int]):
    """A game whose tree is written out: nested lists, numbers at the leaves (player 0's values).

    `TreeGame([[3, 12, 8], [2, 4, 6], [14, 5, 2]])` is the classic two-ply example: MAX
    chooses a list, MIN chooses a number in it.
    """

    def __init__(self, tree: Sequence):
        if not isinstance(tree, (list, tuple)):
            raise TypeError(f"the tree must be a list of subtrees, got {tree!r}")
        try:
            self.tree = _check_tree(tree)
        except RecursionError:
            raise ValueError(
                f"the tree is nested deeper than Python's recursion limit ({sys.getrecursionlimit()}); "
                f"a written-out tree should be small"
            ) from None

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.nested()!r})"

    def _key(self) -> tuple:  # games built alike are equal and hash alike (GameBase), tables may be shared
        return (self.tree,)

    def rules(self) -> dict:
        """The rules as JSON-ready data: the exact class and every leaf (what a saved Q-table records)."""
        return {"game": kind_name(self, TreeGame), "tree": self.nested()}

    def node(self, state: tuple) -> Any:
        t = self.tree
        for i in state:
            t = t[i]
        return t

    def nested(self, state: tuple = ()) -> Any:
        """The subtree at `state` as nested lists (leaves as numbers)."""
        t = self.node(state)
        return t if isinstance(t, float) else [self.nested(state + (i,)) for i in range(len(t))]

    def initial_state(self) -> tuple:
        return ()

    # --- the wire format (gamekit.wire): a state is its path of child indices, a move a child index ---
    def state_to_json(self, state: tuple) -> list:
        return [int(m) for m in state]

    def state_from_json(self, data: Any) -> tuple:
        """The path from the root as a list of child indices, each naming a child that exists."""
        what = f"{type(self).__name__}: the state"
        items = json_list(data, what, "a list of child indices from the root, such as [2, 0]", None, WireError)
        node = self.tree
        for i, m in enumerate(items):
            if isinstance(node, float):
                raise WireError(f"{what} goes on below a leaf at step {i}: the path {show(items[:i])} ends there")
            node = node[json_int(m, f"{what}[{i}]", 0, len(node) - 1, WireError)]
        return tuple(items)

    def move_to_json(self, move: int) -> int:
        return int(move)

    def move_from_json(self, data: Any) -> int:
        return json_int(data, f"{type(self).__name__}: a move (a child index)")

    def to_move(self, state: tuple) -> int:
        return len(state) % 2

    def legal_moves(self, state: tuple) -> tuple:
        t = self.node(state)
        return () if isinstance(t, float) else tuple(range(len(t)))

    def play(self, state: tuple, move: int) -> tuple:
        legal = self.legal_moves(state)
        move = _as_move(move)
        if type(move) is not int or move not in legal:
            raise self.refuse(state, move, legal)
        return state + (move,)

    def is_terminal(self, state: tuple) -> bool:
        return isinstance(self.node(state), float)

    def utility(self, state: tuple, player: int) -> float:
        v = self.node(state)
        if not isinstance(v, float):
            raise ValueError(f"utility is defined only at a leaf, not at {state!r}")
        return v if player == 0 else -v

    def leaf_values(self) -> list:
        """All leaf values, left to right."""
        out = []

        def walk(t):
            if isinstance(t, float):
                out.append(t)
            else:
                for c in t:
                    walk(c)

        walk(self.tree)
        return out


class RandomTree(TreeGame):
    """A uniform tree: every inner node has `branching` children, every leaf is at `depth`.

    The leaf values are a random permutation of 0 .. branching**depth - 1 drawn from `seed`:
    all distinct, so "best move" is never a tie and Knuth and Moore's formulas apply exactly.
    """

    def __init__(self, branching: int, depth: int, seed: int | None = None):
        branching, depth = check_int(branching, "branching", minimum=1), check_int(depth, "depth", minimum=1)
        seed = None if seed is None else check_int(seed, "seed (None or a whole number)", minimum=0)
        if int(depth) > 100_000 or int(branching) ** int(depth) > 5_000_000:
            raise ValueError(
                f"branching**depth = {branching}**{depth} leaves is too many (at most 5,000,000, depth at most 100,000)"
            )
        self.branching, self.depth = int(branching), int(depth)
        self.seed = None if seed is None else int(seed)
        values = np.random.default_rng(self.seed).permutation(self.branching**self.depth)
        self.values = values.astype(float)
        self._hash_key: tuple | None = None

    def __repr__(self) -> str:
        return f"RandomTree(branching={self.branching}, depth={self.depth}, seed={self.seed})"

    def _key(self) -> tuple:  # the leaf values decide the game (seed=None trees differ by them)
        if self._hash_key is None:
            self._hash_key = (self.branching, self.depth, self.values.tobytes())
        return self._hash_key

    def _index(self, state: tuple) -> int:
        i = 0
        for m in state:
            i = i * self.branching + m
        return i

    def node(self, state: tuple) -> Any:  # only used for nested(); leaves by index
        if len(state) == self.depth:
            return float(self.values[self._index(state)])
        return tuple(range(self.branching))

    def nested(self, state: tuple = ()) -> Any:
        if self.depth - len(state) > 200:
            raise ValueError(f"nested() writes out trees at most 200 levels deep; this one has {self.depth}")
        if len(state) == self.depth:
            return float(self.values[self._index(state)])
        return [self.nested(state + (i,)) for i in range(self.branching)]

    def legal_moves(self, state: tuple) -> tuple:
        return () if len(state) >= self.depth else tuple(range(self.branching))

    def state_from_json(self, data: Any) -> tuple:
        """The path from the root: at most `depth` child indices, each from 0 to branching - 1."""
        what = "RandomTree: the state"
        allowed = f"a list of at most {self.depth} child indices from 0 to {self.branching - 1}"
        items = json_list(data, what, allowed, None, WireError)
        if len(items) > self.depth:
            raise WireError(f"{what} must be {allowed}; got a path of {len(items)} steps")
        return tuple(json_int(m, f"{what}[{i}]", 0, self.branching - 1, WireError) for i, m in enumerate(items))

    def play(self, state: tuple, move: int) -> tuple:
        move = _as_move(move)
        if len(state) >= self.depth or type(move) is not int or move not in range(self.branching):
            raise self.refuse(state, move, self.legal_moves(state))
        return state + (move,)

    def is_terminal(self, state: tuple) -> bool:
        return len(state) >= self.depth

    def utility(self, state: tuple, player: int) -> float:
        if len(state) != self.depth:
            raise ValueError(f"utility is defined only at a leaf (depth {self.depth}), not at {state!r}")
        v = float(self.values[self._index(state)])
        return v if player == 0 else -v

    def leaf_values(self) -> list:
        return [float(v) for v in self.values]
