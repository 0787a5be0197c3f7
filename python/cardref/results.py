"""Placements by competition ranking (docs/rules/CONVENTIONS.md, "Results")."""

from __future__ import annotations

from typing import Callable


def competition_placements(n: int, better: Callable[[int, int], bool]) -> list[int]:
    """Placement of each seat = 1 + the number of seats that did strictly better.

    ``better(a, b)`` says whether seat a did strictly better than seat b. Tied
    seats share a placement and use up the places below them ([[1, 2], [0]] gives
    seat 0 placement 3).
    """
    return [1 + sum(better(other, seat) for other in range(n)) for seat in range(n)]
