"""A student's game as an agent's process sees it: the Game protocol, answered by the referee.

A student's game shares no process with an agent (`gamekit.tournament.games`): in the agent's
jail, `ProxyGame` stands in for it. Every rules question the agent's code asks goes over the
agent's channel to the referee, which answers from its one memo of the game's answers (the same
answers its own questions get) or asks the game's own jail. One question per position, "expand",
brings the legal moves, each move's next state and whether the game ends there (with its
utilities) or who moves, and the same expansion of each next position that goes on (a round trip
costs far more than an expansion): so a search pays a round trip per two levels it expands, and
nothing for `play`, `is_terminal`, `to_move` or `utility` on positions it has seen. The answers are kept here
too (bounded: the memo starts afresh when full).

States and moves are the game's wire format (`gamekit.wire`) made hashable: lists become tuples,
objects a `FrozenDict`. They work with every algorithm of the course; code that reads a student's
class's own fields (`state.lines`) does not, since the class exists only in the game's jail.
"""

from __future__ import annotations

from typing import Any

from ..protocol import IllegalMoveError
from ..sandbox import inside

#: Positions whose answers the agent's process keeps (then it starts afresh).
PROXY_POSITIONS = 100_000


class FrozenDict(dict):
    """A JSON object as an immutable, hashable value (a state that is a student's dataclass)."""

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(tuple(sorted(self.items())))

    def _immutable(self, *args: Any, **kwargs: Any) -> None:
        raise TypeError("a game's state is immutable")

    __setitem__ = __delitem__ = clear = pop = popitem = setdefault = update = _immutable  # type: ignore[assignment]


def freeze(data: Any) -> Any:
    """JSON data as a hashable value: lists as tuples, objects as `FrozenDict`."""
    if isinstance(data, list):
        return tuple(freeze(d) for d in data)
    if isinstance(data, dict):
        return FrozenDict((k, freeze(v)) for k, v in data.items())
    return data


def thaw(value: Any) -> Any:
    """The JSON data of a frozen value (tuples as lists, `FrozenDict` as objects)."""
    if isinstance(value, (tuple, list)):
        return [thaw(v) for v in value]
    if isinstance(value, dict):
        return {str(k): thaw(v) for k, v in value.items()}
    return value


class RulesUnavailable(RuntimeError):
    """The referee did not answer a rules question as a rules answer (the process then ends)."""


class ProxyGame:
    """The Game protocol over the agent's channel (see the module docstring)."""

    def __init__(self, channel: Any, name: str):
        self._channel = channel
        self.name = name
        self._initial: Any = None
        self._summary: dict[Any, tuple[bool, int | None, tuple[float, float] | None]] = {}
        self._moves: dict[Any, tuple[tuple[Any, ...], dict[Any, Any]]] = {}
        self.asked = 0  # round trips to the referee

    def __repr__(self) -> str:
        return f"<{self.name}, answered by the referee>"

    def _ask(self, question: dict[str, Any]) -> dict[str, Any]:
        self.asked += 1
        self._channel.send({"ask": question})
        reply = self._channel.receive()
        if reply is None or reply.get("op") == "stop":  # the referee ended the game: so does this process
            inside.end()
        if "answer" not in reply:
            raise RulesUnavailable(f"the referee answered a rules question with {str(reply)[:100]}")
        answer: dict[str, Any] = reply["answer"]
        if "refused" in answer:
            raise ValueError(f"the game's rules refused the question: {answer['refused']}")
        return answer

    def _expand(self, state: Any) -> tuple[tuple[Any, ...], dict[Any, Any]]:
        known = self._moves.get(state)
        if known is not None:
            return known
        if len(self._moves) >= PROXY_POSITIONS:
            self._moves.clear()
            self._summary.clear()
        answer = self._ask({"op": "expand", "state": thaw(state), "deep": True})
        node = self._learn(state, answer["node"])
        for after, more in zip(node[1].values(), answer["next"]):  # the next positions' expansions came along
            if more is not None:
                self._learn(after, more)
        return node

    def _learn(self, state: Any, answer: dict[str, Any]) -> tuple[tuple[Any, ...], dict[Any, Any]]:
        legal = tuple(freeze(m) for m in answer["legal"])
        children = {}
        for move, child in zip(legal, answer["children"]):
            after = freeze(child["state"])
            children[move] = after
            self._summary[after] = _summary(child)
        self._summary[state] = _summary(answer)
        self._moves[state] = (legal, children)
        return legal, children

    def _about(self, state: Any) -> tuple[bool, int | None, tuple[float, float] | None]:
        try:
            return self._summary[state]
        except KeyError:
            self._expand(state)
            return self._summary[state]
        except TypeError:  # not hashable: not a state of this game
            raise ValueError(f"{state!r} is not a state of {self.name} (states are hashable)") from None

    # --- the Game protocol ---
    def initial_state(self) -> Any:
        if self._initial is None:
            self._initial = freeze(self._ask({"op": "initial"})["state"])
        return self._initial

    def to_move(self, state: Any) -> int:
        terminal, player, _ = self._about(state)
        if player is None:
            raise ValueError(f"nobody moves in a finished position of {self.name}")
        return player

    def legal_moves(self, state: Any) -> tuple[Any, ...]:
        if self._about(state)[0]:
            return ()
        return self._expand(state)[0]

    def play(self, state: Any, move: Any) -> Any:
        legal, children = self._expand(state)
        try:
            return children[move]
        except (KeyError, TypeError):
            raise IllegalMoveError(f"{move!r} is not a legal move here; the legal moves: {list(legal)}") from None

    def is_terminal(self, state: Any) -> bool:
        return self._about(state)[0]

    def utility(self, state: Any, player: int) -> float:
        terminal, _, utility = self._about(state)
        if utility is None or player not in (0, 1):
            raise ValueError(f"utility is given at the end of a game, for player 0 or 1 (got player {player!r})")
        return utility[player]

    # --- the wire format (the proxy's states are the game's JSON, frozen) ---
    def state_to_json(self, state: Any) -> Any:
        return thaw(state)

    def state_from_json(self, data: Any) -> Any:
        return freeze(data)

    def move_to_json(self, move: Any) -> Any:
        return thaw(move)

    def move_from_json(self, data: Any) -> Any:
        return freeze(data)


def _summary(view: dict[str, Any]) -> tuple[bool, int | None, tuple[float, float] | None]:
    if view["terminal"]:
        u = view["utility"]
        return True, None, (float(u[0]), float(u[1]))
    return False, int(view["to_move"]), None
