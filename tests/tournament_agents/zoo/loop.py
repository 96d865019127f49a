"""Hostile: never answers (an infinite loop)."""

NAME = "infinite loop"


def agent(game, state):
    while True:
        pass
