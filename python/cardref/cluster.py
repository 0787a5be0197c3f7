"""A Dask cluster: connecting to it safely, checking its workers run this
engine, and ``simulate`` split over it.

Dask (``pip install 'cardref[dask]'``) is imported only here and in
``tournament/cluster.py``, so cardref works without it.

Security: a Dask scheduler runs whatever its clients send, on every worker.
So an address that is not on this machine (loopback) must use TLS
(``tls://``; a bare ``host:port`` means TLS there), with the certificates of
``Credentials`` or Dask's own config (``distributed.comm.tls.*``). A plain
``tcp://`` address beyond loopback is refused unless ``insecure`` is given,
for a network the organiser trusts (docs/scaling.md).

Every worker is checked before any work: its ``cardref`` version and engine
build id must equal this process's, or the run is refused naming the worker,
since results must come from one engine.
"""

from __future__ import annotations

import hashlib
import ipaddress
import socket
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional
from urllib.parse import urlsplit

import cardref

#: SplitMix64's increment: game i of simulate(seed) is dealt as game 0 of
#: simulate(seed + i * GAMMA) (docs/simulation.md, "Determinism").
GAMMA = 0x9E3779B97F4A7C15
MASK64 = (1 << 64) - 1


class ClusterError(Exception):
    """The cluster cannot be used: unreachable, insecure or unlike this engine."""


def add_arguments(parser: Any) -> None:
    """The options of a command that can run on a cluster (``--scheduler``
    and its TLS files); ``connect_from(args)`` uses them."""
    parser.add_argument("--scheduler", metavar="ADDRESS",
                        help="play on a Dask cluster, e.g. tls://10.0.0.5:8786 (docs/scaling.md)")
    parser.add_argument("--tls-ca-file", help="the cluster's CA certificate (tls:// schedulers)")
    parser.add_argument("--tls-cert", help="this client's TLS certificate")
    parser.add_argument("--tls-key", help="this client's TLS private key")
    parser.add_argument("--insecure", action="store_true",
                        help="allow a plain tcp:// scheduler beyond this machine")


def connect_from(args: Any) -> Any:
    """``connect`` with the options ``add_arguments`` declared."""
    return connect(args.scheduler, Credentials(args.tls_ca_file, args.tls_cert, args.tls_key),
                   insecure=args.insecure)


@dataclass(frozen=True)
class Credentials:
    """TLS files for a ``tls://`` scheduler (None: from Dask's config)."""

    ca_file: Optional[str] = None
    cert: Optional[str] = None
    key: Optional[str] = None


def engine_build_id() -> str:
    """This engine's build id: ``cardref.build_id()`` where the build has one,
    else a hash of the compiled engine (the same file gives the same id)."""
    build_id = getattr(cardref, "build_id", None)
    if callable(build_id):
        return str(build_id())
    from . import _core

    return hashlib.sha256(Path(_core.__file__).read_bytes()).hexdigest()[:16]


def identity() -> dict[str, str]:
    """What must be equal on the coordinator and every worker."""
    return {"cardref": cardref.__version__, "engine": engine_build_id()}


def resolve_address(address: str, insecure: bool = False) -> str:
    """The scheduler address with its protocol: ``tcp://`` for loopback,
    ``tls://`` elsewhere; a ``tcp://`` beyond loopback only when ``insecure``."""
    if "://" not in address:
        host = urlsplit(f"//{address}").hostname or ""
        scheme = "tcp" if _loopback(host) or insecure else "tls"
        return f"{scheme}://{address}"
    parts = urlsplit(address)
    if parts.scheme == "tcp" and not insecure and not _loopback(parts.hostname or ""):
        raise ClusterError(
            f"{address}: a Dask scheduler runs whatever its clients send on every worker, "
            "so an address beyond this machine must use TLS (tls://HOST:PORT with "
            "certificates, docs/scaling.md); on a network you trust, --insecure allows "
            "plain tcp://")
    if parts.scheme not in ("tcp", "tls", "inproc"):
        raise ClusterError(f"{address}: unknown protocol {parts.scheme!r}; use tcp:// "
                           "(this machine) or tls://")
    return address


def _loopback(host: str) -> bool:
    if host in ("localhost", "localhost.localdomain"):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def connect(address: str, credentials: Optional[Credentials] = None,
            insecure: bool = False, timeout: float = 30.0) -> Any:
    """A ``distributed.Client`` to ``address`` whose workers all match this
    engine (``check_workers``); raises ClusterError otherwise."""
    try:
        from distributed import Client, Security
    except ImportError:
        raise ClusterError("--scheduler needs Dask: pip install 'cardref[dask]' (Python 3.10 "
                           "or newer)") from None
    address = resolve_address(address, insecure)
    security = None
    if address.startswith("tls://"):
        c = credentials or Credentials()
        security = Security(tls_ca_file=c.ca_file, tls_client_cert=c.cert,
                            tls_client_key=c.key, require_encryption=True) \
            if c.ca_file else Security()
        if security.tls_ca_file is None:
            raise ClusterError(f"{address}: TLS needs the cluster's CA file and this "
                               "client's certificate and key (--tls-ca-file, --tls-cert, "
                               "--tls-key, or Dask's distributed.comm.tls config)")
    try:
        client = Client(address, security=security, timeout=timeout, set_as_default=False)
    except (OSError, TimeoutError) as e:
        raise ClusterError(f"cannot reach the Dask scheduler at {address}: {e}") from None
    try:
        check_workers(client, timeout)
    except BaseException:
        client.close()
        raise
    return client


def check_workers(client: Any, timeout: float = 30.0) -> dict[str, int]:
    """Wait for at least one worker, then compare each worker's identity with
    this process's; returns threads per worker. Raises ClusterError naming
    every worker that differs."""
    deadline = time.monotonic() + timeout
    while not client.nthreads():
        if time.monotonic() > deadline:
            raise ClusterError(f"the Dask scheduler at {client.scheduler.address} has no "
                               f"workers (waited {timeout:g} s)")
        time.sleep(0.2)
    mine = identity()
    theirs = client.run(_described_identity)
    problems = [f"worker {worker} ({other.pop('host')}): {_differs(mine, other)}"
                for worker, other in sorted(theirs.items())
                if {k: v for k, v in other.items() if k != "host"} != mine]
    if problems:
        raise ClusterError("; ".join(problems) + "; results must come from one engine: "
                           "install the same cardref build on every worker")
    return dict(client.nthreads())


def _described_identity() -> dict[str, str]:
    return {**identity(), "host": socket.gethostname()}


def _differs(mine: dict[str, str], other: dict[str, str]) -> str:
    return ", ".join(f"{key} {other.get(key)} (this machine: {value})"
                     for key, value in mine.items() if other.get(key) != value)


def _chunk(game_id: str, players: int, bots: list[str], games: int, seed: int,
           records: bool, variant: dict[str, Any]) -> dict[str, Any]:
    """One part of a cluster simulate, on a worker (one thread)."""
    return cardref.load(game_id, players, **variant).simulate(bots, games, seed, 1, records)


def simulate(address: str, game_id: str, players: int, games: int, bots: list[str],
             seed: int, records: bool, variant: dict[str, Any],
             credentials: Optional[Credentials] = None, insecure: bool = False) -> dict[str, Any]:
    """``cardref.simulate`` with its games split over a cluster: the parts
    start at game seeds ``seed + first * GAMMA``, so every game is dealt and
    played as in one local batch, and the totals (integer sums) are equal."""
    cardref.load(game_id, players, **variant)  # bad arguments fail here, not on a worker
    client = connect(address, credentials, insecure)
    try:
        threads = sum(client.nthreads().values())
        parts = max(1, min(games, 4 * threads))
        bounds = [games * i // parts for i in range(parts + 1)]
        began = time.perf_counter()
        futures = [client.submit(_chunk, game_id, players, list(bots), hi - lo,
                                 (seed + lo * GAMMA) & MASK64, records, dict(variant),
                                 pure=False)
                   for lo, hi in zip(bounds, bounds[1:]) if hi > lo]
        results = client.gather(futures)
        seconds = time.perf_counter() - began
    finally:
        client.close()
    return _merge(results, game_id, players, bots, seed, threads, seconds, records)


def _merge(results: list[dict[str, Any]], game_id: str, players: int, bots: list[str],
           seed: int, threads: int, seconds: float, records: bool) -> dict[str, Any]:
    """One simulate result from the parts': sums of the integer totals."""
    total = sum(r["games"] for r in results)
    g = max(total, 1)
    seats = []
    for s, bot in enumerate(bots):
        place = sum(round(r["seats"][s]["mean_placement"] * r["games"]) for r in results)
        score = sum(round(r["seats"][s]["mean_score"] * r["games"]) for r in results)
        seats.append({"seat": s, "bot": bot, "mean_placement": place / g,
                      "wins": sum(r["seats"][s]["wins"] for r in results),
                      "mean_score": score / g})
    out = {"game": game_id, "players": players, "games": total,
           "actions": sum(r["actions"] for r in results), "seed": seed, "threads": threads,
           "seconds": seconds, "seats": seats}
    if records:
        out["records"] = [rec for r in results for rec in r["records"]]
    return out
