"""Hostile: writes a file outside its own folder (and ignores the error if that fails)."""

NAME = "writer"
ESCAPE = "/tmp/gamekit-zoo-escape.txt"


def agent(game, state):
    try:
        with open(ESCAPE, "w") as f:
            f.write("I was here")
    except OSError:
        pass
    return game.legal_moves(state)[0]
