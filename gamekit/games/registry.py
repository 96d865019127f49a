"""The one list of the course's games: what every other list (the tournament's short names, the
architecture rule's game names, the contract tests, the tournament guide's list in docs/tournament.md) is read from.

A game of the course is one module in `gamekit/games/` and one entry here: its class, the small
instances the contract tests check at every position (from plain parameters, so the same entry
serves a test, the tournament's `--param` and a student's `from_params`), and, where the class
tournament offers it, a short name with its default parameters. `tests/test_architecture.py`
fails when a module of `gamekit/games/` defines a game class that no entry names.

Adding a game: its module (the `Game` protocol, `rules`, its wire format if states are not plain
tuples), one `CourseGame` line below, and `check_game` passes on its small instances; nothing else.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

__all__ = ["COURSE_GAMES", "CourseGame", "TournamentName", "course_game", "small_instances", "tournament_names"]


@dataclass(frozen=True)
class TournamentName:
    """A short name the class tournament takes (`--game NAME`), with the parameters it stands for."""

    name: str
    defaults: Mapping[str, Any]
    describe: str


@dataclass(frozen=True)
class CourseGame:
    """One game of the course.

    target: "module:Class" of the game.
    small: keyword parameters of small instances, each one checked at every position by the
        contract tests (`check_game`, the wire fuzzers, the searches against plain minimax).
    tournament: the short names under which the class tournament plays it (none: not offered).
    scores: its utilities are a tree's leaf scores (lesson 04's search trees), not +1/0/-1, so
        `check_game`, which asks for utilities in [-1, 1], does not apply to it.
    """

    target: str
    small: tuple[Mapping[str, Any], ...]
    tournament: tuple[TournamentName, ...] = field(default=())
    scores: bool = False

    @property
    def module(self) -> str:
        return self.target.split(":", 1)[0]

    @property
    def cls(self) -> type:
        module, _, name = self.target.partition(":")
        return getattr(importlib.import_module(module), name)

    def build(self, params: Mapping[str, Any] | None = None) -> Any:
        """An instance from plain parameters (the class's keyword arguments)."""
        return self.cls(**dict(params or {}))


def _frozen(**params: Any) -> Mapping[str, Any]:
    return MappingProxyType(params)


INF = float("inf")

COURSE_GAMES: dict[str, CourseGame] = {
    "subtraction": CourseGame(
        "gamekit.games.subtraction:SubtractionGame",
        small=(_frozen(start=22), _frozen(start=15, moves=(1, 4))),
        tournament=(
            TournamentName(
                "subtraction",
                _frozen(start=50, moves=[3, 5, 11]),
                "subtract 3, 5 or 11; reach exactly 0 to win (random start 20..50)",
            ),
        ),
    ),
    "tictactoe": CourseGame(
        "gamekit.games.tictactoe:TicTacToe",
        small=(_frozen(), _frozen(start="X...O....")),
        tournament=(
            TournamentName("tictactoe", _frozen(), "TicTacToe: X (player 0) moves first; a move is a square 0..8"),
        ),
    ),
    "nim": CourseGame(
        "gamekit.games.nim:Nim",
        small=(_frozen(piles=(1, 2, 3)), _frozen(piles=(1, 2, 2), misere=True)),
        tournament=(
            TournamentName(
                "nim",
                _frozen(piles=[3, 5, 7]),
                "Nim 3, 5, 7: whoever takes the last stick wins; a move is [pile, sticks taken]",
            ),
            TournamentName(
                "misere-nim",
                _frozen(piles=[3, 5, 7], misere=True),
                "misère Nim 3, 5, 7: whoever takes the last stick loses; a move is [pile, sticks taken]",
            ),
        ),
    ),
    "generalized-nim": CourseGame(
        "gamekit.games.generalized_nim:GeneralizedNim",
        small=(
            _frozen(board=7, moves=[{1: 2, 2: INF}, {1: INF, 3: 1}]),
            _frozen(board=9, moves=[{1: 3, 2: 2}, {1: 2, 3: 2}], first=1),
        ),
        tournament=(
            TournamentName(
                "generalized-nim",
                # budgets as [[stones taken, uses or null for unlimited], ...] per player (the arena's game)
                _frozen(board=24, moves=[[[1, 4], [2, None], [3, 2]], [[1, None], [2, 3], [4, None]]]),
                "the project's generalised Nim: one pile of 24, per-player budgets of moves; took last wins",
            ),
        ),
    ),
    "tree": CourseGame(
        "gamekit.games.random_tree:TreeGame",
        small=(_frozen(tree=[[3, [12, 8]], [2, 4, 6], [[14, 5], 2]]),),
        scores=True,
    ),
    "random-tree": CourseGame(
        "gamekit.games.random_tree:RandomTree",
        small=(_frozen(branching=3, depth=3, seed=1),),
        scores=True,
    ),
}


def course_game(name: str) -> CourseGame:
    """The entry `name`, or a KeyError that lists the names there are."""
    try:
        return COURSE_GAMES[name]
    except KeyError:
        raise KeyError(f"no course game {name!r}; the course's games are {', '.join(COURSE_GAMES)}") from None


def small_instances(scores: bool = True) -> list[tuple[str, Any]]:
    """(label, instance) for every small instance of every course game, in the registry's order;
    scores=False leaves out the search trees whose utilities are leaf scores."""
    found = []
    for name, entry in COURSE_GAMES.items():
        if entry.scores and not scores:
            continue
        for k, params in enumerate(entry.small):
            found.append((f"{name} {k}" if len(entry.small) > 1 else name, entry.build(params)))
    return found


def tournament_names() -> dict[str, tuple[str, TournamentName]]:
    """Short name -> (the game's target, its short-name entry), for the class tournament."""
    return {t.name: (entry.target, t) for entry in COURSE_GAMES.values() for t in entry.tournament}
