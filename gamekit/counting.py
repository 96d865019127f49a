"""Counting games: how big the game tree is compared with the game graph.

The tree has one node per *sequence* of moves, the graph one node per *position*. For the
subtraction game and TicTacToe the tree is vastly larger, which is why the forward
"try every line" approach (the German source's *falscher Ansatz*) does not scale.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, NamedTuple, TypeVar

from .i18n import ngettext
from .protocol import Game, Move, State, check_player, guard_depth, player_name, require_game_methods

__all__ = [
    "against_every_opponent",
    "count_outcomes",
    "count_outcomes_plain",
    "ExhaustiveCheck",
    "games_by_length",
    "line_probability",
    "outcome_probabilities",
    "OutcomeCounts",
    "OutcomeProbabilities",
    "reachable_positions",
    "terminal_positions",
    "tree_size",
]

F = TypeVar("F", bound=Callable[..., Any])


def tree_size(game: Game, state: State | None = None) -> int:
    """Number of nodes in the full game tree below `state` (counting `state` itself).

    Counted over the game graph with memoisation: nodes(s) = 1 + sum of nodes(child).
    """
    require_game_methods(game)
    root = game.initial_state() if state is None else state
    sizes: dict[State, int] = {}
    stack: list[tuple[State, bool]] = [(root, False)]
    while stack:
        s, done = stack.pop()
        if done:
            sizes[s] = 1 + sum(sizes[game.play(s, m)] for m in game.legal_moves(s))
            continue
        if s in sizes:
            continue
        if game.is_terminal(s):
            sizes[s] = 1
            continue
        stack.append((s, True))
        for m in game.legal_moves(s):
            child = game.play(s, m)
            if child not in sizes:
                stack.append((child, False))
    return sizes[root]


def reachable_positions(game: Game, state: State | None = None) -> set:
    """Every position reachable from `state` (including it): the nodes of the game graph."""
    require_game_methods(game)
    root = game.initial_state() if state is None else state
    seen = {root}
    todo = [root]
    while todo:
        s = todo.pop()
        if game.is_terminal(s):
            continue
        for m in game.legal_moves(s):
            child = game.play(s, m)
            if child not in seen:
                seen.add(child)
                todo.append(child)
    return seen


# --- chapter 3: counting outcomes (the German source's *pruefen_rekursiv*) ----------------


class OutcomeCounts(NamedTuple):
    """How many complete games below a position end in a win for player 0, for player 1, or a draw.

    For TicTacToe player 0 is X, so `p0_wins` are X wins and `p1_wins` are O wins. (A named
    tuple rather than a dataclass: the memoised count creates thousands of them.)
    """

    p0_wins: int = 0
    p1_wins: int = 0
    draws: int = 0

    @property
    def total(self) -> int:
        return self.p0_wins + self.p1_wins + self.draws

    def wins(self, player: int) -> int:
        """Games won by `player` (0 or 1)."""
        return (self.p0_wins, self.p1_wins)[player]

    def losses(self, player: int) -> int:
        """Games lost by `player` (0 or 1)."""
        return (self.p1_wins, self.p0_wins)[player]

    def __add__(self, other: OutcomeCounts) -> OutcomeCounts:  # type: ignore[override]
        return OutcomeCounts(self.p0_wins + other.p0_wins, self.p1_wins + other.p1_wins, self.draws + other.draws)


_P0_WINS, _P1_WINS, _DRAW = OutcomeCounts(1, 0, 0), OutcomeCounts(0, 1, 0), OutcomeCounts(0, 0, 1)


def _leaf_counts(game: Game, state: State) -> OutcomeCounts:
    """One finished game: whose win it is, or a draw."""
    u = game.utility(state, 0)
    return _P0_WINS if u > 0 else _P1_WINS if u < 0 else _DRAW


@guard_depth
def count_outcomes_plain(game: Game, state: State | None = None) -> OutcomeCounts:
    """Count the games below `state` by plain recursion, as a student writes it first.

    Every move order is walked separately, so a position reached in many orders is counted
    again each time: the work grows with the number of *games*, not of positions.
    """
    require_game_methods(game)

    def count(s: State) -> OutcomeCounts:
        if game.is_terminal(s):
            return _leaf_counts(game, s)
        total = OutcomeCounts()
        for move in game.legal_moves(s):
            total = total + count(game.play(s, move))
        return total

    return count(game.initial_state() if state is None else state)


@guard_depth
def count_outcomes(
    game: Game, state: State | None = None, memo: dict[State, OutcomeCounts] | None = None
) -> OutcomeCounts:
    """The same count as `count_outcomes_plain`, but each position is counted only once.

    counts(s) = the leaf's own result if s is terminal, else the sum of counts(child); the
    answer for a position does not depend on how it was reached, so it is remembered in
    `memo` (pass your own dict to reuse it across calls). The work now grows with the
    number of positions and moves, not games. (Written recursively, like the source, so it
    suits games up to a few hundred moves deep.)
    """
    require_game_methods(game)
    memo = {} if memo is None else memo

    is_terminal, legal_moves, play = game.is_terminal, game.legal_moves, game.play

    def count(s: State) -> OutcomeCounts:
        known = memo.get(s)
        if known is None:
            if is_terminal(s):
                known = _leaf_counts(game, s)
            else:
                x = o = d = 0
                for m in legal_moves(s):
                    cx, co, cd = count(play(s, m))
                    x, o, d = x + cx, o + co, d + cd
                known = OutcomeCounts(x, o, d)
            memo[s] = known
        return known

    return count(game.initial_state() if state is None else state)


@guard_depth
def games_by_length(game: Game, state: State | None = None) -> dict[int, OutcomeCounts]:
    """The games below `state`, split by their number of moves: {length: OutcomeCounts}.

    Memoised like `count_outcomes`: the table of a position is its children's tables with
    every length shifted by one.
    """
    require_game_methods(game)
    memo: dict[State, dict[int, OutcomeCounts]] = {}

    def table(s: State) -> dict[int, OutcomeCounts]:
        if s not in memo:
            if game.is_terminal(s):
                memo[s] = {0: _leaf_counts(game, s)}
            else:
                merged: dict[int, OutcomeCounts] = {}
                for m in game.legal_moves(s):
                    for length, c in table(game.play(s, m)).items():
                        merged[length + 1] = merged.get(length + 1, OutcomeCounts()) + c
                memo[s] = merged
        return memo[s]

    return dict(sorted(table(game.initial_state() if state is None else state).items()))


@dataclass(frozen=True)
class OutcomeProbabilities:
    """Exact chances of each result when both players pick uniformly among their legal moves."""

    p0_win: Fraction
    p1_win: Fraction
    draw: Fraction

    def win(self, player: int) -> Fraction:
        return (self.p0_win, self.p1_win)[player]

    def lose(self, player: int) -> Fraction:
        """P(`player` loses): the quantity the source's corrected player keeps small."""
        return (self.p1_win, self.p0_win)[player]


@guard_depth
def outcome_probabilities(
    game: Game, state: State | None = None, memo: dict[State, OutcomeProbabilities] | None = None
) -> OutcomeProbabilities:
    """The probability-weighted count: each branch gets an equal share of its parent's probability.

    P(s) = the leaf's result (probability 1) if s is terminal, else the average of P(child)
    over the legal moves. This is the chance of each result under uniform random play by
    both sides, as exact fractions. Memoised like `count_outcomes`.
    """
    require_game_methods(game)
    memo = {} if memo is None else memo

    def prob(s: State) -> OutcomeProbabilities:
        if s not in memo:
            if game.is_terminal(s):
                c = _leaf_counts(game, s)
                memo[s] = OutcomeProbabilities(Fraction(c.p0_wins), Fraction(c.p1_wins), Fraction(c.draws))
            else:
                kids = [prob(game.play(s, m)) for m in game.legal_moves(s)]
                n = len(kids)
                memo[s] = OutcomeProbabilities(
                    sum((k.p0_win for k in kids), Fraction(0)) / n,
                    sum((k.p1_win for k in kids), Fraction(0)) / n,
                    sum((k.draw for k in kids), Fraction(0)) / n,
                )
        return memo[s]

    return prob(game.initial_state() if state is None else state)


def terminal_positions(game: Game, state: State | None = None) -> set:
    """The reachable positions where the game is over (the leaves of the game graph)."""
    return {s for s in reachable_positions(game, state) if game.is_terminal(s)}


@dataclass
class ExhaustiveCheck:
    """A fixed player against every possible opponent: all the lines it can end up in.

    `losses` holds the move sequences (from the start state) that end in a loss for the
    checked player; `can_lose` is True when there is at least one.
    """

    player_name: str
    seat: int
    start: State = None
    lines: int = 0
    wins: int = 0
    draws: int = 0
    losses: list = field(default_factory=list)

    @property
    def can_lose(self) -> bool:
        return bool(self.losses)

    def record(self, line: tuple, utility: float) -> None:
        """Count one finished `line` with the checked player's `utility` (+1, 0 or -1)."""
        self.lines += 1
        if utility > 0:
            self.wins += 1
        elif utility < 0:
            self.losses.append(line)
        else:
            self.draws += 1

    def __str__(self) -> str:
        # TRANSLATORS: {name} is a player's name, {seat} 0 (moves first) or 1; {lines} courses of a game (every
        # opponent's moves tried), of which {won} won, {drawn} drawn, {lost} lost (English: "lines" for one too)
        text = ngettext(
            "{name} in seat {seat}: {lines} lines against every opponent, {won} won, {drawn} drawn, {lost} lost",
            "{name} in seat {seat}: {lines} lines against every opponent, {won} won, {drawn} drawn, {lost} lost",
            self.lines,
        )
        return text.format(
            name=self.player_name,
            seat=self.seat,
            lines=self.lines,
            won=self.wins,
            drawn=self.draws,
            lost=len(self.losses),
        )


def against_every_opponent(
    game: Game, player: Callable[[Game, State], Move], seat: int, state: State | None = None
) -> ExhaustiveCheck:
    """Play a deterministic `player` in `seat` against every opponent strategy at once.

    At the player's turns follow its one choice, at the opponent's turns every legal move.
    If no line is lost, no opponent whatsoever can beat the player: a proof, not a sample.
    """
    require_game_methods(game)
    seat = check_player(seat, "seat")
    if not callable(player):
        raise TypeError(f"player must be callable as player(game, state) -> move, got {player!r}")
    root = game.initial_state() if state is None else state
    result = ExhaustiveCheck(player_name(player), seat, root)
    stack: list[tuple[State, tuple]] = [(root, ())]
    while stack:
        s, line = stack.pop()
        if game.is_terminal(s):
            result.record(line, game.utility(s, seat))
            continue
        moves = [player(game, s)] if game.to_move(s) == seat else list(game.legal_moves(s))
        stack.extend((game.play(s, m), line + (m,)) for m in reversed(moves))  # first move on top
    return result


def line_probability(game: Game, line: tuple, seat: int, state: State | None = None) -> Fraction:
    """The chance that a uniformly random opponent of `seat` plays exactly its moves in `line`.

    The moves of `seat` in the line are taken as given (a deterministic player makes them),
    so the chance is the product of 1/(number of legal moves) at the opponent's turns.
    Summed over `ExhaustiveCheck.losses` it is the chance of losing one game against a
    random opponent — which tells how many games a tournament needs to notice a flaw.
    """
    require_game_methods(game)
    seat = check_player(seat, "seat")
    if isinstance(line, (str, bytes)) or not hasattr(line, "__iter__"):
        raise TypeError(f"line must be a sequence of moves (from ExhaustiveCheck.losses), got {line!r}")
    s = game.initial_state() if state is None else state
    p = Fraction(1)
    for move in line:
        if game.to_move(s) != seat:
            p /= len(game.legal_moves(s))
        s = game.play(s, move)
    return p
