"""gamekit measured against its peers, side by side in one process: one table of ratios.

Peers (an optional extra, never a dependency of the course):

    .venv/bin/pip install -e ".[bench]"        # open-spiel, easyAI 2.0.x, mctspy
    .venv/bin/python benchmarks/peers.py        # about two to four minutes on 2 cores
    .venv/bin/python benchmarks/peers.py --quick

A peer that is not installed (or fails) is reported and skipped; the gamekit figures are always
printed. Figures, all on TicTacToe unless said otherwise:

1. the perfect first move from the empty board, cold (fresh search) and warm (asked again);
2. nodes visited by minimax / alpha-beta for that move (counted by wrapping each library's own
   recursive function, so the count is the library's, not ours);
3. MCTS simulations per second from the empty board (random rollouts, no solver);
4. MCTS playing strength at equal budget: each MCTS plays the perfect player and the random player
   from both seats; the score (win 1, draw 1/2) is reported;
5. counting all 255,168 games (plain recursion, and gamekit memoised);
6. Q-learning misère Nim [3, 5, 7] until the greedy move wins in every winning position
   (gamekit's QLearner against OpenSpiel's tabular Q-learner, both by self-play).

"ratio" = how many times better gamekit is (peer time / gamekit time, gamekit rate / peer rate,
peer nodes / gamekit nodes, peer episodes / gamekit episodes); above 1 gamekit wins. Times are
medians of repeated wall-clock runs; on a shared machine they vary by 10-30 %.
"""

from __future__ import annotations

import argparse
import importlib
import math
import platform
import statistics
import sys
import time
from collections.abc import Callable
from datetime import datetime, timezone

import numpy as np

from gamekit import (
    MCTS,
    FastTicTacToeMCTS,
    Nim,
    PerfectPlayer,
    QLearner,
    RandomPlayer,
    SearchPlayer,
    TicTacToe,
    WinningPositions,
    alphabeta,
    count_outcomes,
    count_outcomes_plain,
    lines_order,
    minimax,
    tournament,
)

ROWS: list[tuple] = []  # (figure, gamekit value, peer, peer value, unit, ratio)
SKIPPED: dict[str, str] = {}


def peer(name: str, module: str):
    """Import a peer module, or record why it is missing and return None."""
    try:
        return importlib.import_module(module)
    except Exception as err:  # any failure: not installed, broken wheel, missing system library
        SKIPPED.setdefault(name, f"{type(err).__name__}: {err}")
        return None


def timed(fn: Callable, repeat: int):
    """(median seconds, last result) of `repeat` calls of fn."""
    times, out = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out


def row(figure: str, ours: float, who: str, theirs: float, unit: str, higher_is_better: bool = False) -> None:
    ratio = (ours / theirs if higher_is_better else theirs / ours) if ours and theirs else math.nan
    ROWS.append((figure, ours, who, theirs, unit, ratio))


def fmt(x: float, unit: str) -> str:
    if unit == "ms":
        return f"{x * 1e3:,.3f} ms" if x < 0.01 else f"{x * 1e3:,.1f} ms"
    if unit == "s":
        return f"{x:,.2f} s"
    if isinstance(x, float) and math.isnan(x):
        return "not reached"
    if unit == "score":
        return f"{x:.2f}"
    return f"{x:,.0f} {unit}".strip()


# --- adapters: a TicTacToe board of gamekit ('X', 'O', '.') in each peer's terms ----------------


def spiel_state(pyspiel_game, board):
    """An OpenSpiel tic_tac_toe state with the same marks (X moves first; cell i = action i)."""
    xs = [i for i, c in enumerate(board) if c == "X"]
    os_ = [i for i, c in enumerate(board) if c == "O"]
    s = pyspiel_game.new_initial_state()
    for k in range(len(xs) + len(os_)):
        s.apply_action(xs[k // 2] if k % 2 == 0 else os_[k // 2])
    return s


def mctspy_state(board):
    from mctspy.games.examples.tictactoe import TicTacToeGameState

    cells = np.array([1 if c == "X" else -1 if c == "O" else 0 for c in board]).reshape(3, 3)
    return TicTacToeGameState(cells, next_to_move=1 if board.count("X") == board.count("O") else -1)


class SpielPythonMCTS:
    """OpenSpiel's Python MCTSBot as a gamekit player (no solver: plain UCT like gamekit's)."""

    def __init__(self, budget: int, seed: int):
        import pyspiel
        from open_spiel.python.algorithms import mcts

        self.g = pyspiel.load_game("tic_tac_toe")
        rs = np.random.RandomState(seed)
        # OpenSpiel scores in [-1, 1]; uct_c = 2 there is c = 1 for scores in [0, 1] (see gamekit.mcts).
        self.bot = mcts.MCTSBot(
            self.g,
            uct_c=2 * math.sqrt(2),
            max_simulations=budget,
            evaluator=mcts.RandomRolloutEvaluator(1, rs),
            solve=False,
            random_state=rs,
        )
        self.name = f"OpenSpiel Python MCTS({budget})"

    def __call__(self, game, board):
        return self.bot.step(spiel_state(self.g, board))


class SpielCppMCTS:
    """OpenSpiel's C++ MCTSBot (through pyspiel) as a gamekit player."""

    def __init__(self, budget: int, seed: int):
        import pyspiel

        self.g = pyspiel.load_game("tic_tac_toe")
        self.bot = pyspiel.MCTSBot(
            self.g, pyspiel.RandomRolloutEvaluator(1, seed), 2 * math.sqrt(2), budget, 1000, False, seed, False
        )
        self.name = f"OpenSpiel C++ MCTS({budget})"

    def __call__(self, game, board):
        return self.bot.step(spiel_state(self.g, board))


class MctspyMCTS:
    """mctspy's MonteCarloTreeSearch as a gamekit player (mctspy draws from numpy's global generator)."""

    def __init__(self, budget: int, seed: int):
        np.random.seed(seed)  # mctspy offers no seed argument; this is the only way to repeat its runs
        self.budget = budget
        self.name = f"mctspy({budget})"

    def __call__(self, game, board):
        from mctspy.tree.nodes import TwoPlayersGameMonteCarloTreeSearchNode
        from mctspy.tree.search import MonteCarloTreeSearch

        best = MonteCarloTreeSearch(TwoPlayersGameMonteCarloTreeSearchNode(mctspy_state(board))).best_action(
            self.budget
        )
        diff = np.argwhere(best.state.board.ravel() != mctspy_state(board).board.ravel())
        return int(diff[0][0])


class GamekitMCTS:
    def __init__(self, budget: int, seed: int, fast: bool):
        self.budget, self.fast = budget, fast
        self.search = FastTicTacToeMCTS(seed=seed) if fast else None
        self.seed = seed
        self.name = f"gamekit {'fast ' if fast else ''}MCTS({budget})"

    def __call__(self, game, board):
        if self.fast:
            return self.search.search(board, iterations=self.budget)
        self.seed += 1
        return MCTS(game, seed=self.seed).search(board, iterations=self.budget)


# --- 1 and 2: the perfect first move, and node counts ----------------------------------------------


def easyai_tictactoe():
    ea = peer("easyAI", "easyAI")
    if ea is None:
        return None
    from easyAI.games.TicTacToe import TicTacToe as EaTicTacToe

    class Keyed(EaTicTacToe):  # easyAI's table needs ttentry(); its TicTacToe example has none
        def ttentry(self):
            return tuple(self.board)

    return lambda: Keyed([ea.AI_Player(None), ea.AI_Player(None)])


def counting(module, name: str):
    """Wrap module.name (a recursive function that calls itself through its module) to count calls."""
    original = getattr(module, name)
    calls = [0]

    def wrapper(*args, **kwargs):
        calls[0] += 1
        return original(*args, **kwargs)

    setattr(module, name, wrapper)
    return calls, lambda: setattr(module, name, original)


def first_move(quick: bool) -> None:
    game, s = TicTacToe(), TicTacToe().initial_state()
    rep = 3 if quick else 9

    def cold():
        p = SearchPlayer(order=lines_order)
        return p(game, s), p

    cold_t, (move, player) = timed(cold, rep)
    cold_nodes = player.last.nodes
    warm_t, _ = timed(lambda: player(game, s), 50)
    plain_t, plain = timed(lambda: minimax(game, s), 1)
    ab_t, ab = timed(lambda: alphabeta(game, s), 1 if quick else 3)
    print(
        f"gamekit: perfect first move {move}: cold {fmt(cold_t, 'ms')} ({cold_nodes:,} nodes), "
        f"warm {fmt(warm_t, 'ms')}; "
        f"plain minimax {plain.nodes:,} nodes, alpha-beta (no table) {ab.nodes:,} nodes"
    )

    pyspiel = peer("OpenSpiel", "pyspiel")
    if pyspiel is not None:
        from open_spiel.python.algorithms import minimax as osm

        g = pyspiel.load_game("tic_tac_toe")
        t, (value, action) = timed(lambda: osm.alpha_beta_search(g), 1 if quick else 3)
        calls, restore = counting(osm, "_alpha_beta")
        osm.alpha_beta_search(g)
        restore()
        print(f"OpenSpiel Python alpha_beta_search: value {value}, move {action}, {calls[0]:,} nodes")
        row("perfect first move, cold", cold_t, "OpenSpiel Python alpha-beta", t, "ms")
        row("alpha-beta nodes, first move", ab.nodes, "OpenSpiel Python alpha-beta", calls[0], "nodes")
        row("perfect player nodes, first move", cold_nodes, "OpenSpiel Python alpha-beta", calls[0], "nodes")

    new_game = easyai_tictactoe()
    if new_game is not None:
        import easyAI

        neg = sys.modules["easyAI.AI.Negamax"]
        plain_ea_t, _ = timed(lambda: easyAI.Negamax(9)(new_game()), 1 if quick else 3)

        def ea_cold():
            ai = easyAI.Negamax(9, tt=easyAI.TranspositionTable())
            return ai(new_game()), ai

        tt_t, (ea_move, ai) = timed(ea_cold, rep)
        tt_warm_t, _ = timed(lambda: ai(new_game()), 50)
        counts = {}
        for label, make in (
            ("no table", lambda: easyAI.Negamax(9)),
            ("table", lambda: easyAI.Negamax(9, tt=easyAI.TranspositionTable())),
        ):
            algo = make()
            calls, restore = counting(neg, "negamax")
            algo(new_game())
            restore()
            counts[label] = calls[0]
        print(
            f"easyAI Negamax(9): move {ea_move} (cells 1-9); {counts['no table']:,} nodes without table, "
            f"{counts['table']:,} with"
        )
        row("perfect first move, cold", cold_t, "easyAI Negamax, no table", plain_ea_t, "ms")
        row("perfect first move, cold", cold_t, "easyAI Negamax + table", tt_t, "ms")
        row("perfect first move, warm", warm_t, "easyAI Negamax + table", tt_warm_t, "ms")
        row("alpha-beta nodes, first move", ab.nodes, "easyAI Negamax, no table", counts["no table"], "nodes")
        row("perfect player nodes, first move", cold_nodes, "easyAI Negamax + table", counts["table"], "nodes")
    row("plain minimax nodes (for scale)", plain.nodes, "gamekit plain minimax", plain.nodes, "nodes")


# --- 3 and 4: MCTS speed and strength ------------------------------------------------------------


def mcts_peers(budget: int, seed: int) -> dict:
    out = {}
    if peer("OpenSpiel", "pyspiel") is not None:
        out["OpenSpiel Python MCTS"] = lambda: SpielPythonMCTS(budget, seed)
        out["OpenSpiel C++ MCTS"] = lambda: SpielCppMCTS(budget, seed)
    if peer("mctspy", "mctspy") is not None:
        out["mctspy"] = lambda: MctspyMCTS(budget, seed)
    return out


def mcts_speed(quick: bool) -> None:
    game, s = TicTacToe(), TicTacToe().initial_state()
    sims = 1000 if quick else 4000
    rep = 3
    ours = {
        "gamekit MCTS (generic)": lambda: GamekitMCTS(sims, 1, fast=False),
        "gamekit FastTicTacToeMCTS": lambda: GamekitMCTS(sims, 1, fast=True),
    }
    rates = {}
    for label, make in {**ours, **mcts_peers(sims, 1)}.items():
        player = make()
        t, _ = timed(lambda: player(game, s), rep)
        rates[label] = sims / t
        print(f"{label:28} {sims / t:12,.0f} simulations/s")
    base = rates["gamekit MCTS (generic)"]
    fast = rates["gamekit FastTicTacToeMCTS"]
    for label, r in rates.items():
        if not label.startswith("gamekit"):
            row("MCTS simulations/s (generic)", base, label, r, "sim/s", higher_is_better=True)
            row("MCTS simulations/s (TicTacToe fast)", fast, label, r, "sim/s", higher_is_better=True)


def mcts_strength(quick: bool) -> None:
    game = TicTacToe()
    budget, games = 200, (10 if quick else 40)
    field = {"perfect": lambda: PerfectPlayer(), "random": lambda: RandomPlayer(seed=5)}
    entrants = {"gamekit MCTS": lambda: GamekitMCTS(budget, 11, fast=True), **mcts_peers(budget, 11)}
    scores = {}
    for label, make in entrants.items():
        for opp, make_opp in field.items():
            res = tournament(game, make(), make_opp(), games=games, seed=3)
            scores[label, opp] = (res.wins[0] + res.draws / 2) / res.games
        print(
            f"{label:24} budget {budget}: score vs perfect {scores[label, 'perfect']:.2f}, "
            f"vs random {scores[label, 'random']:.2f}  ({games} games each, both seats)"
        )
    for label in entrants:
        if label != "gamekit MCTS":
            for opp in field:
                row(
                    f"MCTS({budget}) score vs {opp}",
                    scores["gamekit MCTS", opp],
                    label,
                    scores[label, opp],
                    "score",
                    higher_is_better=True,
                )


# --- 5: counting every game ----------------------------------------------------------------------


def count_games(quick: bool) -> None:
    game = TicTacToe()
    plain_t, plain = timed(lambda: count_outcomes_plain(game), 1)
    memo_t, memo = timed(lambda: count_outcomes(game), 3)
    assert plain == memo and plain.total == 255_168
    print(f"gamekit: {plain.total:,} games; plain recursion {fmt(plain_t, 'ms')}, memoised {fmt(memo_t, 'ms')}")
    pyspiel = peer("OpenSpiel", "pyspiel")
    if pyspiel is None:
        return
    g = pyspiel.load_game("tic_tac_toe")

    def count(state) -> int:
        if state.is_terminal():
            return 1
        total = 0
        for a in state.legal_actions():
            total += count(state.child(a))
        return total

    t, n = timed(lambda: count(g.new_initial_state()), 1)
    assert n == 255_168
    print(f"OpenSpiel (C++ states, Python recursion): {n:,} games in {fmt(t, 'ms')}")
    row("count all 255,168 games, plain", plain_t, "OpenSpiel states, plain recursion", t, "ms")
    row("count all 255,168 games, memoised", memo_t, "OpenSpiel states, plain recursion", t, "ms")


# --- 6: Q-learning misère Nim to the optimum -------------------------------------------------------


def spiel_nim_state(pyspiel_game, piles, to_move):
    """An OpenSpiel nim state with these piles and player to move, reached from [3, 5, 7]."""
    moves = [(i, 1) for i, (a, b) in enumerate(zip((3, 5, 7), piles)) for _ in range(a - b)]  # one stick each
    while len(moves) % 2 != to_move:  # join two takes from the same pile to change the parity
        for j in range(len(moves) - 1):
            if moves[j][0] == moves[j + 1][0]:
                moves[j : j + 2] = [(moves[j][0], moves[j][1] + moves[j + 1][1])]
                break
        else:
            return None
    s = pyspiel_game.new_initial_state()
    for pile, take in moves:
        s.apply_action(pile + (take - 1) * 3)
    return s


def qlearning(quick: bool) -> None:
    game = Nim([3, 5, 7], misere=True)
    positions = WinningPositions(game)
    seeds = range(3 if quick else 5)
    gk = []
    for seed in seeds:
        learner = QLearner(game, seed=seed)
        t0 = time.perf_counter()
        learner.train(100_000, progress=False, record_every=100, positions=positions, stop_when_perfect=True)
        gk.append((learner.episodes, time.perf_counter() - t0))
    gk_eps = statistics.median(e for e, _ in gk)
    gk_t = statistics.median(t for _, t in gk)
    print(
        f"gamekit QLearner: {len(positions)} winning positions right after a median of {gk_eps:,.0f} episodes, "
        f"{gk_t:.3f} s (checked every 100)"
    )
    if peer("OpenSpiel", "pyspiel") is None:
        return
    import pyspiel
    from open_spiel.python import rl_environment, rl_tools
    from open_spiel.python.algorithms import tabular_qlearner

    g = pyspiel.load_game("nim", {"pile_sizes": "3;5;7", "is_misere": True})
    probes = []
    for s, moves in zip(positions.states, positions.winning):
        st = spiel_nim_state(g, s.piles, s.to_move)
        assert st is not None and st.current_player() == s.to_move
        good = {p + (t - 1) * 3 for p, t in moves}
        probes.append((s.to_move, str(st.observation_tensor(s.to_move)), st.legal_actions(), good))

    def all_right(agents) -> bool:
        for who, key, legal, good in probes:
            q = agents[who]._q_values[key]
            best = max(q[a] for a in legal)
            if any(q[a] == best and a not in good for a in legal):  # OpenSpiel breaks ties at random
                return False
        return True

    configs = {
        "OpenSpiel's defaults (alpha 0.1, gamma 1, epsilon 0.2)": (0.1, 1.0, 0.2),
        "gamekit's defaults (alpha 0.5, gamma 0.9, epsilon 0.5)": (0.5, 0.9, 0.5),
    }
    cap = 20_000 if quick else 50_000
    for label, (alpha, gamma, eps) in configs.items():
        results = []
        for seed in seeds:
            env = rl_environment.Environment(g, seed=seed)
            n = env.action_spec()["num_actions"]
            agents = [
                tabular_qlearner.QLearner(
                    player_id=p,
                    num_actions=n,
                    step_size=alpha,
                    discount_factor=gamma,
                    epsilon_schedule=rl_tools.ConstantSchedule(eps),
                )
                for p in range(2)
            ]
            np.random.seed(seed)  # the tabular learner draws its exploration from numpy's global generator
            key0 = str(env.reset().observations["info_state"][0])
            assert key0 == str(g.new_initial_state().observation_tensor(0)), "OpenSpiel changed its info-state key"
            t0, done = time.perf_counter(), None
            for ep in range(1, cap + 1):
                ts = env.reset()
                while not ts.last():
                    p = ts.observations["current_player"]
                    ts = env.step([agents[p].step(ts).action])
                for a in agents:
                    a.step(ts)
                if ep % 100 == 0 and all_right(agents):
                    done = ep
                    break
            results.append((done, time.perf_counter() - t0))
        solved = [r for r in results if r[0] is not None]
        print(
            f"OpenSpiel tabular QLearner, {label}: {len(solved)} of {len(results)} seeds had all {len(probes)} "
            f"positions right within {cap:,} episodes"
            + (
                f" (those took a median of {statistics.median(e for e, _ in solved):,.0f} episodes, "
                f"{statistics.median(t for _, t in solved):.2f} s)"
                if solved
                else ""
            )
        )
        if len(solved) * 2 > len(results):  # a median over the seeds exists
            eps_all = [e if e is not None else math.inf for e, _ in results]
            t_all = [t if e is not None else math.inf for e, t in results]
            row(
                "Q-learning misère 3,5,7 to optimum, episodes*",
                gk_eps,
                f"OpenSpiel Q, {label.split(' (')[0]}",
                statistics.median(eps_all),
                "episodes",
            )
            row(
                "Q-learning misère 3,5,7 to optimum, time*",
                gk_t,
                f"OpenSpiel Q, {label.split(' (')[0]}",
                statistics.median(t_all),
                "s",
            )
        else:
            row(
                "Q-learning misère 3,5,7 to optimum, episodes*",
                gk_eps,
                f"OpenSpiel Q, {label.split(' (')[0]}",
                math.nan,
                "episodes",
            )


# --- the table -------------------------------------------------------------------------------------


def versions() -> str:
    from importlib.metadata import PackageNotFoundError, version

    out = []
    for name in ("open-spiel", "easyAI", "mctspy"):
        try:
            out.append(f"{name} {version(name)}")
        except PackageNotFoundError:
            out.append(f"{name} not installed")
    return ", ".join(out)


def print_table() -> None:
    w = max(len(r[0]) for r in ROWS)
    p = max(len(r[2]) for r in ROWS)
    print(f"\n{'figure':<{w}}  {'gamekit':>14}  {'peer':<{p}}  {'peer value':>14}  {'ratio':>8}")
    for figure, ours, who, theirs, unit, ratio in ROWS:
        if who.startswith("gamekit"):
            continue
        shown = f"{ratio:.1f}x" if math.isfinite(ratio) else "—"
        print(f"{figure:<{w}}  {fmt(ours, unit):>14}  {who:<{p}}  {fmt(theirs, unit):>14}  {shown:>8}")
    print(
        "ratio > 1: gamekit better (faster, fewer nodes, more simulations/s, higher score, fewer episodes);\n"
        "—: the peer did not get there in most seeds within its cap\n"
        "* median over the seeds; a seed that never got there counts as slowest"
    )


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="fewer repeats and games (a smoke run)")
    args = ap.parse_args(argv)
    when = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    print(
        f"{when}; Python {platform.python_version()} on {platform.machine()}, {platform.system()}; "
        f"{__import__('os').cpu_count()} cores; {versions()}"
    )
    for step in (first_move, mcts_speed, mcts_strength, count_games, qlearning):
        print(f"\n## {step.__name__}")
        try:
            step(args.quick)
        except Exception as err:  # a peer that breaks mid-run is reported, the rest goes on
            print(f"!! {step.__name__} failed: {type(err).__name__}: {err}")
    for name, why in SKIPPED.items():
        print(f"skipped {name}: {why}")
    print_table()


if __name__ == "__main__":
    main()
