"""A tournament run: the games not yet stored, played by an executor, stored
one by one, under the failure policy.

A bot with ``failure.disqualify_after`` failed games is disqualified: the
fallback plays its seats in its later games. With ``failure.policy = "stop"``
the run ends at the first failed game (after storing it). A gauntlet with
``[stop] sprt`` ends at the deal group where the test decides (sprt.py);
games still in flight then are not stored.
"""

from __future__ import annotations

from typing import Any, Callable, Optional

from . import sprt
from .config import Config
from .executor import Executor, WorkerDied, local_executor
from .referee import Fault, GameRecord, TableSetup
from .sandbox import STATUSES
from .sprt import Tracker

__all__ = ["RefereeFaults", "TournamentStopped", "WorkerDied", "run"]


class TournamentStopped(Exception):
    """The failure policy "stop" ended the run at a bot failure."""


class RefereeFaults(Exception):
    """Games the referee could not play through no bot's fault; they are not
    stored, so running the same command again plays them."""

    def __init__(self, faults: list[Fault]) -> None:
        self.faults = faults
        shown = "; ".join(f"{f.key}: {f.message}" for f in faults[:3])
        more = f" (and {len(faults) - 3} more)" if len(faults) > 3 else ""
        super().__init__(f"{len(faults)} game(s) hit a fault of the referee, not of any bot, "
                         f"and were not stored: {shown}{more}")


class _FailureCount:
    """Failed games per bot, from the stored games and each new one."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.failed: dict[str, int] = {}

    def add(self, seating: list[str], statuses: list[str]) -> None:
        for name in {n for n, st in zip(seating, statuses) if st in STATUSES}:
            self.failed[name] = self.failed.get(name, 0) + 1

    def disqualified(self) -> frozenset[str]:
        if not self.limit:
            return frozenset()
        return frozenset(name for name, n in self.failed.items() if n >= self.limit)


def _stop_message(record: GameRecord) -> str:
    seat = next(s for s, st in enumerate(record.statuses) if st != "ok")
    return (f"game {record.key}: bot {record.seating[seat]!r} (seat {seat}) failed with "
            f"status {record.statuses[seat]}: {record.messages[seat]}")


def sprt_tracker(config: Config, store: Any) -> Optional[Tracker]:
    """The early-stopping test of a gauntlet with ``[stop] sprt``, over the
    games already stored; None without one."""
    if not config.sprt:
        return None
    return sprt.tracker(config.meaning(), config.teams, store.group_sizes(), store.games())


def run(config: Config, store: Any, workers: int,
        on_game: Optional[Callable[[GameRecord], None]] = None,
        executor: Optional[Executor] = None, tracker: Optional[Tracker] = None,
        on_fault: Optional[Callable[[Fault], None]] = None) -> int:
    """Play every scheduled game not yet in ``store``; returns how many were played.

    Each finished game is committed before the next result is taken, so a kill
    loses only games in flight. ``executor`` defaults to this machine's
    (``workers`` processes); ``tracker`` to ``sprt_tracker``. A game that
    hits a referee fault is reported to ``on_fault`` and not stored; the
    others play on, and the run then raises ``RefereeFaults``.
    """
    finished = store.finished_keys()
    if len(finished) == store.scheduled():  # nothing left: a finished tournament
        return 0
    stopper = tracker if tracker is not None else sprt_tracker(config, store)
    if stopper is not None and stopper.decision:
        return 0
    schedule = store.schedule()
    todo = [g for g in schedule if g.key not in finished]
    failures = _FailureCount(config.disqualify_after)
    for game in store.games():
        failures.add(game["seating"], game["statuses"])
    if executor is None:
        executor = local_executor(TableSetup.from_config(config), workers)
    records = executor.play(todo, failures.disqualified)
    try:
        group = {g.key: g.group for g in schedule}
        played = _store_all(config, store, records, group, failures, stopper, on_game,
                            on_fault)
    finally:
        close = getattr(records, "close", None)
        if close is not None:  # a generator: its executor stops now
            close()
    return played


def _store_all(config: Config, store: Any, records: Any, group: dict[str, int],
               failures: _FailureCount, stopper: Optional[Tracker],
               on_game: Optional[Callable[[GameRecord], None]],
               on_fault: Optional[Callable[[Fault], None]]) -> int:
    """Store each record as it comes; stop where the policy or the test says."""
    played = 0
    faults: list[Fault] = []
    for record in records:
        if isinstance(record, Fault):
            faults.append(record)
            if on_fault is not None:
                on_fault(record)
            continue
        store.save_game(record)
        failures.add(record.seating, record.statuses)
        played += 1
        if stopper is not None:
            stopper.add(group[record.key], record.seating, record.placements)
        if on_game is not None:
            on_game(record)
        if config.failure_policy == "stop" and record.failed():
            raise TournamentStopped(_stop_message(record))
        if stopper is not None and stopper.decision:
            break
    if faults:
        raise RefereeFaults(faults)
    return played
