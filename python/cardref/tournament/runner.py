"""A tournament run: the games not yet stored, played by an executor, stored
one by one, under the failure policy.

A bot with ``failure.disqualify_after`` failed games is disqualified: the
fallback plays its seats in its later games. With ``failure.policy = "stop"``
the run ends at the first failed game (after storing it).
"""

from __future__ import annotations

from typing import Any, Callable, Optional

from .config import Config
from .executor import Executor, WorkerDied, local_executor
from .referee import Fault, GameRecord, TableSetup
from .sandbox import STATUSES

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


def run(config: Config, store: Any, workers: int,
        on_game: Optional[Callable[[GameRecord], None]] = None,
        executor: Optional[Executor] = None,
        on_fault: Optional[Callable[[Fault], None]] = None) -> int:
    """Play every scheduled game not yet in ``store``; returns how many were played.

    Each finished game is committed before the next result is taken, so a kill
    loses only games in flight. ``executor`` defaults to this machine's
    (``workers`` processes). A game that hits a referee fault is reported to
    ``on_fault`` and not stored; the others play on, and the run then raises
    ``RefereeFaults``.
    """
    finished = store.finished_keys()
    todo = [g for g in store.schedule() if g.key not in finished]
    failures = _FailureCount(config.disqualify_after)
    for game in store.games():
        failures.add(game["seating"], game["statuses"])
    if executor is None:
        executor = local_executor(TableSetup.from_config(config), workers)
    played = 0
    faults: list[Fault] = []
    for record in executor.play(todo, failures.disqualified):
        if isinstance(record, Fault):
            faults.append(record)
            if on_fault is not None:
                on_fault(record)
            continue
        store.save_game(record)
        failures.add(record.seating, record.statuses)
        played += 1
        if on_game is not None:
            on_game(record)
        if config.failure_policy == "stop" and record.failed():
            raise TournamentStopped(_stop_message(record))
    if faults:
        raise RefereeFaults(faults)
    return played
