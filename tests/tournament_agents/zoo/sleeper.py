"""Hostile: sleeps far past any time limit."""

import time

NAME = "sleeper"


def agent(game, state):
    time.sleep(60)
    return game.legal_moves(state)[0]
