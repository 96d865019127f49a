"""Plays a random legal move; the sandbox seeds `random` per game, so reruns are identical."""

import random

NAME = "random mover"


def agent(game, state):
    return random.choice(list(game.legal_moves(state)))
