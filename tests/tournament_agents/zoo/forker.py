"""Hostile: starts processes (a fork, then a shell command as a second try)."""

import os

NAME = "forker"


def agent(game, state):
    try:
        if os.fork() == 0:
            while True:
                pass
    except Exception:
        os.system("sleep 100 &")
    return game.legal_moves(state)[0]
