"""The perfect first move on the empty TicTacToe board: how long it takes and how many nodes.

Run: .venv/bin/python benchmarks/perfect_first_move.py

cold = a fresh SearchPlayer(order=lines_order) (empty transposition table); warm = the same player asked again
(its table persists). Baseline in the same process: plain minimax over the whole tree.
Goals on the course machine: cold <= 10 ms, warm <= 1 ms. For comparison, on the same kind
of machine OpenSpiel's Python alpha-beta takes about 20 ms and easyAI with a table 33 ms.
"""

import statistics
import time

from gamekit import SearchPlayer, TicTacToe, alphabeta, iterative_deepening, lines_order, minimax


def timed(fn, repeat):
    times, out = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out


def main() -> None:
    game = TicTacToe()
    s = game.initial_state()

    base_t, base = timed(lambda: minimax(game, s), 1)
    print(f"plain minimax (baseline)        {base_t * 1e3:9.1f} ms  {base.nodes:>9,} nodes  move {base.move}")

    def cold(order=lines_order):
        p = SearchPlayer(order=order)
        return p(game, s), p

    natural_t, (_, natural) = timed(lambda: cold(None), 9)

    cold_t, (move, player) = timed(cold, 15)
    cold_nodes = player.last.nodes
    warm_t, warm_move = timed(lambda: player(game, s), 200)
    warm_nodes = player.last.nodes
    ab_t, ab = timed(lambda: alphabeta(game, s), 5)
    id_t, idr = timed(lambda: iterative_deepening(game, s), 5)
    print(f"alpha-beta, no table            {ab_t * 1e3:9.2f} ms  {ab.nodes:>9,} nodes")
    print(f"iterative deepening + table     {id_t * 1e3:9.2f} ms  {idr.nodes:>9,} nodes")
    print(f"perfect player, natural order   {natural_t * 1e3:9.2f} ms  {natural.last.nodes:>9,} nodes")
    print(
        f"perfect player, cold            {cold_t * 1e3:9.2f} ms  {cold_nodes:>9,} nodes  move {move}"
        f"   (goal <= 10 ms)  {'OK' if cold_t <= 0.010 else 'MISSED'}"
    )
    print(
        f"perfect player, warm            {warm_t * 1e3:9.3f} ms  {warm_nodes:>9,} nodes  move {warm_move}"
        f"   (goal <= 1 ms)   {'OK' if warm_t <= 0.001 else 'MISSED'}"
    )
    print(f"speed-up over plain minimax: cold x{base_t / cold_t:,.0f}, warm x{base_t / warm_t:,.0f}")


if __name__ == "__main__":
    main()
