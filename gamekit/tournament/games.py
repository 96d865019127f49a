"""The course's games as a tournament knows them: by name, with their states and moves as JSON.

Agents run in other processes (and on other machines), so a state and a move must cross a
process boundary as JSON and come back as the game's own types. Each `GameKind` names a game,
builds it from JSON-able parameters, and converts its states and moves both ways. Decoding a
move is strict: a reply that is not of the move's type raises `WrongMoveType`, and the referee
then forfeits the game for the agent that sent it (whether the move is *legal* is the game's
own business: `game.play` decides that).

Never pickle: JSON only, so an agent can send nothing but data.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..games.generalized_nim import GeneralizedNim, GNimState
from ..games.nim import Nim, NimState
from ..games.subtraction import SubtractionGame, SubtractionState
from ..games.tictactoe import TicTacToe, board_text
from ..protocol import Game

JSON = Any


class WrongMoveType(TypeError):
    """An agent's reply is not a move of this game's type (e.g. a string where a square number is due)."""


def _int(value: JSON, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise WrongMoveType(f"{what} must be a whole number, got {value!r} ({type(value).__name__})")
    return value


@dataclass(frozen=True)
class GameKind:
    """One game of the course, by name: how to build it and how its states and moves travel as JSON."""

    name: str
    describe: str
    make: Callable[[Mapping[str, Any]], Any]  # returns a Game
    state_to_json: Callable[[Any], JSON]
    state_from_json: Callable[[JSON], Any]
    move_to_json: Callable[[Any], JSON]
    move_from_json: Callable[[JSON], Any]
    show: Callable[[Any], str]
    defaults: Mapping[str, Any] = field(default_factory=dict)

    def build(self, params: Mapping[str, Any] | None = None) -> Game:
        """The game with `params` (unknown names are refused, defaults fill the rest)."""
        params = dict(params or {})
        unknown = sorted(set(params) - set(self.defaults))
        if unknown:
            allowed = ", ".join(sorted(self.defaults)) or "none"
            raise ValueError(f"{self.name} has no parameter {', '.join(unknown)}; its parameters: {allowed}")
        return self.make({**self.defaults, **params})


# --- the subtraction game ------------------------------------------------------------------------


def _sub_state(data: JSON) -> SubtractionState:
    n, to_move = data
    return SubtractionState(int(n), int(to_move))


def _sub_show(state: SubtractionState) -> str:
    return f"n = {state.n}, player {state.to_move} to move"


SUBTRACTION = GameKind(
    name="subtraction",
    describe="subtract 3, 5 or 11; reach exactly 0 to win (random start 20..50)",
    make=lambda p: SubtractionGame(start=int(p["start"]), moves=tuple(p["moves"])),
    state_to_json=lambda s: [s.n, s.to_move],
    state_from_json=_sub_state,
    move_to_json=lambda m: m,
    move_from_json=lambda m: _int(m, "a subtraction move"),
    show=_sub_show,
    defaults={"start": 50, "moves": [3, 5, 11]},
)

# --- TicTacToe -------------------------------------------------------------------------------------


def _ttt_state(data: JSON) -> tuple[str, ...]:
    if not isinstance(data, str) or len(data) != 9:
        raise ValueError(f"a TicTacToe state is 9 characters of X, O and '.', got {data!r}")
    return tuple(data)


TICTACTOE = GameKind(
    name="tictactoe",
    describe="TicTacToe: X (player 0) moves first; a move is a square 0..8",
    make=lambda p: TicTacToe(),
    state_to_json=lambda s: "".join(s),
    state_from_json=_ttt_state,
    move_to_json=lambda m: m,
    move_from_json=lambda m: _int(m, "a TicTacToe move (a square 0..8)"),
    show=board_text,
    defaults={},
)

# --- Nim and misère Nim ----------------------------------------------------------------------------


def _nim_state(data: JSON) -> NimState:
    piles, to_move = data
    return NimState(tuple(int(p) for p in piles), int(to_move))


def _nim_move(data: JSON) -> tuple[int, int]:
    if not isinstance(data, list) or len(data) != 2:
        raise WrongMoveType(f"a Nim move is a pair [pile, sticks taken], got {data!r} ({type(data).__name__})")
    return (_int(data[0], "the pile of a Nim move"), _int(data[1], "the sticks taken in a Nim move"))


def _nim_show(state: NimState) -> str:
    return "\n".join(f"pile {i}: {'|' * p} ({p})" for i, p in enumerate(state.piles))


def _nim_kind(name: str, misere: bool) -> GameKind:
    rule = "whoever takes the last stick loses" if misere else "whoever takes the last stick wins"
    return GameKind(
        name=name,
        describe=f"{'misère ' if misere else ''}Nim 3, 5, 7: {rule}; a move is [pile, sticks taken]",
        make=lambda p: Nim(tuple(p["piles"]), misere=misere),
        state_to_json=lambda s: [list(s.piles), s.to_move],
        state_from_json=_nim_state,
        move_to_json=lambda m: [m[0], m[1]],
        move_from_json=_nim_move,
        show=_nim_show,
        defaults={"piles": [3, 5, 7]},
    )


NIM = _nim_kind("nim", misere=False)
MISERE_NIM = _nim_kind("misere-nim", misere=True)

# --- generalised Nim -------------------------------------------------------------------------------


def _uses_to_json(uses: float) -> JSON:
    return None if uses == math.inf else int(uses)


def _uses_from_json(uses: JSON) -> float:
    return math.inf if uses is None else int(uses)


def _gnim_to_json(s: GNimState) -> JSON:
    budgets = [[[take, _uses_to_json(uses)] for take, uses in b] for b in s.budgets]
    return {"board": s.board, "budgets": budgets, "to_move": s.to_move, "won": s.won}


def _gnim_from_json(data: JSON) -> GNimState:
    budgets = tuple(tuple((int(t), _uses_from_json(u)) for t, u in b) for b in data["budgets"])
    return GNimState(int(data["board"]), budgets, int(data["to_move"]), bool(data["won"]))  # type: ignore[arg-type]


def _gnim_make(p: Mapping[str, Any]) -> GeneralizedNim:
    moves = [{int(t): _uses_from_json(u) for t, u in budget} for budget in p["moves"]]
    return GeneralizedNim(int(p["board"]), moves)


def _gnim_show(s: GNimState) -> str:
    def budget(b: Any) -> str:
        return ", ".join(f"take {t}: {'∞' if u == math.inf else u}×" for t, u in b)

    return f"{s.board} stones, player {s.to_move} to move\nP0 {budget(s.budgets[0])}\nP1 {budget(s.budgets[1])}"


GENERALIZED_NIM = GameKind(
    name="generalized-nim",
    describe="the project's generalised Nim: one pile of 24, per-player budgets of moves; took last wins",
    make=_gnim_make,
    state_to_json=_gnim_to_json,
    state_from_json=_gnim_from_json,
    move_to_json=lambda m: m,
    move_from_json=lambda m: _int(m, "a generalised Nim move (stones taken)"),
    show=_gnim_show,
    # budgets as [[stones taken, uses or null for unlimited], ...] per player (the arena's game)
    defaults={"board": 24, "moves": [[[1, 4], [2, None], [3, 2]], [[1, None], [2, 3], [4, None]]]},
)

GAMES: dict[str, GameKind] = {k.name: k for k in (SUBTRACTION, TICTACTOE, NIM, MISERE_NIM, GENERALIZED_NIM)}


def game_kind(name: str) -> GameKind:
    """The course game called `name` (subtraction, tictactoe, nim, misere-nim, generalized-nim)."""
    if name not in GAMES:
        raise ValueError(f"unknown game {name!r}; the tournament knows: {', '.join(GAMES)}")
    return GAMES[name]
