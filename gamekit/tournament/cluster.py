"""A tournament on several machines: Dask with TLS certificates, and records that travel as JSON.

Dask's scheduler runs whatever a connected client sends it, on every worker. Without security
anyone who reaches its port (an agent, if agents could reach the network; a student on the same
Wi-Fi) runs code on the workers and can rig every result. So a course tournament uses Dask only
with its TLS security: every scheduler, worker and client proves itself with a certificate signed
by the class's own certificate authority, which only the teacher holds.

    python -m gamekit.tournament certs CERTS/ [--host NAME_OR_IP ...]

writes that authority and one certificate per role (`scheduler`, `worker`, `client`), and prints
the commands that start a scheduler and workers with them.

A certificate is good for its role only. Every worker machine holds the worker's key (a lab PC
a student can sit at), so that key must not be a client's: Dask itself lets any certificate of
the authority do anything. The role is the certificate's common name ("gamekit worker"), signed
by the authority, and its extended key usage (a client's certificate cannot serve TLS). The
scheduler and every worker and nanny load this module (`--preload`, see `tls_arguments`), whose
`dask_setup` checks each incoming connection's certificate and each request on it against
`ALLOWED`: a worker's key may register as a worker and report, never submit work or run code; a
client's key may do what the teacher does, never register as a worker; only the scheduler may
give a worker orders. A request outside its role closes the connection. The teacher's side connects
only through `connect`, which refuses a server whose certificate is not the scheduler's. Games go
to the workers as plain dictionaries and come back as JSON text, which the referee's machine parses with size and depth
limits (`gamekit.jsonio`) and checks against the game it asked for; the agents themselves run on
the workers inside the same bubblewrap sandbox as locally, so they reach no network (no scheduler).

Nothing a worker sends is unpickled on the teacher's side. Dask's wire format carries pickles
(`__Pickled__` parts are unpickled whatever a reader's deserialisers say, `__Serialized__` parts by
the reader's list, a finished task's type, an erred task's exception, a `warn` event as pickled bytes), so a
worker's key could run code in the scheduler and in the teacher's process. `guard_reading` makes
every TLS connection of a process read plain data only (msgpack; a pickle closes the connection,
pickled data becomes a `NotPlainData` that stands in for it, unread) unless the peer's certificate
is of a role this process takes orders from: a scheduler trusts only the teacher's client, a worker
or nanny only the scheduler, and the teacher's client (`connect`) trusts nobody: it also drops a
task's pickled type, exception and events (`_plain_client`). Workers check whom they serve: a
worker or nanny connects to its scheduler only if that end proves the scheduler's role
(`guard_scheduler_role`), so a scheduler started with a lab PC's worker key gets no worker. The
worker's certificate still serves TLS (a worker listens: the scheduler fetches results from it),
which is why the role is checked by name after the handshake, on both sides, and not by key usage.
"""

from __future__ import annotations

import contextlib
import contextvars
import datetime
import ipaddress
import json
import logging
import os
import shlex
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from ..jsonio import JSONLoadError, parse_json
from ..sandbox.outcomes import REASONS

__all__ = [
    "ALLOWED",
    "PLAIN",
    "ROLES",
    "TRUSTS",
    "NotPlainData",
    "check_requests",
    "connect",
    "dask_setup",
    "guard_reading",
    "guard_scheduler_role",
    "make_certificates",
    "peer_role",
    "parse_record",
    "play_game_json",
    "security",
    "start_commands",
    "tls_arguments",
]

ROLES = ("scheduler", "worker", "client")
#: The requests each role may send to a scheduler and to a worker (or nanny); "*" is any request.
#: A worker asks the scheduler to register, beats its heart, looks up and reports; workers and
#: clients ask a worker only for results (`get_data`). Found by logging a real run (tests check it).
ALLOWED: dict[str, dict[str, frozenset[str]]] = {
    "scheduler": {
        "client": frozenset({"*"}),
        "worker": frozenset(
            {
                "identity",
                "register_nanny",
                "register-worker",
                "heartbeat_worker",
                "unregister",
                "who_has",
                "log_event",
                "close",
            }
        ),
        "scheduler": frozenset(),
    },
    "worker": {
        "scheduler": frozenset({"*"}),
        "worker": frozenset({"identity", "get_data", "close"}),
        "client": frozenset({"identity", "get_data", "close"}),
    },
}
#: Requests no client may send to a scheduler: what makes a process a worker.
NOT_FOR_CLIENTS = frozenset({"register-worker", "register_nanny"})
#: Largest game record accepted from a worker (bytes of JSON).
RECORD_BYTES = 1_000_000
#: Longest failure message kept from a worker (characters; control characters are shown as "?").
FAILURE_CHARS = 4000
#: The only serialisation family read from a peer this process does not take orders from.
PLAIN = ("msgpack",)
#: The roles whose connections may carry pickles (code) to a process of each role; all others send
#: plain data only. The scheduler is given work by the teacher's client; a worker by the scheduler.
TRUSTS: dict[str, frozenset[str]] = {
    "scheduler": frozenset({"client"}),
    "worker": frozenset({"scheduler"}),
    "client": frozenset(),
}


def _name(common: str) -> Any:
    from cryptography import x509
    from cryptography.x509.oid import NameOID

    return x509.Name(
        [
            x509.NameAttribute(NameOID.ORGANIZATION_NAME, "gamekit class"),
            x509.NameAttribute(NameOID.COMMON_NAME, common),
        ]
    )


def make_certificates(
    folder: str | Path, hosts: Sequence[str] = ("127.0.0.1", "localhost"), days: int = 365
) -> dict[str, Path]:
    """Write a certificate authority and a certificate and key per role into `folder`.

    Keys are written readable by their owner only. `ca-key.pem` signs the others: keep it with
    the teacher, never on a worker. Returns {name: path}.
    """
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    now = datetime.datetime.now(datetime.timezone.utc)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = _name("gamekit class CA")
    ca = (
        x509.CertificateBuilder()
        .subject_name(ca_name)
        .issuer_name(ca_name)
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=days))
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .sign(ca_key, hashes.SHA256())
    )
    alt: list[x509.GeneralName] = []
    for host in hosts:
        try:
            alt.append(x509.IPAddress(ipaddress.ip_address(host)))
        except ValueError:
            alt.append(x509.DNSName(host))
    written: dict[str, Path] = {}

    def write(name: str, data: bytes, private: bool) -> None:
        path = folder / name
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600 if private else 0o644)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        written[name] = path

    pem = serialization.Encoding.PEM
    write("ca.pem", ca.public_bytes(pem), private=False)
    key_format = (serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    write("ca-key.pem", ca_key.private_bytes(pem, *key_format), private=True)
    both = [ExtendedKeyUsageOID.SERVER_AUTH, ExtendedKeyUsageOID.CLIENT_AUTH]
    usage = {"scheduler": both, "worker": both, "client": [ExtendedKeyUsageOID.CLIENT_AUTH]}  # a client serves nothing
    for role in ROLES:
        key = ec.generate_private_key(ec.SECP256R1())
        cert = (
            x509.CertificateBuilder()
            .subject_name(_name(f"gamekit {role}"))
            .issuer_name(ca_name)
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=days))
            .add_extension(x509.SubjectAlternativeName(alt), critical=False)
            .add_extension(x509.ExtendedKeyUsage(usage[role]), critical=True)
            .sign(ca_key, hashes.SHA256())
        )
        write(f"{role}.pem", cert.public_bytes(pem), private=False)
        write(f"{role}-key.pem", key.private_bytes(pem, *key_format), private=True)
    return written


def _files(folder: str | Path, role: str) -> tuple[Path, Path, Path]:
    folder = Path(folder)
    files = (folder / "ca.pem", folder / f"{role}.pem", folder / f"{role}-key.pem")
    missing = [str(p) for p in files if not p.is_file()]
    if missing:
        raise ValueError(
            f"missing certificate files {missing}: make them with `python -m gamekit.tournament certs {folder}`"
        )
    return files


def security(folder: str | Path, role: str = "client") -> Any:
    """Dask's `Security` for `role` from the files of `make_certificates` (encryption required)."""
    from distributed import Security

    ca, cert, key = _files(folder, role)
    return Security(tls_ca_file=str(ca), tls_client_cert=str(cert), tls_client_key=str(key), require_encryption=True)


def tls_arguments(folder: str | Path, role: str) -> list[str]:
    """The `dask scheduler` / `dask worker` options that use the certificates of `role` in `folder`
    and check every connection's role (this module as a preload, in the worker's nanny too)."""
    if role not in ("scheduler", "worker"):
        raise ValueError(f"only a scheduler or a worker is started with dask's command; got role {role!r}")
    ca, cert, key = _files(folder, role)
    preload = ["--preload", _preload(role)] + (["--preload-nanny", _preload(role)] if role == "worker" else [])
    return ["--tls-ca-file", str(ca), "--tls-cert", str(cert), "--tls-key", str(key), *preload]


def _preload(role: str) -> str:
    """A preload given as text: Dask runs it when the server is made, before it listens or connects,
    so the process reads plain data from its first connection on (the module's `dask_setup` comes later)."""
    return f'from {__name__} import dask_setup, guard_reading; guard_reading("{role}")'


@contextlib.contextmanager
def connect(scheduler: str, folder: str | Path) -> Iterator[Any]:
    """A Dask `Client` for `scheduler` with the client's certificate in `folder`, refused unless the
    other end proves the scheduler's role: any certificate of the authority passes TLS, so a lab
    PC's worker key could otherwise pose as the scheduler (given a place on the network) and send
    the teacher rigged records. All it reads is plain data (`guard_reading`, `_plain_client`): the
    results and errors it gets come from workers, through the scheduler."""
    guard_reading(None)  # installs the plain reader; this process's other Dask connections keep Dask's ways
    with _plain_client()(
        scheduler, security=_plain_security(folder), deserializers=list(PLAIN), direct_to_workers=False, timeout=60
    ) as client:
        role = peer_role(getattr(getattr(client, "scheduler_comm", None), "comm", None))
        if role != "scheduler":
            raise ConnectionRefusedError(
                f"the server at {scheduler} proved the certificate of a {role or 'stranger'}, not the "
                "scheduler's: nothing was sent to it"
            )
        yield client


def peer_role(comm: Any) -> str | None:
    """The role named by the verified certificate of the other end of a Dask connection, or None."""
    cert = (getattr(comm, "extra_info", None) or {}).get("peercert") or {}
    names = [value for rdn in cert.get("subject", ()) for key, value in rdn if key == "commonName"]
    roles = [role for role in ROLES if names == [f"gamekit {role}"]]
    return roles[0] if roles else None


class NotPlainData(Exception):
    """Stands in for what a peer sent in a form that runs code when it is read (a pickle): never read."""


class _Refused(Exception):
    """A message that is not plain data (a pickle in it, or garbage) where only plain data may come."""


#: This process's role once `guard_reading` ran for a server (None: only marked connections read plain).
_PROCESS: dict[str, str | None] = {"role": None}
#: Set while a plain connection's message is decoded (the reader and the decoder run in one task).
_READING_PLAIN: contextvars.ContextVar[bool] = contextvars.ContextVar("gamekit_reading_plain", default=False)
#: host:port of the schedulers this worker or nanny was told to serve.
_SCHEDULERS: set[str] = set()


def _families(header: Any, max_depth: int = 32) -> set[str]:
    """The serialisation families a Dask header (possibly of nested collections) names; "?" for a
    malformed one or one nested deeper than `max_depth` (a loop, never a recursion a sender controls)."""
    found: set[str] = set()
    todo = [(header, 0)]
    while todo:
        item, depth = todo.pop()
        if type(item) is not dict or depth > max_depth:
            found.add("?")
        elif item.get("is-collection"):
            subs = item.get("sub-headers")
            if not isinstance(subs, (list, tuple)) or not subs:
                found.add("?")
            else:
                todo.extend((sub, depth + 1) for sub in subs)
        else:
            name = item.get("serializer")
            found.add(name if type(name) is str else "?")
    return found


def _plain_loads(frames: Sequence[Any], deserialize: bool) -> Any:
    """Dask's `protocol.loads` for data from a peer this process takes no orders from: a pickled part
    (`__Pickled__`) refuses the message; a serialised part is kept unread (`deserialize` off, as the
    scheduler reads) or decoded only if it is msgpack, else replaced by a `NotPlainData`."""
    import msgpack
    from distributed.protocol.compression import decompress
    from distributed.protocol.serialize import Serialized, merge_and_deserialize, msgpack_decode_default
    from distributed.protocol.utils import msgpack_opts

    def header_hook(obj: dict[Any, Any]) -> Any:
        if "__Pickled__" in obj or "__Serialized__" in obj:
            raise _Refused("a pickle inside a header")
        return obj

    def part(header: Any, sub_frames: list[Any]) -> Any:
        if not deserialize:
            return Serialized(header, sub_frames)
        families = _families(header)
        if not families <= set(PLAIN):
            return NotPlainData(
                f"the worker sent data serialised with {', '.join(sorted(families))}, which runs code when "
                f"read; it was refused unread (only {', '.join(PLAIN)} is read from a worker)"
            )
        if "compression" in header:
            sub_frames = decompress(header, sub_frames)
        return merge_and_deserialize(header, sub_frames, deserializers=list(PLAIN))

    def hook(obj: dict[Any, Any]) -> Any:
        if "__Pickled__" in obj:
            raise _Refused("a pickled object")
        offset = obj.get("__Serialized__", 0)
        if offset is True:  # the inline form: {"__Serialized__": True, "data": (header, frames)}
            data = obj.get("data")
            if not isinstance(data, (list, tuple)) or len(data) != 2:
                raise _Refused("a malformed serialised part")
            return part(data[0], list(data[1]))
        if type(offset) is int and 0 < offset < len(frames):
            header = msgpack.loads(frames[offset], object_hook=header_hook, use_list=False, **msgpack_opts)
            if type(header) is not dict or type(header.get("num-sub-frames")) is not int:
                raise _Refused("a malformed serialised part")
            return part(header, list(frames[offset + 1 : offset + 1 + header["num-sub-frames"]]))
        if "__Serialized__" in obj:
            raise _Refused("a malformed serialised part")
        return msgpack_decode_default(obj)

    try:
        return msgpack.loads(frames[0], object_hook=hook, use_list=False, **msgpack_opts)
    except _Refused:
        raise
    except Exception as exc:  # garbage, or frames that do not add up: refused like a pickle, never half-read
        raise _Refused(f"a message that is not plain data ({type(exc).__name__})") from None


def _reads_plain(comm: Any) -> bool:
    """Whether `comm` may carry only plain data: its peer is not of a role this process takes orders
    from (decided once per connection, from the verified certificate)."""
    known = getattr(comm, "_gamekit_plain", None)
    if known is None:
        socket = getattr(getattr(comm, "stream", None), "socket", None)
        trusts = getattr(getattr(socket, "context", None), "gamekit_trusts", None)  # the client's own mark
        if trusts is None and _PROCESS["role"] is not None:
            trusts = TRUSTS[str(_PROCESS["role"])]
        known = trusts is not None and peer_role(comm) not in trusts
        comm._gamekit_plain = known
    return bool(known)


def guard_reading(role: str | None) -> None:
    """Make every TLS connection of this process read plain data only (see `_plain_loads`), unless its
    peer proves a role in TRUSTS[role]. With None (the teacher's client) only connections made with
    `_plain_security` are guarded: Dask's other uses in the same process are left as they are. A
    refused message closes its connection."""
    from distributed.comm import tcp
    from distributed.comm.core import CommClosedError

    if role is not None:
        if role not in TRUSTS:
            raise ValueError(f"unknown role {role!r}: one of {sorted(TRUSTS)}")
        if _PROCESS["role"] not in (None, role):
            raise ValueError(f"this process already reads as a {_PROCESS['role']}, not as a {role}")
        _PROCESS["role"] = role
    if getattr(tcp.TLS.read, "gamekit_plain", False):
        return
    read, from_frames = tcp.TLS.read, tcp.from_frames

    async def plain_from_frames(frames: Any, deserialize: bool = True, deserializers: Any = None, **kw: Any) -> Any:
        if _READING_PLAIN.get():
            return _plain_loads(frames, deserialize)
        return await from_frames(frames, deserialize=deserialize, deserializers=deserializers, **kw)

    async def plain_read(self: Any, deserializers: Any = None) -> Any:
        if not _reads_plain(self):
            return await read(self, deserializers)
        token = _READING_PLAIN.set(True)
        try:
            return await read(self, deserializers)
        except _Refused as exc:
            self.abort()
            why = f"{exc} from a {peer_role(self) or 'stranger'} at {self.peer_address}, where only plain data may come"
            logging.getLogger(__name__).warning("refused: %s", why)
            raise CommClosedError(f"refused {why}") from None
        finally:
            _READING_PLAIN.reset(token)

    plain_read.gamekit_plain = True  # type: ignore[attr-defined]
    tcp.from_frames = plain_from_frames  # type: ignore[assignment]
    tcp.TLS.read = plain_read  # type: ignore[method-assign]


def _plain_security(folder: str | Path) -> Any:
    """The client's `Security`, whose connections are marked to read plain data only (nothing is trusted
    to send the teacher code: results and errors come from workers, through the scheduler)."""
    from distributed import Security

    class PlainSecurity(Security):
        def get_connection_args(self, role: str) -> dict[str, Any]:
            args = super().get_connection_args(role)
            args["ssl_context"].gamekit_trusts = TRUSTS["client"]
            return args

    ca, cert, key = _files(folder, "client")
    return PlainSecurity(
        tls_ca_file=str(ca), tls_client_cert=str(cert), tls_client_key=str(key), require_encryption=True
    )


def _plain_client() -> Any:
    """Dask's `Client`, minus what it unpickles from bytes a worker chose, reached through the
    scheduler: a finished task's type (dropped), an erred task's exception and traceback (a
    `NotPlainData` and none), and events (`warn` unpickles its message and category; every event is
    dropped, and the client subscribes to none). Overridden methods, so they hold from the first message."""
    from dask.distributed import Client

    class PlainClient(Client):
        def _handle_key_in_memory(self, key: Any = None, type: Any = None, workers: Any = None) -> Any:
            return super()._handle_key_in_memory(key=key, type=None, workers=workers)

        def _handle_task_erred(self, key: Any = None, exception: Any = None, traceback: Any = None) -> Any:
            if not isinstance(exception, NotPlainData):
                exception = NotPlainData(
                    "the worker's task failed; its exception is not read here (see the worker's log)"
                )
            return super()._handle_task_erred(key=key, exception=exception, traceback=None)

        async def _handle_event(self, topic: Any, event: Any) -> None:
            return None

        def subscribe_topic(self, topic: Any, handler: Any) -> None:
            return None

    return PlainClient


def guard_scheduler_role(server: Any) -> None:
    """A worker's or nanny's connections to its scheduler must prove the scheduler's role, any other
    connection a scheduler's or a worker's: a scheduler started with a lab PC's worker key passes TLS
    but is refused before it can give an order (the connection is closed; the worker keeps trying)."""
    from distributed.comm import tcp
    from distributed.comm.addressing import parse_address
    from distributed.comm.core import FatalCommClosedError

    address = getattr(getattr(server, "scheduler", None), "address", None) or getattr(server, "scheduler_addr", None)
    if isinstance(address, str):
        _SCHEDULERS.add(parse_address(address)[1])
    if getattr(tcp.TLSConnector.connect, "gamekit_plain", False):
        return
    connect_tls = tcp.TLSConnector.connect

    async def connect_checked(self: Any, address: str, deserialize: bool = True, **kwargs: Any) -> Any:
        comm = await connect_tls(self, address, deserialize, **kwargs)
        role = peer_role(comm)
        wanted = ("scheduler",) if address in _SCHEDULERS else ("scheduler", "worker")
        if role not in wanted:
            comm.abort()
            why = f"{address} proved the certificate of a {role or 'stranger'}, not a {' or '.join(wanted)}'s"
            logging.getLogger(__name__).warning("refused to serve: %s", why)
            raise FatalCommClosedError(f"refused to serve {why}")
        return comm

    connect_checked.gamekit_plain = True  # type: ignore[attr-defined]
    tcp.TLSConnector.connect = connect_checked  # type: ignore[method-assign]


def _may(server_kind: str, role: str | None, op: Any) -> bool:
    allowed = ALLOWED[server_kind].get(role or "", frozenset())
    if server_kind == "scheduler" and role == "client" and op in NOT_FOR_CLIENTS:
        return False
    return "*" in allowed or op in allowed


def dask_setup(server: Any) -> None:
    """Dask's preload hook: `server` (a scheduler, worker or nanny) reads plain data from every peer
    it takes no orders from (`guard_reading`), checks every incoming connection against ALLOWED by
    the role of its certificate (a request outside the role closes the connection), and a worker or
    nanny serves only a scheduler that proves the scheduler's role (`guard_scheduler_role`)."""
    from distributed import Scheduler

    kind = "scheduler" if isinstance(server, Scheduler) else "worker"
    guard_reading(kind)
    check_requests(server)
    if kind == "worker":
        guard_scheduler_role(server)


def check_requests(server: Any) -> None:
    """Check every connection to `server` and each request on it against ALLOWED by the role of the
    peer's certificate; a request outside the role closes the connection."""
    from distributed import Scheduler
    from distributed.comm.core import CommClosedError

    kind = "scheduler" if isinstance(server, Scheduler) else "worker"
    handle = server._handle_comm  # Server.handle_comm looks this up for every new connection

    async def checked(comm: Any) -> None:
        role = peer_role(comm)
        if role is None or not ALLOWED[kind].get(role):
            comm.abort()
            return
        read = comm.read

        async def read_in_role(*args: Any, **kwargs: Any) -> Any:
            msg = await read(*args, **kwargs)
            # a request is a dict with "op" (one without is a reply, which no handler dispatches on)
            if isinstance(msg, dict) and "op" in msg and not _may(kind, role, msg["op"]):
                comm.abort()
                why = f"a {role}'s certificate may not ask a {kind} for {str(msg['op'])[:40]!r}"
                logging.getLogger(__name__).warning("refused: %s (from %s)", why, comm.peer_address)
                raise CommClosedError(why)
            return msg

        comm.read = read_in_role
        await handle(comm)

    server._handle_comm = checked


def start_commands(folder: str | Path, host: str = "127.0.0.1", port: int = 8786) -> list[str]:
    """The commands that start a scheduler and a worker with the certificates in `folder` (without
    Dask's dashboards: they are plain HTTP for anyone on the network, with the workers' logs)."""
    scheduler, worker = (shlex.join(tls_arguments(folder, role)) for role in ("scheduler", "worker"))
    return [
        f"dask scheduler --protocol tls --host {host} --port {port} --no-dashboard {scheduler}",
        f"dask worker tls://{host}:{port} --nthreads 1 --no-dashboard {worker}",
    ]


def _failures() -> dict[str, type[Exception]]:
    """The failures a worker reports as plain data, by name: the teacher's side raises them again."""
    from ..sandbox import SandboxUnavailable
    from .games import GameFailure

    return {"GameFailure": GameFailure, "SandboxUnavailable": SandboxUnavailable}


def play_game_json(spec: dict[str, Any]) -> str:
    """What a worker runs: play one game (agents in the sandbox) and return its record as JSON text;
    a student's game that fails, or a worker without the sandbox, as {"failure": name, "message": text}
    (an exception would travel pickled, and the teacher's side reads no pickle)."""
    from .referee import play_game_spec

    try:
        record = play_game_spec(spec)
    except tuple(_failures().values()) as exc:
        return json.dumps({"failure": type(exc).__name__, "message": str(exc)[:FAILURE_CHARS]})
    return json.dumps(record, allow_nan=False)


def parse_record(text: Any, spec: dict[str, Any]) -> dict[str, Any]:
    """A worker's answer for `spec`, checked: bounded JSON of a record of that very game, or a failure
    `play_game_json` reports (raised here again: `GameFailure`, `SandboxUnavailable`, its message
    bounded and printable)."""
    if isinstance(text, NotPlainData):
        raise ValueError(f"game {spec.get('id')}: {text}")
    if type(text) is not str:
        raise ValueError(f"a worker sent a {type(text).__name__} for game {spec.get('id')}, not JSON text")
    try:
        record = parse_json(text, max_bytes=RECORD_BYTES, max_depth=16, source=f"the record of {spec.get('id')}")
    except JSONLoadError as exc:
        raise ValueError(str(exc)) from None
    if type(record) is dict and set(record) == {"failure", "message"}:
        kind, message = record["failure"], record["message"]
        if kind not in _failures() or type(message) is not str:
            raise ValueError(f"a worker sent a failure of game {spec.get('id')} that is not one a game can have")
        shown = "".join(c if c.isprintable() or c == "\n" else "?" for c in message[:FAILURE_CHARS])
        raise _failures()[kind](f"{shown} (on a worker)")
    same = type(record) is dict and all(record.get(k) == spec.get(k) for k in ("id", "game"))
    if not same or record.get("agents") != list(spec.get("agents", ())):
        raise ValueError(f"a worker sent a record that is not the one of game {spec.get('id')}")
    if record.get("reason") not in ("", *REASONS) or record.get("forfeit") not in (None, 0, 1):
        raise ValueError(f"a worker sent a record of game {spec.get('id')} whose outcome is not one a game can have")
    return record
