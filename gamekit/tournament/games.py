"""Which game a tournament plays, and the referee's view of its rules as JSON.

A tournament names its game as `module:Class` (`gamekit.games.nim:Nim`), as a file and a class
(`my_game.py:DotsAndBoxes`), or by one of the short names below, which stand for a class of the
course and its default parameters (there is no list of allowed games: any class that passes
`gamekit.testing.check_game` plays). States and moves travel as JSON through the game's wire
format (`gamekit.wire`).

Whose code runs where:

* a game of the course (a module of the installed `gamekit` package, with no file text of a
  student's) is trusted: the referee builds it in its own process (`LocalRules`), and so does each
  agent's process;
* any other game is a student's code, as untrusted as an agent, and it shares no process with
  anyone: the teacher's process never imports it, and neither does an agent's. Its file's text
  goes into a jailed process of its own (`JailedRules`, `gamekit.tournament.child.serve` with the
  role "game"), and the game exists nowhere else. The referee asks that process, in JSON, for the
  start positions and for one batched question per position, "expand": whether the game is over
  there (and its utilities), who moves, the legal moves, and each move's next state with the same
  summary of it. Each answer is checked (types, sizes, a player 0 or 1, finite utilities in
  [-1, 1]) and kept in ONE memo per game, keyed by the canonical JSON of the question, which
  answers the referee's own questions and every question an agent's process asks during its turn
  (relayed over the agent's channel, `gamekit.tournament.proxy.ProxyGame`). So the referee and
  every agent get the same answer to the same question by construction: a game cannot lie to one
  of them only, and no code of the game can read, change or slow an agent's process. Should the
  memo have dropped an answer (it is bounded), a fingerprint of it remains, and a game that answers
  the same question differently the second time fails. An agent may ask only about positions the
  game itself produced (its start, its initial state, a child in an answer).
* A game whose own code fails (or takes longer than its time per question, `Limits.game_seconds`)
  stops the tournament with `GameFailure`, naming the game, never an agent; only the referee's own
  observation of the game's process ever blames the game. A reply that is not one of the legal
  moves the game listed is the replier's loss; the game's `play` is only ever run on moves its own
  `legal_moves` listed, in its own process, so a move it lists but refuses is the game's failure.

Never pickle: JSON only, so a process can send nothing but data.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import importlib.machinery
import json
import math
import os
import sys
import time
from collections import OrderedDict
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import wire
from ..games.registry import tournament_names
from ..protocol import IllegalMoveError, MoveTypeError
from ..sandbox import BoxLimits, clean_text
from ..sandbox.inside import load_source
from ..sandbox.outcomes import Reason
from ..sandbox.process import WALL_FACTOR, WALL_SLACK, AgentFailure, JailedProcess
from .schedule import draw_starts

JSON = Any

#: What the zygote's children run (agents and students' games alike).
ENTRY = "gamekit.tournament.child:serve"
#: Largest state or move (bytes of JSON) a game's process may send.
MAX_STATE_BYTES = 64 * 1024
#: Longest text a replay shows for one position.
MAX_SHOWN_CHARS = 4000
#: Most distinct positions the agents of one game may ask its rules about (the referee's own are never refused).
MAX_POSITIONS = 500_000
#: Most bytes of JSON the memo of one game's answers keeps in full (beyond: fingerprints only).
MEMO_BYTES = 32 << 20
#: An agent's question about a position also brings the expansions of its next positions (one round
#: trip for a position and its children) when it has at most this many, within PREFETCH_BYTES of JSON.
PREFETCH_POSITIONS = 32
PREFETCH_BYTES = 256 * 1024


@dataclass(frozen=True)
class ShortName:
    """A short name for a game of the course: its class and default parameters."""

    target: str
    defaults: Mapping[str, Any]
    describe: str


#: The course's games under their short names, read from the one list of the course's games.
GAMES: dict[str, ShortName] = {
    name: ShortName(target, dict(entry.defaults), entry.describe)
    for name, (target, entry) in tournament_names().items()
}

FORMS = (
    "a short name (" + ", ".join(GAMES) + "), module:Class (gamekit.games.nim:Nim, my_game:MyGame) "
    "or a file and a class (path/to/my_game.py:MyGame)"
)


class GameFailure(RuntimeError):
    """The game's own code failed (not an agent's): the tournament cannot go on with this game."""


class BadMove(Exception):
    """An agent's reply the game does not take: `reason` is `Reason.WRONG_TYPE` or `Reason.ILLEGAL_MOVE`."""

    def __init__(self, reason: Reason, detail: str):
        if reason not in (Reason.WRONG_TYPE, Reason.ILLEGAL_MOVE):
            raise ValueError(f"a bad move's reason is Reason.WRONG_TYPE or Reason.ILLEGAL_MOVE, got {reason!r}")
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
        """A module of the installed gamekit package, with no file text of a student's (any other game,
        and anything that carries a file's text, is a student's code)."""
        return self.source is None and (self.module == "gamekit" or self.module.startswith("gamekit."))

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
    """The rules of a game object in this process, spoken in JSON: for the course's games in the referee's
    process, and inside the jailed process of a student's game, which answers `expand` (`legal=True`
    adds the legal moves to every view of `look`)."""

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
            raise BadMove(Reason.WRONG_TYPE, str(exc)[:300]) from None
        try:
            after = game.play(current, decoded)
        except IllegalMoveError as exc:
            raise BadMove(Reason.ILLEGAL_MOVE, str(exc)[:300]) from None
        except Exception as exc:  # any reply the game cannot take is the replier's fault
            raise BadMove(Reason.ILLEGAL_MOVE, f"{type(exc).__name__}: {exc}"[:300]) from None
        after_json = wire.state_to_json(game, after)
        return {"move": wire.move_to_json(game, decoded), "state": after_json, "view": _view(game, after, self.legal)}

    def initial(self) -> JSON:
        """The initial state as JSON."""
        return wire.state_to_json(self.game, self.game.initial_state())

    def expand(self, state: JSON) -> dict[str, Any]:
        """Everything about one position in one answer: its view (without legal moves), and if the game
        goes on, its legal moves and, for each, the next state and whether the game ends there (with
        the utilities) or who moves. The game's `play` runs here only on the moves it listed."""
        game = self.game
        current = wire.state_from_json(game, state)
        answer = _view(game, current)
        answer["legal"], answer["children"] = [], []
        if not answer["terminal"]:
            for move in game.legal_moves(current):
                after = game.play(current, move)
                summary = _summary(game, after)
                summary["state"] = wire.state_to_json(game, after)
                answer["legal"].append(wire.move_to_json(game, move))
                answer["children"].append(summary)
        return answer

    def close(self) -> None:
        pass


def _summary(game: Any, state: Any) -> dict[str, Any]:
    if game.is_terminal(state):
        return {"terminal": True, "utility": [float(game.utility(state, 0)), float(game.utility(state, 1))]}
    return {"terminal": False, "to_move": int(game.to_move(state))}


def serve_rules(rules: LocalRules, message: Mapping[str, Any]) -> dict[str, Any]:
    """One request to a game's process, answered (used by `child.serve` with the role "game")."""
    op = message.get("op")
    try:
        if op == "starts":
            return {"starts": rules.starts(int(message["n"]), int(message["seed"]), int(message["opening"]))}
        if op == "initial":
            return {"state": rules.initial()}
        if op == "expand":  # the first state always; the others while the answer stays below PREFETCH_BYTES
            states = list(message["states"])
            answers: list[dict[str, Any]] = []
            size = 0
            while states and len(answers) <= PREFETCH_POSITIONS and (not answers or size <= PREFETCH_BYTES):
                answers.append(rules.expand(states.pop(0)))
                size += len(json.dumps(answers[-1], separators=(",", ":")))
                if message.get("deep") and len(answers) == 1:  # and then its next positions that go on
                    states = [c["state"] for c in answers[0]["children"] if not c["terminal"]]
            return {"expand": answers}
    except BadMove as bad:
        return {"bad": bad.reason.value, "detail": bad.detail}
    return {"error": f"unknown request {op!r}"}


# --- checking what a student's game process sends back -------------------------------------------


def _size(value: JSON, what: str, name: str) -> JSON:
    if len(json.dumps(value, separators=(",", ":"))) > MAX_STATE_BYTES:
        raise GameFailure(f"the game {name} sent {what} larger than {MAX_STATE_BYTES} bytes of JSON")
    return value


def canonical(value: JSON) -> str:
    """The one text of a JSON value (sorted keys, no spaces): the key of a question in the memo."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), allow_nan=False)


def checked_view(view: Any, name: str, shown: bool = True) -> dict[str, Any]:
    """A view from the game `name`'s process, checked field by field (a `GameFailure` names what is
    wrong); `shown=False`: a summary without the position's text."""

    def fail(what: str) -> GameFailure:
        return GameFailure(f"the game {name}: {what}")

    if not isinstance(view, dict) or not isinstance(view.get("terminal"), bool):
        raise fail(f"its answer is not a position's view: {str(view)[:200]}")
    out: dict[str, Any] = {"terminal": view["terminal"], "to_move": None}
    if shown:
        text = view.get("shown")
        if not isinstance(text, str):
            raise fail("its text for a position is not a string")
        out["shown"] = clean_text(text, MAX_SHOWN_CHARS)
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
    return out


def checked_expansion(answer: Any, name: str) -> dict[str, Any]:
    """An "expand" answer from the game `name`'s process, checked: the view, and as many next states
    (each at most `MAX_STATE_BYTES`, with its own checked summary) as legal moves, none listed twice."""
    if not isinstance(answer, dict):
        raise GameFailure(f"the game {name}: its answer is not a position's expansion: {str(answer)[:200]}")
    out = checked_view(answer, name)
    legal, children = answer.get("legal"), answer.get("children")
    if not isinstance(legal, list) or not isinstance(children, list) or len(legal) != len(children):
        raise GameFailure(f"the game {name}: its legal moves and their next states do not pair up")
    if out["terminal"] != (not legal):
        what = "is over but lists moves" if out["terminal"] else "goes on but lists no legal move"
        raise GameFailure(f"the game {name}: a position that {what}")
    if len({canonical(m) for m in legal}) != len(legal):
        raise GameFailure(f"the game {name}: it lists a legal move twice: {str(legal)[:200]}")
    out["legal"] = [_size(m, "a move", name) for m in legal]
    out["children"] = []
    for child in children:
        if not isinstance(child, dict) or "state" not in child:
            raise GameFailure(f"the game {name}: a next state without its state: {str(child)[:200]}")
        summary = checked_view(child, name, shown=False)
        summary["state"] = _size(child["state"], "a state", name)
        out["children"].append(summary)
    return out


def open_rules(ref: GameRef, jailed: bool = True, seconds: float = 10.0, cpu_seconds: float = 60.0) -> Any:
    """The referee's rules for `ref`: in this process for a game of gamekit, else in a sandboxed
    process (`jailed=False`: a process without bubblewrap, only with the teacher's --trusted-code)
    that has `seconds` for each question (`Limits.game_seconds`) and `cpu_seconds` in all."""
    if ref.trusted:
        return LocalRules(build(ref))
    return JailedRules(ref, jailed=jailed, seconds=seconds, cpu_seconds=cpu_seconds)


@dataclass
class _Node:
    """One position's checked expansion: what an agent is sent, its text, and its moves by their JSON."""

    answer: dict[str, Any]
    shown: str
    size: int
    index: dict[str, int]


class JailedRules:
    """The rules of a student's game, asked of its own jailed process in JSON, with one memo of its
    answers for the referee and the agents alike (see the module docstring)."""

    def __init__(self, ref: GameRef, jailed: bool = True, seconds: float = 10.0, cpu_seconds: float = 60.0):
        self.ref, self.seconds = ref, seconds
        limits = BoxLimits(memory_mb=1024, startup_seconds=seconds, cpu_seconds=max(cpu_seconds, 10 * seconds))
        self.process = JailedProcess("game", ref.source or "", ref.label, limits, ENTRY, jailed=jailed)
        self._memo: OrderedDict[str, _Node] = OrderedDict()  # the answers kept in full, least recent first
        self._memo_bytes = 0
        self._prints: dict[bytes, bytes] = {}  # every question's fingerprint -> its answer's
        self._known: set[bytes] = set()  # the positions the game itself produced (an agent asks only about these)
        self._initial: JSON = None
        self._awake = False
        self.questions = 0  # answers the game's process computed (the rest came from the memo)
        try:
            deadline = self.process.start({"source": ref.source or ""})
            ready = self.process.receive(deadline, "startup")
            if "ready" not in ready:
                raise AgentFailure(Reason.STARTUP, str(ready.get("error", ready)) + "\n" + str(ready.get("trace", "")))
            self._ask({"op": "new", "game": ref.as_dict()}, "building the game")
        except AgentFailure as failure:
            self.close()
            raise GameFailure(f"the game {ref.name} failed to load: {failure.reason}: {failure.detail}") from None
        except GameFailure:  # the game's process answered with an error (an unknown class): it ends too
            self.close()
            raise

    @contextlib.contextmanager
    def awake(self) -> Iterator[None]:
        """Keep the game's process thawed for a while (an agent's turn, whose questions it answers):
        a question then costs no freezer writes, and each answer has the wall-clock deadline that
        `JailedProcess.turn` gives (twice its seconds plus a little); it is frozen again after."""
        group = self.process.group
        if group is None or self._awake:
            yield
            return
        self._awake = True
        group.thaw()
        try:
            yield
        finally:
            self._awake = False
            if self.process.group is not None:
                self.process.group.freeze()

    def _ask(self, message: dict[str, Any], doing: str) -> dict[str, Any]:
        try:
            if self._awake:
                deadline = time.monotonic() + WALL_FACTOR * self.seconds + WALL_SLACK
                self.process.send(message, deadline)
                reply = self.process.receive(deadline)
            else:
                reply = self.process.request(message, self.seconds)
        except AgentFailure as failure:
            raise GameFailure(f"the game {self.ref.name} failed {doing}: {failure.reason}: {failure.detail}") from None
        if "error" in reply:
            trace = "\n" + clean_text(reply["trace"], 1500) if reply.get("trace") else ""
            raise GameFailure(f"the game {self.ref.name} failed {doing}: {clean_text(reply['error'], 500)}{trace}")
        return reply

    @staticmethod
    def _print(text: str) -> bytes:
        return hashlib.blake2b(text.encode(), digest_size=16).digest()

    def starts(self, n: int, seed: int, opening: int = 0) -> list[JSON]:
        reply = self._ask({"op": "starts", "n": n, "seed": seed, "opening": opening}, "drawing start positions")
        starts = reply.get("starts")
        if not isinstance(starts, list) or len(starts) != n:
            raise GameFailure(f"the game {self.ref.name} sent {str(starts)[:100]} for {n} start positions")
        return [_size(s, "a start state", self.ref.name) for s in starts]

    def initial(self) -> JSON:
        """The game's initial state (asked once per game)."""
        if self._initial is None:
            state = _size(
                self._ask({"op": "initial"}, "giving its initial state").get("state"), "a state", self.ref.name
            )
            self._known.add(self._print(canonical(state)))
            self._initial = state
        return self._initial

    def _node(self, state: JSON) -> _Node:
        """The expansion of `state`, from the memo or the game's process (checked, remembered, fingerprinted)."""
        node = self._nodes([state])[0]
        assert node is not None  # the first is always answered
        return node

    def _nodes(self, states: list[JSON]) -> list[_Node | None]:
        """The expansions of `states` (the first always; the others as far as the game's process sent
        them, in one request for all that the memo does not hold)."""
        keys = [canonical(s) for s in states]
        nodes: list[_Node | None] = []
        for key in keys:
            nodes.append(self._memo.get(key))
            if nodes[-1] is not None:
                self._memo.move_to_end(key)
        missing = [i for i, node in enumerate(nodes) if node is None]
        if not missing:
            return nodes
        raw = self._ask({"op": "expand", "states": [states[i] for i in missing]}, "expanding a position").get("expand")
        if not isinstance(raw, list) or not 1 <= len(raw) <= len(missing):
            raise GameFailure(f"the game {self.ref.name} answered {len(missing)} positions with {str(raw)[:100]}")
        self.questions += len(raw)
        for i, answer in zip(missing, raw):
            nodes[i] = self._remember(keys[i], answer)
        return nodes

    def _fetch_deep(self, state: JSON, key: str) -> None:
        """`state`'s expansion and those of its next positions that go on, in one request."""
        raw = self._ask({"op": "expand", "states": [state], "deep": True}, "expanding a position").get("expand")
        if not isinstance(raw, list) or not raw:
            raise GameFailure(f"the game {self.ref.name} answered a position with {str(raw)[:100]}")
        node = self._remember(key, raw[0])
        going_on = [c["state"] for c in node.answer["children"] if not c["terminal"]]
        if len(raw) > 1 + len(going_on):
            raise GameFailure(f"the game {self.ref.name} sent more expansions than the position has next positions")
        self.questions += len(raw)
        for after, answer in zip(going_on, raw[1:]):
            after_key = canonical(after)
            if after_key not in self._memo:
                self._remember(after_key, answer)

    def _remember(self, key: str, raw: Any) -> _Node:
        checked = checked_expansion(raw, self.ref.name)
        shown = checked.pop("shown")
        text = canonical([checked, shown])
        seen = self._prints.setdefault(self._print(key), self._print(text))
        if seen != self._print(text):  # the referee saw the game's process answer one question two ways
            raise GameFailure(
                f"the game {self.ref.name} answered the same question twice differently "
                f"(the position {clean_text(key, 120)}): its rules are not a function of the position"
            )
        for child in checked["children"]:
            self._known.add(self._print(canonical(child["state"])))
        node = _Node(checked, shown, len(text), {canonical(m): i for i, m in enumerate(checked["legal"])})
        self._memo[key] = node
        self._memo_bytes += node.size
        while self._memo_bytes > MEMO_BYTES and len(self._memo) > 1:
            self._memo_bytes -= self._memo.popitem(last=False)[1].size
        return node

    def answer(self, question: Any) -> dict[str, Any]:
        """The answer to a question an agent's process asked during its turn, from the same memo as the
        referee's own. A question that is not one is the asker's `AgentFailure(Reason.PROTOCOL)`; one about
        a position the game never produced is refused (the agent's code gets a ValueError)."""
        if not isinstance(question, dict) or question.get("op") not in ("initial", "expand"):
            raise AgentFailure(Reason.PROTOCOL, f"a question about the rules that is not one: {str(question)[:200]}")
        if question["op"] == "initial":
            if set(question) != {"op"}:
                raise AgentFailure(Reason.PROTOCOL, f"a question with unknown parts: {sorted(question)[:5]}")
            return {"state": self.initial()}
        deep = question.get("deep", False)
        if set(question) - {"deep"} != {"op", "state"} or not isinstance(deep, bool):
            raise AgentFailure(Reason.PROTOCOL, f"a question with unknown parts: {sorted(question)[:5]}")
        try:
            key = canonical(question["state"])
        except (TypeError, ValueError):
            raise AgentFailure(Reason.PROTOCOL, "a question about a state that is not JSON data") from None
        fingerprint = self._print(key)
        if fingerprint not in self._prints and len(self._prints) >= MAX_POSITIONS:
            raise AgentFailure(Reason.PROTOCOL, f"it asked about more than {MAX_POSITIONS:,} positions in one game")
        if fingerprint not in self._known:
            return {
                "refused": "a position this game never produced (an agent gets positions only from the "
                "game: the one it is asked about, initial_state() and play())"
            }
        if deep and key not in self._memo:
            self._fetch_deep(question["state"], key)
        node = self._node(question["state"])
        if not deep:
            return node.answer
        going_on = [c["state"] for c in node.answer["children"] if not c["terminal"]]
        if not going_on or len(going_on) > PREFETCH_POSITIONS:
            return {"node": node.answer, "next": []}
        more = iter(self._nodes(going_on))
        after = [None if c["terminal"] else next(more) for c in node.answer["children"]]
        return {"node": node.answer, "next": [None if n is None else n.answer for n in after]}

    def look(self, state: JSON) -> dict[str, Any]:
        """The referee's view of `state` (a start, or a state the game produced)."""
        self._known.add(self._print(canonical(state)))
        node = self._node(state)
        view: dict[str, Any] = {k: node.answer[k] for k in ("terminal", "to_move", "utility") if k in node.answer}
        view["shown"] = node.shown
        return view

    def play(self, state: JSON, move: JSON) -> dict[str, Any]:
        """The next state after the reply `move`, if it is one of the legal moves the game listed
        (else `BadMove`: "wrong type" for a reply not shaped like any of its moves, else "illegal move")."""
        node = self._node(state)
        try:
            i = node.index.get(canonical(move))
        except (TypeError, ValueError):
            i = None
        legal = node.answer["legal"]
        if i is None:
            listed = wire.show(legal, 120)
            if _shape(move) not in {_shape(m) for m in legal}:
                raise BadMove(Reason.WRONG_TYPE, f"{wire.show(move)} is not a move of this game (its moves: {listed})")
            raise BadMove(Reason.ILLEGAL_MOVE, f"{wire.show(move)} is not one of the legal moves {listed}")
        after = node.answer["children"][i]["state"]
        return {"move": legal[i], "state": after, "view": self.look(after)}

    def close(self) -> None:
        self.process.close()


def _shape(value: JSON) -> Any:
    """What a JSON value looks like (its kind; a list's length and items' shapes; an object's keys)."""
    if isinstance(value, bool) or value is None:
        return type(value).__name__
    if isinstance(value, (int, float, str)):
        return type(value).__name__
    if isinstance(value, list):
        return ("list", len(value), tuple(_shape(v) for v in value[:16]))
    if isinstance(value, dict):
        return ("object", tuple(sorted(str(k) for k in value)))
    return "?"
