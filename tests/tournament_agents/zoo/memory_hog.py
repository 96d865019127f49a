"""Hostile: allocates memory without end."""

NAME = "memory hog"


def agent(game, state):
    hoard = []
    while True:
        hoard.append(bytearray(16 << 20))
        hoard[-1][::4096] = b"x" * len(hoard[-1][::4096])  # touch every page
