"""`check_game`: does your game follow the protocol? A property-based checker for anyone's game.

Every algorithm in gamekit trusts six methods (`initial_state`, `to_move`, `legal_moves`,
`play`, `is_terminal`, `utility`). A game that breaks one of their promises does not crash:
it makes the algorithms give wrong answers quietly. `check_game(game)` walks many random
games (generated and shrunk by hypothesis, so a failure comes with a short path of moves) and
checks, at every position it reaches:

| property | the promise |
|---|---|
| `hashable` | a state can be hashed, equals itself (no NaN inside); equal states hash alike, are one position |
| `immutable` | a state holds no list, dict, set or writable attribute |
| `deterministic` | every method gives the same answer whenever it is asked about the same state (no hidden state) |
| `pure play` | `play` never changes the state it is given |
| `illegal move` | `play` takes each listed move; another (of the kinds listed) raises `IllegalMoveError` |
| `players` | `to_move` is 0 or 1 in every position that is not over |
| `terminal` | the game is over exactly when no move is left (unless you say otherwise) |
| `utility` | at the end, `utility` is a number in [-1, 1] and zero-sum: u(s, 0) + u(s, 1) = 0 |
| `wire` | each state and legal move goes to JSON and back: equal, same type, hash and text (`gamekit.wire`) |
| `finite` | no position can be reached again from itself (every game ends) |
| `agreement` | on small positions, `solve`, plain minimax, alpha-beta and MCTS agree, from both seats |

It returns a `GameCheckReport` when all hold and raises `GameCheckError` (an AssertionError)
naming the first broken property, the position (the moves from the start that lead there) and,
when the game itself raised, the exception it raised (`.raised`; a method that raises breaks the
promise of what it is asked: `to_move` "players", `is_terminal` and `legal_moves` "terminal",
`play` "illegal move", `utility` "utility"). An error of the checker's own is never reported as
the game's. Numbers may be Python's or numpy's. The check stops after
`time_limit` seconds with the verdict so far (the report says how far it got), so a game with
cycles or a huge state space never makes it hang.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import json
import math
import numbers
import tempfile
import time
from collections.abc import Callable, Hashable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st

from . import wire
from .i18n import _, ngettext, pgettext
from .mcts import MCTS
from .protocol import Game, IllegalMoveError, State, is_int
from .protocol import require_game_methods as check_protocol
from .search import alphabeta, minimax
from .solve import solve

__all__ = ["PROPERTIES", "GameCheckError", "GameCheckReport", "check_game"]

#: The properties `check_game` checks, in the order it checks them at each position.
PROPERTIES = (
    "hashable",
    "immutable",
    "deterministic",
    "pure play",
    "illegal move",
    "players",
    "terminal",
    "utility",
    "wire",
    "finite",
    "agreement",
)

#: How long `check_game` checks by default (seconds); it then gives the verdict so far.
TIME_LIMIT = 20.0

_MUTABLE = (list, dict, set, bytearray)
_PROBES = 8  # illegal moves tried per position


class GameCheckError(AssertionError):
    """A broken promise of the Game protocol: `.prop` names it, `.path` gives the moves from the start to
    the position where it broke, `.raised` the name of the exception the game raised (None if it raised none)."""

    def __init__(self, prop: str, detail: str, path: Sequence[Any] = (), raised: str | None = None):
        self.prop = prop
        self.detail = detail
        self.path = tuple(path)
        self.raised = raised
        if self.path:
            # TRANSLATORS: where check_game found a broken promise; {moves} is a Python list of moves
            where = _("after the moves {moves} from the start").format(moves=repr(list(self.path)))
        else:
            where = _("at the start")
        super().__init__(f"{prop}: {detail} ({where})")  # the property's name stays the identifier it is


class _OutOfTime(Exception):
    """The time budget is spent: the check stops with the verdict so far."""


@dataclass(frozen=True)
class GameCheckReport:
    """What `check_game` checked: how many random games, positions and small positions, in how long,
    and whether it got through all the games within its time budget (`complete`)."""

    game: str
    games: int
    positions: int
    agreement_positions: int
    properties: tuple[str, ...] = PROPERTIES
    seconds: float = 0.0
    complete: bool = True
    games_checked: int = 0

    def __str__(self) -> str:
        text = _(
            "{game}: all {properties} properties hold on {positions} positions from {games} random games; "
            "solve, minimax, alpha-beta and MCTS agree on {agreement} small positions ({seconds} s)"
        ).format(
            game=self.game,
            properties=len(self.properties),
            positions=self.positions,
            games=self.games_checked if not self.complete else self.games,
            agreement=self.agreement_positions,
            seconds=f"{self.seconds:.1f}",
        )
        if not self.complete:
            text += ". " + _(
                "The time budget ran out after {checked} of {games} games: nothing broken so far, but not "
                "everything was checked (give check_game a larger time_limit, or a smaller game)"
            ).format(checked=self.games_checked, games=self.games)
        return text


def check_game(
    game: Game,
    *,
    games: int = 60,
    max_moves: int = 40,
    seed: int = 0,
    terminal_means_no_moves: bool = True,
    small: int = 600,
    mcts_iterations: int = 2000,
    time_limit: float = TIME_LIMIT,
) -> GameCheckReport:
    """Check that `game` keeps every promise of the Game protocol; raise `GameCheckError` if not.

    `games` random games of at most `max_moves` moves are generated by hypothesis (seeded with
    `seed`, so a run repeats exactly; where its random choices end, the game goes on with the first
    legal move) and shrunk to the shortest failing path. On positions whose
    game tree has at most `small` nodes, the exact algorithms must agree and MCTS with
    `mcts_iterations` iterations must choose a best move. Set `terminal_means_no_moves=False`
    for a game that documents terminal positions in which moves are still listed (they are then
    never played). After `time_limit` seconds the check stops and reports how far it got.

    Raises:
        GameCheckError: a promise is broken: `.prop` names the property, `.path` the moves from the
            start to the position, `.raised` the exception the game raised (None if none). It is an
            `AssertionError`, so a test that calls `check_game` fails with its message.
        TypeError: `game` lacks one of the protocol's six methods, or `games`, `max_moves`, `small`
            or `time_limit` is not a number of the kind allowed.

    >>> from gamekit.games.nim import Nim
    >>> report = check_game(Nim([1, 2]), games=10)
    >>> report.complete, report.positions  # every position of this small game was checked
    (True, 8)
    >>> class NotZeroSum(Nim):
    ...     def utility(self, state, player):
    ...         return 1.0  # both players win
    >>> check_game(NotZeroSum([1, 2]), games=10)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
        ...
    gamekit.testing.GameCheckError: utility: not zero-sum: utility for player 0 is 1.0, for player 1 1.0 ...
    """
    check_protocol(game)
    for name, value, low in (("games", games, 1), ("max_moves", max_moves, 1), ("small", small, 1)):
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            raise TypeError(
                f"games, max_moves and small must be ints >= 1: {name} must be an int >= {low}, got {value!r}"
            )
    if isinstance(time_limit, bool) or not isinstance(time_limit, (int, float)) or not time_limit > 0:
        raise TypeError(f"time_limit must be a number of seconds > 0, got {time_limit!r}")
    started = time.monotonic()
    checker = _Checker(game, terminal_means_no_moves, small, mcts_iterations, seed, started + float(time_limit))
    checker.max_moves = max_moves

    @hypothesis_seed(seed)
    @settings(
        max_examples=games,
        deadline=None,
        database=None,
        derandomize=False,
        suppress_health_check=list(HealthCheck),
        phases=(Phase.explicit, Phase.reuse, Phase.generate, Phase.shrink),  # no "explain": it replays for long
    )
    @given(st.lists(st.integers(min_value=0, max_value=2**16), max_size=max_moves))
    def random_game(choices: list[int]) -> None:
        checker.walk(choices)

    try:
        with _hypothesis_files_elsewhere():
            random_game()
    except BaseException as error:  # hypothesis may wrap the failure in an exception group
        found = _find_check_error(error) or checker.failure
        if found is None:
            raise
        raise found from None
    if checker.failure is not None:  # found, then not found again on replay (a game with hidden state)
        raise checker.failure
    return GameCheckReport(
        type(game).__name__,
        games,
        len(checker.moves_at),
        len(checker.agreed),
        seconds=round(time.monotonic() - started, 2),
        complete=not checker.out_of_time,
        games_checked=checker.games_checked,
    )


@contextlib.contextmanager
def _hypothesis_files_elsewhere() -> Iterator[None]:
    """Hypothesis caches files in `.hypothesis/` of the working folder (beside a student's notebook);
    during a check they go to a folder of the system's temporary directory instead."""
    import hypothesis.configuration as configuration

    key = "__hypothesis_home_directory"
    before = getattr(configuration, key, None)
    if before is not None:  # the user chose a place: leave it
        yield
        return
    configuration.set_hypothesis_home_dir(Path(tempfile.gettempdir()) / "gamekit-hypothesis")
    try:
        yield
    finally:
        configuration.set_hypothesis_home_dir(None)


def _find_check_error(error: BaseException) -> GameCheckError | None:
    if isinstance(error, GameCheckError):
        return error
    for inner in getattr(error, "exceptions", ()):
        found = _find_check_error(inner)
        if found is not None:
            return found
    return None


def _is_number(value: Any) -> bool:
    """A real number, Python's or numpy's (a bool is not one)."""
    return isinstance(value, (numbers.Real, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_))


def _kind(value: Any) -> Any:
    """A value's type for comparing a decoded value with the original: numpy scalars count as Python's."""
    if isinstance(value, (bool, np.bool_)):
        return bool
    if is_int(value):
        return int
    if isinstance(value, (float, np.floating)):
        return float
    return type(value)


class _Checker:
    """The per-position checks; remembers what each method said about each state it has checked."""

    def __init__(
        self, game: Game, terminal_means_no_moves: bool, small: int, mcts_iterations: int, seed: int, deadline: float
    ):
        self.game = game
        self.terminal_means_no_moves = terminal_means_no_moves
        self.small = small
        self.mcts_iterations = mcts_iterations
        self.seed = seed
        self.deadline = deadline
        self.out_of_time = False
        self.max_moves = 40
        self.games_checked = 0
        self.failure: GameCheckError | None = None  # the shortest failure found
        self.moves_at: dict = {}  # state -> its legal moves, as first answered
        self.player_at: dict = {}  # state -> to_move (None when over), as first answered
        self.first_seen: dict = {}  # state -> the first object equal to it that was checked
        self.wired: set = set()  # states whose JSON round trip was checked
        self.agreed: set = set()
        self.tried: set = set()  # positions whose agreement was checked, or whose tree is too big
        self.moves_seen: list = []

    # -- the frame: one random game, time, and telling the game's errors from the checker's ----------
    def walk(self, choices: list[int]) -> None:
        """One random game, checked position by position. What passed is remembered across games (a
        position that failed never is, so hypothesis, replaying a failing game, meets the failure again)."""
        if self.out_of_time:
            return
        try:
            self._walk(choices)
            self.games_checked += 1
        except _OutOfTime:
            self.out_of_time = True
        except GameCheckError as failure:
            if self.failure is None or len(failure.path) < len(self.failure.path):
                self.failure = failure
            raise

    def tick(self) -> None:
        if time.monotonic() > self.deadline:
            raise _OutOfTime

    def call(self, path: Sequence[Any], what: str, method: Callable[..., Any], *args: Any) -> Any:
        """`method(*args)`, a method of the game: an exception it raises is a finding at `path`, of the
        property whose promise the method broke by not answering."""
        try:
            return method(*args)
        except (GameCheckError, _OutOfTime):
            raise
        except IllegalMoveError as error:
            raise GameCheckError(
                "illegal move",
                # TRANSLATORS: {call} is a call of the game's code, such as play(state, 3)
                _("{call} raised IllegalMoveError for a move the game lists as legal: {error}").format(
                    call=what, error=error
                )[:600],
                path,
                raised="IllegalMoveError",
            ) from None
        except Exception as error:
            prop = _ANSWERS.get(getattr(method, "__name__", ""), "deterministic")
            kind = type(error).__name__
            # TRANSLATORS: {call} is a call of the game's code, such as play(state, 3); {kind} an exception's name
            detail = _("{call} raised {kind}: {error}").format(call=what, kind=kind, error=error)
            raise GameCheckError(prop, detail[:600], path, raised=kind) from None

    def hash_of(self, s: State, path: Sequence[Any]) -> int:
        try:
            return hash(s)
        except Exception as error:
            raise GameCheckError(
                "hashable",
                _("the state {state} cannot be hashed ({kind}: {error})").format(
                    state=_short(s), kind=type(error).__name__, error=error
                ),
                path,
                raised=type(error).__name__,
            ) from None

    def _walk(self, choices: list[int]) -> None:
        g = self.game
        path: list = []
        start = self.call(path, "initial_state()", g.initial_state)
        self._check_state(start, path)
        again = self.call(path, "initial_state()", g.initial_state)
        if not start == again:
            raise GameCheckError("deterministic", _("initial_state() gives different states when called twice"), path)
        if self.hash_of(again, path) != self.hash_of(start, path):
            raise GameCheckError(
                "hashable",
                _(
                    "initial_state() twice gives equal states with different hashes (__eq__ without a matching "
                    "__hash__)"
                ),
                path,
            )
        state, on_this_game = start, {start}
        walked: list[tuple[State, list]] = [(start, [])]
        for k in range(self.max_moves):  # the choices hypothesis drew, then the first legal move to the end
            self.tick()
            choice = choices[k] if k < len(choices) else 0
            moves = self.moves_at[state]
            if self.player_at[state] is None or not moves:  # over (moves of a finished game are never played)
                break
            move = moves[choice % len(moves)]
            state = self.call(path, f"play(state, {move!r})", g.play, state, move)
            path.append(move)
            self._check_state(state, path)
            if state in on_this_game:
                raise GameCheckError(
                    "finite",
                    _("the position {position} comes back: these moves can be played for ever").format(
                        position=_short(state)
                    ),
                    path,
                )
            on_this_game.add(state)
            walked.append((state, list(path)))
        # the algorithms last: a broken rule anywhere on this game is told before a search runs. From the
        # end back: once a position's tree is too big, so is every tree above it on this game.
        for s, at in reversed(walked):
            if s in self.tried or len(self.tried) >= 80:
                continue
            if not self._check_agreement(s, at):
                break
            self.tried.add(s)  # only once its check passed

    # -- one position -------------------------------------------------------------------------
    def _check_state(self, s: State, path: list) -> None:
        self._check_basic(s, path)
        if s not in self.wired and len(self.wired) < 500:  # after the rules: a rule broken here is told first
            self._check_wire(s, list(self.moves_at[s]), path)
            self.wired.add(s)

    def _check_basic(self, s: State, path: list) -> None:
        """Every property but wire and agreement, at `s` (on a second visit: that the answers are the same)."""
        g = self.game
        self.hash_of(s, path)
        if _holds_nan(s):
            raise GameCheckError("hashable", _nan_text(s), path)
        if not s == s:
            raise GameCheckError("hashable", _("the state {state} does not equal itself").format(state=_short(s)), path)
        if s in self.moves_at:
            self._check_again(s, path)
            return
        problem = _mutable_part(s)
        if problem is not None:
            raise GameCheckError("immutable", _mutable_text(s, problem), path)
        moves = list(self.call(path, "legal_moves(state)", g.legal_moves, s))
        if moves != list(self.call(path, "legal_moves(state)", g.legal_moves, s)):
            raise GameCheckError(
                "deterministic", _("legal_moves({state}) changes between two calls").format(state=_short(s)), path
            )
        for m in moves:
            if not isinstance(m, Hashable):
                raise GameCheckError("hashable", _("the move {move} cannot be hashed").format(move=repr(m)), path)
            try:
                hash(m)
            except Exception as error:
                raise GameCheckError(
                    "hashable", _("the move {move} cannot be hashed ({error})").format(move=repr(m), error=error), path
                ) from None
        twice = [m for i, m in enumerate(moves) if m in moves[:i]]
        if twice:
            raise GameCheckError(
                "deterministic",
                _("legal_moves lists {move} more than once: {moves}").format(move=repr(twice[0]), moves=moves),
                path,
            )
        terminal = self._terminal(s, path)
        player = None if terminal else self._player(s, path)
        if self.terminal_means_no_moves and terminal != (not moves):
            detail = (
                # TRANSLATORS: English says "moves are" for every count; German tells one move from several
                ngettext(
                    "the game is over but {n} moves are still legal",
                    "the game is over but {n} moves are still legal",
                    len(moves),
                ).format(n=len(moves))
                if terminal
                else _("no move is legal but is_terminal says the game goes on")
            )
            raise GameCheckError("terminal", detail, path)
        before = _Snapshot(s)
        if not terminal:  # the moves of a finished game are never played
            for m in moves:
                self._check_play(s, m, path, before, moves)
            again = self.call(path, "to_move(state)", g.to_move, s)
            if again != player:
                raise GameCheckError(
                    "deterministic",
                    _(
                        "to_move({state}) answered {first}, and {then} after the moves there were played: it depends "
                        "on something besides the state"
                    ).format(state=_short(s), first=repr(player), then=repr(again)),
                    path,
                )
        if not (terminal and not self.terminal_means_no_moves):
            self._check_illegal(s, moves, path, before)
        if terminal:
            self._check_utility(s, path)
        self.moves_at[s] = tuple(moves)
        self.player_at[s] = player
        self.first_seen[s] = s
        for m in moves:
            if len(self.moves_seen) < 50 and m not in self.moves_seen:
                self.moves_seen.append(m)

    def _check_again(self, s: State, path: list) -> None:
        """A state met before: legal_moves, is_terminal and to_move must say what they said then."""
        g = self.game
        moves = tuple(self.call(path, "legal_moves(state)", g.legal_moves, s))
        if moves != self.moves_at[s]:
            self._differs(s, path, "legal_moves", list(self.moves_at[s]), list(moves))
        terminal = self._terminal(s, path)
        if terminal != (self.player_at[s] is None):
            self._differs(s, path, "is_terminal", not terminal, terminal)
        if not terminal:
            player = self.call(path, "to_move(state)", g.to_move, s)
            if player != self.player_at[s]:
                self._differs(s, path, "to_move", self.player_at[s], player)

    def _same_position(self, first: State, other: State, path: list) -> None:
        """Two equal states met by different move orders must be one position: the game answers alike."""
        if first is other:
            return
        g = self.game
        for method, args in (("is_terminal", ()), ("to_move", ()), ("legal_moves", ())):
            if method == "to_move" and self.call(path, "is_terminal(state)", g.is_terminal, first):
                return
            a = self.call(path, f"{method}(state)", getattr(g, method), first, *args)
            b = self.call(path, f"{method}(state)", getattr(g, method), other, *args)
            if (list(a) if method == "legal_moves" else a) != (list(b) if method == "legal_moves" else b):
                self._differs(other, path, method, a, b, first)

    def _differs(self, s: State, path: list, method: str, before: Any, now: Any, first: State | None = None) -> None:
        """A method answered differently for a state equal to one it was asked about before: either the
        game has hidden state (deterministic) or equal states are different positions (hashable)."""
        first = self.first_seen.get(s, s) if first is None else first
        if first is not s and _short(first, 10_000) != _short(s, 10_000):
            raise GameCheckError(
                "hashable",
                # TRANSLATORS: {method} is a method of the game, such as legal_moves; {first} and {state} are states
                _(
                    "{method} answers {before} for {first} and {now} for {state}, which equals it: equal states must "
                    "be the same position (does __eq__ leave out something, such as whose turn it is?)"
                ).format(method=method, before=repr(before), first=_short(first), now=repr(now), state=_short(s)),
                path,
            )
        raise GameCheckError(
            "deterministic",
            _(
                "{method}({state}) answered {before} when first asked and {now} now: it depends on something besides "
                "the state (hidden state in the game object?)"
            ).format(method=method, state=_short(s), before=repr(before), now=repr(now)),
            path,
        )

    def _terminal(self, s: State, path: list) -> bool:
        answers = [self.call(path, "is_terminal(state)", self.game.is_terminal, s) for _ in range(2)]
        for terminal in answers:
            if not isinstance(terminal, (bool, np.bool_)):  # numpy's bool is a fine answer
                raise GameCheckError(
                    "terminal", _("is_terminal returned {value}, not True or False").format(value=repr(terminal)), path
                )
        if bool(answers[0]) != bool(answers[1]):
            raise GameCheckError(
                "deterministic", _("is_terminal({state}) changes between two calls").format(state=_short(s)), path
            )
        return bool(answers[0])

    def _player(self, s: State, path: list) -> int:
        player = self.call(path, "to_move(state)", self.game.to_move, s)
        if not is_int(player) or player not in (0, 1):
            raise GameCheckError(
                "players", _("to_move returned {value}; it must be 0 or 1").format(value=repr(player)), path
            )
        return int(player)

    def _check_play(self, s: State, move: Any, path: list, before: _Snapshot, moves: list) -> State:
        g = self.game
        child = self._play_listed(s, move, moves, path)
        if before.changed(s):
            raise GameCheckError(
                "pure play", _("play(state, {move}) changed the state it was given").format(move=repr(move)), path
            )
        again = self.call(path, f"play(state, {move!r})", g.play, s, move)
        after = [*path, move]
        if not child == again:  # noqa: SIM201  (the game's __eq__ is what tables use)
            if _holds_nan(child):
                raise GameCheckError("hashable", _nan_text(child), after)
            raise GameCheckError(
                "deterministic", _("play(state, {move}) gives different states").format(move=repr(move)), path
            )
        if self.hash_of(child, after) != self.hash_of(again, after):
            raise GameCheckError(
                "hashable",
                _(
                    "play(state, {move}) twice gives equal states {state} with different hashes: __eq__ without a "
                    "matching __hash__ (equal states must hash alike, or tables cannot find them)"
                ).format(move=repr(move), state=_short(child)),
                path,
            )
        return child

    def _play_listed(self, s: State, move: Any, moves: Sequence[Any], path: list) -> State:
        """play(s, move) for a move legal_moves listed; if play refuses it, whether the list has changed since."""
        try:
            return self.call(path, f"play(state, {move!r})", self.game.play, s, move)
        except GameCheckError as refused:
            if refused.raised == "IllegalMoveError":
                now = list(self.call(path, "legal_moves(state)", self.game.legal_moves, s))
                if now != list(moves):
                    self._differs(s, path, "legal_moves", list(moves), now)
            raise

    def _check_utility(self, s: State, path: list) -> None:
        values = []
        for player in (0, 1):
            u = self.call(path, f"utility(state, {player})", self.game.utility, s, player)
            if not _is_number(u) or not math.isfinite(float(u)):
                raise GameCheckError(
                    "utility",
                    _("utility(state, {player}) = {value} is not a finite number").format(player=player, value=repr(u)),
                    path,
                )
            if not -1 <= u <= 1:
                raise GameCheckError(
                    "utility",
                    _("utility(state, {player}) = {value} is outside [-1, 1]").format(player=player, value=u),
                    path,
                )
            values.append(float(u))
            again = self.call(path, f"utility(state, {player})", self.game.utility, s, player)
            if again != u:
                raise GameCheckError(
                    "deterministic",
                    _("utility(state, {player}) gives {first} and then {then} for the same state").format(
                        player=player, first=u, then=again
                    ),
                    path,
                )
        if abs(values[0] + values[1]) > 1e-9:
            raise GameCheckError(
                "utility",
                _(
                    "not zero-sum: utility for player 0 is {first}, for player 1 {second} (they must add up to 0)"
                ).format(first=values[0], second=values[1]),
                path,
            )

    def _check_illegal(self, s: State, moves: list, path: list, before: _Snapshot) -> None:
        for bad in _probes(moves, self.moves_seen):
            self.tick()
            try:
                self.game.play(s, bad)
            except IllegalMoveError:
                pass
            except Exception as error:
                raise GameCheckError(
                    "illegal move",
                    _("play(state, {move}) raised {kind}, not IllegalMoveError").format(
                        move=repr(bad), kind=type(error).__name__
                    ),
                    path,
                    raised=type(error).__name__,
                ) from None
            else:
                raise GameCheckError(
                    "illegal move",
                    _("play(state, {move}) accepted a move that is not legal").format(move=repr(bad)),
                    path,
                )
            if before.changed(s):
                raise GameCheckError(
                    "illegal move", _("the refused move {move} changed the state").format(move=repr(bad)), path
                )

    def _check_wire(self, s: State, moves: list, path: list) -> None:
        """`s` and each of its moves go to JSON text and come back equal, with the same type, hash and text."""
        g = self.game
        pairs: list[tuple[str, Any, Any, Any]] = [("state", s, wire.state_to_json, wire.state_from_json)]
        pairs += [("move", m, wire.move_to_json, wire.move_from_json) for m in moves]
        for what, value, encode, decode in pairs:
            try:
                text = json.dumps(encode(g, value), allow_nan=False)
                back = decode(g, json.loads(text))
                text_back = json.dumps(encode(g, back), allow_nan=False)
            except Exception as error:
                raise GameCheckError(
                    "wire",
                    _wire_text(what, "fails", value=_short(value), kind=type(error).__name__, error=error)[:700],
                    path,
                    raised=type(error).__name__,
                ) from None
            if not back == value or _kind(back) is not _kind(value):
                raise GameCheckError(
                    "wire",
                    _wire_text(what, "differs", value=_short(value), back=_short(back), kind=type(back).__name__),
                    path,
                )
            if self.hash_of(back, path) != self.hash_of(value, path):
                raise GameCheckError("wire", _wire_text(what, "hash", value=_short(value)), path)
            if text_back != text:
                raise GameCheckError(
                    "wire", _wire_text(what, "text", value=_short(value), first=text, then=text_back), path
                )

    # -- the algorithms agree on small positions ----------------------------------------------
    def _check_agreement(self, s: State, path: list) -> bool:
        """On a position whose game tree has at most `small` nodes, the exact searches agree and MCTS finds
        a best move; False when the tree is too big (nothing checked)."""
        g = self.game
        if self.player_at[s] is None or len(self.agreed) >= 40:
            return True
        paths, children, frontier, objects = {s: list(path)}, {}, [s], {s: s}
        while frontier:  # the positions below, first without checking them: most trees are too big
            self.tick()
            t = frontier.pop()
            known = t in self.moves_at
            moves = self.moves_at[t] if known else list(self.call(paths[t], "legal_moves(state)", g.legal_moves, t))
            over = (
                self.player_at[t] is None
                if known
                else bool(self.call(paths[t], "is_terminal(state)", g.is_terminal, t))
            )
            children[t] = [] if over else [self._play_listed(t, m, moves, paths[t]) for m in moves]
            for m, child in zip(moves, children[t]):
                if child in paths:
                    self._same_position(objects[child], child, [*paths[t], m])
                    continue
                if len(paths) > self.small:
                    return False
                paths[child], objects[child] = [*paths[t], m], child
                frontier.append(child)
        for t in paths:  # every position below keeps the basic promises before the algorithms may use them
            self.tick()
            self._check_basic(t, paths[t])
        if _tree_size(s, children, self.moves_at, paths, self.small) > self.small:
            return False
        try:
            values = solve(g, s)
            exact = values[s]
            plain = minimax(g, s).value
            pruned = alphabeta(g, s).value
        except Exception as error:
            raise GameCheckError(
                "deterministic",
                _(
                    "searching from here raised {kind}: {error}, though every position below kept the promises when "
                    "checked one by one: the game answers differently when asked again (hidden state?)"
                ).format(kind=type(error).__name__, error=error)[:700],
                path,
                raised=type(error).__name__,
            ) from None
        if not (math.isclose(exact, plain, abs_tol=1e-9) and math.isclose(exact, pruned, abs_tol=1e-9)):
            raise GameCheckError(
                "agreement",
                _(
                    "solve says {exact}, minimax {plain}, alpha-beta {pruned} for the position {position} (do equal "
                    "states really mean the same position, whose turn included?)"
                ).format(exact=exact, plain=plain, pruned=pruned, position=_short(s)),
                path,
            )
        sign = 1 if self.player_at[s] == 0 else -1
        # MCTS plays for the outcome (win, draw, loss), not for a margin: compare outcome classes
        move_values = {m: _outcome(sign * values[g.play(s, m)]) for m in self.moves_at[s]}
        best = max(move_values.values())
        if len(set(move_values.values())) > 1 and self.terminal_means_no_moves:  # MCTS stops when no move is left
            self.tick()
            choice = MCTS(g, seed=self.seed).search(s, iterations=self.mcts_iterations)
            if move_values.get(choice, -2) < best:
                raise GameCheckError(
                    "agreement",
                    # TRANSLATORS: {chosen} and {best} are what a move does for its mover ("wins", "draws", "loses",
                    # "is not legal"), each a verb phrase that ends its clause
                    _(
                        "MCTS chose {choice}, which {chosen} for the mover, where another move {best} (if solve is "
                        "right: do equal states mean the same position?)"
                    ).format(
                        choice=repr(choice), chosen=_outcome_text(move_values.get(choice, -2)), best=_outcome_text(best)
                    ),
                    path,
                )
        self.agreed.add(s)
        return True


def _outcome_text(outcome: int) -> str:
    """What a move does for its mover, in the language in force: wins (1), draws (0), loses (-1), else is not legal."""
    if outcome == 1:
        return pgettext("a move's outcome for its mover, at the end of a clause", "wins")
    if outcome == 0:
        return pgettext("a move's outcome for its mover, at the end of a clause", "draws")
    if outcome == -1:
        return pgettext("a move's outcome for its mover, at the end of a clause", "loses")
    return pgettext("a move's outcome for its mover, at the end of a clause", "is not legal")


#: The property a method breaks when it raises instead of answering.
_ANSWERS = {
    "initial_state": "deterministic",
    "to_move": "players",
    "legal_moves": "terminal",
    "is_terminal": "terminal",
    "play": "illegal move",
    "utility": "utility",
}


def _tree_size(root: State, children: dict, moves_at: dict, paths: dict, limit: int) -> int:
    """The number of nodes of the game tree below `root` (a position counted once per path to it), or a
    number > limit; every position below is in `children`. A position that can be reached again from
    itself makes the game endless: that is the property "finite", named with the path to it."""
    sizes: dict = {}
    on_path: set = set()
    stack: list[tuple[State, bool]] = [(root, False)]
    while stack:
        s, leaving = stack.pop()
        if leaving:
            on_path.discard(s)
            sizes[s] = min(limit + 1, 1 + sum(sizes[c] for c in children[s]))
            continue
        if s in sizes:
            continue
        on_path.add(s)
        stack.append((s, True))
        for m, child in zip(moves_at[s], children[s]):
            if child in on_path:
                raise GameCheckError(
                    "finite",
                    _(
                        "the position {position} can be reached again from itself (the move {move} here leads back "
                        "to it): the game never has to end"
                    ).format(position=_short(child), move=repr(m)),
                    paths[s],
                )
            if child not in sizes:
                stack.append((child, False))
    return sizes[root]


def _outcome(value: float) -> int:
    return int(float(value) > 1e-9) - int(float(value) < -1e-9)


def _short(value: Any, limit: int = 200) -> str:
    try:
        text = repr(value)
    except Exception as error:
        text = f"<{type(value).__name__} whose repr raised {type(error).__name__}>"
    return text if len(text) <= limit else text[: limit - 3] + "..."


class _Snapshot:
    """What a state looked like (hash, repr, a deep copy if one can be made), to see whether a call changed it."""

    def __init__(self, s: State):
        self.hash = hash(s)
        self.text = _short(s, 10_000)
        try:
            self.copy: Any = copy.deepcopy(s)
            self.copied = bool(self.copy == s)
        except Exception:
            self.copied = False

    def changed(self, s: State) -> bool:
        try:
            if hash(s) != self.hash:
                return True
        except Exception:
            return True
        return _short(s, 10_000) != self.text or (self.copied and not s == self.copy)  # noqa: SIM201


def _probes(moves: list, seen: list) -> list:
    """Moves that are not legal here, of the kinds the game lists: whole numbers just outside the legal
    ones, tuples with one whole-number item moved just outside (or to 0), and legal moves of other positions."""
    legal = set(moves)
    found: list = []

    def add(m: Any) -> None:
        if m not in legal and m not in found:
            found.append(m)

    known = list(moves) + [m for m in seen if m not in legal]
    ints = [int(m) for m in known if is_int(m)]
    if ints:
        for v in (min(ints) - 1, -1, max(ints) + 1):
            add(v)
    pairs = [m for m in known if type(m) is tuple and m and all(is_int(x) for x in m)]
    if pairs:
        template = pairs[0]
        for k in range(len(template)):
            column = [int(m[k]) for m in pairs if len(m) == len(template)]
            for v in (0, min(column) - 1, max(column) + 1, -1):
                add(template[:k] + (v,) + template[k + 1 :])
    for m in seen:
        add(m)
    return found[:_PROBES]


def _holds_nan(value: Any, depth: int = 0) -> bool:
    """Is `value` unequal to itself because of a NaN inside (NaN != NaN)?"""
    if depth > 6:
        return False
    if isinstance(value, (float, np.floating)):
        return bool(value != value)
    if isinstance(value, (str, bytes, int, bool, type(None))):
        return False
    if isinstance(value, (tuple, list, frozenset, set)):
        items: Any = value
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        items = [getattr(value, f.name) for f in dataclasses.fields(value)]
    else:
        items = list(getattr(value, "__dict__", {}).values())
    return any(_holds_nan(item, depth + 1) for item in list(items)[:1000])


def _nan_text(s: State) -> str:
    """The finding for a state with a NaN inside, in the language in force."""
    return _(
        "the state {state} holds NaN, which is not equal to itself: equal positions would not be found again"
    ).format(state=_short(s))


def _mutable_text(s: State, problem: tuple[str, str, str]) -> str:
    """The finding for a mutable state (`problem` from `_mutable_part`), in the language in force."""
    kind, name, value = problem
    if kind == "attribute":
        return _(
            "the state {state} has an attribute {name} that can be reassigned (use a frozen dataclass or a tuple)"
        ).format(state=_short(s), name=name)
    # TRANSLATORS: {kind} is a Python type (list, dict, set, bytearray), {value} its contents
    return _("the state {state} contains a {kind} ({value}), which can be changed in place").format(
        state=_short(s), kind=name, value=value
    )


def _wire_text(what: str, problem: str, **values: Any) -> str:
    """The finding for a state or move (`what`) that does not travel as JSON unchanged, in the language in force."""
    state = what == "state"
    if problem == "fails":
        text = (
            _(
                "the state {value} does not travel as JSON ({kind}: {error}); give the game state_to_json and "
                "state_from_json methods (see gamekit.wire)"
            )
            if state
            else _(
                "the move {value} does not travel as JSON ({kind}: {error}); give the game move_to_json and "
                "move_from_json methods (see gamekit.wire)"
            )
        )
    elif problem == "differs":
        text = (
            _("the state {value} comes back from JSON as {back} ({kind})")
            if state
            else _("the move {value} comes back from JSON as {back} ({kind})")
        )
    elif problem == "hash":
        text = (
            _(
                "the state {value} comes back from JSON equal but with another hash: __eq__ and __hash__ disagree, "
                "so a table would not find it"
            )
            if state
            else _(
                "the move {value} comes back from JSON equal but with another hash: __eq__ and __hash__ disagree, "
                "so a table would not find it"
            )
        )
    else:
        text = (
            _("the state {value} is written as {first} and then as {then}")
            if state
            else _("the move {value} is written as {first} and then as {then}")
        )
    return text.format(**values)


def _mutable_part(value: Any, depth: int = 0) -> tuple[str, str, str] | None:
    """What makes `value` mutable (None when nothing does): ("contains", a list, dict or set inside and its
    repr), or ("attribute", the repr of a writable attribute's name, "")."""
    if depth > 6:
        return None
    if isinstance(value, _MUTABLE):
        return ("contains", type(value).__name__, repr(value))
    if isinstance(value, (str, bytes, int, float, complex, bool, type(None), frozenset)):
        return None
    if isinstance(value, tuple):
        for item in value:
            problem = _mutable_part(item, depth + 1)
            if problem is not None:
                return problem
        return None
    if dataclasses.is_dataclass(value):
        fields = [getattr(value, f.name) for f in dataclasses.fields(value)]
    else:
        fields = list(getattr(value, "__dict__", {}).values())
    if fields or hasattr(value, "__dict__"):
        names = [f.name for f in dataclasses.fields(value)] if dataclasses.is_dataclass(value) else list(vars(value))
        if names:
            probe = copy.copy(value)
            try:
                setattr(probe, names[0], getattr(value, names[0]))
            except (AttributeError, TypeError, dataclasses.FrozenInstanceError):
                pass
            else:
                return ("attribute", repr(names[0]), "")
    for item in fields:
        problem = _mutable_part(item, depth + 1)
        if problem is not None:
            return problem
    return None
