"""Hostile (or just buggy): raises an exception."""

NAME = "raiser"


def agent(game, state):
    return game.legal_moves(state)[0] // 0
