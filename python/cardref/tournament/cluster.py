"""The Dask executor: a tournament's games played on a cluster's workers.

The coordinator (``cardref tournament CONFIG --scheduler ADDRESS``) keeps
everything that decides a run: it alone writes the results file, one
transaction per game, so resumption, replay and reports work as for a local
run; and it hands out games from the same ``GameQueue`` as the local pool, a
bounded window at a time (two tasks per worker thread), so disqualification,
``failure.policy = "stop"`` and early stopping act as they do locally. With
untrusted bots, no two games of one deal group are in flight at once,
anywhere on the cluster.

What a worker gets: one ``Shipment`` per run (scattered to every worker
once): the table setup, this engine's identity, and the content of every
``path`` bot, which the worker writes into its own cache under the file's
SHA-256 (no shared filesystem is needed). Before any game, every worker
checks the shipment: the same cardref version and engine build id, and every
bot loadable the way it will run (a ``module`` bot importable, a ``command``
present, a submitted bot started in its confinement): a worker that fails is
named and the run refused. A worker that joins later checks the same before
its first game.

Where games run: a task is a batch of games, sized so it takes about half a
second (one game at first, then by the games' measured time, up to 32), which
pays for the scheduling cost. The worker thread plays it in its game host, a
child process (``gamehost.py``) where the referee's signals and confinement
work as on one machine. A worker killed in the middle of a batch loses
nothing: the scheduler runs the batch again on another worker, from the same
seeds, and the coordinator stores each game once, as its batch completes.
"""

from __future__ import annotations

import hashlib
import math
import os
import subprocess
import sys
import tempfile
import threading
import uuid
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ..cluster import ClusterError, identity
from .executor import Disqualified, GameQueue, Outcome, WorkerDied
from .gamehost import receive, send
from .referee import TableSetup
from .schedule import ScheduledGame

#: A task should take about this long: long enough that scheduling is a
#: small part of it, short enough to keep the window of games in flight small.
TASK_SECONDS = 0.5
MAX_BATCH = 32


class WorkerRefused(Exception):
    """A worker cannot play this tournament; the message names it and why."""


@dataclass(frozen=True)
class Shipment:
    """What every worker needs for one run (scattered once)."""

    token: str
    setup: TableSetup
    files: dict[str, tuple[str, bytes]]  # a path bot's target -> (sha256, content)
    identity: dict[str, str]


def shipment(setup: TableSetup) -> Shipment:
    files = {}
    for kind, target in setup.bots.values():
        if kind == "path":
            content = Path(target).read_bytes()
            files[target] = (hashlib.sha256(content).hexdigest(), content)
    return Shipment(uuid.uuid4().hex, setup, files, identity())


# On a worker ----------------------------------------------------------------------

_READY: dict[str, TableSetup] = {}  # shipment token -> the setup with local paths, checked
_LOCK = threading.Lock()
_HOSTS = threading.local()


def cache_dir() -> Path:
    """Where a worker keeps path bots by content: $CARDREF_CACHE, else a
    private directory in the system's temporary directory."""
    root = os.environ.get("CARDREF_CACHE") or os.path.join(
        tempfile.gettempdir(), f"cardref-{os.getuid()}")
    return Path(root) / "bots"


def cached(target: str, digest: str, content: bytes) -> Path:
    """The worker's copy of a path bot: ``<cache>/<sha256>/<file name>``,
    written once (atomically), and rewritten if it no longer matches."""
    path = cache_dir() / digest / Path(target).name
    if path.is_file() and hashlib.sha256(path.read_bytes()).hexdigest() == digest:
        return path
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o755)
    partial = path.with_name(f".{path.name}.{uuid.uuid4().hex}")
    partial.write_bytes(content)
    partial.chmod(0o644)
    partial.replace(path)
    return path


class _Host:
    """This worker thread's game host (gamehost.py), started on first use."""

    def __init__(self) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "cardref.tournament.gamehost"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    def call(self, kind: str, payload: Any) -> Any:
        assert self.process.stdin is not None and self.process.stdout is not None
        try:
            send(self.process.stdin, (kind, payload))
            reply = receive(self.process.stdout)
        except OSError:
            reply = None
        if reply is None:
            self.process.kill()
            raise WorkerDied(f"the game host on {_where()} died while playing (a bot may "
                             "have called os._exit or crashed the interpreter); the games "
                             "finished so far are stored")
        return reply


def _host() -> _Host:
    host = getattr(_HOSTS, "host", None)
    if host is None or host.process.poll() is not None:
        host = _HOSTS.host = _Host()
    return host


def _where() -> str:
    try:
        from distributed import get_worker

        worker = get_worker()
        return f"worker {worker.address} ({worker.name})"
    except (ImportError, ValueError):
        return "this machine"


def worker_problems(parcel: Shipment) -> list[str]:
    """Why this worker cannot play ``parcel``'s games (empty: it can); the
    first success is remembered for the run."""
    if parcel.token in _READY:
        return []
    mine = identity()
    if parcel.identity != mine:
        return [f"{_where()}: " + ", ".join(
            f"{key} {mine.get(key)} (coordinator: {value})"
            for key, value in parcel.identity.items() if mine.get(key) != value)
            + "; results must come from one engine"]
    bots = dict(parcel.setup.bots)
    for name, (kind, target) in parcel.setup.bots.items():
        if kind == "path":
            bots[name] = ("path", str(cached(target, *parcel.files[target])))
    setup = replace(parcel.setup, bots=bots)
    found = _host().call("check", setup)
    if found:
        return [f"{_where()}: {problem}" for problem in found]
    with _LOCK:
        _READY[parcel.token] = setup
    return []


def play_batch(parcel: Shipment, games: list[ScheduledGame],
               disqualified: frozenset) -> list[Outcome]:
    """A task: check this worker once per run, then play ``games`` in order."""
    problems = worker_problems(parcel)
    if problems:
        raise WorkerRefused("; ".join(problems))
    return _host().call("play", (_READY[parcel.token], games, disqualified))


# On the coordinator ----------------------------------------------------------------


class DaskExecutor:
    """Games on a Dask cluster (``client``: a checked ``cluster.connect``)."""

    def __init__(self, client: Any, setup: TableSetup, one_per_group: bool = False) -> None:
        self.client = client
        self.setup = setup
        self.one_per_group = one_per_group
        self.played = 0
        self.game_seconds = 0.0

    def play(self, games: Iterable[ScheduledGame],
             disqualified: Disqualified) -> Iterator[Outcome]:
        from distributed import as_completed

        parcel = self.client.scatter(shipment(self.setup), broadcast=True, hash=False)
        self.check(parcel)
        queue = GameQueue(games, self.one_per_group)
        slots = 2 * max(1, sum(self.client.nthreads().values()))
        running: dict[Any, list[ScheduledGame]] = {}
        finished = as_completed(loop=self.client.loop)

        def hand_out() -> None:
            while len(running) < slots:
                batch = self._batch(queue, slots)
                if not batch:
                    return
                task = self.client.submit(play_batch, parcel, batch, disqualified(),
                                          pure=False)
                running[task] = batch
                finished.add(task)

        try:
            hand_out()
            for task in finished:
                batch = running.pop(task)
                records = _result(task)
                for game in batch:
                    queue.finished(game)
                self.played += len(records)
                self.game_seconds += sum(getattr(r, "seconds", 0.0) for r in records)
                yield from records
                hand_out()
        finally:
            self.client.cancel(list(running))

    def _batch(self, queue: GameQueue, slots: int) -> list[ScheduledGame]:
        """The next task's games: about TASK_SECONDS of play once games have
        been timed (one game before), never more than a fair share of what
        is left."""
        size = 1
        if self.played:
            size = max(1, min(MAX_BATCH, round(TASK_SECONDS * self.played / max(
                self.game_seconds, 1e-6))))
        size = min(size, max(1, math.ceil(queue.waiting() / slots)))
        batch = []
        while len(batch) < size:
            game = queue.take()
            if game is None:
                break
            batch.append(game)
        return batch

    def check(self, parcel: Any) -> None:
        """Every worker checks the shipment before any game (a worker joining
        later checks it before its first batch)."""
        checks = [self.client.submit(worker_problems, parcel, workers=[address],
                                     allow_other_workers=False, pure=False)
                  for address in self.client.nthreads()]
        problems = [p for found in self.client.gather(checks) for p in found]
        if problems:
            raise ClusterError("; ".join(problems))


def _result(task: Any) -> list[Outcome]:
    try:
        return task.result()
    except WorkerRefused as e:
        raise ClusterError(str(e)) from None
    except WorkerDied:
        raise
    except Exception as e:  # KilledWorker: the batch's workers kept dying
        raise WorkerDied(f"the cluster could not play a batch of games: "
                         f"{type(e).__name__}: {e}") from None
