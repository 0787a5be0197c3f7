"""The bootstrap over deal groups, made cheap by exact integer counts.

Every statistic of the standings is a function of sums over deal groups
(seats, placements, win shares, scores, and the rating's choice counts). So
each deal group's counts are a vector of whole numbers, packed into one
Python integer (64 bits a field), and the totals of a resample are a single
sum of the packed integers of the groups drawn: the work per resample grows
with the number of deal groups, not of games, and no rounding enters.
"""

from __future__ import annotations

import random
import statistics
import sys
from collections.abc import Iterator, Sequence

FIELD_BITS = 64


class GroupCounts:
    """Per deal group, a vector of non-negative integers of one length."""

    def __init__(self, vectors: Sequence[Sequence[int]], size: int) -> None:
        self.size = size
        self.groups = len(vectors)
        limit = 1 << FIELD_BITS
        peak = max((max(v, default=0) for v in vectors), default=0)
        if peak * max(1, self.groups) >= limit or min(
                (min(v, default=0) for v in vectors), default=0) < 0:
            raise ValueError("a count is negative or too large to resample")
        self.packed = [_pack(v) for v in vectors]

    def total(self) -> list[int]:
        """The sums over every group."""
        return self._unpack(sum(self.packed))

    def resamples(self, count: int, seed: str) -> Iterator[list[int]]:
        """The sums over ``count`` resamples, each drawing as many groups as
        there are, with replacement (seeded by ``seed``)."""
        rng = random.Random(seed)
        groups = range(self.groups)
        take = self.packed.__getitem__
        for _ in range(count if self.groups else 0):
            yield self._unpack(sum(map(take, rng.choices(groups, k=self.groups))))

    def _unpack(self, packed: int) -> list[int]:
        data = packed.to_bytes(self.size * FIELD_BITS // 8, sys.byteorder)
        return memoryview(data).cast("Q").tolist()


def _pack(vector: Sequence[int]) -> int:
    data = b"".join(v.to_bytes(FIELD_BITS // 8, sys.byteorder) for v in vector)
    return int.from_bytes(data, sys.byteorder)


def interval(values: list[float], point: float) -> dict[str, float]:
    """The point with the 2.5th and 97.5th percentiles of its bootstrap values
    (linear interpolation); with fewer than two values, the point alone."""
    if len(values) < 2:
        low = high = values[0] if values else point
    else:
        cuts = statistics.quantiles(values, n=40, method="inclusive")
        low, high = cuts[0], cuts[-1]
    return {"value": point, "low": low, "high": high}
