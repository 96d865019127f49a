"""Plays the first legal move (a simple, deterministic sample submission)."""

NAME = "first legal move"


def agent(game, state):
    return game.legal_moves(state)[0]
