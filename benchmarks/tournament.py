"""What the tournament's sandbox costs: games per second in-process against sandboxed, locally and
on a loopback Dask cluster, and the sandbox's overhead per move.

    python benchmarks/tournament.py              # the figures quoted in the report (about a minute)
    python benchmarks/tournament.py --quick      # fewer games

Each jailed figure is measured twice in the same run: with the freezing (a jail runs only in its
own turn: a cgroup freezer write before and after each move, or SIGSTOP/SIGCONT without cgroups)
and with the freezing switched off, which is what a move cost before. The last line counts the
lines of the boundary package (`gamekit/sandbox/`).

`--search` measures what a student's game costs the agents that search it: the game runs in a jail
of its own and every rules question of an agent's search is relayed by the referee
(`gamekit.tournament.proxy`), against the course's own game built in the agent's process: an
alpha-beta agent (a full search, TicTacToe's first move included) and an MCTS agent (300
iterations), per move, and lesson 10's tournament (Number Scrabble against the house agents).

Six cheap TicTacToe agents play a round robin (15 pairings x `--starts` starts x 2 seat orders),
so the figures measure the machinery, not the agents' thinking. "In-process" plays both agents
in the referee's process (no limits enforced: trusted code only); "sandboxed" runs each agent in
its own forked process with the limits, the audit hook and the outside clock. The Dask cluster is
a real `dask scheduler` and two `dask worker` processes (one thread each) on 127.0.0.1.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from gamekit.games.tictactoe import TicTacToe
from gamekit.sandbox import cgroup
from gamekit.sandbox.zygote import close_jails
from gamekit.tournament.runner import Tournament, execute
from gamekit.tournament.sandbox import AgentProcess, Limits

AGENTS = {
    "first": "NAME = 'first'\ndef agent(game, state):\n    return game.legal_moves(state)[0]\n",
    "last": "NAME = 'last'\ndef agent(game, state):\n    return game.legal_moves(state)[-1]\n",
    "random": "import random\nNAME = 'random'\ndef agent(game, state):\n"
    "    return random.choice(list(game.legal_moves(state)))\n",
    "centre": "NAME = 'centre first'\nORDER = (4, 0, 2, 6, 8, 1, 3, 5, 7)\ndef agent(game, state):\n"
    "    legal = game.legal_moves(state)\n    return next(m for m in ORDER if m in legal)\n",
    "block": "NAME = 'win or block'\nclass Agent:\n    def __init__(self, game, seat):\n"
    "        self.game, self.seat = game, seat\n    def move(self, state):\n"
    "        g, legal = self.game, self.game.legal_moves(state)\n"
    "        for m in legal:\n            after = g.play(state, m)\n"
    "            if g.is_terminal(after) and g.utility(after, self.seat) > 0:\n                return m\n"
    "        return legal[0]\n",
    "corner": "NAME = 'corners'\ndef agent(game, state):\n    legal = game.legal_moves(state)\n"
    "    return next((m for m in (0, 2, 6, 8) if m in legal), legal[0])\n",
}
PING = "NAME = 'ping'\ndef agent(game, state):\n    return 0\n"


def write_agents(folder: Path) -> list[Path]:
    (folder / "agents").mkdir()
    paths = []
    for name, source in AGENTS.items():
        path = folder / "agents" / f"{name}.py"  # not beside the cluster's cwd: random.py would shadow random
        path.write_text(source)
        paths.append(path)
    return paths


#: TicTacToe as a student's game: the same rules from a file, so the referee runs them in a sandboxed process.
STUDENT_TICTACTOE = "from gamekit.games.tictactoe import TicTacToe\n\n\nclass MyTicTacToe(TicTacToe):\n    pass\n"


def games_per_second(
    folder: Path, agents: list[Path], starts: int, sandbox: bool, game: str = "tictactoe", **run
) -> tuple[float, int]:
    db = folder / f"t-{sandbox}-{'dask' if run.get('scheduler') else 'local'}-{time.monotonic_ns()}.sqlite"
    t = Tournament(db, agents, game=game, starts=starts, seed=1, sandbox=sandbox)
    t.validate(workers=run.get("workers"), scheduler=run.get("scheduler"), tls=run.get("tls"))
    t0 = time.perf_counter()
    played = t.run(validate=False, **run)
    seconds = time.perf_counter() - t0
    t.close()
    return played / seconds, played


def _start(source: str, limits: Limits, jailed: bool) -> float:
    t0 = time.perf_counter()
    agent = AgentProcess(source, limits, jailed=jailed)
    agent.wait_ready(agent.start())
    agent.begin("tictactoe", {}, 0, 1)
    seconds = time.perf_counter() - t0
    agent.close()
    return seconds


def overhead_per_move(moves: int, jailed: bool = True) -> tuple[float, float, float, float]:
    """(round trip per move, in-process call per move, start-up per agent, start-up per game) in seconds.

    Per agent: its jail (bubblewrap namespaces and a zygote that imports gamekit) starts once;
    per game: a process forked from that zygote loads the file and begins the game.
    """
    game = TicTacToe()
    state = game.state_to_json(game.initial_state())
    limits = Limits()
    per_agent = []
    for i in range(3):
        close_jails()
        per_agent.append(_start(PING + f"# agent {i}\n", limits, jailed))
    per_game = [_start(PING, limits, jailed) for _ in range(10)]
    agent = AgentProcess(PING, limits, jailed=jailed)
    agent.wait_ready(agent.start())
    agent.begin("tictactoe", {}, 0, 1)
    for _ in range(100):
        agent.ask(state, 1.0)
    t0 = time.perf_counter()
    for _ in range(moves):
        agent.ask(state, 1.0)
    sandboxed = (time.perf_counter() - t0) / moves
    agent.close()
    close_jails()
    namespace: dict = {}
    exec(PING, namespace)
    f = namespace["agent"]
    t0 = time.perf_counter()
    for _ in range(moves):
        f(game, game.state_from_json(state))
    inside = (time.perf_counter() - t0) / moves
    return sandboxed, inside, statistics.median(per_agent), statistics.median(per_game[1:])


SEARCHERS = {
    "alpha-beta": "from gamekit import alphabeta\nNAME = 'alpha-beta'\n"
    "def agent(game, state):\n    return alphabeta(game, state).move\n",
    "MCTS 300": "import random\nfrom gamekit import MCTS\nNAME = 'mcts'\n"
    "def agent(game, state):\n    return MCTS(game, seed=random.randrange(2**32)).search(state, iterations=300)\n",
}
OPPONENT = "NAME = 'first'\ndef agent(game, state):\n    return game.legal_moves(state)[0]\n"


def search_cost(folder: Path, games: int = 4) -> list[tuple[str, str, float, float, int]]:
    """(agent, path, ms charged per move, seconds of wall clock per game, moves) for each searcher, playing
    `games` TicTacToe games against first-legal-move from both seats: the course's game (built in the
    agent's process) and the same rules as a student's file (in the game's own jail, relayed)."""
    from gamekit.tournament.games import open_rules, resolve_game
    from gamekit.tournament.referee import GameSpec, play_game_spec

    own = folder / "student_tictactoe.py"
    own.write_text(STUDENT_TICTACTOE)
    limits = Limits(move_seconds=30.0, bank_seconds=0.0, startup_seconds=30.0)
    rows = []
    for name, source in SEARCHERS.items():
        for label, game in (
            ("course's game, in the agent", "tictactoe"),
            ("student's file, relayed", f"{own}:MyTicTacToe"),
        ):
            ref = resolve_game(game)
            rules = open_rules(ref)
            start = rules.starts(1, 0)[0]
            rules.close()
            charged, wall, moves = 0.0, 0.0, 0
            for g in range(games):
                seat = g % 2
                sources = (source, OPPONENT) if seat == 0 else (OPPONENT, source)
                spec = GameSpec(id=f"s{g}", game=ref.name, target=ref.target, game_source=ref.source, params=ref.params,
                                start=start, agents=("a", "b"), sources=sources, seeds=(g, g + 1),
                                limits=limits.as_dict())  # fmt: skip
                t0 = time.perf_counter()
                record = play_game_spec(spec)
                wall += time.perf_counter() - t0
                assert record["forfeit"] is None, (record["reason"], record["detail"])
                mine = [t for t, mover in zip(record["times"], record["movers"]) if mover == seat]
                charged += sum(mine)
                moves += len(mine)
            rows.append((name, label, 1e3 * charged / moves, wall / games, moves))
    close_jails()
    return rows


NUMBER_SCRABBLE = '''
from dataclasses import dataclass
from itertools import combinations

from gamekit import IllegalMoveError


@dataclass(frozen=True)
class Hands:
    mine: tuple = ()
    theirs: tuple = ()


class NumberScrabble:
    """Take numbers 1..9 in turn; whoever first holds three that sum to 15 wins."""

    def initial_state(self):
        return Hands()

    def to_move(self, state):
        return (len(state.mine) + len(state.theirs)) % 2

    def _won(self, numbers):
        return any(sum(c) == 15 for c in combinations(numbers, 3))

    def is_terminal(self, state):
        return self._won(state.theirs) or len(state.mine) + len(state.theirs) == 9

    def legal_moves(self, state):
        if self.is_terminal(state):
            return ()
        return tuple(n for n in range(1, 10) if n not in state.mine and n not in state.theirs)

    def play(self, state, move):
        if move not in self.legal_moves(state):
            raise IllegalMoveError(f"{move!r} is not free; free: {self.legal_moves(state)}")
        return Hands(state.theirs, tuple(sorted(state.mine + (move,))))

    def utility(self, state, player):
        if not self._won(state.theirs):
            return 0.0
        last = 1 - self.to_move(state)
        return 1.0 if player == last else -1.0
'''


def lesson_ten(folder: Path) -> tuple[float, int]:
    """Seconds and games of lesson 10's tournament: Number Scrabble (a student's file) against the house
    agents (random, MCTS 300, the solver), two starts with two random opening picks, validation included."""
    from gamekit.tournament.house import write_house_agents

    game = folder / "number_scrabble.py"
    game.write_text(NUMBER_SCRABBLE)
    agents = write_house_agents(folder / "house")
    t0 = time.perf_counter()
    t = Tournament(folder / f"ten-{time.monotonic_ns()}.sqlite", agents, game=f"{game}:NumberScrabble", starts=2,
                   opening=2, seed=10)  # fmt: skip
    played = t.run(workers=2)
    seconds = time.perf_counter() - t0
    rejected = [(e.id, e.reason) for e in t.entrants() if e.status != "accepted"]
    t.close()
    close_jails()
    assert not rejected, rejected
    return seconds, played


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_cluster(folder: Path) -> tuple[str, list[subprocess.Popen]]:
    """A TLS scheduler and two workers on loopback, with certificates in folder/certs."""
    from dask.distributed import Client

    from gamekit.tournament.cluster import make_certificates, security, tls_arguments

    certs = folder / "certs"
    make_certificates(certs)
    port = free_port()
    address = f"tls://127.0.0.1:{port}"

    log = open(folder / "dask.log", "w")  # noqa: SIM115  (the processes write to it until stopped)
    quiet = {"stdout": log, "stderr": log, "start_new_session": True, "cwd": folder}
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "distributed.cli.dask_scheduler",
                "--protocol",
                "tls",
                *tls_arguments(certs, "scheduler"),
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--no-dashboard",
            ],
            **quiet,
        )  # fmt: skip
    ]
    for k in range(2):
        procs.append(
            subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "distributed.cli.dask_worker",
                    address,
                    *tls_arguments(certs, "worker"),
                    "--nthreads",
                    "1",
                    "--no-dashboard",
                    "--local-directory",
                    str(folder / f"w{k}"),
                ],
                **quiet,
            )  # fmt: skip
        )
    try:
        with Client(address, security=security(certs, "client"), timeout=60) as client:
            client.wait_for_workers(2, timeout=60)
    except OSError:
        stop_cluster(procs)
        raise
    return address, procs


def stop_cluster(procs: list[subprocess.Popen]) -> None:
    for p in reversed(procs):
        os.killpg(p.pid, signal.SIGTERM)
    for p in procs:
        p.wait(20)


@contextlib.contextmanager
def freezing(on: bool):
    """Jails frozen outside their turn (on), or never frozen (off: the cost before freezing existed)."""
    saved = cgroup.GameGroup.freeze, cgroup.GameGroup.thaw
    if not on:
        cgroup.GameGroup.freeze = cgroup.GameGroup.thaw = lambda self: None  # type: ignore[method-assign]
    try:
        yield
    finally:
        cgroup.GameGroup.freeze, cgroup.GameGroup.thaw = saved  # type: ignore[method-assign]


def freezing_cost(n: int = 2000) -> float | None:
    """Seconds for what freezing adds to one move (thaw, freeze, two CPU-time reads), on a sleeping
    process in a game group of its own; None where cgroups are not writable."""
    if cgroup.mechanism() != "cgroup-v1":
        return None
    sleeper = subprocess.Popen(["sleep", "60"])
    jail = cgroup.JailGroup(pids=8)
    group = jail.game(sleeper.pid)
    try:
        t0 = time.perf_counter()
        for _ in range(n):
            group.thaw()
            group.cpu_seconds()
            group.freeze()
            group.cpu_seconds()
        return (time.perf_counter() - t0) / n
    finally:
        group.close()  # thawed and killed: a frozen process dies only once it runs again
        sleeper.kill()
        sleeper.wait()
        jail.close()


def package_lines() -> dict[str, int]:
    """Lines of each module of gamekit/sandbox (all of them: its docstrings are part of what a reviewer reads)."""
    folder = Path(__file__).resolve().parents[1] / "gamekit" / "sandbox"
    return {p.name: len(p.read_text().splitlines()) for p in sorted(folder.glob("*.py"))}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--starts", type=int, default=10, help="starts per pairing (default 10: 300 games)")
    ap.add_argument("--moves", type=int, default=5000, help="moves for the overhead measurement")
    ap.add_argument("--quick", action="store_true", help="3 starts, 1000 moves")
    ap.add_argument("--no-dask", action="store_true", help="skip the cluster")
    ap.add_argument("--search", action="store_true", help="only what a student's game costs searching agents")
    args = ap.parse_args()
    if args.search:
        with tempfile.TemporaryDirectory() as tmp:
            print("searching agents against first-legal-move on TicTacToe, per move of the searcher:")
            for name, label, charged, wall, moves in search_cost(Path(tmp)):
                print(
                    f"  {name:<11} {label:<28} charged {charged:7.2f} ms per move ({moves} moves), "
                    f"{wall:5.2f} s per game"
                )
            seconds, played = lesson_ten(Path(tmp))
            print(
                f"lesson 10's tournament (Number Scrabble, 3 house agents): {played} games "
                f"and the validation in {seconds:.1f} s"
            )
        return
    if args.quick:
        args.starts, args.moves = 3, 1000
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        agents = write_agents(folder)
        print(f"stopping a jail outside its turn by: {cgroup.mechanism()}")
        cost = freezing_cost()
        if cost is not None:
            print(f"freezing per move (thaw, freeze, two CPU-time reads): {1e3 * cost:.4f} ms")
        cases = ((True, True, "jail, frozen outside its turn"), (True, False, "jail, never frozen"),
                 (False, True, "no OS sandbox, --trusted-code"))  # fmt: skip
        for jailed, frozen, label in cases:
            with freezing(frozen):
                sandboxed, inside, per_agent, per_game = overhead_per_move(args.moves, jailed)
            print(f"{label}: round trip per move {1e3 * sandboxed:.3f} ms (in-process call {1e3 * inside:.4f} ms), "
                  f"overhead {1e3 * (sandboxed - inside):.3f} ms per move; start-up per agent "
                  f"{1e3 * per_agent:.0f} ms, per game {1e3 * per_game:.1f} ms")  # fmt: skip
        rows = []
        list(execute([], 1))  # nothing: just the import path
        rate, n = games_per_second(folder, agents, args.starts, sandbox=False, workers=1)
        rows.append(("in-process, local (1 referee)", rate, n))
        rate, n = games_per_second(folder, agents, args.starts, sandbox=True, workers=os.cpu_count())
        rows.append((f"sandboxed, local ({os.cpu_count()} referees), frozen", rate, n))
        with freezing(False):
            rate, n = games_per_second(folder, agents, args.starts, sandbox=True, workers=os.cpu_count())
        rows.append((f"sandboxed, local ({os.cpu_count()} referees), never frozen", rate, n))
        own = folder / "my_tictactoe.py"
        own.write_text(STUDENT_TICTACTOE)
        rate, n = games_per_second(
            folder, agents, args.starts, sandbox=True, game=f"{own}:MyTicTacToe", workers=os.cpu_count()
        )
        rows.append((f"  the same, rules as a student's file ({os.cpu_count()} ref.)", rate, n))
        if not args.no_dask:
            address, procs = start_cluster(folder)
            try:
                tls = folder / "certs"
                rate, n = games_per_second(folder, agents, args.starts, sandbox=False, scheduler=address, tls=tls)
                rows.append(("in-process, Dask loopback (2 workers)", rate, n))
                rate, n = games_per_second(folder, agents, args.starts, sandbox=True, scheduler=address, tls=tls)
                rows.append(("sandboxed, Dask loopback (2 workers)", rate, n))
            finally:
                stop_cluster(procs)
        print(f"\nround robin of 6 TicTacToe agents, {rows[0][2]} games, on {os.cpu_count()} cores:")
        for label, rate, _ in rows:
            print(f"  {label:<50} {rate:8.1f} games/s")
        lines = package_lines()
        print(f"\nthe boundary package gamekit/sandbox/: {sum(lines.values())} lines", lines)


if __name__ == "__main__":
    main()
