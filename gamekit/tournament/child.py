"""What runs inside an agent's or a student's game's jailed process: the tournament's entry point.

The zygote (`gamekit.sandbox.zygote`) forks a process in the jail and calls `serve`. It first
receives its student's file as text ("load"), takes away what it must not do
(`gamekit.sandbox.inside.enter_sandbox`: a courtesy, the jail is the boundary), runs the file, and
then answers the referee's requests as JSON lines until told to stop:

* role "agent": "start" builds the game and, for a class, `Agent(game, seat)`; "move" answers
  with a move. A game of the course is built here; a student's game never is (it shares no
  process with an agent): the agent gets a `gamekit.tournament.proxy.ProxyGame`, whose every
  rules question goes to the referee and is answered from the game's own jail. A reply is only
  ever this agent's move or this agent's own failure.
* role "game": a student's game answering the referee's questions about its rules (`games.serve_rules`).
"""

from __future__ import annotations

import os
from typing import Any, NoReturn

from .. import wire
from ..sandbox import inside
from ..sandbox.inside import Channel
from .games import GameRef, LocalRules, build, serve_rules
from .proxy import ProxyGame


def _send_safely(channel: Channel, message: dict[str, Any]) -> None:
    """Send `message`; a message that is not JSON data (a game's state of a set, say) becomes an error."""
    try:
        channel.send(message)
    except (TypeError, ValueError) as exc:
        channel.send({"error": f"an answer that is not JSON data: {exc}"[:500]})


def serve(channel: Channel, output_fd: int, folder: str, request: dict[str, Any], readable: list[str]) -> NoReturn:
    """The whole life of a jailed process: load, sandbox, then answer requests until told to stop."""
    load = channel.receive()
    if load is None or load.get("op") != "load":
        os._exit(0)
    label = str(load.get("label") or "agent.py")
    limits = request["limits"]
    if request.get("role") == "game":
        _serve_game(channel, output_fd, folder, limits, readable, label)
    try:
        guard = inside.enter_sandbox(channel, folder, limits, readable, output_fd)
        module = inside.load_source(str(load["source"]), label, "agent")
        name, kind = inside.describe(module)
    except BaseException as exc:  # the submission failed to load: report it, the referee decides
        channel.send(inside.error(exc, label))
        os._exit(0)
    channel.send({"ready": True, "name": name, "kind": kind})
    game = agent = None
    for message in inside.requests(channel):
        try:
            if message["op"] == "start":
                if message.get("rules") == "relayed":  # a student's game: in its own jail, asked through the referee
                    game = ProxyGame(channel, str(message["game"]["name"]))
                else:
                    game = build(GameRef.from_dict(message["game"]), inside=True)
                inside.seed_everything(int(message["seed"]))
                agent = module.Agent(game, int(message["seat"])) if kind == "class" else module.agent
                channel.send({"ok": True})
            elif message["op"] == "move":
                state = wire.state_from_json(game, message["state"])
                move = agent.move(state) if kind == "class" else agent(game, state)  # type: ignore[union-attr,misc]
                if inside.threads() > 1:  # it would go on thinking during the opponent's move
                    guard.violation("running a second thread (an agent thinks on one thread, in its own move)")
                try:
                    channel.send({"move": _reply_json(game, move)})
                except (TypeError, ValueError, IndexError, KeyError, AttributeError):
                    channel.send({"wrong_type": f"{type(move).__name__}: {move!r}"[:300]})
        except BaseException as exc:  # the agent's own error (also SystemExit, MemoryError)
            channel.send(inside.error(exc, label))
    inside.end()


def _reply_json(game: Any, move: Any) -> Any:
    """The reply as JSON: plain data as it is (the referee's decoder judges its type), anything else
    in the game's own wire format (a move that is an object of the game's)."""
    try:
        return wire.to_json(move, "the reply")
    except TypeError:
        return wire.move_to_json(game, move)


def _serve_game(
    channel: Channel, output_fd: int, folder: str, limits: dict[str, Any], readable: list[str], label: str
) -> NoReturn:
    """A student's game in its own jail: build it, then answer the referee (`games.serve_rules`)."""
    try:
        inside.enter_sandbox(channel, folder, limits, readable, output_fd)
    except BaseException as exc:
        channel.send(inside.error(exc, label))
        os._exit(0)
    channel.send({"ready": True, "name": "game", "kind": "game"})
    rules: LocalRules | None = None
    for message in inside.requests(channel):
        try:
            if message["op"] == "new":
                rules = LocalRules(build(GameRef.from_dict(message["game"]), inside=True))
                channel.send({"ok": True})
            elif rules is None:
                channel.send({"error": "no game built yet"})
            else:
                _send_safely(channel, serve_rules(rules, message))
        except BaseException as exc:  # the game's own code failed
            channel.send(inside.error(exc, label))
    inside.end()
