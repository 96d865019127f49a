"""Which game a tournament plays, and the referee's view of its rules as JSON.

A tournament names its game as `module:Class` (`gamekit.games.nim:Nim`), as a file and a class
(`my_game.py:DotsAndBoxes`), or by one of the short names below, which stand for a class of the
course and its default parameters (there is no list of allowed games: any class that passes
`gamekit.testing.check_game` plays). States and moves travel as JSON through the game's wire
format (`gamekit.wire`).

Whose code runs where:

* a game of the course (a module of the installed `gamekit` package) is trusted: the referee
  builds it in its own process (`LocalRules`);
* any other game is a student's code, as untrusted as an agent: the teacher's process never
  imports it. Its file's text goes, like an agent's, into a jailed process of its own
  (`JailedRules`, `gamekit.tournament.child.serve` with the role "game"), and the referee asks
  it, in JSON, for the start positions, for each move's result, whether the game is over and
  the legal moves. What comes back is checked (types, sizes, a player 0 or 1, finite utilities in
  [-1, 1]); a game whose own code fails stops the tournament with `GameFailure`, naming the game,
  never an agent. The agents' processes get the same text, to build the same game in their jails;
  with every "your move" they also get the referee's legal moves and state, and a game whose
  code there disagrees (it looks at the agent, reads files, is not a function of its inputs) is
  named as the game's failure before the agent is asked. A move the game's own list offered but
  its own `play` refuses is the game's failure too.

Never pickle: JSON only, so a process can send nothing but data.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import json
import math
import os
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import wire
from ..protocol import IllegalMoveError, MoveTypeError
from ..sandbox import BoxLimits, clean_text
from ..sandbox.inside import load_source
from ..sandbox.process import AgentFailure, JailedProcess
from .schedule import draw_starts

JSON = Any

#: What the zygote's children run (agents and students' games alike).
ENTRY = "gamekit.tournament.child:serve"
#: Largest state or move (bytes of JSON) a game's process may send.
MAX_STATE_BYTES = 64 * 1024
#: Longest text a replay shows for one position.
MAX_SHOWN_CHARS = 4000

WrongMoveType = MoveTypeError  # the name the referee's records and older code use


@dataclass(frozen=True)
class ShortName:
    """A short name for a game of the course: its class and default parameters."""

    target: str
    defaults: Mapping[str, Any]
    describe: str


GAMES: dict[str, ShortName] = {
    "subtraction": ShortName(
        "gamekit.games.subtraction:SubtractionGame",
        {"start": 50, "moves": [3, 5, 11]},
        "subtract 3, 5 or 11; reach exactly 0 to win (random start 20..50)",
    ),
    "tictactoe": ShortName(
        "gamekit.games.tictactoe:TicTacToe", {}, "TicTacToe: X (player 0) moves first; a move is a square 0..8"
    ),
    "nim": ShortName(
        "gamekit.games.nim:Nim",
        {"piles": [3, 5, 7]},
        "Nim 3, 5, 7: whoever takes the last stick wins; a move is [pile, sticks taken]",
    ),
    "misere-nim": ShortName(
        "gamekit.games.nim:Nim",
        {"piles": [3, 5, 7], "misere": True},
        "misère Nim 3, 5, 7: whoever takes the last stick loses; a move is [pile, sticks taken]",
    ),
    "generalized-nim": ShortName(
        "gamekit.games.generalized_nim:GeneralizedNim",
        # budgets as [[stones taken, uses or null for unlimited], ...] per player (the arena's game)
        {"board": 24, "moves": [[[1, 4], [2, None], [3, 2]], [[1, None], [2, 3], [4, None]]]},
        "the project's generalised Nim: one pile of 24, per-player budgets of moves; took last wins",
    ),
}

FORMS = (
    "a short name (" + ", ".join(GAMES) + "), module:Class (gamekit.games.nim:Nim, my_game:MyGame) "
    "or a file and a class (path/to/my_game.py:MyGame)"
)


class GameFailure(RuntimeError):
    """The game's own code failed (not an agent's): the tournament cannot go on with this game."""


class BadMove(Exception):
    """An agent's reply the game does not take: `reason` is "wrong type" or "illegal move"."""

    def __init__(self, reason: str, detail: str):
        super().__init__(f"{reason}: {detail}")
        self.reason = reason
        self.detail = detail


@dataclass(frozen=True)
class GameRef:
    """A game as a tournament stores it: what the teacher typed, the class, the parameters, and,
    for a student's game, its file's text (which only sandboxed processes ever run)."""

    name: str
    target: str  # "module:Class"
    params: dict[str, Any] = field(default_factory=dict)
    source: str | None = None  # None: a module of the installed gamekit package (trusted)

    @property
    def module(self) -> str:
        return self.target.rsplit(":", 1)[0]

    @property
    def cls(self) -> str:
        return self.target.rsplit(":", 1)[1]

    @property
    def trusted(self) -> bool:
        """A module of the installed gamekit package (any other game is a student's code)."""
        return self.module == "gamekit" or self.module.startswith("gamekit.")

    @property
    def label(self) -> str:
        """The game's file name, as tracebacks and messages show it."""
        return f"{self.module}.py"

    def as_dict(self, source: bool = True) -> dict[str, Any]:
        """The reference as JSON data; source=False leaves out the file's text."""
        return {
            "name": self.name,
            "target": self.target,
            "params": self.params,
            "source": self.source if source else None,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> GameRef:
        return cls(str(data["name"]), str(data["target"]), dict(data.get("params") or {}), data.get("source"))


def resolve_game(game: str | GameRef, params: Mapping[str, Any] | None = None) -> GameRef:
    """The game `game` names, with `params` over its defaults (see `FORMS`); a student's file is read, never run."""
    if isinstance(game, GameRef):
        return game if params is None else GameRef(game.name, game.target, {**game.params, **params}, game.source)
    if not isinstance(game, str) or not game.strip():
        raise ValueError(f"a game is {FORMS}; got {game!r}")
    params = dict(params or {})
    if game in GAMES:
        short = GAMES[game]
        return GameRef(game, short.target, {**short.defaults, **params})
    if ":" not in game:
        raise ValueError(f"unknown game {game!r}: a game is {FORMS}")
    where, cls = game.rsplit(":", 1)
    if not cls.isidentifier():
        raise ValueError(f"{cls!r} is not a class name (in {game!r}); a game is {FORMS}")
    if where.endswith(".py") or "/" in where or os.sep in where:
        path = Path(where)
        if not path.is_file():
            raise ValueError(f"no file {where} (for the game {game!r})")
        if not path.stem.isidentifier() or path.stem == "gamekit":
            raise ValueError(f"a game's file needs a name that can be a module's, other than gamekit: {path.name}")
        # named by the file's name alone: the teacher's folders do not appear on the leaderboard
        return GameRef(f"{path.name}:{cls}", f"{path.stem}:{cls}", params, path.read_text(encoding="utf-8"))
    if where == "gamekit" or where.startswith("gamekit."):
        return GameRef(game, f"{where}:{cls}", params)
    if "." in where or not where.isidentifier():
        raise ValueError(f"give a game outside gamekit as its file: path/to/{where.split('.')[-1]}.py:{cls}")
    spec = importlib.machinery.PathFinder.find_spec(where, [os.getcwd(), *sys.path])  # finds, never runs
    if spec is None or not spec.origin or not spec.origin.endswith(".py"):
        raise ValueError(f"no module {where!r} here (looked in the current folder and sys.path); give its file")
    return GameRef(game, f"{where}:{cls}", params, Path(spec.origin).read_text(encoding="utf-8"))


def game_class(ref: GameRef, inside: bool = False) -> type:
    """The class of `ref`: imported from gamekit, or, for a student's game, run from its text
    (`inside=True`: only ever in that game's or an agent's jailed process)."""
    if ref.trusted:
        module = importlib.import_module(ref.module)
    elif not inside or ref.source is None:
        raise ValueError(f"the game {ref.name} is not part of gamekit: it runs only in a sandboxed process")
    elif getattr(sys.modules.get(ref.module), "__gamekit_game__", False):
        module = sys.modules[ref.module]
    else:
        module = load_source(ref.source, ref.label, ref.module)
        module.__gamekit_game__ = True  # type: ignore[attr-defined]
    cls = getattr(module, ref.cls, None)
    if not isinstance(cls, type):
        raise ValueError(f"{ref.module} has no class {ref.cls}")
    return cls


def build(ref: GameRef, inside: bool = False) -> Any:
    """The game object of `ref` with its parameters (unknown parameters are refused, with the allowed ones)."""
    return wire.build_game(game_class(ref, inside), ref.params)


# --- the rules as JSON ---------------------------------------------------------------------------


def _view(game: Any, state: Any, legal: bool = False) -> dict[str, Any]:
    terminal = bool(game.is_terminal(state))
    view: dict[str, Any] = {"terminal": terminal, "shown": wire.describe_state(game, state)[:MAX_SHOWN_CHARS]}
    if terminal:
        view["utility"] = [float(game.utility(state, 0)), float(game.utility(state, 1))]
        view["to_move"] = None
    else:
        view["to_move"] = int(game.to_move(state))
        if legal:
            view["legal"] = [wire.move_to_json(game, m) for m in game.legal_moves(state)]
    return view


class LocalRules:
    """The rules of a game object in this process, spoken in JSON (for trusted games, and inside the
    jailed process of a student's game, where `legal=True` adds the legal moves to every view)."""

    def __init__(self, game: Any, legal: bool = False):
        self.game = game
        self.legal = legal

    def starts(self, n: int, seed: int, opening: int = 0) -> list[JSON]:
        """`n` start states as JSON (see `gamekit.tournament.schedule.draw_starts`)."""
        return draw_starts(self.game, n, seed, opening)

    def look(self, state: JSON) -> dict[str, Any]:
        """Is the game over in `state` (then both utilities), else who moves; and the position as text."""
        return _view(self.game, wire.state_from_json(self.game, state), self.legal)

    def play(self, state: JSON, move: JSON) -> dict[str, Any]:
        """The move as the game writes it, the new state, and its view; `BadMove` for a reply it does not take."""
        game = self.game
        current = wire.state_from_json(game, state)
        try:
            decoded = wire.move_from_json(game, move)
        except (MoveTypeError, TypeError, ValueError, KeyError, IndexError) as exc:
            raise BadMove("wrong type", str(exc)[:300]) from None
        try:
            after = game.play(current, decoded)
        except IllegalMoveError as exc:
            raise BadMove("illegal move", str(exc)[:300]) from None
        except Exception as exc:  # any reply the game cannot take is the replier's fault
            raise BadMove("illegal move", f"{type(exc).__name__}: {exc}"[:300]) from None
        after_json = wire.state_to_json(game, after)
        return {"move": wire.move_to_json(game, decoded), "state": after_json, "view": _view(game, after, self.legal)}

    def close(self) -> None:
        pass


def serve_rules(rules: LocalRules, message: Mapping[str, Any]) -> dict[str, Any]:
    """One request to a game's process, answered (used by `child.serve` with the role "game")."""
    op = message.get("op")
    try:
        if op == "starts":
            return {"starts": rules.starts(int(message["n"]), int(message["seed"]), int(message["opening"]))}
        if op == "look":
            return {"view": rules.look(message["state"])}
        if op == "play":
            return rules.play(message["state"], message["move"])
    except BadMove as bad:
        return {"bad": bad.reason, "detail": bad.detail}
    return {"error": f"unknown request {op!r}"}


# --- checking what a student's game process sends back -------------------------------------------


def _size(value: JSON, what: str, name: str) -> JSON:
    if len(json.dumps(value, separators=(",", ":"))) > MAX_STATE_BYTES:
        raise GameFailure(f"the game {name} sent {what} larger than {MAX_STATE_BYTES} bytes of JSON")
    return value


def checked_view(view: Any, name: str) -> dict[str, Any]:
    """A view from the game `name`'s process, checked field by field (a `GameFailure` names what is wrong)."""

    def fail(what: str) -> GameFailure:
        return GameFailure(f"the game {name}: {what}")

    if not isinstance(view, dict) or not isinstance(view.get("terminal"), bool):
        raise fail(f"its answer is not a position's view: {str(view)[:200]}")
    shown = view.get("shown")
    if not isinstance(shown, str):
        raise fail("its text for a position is not a string")
    out: dict[str, Any] = {"terminal": view["terminal"], "shown": clean_text(shown, MAX_SHOWN_CHARS), "to_move": None}
    if view["terminal"]:
        u: Any = view.get("utility")
        ok = isinstance(u, list) and len(u) == 2
        ok = ok and all(isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) for x in u)
        if not ok or not all(-1.0 <= x <= 1.0 for x in u):
            raise fail(f"its utilities at the end are not two numbers in [-1, 1]: {str(u)[:100]}")
        out["utility"] = [float(u[0]), float(u[1])]
    else:
        to_move = view.get("to_move")
        if to_move not in (0, 1) or isinstance(to_move, bool):
            raise fail(f"it says player {str(to_move)[:50]} is to move (must be 0 or 1)")
        out["to_move"] = int(to_move)
        if "legal" in view:
            legal = view["legal"]
            if not isinstance(legal, list) or not legal:
                raise fail(f"its legal moves are not a non-empty list: {str(legal)[:100]}")
            out["legal"] = _size(legal, "a list of legal moves", name)
    return out


def open_rules(ref: GameRef, jailed: bool = True, seconds: float = 10.0) -> Any:
    """The referee's rules for `ref`: in this process for a game of gamekit, else in a sandboxed
    process (`jailed=False`: a process without bubblewrap, only with the teacher's --trusted-code)
    that has `seconds` for each request (`Limits.game_seconds`)."""
    if ref.trusted:
        return LocalRules(build(ref))
    return JailedRules(ref, jailed=jailed, seconds=seconds)


class JailedRules:
    """The rules of a student's game, asked of its own jailed process in JSON."""

    def __init__(self, ref: GameRef, jailed: bool = True, seconds: float = 10.0):
        self.ref, self.seconds = ref, seconds
        limits = BoxLimits(memory_mb=1024, startup_seconds=seconds, cpu_seconds=max(60.0, 10 * seconds))
        self.process = JailedProcess("game", ref.source or "", ref.label, limits, ENTRY, jailed=jailed)
        try:
            deadline = self.process.start({"source": ref.source or ""})
            ready = self.process.receive(deadline, "startup")
            if "ready" not in ready:
                raise AgentFailure("startup", str(ready.get("error", ready)) + "\n" + str(ready.get("trace", "")))
            self._ask({"op": "new", "game": ref.as_dict()}, "building the game")
        except AgentFailure as failure:
            self.close()
            raise GameFailure(f"the game {ref.name} failed to load: {failure.reason}: {failure.detail}") from None
        except GameFailure:  # the game's process answered with an error (an unknown class): it ends too
            self.close()
            raise

    def _ask(self, message: dict[str, Any], doing: str) -> dict[str, Any]:
        try:
            reply = self.process.request(message, self.seconds)
        except AgentFailure as failure:
            raise GameFailure(f"the game {self.ref.name} failed {doing}: {failure.reason}: {failure.detail}") from None
        if "error" in reply:
            trace = "\n" + clean_text(reply["trace"], 1500) if reply.get("trace") else ""
            raise GameFailure(f"the game {self.ref.name} failed {doing}: {clean_text(reply['error'], 500)}{trace}")
        return reply

    def starts(self, n: int, seed: int, opening: int = 0) -> list[JSON]:
        reply = self._ask({"op": "starts", "n": n, "seed": seed, "opening": opening}, "drawing start positions")
        starts = reply.get("starts")
        if not isinstance(starts, list) or len(starts) != n:
            raise GameFailure(f"the game {self.ref.name} sent {str(starts)[:100]} for {n} start positions")
        return [_size(s, "a start state", self.ref.name) for s in starts]

    def look(self, state: JSON) -> dict[str, Any]:
        return checked_view(
            self._ask({"op": "look", "state": state}, "looking at a position").get("view"), self.ref.name
        )

    def play(self, state: JSON, move: JSON) -> dict[str, Any]:
        t0 = time.monotonic()
        try:
            reply = self.process.request({"op": "play", "state": state, "move": move}, self.seconds)
        except AgentFailure as failure:  # the game's code could not take this reply: the replier's fault
            raise BadMove(
                "illegal move",
                f"the game's own code failed on it ({failure.reason}, after {time.monotonic() - t0:.1f} s)",
            ) from None
        if "bad" in reply:
            reason = reply["bad"] if reply["bad"] in ("wrong type", "illegal move") else "illegal move"
            raise BadMove(reason, str(reply.get("detail", ""))[:300])
        if "error" in reply:
            raise BadMove("illegal move", f"the game's own code failed on it: {str(reply['error'])[:300]}")
        if "state" not in reply or "move" not in reply:
            raise GameFailure(f"the game {self.ref.name} answered a move with {str(reply)[:200]}")
        return {
            "move": _size(reply["move"], "a move", self.ref.name),
            "state": _size(reply["state"], "a state", self.ref.name),
            "view": checked_view(reply.get("view"), self.ref.name),
        }

    def close(self) -> None:
        self.process.close()
