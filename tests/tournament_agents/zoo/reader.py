"""Hostile: reads another agent's file (the test puts a secret there), catching any error."""

NAME = "reader"
SECRET = "/tmp/gamekit-zoo-secret/agent.py"


def agent(game, state):
    try:
        with open(SECRET) as f:
            f.read()
    except OSError:
        pass
    return game.legal_moves(state)[0]
