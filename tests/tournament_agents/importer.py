"""Imports standard modules nobody loaded before it (allowed: the import system may list sys.path)."""

NAME = "late importer"


def agent(game, state):
    import colorsys  # noqa: F401
    import wave  # noqa: F401

    return game.legal_moves(state)[-1]
