"""Q-learning misère Nim [3, 5, 7]: episodes and seconds until the greedy move wins in all 167
winning positions, for gamekit's `QLearner` against the source's program, and the update rules
compared at EQUAL alpha, gamma, epsilon (a rule must never be credited for a tuning difference).

The source's program is reproduced here as it was written (a dict keyed by (state, action), the
actions rebuilt as a set at every step, numpy random numbers, rewards +-100, alpha 0.1, gamma 0.8,
epsilon 0.1, each player's previous move updated when it is that player's turn again). Both run in
the same process, so the ratio means something on any machine.

    python benchmarks/qlearning.py           # the source's program vs gamekit, the rules at equal parameters
    python benchmarks/qlearning.py --grid    # the coarse grid behind gamekit's defaults (0.5, 0.9, 0.5)
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import time

import numpy as np

from gamekit import Nim, QLearner, WinningPositions, pile_tuple, source_learner

GAME = Nim([3, 5, 7], misere=True)
W = WinningPositions(GAME, pile_tuple)
TARGET = [(s.piles, set(moves)) for s, moves in zip(W.states, W.winning)]


class SourceAI:
    """The source's NimAI and train loop, kept as written (numpy Generator instead of global state)."""

    def __init__(self, seed, learningrate=0.1, discount=0.8, epsilon=0.1):
        self.q, self.lr, self.discount, self.epsilon = {}, learningrate, discount, epsilon
        self.rng = np.random.default_rng(seed)

    @staticmethod
    def available_actions(piles):
        return {(i, j) for i, pile in enumerate(piles) for j in range(1, pile + 1)}

    def get_q_value(self, state, action):
        return self.q.get((tuple(state), action), 0)

    def actions_dict(self, state):
        return {a: self.get_q_value(state, a) for a in self.available_actions(state)}

    def update(self, old_state, action, new_state, reward):
        old_q = self.get_q_value(old_state, action)
        actions = self.actions_dict(new_state)
        best_future = max(actions.values()) if actions else 0
        self.q[(tuple(old_state), action)] = old_q + self.lr * (reward + self.discount * best_future - old_q)

    def choose_action(self, state, epsilon=True):
        actions = self.actions_dict(state)
        if epsilon and self.rng.random() < self.epsilon:
            return list(actions.keys())[self.rng.integers(len(actions))]
        return max(actions, key=actions.get)

    def play_one(self, start=(3, 5, 7)):
        piles, player = list(start), 0
        last = {0: None, 1: None}
        while True:
            state = piles.copy()
            action = self.choose_action(piles)
            last[player] = (state, action)
            piles[action[0]] -= action[1]
            player = 1 - player
            new_state = piles.copy()
            if not any(piles):
                self.update(state, action, new_state, -100)
                self.update(*last[player], new_state, 100)
                return
            if last[player] is not None:
                self.update(*last[player], new_state, 0)

    def score(self):
        return sum(self.choose_action(list(p), epsilon=False) in good for p, good in TARGET)


def source_run(seed, max_episodes=300_000, every=1_000):
    ai, t0, n = SourceAI(seed), time.perf_counter(), 0
    while n < max_episodes:
        for _ in range(every):
            ai.play_one()
        n += every
        if ai.score() == len(TARGET):
            return n, time.perf_counter() - t0
    return None, time.perf_counter() - t0


def gamekit_run(make, seed, max_episodes=100_000, every=100):
    t0 = time.perf_counter()
    learner = make(seed)  # building the integer-indexed tables is part of the cost
    result = learner.train(max_episodes, progress=False, record_every=every, positions=W, stop_when_perfect=True)
    return result.perfect_at, time.perf_counter() - t0


def report(name, runs):
    eps = [e for e, _ in runs if e is not None]
    secs = [s for e, s in runs if e is not None]
    missed = sum(e is None for e, _ in runs)
    print(
        f"{name:<38} episodes median {statistics.median(eps):>8,.0f} max {max(eps):>8,}   "
        f"seconds median {statistics.median(secs):6.3f} max {max(secs):6.3f}"
        + (f"   ({missed} runs never reached 167)" if missed else "")
    )
    return statistics.median(eps), statistics.median(secs)


def learner(target, alpha, gamma, epsilon):
    return lambda s: QLearner(
        GAME, alpha=alpha, gamma=gamma, epsilon=epsilon, seed=s, target=target, encoding=pile_tuple
    )


def grid() -> None:
    """Median episodes to all 167 (3 seeds, at most 100,000) on a coarse grid, for both rules."""
    print("median episodes until all 167 are right (3 seeds; 'never' = not within 100,000)")
    print(f"{'alpha':>5} {'gamma':>5} {'eps':>4}  {'negamax':>9} {'source':>9}")
    for a, g, e in itertools.product((0.1, 0.3, 0.5, 0.9), (0.8, 0.9), (0.1, 0.3, 0.5, 1.0)):
        cells = []
        for target in ("negamax", "source"):
            runs = [gamekit_run(learner(target, a, g, e), s)[0] for s in range(3)]
            cells.append("never" if None in runs else f"{statistics.median(runs):,.0f}")
        print(f"{a:5} {g:5} {e:4}  {cells[0]:>9} {cells[1]:>9}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--grid", action="store_true", help="print the grid search behind the defaults")
    if ap.parse_args().grid:
        grid()
        return
    seeds = range(5)
    print(
        f"misère Nim [3, 5, 7]: episodes and seconds until the greedy move wins in all {len(W)} winning "
        f"positions ({len(seeds)} seeds; checked every 1,000 episodes for the source, every 100 for gamekit)"
    )
    e_src, s_src = report("source's program (dict, sets, numpy)", [source_run(s) for s in seeds])
    e_seed, s_seed = report(
        "gamekit, the source's scheme", [gamekit_run(lambda s: source_learner(GAME, seed=s), s) for s in seeds]
    )
    for a, g, e in ((0.5, 0.9, 0.5), (0.1, 0.8, 0.1)):
        for target in ("negamax", "source"):
            report(
                f"{target} at alpha {a}, gamma {g}, eps {e}", [gamekit_run(learner(target, a, g, e), s) for s in seeds]
            )
    ai, t0 = SourceAI(0), time.perf_counter()
    for _ in range(100_000):
        ai.play_one()
    t_budget = time.perf_counter() - t0
    print(
        f"the source's budget, 100,000 training games with its program: {t_budget:.2f} s "
        f"(greedy move right in {ai.score()} of {len(TARGET)})"
    )
    print(
        f"same scheme, gamekit's tables vs the source's dict: {s_src / e_src * 1e6:.1f} vs "
        f"{s_seed / e_seed * 1e6:.1f} microseconds per episode"
    )


if __name__ == "__main__":
    main()
