"""Executors: where the games of a tournament are played.

An executor takes the games still to play and yields each ``GameRecord`` as
it finishes; the order may differ from the schedule's, the records never do
(a game depends only on its seed and seating). Before handing out each game
it asks ``disqualified()`` which bots may no longer play, so a bot is
disqualified as soon as its failures are stored.

``SerialExecutor`` plays in the calling process, one game after another;
``PoolExecutor`` plays in a pool of spawned worker processes with a small
window of games in flight, so an interrupted run loses at most those; with
untrusted bots it never plays two games of one deal group at once
(``GameQueue``).
"""

from __future__ import annotations

import ctypes
import multiprocessing
import multiprocessing.util
import os
import signal
from collections import deque
from collections.abc import Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Callable, Optional, Protocol, Union

from .botserver import close_servers
from .referee import Fault, GameRecord, TableSetup, play_or_fault
from .schedule import ScheduledGame

Disqualified = Callable[[], frozenset]

PR_SET_PDEATHSIG = 1  # prctl(2): a signal for this process when its parent dies


class WorkerDied(Exception):
    """A worker process died (a bot may have called os._exit or crashed it)."""


Outcome = Union[GameRecord, Fault]


class Executor(Protocol):
    """Plays games and yields their records as they finish."""

    def play(self, games: Iterable[ScheduledGame],
             disqualified: Disqualified) -> Iterator[Outcome]:
        """Yield a record per game (or the ``Fault`` that kept it from being
        played); ``disqualified()`` is asked at each hand-out."""


class SerialExecutor:
    """Every game in this process, in schedule order."""

    def __init__(self, setup: TableSetup) -> None:
        self.setup = setup

    def play(self, games: Iterable[ScheduledGame],
             disqualified: Disqualified) -> Iterator[Outcome]:
        try:
            for game in games:
                yield play_or_fault(self.setup, game, disqualified())
        finally:
            close_servers()  # nothing of the bots outlives the run


_SETUP: Optional[TableSetup] = None


def _init_worker(setup: TableSetup, parent: int) -> None:
    global _SETUP
    _SETUP = setup
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C
    _die_with(parent)
    # A worker ends its bots' sandboxes before it exits, so that the pool's
    # shutdown returns only when nothing of the run is left.
    multiprocessing.util.Finalize(None, close_servers, exitpriority=10)


def _die_with(parent: int) -> None:
    """End this worker when the coordinator dies, even by ``kill -9``: a pool
    worker otherwise waits for work forever, and keeps its bots' sandboxes
    (which die with it) alive. Linux only; elsewhere the pool's own checks
    apply."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:  # it died before the request was made
        os._exit(1)


def _play_in_worker(game: ScheduledGame, disqualified: frozenset) -> Outcome:
    assert _SETUP is not None
    return play_or_fault(_SETUP, game, disqualified)


class GameQueue:
    """The games still to hand out, in schedule order; with ``one_per_group``,
    never two games of one deal group at the same time.

    Every game of a deal group is played on the same deal. If two of them ran
    at once, a bot in one could read the other's cards off anything the
    machine shares between processes (its load, its free memory), so
    tournaments with untrusted bots play the seatings of a deal one after
    another, and run different deal groups side by side instead.
    """

    def __init__(self, games: Iterable[ScheduledGame], one_per_group: bool) -> None:
        self.one_per_group = one_per_group
        self.groups: dict[int, deque[ScheduledGame]] = {}
        for game in games:
            self.groups.setdefault(game.group if one_per_group else 0, deque()).append(game)
        self.busy: set[int] = set()

    def take(self) -> Optional[ScheduledGame]:
        """The next game that may start now, or None."""
        for group, waiting in self.groups.items():
            if group not in self.busy:
                game = waiting.popleft()
                if not waiting:
                    del self.groups[group]
                if self.one_per_group:
                    self.busy.add(group)
                return game
        return None

    def finished(self, game: ScheduledGame) -> None:
        self.busy.discard(game.group)

    def waiting(self) -> int:
        """How many games are still to hand out."""
        return sum(len(games) for games in self.groups.values())

    def __bool__(self) -> bool:
        return bool(self.groups)


class PoolExecutor:
    """Games in ``workers`` spawned processes, at most two per worker in flight;
    see ``GameQueue`` for ``one_per_group``.

    A worker that dies (the out-of-memory killer, ``kill -9``) breaks the
    whole pool: the games in flight are played again in a fresh one, since a
    game depends only on its seed and seating. A game in flight at a second
    death is taken to be the cause (a trusted bot that kills its process)
    and stops the run (``WorkerDied``)."""

    def __init__(self, setup: TableSetup, workers: int, one_per_group: bool = False) -> None:
        self.setup = setup
        self.workers = workers
        self.one_per_group = one_per_group

    def _pool(self) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(self.workers, mp_context=multiprocessing.get_context("spawn"),
                                   initializer=_init_worker, initargs=(self.setup, os.getpid()))

    def play(self, games: Iterable[ScheduledGame],
             disqualified: Disqualified) -> Iterator[Outcome]:
        queue = GameQueue(games, self.one_per_group)
        running: dict[Future, ScheduledGame] = {}
        survivors: set[str] = set()  # keys of the games in flight when a worker died
        pool = self._pool()

        def submit(game: ScheduledGame) -> None:
            running[pool.submit(_play_in_worker, game, disqualified())] = game

        try:
            while queue or running:
                while len(running) < 2 * self.workers and (game := queue.take()) is not None:
                    submit(game)
                done, _ = wait(running, return_when=FIRST_COMPLETED)
                if any(_broken(future) for future in done):
                    finished, again = _after_a_death(running, survivors, queue)
                    yield from finished
                    pool.shutdown(wait=True, cancel_futures=True)
                    pool = self._pool()
                    for game in again:
                        submit(game)
                    continue
                for future in done:
                    queue.finished(running.pop(future))
                    yield future.result()
        finally:
            pool.shutdown(wait=True, cancel_futures=True)


def _broken(future: Future) -> bool:
    return isinstance(future.exception(), BrokenProcessPool)


def _after_a_death(running: dict[Future, ScheduledGame], survivors: set[str],
                   queue: GameQueue) -> tuple[list[Outcome], list[ScheduledGame]]:
    """When a worker died: the games that finished all the same, and those to
    play again (empties ``running``). Raises WorkerDied if one of those was
    in flight at an earlier death too."""
    wait(running)  # a broken pool fails every game it still holds, at once
    finished, again = [], []
    for future, game in running.items():
        if _broken(future):
            again.append(game)
        else:
            queue.finished(game)
            finished.append(future.result())
    running.clear()
    twice = [game.key for game in again if game.key in survivors]
    if twice:
        raise WorkerDied(
            f"a worker process died twice while playing game {twice[0]} (a trusted bot "
            "may call os._exit or crash the interpreter; or the machine is out of memory); "
            "no bot is blamed, and the games finished so far are stored")
    survivors.update(game.key for game in again)
    return finished, again


def local_executor(setup: TableSetup, workers: int) -> Executor:
    """This machine's executor: in-process for one worker, else a pool, which
    plays one game per deal group at a time when any bot is untrusted."""
    if workers <= 1:
        return SerialExecutor(setup)
    return PoolExecutor(setup, workers, one_per_group=bool(setup.isolated))
