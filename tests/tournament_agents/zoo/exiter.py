"""Hostile: ends its own process with os._exit (no exception, no goodbye)."""

import os

NAME = "exiter"


def agent(game, state):
    os._exit(3)
