"""Hostile: leaves a thread running that keeps thinking during the opponent's move."""

import threading

NAME = "ponderer"


def ponder():
    while True:
        sum(range(1000))


def agent(game, state):
    threading.Thread(target=ponder, daemon=True).start()
    return game.legal_moves(state)[0]
