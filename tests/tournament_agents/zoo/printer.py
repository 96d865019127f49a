"""Hostile: prints megabytes."""

NAME = "printer"


def agent(game, state):
    for _ in range(64):
        print("spam " * 200_000)
    return game.legal_moves(state)[0]
