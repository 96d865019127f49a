"""Game identity by rules and exact type: a student's subclass is never taken for its parent.

A cache, a table or a saved file of one game must never be used for another; games compare,
hash and name their rules by their exact type and every parameter.
"""

from __future__ import annotations

import pytest

from gamekit import GeneralizedNim, Nim, PerfectPlayer, SubtractionGame, TicTacToe, solve
from gamekit.games.random_tree import RandomTree, TreeGame
from gamekit.protocol import game_rules


class MisereSubtraction(SubtractionGame):
    """Landing exactly on 0 loses (a student's variant): the same states, other values."""

    def utility(self, state, player):
        return -super().utility(state, player)


class MyNim(Nim):
    pass


@pytest.mark.parametrize(
    "parent, child",
    [
        (SubtractionGame(22), MisereSubtraction(22)),
        (Nim([3, 5, 7], misere=True), MyNim([3, 5, 7], misere=True)),
    ],
)
def test_a_subclass_is_another_game(parent, child):
    assert parent != child and child != parent
    assert hash(parent) != hash(child)
    assert game_rules(parent) != game_rules(child)
    assert len({parent, child}) == 2
    assert game_rules(parent)["game"] in ("SubtractionGame", "Nim")  # the course's own names stay


def test_a_shared_perfect_player_never_uses_the_parents_values_for_the_subclass():
    parent, child = SubtractionGame(30), MisereSubtraction(30)
    player = PerfectPlayer()  # one player, one cache, both games asked in turn
    values = solve(child)
    states = [s for s in values if not child.is_terminal(s)]
    wrong = 0
    for state in states:
        if not parent.is_terminal(state):
            player(parent, state)
        move = player(child, state)
        sign = 1 if child.to_move(state) == 0 else -1
        best = max(sign * values[child.play(state, m)] for m in child.legal_moves(state))
        wrong += sign * values[child.play(state, move)] != best
    assert len(states) > 20 and wrong == 0


def test_random_trees_with_other_leaves_have_other_rules():
    a, b = RandomTree(2, 3, seed=1), RandomTree(2, 3, seed=2)
    assert game_rules(a) != game_rules(b)
    assert game_rules(a) == game_rules(RandomTree(2, 3, seed=1))
    assert game_rules(TreeGame([[1, 2], [3, 4]]))["tree"] == [[1, 2], [3, 4]]


def test_generalized_nim_names_its_rules():
    game = GeneralizedNim(6, [{1: float("inf"), 2: 1}, {1: 2}])
    rules = game_rules(game)
    assert rules["game"] == "GeneralizedNim" and rules["board"] == 6 and rules["first"] == 0
    assert rules != game_rules(GeneralizedNim(6, [{1: float("inf"), 2: 2}, {1: 2}]))
    assert TicTacToe() == TicTacToe()
