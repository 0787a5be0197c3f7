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
import sys
from array import array
from collections.abc import Iterator, Sequence

FIELD_BITS = 64
U32 = next(code for code in "IL" if array(code).itemsize == 4)  # unsigned 32-bit


class GroupCounts:
    """Per deal group, a vector of whole numbers of one length (a field may
    be negative in some groups: each field is stored above its least value)."""

    def __init__(self, vectors: Sequence[Sequence[int]], size: int) -> None:
        self.size = size
        self.groups = len(vectors)
        self.floor = [min(0, min((v[i] for v in vectors), default=0)) for i in range(size)]
        shifted = [[x - f for x, f in zip(v, self.floor)] for v in vectors]
        peak = max((max(v, default=0) for v in shifted), default=0)
        if peak * max(1, self.groups) >= 1 << FIELD_BITS:
            raise ValueError("a count is too large to resample")
        self.packed = [pack(v) for v in shifted]

    def total(self) -> list[int]:
        """The sums over every group."""
        return self._restore(unpack(sum(self.packed), self.size))

    def resamples(self, count: int, seed: str) -> Iterator[list[int]]:
        """The sums over ``count`` resamples, each drawing as many groups as
        there are, with replacement (seeded by ``seed``)."""
        rng = random.Random(seed)
        n = self.groups
        take = self.packed.__getitem__
        for _ in range(count if n else 0):
            # A uniform 32-bit number u picks group u * n >> 32 (n < 2**32).
            draws = array(U32, rng.randbytes(4 * n))
            picks = map((32).__rrshift__, map(n.__mul__, draws))
            yield self._restore(unpack(sum(map(take, picks)), self.size))

    def _restore(self, fields: list[int]) -> list[int]:
        """Totals of ``groups`` groups, the fields' floors added back."""
        return [x + self.groups * f for x, f in zip(fields, self.floor)]


def pack(vector: Sequence[int]) -> int:
    """Non-negative integers below 2**64 as one integer, 64 bits each; the
    sum of packed vectors is the packed sum while no field overflows."""
    data = b"".join(v.to_bytes(FIELD_BITS // 8, sys.byteorder) for v in vector)
    return int.from_bytes(data, sys.byteorder)


def unpack(packed: int, size: int) -> list[int]:
    """The ``size`` fields of a packed integer."""
    data = packed.to_bytes(size * FIELD_BITS // 8, sys.byteorder)
    return memoryview(data).cast("Q").tolist()


def percentile(sorted_values: list[float], q: float) -> float:
    """Linear-interpolation percentile (q in [0, 1]) of a sorted list.

    The interpolation of ``statistics.quantiles(method="inclusive")``, written
    as ``low + (high - low) * fraction``: where the two neighbours are equal,
    this gives that value exactly (``quantiles``' weighted mean can be off by
    the last bit, which would put a point outside its own interval)."""
    if len(sorted_values) == 1:
        return sorted_values[0]
    pos = q * (len(sorted_values) - 1)
    low = int(pos)
    high = min(low + 1, len(sorted_values) - 1)
    return sorted_values[low] + (sorted_values[high] - sorted_values[low]) * (pos - low)


def interval(values: list[float], point: float) -> dict[str, float]:
    """The point with the 2.5th and 97.5th percentiles of its bootstrap values;
    with no values, the point alone."""
    ordered = sorted(values) or [point]
    return {"value": point, "low": percentile(ordered, 0.025),
            "high": percentile(ordered, 0.975)}
