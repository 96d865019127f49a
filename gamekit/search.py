"""Game-tree search: minimax, alpha-beta pruning, a transposition table, move ordering,
iterative deepening, and a player built on them.

Everything works on any game of the `Game` protocol; what is specific to a game (a heuristic
for the depth limit, a move order) is passed in as an argument. Values are from player 0's
(MAX's) point of view: MAX picks the largest child value, MIN (player 1) the smallest. Each
search returns a `SearchResult` with the value, the best move, the principal variation and
counts (nodes visited, leaves evaluated, cutoffs, table hits), so refinements can be compared
by what they *do*, not only by how long they take.

The refinement follows the course's pattern: `minimax` (the definition, executed) ->
`textbook_alphabeta` (the ten-line pruning idea) -> `alphabeta` (the one production version:
counts, a move order, a `TranspositionTable`, an observer hook that the step-by-step trace
uses) -> `iterative_deepening` (alpha-beta to depth 1, 2, 3, ... sharing one table).

Alpha-beta here is *fail-soft*: called with a window (alpha, beta) it returns a value v with
    v <= alpha  =>  the true value is <= v     (an upper bound),
    v >= beta   =>  the true value is >= v     (a lower bound),
    otherwise       v is the true value        (exact),
which is Knuth and Moore's guarantee with the extra promise that a bound is never looser than
the window edge. With the default window (-inf, +inf) the value is always exact.

The searches are recursive, like the pseudocode they follow. A game deeper than Python's
recursion limit raises `GameTooDeepError` (naming the limit); `gamekit.solve` iterates.

A `SearchResult` printed reads in the language in force (`gamekit.i18n`). A trace's steps keep
their English sentence (`Step.text`, data); `gamekit.views.trees.step_text` shows a step in the
language in force.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, NamedTuple, TypeVar, cast

import numpy as np

from .i18n import _, pgettext
from .protocol import (
    Game,
    GameTooDeepError,
    Move,
    State,
    check_fits,
    check_seed,
    check_state,
    guard_depth,
    is_int,
    require_game_methods,
)
from .solve import solve

__all__ = [
    "INF",
    "AlphaBetaTrace",
    "Entry",
    "Evaluate",
    "GameTooDeepError",
    "Observer",
    "Order",
    "SearchPlayer",
    "SearchResult",
    "Step",
    "TranspositionTable",
    "alphabeta",
    "heuristic_order",
    "iterative_deepening",
    "minimax",
    "oracle_order",
    "random_order",
    "textbook_alphabeta",
    "trace_alphabeta",
]

INF = math.inf
Evaluate = Callable[[Any, Any], float]  # evaluate(game, state) -> estimate, player 0's view
Order = Callable[[Any, Any, Sequence[Any]], Sequence[Any]]  # order(game, state, moves) -> the moves reordered
# Every order's result is checked to be a permutation of the moves, unless the order function
# carries `permutation = True` (it only sorts or shuffles them), as the orders below do.

EXACT, LOWER, UPPER = "exact", "lower", "upper"


@dataclass(frozen=True)
class SearchResult:
    """What a search found and what it cost.

    value: the value of the root (player 0's view); `bound` says whether it is exact or, for
    a narrowed alpha-beta window, an upper or lower bound. move: the best move for the player
    to move (None at a terminal root or at depth 0). pv: the principal variation, the line of
    best play the search expects (it may stop early where a table entry answered).
    nodes: positions visited (the root included); leaves: positions evaluated (terminal
    utility or heuristic); horizon: heuristic evaluations at the depth limit (a table answer
    that rests on such estimates counts too); cutoffs: times a node stopped looking at its
    remaining moves; table_hits: times a table entry answered a position without searching it.
    """

    value: float
    move: Move | None
    pv: tuple
    nodes: int
    leaves: int
    cutoffs: int = 0
    table_hits: int = 0
    horizon: int = 0
    depth: int | None = None
    bound: str = EXACT
    iterations: tuple = field(default=(), repr=False)

    def __str__(self) -> str:
        # TRANSLATORS: the character between thousands in a number (1,500): "." in German
        sep = pgettext("thousands separator", ",")
        counts = {k: f"{getattr(self, k):,}".replace(",", sep) for k in ("nodes", "leaves", "cutoffs", "table_hits")}
        if self.bound == LOWER:
            # TRANSLATORS: what a search found and cost; {move} is the best move as Python writes it
            text = _(
                "value {value} (lower bound), move {move}, {nodes} nodes, {leaves} leaves, {cutoffs} cutoffs, "
                "{table_hits} table hits"
            )
        elif self.bound == UPPER:
            # TRANSLATORS: what a search found and cost; {move} is the best move as Python writes it
            text = _(
                "value {value} (upper bound), move {move}, {nodes} nodes, {leaves} leaves, {cutoffs} cutoffs, "
                "{table_hits} table hits"
            )
        else:
            # TRANSLATORS: what a search found and cost; {move} is the best move as Python writes it
            text = _(
                "value {value}, move {move}, {nodes} nodes, {leaves} leaves, {cutoffs} cutoffs, {table_hits} table hits"
            )
        return text.format(value=f"{self.value:g}", move=repr(self.move), **counts)


@dataclass(frozen=True)
class Step:
    """One event of an alpha-beta run, as `alphabeta` hands it to its observer.

    kind: 'enter' (a node is reached with its window), 'leaf' (a position is evaluated),
    'hit' (a table entry answered), 'update' (a child's value came back; the node's alpha or
    beta may have moved), 'cut' (the remaining moves are skipped), 'return' (the node's value
    goes up). node: the path of moves from the root. player: who moves at the node.
    pruned: for 'cut', the paths of the skipped children. text: an explanation (filled in by
    `trace_alphabeta`).
    """

    kind: str
    node: tuple
    alpha: float
    beta: float
    value: float | None = None
    pruned: tuple = ()
    text: str = ""
    player: int = 0


Observer = Callable[[Step], Any]


class _Counts:
    __slots__ = ("nodes", "leaves", "cutoffs", "hits", "horizon")

    def __init__(self) -> None:
        self.nodes = self.leaves = self.cutoffs = self.hits = self.horizon = 0


# --- validation ------------------------------------------------------------------------------


def _check_depth(depth: Any) -> int | None:
    if depth is None:
        return None
    if not is_int(depth):
        raise TypeError(f"depth must be None (search to the end) or a whole number >= 0, got {depth!r}")
    if depth < 0:
        raise ValueError(f"depth must be None (search to the end) or a whole number >= 0, got {depth!r}")
    return int(depth)


def _check_evaluate(evaluate: Any, depth: int | None) -> Evaluate | None:
    if evaluate is not None and not callable(evaluate):
        raise TypeError(f"evaluate must be a function evaluate(game, state) -> number, got {evaluate!r}")
    if depth is not None and evaluate is None:
        raise ValueError(
            f"depth={depth} needs evaluate(game, state) -> number (player 0's view) for the "
            f"positions at the depth limit; pass depth=None to search to the end"
        )
    return evaluate


def _check_callable(x: Any, name: str, what: str) -> Any:
    if x is not None and not callable(x):
        raise TypeError(f"{name} must be None or a function {what}, got {x!r}")
    return x


def _checked_eval(evaluate: Evaluate, game: Game, state: State) -> float:
    v = evaluate(game, state)
    if isinstance(v, bool) or not isinstance(v, numbers.Real):
        raise TypeError(
            f"evaluate must return a number (player 0's view), but it returned {v!r} "
            f"({type(v).__name__}) for the state {state!r}"
        )
    if math.isnan(v):
        raise ValueError(f"evaluate returned NaN for the state {state!r}; it must return a real number")
    return v


def _check_window(alpha: Any, beta: Any) -> tuple[float, float]:
    for name, x in (("alpha", alpha), ("beta", beta)):
        if isinstance(x, bool) or not isinstance(x, numbers.Real) or math.isnan(x):
            raise TypeError(f"{name} must be a number (or +-inf), got {x!r}")
    if not alpha < beta:
        raise ValueError(f"the window needs alpha < beta, got alpha={alpha!r}, beta={beta!r}")
    return float(alpha), float(beta)


def _root(game: Game, state: State | None) -> State:
    require_game_methods(game)
    if state is None:
        return game.initial_state()
    check_state(game, state)
    return state


def _searched(run: Callable[[], T], name: str, game: Game, s0: State, evaluate: Any, order: Any) -> T:
    """`_recursive(run, name)`; if it fails as an evaluate or order made for another game fails (an
    IndexError, KeyError, ... from inside), say which function does not fit the game. Nothing is
    called twice when the search succeeds."""
    try:
        return _recursive(run, name)
    except (IndexError, KeyError, TypeError, AttributeError):
        if not game.is_terminal(s0):
            check_fits(game, s0, evaluate, "evaluate")
            check_fits(game, s0, order, "order", game.legal_moves(s0))
        raise


T = TypeVar("T")
F = TypeVar("F", bound=Callable[..., Any])


def _recursive(run: Callable[[], T], name: str) -> T:
    """Run the recursive search `name`; a game deeper than Python's recursion limit gets a clear error."""
    run.__name__ = name
    return guard_depth(run)()


def _leaf_value(game: Game, s: State, evaluate: Evaluate | None, c: _Counts) -> float:
    """Where the search stops: the utility at the end of the game, else (at the depth limit)
    the heuristic estimate. Both count as leaves; estimates also count as the horizon."""
    c.leaves += 1
    if game.is_terminal(s):
        return game.utility(s, 0)
    c.horizon += 1
    return _checked_eval(evaluate, game, s)  # type: ignore[arg-type]  # depth limit => evaluate given


def _moves(game: Game, s: State) -> Sequence[Move]:
    moves = game.legal_moves(s)
    if not moves:
        raise ValueError(f"{s!r} is not terminal but has no legal moves")
    return moves


# --- minimax ---------------------------------------------------------------------------------


def minimax(
    game: Game, state: State | None = None, depth: int | None = None, evaluate: Evaluate | None = None
) -> SearchResult:
    """The minimax value of `state` by plain depth-first recursion over the game *tree*.

    The definition executed: a terminal position is worth its utility, a position at the
    depth limit its heuristic estimate `evaluate(game, state)`, a MAX position the largest
    child value, a MIN position the smallest (ties: the first such move). Every path is
    searched, so `nodes` is the size of the (depth-limited) tree: the baseline every
    refinement is measured against.
    """
    s0, depth = _root(game, state), _check_depth(depth)
    evaluate, c = _check_evaluate(evaluate, depth), _Counts()

    def value(s: State, d: float) -> tuple[float, tuple]:
        c.nodes += 1
        if game.is_terminal(s) or d == 0:
            return _leaf_value(game, s, evaluate, c), ()
        maximise, best = game.to_move(s) == 0, None
        for m in _moves(game, s):
            v, pv = value(game.play(s, m), d - 1)
            if best is None or (v > best[0] if maximise else v < best[0]):
                best = (v, (m,) + pv)
        return best  # type: ignore[return-value]  # there was at least one move

    v, pv = _searched(lambda: value(s0, INF if depth is None else depth), "minimax", game, s0, evaluate, None)
    return SearchResult(v, pv[0] if pv else None, pv, c.nodes, c.leaves, horizon=c.horizon, depth=depth)


# --- alpha-beta, as in the textbook ----------------------------------------------------------


@guard_depth  # a game deeper than Python's recursion limit gets a clear error
def textbook_alphabeta(game: Game, state: State, alpha: float = -INF, beta: float = INF) -> float:
    """Minimax with alpha-beta pruning, nothing else: the value of `state` for player 0.

    alpha is what MAX is already sure of on the path here, beta what MIN is sure of; once
    they meet, the remaining moves cannot matter above and are skipped. Fail-soft: exact when
    the true value lies in (alpha, beta), otherwise a bound on the correct side.
    """
    if game.is_terminal(state):
        return game.utility(state, 0)
    maximise = game.to_move(state) == 0
    value = -INF if maximise else INF
    for move in game.legal_moves(state):
        child = textbook_alphabeta(game, game.play(state, move), alpha, beta)
        if maximise:
            value, alpha = max(value, child), max(alpha, child)
        else:
            value, beta = min(value, child), min(beta, child)
        if alpha >= beta:
            break  # a cut: the other moves cannot change the decision above
    return value


# --- transposition table ---------------------------------------------------------------------


class Entry(NamedTuple):
    """One stored search result.

    depth: the remaining depth it was searched to (inf = to the end); horizon: whether the
    search below met the depth limit (then the value is an estimate that holds only for this
    depth and this `evaluate`; otherwise it holds for any depth >= `depth`).
    """

    depth: float
    value: float
    flag: str  # EXACT, LOWER (true value >= value) or UPPER (true value <= value)
    move: Move | None  # best move found, tried first next time
    pv: tuple
    horizon: bool = False
    evaluate: Evaluate | None = None  # the heuristic behind the estimate (None: no estimate used)


class TranspositionTable:
    """Search results by position, flagged by what they prove, so the table never changes a value.

    A pruned search often learns only a bound ("at least 0"), so every entry says whether its
    value is exact, a lower bound or an upper bound. An entry built on heuristic estimates
    answers only a search to the same remaining depth with the same `evaluate`; one whose
    search reached only ends of the game answers any search at least as deep. At any depth its
    best move is tried first. A table belongs to one game (equal games share it): it binds to
    the first game it is used with and refuses another.
    """

    def __init__(self) -> None:
        self.entries: dict[State, Entry] = {}
        self.game: Game | None = None

    def __len__(self) -> int:
        return len(self.entries)

    def __repr__(self) -> str:
        return f"TranspositionTable({len(self)} positions)"

    def get(self, state: State) -> Entry | None:
        return self.entries.get(state)

    def clear(self) -> None:
        """Forget every entry and the game."""
        self.entries.clear()
        self.game = None

    def bind(self, game: Game) -> None:
        """Use this table for `game`; a table already holding another game's results refuses."""
        if self.game is None:
            self.game = game
        elif self.game is not game and self.game != game:
            raise ValueError(
                f"this table holds results for {self.game!r}, not {game!r}; use a new TranspositionTable "
                f"(or call table.clear()) for another game"
            )

    def probe(self, s: State, d: float, evaluate: Evaluate | None, a: float, b: float, c: _Counts):
        """(stored (value, pv) or None, the move to try first, alpha, beta) for `s` at depth `d`.

        A usable entry answers at once if it is exact or its bound closes the window;
        otherwise its bound narrows the window. Its move is tried first at any depth.
        """
        e = self.entries.get(s)
        if e is None:
            return None, None, a, b
        if (e.depth == d and e.evaluate is evaluate) if e.horizon else d >= e.depth:
            if e.flag == EXACT or (e.flag == LOWER and e.value >= b) or (e.flag == UPPER and e.value <= a):
                c.hits += 1
                c.horizon += e.horizon  # an answer built on estimates is an estimate
                return (e.value, e.pv), e.move, a, b
            a, b = (max(a, e.value), b) if e.flag == LOWER else (a, min(b, e.value))
        return None, e.move, a, b

    def store(self, s: State, d: float, value: float, pv: tuple, window: tuple, horizon: bool, evaluate) -> None:
        """File the result of searching `s` with `window`, flagged by what the fail-soft value
        proves: <= alpha an upper bound, >= beta a lower bound, else exact."""
        flag = UPPER if value <= window[0] else LOWER if value >= window[1] else EXACT
        self.entries[s] = Entry(d, value, flag, pv[0], pv, horizon, evaluate if horizon else None)


# --- alpha-beta, the production version ---------------------------------------------------------


def alphabeta(
    game: Game,
    state: State | None = None,
    depth: int | None = None,
    evaluate: Evaluate | None = None,
    order: Order | None = None,
    table: TranspositionTable | None = None,
    alpha: float = -INF,
    beta: float = INF,
    observer: Observer | None = None,
) -> SearchResult:
    """Minimax with alpha-beta pruning (fail-soft): the same value, far fewer nodes.

    `textbook_alphabeta` plus what a real search needs: a depth limit with `evaluate` at the
    horizon, `order(game, state, moves)` to try good moves first (earlier cutoffs), a `table`
    that remembers results across positions and calls, counts, and `observer(step)`, called
    with a `Step` at every event (enter, leaf, hit, update, cut, return), which the
    step-by-step views use. See the module docstring for what the value means when the window
    (alpha, beta) is narrower than (-inf, inf).
    """
    s0, depth = _root(game, state), _check_depth(depth)
    evaluate, (alpha, beta) = _check_evaluate(evaluate, depth), _check_window(alpha, beta)
    _check_callable(order, "order", "order(game, state, moves) -> moves")
    _check_callable(observer, "observer", "observer(step)")
    if table is not None:
        if not isinstance(table, TranspositionTable):
            raise TypeError(f"table must be None or a TranspositionTable, got {table!r}")
        table.bind(game)
    c = _Counts()

    def tell(kind: str, s: State, path: tuple, a: float, b: float, v=None, rest: Sequence = ()) -> None:
        if observer is not None:  # (a few calls per node; cheap when nobody listens)
            observer(Step(kind, path, a, b, v, tuple(path + (m,) for m in rest), player=game.to_move(s)))

    def search(s: State, path: tuple, d: float, a: float, b: float) -> tuple[float, tuple]:
        c.nodes += 1
        tell("enter", s, path, a, b)
        if game.is_terminal(s) or d == 0:
            v = _leaf_value(game, s, evaluate, c)
            tell("leaf", s, path, a, b, v)
            return v, ()
        hit, hint, a, b = table.probe(s, d, evaluate, a, b, c) if table is not None else (None, None, a, b)
        if hit is not None:
            tell("hit", s, path, a, b, hit[0])
            return hit
        window, horizon_before, maximise = (a, b), c.horizon, game.to_move(s) == 0
        best, best_pv = (-INF if maximise else INF), cast(tuple, ())
        moves = _ordered(game, s, order, hint)
        for i, m in enumerate(moves):
            v, pv = search(game.play(s, m), path + (m,) if observer else path, d - 1, a, b)
            if v > best if maximise else v < best:
                best, best_pv = v, (m,) + pv
            a, b = (max(a, best), b) if maximise else (a, min(b, best))
            tell("update", s, path, a, b, best)
            if a >= b:  # the window closed: the remaining moves cannot matter above
                if i < len(moves) - 1:
                    c.cutoffs += 1
                    tell("cut", s, path, a, b, best, moves[i + 1 :])
                break
        best_pv = best_pv or (moves[0],)  # every move worth +-inf: keep the first as the move
        if table is not None:
            table.store(s, d, best, best_pv, window, c.horizon > horizon_before, evaluate)
        tell("return", s, path, a, b, best)
        return best, best_pv

    v, pv = _searched(
        lambda: search(s0, (), INF if depth is None else depth, alpha, beta), "alphabeta", game, s0, evaluate, order
    )
    bound = UPPER if v <= alpha else LOWER if v >= beta else EXACT
    return SearchResult(v, pv[0] if pv else None, pv, c.nodes, c.leaves, c.cutoffs, c.hits, c.horizon, depth, bound)


def _ordered(game: Game, s: State, order: Order | None, hint: Move | None) -> Sequence[Move]:
    moves = _moves(game, s)
    if order is not None:
        ordered = list(order(game, s, moves))
        trusted = getattr(order, "permutation", False)  # set on orders that sort or shuffle the moves
        if not trusted and (len(ordered) != len(moves) or set(ordered) != set(moves)):
            raise ValueError(
                f"order must return the same moves in some order; for {s!r} it turned {list(moves)!r} into {ordered!r}"
            )
        moves = ordered
    if hint is not None and moves[0] != hint and hint in moves:
        moves = [hint] + [m for m in moves if m != hint]
    return moves


# --- move orders -----------------------------------------------------------------------------


def random_order(seed: int | None = None) -> Order:
    """A move order that shuffles the moves (seeded, so every run is the same)."""
    rng = np.random.default_rng(check_seed(seed))

    def order(game: Game, state: State, moves: Sequence[Move]) -> list:
        return [moves[i] for i in rng.permutation(len(moves))]

    order.__name__ = f"random_order(seed={seed})"
    order.permutation = True  # type: ignore[attr-defined]
    return order


def heuristic_order(evaluate: Evaluate) -> Order:
    """Best-looking moves first: a win at once, then by `evaluate` of the position after the move."""
    _check_callable(evaluate, "evaluate", "evaluate(game, state) -> number")

    def order(game: Game, state: State, moves: Sequence[Move]) -> list:
        sign = 1 if game.to_move(state) == 0 else -1

        def score(m: Move) -> float:
            child = game.play(state, m)
            if game.is_terminal(child):
                return sign * 1e9 * game.utility(child, 0)
            return sign * _checked_eval(evaluate, game, child)

        return sorted(moves, key=score, reverse=True)

    order.__name__ = f"heuristic_order({getattr(evaluate, '__name__', 'evaluate')})"
    order.permutation = True  # type: ignore[attr-defined]
    return order


def oracle_order(game: Game, state: State | None = None) -> Order:
    """The perfect move order: children sorted by their exact value, best for the mover first.

    It needs the exact values (from `solve`), so it is for experiments, not for play: with it
    alpha-beta searches Knuth and Moore's minimal tree.
    """
    values = solve(game, state)

    def order(g: Game, s: State, moves: Sequence[Move]) -> list:
        sign = 1 if g.to_move(s) == 0 else -1
        return sorted(moves, key=lambda m: -sign * values[g.play(s, m)])

    order.__name__ = "oracle_order"
    order.permutation = True  # type: ignore[attr-defined]
    return order


# --- iterative deepening -----------------------------------------------------------------------


def _no_estimate(game: Game, state: State) -> float:
    """The horizon estimate of iterative deepening without a heuristic: 'unknown' = 0."""
    return 0.0


def iterative_deepening(
    game: Game,
    state: State | None = None,
    max_depth: int | None = None,
    evaluate: Evaluate | None = None,
    order: Order | None = None,
    table: TranspositionTable | None = None,
) -> SearchResult:
    """Alpha-beta to depth 1, 2, 3, ... sharing one table, so each search tries first the
    best moves the previous one found.

    Stops after `max_depth`, or as soon as a search met no depth limit at all (no horizon
    estimate, not even through the table: then its value is exact, the same as a search to
    the end). Without `evaluate` the depth limit counts as 0 ("unknown"). Counts in the result
    are totals over all iterations; `iterations` holds each iteration's own result.
    """
    s0, max_depth = _root(game, state), _check_depth(max_depth)
    evaluate = _no_estimate if evaluate is None else _check_evaluate(evaluate, None)
    table = TranspositionTable() if table is None else table
    runs: list[SearchResult] = []
    while max_depth is None or len(runs) < max_depth:
        runs.append(alphabeta(game, s0, len(runs) + 1, evaluate, order, table))
        if runs[-1].horizon == 0:
            break
    if not runs:  # max_depth=0: the estimate of the root itself
        return alphabeta(game, s0, 0, evaluate)
    last = runs[-1]
    total = {k: sum(getattr(r, k) for r in runs) for k in ("nodes", "leaves", "cutoffs", "table_hits")}
    return replace(last, **total, iterations=tuple(runs))


# --- a player --------------------------------------------------------------------------------


class SearchPlayer:
    """A player that moves by alpha-beta search with a table that persists across moves.

    depth=None searches to the end: a perfect player (it never loses a game that can be
    held). With a depth (>= 1) it needs `evaluate` and looks only that many moves ahead.
    `bounds` is the range of the game's utilities, (-1, 1) by the protocol: searches to the
    end start with that window, so a found win stops the search at once and the chosen move
    is still a best one. Pass bounds=None for games with other payoffs (e.g. `TreeGame`).
    Ties go to the first move found. The table is kept for the last game played (equal
    games share it); another game gets a fresh one.
    """

    def __init__(
        self,
        depth: int | None = None,
        evaluate: Evaluate | None = None,
        order: Order | None = None,
        name: str | None = None,
        bounds: tuple[float, float] | None = (-1.0, 1.0),
    ):
        self.depth = _check_depth(depth)
        if self.depth == 0:
            raise ValueError("a player needs depth >= 1 (or None to search to the end); depth 0 sees no move")
        self.evaluate = _check_evaluate(evaluate, self.depth)
        self.order = _check_callable(order, "order", "order(game, state, moves) -> moves")
        if bounds is not None:
            if not isinstance(bounds, (tuple, list)) or len(bounds) != 2:
                raise TypeError(f"bounds must be None or (lowest utility, highest utility), got {bounds!r}")
            bounds = _check_window(*bounds)
        if name is not None and not isinstance(name, str):
            raise TypeError(f"name must be None or a string, got {name!r}")
        self.bounds = bounds
        self.name = name or ("perfect (alpha-beta)" if depth is None else f"alpha-beta depth {depth}")
        self._table = TranspositionTable()
        self.last: SearchResult | None = None

    def table(self, game: Game) -> TranspositionTable:
        """This player's table for `game` (a fresh one when `game` differs from the last game)."""
        if self._table.game is not None and self._table.game is not game and self._table.game != game:
            self._table = TranspositionTable()
        return self._table

    def search(self, game: Game, state: State) -> SearchResult:
        """The search behind the next move (also kept in `self.last`)."""
        use_bounds = self.depth is None and self.bounds is not None
        alpha, beta = self.bounds if use_bounds else (-INF, INF)  # type: ignore[misc]
        before = self._table
        try:
            r = alphabeta(game, state, self.depth, self.evaluate, self.order, self.table(game), alpha, beta)
        except (ValueError, TypeError):
            self._table = before  # a refused game or state leaves the player as it was
            raise
        if use_bounds and not alpha <= r.value <= beta:
            raise ValueError(
                f"{game!r} gave the value {r.value:g}, outside bounds={self.bounds}; "
                f"pass bounds=None (or the game's real utility range) to SearchPlayer"
            )
        self.last = r
        return r

    def __call__(self, game: Game, state: State) -> Move:
        if game.is_terminal(state):
            raise ValueError(f"the game is over in {state!r}; there is no move to choose")
        return self.search(game, state).move


# --- a recorded alpha-beta run (the model behind the stepper widget) ------------------------


@dataclass(frozen=True)
class AlphaBetaTrace:
    """Every step of one alpha-beta run, plus its ordinary result (the same counts)."""

    steps: tuple
    result: SearchResult

    def __len__(self) -> int:
        return len(self.steps)

    def window_at(self, k: int) -> dict[tuple, tuple[float, float]]:
        """(alpha, beta) of every node reached so far, as they stand after step k."""
        out: dict[tuple, tuple[float, float]] = {}
        for st in self.steps[: k + 1]:
            out[st.node] = (st.alpha, st.beta)
        return out


def _fmt(x: float) -> str:
    return "+inf" if x == INF else "-inf" if x == -INF else f"{x:g}"


def _explain(st: Step) -> str:
    """A sentence for each step of the stepper."""
    where, who = st.node or "the root", ("MAX", "MIN")[st.player]
    v = "" if st.value is None else f"{st.value:g}"
    if st.kind == "enter":
        return f"enter {where}: alpha={_fmt(st.alpha)}, beta={_fmt(st.beta)}"
    if st.kind == "leaf":
        return f"leaf {st.node}: value {v}"
    if st.kind == "hit":
        return f"{where}: the table already knows the value {v}"
    if st.kind == "update":
        return f"{who} node {st.node or 'root'} has seen {v}: alpha={_fmt(st.alpha)}, beta={_fmt(st.beta)}"
    if st.kind == "cut":
        if st.player == 0:
            why = f"MAX can get {v} here, but MIN already has a move above worth only beta={_fmt(st.beta)}"
        else:
            why = f"MIN can hold this node to {v}, but MAX already has a move above worth alpha={_fmt(st.alpha)}"
        return f"cut {len(st.pruned)} move(s): {why}, so play never reaches this node"
    return f"{where} returns {v}"


def trace_alphabeta(
    game: Game,
    state: State | None = None,
    depth: int | None = None,
    evaluate: Evaluate | None = None,
    order: Order | None = None,
) -> AlphaBetaTrace:
    """Run `alphabeta` (no table) with an observer that records every step, and explain each.

    Meant for small trees that a person steps through; nodes are named by the path of moves
    from the root.
    """
    steps: list[Step] = []
    result = alphabeta(game, state, depth, evaluate, order, observer=steps.append)
    return AlphaBetaTrace(tuple(replace(st, text=_explain(st)) for st in steps), result)
