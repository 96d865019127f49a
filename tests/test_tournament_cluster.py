"""The class tournament, slower checks: a real Dask cluster on loopback, the command line, and
resuming a run that was killed (SIGKILL) in the middle; the time bank.

These start processes (a scheduler, two workers, the CLI) and take some seconds each; they are
in the fast tier's file list but kept apart so their cost is visible (see the lead's notes).
"""

from __future__ import annotations

import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gamekit.tournament.runner import Tournament
from gamekit.tournament.sandbox import Limits

pytestmark = pytest.mark.slow  # seconds per test: in the full suite, not the quick loop

AGENTS = Path(__file__).parent / "tournament_agents"
SAMPLES = [AGENTS / "first_free.py", AGENTS / "random_mover.py", AGENTS / "perfect.py"]
FAST = Limits(move_seconds=0.3, bank_seconds=0.0, startup_seconds=5.0, memory_mb=64, output_kb=64)
ROOT = Path(__file__).resolve().parent.parent


def without_times(record: dict) -> dict:
    return {k: v for k, v in record.items() if k not in ("times", "seconds", "failed_after")}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _env() -> dict[str, str]:
    env = dict(os.environ)
    import gamekit

    package_parent = str(Path(gamekit.__file__).resolve().parent.parent)
    env["PYTHONPATH"] = os.pathsep.join([package_parent, env.get("PYTHONPATH", "")]).strip(os.pathsep)
    return env


@pytest.fixture(scope="module")
def dask_cluster(tmp_path_factory):
    """A real `dask scheduler` with TLS and two `dask worker` processes on 127.0.0.1, with the
    certificates of `python -m gamekit.tournament certs`; yields (address, certificates folder)."""
    pytest.importorskip("dask.distributed")
    pytest.importorskip("cryptography")
    from dask.distributed import Client

    from gamekit.tournament.cluster import make_certificates, security, tls_arguments

    folder = tmp_path_factory.mktemp("dask")
    certs = folder / "certs"
    make_certificates(certs)
    port = free_port()
    address = f"tls://127.0.0.1:{port}"

    dask = [sys.executable, "-m", "distributed.cli.dask_scheduler"]
    procs = [
        subprocess.Popen(
            [
                *dask,
                "--protocol",
                "tls",
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--no-dashboard",
                *tls_arguments(certs, "scheduler"),
            ],
            cwd=folder,
            env=_env(),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
    ]
    worker = [sys.executable, "-m", "distributed.cli.dask_worker", address, "--nthreads", "1", "--no-dashboard"]
    for k in range(2):
        procs.append(
            subprocess.Popen(
                [
                    *worker,
                    *tls_arguments(certs, "worker"),
                    "--local-directory",
                    str(folder / f"w{k}"),
                    "--listen-address",
                    f"tls://127.0.0.1:{free_port()}",
                ],
                cwd=folder,
                env=_env(),
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
            )
        )
    try:
        with Client(address, security=security(certs, "client"), timeout=60) as client:
            client.wait_for_workers(2, timeout=60)
        yield address, certs
    finally:
        for p in reversed(procs):
            os.killpg(p.pid, signal.SIGTERM)
        for p in procs:
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()


def test_a_tournament_on_a_loopback_dask_cluster_equals_the_local_run(dask_cluster, tmp_path):
    local = Tournament(tmp_path / "local.sqlite", SAMPLES, game="nim", starts=1, seed=11, limits=FAST)
    local.run(workers=2)
    address, certs = dask_cluster
    remote = Tournament(tmp_path / "remote.sqlite", SAMPLES, game="nim", starts=1, seed=11, limits=FAST)
    remote.run(scheduler=address, tls=certs)
    assert len(remote.records()) == 6
    assert [without_times(r) for r in remote.records()] == [without_times(r) for r in local.records()]
    assert [(e.id, e.status) for e in remote.entrants()] == [(e.id, e.status) for e in local.entrants()]


def test_a_students_game_given_by_its_file_plays_on_the_cluster_as_locally(dask_cluster, tmp_path):
    # the game's text travels in each game's spec: the workers need no copy of the file
    game = f"{Path(__file__).parent / 'own_games.py'}:DotsAndBoxes"
    agents = SAMPLES[:2]
    local = Tournament(tmp_path / "local.sqlite", agents, game=game, starts=1, seed=4, limits=FAST)
    local.run(workers=2)
    address, certs = dask_cluster
    remote = Tournament(tmp_path / "remote.sqlite", agents, game=game, starts=1, seed=4, limits=FAST)
    remote.run(scheduler=address, tls=certs)
    assert len(remote.records()) == 2 and all(r["forfeit"] is None for r in remote.records())
    assert [without_times(r) for r in remote.records()] == [without_times(r) for r in local.records()]


def test_the_cluster_has_no_door_without_a_certificate(dask_cluster, tmp_path):
    """What an agent (or anyone on the network) could try: connect without TLS, or with TLS but
    without a certificate of the class's authority, or ask the tournament for a plain scheduler."""
    import ssl

    from dask.distributed import Client, Security

    from gamekit.tournament.cluster import make_certificates

    address, certs = dask_cluster
    with pytest.raises((OSError, TimeoutError)):
        Client(address.replace("tls://", "tcp://"), timeout=5)
    stranger = tmp_path / "stranger"
    make_certificates(stranger)  # a valid certificate, from another authority
    foreign = Security(
        tls_ca_file=str(stranger / "ca.pem"),
        tls_client_cert=str(stranger / "client.pem"),
        tls_client_key=str(stranger / "client-key.pem"),
        require_encryption=True,
    )
    with pytest.raises((OSError, TimeoutError, ssl.SSLError)):
        Client(address, security=foreign, timeout=5)
    t = Tournament(tmp_path / "t.sqlite", SAMPLES[:2], game="nim", starts=1, seed=1, limits=FAST)
    with pytest.raises(ValueError, match="TLS"):
        t.run(scheduler=address.replace("tls://", "tcp://"))
    assert t.records() == []
    done = cli("run", *map(str, SAMPLES[:2]), "--game", "nim", "--db", str(tmp_path / "c.sqlite"),
               "--scheduler", "tcp://127.0.0.1:8786")  # fmt: skip
    assert done.returncode == 2 and "TLS" in done.stderr and not (tmp_path / "c.sqlite").exists()


def _ask(address: str, certs: Path, role: str, msg: dict):
    """One request to `address` as a raw Dask connection with the certificate of `role`: the reply,
    or the exception that ended the connection (what an attacker with that key could do)."""
    import asyncio

    from distributed.comm import connect

    from gamekit.tournament.cluster import security

    async def go():
        comm = await connect(address, timeout=10, **security(certs, role).get_connection_args("client"))
        try:
            await comm.write(msg)
            return await asyncio.wait_for(comm.read(), 20)
        finally:
            comm.abort()

    try:
        return asyncio.run(go())
    except Exception as exc:
        return exc


def test_a_workers_key_cannot_act_as_a_client(dask_cluster, tmp_path):
    """Every worker machine holds the worker's key; with it, connect as a client, submit work, run
    code on every worker (broadcast), or order another worker (run): each closes the connection."""
    from dask.distributed import Client
    from distributed.comm.core import CommClosedError

    from gamekit.tournament.cluster import ALLOWED, security

    address, certs = dask_cluster
    with pytest.raises((OSError, TimeoutError)):
        Client(address, security=security(certs, "worker"), timeout=10)
    with Client(address, security=security(certs, "client"), timeout=60) as client:
        workers = sorted(client.scheduler_info()["workers"])
    attempts = {
        "register-client": {"op": "register-client", "client": "rigger", "versions": {}, "reply": False},
        "broadcast": {"op": "broadcast", "msg": {"op": "identity"}},
        "run_function": {"op": "run_function", "function": b"\x80"},
        "update_graph": {"op": "update_graph", "graph_header": {}, "graph_frames": []},
    }
    for op, msg in attempts.items():
        assert op not in ALLOWED["scheduler"]["worker"]
        assert isinstance(_ask(address, certs, "worker", msg), CommClosedError), op
    # the same connection and request with the client's key is answered: it is the role that is refused
    answer = _ask(address, certs, "client", attempts["broadcast"])
    assert isinstance(answer, dict) and sorted(answer) == workers
    assert isinstance(_ask(address, certs, "worker", {"op": "identity"}), dict)
    # a worker's key ordering another worker: refused; the scheduler's order: obeyed
    run = {"op": "run", "function": b"\x80", "args": b"", "kwargs": b""}
    assert isinstance(_ask(workers[0], certs, "worker", run), CommClosedError)
    assert isinstance(_ask(workers[0], certs, "client", run), CommClosedError)
    assert not isinstance(_ask(workers[0], certs, "scheduler", run), Exception)
    # and the cluster still plays
    t = Tournament(tmp_path / "after.sqlite", SAMPLES[:2], game="nim", starts=1, seed=3, limits=FAST)
    t.run(scheduler=address, tls=certs)
    assert len(t.records()) == 2


def test_a_clients_key_cannot_act_as_a_worker(dask_cluster, tmp_path):
    """A real `dask worker` started with the client's key never becomes a worker (so it never gets a
    game to rig), and a raw registration with it closes the connection."""
    from dask.distributed import Client
    from distributed.comm.core import CommClosedError

    from gamekit.tournament.cluster import security

    address, certs = dask_cluster
    register = {"op": "register-worker", "address": "tls://127.0.0.1:1", "nthreads": 1, "reply": True}
    assert isinstance(_ask(address, certs, "client", register), CommClosedError)
    client_files = ["--tls-ca-file", str(certs / "ca.pem"), "--tls-cert", str(certs / "client.pem"),
                    "--tls-key", str(certs / "client-key.pem"), "--preload", "gamekit.tournament.cluster"]  # fmt: skip
    impostor = subprocess.Popen(
        [sys.executable, "-m", "distributed.cli.dask_worker", address, "--nthreads", "1", "--no-dashboard",
         "--no-nanny", *client_files, "--local-directory", str(tmp_path / "impostor"),
         "--listen-address", f"tls://127.0.0.1:{free_port()}"],
        env=_env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
    )  # fmt: skip
    try:
        with Client(address, security=security(certs, "client"), timeout=60) as client:
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline and impostor.poll() is None:
                assert len(client.scheduler_info()["workers"]) == 2
                time.sleep(0.5)
    finally:
        os.killpg(impostor.pid, signal.SIGKILL)
        impostor.wait()


def test_each_role_has_its_own_certificate_usage(tmp_path):
    pytest.importorskip("cryptography")
    from cryptography import x509
    from cryptography.x509.oid import ExtendedKeyUsageOID

    from gamekit.tournament.cluster import make_certificates, tls_arguments

    make_certificates(tmp_path)
    usage = {}
    for role in ("scheduler", "worker", "client"):
        cert = x509.load_pem_x509_certificate((tmp_path / f"{role}.pem").read_bytes())
        usage[role] = set(cert.extensions.get_extension_for_class(x509.ExtendedKeyUsage).value)
        assert cert.subject.rfc4514_string().startswith(f"CN=gamekit {role}")
    assert usage["client"] == {ExtendedKeyUsageOID.CLIENT_AUTH}  # a client's key cannot serve a worker's port
    assert usage["worker"] == usage["scheduler"] == {ExtendedKeyUsageOID.SERVER_AUTH, ExtendedKeyUsageOID.CLIENT_AUTH}
    assert "--preload-nanny" in tls_arguments(tmp_path, "worker")
    assert "--preload" in tls_arguments(tmp_path, "scheduler")
    # the preloads are text Dask runs as the server is made, so plain reading starts before it listens
    for role in ("scheduler", "worker"):
        args = tls_arguments(tmp_path, role)
        texts = [args[i + 1] for i, a in enumerate(args) if a.startswith("--preload")]
        assert texts and all(t.endswith(f'guard_reading("{role}")') and "import dask_setup" in t for t in texts)
    with pytest.raises(ValueError, match="only a scheduler or a worker"):
        tls_arguments(tmp_path, "client")


def test_certs_command_writes_private_keys_and_says_how_to_start(tmp_path):
    pytest.importorskip("cryptography")
    done = cli("certs", str(tmp_path / "certs"), "--host", "10.0.0.5")
    assert done.returncode == 0, done.stderr
    assert "dask scheduler --protocol tls --host 10.0.0.5" in done.stdout and "tls://10.0.0.5:8786" in done.stdout
    assert done.stdout.count("--no-dashboard") == 2  # Dask's dashboards are plain HTTP, open to the network
    for role in ("ca", "scheduler", "worker", "client"):
        key = tmp_path / "certs" / f"{role}-key.pem"
        assert key.stat().st_mode & 0o077 == 0, f"{key} is readable by others"
        assert (tmp_path / "certs" / f"{role}.pem").read_text().startswith("-----BEGIN CERTIFICATE-----")


def cli(*args: str, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "gamekit.tournament", *args],
        capture_output=True,
        text=True,
        env=_env(),
        timeout=120,
        **kwargs,
    )


def test_the_command_line_validates_runs_and_reports(tmp_path):
    bad = cli("validate", str(AGENTS / "first_free.py"), str(AGENTS / "zoo" / "raiser.py"), "--move-time", "0.3")
    assert bad.returncode == 1 and "rejected  raiser" in bad.stdout and "ZeroDivisionError" in bad.stdout
    db, out = tmp_path / "t.sqlite", tmp_path / "report"
    run = cli("run", *map(str, SAMPLES), "--game", "subtraction", "--db", str(db), "--starts", "2", "--seed", "4",
              "--move-time", "0.3", "--report", str(out))  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert "12 games to play" in run.stdout and "perfect (solver)" in run.stdout
    page = (out / "leaderboard.html").read_text()
    assert "<svg" in page and "Replay" in page and "subtraction" in page
    summary = json.loads((out / "ratings.json").read_text())
    assert [s["id"] for s in summary["standings"]][0] == "perfect"
    assert len(list((out / "games").glob("*.json"))) == 12
    again = cli("run", str(AGENTS / "first_free.py"), "--db", str(db))
    assert again.returncode == 2 and "resume" in again.stderr
    report = cli("report", "--db", str(db), "--out", str(tmp_path / "r2"), "--reps", "50")
    assert report.returncode == 0 and (tmp_path / "r2" / "leaderboard.html").exists()


def test_a_killed_run_resumes_and_ends_with_the_same_games_as_an_uninterrupted_one(tmp_path):
    slow = tmp_path / "slow.py"
    slow.write_text("import time\nNAME = 'slow'\ndef agent(game, state):\n    time.sleep(0.05)\n"
                    "    return game.legal_moves(state)[-1]\n")  # fmt: skip
    agents = [*map(str, SAMPLES), str(slow)]
    db = tmp_path / "killed.sqlite"
    folders = tmp_path / "agent-folders"  # a killed referee cannot remove its agents' folders: keep them here
    folders.mkdir()
    proc = subprocess.Popen(
        [sys.executable, "-m", "gamekit.tournament", "run", *agents, "--db", str(db), "--game", "tictactoe",
         "--starts", "2", "--seed", "9", "--workers", "2"],
        env={**_env(), "TMPDIR": str(folders)}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True,
    )  # fmt: skip
    stored = 0
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and stored < 5:
        time.sleep(0.05)
        if db.exists():
            try:
                with sqlite3.connect(db) as con:
                    stored = con.execute("SELECT count(*) FROM games").fetchone()[0]
            except sqlite3.OperationalError:
                pass
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    assert 5 <= stored < 24, "the run was not stopped in the middle"
    resumed = Tournament.open(db)
    kept = len(resumed.records())
    assert kept >= stored and len(resumed.remaining()) == 24 - kept
    assert resumed.run(workers=2) == 24 - kept
    whole = Tournament(tmp_path / "whole.sqlite", agents, game="tictactoe", starts=2, seed=9)
    whole.run(workers=2)
    assert [without_times(r) for r in resumed.records()] == [without_times(r) for r in whole.records()]


def test_the_time_bank_pays_for_slow_moves_until_it_is_empty(tmp_path):
    slow = tmp_path / "slow_mover.py"
    slow.write_text("import time\nNAME = 'slow'\ndef agent(game, state):\n    time.sleep(0.5)\n"
                    "    return game.legal_moves(state)[0]\n")  # fmt: skip
    limits = Limits(move_seconds=0.3, bank_seconds=0.5, startup_seconds=5.0)
    t = Tournament(tmp_path / "bank.sqlite", [slow], gauntlet=[AGENTS / "first_free.py"], format="gauntlet",
                   game="tictactoe", limits=limits)  # fmt: skip
    t.run(workers=2, validate=False)
    for r in t.records():
        seat = r["agents"].index("slow_mover")
        assert r["forfeit"] == seat and r["reason"] == "timeout"
        # each slow move costs 0.2 s of the 0.5 s bank: two moves are paid for, the third is lost
        assert len(r["times"][seat::2]) == 2, r["times"]
        # the third move is stopped once its 0.3 s and the 0.1 s left in the bank are spent: the claim is
        # about that kill (the wall clock is only a backstop at twice the time), not the whole game with
        # its two jails' start-ups
        assert r["failed_after"] is not None and r["failed_after"] < 2 * (0.3 + 0.1) + 0.25 + 1.0


def test_a_local_run_needs_nothing_of_dask(tmp_path):
    code = (
        "import sys\n"
        "from gamekit.tournament import Tournament, Limits\n"
        f"t = Tournament({str(tmp_path / 'local.sqlite')!r}, {[str(p) for p in SAMPLES[:2]]!r}, game='nim',\n"
        "               limits=Limits(move_seconds=0.3))\n"
        "assert t.run(workers=2) == 2\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('dask', 'distributed')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=_env(), timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"
    helps = cli("--help")
    assert helps.returncode == 0 and all(c in helps.stdout for c in ("validate", "run", "resume", "report"))


def test_the_teacher_refuses_a_scheduler_that_holds_a_workers_key(dask_cluster, tmp_path):
    """Any certificate of the authority passes TLS: a lab PC's worker key, started as a scheduler
    where the teacher expects one, would get the games and send back rigged records. The teacher's
    side checks the role first and sends nothing; the real scheduler passes the same check."""
    from gamekit.tournament.cluster import connect

    address, certs = dask_cluster
    with connect(address, certs) as client:
        assert len(client.scheduler_info()["workers"]) == 2
    port = free_port()
    worker_files = ["--tls-ca-file", str(certs / "ca.pem"), "--tls-cert", str(certs / "worker.pem"),
                    "--tls-key", str(certs / "worker-key.pem")]  # fmt: skip
    impostor = subprocess.Popen(
        [sys.executable, "-m", "distributed.cli.dask_scheduler", "--protocol", "tls", "--host", "127.0.0.1",
         "--port", str(port), "--no-dashboard", *worker_files],
        cwd=tmp_path, env=_env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
    )  # fmt: skip
    try:
        fake = f"tls://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while True:  # until the impostor listens
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert time.monotonic() < deadline and impostor.poll() is None, "the impostor did not start"
                time.sleep(0.3)
        with pytest.raises(ConnectionRefusedError, match="a worker, not the scheduler's"), connect(fake, certs):
            pass
        t = Tournament(tmp_path / "t.sqlite", [AGENTS / "first_free.py", AGENTS / "random_mover.py"], game="nim")
        with pytest.raises(ConnectionRefusedError):
            t.run(scheduler=fake, tls=certs, validate=False)
        assert t.records() == []
    finally:
        os.killpg(impostor.pid, signal.SIGKILL)
        impostor.wait()


FAILING_GAME = '''
class Countdown:
    """Take 1 or 2; whoever takes the last wins; its code fails at 3 left."""

    def initial_state(self):
        return (5, 0)

    def to_move(self, state):
        return state[1]

    def legal_moves(self, state):
        return tuple(t for t in (1, 2) if t <= state[0])

    def play(self, state, move):
        if state[0] - move == 3:
            raise ZeroDivisionError("the author's bug")
        return (state[0] - move, 1 - state[1])

    def is_terminal(self, state):
        return state[0] == 0

    def utility(self, state, player):
        return 1.0 if state[1] != player else -1.0
'''


def test_a_students_game_that_fails_on_the_cluster_stops_the_run_as_locally(dask_cluster, tmp_path):
    """The worker reports the game's failure as plain data (an exception would travel pickled, which
    the teacher's side does not read): the run stops with the same GameFailure, nothing stored."""
    from gamekit.tournament import GameFailure

    (tmp_path / "failing.py").write_text(FAILING_GAME)
    game, agents = f"{tmp_path / 'failing.py'}:Countdown", [AGENTS / "first_free.py", AGENTS / "random_mover.py"]
    local = Tournament(tmp_path / "local.sqlite", agents, game=game, starts=1, seed=4, limits=FAST)
    with pytest.raises(GameFailure) as here:
        local.run(workers=1, validate=False)
    address, certs = dask_cluster
    remote = Tournament(tmp_path / "remote.sqlite", agents, game=game, starts=1, seed=4, limits=FAST)
    with pytest.raises(GameFailure) as there:
        remote.run(scheduler=address, tls=certs, validate=False)
    assert "ZeroDivisionError" in str(here.value) and "failing.py:Countdown" in str(here.value)
    assert str(there.value) == f"{here.value} (on a worker)"
    assert local.records() == remote.records() == []
