"""Hostile: answers with something that is not a move at all."""

NAME = "wrong type"


def agent(game, state):
    return {"please": "let me win"}
