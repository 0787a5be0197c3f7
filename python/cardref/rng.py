"""The generator and shuffle both engines share (docs/rules/CONVENTIONS.md, "Randomness").

SplitMix64 over a 64-bit state, a rejection-sampled ``bounded(n)``, and a
Fisher–Yates shuffle from the last index down. The Rust twin is ``rng.rs``.
"""

from __future__ import annotations

from collections.abc import MutableSequence
from typing import TypeVar

MASK64 = (1 << 64) - 1
T = TypeVar("T")


class SplitMix64:
    """SplitMix64; ``state`` is the whole generator and goes into state JSON."""

    def __init__(self, seed: int) -> None:
        self.state = seed

    def next_u64(self) -> int:
        """The next 64-bit output."""
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        return z ^ (z >> 31)

    def bounded(self, n: int) -> int:
        """A uniform integer in [0, n): redraw while x >= 2**64 - (2**64 mod n)."""
        limit = (1 << 64) - ((1 << 64) % n)
        while True:
            x = self.next_u64()
            if x < limit:
                return x % n

    def shuffle(self, items: MutableSequence[T]) -> None:
        """Fisher–Yates in place: for i from len-1 down to 1, swap with bounded(i+1)."""
        for i in range(len(items) - 1, 0, -1):
            j = self.bounded(i + 1)
            items[i], items[j] = items[j], items[i]
