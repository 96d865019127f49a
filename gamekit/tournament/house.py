"""The house's own submissions: written exactly as a student would write theirs.

`HOUSE_RANDOM` is the opponent every submission meets in its validation games. The agent's
process seeds Python's global generator per game (from the tournament seed), so even this agent
plays the same moves in a rerun.
"""

HOUSE_RANDOM = """\
import random

NAME = "random (house)"


def agent(game, state):
    return random.choice(list(game.legal_moves(state)))
"""
