"""Attacks on the class's Dask cluster from a lab PC that holds the worker's key (real TLS on loopback).

Each protection is shown holding and, switched off, failing, so that no test passes by accident:

- a rigged worker whose results, task types, exceptions and warnings unpickle into code (Dask's
  own wire format carries them): run from the teacher's side, nothing of it runs there and the run
  stops with nothing stored; read with Dask's default client, the payload runs in the reader's
  process and the record it yields is the genuine one; with `deserializers=["msgpack"]` alone, the
  type, exception and warning still run;
- a pickle sent to the scheduler with the worker's key: the scheduler closes the connection
  unread; a scheduler without the plain reader runs it;
- a rogue scheduler started with the worker's key: an honest worker serves it no task, with either
  of its two checks (the scheduler's role, plain reading) alone; with both off, the task runs.

A canary file named after the process that ran the payload says where code ran. The decoder's
own cases (fast tier) use Dask's encoder on the payloads, read by the plain decoder and by Dask's.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from gamekit.tournament.runner import Tournament
from gamekit.tournament.sandbox import Limits

pytest.importorskip("dask.distributed")
pytest.importorskip("cryptography")

sys.path.insert(0, str(Path(__file__).parent))
from test_tournament_cluster import _env, free_port

AGENTS = Path(__file__).parent / "tournament_agents"
FAST = Limits(move_seconds=0.3, bank_seconds=0.0, startup_seconds=5.0, memory_mb=64, output_kb=64)

#: What the student's own preload does to a lab PC's worker: results, task types and exceptions
#: that run code when unpickled and then yield the genuine value.
RIGGED = """
import os
import pickle

CANARY = os.environ["GAMEKIT_CANARY"]


def ran(what):
    return f"open({CANARY!r} + '/{what}-' + str(__import__('os').getpid()), 'w').close()"


class Text:
    def __init__(self, text):
        self.text = text

    def __reduce__(self):
        return (eval, (f"({ran('result')}, {self.text!r})[1]",))


class Type:
    def __reduce__(self):
        return (eval, (f"({ran('type')}, str)[1]",))


class Warn:
    def __reduce__(self):
        return (eval, (f"({ran('warn')}, 'a warning')[1]",))


class Boom(Exception):
    def __reduce__(self):
        return (eval, (f"({ran('exception')}, ValueError('boom'))[1]",))


def dask_setup(worker):
    from gamekit.course import gradecluster
    from gamekit.tournament import cluster

    play = cluster.play_game_json

    def play_rigged(spec):
        warning = {"message": pickle.dumps(Warn()), "category": pickle.dumps(UserWarning)}
        worker.log_event("warn", warning)  # a client subscribes to "warn" and unpickles both
        return Text(play(spec))

    cluster.play_game_json = play_rigged

    def sandbox_run_json(*args, **kwargs):
        raise Boom()

    gradecluster.sandbox_run_json = sandbox_run_json
    get_data = worker.handlers["get_data"]

    async def any_serialiser(comm, keys=(), who=None, serializers=None):
        return await get_data(comm, keys=keys, who=who, serializers=None)  # whatever the reader asked for

    worker.handlers["get_data"] = any_serialiser
    send = worker.batched_send

    def rigged(msg):
        if msg.get("op") == "task-finished":
            msg = {**msg, "type": pickle.dumps(Type())}
        send(msg)

    worker.batched_send = rigged
"""


class Payload:
    """Pickled, it is code that leaves the canary `result-PID` in `folder` when it is unpickled."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def __reduce__(self):
        return (eval, (f"open({str(self.folder)!r} + '/result-' + str(__import__('os').getpid()), 'w').close()",))


def _start(args: list[str], log: Path, canary: Path, cwd: Path) -> subprocess.Popen:
    env = {**_env(), "GAMEKIT_CANARY": str(canary)}
    return subprocess.Popen(args, cwd=cwd, env=env, stdout=log.open("w"), stderr=subprocess.STDOUT,
                            start_new_session=True)  # fmt: skip


def _scheduler(port: int, tls: list[str], log: Path, canary: Path) -> subprocess.Popen:
    return _start([sys.executable, "-m", "distributed.cli.dask_scheduler", "--protocol", "tls", "--host",
                   "127.0.0.1", "--port", str(port), "--no-dashboard", *tls], log, canary, log.parent)  # fmt: skip


def _worker(address: str, tls: list[str], log: Path, canary: Path, name: str, nanny: bool = False) -> subprocess.Popen:
    return _start([sys.executable, "-m", "distributed.cli.dask_worker", address, "--nthreads", "1",
                   "--nanny" if nanny else "--no-nanny", "--no-dashboard", *tls,
                   "--local-directory", str(log.parent / name),
                   "--listen-address", f"tls://127.0.0.1:{free_port()}"], log, canary, log.parent)  # fmt: skip


def _stop(procs: list[subprocess.Popen]) -> None:
    """The workers first, each while the scheduler still answers (a worker whose scheduler is gone
    retries for 10 s before it ends), then the scheduler."""
    for p in reversed(procs):
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGTERM)
        try:
            p.wait(10)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()


def _files(certs: Path, role: str) -> list[str]:
    return ["--tls-ca-file", str(certs / "ca.pem"), "--tls-cert", str(certs / f"{role}.pem"),
            "--tls-key", str(certs / f"{role}-key.pem")]  # fmt: skip


def _ran(canary: Path, pid: int) -> list[str]:
    """The payloads that ran in the process `pid`."""
    return sorted(p.name.rsplit("-", 1)[0] for p in canary.iterdir() if p.name.endswith(f"-{pid}"))


def _wait_ran(canary: Path, pid: int, expected: list[str], seconds: float = 10) -> list[str]:
    """The payloads that ran in `pid`, once they are `expected` or after `seconds` (events come late)."""
    deadline = time.monotonic() + seconds
    while _ran(canary, pid) != expected and time.monotonic() < deadline:
        time.sleep(0.1)
    return _ran(canary, pid)


def _wait_for(log: Path, text: str, proc: subprocess.Popen, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while text not in log.read_text():
        assert proc.poll() is None and time.monotonic() < deadline, f"{text!r} never in {log.name}:\n{log.read_text()}"
        time.sleep(0.2)


@pytest.fixture(scope="module")
def rigged_cluster(tmp_path_factory):
    """The teacher's scheduler (as `certs` says to start it) and one rigged worker: a lab PC's worker
    key, the course's preloads, and the student's own preload. Yields a namespace of what is needed."""
    from dask.distributed import Client

    from gamekit.tournament.cluster import make_certificates, security, tls_arguments

    folder = tmp_path_factory.mktemp("rigged")
    certs, canary = folder / "certs", folder / "canary"
    canary.mkdir()
    make_certificates(certs)
    (folder / "rigged.py").write_text(RIGGED)
    port = free_port()
    address = f"tls://127.0.0.1:{port}"
    procs = [_scheduler(port, tls_arguments(certs, "scheduler"), folder / "scheduler.log", canary)]
    worker_tls = [*tls_arguments(certs, "worker"), "--preload", str(folder / "rigged.py")]
    procs.append(_worker(address, worker_tls, folder / "worker.log", canary, "w"))
    try:
        with Client(address, security=security(certs, "client"), timeout=60) as client:
            client.wait_for_workers(1, timeout=60)
        yield SimpleNamespace(address=address, certs=certs, canary=canary, scheduler=procs[0], folder=folder)
    finally:
        _stop(procs)


@pytest.mark.slow  # starts a TLS scheduler and workers
def test_a_rigged_workers_results_run_nothing_on_the_teachers_side(rigged_cluster, tmp_path):
    from dask.distributed import Client

    from gamekit.tournament.cluster import parse_record, play_game_json, security

    c = rigged_cluster
    agents = [AGENTS / "first_free.py", AGENTS / "random_mover.py"]
    t = Tournament(tmp_path / "t.sqlite", agents, game="nim", starts=1, seed=2, limits=FAST)
    with pytest.raises(ValueError, match="serialised with pickle, which runs code when read; it was refused unread"):
        t.run(scheduler=c.address, tls=c.certs, validate=False)
    assert t.records() == []
    time.sleep(1)  # the warning event comes after the result: it would have run by now
    assert _ran(c.canary, os.getpid()) == [] and _ran(c.canary, c.scheduler.pid) == []
    # switched off: the same game read with Dask's default client runs the payload here, and the
    # record it yields is the genuine one, which the record check accepts
    spec = t.remaining()[0].as_dict()
    with Client(c.address, security=security(c.certs, "client"), timeout=60) as client:
        text = client.submit(play_game_json, spec, pure=False).result(timeout=120)
        assert _wait_ran(c.canary, os.getpid(), ["result", "type", "warn"]) == ["result", "type", "warn"]
    assert parse_record(text, spec)["id"] == spec["id"]
    assert _ran(c.canary, c.scheduler.pid) == []
    for p in c.canary.iterdir():
        p.unlink()


@pytest.mark.slow  # starts a TLS scheduler and workers
def test_a_rigged_workers_exception_runs_nothing_when_grading_on_the_cluster(rigged_cluster, tmp_path):
    import nbformat
    from dask.distributed import Client

    from gamekit.course import grade, gradecluster
    from gamekit.course.runresult import SandboxRun
    from gamekit.tournament.cluster import security

    c = rigged_cluster
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("answer = 1")])
    sub, grader = SimpleNamespace(student="ada"), SimpleNamespace(spec={"questions": []}, name="hw")
    [(_, run, _)] = gradecluster.run_on_cluster([(sub, grader)], 10, False, c.address, c.certs, None,
                                                lambda s: (nb, SandboxRun()), grade.run_in_sandbox)  # fmt: skip
    assert run.error == "the worker that ran this notebook failed: NotPlainData"
    assert _ran(c.canary, os.getpid()) == [] and _ran(c.canary, c.scheduler.pid) == []
    # switched off: Dask's default client unpickles the worker's exception, and its payload runs here
    with Client(c.address, security=security(c.certs, "client"), timeout=60) as client:
        future = client.submit(gradecluster.sandbox_run_json, grade.run_in_sandbox, nbformat.writes(nb),
                               grader.spec, 10, False, None, pure=False)  # fmt: skip
        with pytest.raises(ValueError, match="boom"):
            future.result(timeout=60)
    assert _ran(c.canary, os.getpid()) == ["exception"]
    for p in c.canary.iterdir():
        p.unlink()


def _send_as_worker(address: str, certs: Path, msg: dict):
    """One message to `address` over a raw Dask connection with the worker's key: the reply, or the
    exception that ended the connection."""
    from distributed.comm import connect

    from gamekit.tournament.cluster import security

    async def go():
        comm = await connect(address, timeout=10, **security(certs, "worker").get_connection_args("client"))
        try:
            await comm.write(msg)
            return await asyncio.wait_for(comm.read(), 20)
        finally:
            comm.abort()

    try:
        return asyncio.run(go())
    except Exception as exc:
        return exc


@pytest.mark.slow  # starts a TLS scheduler and workers
def test_a_pickle_sent_to_the_scheduler_with_a_workers_key_is_refused_unread(rigged_cluster, tmp_path):
    from distributed.comm.core import CommClosedError
    from distributed.protocol.serialize import ToPickle

    c = rigged_cluster
    msg = {"op": "identity", "x": ToPickle(Payload(c.canary))}  # a worker may ask for identity
    assert isinstance(_send_as_worker(c.address, c.certs, msg), CommClosedError)
    assert isinstance(_send_as_worker(c.address, c.certs, {"op": "identity"}), dict)  # plain data is answered
    assert _ran(c.canary, c.scheduler.pid) == []
    assert "a pickled object from a worker" in (c.folder / "scheduler.log").read_text()
    # switched off: a scheduler with the role checks but Dask's reader unpickles it
    port = free_port()
    bare = ["--preload", "from gamekit.tournament.cluster import check_requests as dask_setup"]
    log = tmp_path / "bare.log"
    proc = _scheduler(port, [*_files(c.certs, "scheduler"), *bare], log, c.canary)
    try:
        _wait_for(log, "Scheduler at:", proc)
        _send_as_worker(f"tls://127.0.0.1:{port}", c.certs, msg)
        assert _ran(c.canary, proc.pid) == ["result"]
    finally:
        _stop([proc])


@pytest.mark.slow  # starts a TLS scheduler and workers
def test_an_honest_worker_serves_no_rogue_scheduler(tmp_path):
    """A scheduler started with a lab PC's worker key (which passes TLS: the worker's certificate
    serves TLS, for the scheduler fetches results from workers) submits a task that leaves a canary.
    The course's worker (as `certs` prints it: with its nanny) refuses it, and so does a worker with
    the role check alone or plain reading alone; with both off (Dask's worker, keeping only the
    request checks) the task runs."""
    from dask.distributed import Client

    from gamekit.tournament.cluster import make_certificates, security, tls_arguments

    certs, canary = tmp_path / "certs", tmp_path / "canary"
    canary.mkdir()
    make_certificates(certs)
    port = free_port()
    rogue_address = f"tls://127.0.0.1:{port}"
    rogue = _scheduler(port, _files(certs, "worker"), tmp_path / "rogue.log", canary)
    preload = "from gamekit.tournament.cluster import check_requests as dask_setup\n"
    variants = {
        "course": (tls_arguments(certs, "worker"), "proved the certificate of a worker, not a scheduler's"),
        "role check only": (["--preload", preload + "from gamekit.tournament.cluster import guard_scheduler_role\n"
                             "_setup = dask_setup\ndef dask_setup(w):\n    _setup(w)\n    guard_scheduler_role(w)\n"],
                            "proved the certificate of a worker, not a scheduler's"),
        "plain reading only": (["--preload", preload + "from gamekit.tournament.cluster import guard_reading\n"
                                "guard_reading('worker')\n"], "a pickled object from a worker"),
        "both off": (["--preload", preload], None),
    }  # fmt: skip
    try:
        _wait_for(tmp_path / "rogue.log", "Scheduler at:", rogue)
        with Client(rogue_address, security=security(certs, "worker"), timeout=60) as client:
            for k, (args, refusal) in enumerate(variants.values()):
                log = tmp_path / f"worker{k}.log"
                tls = [*(args if args[0] != "--preload" else [*_files(certs, "worker"), *args])]
                worker = _worker(rogue_address, tls, log, canary, f"w{k}", nanny=k == 0)
                future = client.submit(Path.touch, canary / f"task-{k}", pure=False)
                try:
                    if refusal is None:
                        future.result(timeout=60)
                        assert (canary / f"task-{k}").exists()
                    else:
                        _wait_for(log, refusal, worker)
                        time.sleep(1)  # a task it ran would have left its canary by now
                        assert not (canary / f"task-{k}").exists(), log.read_text()
                finally:
                    client.cancel(future)
                    _stop([worker])
    finally:
        _stop([rogue])
    assert [p.name for p in canary.iterdir()] == ["task-3"]


def _canaries(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def test_the_plain_decoder_reads_msgpack_and_never_a_pickle(tmp_path):
    from distributed.protocol import dumps, loads
    from distributed.protocol.serialize import Serialize, Serialized, ToPickle

    from gamekit.tournament import cluster

    record = '{"id": 1, "moves": [3, 1]}'
    plain = dumps({"op": "gather", "data": {"k": Serialize(record)}}, serializers=["msgpack"])
    assert cluster._plain_loads(plain, deserialize=True) == {"op": "gather", "data": {"k": record}}
    pickled = dumps({"op": "gather", "data": {"k": Serialize(Payload(tmp_path))}}, serializers=["pickle"])
    refused = cluster._plain_loads(pickled, deserialize=True)["data"]["k"]
    assert isinstance(refused, cluster.NotPlainData) and "serialised with pickle" in str(refused)
    kept = cluster._plain_loads(pickled, deserialize=False)["data"]["k"]  # the scheduler forwards it unread
    assert isinstance(kept, Serialized) and kept.header["serializer"] == "pickle"
    whole = dumps({"op": "identity", "x": ToPickle(Payload(tmp_path))})
    with pytest.raises(cluster._Refused, match="a pickled object"):
        cluster._plain_loads(whole, deserialize=True)
    with pytest.raises(cluster._Refused):
        cluster._plain_loads(whole, deserialize=False)
    a_list = dumps({"data": Serialize([record, Payload(tmp_path)])}, serializers=["pickle"])
    assert isinstance(cluster._plain_loads(a_list, deserialize=True)["data"], cluster.NotPlainData)
    assert _canaries(tmp_path) == []
    # switched off: Dask's own decoder runs each payload
    loads(pickled)
    assert _canaries(tmp_path) == [f"result-{os.getpid()}"]
    (tmp_path / f"result-{os.getpid()}").unlink()
    loads(whole, deserialize=False)  # even where it is told not to deserialise, as the scheduler reads
    assert _canaries(tmp_path) == [f"result-{os.getpid()}"]


def test_the_plain_decoder_refuses_malformed_parts():
    import msgpack

    from gamekit.tournament import cluster

    for part in ({"__Serialized__": 5}, {"__Serialized__": True, "data": 1}, {"__Serialized__": "x"}):
        with pytest.raises(cluster._Refused, match="malformed"):
            cluster._plain_loads([msgpack.dumps({"op": "x", "d": part})], deserialize=True)
    header = msgpack.dumps({"serializer": "pickle", "num-sub-frames": 0, "x": {"__Pickled__": 1}})
    with pytest.raises(cluster._Refused, match="header"):
        cluster._plain_loads([msgpack.dumps({"d": {"__Serialized__": 1}}), header], deserialize=True)
    assert cluster._families({"is-collection": True, "sub-headers": [{"serializer": "msgpack"}, 3]}) == {"msgpack", "?"}
    lying = msgpack.dumps({"serializer": "msgpack", "num-sub-frames": -5})  # frames that do not add up
    for frames in ([b"\xc1garbage"], [msgpack.dumps({"d": {"__Serialized__": 1}}), lying]):
        with pytest.raises(cluster._Refused, match="not plain data"):
            cluster._plain_loads(frames, deserialize=True)
    deep: dict = {"serializer": "msgpack"}
    for _ in range(5000):  # deeper than Python's recursion limit: read by a loop, and refused
        deep = {"is-collection": True, "sub-headers": [deep]}
    assert cluster._families(deep) == {"?"}


def test_a_record_refused_unread_is_not_a_record():
    from gamekit.tournament.cluster import NotPlainData, parse_record

    spec = {"id": 7, "game": "nim", "agents": ["a", "b"]}
    with pytest.raises(ValueError, match="game 7: refused"):
        parse_record(NotPlainData("refused"), spec)


@pytest.mark.slow  # uses the rigged worker
def test_dasks_msgpack_deserialisers_alone_still_run_a_workers_type_and_exception(rigged_cluster, tmp_path):
    """Why `connect` does more than `Client(deserializers=["msgpack"])`: that refuses a pickled result,
    but the client still unpickles a finished task's type, an erred task's exception and a warning."""
    import nbformat
    from dask.distributed import Client

    from gamekit.course import grade, gradecluster
    from gamekit.tournament.cluster import play_game_json, security

    c = rigged_cluster
    t = Tournament(tmp_path / "t.sqlite", [AGENTS / "first_free.py", AGENTS / "random_mover.py"], game="nim")
    with pytest.raises(ValueError):
        t.run(scheduler=c.address, tls=c.certs, validate=False)  # the course's client: nothing runs
    assert _ran(c.canary, os.getpid()) == []
    nb = nbformat.writes(nbformat.v4.new_notebook())
    with Client(c.address, security=security(c.certs, "client"), deserializers=["msgpack"], timeout=60) as client:
        with pytest.raises(TypeError, match="only able to deserialize data with"):
            client.submit(play_game_json, t.remaining()[0].as_dict(), pure=False).result(timeout=120)
        job = client.submit(gradecluster.sandbox_run_json, grade.run_in_sandbox, nb, {"questions": []}, 10, False,
                            None, pure=False)  # fmt: skip
        with pytest.raises(ValueError, match="boom"):
            job.result(timeout=60)
        assert _wait_ran(c.canary, os.getpid(), ["exception", "type", "warn"]) == ["exception", "type", "warn"]
    for p in c.canary.iterdir():
        p.unlink()


def test_a_failure_a_worker_reports_is_raised_again_from_plain_text():
    from gamekit.sandbox import SandboxUnavailable
    from gamekit.tournament import GameFailure
    from gamekit.tournament.cluster import FAILURE_CHARS, parse_record

    spec = {"id": 7, "game": "nim", "agents": ["a", "b"]}
    failure = json.dumps({"failure": "GameFailure", "message": "the game x.py:X failed\x1b[2J: " + "y" * 9000})
    with pytest.raises(GameFailure) as raised:
        parse_record(failure, spec)
    message = str(raised.value)
    assert message.startswith("the game x.py:X failed?[2J: y") and message.endswith(" (on a worker)")
    assert len(message) == FAILURE_CHARS + len(" (on a worker)")
    with pytest.raises(SandboxUnavailable, match="no bwrap"):
        parse_record(json.dumps({"failure": "SandboxUnavailable", "message": "no bwrap"}), spec)
    for forged in ({"failure": "SystemExit", "message": "x"}, {"failure": "GameFailure", "message": 3}):
        with pytest.raises(ValueError, match="not one a game can have"):
            parse_record(json.dumps(forged), spec)
    with pytest.raises(ValueError, match="not the one of game 7"):
        parse_record(json.dumps({"failure": "GameFailure", "message": "x", "id": 7}), spec)


def test_a_workers_record_with_an_outcome_no_game_can_have_is_refused():
    """A record's reason is one of the outcomes (`Reason`) or none, its forfeit a seat or none: a rogue
    worker's formula, made-up word or third seat is refused, never stored or shown."""
    from gamekit.sandbox.outcomes import Reason
    from gamekit.tournament.cluster import parse_record

    spec = {"id": 7, "game": "nim", "agents": ["a", "b"]}
    record = {"id": 7, "game": "nim", "agents": ["a", "b"], "winner": 1, "forfeit": 0, "reason": "timeout"}
    assert parse_record(json.dumps(record), spec)["reason"] == Reason.TIMEOUT
    for forged in ({"reason": '=HYPERLINK("x")'}, {"reason": "lost"}, {"forfeit": 2}, {"reason": 3}):
        with pytest.raises(ValueError, match="outcome is not one a game can have"):
            parse_record(json.dumps(record | forged), spec)
