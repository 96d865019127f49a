"""The referee: plays one game between two submissions and returns its record.

The referee owns the game: it keeps the state (as JSON), sends it to the agent whose turn it
is, and lets the game's rules decode the reply strictly (the game's wire format, `gamekit.wire`)
and judge it (`game.play`): in the referee's process for a game of the course; for a student's
game, from the answers of the game's own sandboxed process, kept in one memo that also answers
every rules question the agents ask in their turns (`gamekit.tournament.games.JailedRules`), so
the referee and the agents cannot be told different rules. Nothing an agent does in its process
can change that state, and nothing an agent says is taken as a fact about anyone else. A failure
of any kind (too slow, a crash, an exception, an illegal move, a reply of the wrong type, a
sandbox violation) loses the game for the agent that failed; the record says
why, and the tournament goes on.

A game is described by a `GameSpec` (plain JSON data, so it can travel to a Dask worker) and
produces a plain dict (the record), so local and cluster runs are the same code. The record's
reason and detail are English data in any language; `detail_text` shows a detail the referee
wrote in the language in force (`gamekit.sandbox.outcomes.reason_text` the reason).
"""

from __future__ import annotations

import contextlib
import random
import time
import types
from dataclasses import asdict, dataclass
from typing import Any

from .. import wire
from ..i18n import N_
from ..sandbox.outcomes import Reason, reworded
from .games import BadMove, GameRef, open_rules, resolve_game
from .sandbox import RELAY_FACTOR, AgentFailure, AgentProcess, Limits, spend, time_left


@dataclass(frozen=True)
class GameSpec:
    """Everything needed to play one game, as JSON data.

    game: the game's name as the tournament was given it; target and game_source: its class
    ("module:Class") and, for a student's game, its file's text (see `gamekit.tournament.games`);
    agents: the two agents' ids, seat 0 (moves first) first; sources: their files' text; seeds:
    the seed each agent's process starts its global generators with; start: the start state as
    JSON; sandbox=False plays both agents in the referee's own process (trusted code only: no
    limit is enforced there, it exists to measure what the sandbox costs).
    """

    id: str
    game: str
    params: dict[str, Any]
    start: Any
    agents: tuple[str, str]
    sources: tuple[str, str]
    seeds: tuple[int, int]
    limits: dict[str, Any]
    sandbox: bool = True
    trusted_code: bool = False  # True: agents run without bubblewrap (the teacher's --trusted-code)
    target: str = ""  # "" for a short name: resolved from `game`
    game_source: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def ref(self) -> GameRef:
        """The game this spec plays."""
        if not self.target:
            return resolve_game(self.game, self.params)
        return GameRef(self.game, self.target, dict(self.params), self.game_source)


#: The details the referee itself writes into a record (English data, shown through `detail_text`).
ZYGOTE_KILLED = N_("it killed its own sandbox's process manager (the zygote)")
MOVE_CAP_DRAW = N_("stopped as a draw after {moves} moves")
NOT_JSON = N_("the reply is not JSON data: {kind}: {reply}")
SYNTAX_ERROR = N_("syntax error in line {line}: {message}")
NOT_PYTHON = N_("not a Python file: {error}")
DETAILS = (ZYGOTE_KILLED, MOVE_CAP_DRAW, NOT_JSON, SYNTAX_ERROR, NOT_PYTHON)


def detail_text(detail: str) -> str:
    """A record's detail (or `check_source`'s problem) as a student reads it, in the language in force: the
    referee's own sentences translated; what an agent's process reported (its error) is shown as it is."""
    return reworded(detail, DETAILS)


def _record(spec: GameSpec, view: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": spec.id,
        "game": spec.game,
        "agents": list(spec.agents),
        "names": ["", ""],
        "start": spec.start,
        "moves": [],
        "movers": [],
        "states": [spec.start],
        "shown": [view["shown"]],
        "times": [],
        "winner": None,
        "score": [0.5, 0.5],
        "forfeit": None,
        "reason": "",
        "detail": "",
        "output": ["", ""],
        "failed_after": None,  # seconds from the request to the failure (wall clock), for a forfeit
    }


def _finish(record: dict[str, Any], view: dict[str, Any]) -> None:
    u = view["utility"]
    record["winner"] = None if u[0] == u[1] else (0 if u[0] > u[1] else 1)
    record["score"] = [0.5, 0.5] if record["winner"] is None else [1.0 - record["winner"], float(record["winner"])]


def _forfeit(record: dict[str, Any], seat: int, failure: AgentFailure) -> None:
    record.update(
        winner=1 - seat,
        score=[float(seat), 1.0 - seat],
        forfeit=seat,
        reason=failure.reason.value,
        detail=failure.detail,
    )


def play_game_spec(spec: GameSpec | dict[str, Any]) -> dict[str, Any]:
    """Play the game `spec` describes and return its record (a JSON-able dict); never raises for an
    agent's fault (a student's game that fails raises `GameFailure`: no agent is to blame)."""
    if isinstance(spec, dict):
        spec = GameSpec(**{**spec, "agents": tuple(spec["agents"]), "sources": tuple(spec["sources"])})
    ref = spec.ref()
    limits = Limits(**spec.limits)
    t0 = time.monotonic()
    rules = open_rules(
        ref, jailed=not spec.trusted_code, seconds=limits.game_seconds, cpu_seconds=(RELAY_FACTOR + 1) * 2 * limits.cpu
    )
    try:
        view = rules.look(spec.start)
        record = _record(spec, view)
        if spec.sandbox:
            _play_sandboxed(spec, ref, rules, view, limits, record)
        else:
            _play_in_process(spec, rules, view, limits, record)
    finally:
        rules.close()
    record["seconds"] = time.monotonic() - t0
    return record


def _play_sandboxed(
    spec: GameSpec, ref: GameRef, rules: Any, view: dict[str, Any], limits: Limits, record: dict[str, Any]
) -> None:
    relay = None if ref.trusted else rules.answer  # a student's game: the agents ask its rules through the referee
    agents = [
        AgentProcess(source, limits, jailed=not spec.trusted_code, label=f"{agent_id}.py", relay=relay)
        for source, agent_id in zip(spec.sources, spec.agents)
    ]
    try:
        t_start = time.monotonic()
        deadlines: list[float] = []
        for seat, agent in enumerate(agents):  # both load at the same time
            try:
                deadlines.append(agent.start())
            except AgentFailure as failure:  # its own jail was ended by itself (in another of its games)
                _forfeit(record, seat, failure)
                return
        for seat, agent in enumerate(agents):
            try:
                agent.wait_ready(deadlines[seat])
                record["names"][seat] = agent.name
                with getattr(rules, "awake", contextlib.nullcontext)():
                    agent.begin(ref, None, seat, spec.seeds[seat])
            except AgentFailure as failure:
                _forfeit(record, seat, failure)
                record["failed_after"] = round(time.monotonic() - t_start, 6)
                return
        awake = getattr(rules, "awake", contextlib.nullcontext)  # a student's game answers during the agents' turns

        def ask(seat: int, state: Any, seconds: float) -> tuple[Any, float]:
            with awake():
                return agents[seat].ask(state, seconds)

        _referee(rules, view, limits, record, ask)
    finally:
        for a in agents:
            a.stop()  # both finish at the same time
        for seat, a in enumerate(agents):  # a game won while wrecking its own sandbox is not won
            if record.get("forfeit") is None and a.sabotaged():
                _forfeit(
                    record,
                    seat,
                    AgentFailure(Reason.SANDBOX, ZYGOTE_KILLED),
                )
        record["output"] = [a.close() for a in agents]


def _load_in_process(source: str, agent_id: str) -> Any:
    module = types.ModuleType(f"gamekit_agent_{agent_id}")
    module.__file__ = f"<{agent_id}>"
    exec(compile(source, module.__file__, "exec"), module.__dict__)
    return module


def _play_in_process(spec: GameSpec, rules: Any, view: dict[str, Any], limits: Limits, record: dict[str, Any]) -> None:
    game = getattr(rules, "game", None)
    if game is None:
        raise ValueError("sandbox=False plays only the course's own games (a student's game runs sandboxed)")
    saved = random.getstate()  # agents may use the global generator; leave it as we found it
    try:
        movers = []
        for seat, (source, agent_id) in enumerate(zip(spec.sources, spec.agents)):
            try:
                module = _load_in_process(source, agent_id)
                record["names"][seat] = str(module.NAME)
                random.seed(spec.seeds[seat])
                if isinstance(getattr(module, "Agent", None), type):
                    movers.append(module.Agent(game, seat).move)
                else:
                    movers.append(lambda state, f=module.agent: f(game, state))
            except Exception as exc:
                _forfeit(record, seat, AgentFailure(Reason.EXCEPTION, f"{type(exc).__name__}: {exc}"))
                return

        def ask(seat: int, state: Any, seconds: float) -> tuple[Any, float]:
            t = time.perf_counter()
            try:
                move = movers[seat](wire.state_from_json(game, state))
            except Exception as exc:
                raise AgentFailure(Reason.EXCEPTION, f"{type(exc).__name__}: {exc}") from None
            elapsed = time.perf_counter() - t
            return _to_json_in_process(move), elapsed

        _referee(rules, view, limits, record, ask)
    finally:
        random.setstate(saved)


def _to_json_in_process(move: Any) -> Any:
    try:
        return wire.to_json(move, "the reply")
    except (TypeError, ValueError):
        detail = NOT_JSON.format(kind=type(move).__name__, reply=repr(move))
        raise AgentFailure(Reason.WRONG_TYPE, detail) from None


def _referee(rules: Any, view: dict[str, Any], limits: Limits, record: dict[str, Any], ask: Any) -> None:
    """The game loop: ask, let the rules judge, until the end (or a forfeit, or the move cap).

    The state is JSON throughout; `rules` (`gamekit.tournament.games`) decode, judge and encode.
    A reply the rules refuse is the replier's loss; a failure of a student's game's own process
    raises `GameFailure` (the referee's own observation, never an agent's word).
    """
    state = record["start"]
    banks = [limits.bank_seconds, limits.bank_seconds]
    while not view["terminal"]:
        if len(record["moves"]) >= limits.max_moves:
            record.update(reason=Reason.MOVE_CAP.value, detail=MOVE_CAP_DRAW.format(moves=limits.max_moves))
            return
        seat = view["to_move"]
        t0 = time.monotonic()
        try:
            reply, elapsed = ask(seat, state, time_left(limits, banks[seat]))
            banks[seat] = spend(limits, banks[seat], elapsed)
            try:
                played = rules.play(state, reply)
            except BadMove as bad:
                raise AgentFailure(bad.reason, bad.detail) from None
        except AgentFailure as failure:
            _forfeit(record, seat, failure)
            record["failed_after"] = round(time.monotonic() - t0, 6)
            return
        state, view = played["state"], played["view"]
        record["moves"].append(played["move"])
        record["movers"].append(seat)
        record["states"].append(state)
        record["shown"].append(view["shown"])
        record["times"].append(round(elapsed, 6))
    _finish(record, view)


def check_source(source: str, label: str) -> str | None:
    """Why `source` cannot be a submission without running it (a syntax error), or None: English data
    (stored as a rejection's reason), shown through `detail_text`."""
    try:
        compile(source, label, "exec")
    except SyntaxError as exc:
        return SYNTAX_ERROR.format(line=exc.lineno, message=exc.msg)
    except ValueError as exc:  # e.g. null bytes in the file
        return NOT_PYTHON.format(error=exc)
    return None
