"""`check_game` passes on every built-in game and names the broken property of each broken game."""

from __future__ import annotations

import random
import threading
from dataclasses import dataclass, field

import pytest

from gamekit import Nim, RandomTree, SubtractionGame
from gamekit.games.registry import small_instances
from gamekit.protocol import IllegalMoveError
from gamekit.testing import PROPERTIES, GameCheckError, GameCheckReport, check_game


# --- a small correct game, and one broken copy of it per promise ------------------------------
@dataclass(frozen=True)
class Pile:
    """Take 1 or 2 from a pile of n; whoever takes the last stick wins."""

    n: int
    turn: int


class TakeAway:
    def __init__(self, n: int = 7):
        self.n = n

    def initial_state(self):
        return Pile(self.n, 0)

    def to_move(self, s):
        return s.turn

    def legal_moves(self, s):
        return [m for m in (1, 2) if m <= s.n]

    def play(self, s, m):
        if m not in self.legal_moves(s):
            raise IllegalMoveError(f"illegal move {m!r}; allowed: {self.legal_moves(s)}")
        return Pile(s.n - m, 1 - s.turn)

    def is_terminal(self, s):
        return s.n == 0

    def utility(self, s, player):
        winner = 1 - s.turn  # the player who took the last stick
        return 1 if player == winner else -1


class WrongSign(TakeAway):
    def utility(self, s, player):  # forgets to flip the sign for the second player
        return 1 if s.turn == 1 else -1


class MutableState(TakeAway):
    def initial_state(self):
        return [self.n, 0]

    def to_move(self, s):
        return s[1]

    def legal_moves(self, s):
        return [m for m in (1, 2) if m <= s[0]]

    def play(self, s, m):
        return [s[0] - m, 1 - s[1]]

    def is_terminal(self, s):
        return s[0] == 0

    def utility(self, s, player):
        return 1 if player == 1 - s[1] else -1


class RandomOrder(TakeAway):
    def __init__(self, n=7):
        super().__init__(n)
        self.rng = random.Random(1)

    def legal_moves(self, s):
        moves = [m for m in (1, 2) if m <= s.n]
        self.rng.shuffle(moves)
        return moves


class NotZeroSum(TakeAway):
    def utility(self, s, player):
        return 1  # everybody wins


class Box:
    """A state whose equality is by value, but whose content `play` overwrites in place."""

    def __init__(self, n, turn):
        object.__setattr__(self, "cells", (n, turn))

    def __setattr__(self, name, value):
        raise AttributeError("Box is read-only")

    def __eq__(self, other):
        return isinstance(other, Box) and self.cells == other.cells

    def __hash__(self):
        return hash(self.cells)

    def __repr__(self):
        return f"Box{self.cells}"


class MutatingPlay(TakeAway):
    def initial_state(self):
        return Box(self.n, 0)

    def to_move(self, s):
        return s.cells[1]

    def legal_moves(self, s):
        return [m for m in (1, 2) if m <= s.cells[0]]

    def play(self, s, m):
        if m not in self.legal_moves(s):
            raise IllegalMoveError(f"illegal move {m!r}")
        n, turn = s.cells
        object.__setattr__(s, "cells", (n - m, 1 - turn))  # changes the caller's state
        return Box(n - m, 1 - turn)

    def is_terminal(self, s):
        return s.cells[0] == 0

    def utility(self, s, player):
        return 1 if player == 1 - s.cells[1] else -1


class NoTerminalTest(TakeAway):
    def is_terminal(self, s):
        return False


class AcceptsIllegal(TakeAway):
    def play(self, s, m):
        return Pile(s.n - m, 1 - s.turn)  # no check: 5 sticks at once is fine here


class BigUtility(TakeAway):
    def utility(self, s, player):
        return 100 * super().utility(s, player)


class ThreePlayers(TakeAway):
    def to_move(self, s):
        return s.turn + 1  # numbers players 1 and 2


@dataclass(frozen=True)
class Forgetful:
    """A state that forgets whose turn it is in its equality and hash."""

    n: int
    turn: int

    def __eq__(self, other):
        return isinstance(other, Forgetful) and self.n == other.n

    def __hash__(self):
        return hash(self.n)


class ForgetsTurn(TakeAway):
    def initial_state(self):
        return Forgetful(self.n, 0)

    def play(self, s, m):
        if m not in self.legal_moves(s):
            raise IllegalMoveError(f"illegal move {m!r}")
        return Forgetful(s.n - m, 1 - s.turn)


class WrongErrorType(TakeAway):
    def play(self, s, m):
        if m not in self.legal_moves(s):
            raise KeyError(m)
        return Pile(s.n - m, 1 - s.turn)


class PassForever(TakeAway):
    """A pass that can be played back and forth for ever: the game never has to end."""

    def legal_moves(self, s):
        return [*super().legal_moves(s), 0] if s.n else []

    def play(self, s, m):
        if m not in self.legal_moves(s):
            raise IllegalMoveError(f"illegal move {m!r}; allowed: {self.legal_moves(s)}")
        return Pile(s.n - m, 1 - s.turn)


class DuplicateMoves(TakeAway):
    def legal_moves(self, s):
        moves = super().legal_moves(s)
        return moves + moves[:1]


class RaisesInUtility(TakeAway):
    def utility(self, s, player):
        return {0: 1, 1: -1}[player + 5]


class AcceptsZero(TakeAway):
    """Taking 0 sticks is refused by legal_moves but accepted by play (and passes the turn)."""

    def play(self, s, m):
        if m not in (0, 1, 2) or m > s.n:
            raise IllegalMoveError(f"illegal move {m!r}; allowed: {self.legal_moves(s)}")
        return Pile(s.n - m, 1 - s.turn)


class FrozenSetState(TakeAway):
    """A state with a frozenset in it: hashable and immutable, but JSON has no sets (no wire format given)."""

    def initial_state(self):
        return (self.n, 0, frozenset())

    def to_move(self, s):
        return s[1]

    def legal_moves(self, s):
        return [m for m in (1, 2) if m <= s[0]]

    def play(self, s, m):
        if m not in self.legal_moves(s):
            raise IllegalMoveError(f"illegal move {m!r}; allowed: {self.legal_moves(s)}")
        return (s[0] - m, 1 - s[1], s[2] | {m})

    def is_terminal(self, s):
        return s[0] == 0

    def utility(self, s, player):
        return 1 if player == 1 - s[1] else -1


class LossyWire(TakeAway):
    """Its own wire format forgets whose turn it is."""

    def state_to_json(self, s):
        return s.n

    def state_from_json(self, data):
        return Pile(data, 0)


class MovesComeBackAsText(TakeAway):
    """Its move decoder gives the move as a string: "1" is not the move 1."""

    def move_from_json(self, data):
        return str(data)


class TerminalWithMoves(TakeAway):
    """Over at one stick left, although taking it is still a legal move."""

    def is_terminal(self, s):
        return s.n <= 1


class UnhashableMoves(TakeAway):
    """Moves as lists ([1], [2]): they cannot be keys of a table of move values."""

    def legal_moves(self, s):
        return [[m] for m in (1, 2) if m <= s.n]

    def play(self, s, m):
        if m not in self.legal_moves(s):
            raise IllegalMoveError(f"illegal move {m!r}; allowed: {self.legal_moves(s)}")
        return Pile(s.n - m[0], 1 - s.turn)


class FlickeringUtility(TakeAway):
    """The utility of a won game alternates between 1 and 0.5 from one call to the next."""

    def __init__(self, n: int = 7):
        super().__init__(n)
        self.calls = 0

    def utility(self, s, player):
        self.calls += 1
        size = 1 if self.calls % 4 < 2 else 0.5
        return size if player == 1 - s.turn else -size


class ForgotReturn(TakeAway):
    """is_terminal without `return`: it answers None."""

    def is_terminal(self, s):
        s.n == 0  # noqa: B015  (the classic slip)


# --- broken in ways only a longer look finds: hidden state, hashes, NaN, cycles, tuple moves ------------


class HiddenStateMoves(TakeAway):
    """legal_moves depends on how often play was called: after 40 plays, taking 2 is no longer listed."""

    def __init__(self, n: int = 7):
        super().__init__(n)
        self.plays = 0

    def legal_moves(self, s):
        return [m for m in (1, 2) if m <= s.n and (m == 1 or self.plays < 40)]

    def play(self, s, m):
        self.plays += 1
        return super().play(s, m)


@dataclass(frozen=True)
class LockedPile:
    """A frozen state that cannot be deep-copied (it carries a lock, outside its equality)."""

    n: int
    turn: int
    lock: object = field(default_factory=threading.Lock, compare=False, repr=False)


class ChangedByPlay(TakeAway):
    """play writes the new count into the state it was given (through object.__setattr__) and returns it."""

    def initial_state(self):
        return LockedPile(self.n, 0)

    def play(self, s, m):
        if m not in self.legal_moves(s):
            raise IllegalMoveError(f"illegal move {m!r}")
        object.__setattr__(s, "n", s.n - m)
        object.__setattr__(s, "turn", 1 - s.turn)
        return s


class IdHashed:
    """Equal by value, hashed by identity: __eq__ without a matching __hash__."""

    def __init__(self, n, turn):
        self.__dict__["key"] = (n, turn)

    def __setattr__(self, name, value):
        raise AttributeError("read-only")

    def __eq__(self, other):
        return isinstance(other, IdHashed) and self.key == other.key

    __hash__ = object.__hash__

    @property
    def n(self):
        return self.key[0]

    @property
    def turn(self):
        return self.key[1]

    def __repr__(self):
        return f"IdHashed{self.key}"


class EqWithoutHash(TakeAway):
    def initial_state(self):
        return IdHashed(self.n, 0)

    def play(self, s, m):
        if m not in self.legal_moves(s):
            raise IllegalMoveError(f"illegal move {m!r}")
        return IdHashed(s.n - m, 1 - s.turn)

    def state_to_json(self, s):
        return list(s.key)

    def state_from_json(self, data):
        return IdHashed(*data)


@dataclass(frozen=True)
class ScoredPile:
    n: int
    turn: int
    score: float = float("nan")  # "no score yet"


class NaNState(TakeAway):
    def initial_state(self):
        return ScoredPile(self.n, 0)

    def play(self, s, m):
        if m not in self.legal_moves(s):
            raise IllegalMoveError(f"illegal move {m!r}")
        return ScoredPile(s.n - m, 1 - s.turn)


class WrongTurnAfterExtraTurn:
    """Dots and Boxes whose to_move remembers whether the last play gave an extra turn (hidden state),
    so it answers wrongly for every position once a box has been closed anywhere."""

    def __init__(self):
        self.rules = __import__("own_games").DotsAndBoxes()
        self.extra = False

    def initial_state(self):
        return self.rules.initial_state()

    def to_move(self, s):
        return 1 - s.player if self.extra else s.player

    def legal_moves(self, s):
        return self.rules.legal_moves(s)

    def play(self, s, m):
        child = self.rules.play(s, m)
        self.extra = child.player == s.player
        return child

    def is_terminal(self, s):
        return self.rules.is_terminal(s)

    def utility(self, s, player):
        return self.rules.utility(s, player)


@dataclass(frozen=True)
class Heaps:
    piles: tuple
    turn: int = 0


class PutBackNim:
    """Nim on piles (3, 4, 5) where a move may also put one stone back on a pile below its start size:
    240 positions, cycles everywhere (take one, put it back)."""

    start = (3, 4, 5)

    def initial_state(self):
        return Heaps(self.start)

    def to_move(self, s):
        return s.turn

    def legal_moves(self, s):
        takes = [(i, t) for i, p in enumerate(s.piles) for t in range(1, p + 1)]
        return takes + [(i, -1) for i, p in enumerate(s.piles) if p < self.start[i]] if any(s.piles) else []

    def play(self, s, m):
        if m not in self.legal_moves(s):
            raise IllegalMoveError(f"illegal move {m!r}; allowed: {self.legal_moves(s)}")
        i, t = m
        return Heaps(s.piles[:i] + (s.piles[i] - t,) + s.piles[i + 1 :], 1 - s.turn)

    def is_terminal(self, s):
        return not any(s.piles)

    def utility(self, s, player):
        return 1 if player != s.turn else -1


class TakesNothing(PutBackNim):
    """Tuple-move Nim whose play accepts taking no stone at all ((pile, 0) passes the turn)."""

    def legal_moves(self, s):
        return [(i, t) for i, p in enumerate(s.piles) for t in range(1, p + 1)]

    def play(self, s, m):
        i, t = m
        if not (0 <= i < len(s.piles) and 0 <= t <= s.piles[i]):
            raise IllegalMoveError(f"illegal move {m!r}")
        return Heaps(s.piles[:i] + (s.piles[i] - t,) + s.piles[i + 1 :], 1 - s.turn)


class Take:
    """A move object equal by its count but hashed by identity."""

    def __init__(self, k):
        self.k = k

    def __eq__(self, other):
        return isinstance(other, Take) and other.k == self.k

    def __hash__(self):
        return id(self) % 1000003

    def __repr__(self):
        return f"Take({self.k})"


class EqualMovesHashApart(TakeAway):
    """Its moves come back from JSON equal and of the same type, but with another hash."""

    _moves = {1: Take(1), 2: Take(2)}

    def legal_moves(self, s):
        return [self._moves[m] for m in (1, 2) if m <= s.n]

    def play(self, s, m):
        if m not in self.legal_moves(s):
            raise IllegalMoveError(f"illegal move {m!r}")
        return Pile(s.n - m.k, 1 - s.turn)

    def move_to_json(self, m):
        return m.k

    def move_from_json(self, data):
        return Take(data)


BROKEN = {
    "over while moves are left": (TerminalWithMoves, "terminal"),
    "moves that cannot be hashed": (UnhashableMoves, "hashable"),
    "a utility that changes between calls": (FlickeringUtility, "deterministic"),
    "is_terminal without return": (ForgotReturn, "terminal"),
    "a state JSON cannot carry": (FrozenSetState, "wire"),
    "a wire format that loses the turn": (LossyWire, "wire"),
    "moves back from JSON as text": (MovesComeBackAsText, "wire"),
    "a pass back and forth for ever": (PassForever, "finite"),
    "a move listed twice": (DuplicateMoves, "deterministic"),
    "a method that raises": (RaisesInUtility, "utility"),
    "taking 0 sticks accepted": (AcceptsZero, "illegal move"),
    "wrong sign for the second player": (WrongSign, "utility"),
    "mutable state": (MutableState, "hashable"),
    "random move order": (RandomOrder, "deterministic"),
    "non-zero-sum utility": (NotZeroSum, "utility"),
    "mutating play": (MutatingPlay, "pure play"),
    "missing terminal test": (NoTerminalTest, "terminal"),
    "accepted illegal move": (AcceptsIllegal, "illegal move"),
    "utility outside [-1, 1]": (BigUtility, "utility"),
    "players numbered 1 and 2": (ThreePlayers, "players"),
    "state forgets whose turn it is": (ForgetsTurn, "hashable"),
    "wrong error type for an illegal move": (WrongErrorType, "illegal move"),
    "legal moves that depend on hidden state": (HiddenStateMoves, "deterministic"),
    "a state changed by play (and not deep-copyable)": (ChangedByPlay, "pure play"),
    "__eq__ without a matching __hash__": (EqWithoutHash, "hashable"),
    "a state holding NaN": (NaNState, "hashable"),
    "to_move wrong only after an extra turn": (WrongTurnAfterExtraTurn, "deterministic"),
    "a Nim that can put a stone back": (PutBackNim, "finite"),
    "tuple-move Nim taking nothing": (TakesNothing, "illegal move"),
    "moves equal after JSON but hashed apart": (EqualMovesHashApart, "wire"),
}

#: Where each broken game breaks: a test of the path named (the moves from the start), given the game.
#: `None` means "at the start"; a function checks a path that depends on how the random games went.


def _replays(game, path):
    """The state after `path` from the start of a correct copy of `game`'s rules (each move must be legal)."""
    state = game.initial_state()
    for m in path:
        assert m in list(game.legal_moves(state)), (path, m)
        state = game.play(state, m)
    return state


WHERE = {
    "over while moves are left": lambda p: sum(p) == 6,  # one stick left
    "a wire format that loses the turn": lambda p: _replays(TakeAway(), p).turn == 1,
    "a pass back and forth for ever": lambda p: 0 in p or p == [],
    "a method that raises": lambda p: sum(p) == 7,  # utility is asked at the end
    "wrong sign for the second player": lambda p: sum(p) == 7,
    "non-zero-sum utility": lambda p: sum(p) == 7,
    "utility outside [-1, 1]": lambda p: sum(p) == 7,
    "missing terminal test": lambda p: sum(p) == 7,
    "legal moves that depend on hidden state": lambda p: _replays(TakeAway(), p).n >= 2,
    "to_move wrong only after an extra turn": lambda p: _replays(__import__("own_games").DotsAndBoxes(), p) is not None,
    "players numbered 1 and 2": lambda p: _replays(TakeAway(), p).turn == 1,
    "random move order": lambda p: _replays(TakeAway(), p).n >= 2,  # where two calls happened to differ
    "a Nim that can put a stone back": lambda p: _replays(PutBackNim(), p) is not None,
    "state forgets whose turn it is": lambda p: _replays(TakeAway(), p).n < 7,  # a position met before
    "a utility that changes between calls": lambda p: sum(p) == 7,
    "is_terminal without return": lambda p: p == [],
}


@pytest.mark.parametrize("kind", list(BROKEN), ids=list(BROKEN))
def test_each_broken_game_is_caught_with_the_broken_property_and_position_named(kind):
    cls, prop = BROKEN[kind]
    with pytest.raises(GameCheckError) as caught:
        check_game(cls(), games=30)
    assert caught.value.prop == prop, str(caught.value)
    assert str(caught.value).startswith(prop + ":")
    assert prop in PROPERTIES
    path = list(caught.value.path)
    where = WHERE.get(kind, lambda p: p == [])  # every other one breaks at the start
    assert where(path), f"{kind}: named the position after {path}: {caught.value}"
    assert ("at the start" in str(caught.value)) == (path == [])


def test_an_exception_of_the_game_is_named_as_the_games():
    with pytest.raises(GameCheckError) as caught:
        check_game(RaisesInUtility(), games=10)
    assert caught.value.raised == "KeyError" and "utility(state, 0) raised KeyError" in str(caught.value)
    with pytest.raises(GameCheckError) as caught:
        check_game(WrongTurnAfterExtraTurn(), games=30)
    assert caught.value.raised is None  # a wrong answer, not an exception


def test_a_bug_of_the_checker_is_not_reported_as_the_games(monkeypatch):
    import gamekit.testing as testing

    def broken_probes(moves, seen):
        raise ZeroDivisionError("the checker's own bug")

    monkeypatch.setattr(testing, "_probes", broken_probes)
    with pytest.raises(ZeroDivisionError):
        check_game(TakeAway(), games=5)


def test_the_correct_small_game_passes_and_reports_what_it_checked():
    report = check_game(TakeAway(), games=30)
    assert isinstance(report, GameCheckReport)
    reachable, frontier = {(7, 0)}, [(7, 0)]
    while frontier:
        n, t = frontier.pop()
        for m in (1, 2):
            if m <= n and (n - m, 1 - t) not in reachable:
                reachable.add((n - m, 1 - t))
                frontier.append((n - m, 1 - t))
    assert report.positions == len(reachable)  # 30 random games visit every position of this small game
    assert report.agreement_positions >= 4
    assert f"all {len(PROPERTIES)} properties hold" in str(report)


def test_a_failure_comes_with_a_short_path_to_the_broken_position():
    with pytest.raises(GameCheckError) as caught:
        check_game(NoTerminalTest(3), games=30)
    # hypothesis shrinks the random game to a short one that empties the pile of 3
    assert sum(caught.value.path) == 3 and len(caught.value.path) <= 3


@pytest.mark.parametrize(
    "label, game", small_instances(scores=False), ids=[n for n, _ in small_instances(scores=False)]
)
def test_every_built_in_game_passes(label, game):
    """Every small instance of every game in the one registry (gamekit.games.registry) whose
    utilities are wins, draws and losses (the search trees' leaf scores are not)."""
    report = check_game(game, games=25)
    assert report.positions > 5
    assert report.agreement_positions >= 1


def test_a_tree_of_numbers_is_not_a_win_loss_game():
    # RandomTree's leaves carry arbitrary numbers (for the alpha-beta lessons), not +1/0/-1
    with pytest.raises(GameCheckError, match="utility|agreement"):
        check_game(RandomTree(3, 3, seed=1), games=25)


def test_bad_arguments_are_refused():
    with pytest.raises(TypeError, match="games must be an int"):
        check_game(TakeAway(), games=2.5)
    with pytest.raises(TypeError, match="is not a Game"):
        check_game(object())


# --- correct games that look unusual: they pass -------------------------------------------------


class NumpyTerminal(TakeAway):
    def is_terminal(self, s):
        import numpy as np

        return np.bool_(s.n == 0)


class NumpyNumbers(TakeAway):
    """utility and to_move answer with numpy integers (numpy numbers are numbers)."""

    def utility(self, s, player):
        import numpy as np

        return np.int64(super().utility(s, player))

    def to_move(self, s):
        import numpy as np

        return np.int64(s.turn)


class OverAtOneRefusesMoves(TakeAway):
    """Over when at most one stick is left, though taking it is still listed; play refuses every move once
    the game is over (checked with terminal_means_no_moves=False)."""

    def is_terminal(self, s):
        return s.n <= 1

    def play(self, s, m):
        if self.is_terminal(s):
            raise IllegalMoveError(f"the game is over; no move {m!r}")
        return super().play(s, m)

    def utility(self, s, player):
        return 1 if player != s.turn else -1


def test_a_game_with_moves_listed_after_its_end_passes_when_told_so():
    game = OverAtOneRefusesMoves()
    assert check_game(game, games=25, terminal_means_no_moves=False).positions > 5
    with pytest.raises(GameCheckError) as caught:
        check_game(game, games=25)
    assert caught.value.prop == "terminal" and sum(caught.value.path) == 6


def test_the_time_budget_gives_a_verdict_on_a_big_game():
    import time

    t = time.monotonic()
    report = check_game(Nim((5, 6, 7, 8)), games=60, time_limit=0.05)  # the whole check takes over a second
    assert time.monotonic() - t < 30  # one search past the budget at most, never the whole check
    assert not report.complete and report.games_checked < 60
    assert "time budget ran out" in str(report)
    with pytest.raises(TypeError, match="time_limit"):
        check_game(TakeAway(), time_limit=0)


class HalfPoints(TakeAway):
    """A win is worth only 0.5 (any utility in [-1, 1] is allowed)."""

    def utility(self, s, player):
        return 0.5 * super().utility(s, player)


@pytest.mark.parametrize(
    "make",
    [
        NumpyTerminal,
        NumpyNumbers,
        HalfPoints,
        lambda: __import__("own_games").DotsAndBoxes(),
        lambda: __import__("own_games").PassOrTake(6),
    ],
    ids=["numpy bool", "numpy numbers", "utilities of 0.5", "extra turns (Dots and Boxes)", "one pass each"],
)
def test_correct_unusual_games_pass(make):
    report = check_game(make(), games=25)
    assert report.positions > 5


def test_check_game_gives_the_same_verdict_twice_in_one_process():
    for _ in range(2):
        with pytest.raises(GameCheckError) as caught:
            check_game(DuplicateMoves(), games=20)
        assert caught.value.prop == "deterministic"


def test_the_checker_writes_no_files_beside_the_notebook(tmp_path, monkeypatch):
    """Hypothesis caches files in `.hypothesis/` of the folder it started in (a student's notebook
    folder); check_game sends them to the system's temporary folder instead."""
    import hypothesis.configuration as configuration

    from gamekit.testing import check_game

    beside = tmp_path / ".hypothesis"
    monkeypatch.setattr(configuration, "__hypothesis_home_directory_default", beside)
    monkeypatch.setattr(configuration, "__hypothesis_home_directory", None)  # as in a kernel: nobody chose
    assert check_game(SubtractionGame(20), games=5).positions > 0
    assert not beside.exists()
    assert configuration.storage_directory().path == beside  # afterwards hypothesis is as it was


def test_dots_and_boxes_is_searched_exactly_by_alpha_beta_and_played_well_by_mcts_from_both_seats():
    """A game with extra turns (closing a box moves again): the searches ask `to_move`, never assume turns alternate."""
    from gamekit import MCTS, alphabeta, best_moves, minimax, solve

    game = __import__("own_games").DotsAndBoxes()
    values = solve(game)
    extra = [
        s
        for s in values
        if not game.is_terminal(s)
        and any(
            game.to_move(game.play(s, m)) == game.to_move(s) and not game.is_terminal(game.play(s, m))
            for m in game.legal_moves(s)
        )
    ]
    assert extra  # positions where some move gives the mover another turn
    for s in extra[:40] + [game.initial_state()]:
        assert alphabeta(game, s).value == minimax(game, s).value == values[s]
    checked = {0: 0, 1: 0}
    telling = [
        s for s in values if not game.is_terminal(s) and len(best_moves(game, s, values)) < len(game.legal_moves(s))
    ]
    for k, s in enumerate(telling[:12]):  # positions where a wrong move exists
        move = MCTS(game, seed=k).search(s, iterations=3000)
        assert move in best_moves(game, s, values), (s, move)
        checked[game.to_move(s)] += 1
    assert checked[0] and checked[1]  # from both seats
