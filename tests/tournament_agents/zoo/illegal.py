"""Hostile: plays a move the rules do not allow (a square that is taken, a pile that does not exist)."""

NAME = "illegal mover"


def agent(game, state):
    legal = list(game.legal_moves(state))
    for candidate in (99, 0, [9, 1], -1, 10**6):
        if candidate not in legal:
            return candidate
    return legal[0]
