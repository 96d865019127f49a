"""The class tournament: sandboxed agents, scheduling, storage, leaderboards.

A student's submission is a Python file with `NAME = "display name"` and either a function
`agent(game, state) -> move` or a class `Agent(game, seat)` with a method `move(state)`.
`validate_agent(path, game)` checks one file the way the tournament will; `Tournament` runs a
whole class (also as `python -m gamekit.tournament`), `Results` reads the outcome and
`write_report` writes the offline leaderboard with its replay.
"""

from .games import GAMES, GameFailure, GameRef, resolve_game
from .html import leaderboard_html, replay_html, write_report
from .referee import GameSpec, play_game_spec
from .results import Pairing, Question, Results, Standing
from .runner import Entrant, Tournament, validate_agent
from .sandbox import AgentFailure, Limits

__all__ = [
    "GAMES",
    "AgentFailure",
    "Entrant",
    "GameFailure",
    "GameRef",
    "GameSpec",
    "Limits",
    "Pairing",
    "Question",
    "Results",
    "Standing",
    "Tournament",
    "leaderboard_html",
    "play_game_spec",
    "replay_html",
    "resolve_game",
    "validate_agent",
    "write_report",
]
