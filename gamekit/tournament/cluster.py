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
"""

from __future__ import annotations

import contextlib
import datetime
import ipaddress
import json
import logging
import os
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from ..jsonio import JSONLoadError, parse_json

__all__ = [
    "ALLOWED",
    "ROLES",
    "connect",
    "dask_setup",
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
    preload = ["--preload", __name__] + (["--preload-nanny", __name__] if role == "worker" else [])
    return ["--tls-ca-file", str(ca), "--tls-cert", str(cert), "--tls-key", str(key), *preload]


@contextlib.contextmanager
def connect(scheduler: str, folder: str | Path) -> Iterator[Any]:
    """A Dask `Client` for `scheduler` with the client's certificate in `folder`, refused unless the
    other end proves the scheduler's role: any certificate of the authority passes TLS, so a lab
    PC's worker key could otherwise pose as the scheduler (given a place on the network) and send
    the teacher rigged records."""
    from dask.distributed import Client

    with Client(scheduler, security=security(folder, "client"), timeout=60) as client:
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


def _may(server_kind: str, role: str | None, op: Any) -> bool:
    allowed = ALLOWED[server_kind].get(role or "", frozenset())
    if server_kind == "scheduler" and role == "client" and op in NOT_FOR_CLIENTS:
        return False
    return "*" in allowed or op in allowed


def dask_setup(server: Any) -> None:
    """Dask's preload hook: check every connection to `server` (a scheduler, worker or nanny) against
    ALLOWED by the role of its certificate; a request outside the role closes the connection."""
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
    """The commands that start a scheduler and a worker with the certificates in `folder`."""
    scheduler, worker = (" ".join(tls_arguments(folder, role)) for role in ("scheduler", "worker"))
    return [
        f"dask scheduler --protocol tls --host {host} --port {port} {scheduler}",
        f"dask worker tls://{host}:{port} --nthreads 1 {worker}",
    ]


def play_game_json(spec: dict[str, Any]) -> str:
    """What a worker runs: play one game (agents in the sandbox) and return its record as JSON text."""
    from .referee import play_game_spec

    return json.dumps(play_game_spec(spec), allow_nan=False)


def parse_record(text: Any, spec: dict[str, Any]) -> dict[str, Any]:
    """A worker's answer for `spec`, checked: bounded JSON of a record of that very game."""
    if type(text) is not str:
        raise ValueError(f"a worker sent a {type(text).__name__} for game {spec.get('id')}, not JSON text")
    try:
        record = parse_json(text, max_bytes=RECORD_BYTES, max_depth=16, source=f"the record of {spec.get('id')}")
    except JSONLoadError as exc:
        raise ValueError(str(exc)) from None
    same = type(record) is dict and all(record.get(k) == spec.get(k) for k in ("id", "game"))
    if not same or record.get("agents") != list(spec.get("agents", ())):
        raise ValueError(f"a worker sent a record that is not the one of game {spec.get('id')}")
    return record
