"""Hostile: looks for the other agents' folders next to its own and reads their code."""

import glob
import os

NAME = "snooper"


def agent(game, state):
    mine = os.getcwd()
    for path in glob.glob(os.path.join(os.path.dirname(mine), "gamekit-agent-*", "agent.py")):
        if not path.startswith(mine):
            with open(path) as f:
                f.read()
    return game.legal_moves(state)[0]
