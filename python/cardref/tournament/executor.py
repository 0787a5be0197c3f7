"""Executors: where the games of a tournament are played.

An executor takes the games still to play and yields each ``GameRecord`` as
it finishes; the order may differ from the schedule's, the records never do
(a game depends only on its seed and seating). Before handing out each game
it asks ``disqualified()`` which bots may no longer play, so a bot is
disqualified as soon as its failures are stored.

``SerialExecutor`` plays in the calling process, one game after another;
``PoolExecutor`` plays in a pool of spawned worker processes with a small
window of games in flight, so an interrupted run loses at most those.
"""

from __future__ import annotations

import multiprocessing
import signal
from collections.abc import Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Callable, Optional, Protocol

from .referee import GameRecord, TableSetup, play_game
from .schedule import ScheduledGame

Disqualified = Callable[[], frozenset]


class WorkerDied(Exception):
    """A worker process died (a bot may have called os._exit or crashed it)."""


class Executor(Protocol):
    """Plays games and yields their records as they finish."""

    def play(self, games: Iterable[ScheduledGame],
             disqualified: Disqualified) -> Iterator[GameRecord]:
        """Yield a record per game; ``disqualified()`` is asked at each hand-out."""


class SerialExecutor:
    """Every game in this process, in schedule order."""

    def __init__(self, setup: TableSetup) -> None:
        self.setup = setup

    def play(self, games: Iterable[ScheduledGame],
             disqualified: Disqualified) -> Iterator[GameRecord]:
        for game in games:
            yield play_game(self.setup, game, disqualified())


_SETUP: Optional[TableSetup] = None


def _init_worker(setup: TableSetup) -> None:
    global _SETUP
    _SETUP = setup
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C


def _play_in_worker(game: ScheduledGame, disqualified: frozenset) -> GameRecord:
    assert _SETUP is not None
    return play_game(_SETUP, game, disqualified)


class PoolExecutor:
    """Games in ``workers`` spawned processes, at most two per worker in flight."""

    def __init__(self, setup: TableSetup, workers: int) -> None:
        self.setup = setup
        self.workers = workers

    def play(self, games: Iterable[ScheduledGame],
             disqualified: Disqualified) -> Iterator[GameRecord]:
        context = multiprocessing.get_context("spawn")
        pool = ProcessPoolExecutor(self.workers, mp_context=context, initializer=_init_worker,
                                   initargs=(self.setup,))
        try:
            pending = iter(games)
            running: set[Future] = set()
            for game in pending:
                running.add(pool.submit(_play_in_worker, game, disqualified()))
                if len(running) >= 2 * self.workers:
                    break
            while running:
                done, running = wait(running, return_when=FIRST_COMPLETED)
                for future in done:
                    yield _result(future)
                    nxt = next(pending, None)
                    if nxt is not None:
                        running.add(pool.submit(_play_in_worker, nxt, disqualified()))
        finally:
            pool.shutdown(wait=True, cancel_futures=True)


def _result(future: Future) -> GameRecord:
    try:
        return future.result()
    except BrokenProcessPool:
        raise WorkerDied(
            "a worker process died while playing (a bot may have called "
            "os._exit or crashed the interpreter); the games finished so far "
            "are stored"
        ) from None


def local_executor(setup: TableSetup, workers: int) -> Executor:
    """This machine's executor: in-process for one worker, else a pool."""
    if workers <= 1:
        return SerialExecutor(setup)
    return PoolExecutor(setup, workers)
