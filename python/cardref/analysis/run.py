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
            progress: Optional[Callable[[int], None]] = None, client: Any = None) -> Totals:
    """Plays ``games`` native games of the configuration, here on every core
    or, given a Dask ``client`` (``cardref.cluster.connect``), on its workers;
    ``progress(games)`` is told after each slice."""
    totals = Totals(players, list(bots), mixed)
    began = time.perf_counter()
    if client is not None:
        parts = _on_cluster(client, game_id, players, variant, bots, games, seed, mixed,
                            rule_points, progress)
    else:
        game = cardref.load(game_id, players, **variant)
        parts = []
        start = 0
        for size in slice_sizes(games):
            parts.append(game.analyse(list(bots), start, size, seed=seed, threads=threads,
                                      mixed=mixed, rule_points=rule_points))
            start += size
            if progress is not None:
                progress(size)
    for part in parts:
        totals.add(part)
    totals.seconds = time.perf_counter() - began
    return totals


def _slice(game_id: str, players: int, variant: dict[str, Any], bots: list[str], start: int,
           size: int, seed: int, mixed: bool, rule_points: bool) -> dict[str, Any]:
    """One slice, on a worker (one thread: the worker's threads run slices side by side)."""
    game = cardref.load(game_id, players, **variant)
    return game.analyse(bots, start, size, seed=seed, threads=1, mixed=mixed,
                        rule_points=rule_points)


def _on_cluster(client: Any, game_id: str, players: int, variant: dict[str, Any],
                bots: list[str], games: int, seed: int, mixed: bool, rule_points: bool,
                progress: Optional[Callable[[int], None]]) -> list[dict[str, Any]]:
    """The slices submitted to the cluster's workers, gathered as they finish,
    returned in game order (so that the totals equal a local run's)."""
    from distributed import as_completed

    threads = max(1, sum(client.nthreads().values()))
    count = max(len(slice_sizes(games)), min(games, 8 * threads))
    bounds = [games * i // count for i in range(count + 1)]
    futures = {client.submit(_slice, game_id, players, dict(variant), list(bots), lo, hi - lo,
                             seed, mixed, rule_points, pure=False): lo
               for lo, hi in zip(bounds, bounds[1:]) if hi > lo}
    done: dict[int, dict[str, Any]] = {}
    for future in as_completed(futures, loop=client.loop):
        part = future.result()
        done[futures[future]] = part
        if progress is not None:
            progress(part["games"])
    return [done[lo] for lo in sorted(done)]
