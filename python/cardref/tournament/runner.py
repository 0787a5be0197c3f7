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
from .referee import GameRecord, TableSetup
from .sandbox import STATUSES

__all__ = ["TournamentStopped", "WorkerDied", "run"]


class TournamentStopped(Exception):
    """The failure policy "stop" ended the run at a bot failure."""


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
        executor: Optional[Executor] = None) -> int:
    """Play every scheduled game not yet in ``store``; returns how many were played.

    Each finished game is committed before the next result is taken, so a kill
    loses only games in flight. ``executor`` defaults to this machine's
    (``workers`` processes).
    """
    finished = store.finished_keys()
    todo = [g for g in store.schedule() if g.key not in finished]
    failures = _FailureCount(config.disqualify_after)
    for game in store.games():
        failures.add(game["seating"], game["statuses"])
    if executor is None:
        executor = local_executor(TableSetup.from_config(config), workers)
    played = 0
    for record in executor.play(todo, failures.disqualified):
        store.save_game(record)
        failures.add(record.seating, record.statuses)
        played += 1
        if on_game is not None:
            on_game(record)
        if config.failure_policy == "stop" and record.failed():
            raise TournamentStopped(_stop_message(record))
    return played
