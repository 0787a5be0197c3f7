"""Running an analysis: native games in slices (``Game.analyse``, every core),
so that a progress bar moves and a long run can be stopped, with the slices'
totals added up. Game ``i`` of a run is dealt and played the same however the
run is sliced, so the totals depend only on the seed."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Optional

import cardref

#: A run is cut into at least this many slices (the skill measure's batches).
MIN_SLICES = 20
#: ... of at most this many games each, so the bar moves every second or so.
MAX_SLICE = 200_000


@dataclass
class Totals:
    """The sums of a run (see ``crate::analysis`` for each field)."""

    players: int
    bots: list[str]
    mixed: bool = False
    games: int = 0
    actions: int = 0
    seconds: float = 0.0
    threads: int = 0
    #: seats[s][b]: the sums of seat s with bot b.
    seats: list[list[Counter]] = field(default_factory=list)
    lengths: Counter = field(default_factory=Counter)
    rounds: Counter = field(default_factory=Counter)
    scores: list[Counter] = field(default_factory=list)
    #: Rule point id → [times fired, games in which it fired].
    points: dict[str, list[int]] = field(default_factory=dict)
    #: Each slice's seat sums (for the skill measure's batch intervals).
    slices: list[list[list[Counter]]] = field(default_factory=list)

    def add(self, part: dict[str, Any]) -> None:
        if not self.seats:
            self.seats = [[Counter() for _ in per_bot] for per_bot in part["seats"]]
            self.scores = [Counter() for _ in part["seats"]]
        self.games += part["games"]
        self.actions += part["actions"]
        self.threads = part["threads"]
        sums = [[Counter(stats) for stats in per_bot] for per_bot in part["seats"]]
        for mine, theirs in zip(self.seats, sums):
            for a, b in zip(mine, theirs):
                a.update(b)
        self.slices.append(sums)
        self.lengths.update(part["lengths"])
        self.rounds.update(part["rounds"])
        for mine, theirs in zip(self.scores, part["scores"]):
            mine.update(theirs)
        for point, (fired, games) in part["points"].items():
            got = self.points.setdefault(point, [0, 0])
            got[0] += fired
            got[1] += games


def slice_sizes(games: int) -> list[int]:
    """The run cut into slices: at least ``MIN_SLICES``, each at most ``MAX_SLICE``."""
    count = max(min(MIN_SLICES, games), -(-games // MAX_SLICE))
    return [games * (i + 1) // count - games * i // count for i in range(count)]


def analyse(game_id: str, players: int, variant: dict[str, Any], bots: list[str], games: int,
            seed: int, threads: Optional[int], mixed: bool = False, rule_points: bool = False,
            progress: Optional[Callable[[int], None]] = None) -> Totals:
    """Plays ``games`` native games of the configuration; ``progress(games)``
    is told after each slice."""
    game = cardref.load(game_id, players, **variant)
    totals = Totals(players, list(bots), mixed)
    start = 0
    began = time.perf_counter()
    for size in slice_sizes(games):
        part = game.analyse(list(bots), start, size, seed=seed, threads=threads, mixed=mixed,
                            rule_points=rule_points)
        totals.add(part)
        start += size
        if progress is not None:
            progress(size)
    totals.seconds = time.perf_counter() - began
    return totals
