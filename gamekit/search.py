"""Game-tree search: minimax, alpha-beta pruning, a transposition table, move ordering,
iterative deepening, heuristics for depth-limited search, and a player built on them.

Everything works on any game of the `Game` protocol. Values are from player 0's (MAX's)
point of view: MAX picks the largest child value, MIN (player 1) the smallest. Each search
returns a `SearchResult` with the value, the best move, the principal variation and counts
(nodes visited, leaves evaluated, cutoffs, table hits), so refinements can be compared by
what they *do*, not only by how long they take.

The refinement follows the course's pattern: plain `minimax` (the definition, executed) ->
`alphabeta` (the same value, fewer nodes) -> `alphabeta` with a move order, a
`TranspositionTable` and `iterative_deepening` (fewer nodes still).

Alpha-beta here is *fail-soft*: called with a window (alpha, beta) it returns a value v with
    v <= alpha  =>  the true value is <= v     (an upper bound),
    v >= beta   =>  the true value is >= v     (a lower bound),
    otherwise       v is the true value        (exact),
which is Knuth and Moore's guarantee with the extra promise that a bound is never looser than
the window edge. With the default window (-inf, +inf) the value is always exact.

The searches are recursive, like the pseudocode they follow, so a game may be at most a few
hundred plies deep (Python's recursion limit); for deeper games use `gamekit.solve`.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np

from .protocol import Game, Move, State, check_game
from .solve import solve

INF = math.inf
Evaluate = Callable[[Game, State], float]
Order = Callable[[Game, State, Sequence[Move]], Sequence[Move]]

EXACT, LOWER, UPPER = "exact", "lower", "upper"


@dataclass(frozen=True)
class SearchResult:
    """What a search found and what it cost.

    value: the value of the root (player 0's view); `bound` says whether it is exact or, for
    a narrowed alpha-beta window, an upper or lower bound. move: the best move for the player
    to move (None at a terminal root or at depth 0). pv: the principal variation, the line of
    best play the search expects (it may stop early where a table entry answered).
    nodes: positions visited (the root included); leaves: positions evaluated (terminal
    utility or heuristic); horizon: of these, the heuristic evaluations at the depth limit;
    cutoffs: times a node stopped looking at its remaining moves; table_hits: times a table
    entry answered a position without searching it.
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
        b = "" if self.bound == EXACT else f" ({self.bound} bound)"
        return (
            f"value {self.value:g}{b}, move {self.move!r}, {self.nodes:,} nodes, {self.leaves:,} leaves, "
            f"{self.cutoffs:,} cutoffs, {self.table_hits:,} table hits"
        )


class _Counts:
    __slots__ = ("nodes", "leaves", "cutoffs", "hits", "horizon")

    def __init__(self) -> None:
        self.nodes = self.leaves = self.cutoffs = self.hits = self.horizon = 0


# --- validation ------------------------------------------------------------------------------


def _check_depth(depth: Any) -> int | None:
    if depth is None:
        return None
    if isinstance(depth, bool) or not isinstance(depth, (int, np.integer)):
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
    return alpha, beta


def _root(game: Game, state: State | None) -> State:
    check_game(game)
    return game.initial_state() if state is None else state


# --- minimax ---------------------------------------------------------------------------------


def minimax(
    game: Game, state: State | None = None, depth: int | None = None, evaluate: Evaluate | None = None
) -> SearchResult:
    """The minimax value of `state` by plain depth-first recursion over the game *tree*.

    The definition executed: a terminal position is worth its utility, a position at the
    depth limit its heuristic estimate `evaluate(game, state)`, a MAX position the largest
    child value, a MIN position the smallest. Every path is searched, so `nodes` is the size
    of the (depth-limited) game tree: the baseline every refinement is measured against.
    """
    s0 = _root(game, state)
    depth = _check_depth(depth)
    evaluate = _check_evaluate(evaluate, depth)
    c = _Counts()

    def value(s: State, d: int | None) -> tuple[float, tuple]:
        c.nodes += 1
        if game.is_terminal(s) or d == 0:
            return _leaf_value(game, s, evaluate, c), ()
        maximise = game.to_move(s) == 0
        best, best_pv = None, ()
        for m in _moves(game, s):
            v, pv = value(game.play(s, m), None if d is None else d - 1)
            if best is None or (v > best if maximise else v < best):
                best, best_pv = v, (m,) + pv
        return best, best_pv

    v, pv = value(s0, depth)
    return SearchResult(v, pv[0] if pv else None, pv, c.nodes, c.leaves, horizon=c.horizon, depth=depth)


def _leaf_value(game: Game, s: State, evaluate: Evaluate | None, c: _Counts) -> float:
    """Where the search stops: the utility at the end of the game, else (at the depth limit)
    the heuristic estimate. Both count as leaves; estimates also count as the horizon."""
    c.leaves += 1
    if game.is_terminal(s):
        return game.utility(s, 0)
    c.horizon += 1
    return _checked_eval(evaluate, game, s)


def _moves(game: Game, s: State) -> Sequence[Move]:
    moves = game.legal_moves(s)
    if not moves:
        raise ValueError(f"{s!r} is not terminal but has no legal moves")
    return moves


# --- transposition table ---------------------------------------------------------------------


class Entry(NamedTuple):
    """One stored search result: the depth searched, the value and what kind of value it is."""

    depth: float  # remaining depth searched (inf = to the end)
    value: float
    flag: str  # EXACT, LOWER (true value >= value) or UPPER (true value <= value)
    move: Move | None  # best move found, used to order moves next time
    pv: tuple


class TranspositionTable:
    """Search results by position, with bound flags, so it stays correct under pruning.

    A pruned search often learns only a bound ("at least 0"), so every entry says whether its
    value is exact, a lower bound or an upper bound. An entry answers a later search of the
    same position only when it was searched to the same remaining depth (so the table never
    changes a value); at any depth its best move is tried first (better move ordering).
    Keep one table per game; it persists across calls, which makes repeated searches cheap.
    """

    def __init__(self) -> None:
        self.entries: dict[State, Entry] = {}

    def __len__(self) -> int:
        return len(self.entries)

    def __repr__(self) -> str:
        return f"TranspositionTable({len(self)} positions)"

    def get(self, state: State) -> Entry | None:
        return self.entries.get(state)

    def put(self, state: State, entry: Entry) -> None:
        self.entries[state] = entry

    def clear(self) -> None:
        self.entries.clear()


# --- alpha-beta ------------------------------------------------------------------------------


def alphabeta(
    game: Game,
    state: State | None = None,
    depth: int | None = None,
    evaluate: Evaluate | None = None,
    order: Order | None = None,
    table: TranspositionTable | None = None,
    alpha: float = -INF,
    beta: float = INF,
) -> SearchResult:
    """Minimax with alpha-beta pruning (fail-soft): the same value, far fewer nodes.

    alpha is the value MAX is already sure of on the path to a node, beta the value MIN is
    sure of. Once a node's value can no longer fall inside (alpha, beta), its remaining moves
    cannot change the decision above it and are skipped (a cutoff). `order(game, state, moves)`
    may reorder the moves (good moves first -> earlier cutoffs); `table` remembers results
    across positions and calls. See the module docstring for what the value means when the
    window (alpha, beta) is narrower than (-inf, inf).
    """
    s0 = _root(game, state)
    depth = _check_depth(depth)
    evaluate = _check_evaluate(evaluate, depth)
    alpha, beta = _check_window(alpha, beta)
    if order is not None and not callable(order):
        raise TypeError(f"order must be None or a function order(game, state, moves) -> moves, got {order!r}")
    if table is not None and not isinstance(table, TranspositionTable):
        raise TypeError(f"table must be None or a TranspositionTable, got {table!r}")
    c = _Counts()
    v, pv = _alphabeta(game, s0, depth, alpha, beta, evaluate, order, table, c)
    bound = UPPER if v <= alpha else LOWER if v >= beta else EXACT
    return SearchResult(v, pv[0] if pv else None, pv, c.nodes, c.leaves, c.cutoffs, c.hits, c.horizon, depth, bound)


def _alphabeta(game, s0, depth, alpha, beta, evaluate, order, table, c):
    """The recursive search behind `alphabeta` (fail-soft; counts go into `c`)."""
    entries = None if table is None else table.entries

    def search(s: State, d: int | None, a: float, b: float) -> tuple[float, tuple]:
        c.nodes += 1
        if game.is_terminal(s) or d == 0:
            return _leaf_value(game, s, evaluate, c), ()
        stored, hint, a, b = _probe(entries, s, d, a, b, c)
        if stored is not None:
            return stored
        a_in, b_in, maximise = a, b, game.to_move(s) == 0
        best, best_pv = (-INF if maximise else INF), ()
        moves = _ordered(game, s, order, hint)
        for i, m in enumerate(moves):
            v, pv = search(game.play(s, m), None if d is None else d - 1, a, b)
            if maximise and v > best:  # a better move for MAX raises alpha ...
                best, best_pv, a = v, (m,) + pv, max(a, v)
            elif not maximise and v < best:  # ... a better move for MIN lowers beta
                best, best_pv, b = v, (m,) + pv, min(b, v)
            if a >= b:  # the window closed: the remaining moves cannot matter above
                c.cutoffs += i < len(moves) - 1  # count it only if moves were left unexamined
                break
        best_pv = best_pv or (moves[0],)  # every move worth +-inf: keep the first as the move
        _store(entries, s, d, best, best_pv, a_in, b_in)
        return best, best_pv

    return search(s0, depth, alpha, beta)


def _probe(entries, s, d, a, b, c):
    """Look `s` up in the table: (stored (value, pv) or None, the move to try first, alpha, beta).

    An entry searched to the same remaining depth `d` answers at once if it is exact, or a
    bound that already closes the window; otherwise its bound narrows the window. Its move is
    tried first at any depth.
    """
    e = None if entries is None else entries.get(s)
    if e is None:
        return None, None, a, b
    if e.depth == (INF if d is None else d):  # the table stores "to the end" as depth inf
        if e.flag == EXACT or (e.flag == LOWER and e.value >= b) or (e.flag == UPPER and e.value <= a):
            c.hits += 1
            return (e.value, e.pv), e.move, a, b
        if e.flag == LOWER:
            a = max(a, e.value)
        else:
            b = min(b, e.value)
    return None, e.move, a, b


def _store(entries, s, d, best, best_pv, a_in, b_in):
    """Remember the result of searching `s` with the window (a_in, b_in), flagged by what it
    proves (fail-soft): <= a_in an upper bound, >= b_in a lower bound, else exact."""
    if entries is not None:
        flag = UPPER if best <= a_in else LOWER if best >= b_in else EXACT
        entries[s] = Entry(INF if d is None else d, best, flag, best_pv[0], best_pv)


def _ordered(game: Game, s: State, order: Order | None, hint: Move | None) -> Sequence[Move]:
    moves = _moves(game, s)
    if order is not None:
        ordered = list(order(game, s, moves))
        if order not in _TRUSTED and (len(ordered) != len(moves) or set(ordered) != set(moves)):
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
    rng = np.random.default_rng(seed)

    def order(game: Game, state: State, moves: Sequence[Move]) -> list:
        return [moves[i] for i in rng.permutation(len(moves))]

    order.__name__ = f"random_order(seed={seed})"
    return order


def heuristic_order(evaluate: Evaluate) -> Order:
    """Best-looking moves first: a win at once, then by `evaluate` of the position after the move."""

    def order(game: Game, state: State, moves: Sequence[Move]) -> list:
        sign = 1 if game.to_move(state) == 0 else -1

        def score(m: Move) -> float:
            child = game.play(state, m)
            if game.is_terminal(child):
                return sign * 1e9 * game.utility(child, 0)
            return sign * _checked_eval(evaluate, game, child)

        return sorted(moves, key=score, reverse=True)

    order.__name__ = f"heuristic_order({getattr(evaluate, '__name__', 'evaluate')})"
    return order


def lines_order(game: Game, state: Sequence[str], moves: Sequence[int]) -> list:
    """TicTacToe's classic static order: squares on more lines first (centre 4 lines, corners
    3, edges 2), computed from the board's lines. Cheap, and it halves alpha-beta's work."""
    return sorted(moves, key=_LINES_THROUGH.__getitem__)


def _lines_through() -> dict[int, int]:
    from .games.tictactoe import LINES

    counts = {i: sum(i in line for line in LINES) for i in range(9)}
    return {i: (-counts[i], i) for i in range(9)}  # more lines first, then by square


_LINES_THROUGH = _lines_through()
_TRUSTED = {lines_order}  # library orders that are permutations by construction: not re-checked


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

    Stops after `max_depth`, or as soon as a search met no depth limit at all (then its value
    is exact, the same as a search to the end). Without `evaluate` the depth limit counts as
    0 ("unknown"). Counts in the result are totals over all iterations; `iterations` holds
    each iteration's own result.
    """
    s0 = _root(game, state)
    max_depth = _check_depth(max_depth)
    if table is None:
        table = TranspositionTable()
    evaluate = _no_estimate if evaluate is None else _check_evaluate(evaluate, None)
    runs: list[SearchResult] = []
    d = 0
    while max_depth is None or d < max_depth:
        d += 1
        r = alphabeta(game, s0, d, evaluate, order, table)
        runs.append(r)
        if r.horizon == 0:
            break
    last = runs[-1] if runs else alphabeta(game, s0, 0, evaluate)
    tot = lambda name: sum(getattr(r, name) for r in runs)
    return SearchResult(
        last.value,
        last.move,
        last.pv,
        tot("nodes"),
        tot("leaves"),
        tot("cutoffs"),
        tot("table_hits"),
        last.horizon,
        last.depth,
        last.bound,
        tuple(runs),
    )


# --- heuristics ------------------------------------------------------------------------------


def open_lines(board: Sequence[str], mark: str) -> int:
    """How many of TicTacToe's 8 lines `mark` could still complete (no opposing mark in them)."""
    from .games.tictactoe import LINES, O, X

    other = O if mark == X else X
    return sum(1 for line in LINES if all(board[i] != other for i in line))


def h1(game: Game, state: Sequence[str]) -> int:
    """The seminar's TicTacToe heuristic h1 = open lines for X - open lines for O (X's view)."""
    from .games.tictactoe import O, X

    return open_lines(state, X) - open_lines(state, O)


def h1_scaled(game: Game, state: Sequence[str]) -> float:
    """h1 / 10: the same order as h1, but strictly between -1 and +1, so a real win (+1) or
    loss (-1) always counts more than any estimate. Use this one in depth-limited play."""
    return h1(game, state) / 10


# --- a player --------------------------------------------------------------------------------


class SearchPlayer:
    """A player that moves by alpha-beta search with a table that persists across moves.

    depth=None searches to the end: a perfect player (it never loses a game that can be
    held). With a depth (>= 1) it needs `evaluate` and looks only that many moves ahead.
    `bounds` is the range of the game's utilities, (-1, 1) by the protocol: searches to the
    end start with that window, so a found win stops the search at once and the chosen move
    is still a best one. Pass bounds=None for games with other payoffs (e.g. `TreeGame`).
    Ties go to the first move found.
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
        if order is not None and not callable(order):
            raise TypeError(f"order must be None or a function order(game, state, moves) -> moves, got {order!r}")
        if bounds is not None:
            if not isinstance(bounds, (tuple, list)) or len(bounds) != 2:
                raise TypeError(f"bounds must be None or (lowest utility, highest utility), got {bounds!r}")
            bounds = _check_window(*bounds)
        self.order, self.bounds = order, bounds
        self.name = name or ("perfect (alpha-beta)" if depth is None else f"alpha-beta depth {depth}")
        self._tables: dict[int, tuple[Game, TranspositionTable]] = {}
        self.last: SearchResult | None = None

    def table(self, game: Game) -> TranspositionTable:
        """This player's table for `game` (one per game object)."""
        entry = self._tables.get(id(game))
        if entry is None or entry[0] is not game:
            entry = self._tables[id(game)] = (game, TranspositionTable())
        return entry[1]

    def search(self, game: Game, state: State) -> SearchResult:
        """The search behind the next move (also kept in `self.last`)."""
        use_bounds = self.depth is None and self.bounds is not None
        alpha, beta = self.bounds if use_bounds else (-INF, INF)
        r = alphabeta(game, state, self.depth, self.evaluate, self.order, self.table(game), alpha, beta)
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


AlphaBetaPlayer = SearchPlayer


# --- a recorded alpha-beta run (the model behind the stepper widget) ------------------------


@dataclass(frozen=True)
class Step:
    """One event of a recorded alpha-beta run.

    kind: 'enter' (a node is reached with its window), 'leaf' (a position is evaluated),
    'update' (a child's value came back and the node's alpha or beta may have moved),
    'cut' (the remaining moves are skipped), 'return' (the node's value goes up).
    node: the path of moves from the root. pruned: for 'cut', the paths of the skipped children.
    """

    kind: str
    node: tuple
    alpha: float
    beta: float
    value: float | None = None
    pruned: tuple = ()
    text: str = ""


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


def trace_alphabeta(
    game: Game,
    state: State | None = None,
    depth: int | None = None,
    evaluate: Evaluate | None = None,
    order: Order | None = None,
) -> AlphaBetaTrace:
    """Run fail-soft alpha-beta (no table) and record every step with its alpha and beta.

    The same algorithm as `alphabeta`, instrumented; meant for small trees that a person
    steps through. Nodes are named by the path of moves from the root.
    """
    s0 = _root(game, state)
    depth = _check_depth(depth)
    evaluate = _check_evaluate(evaluate, depth)
    c = _Counts()
    steps: list[Step] = []
    who = ("MAX", "MIN")

    def search(s, path, d, a, b):
        c.nodes += 1
        steps.append(Step("enter", path, a, b, text=f"enter {path or 'the root'}: alpha={_fmt(a)}, beta={_fmt(b)}"))
        if game.is_terminal(s) or d == 0:
            c.leaves += 1
            v = game.utility(s, 0) if game.is_terminal(s) else _checked_eval(evaluate, game, s)
            c.horizon += 0 if game.is_terminal(s) else 1
            steps.append(Step("leaf", path, a, b, v, text=f"leaf {path}: value {v:g}"))
            return v, ()
        moves = _ordered(game, s, order, None)
        maximise = game.to_move(s) == 0
        best, best_pv = (-INF if maximise else INF), ()
        for i, m in enumerate(moves):
            v, pv = search(game.play(s, m), path + (m,), None if d is None else d - 1, a, b)
            if (v > best) if maximise else (v < best):
                best, best_pv = v, (m,) + pv
            if maximise:
                a = max(a, best)
            else:
                b = min(b, best)
            steps.append(
                Step(
                    "update",
                    path,
                    a,
                    b,
                    best,
                    text=f"{who[game.to_move(s)]} node {path or 'root'} has seen {best:g}: "
                    f"alpha={_fmt(a)}, beta={_fmt(b)}",
                )
            )
            if a >= b and i + 1 < len(moves):
                c.cutoffs += 1
                rest = tuple(path + (r,) for r in moves[i + 1 :])
                if maximise:
                    why = (
                        f"MAX can get {best:g} here, but MIN already has a move above worth only "
                        f"beta={_fmt(b)}, so MIN never lets play reach this node"
                    )
                else:
                    why = (
                        f"MIN can hold this node to {best:g}, but MAX already has a move above worth "
                        f"alpha={_fmt(a)}, so MAX never lets play reach this node"
                    )
                steps.append(Step("cut", path, a, b, best, rest, text=f"cut {len(rest)} move(s): {why}"))
                break
            if a >= b:
                break
        steps.append(Step("return", path, a, b, best, text=f"{path or 'the root'} returns {best:g}"))
        return best, best_pv

    v, pv = search(s0, (), depth, -INF, INF)
    result = SearchResult(v, pv[0] if pv else None, pv, c.nodes, c.leaves, c.cutoffs, 0, c.horizon, depth)
    return AlphaBetaTrace(tuple(steps), result)
