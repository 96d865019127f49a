"""Counting games: how big the game tree is compared with the game graph.

The tree has one node per *sequence* of moves, the graph one node per *position*. For the
subtraction game and TicTacToe the tree is vastly larger, which is why the forward
"try every line" approach (the German source's *falscher Ansatz*) does not scale.
"""
from __future__ import annotations

from typing import Dict

from .protocol import Game, State, check_game


def tree_size(game: Game, state: State | None = None) -> int:
    """Number of nodes in the full game tree below `state` (counting `state` itself).

    Counted over the game graph with memoisation: nodes(s) = 1 + sum of nodes(child).
    """
    check_game(game)
    root = game.initial_state() if state is None else state
    sizes: Dict[State, int] = {}
    stack: list[tuple[State, bool]] = [(root, False)]
    while stack:
        s, done = stack.pop()
        if done:
            sizes[s] = 1 + sum(sizes[game.play(s, m)] for m in game.legal_moves(s))
            continue
        if s in sizes:
            continue
        if game.is_terminal(s):
            sizes[s] = 1
            continue
        stack.append((s, True))
        for m in game.legal_moves(s):
            child = game.play(s, m)
            if child not in sizes:
                stack.append((child, False))
    return sizes[root]


def reachable_positions(game: Game, state: State | None = None) -> set:
    """Every position reachable from `state` (including it): the nodes of the game graph."""
    check_game(game)
    root = game.initial_state() if state is None else state
    seen = {root}
    todo = [root]
    while todo:
        s = todo.pop()
        if game.is_terminal(s):
            continue
        for m in game.legal_moves(s):
            child = game.play(s, m)
            if child not in seen:
                seen.add(child)
                todo.append(child)
    return seen
