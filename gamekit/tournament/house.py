"""The house's own submissions: written exactly as a student would write theirs.

`HOUSE_RANDOM` is the opponent every submission meets in its validation games. The agent's
process seeds Python's global generator per game (from the tournament seed), so even this agent
plays the same moves in a rerun. `HOUSE_AGENTS` are the course's agents for any game (random,
MCTS, the exact solver), which `write_house_agents` writes as files: what a student's own game
meets in its first tournament.
"""

from __future__ import annotations

from pathlib import Path

HOUSE_RANDOM = """\
import random

NAME = "random (house)"


def agent(game, state):
    return random.choice(list(game.legal_moves(state)))
"""

HOUSE_MCTS = """\
import random

from gamekit import MCTS

NAME = "MCTS, 300 iterations (house)"


class Agent:
    def __init__(self, game, seat):
        self.game = game

    def move(self, state):  # a fresh tree per move, seeded from the game's seed
        return MCTS(self.game, seed=random.randrange(2**32)).search(state, iterations=300)
"""

HOUSE_PERFECT = """\
from gamekit import PerfectPlayer

NAME = "perfect, by solve (house)"


class Agent:
    def __init__(self, game, seat):
        self.game = game
        self.player = PerfectPlayer()  # solves the game once, then plays a best move

    def move(self, state):
        return self.player(self.game, state)
"""

HOUSE_AGENTS = {"house_random": HOUSE_RANDOM, "house_mcts": HOUSE_MCTS, "house_perfect": HOUSE_PERFECT}


def write_house_agents(folder: str | Path) -> list[Path]:
    """Write the course's agents for any game into `folder` (one file each); returns their paths."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, source in HOUSE_AGENTS.items():
        path = folder / f"{name}.py"
        path.write_text(source, encoding="utf-8")
        paths.append(path)
    return paths
