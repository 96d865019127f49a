"""Q-learning misère Nim [3, 5, 7]: episodes and seconds until the greedy move wins in all 167
winning positions, for gamekit's `QLearner` against the source's program.

The source's program is reproduced here as it was written (a dict keyed by (state, action), the
actions rebuilt as a set at every step, numpy random numbers, rewards +-100, alpha 0.1, gamma 0.8,
epsilon 0.1, each player's previous move updated when it is that player's turn again). Both run in
the same process, so the ratio means something on any machine.

    python benchmarks/qlearning.py
"""

from __future__ import annotations

import statistics
import time

import numpy as np

from gamekit import Nim, QLearner, WinningPositions, seed_learner

GAME = Nim([3, 5, 7], misere=True)
W = WinningPositions(GAME)
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


def main() -> None:
    seeds = range(5)
    print(
        f"misère Nim [3, 5, 7]: episodes and seconds until the greedy move wins in all {len(W)} winning "
        f"positions ({len(seeds)} seeds; checked every 1,000 episodes for the source, every 100 for gamekit)"
    )
    e_src, s_src = report("source's program (dict, sets, numpy)", [source_run(s) for s in seeds])
    e_seed, s_seed = report(
        "gamekit, the source's scheme", [gamekit_run(lambda s: seed_learner(GAME, seed=s), s) for s in seeds]
    )
    e_ours, s_ours = report(
        "gamekit, correct target (defaults)", [gamekit_run(lambda s: QLearner(GAME, seed=s), s) for s in seeds]
    )
    print(
        f"correct target vs source's program: {e_src / e_ours:.1f}x fewer episodes, "
        f"{s_src / s_ours:.0f}x less time (goal: <= 20,000 episodes and <= 0.5 s)"
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
