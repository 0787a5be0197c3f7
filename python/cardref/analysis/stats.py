"""The statistics of ``cardref analyze``, from totals (sums, counts and
histograms), so that any number of games costs the same memory: 95% intervals
for shares (Wilson) and means (normal), differences of two independent runs,
percentiles of a histogram, and the share of the variance of placements that
the bot in the seat explains."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Optional

Z95 = 1.959963984540054


def interval(value: float, low: float, high: float) -> dict[str, float]:
    return {"value": value, "low": low, "high": high}


def share(hits: int, n: int) -> dict[str, float]:
    """A share ``hits / n`` with its 95% Wilson interval (sound near 0 and 1,
    where a normal interval is not)."""
    if n == 0:
        return interval(float("nan"), 0.0, 1.0)
    p = hits / n
    centre = (p + Z95 * Z95 / (2 * n)) / (1 + Z95 * Z95 / n)
    half = Z95 * math.sqrt(p * (1 - p) / n + Z95 * Z95 / (4 * n * n)) / (1 + Z95 * Z95 / n)
    return interval(p, max(0.0, centre - half), min(1.0, centre + half))


def mean(total: float, squares: float, n: int) -> dict[str, float]:
    """A mean from a sum and a sum of squares, with its 95% normal interval."""
    if n == 0:
        return interval(float("nan"), float("nan"), float("nan"))
    m = total / n
    half = Z95 * math.sqrt(variance(total, squares, n) / n) if n > 1 else 0.0
    return interval(m, m - half, m + half)


def variance(total: float, squares: float, n: int) -> float:
    """The sample variance from a sum and a sum of squares (never below 0)."""
    if n < 2:
        return 0.0
    return max(0.0, (squares - total * total / n) / (n - 1))


def difference(a: Mapping[str, float], b: Mapping[str, float]) -> dict[str, float]:
    """``b - a`` of two estimates from independent runs, with a 95% interval
    from their own (half-widths combined in quadrature)."""
    value = b["value"] - a["value"]
    half = math.hypot((a["high"] - a["low"]) / 2, (b["high"] - b["low"]) / 2)
    return interval(value, value - half, value + half)


def histogram_stats(counts: Mapping[int, int]) -> dict[str, float]:
    """Games by value → mean, standard deviation, minimum, percentiles, maximum."""
    n = sum(counts.values())
    if n == 0:
        return {"games": 0}
    total = sum(v * c for v, c in counts.items())
    squares = sum(v * v * c for v, c in counts.items())
    out: dict[str, float] = {"games": n, "mean": total / n,
                             "sd": math.sqrt(variance(total, squares, n)),
                             "min": min(counts), "max": max(counts)}
    for q in (5, 25, 50, 75, 95):
        out[f"p{q}"] = percentile(counts, q)
    return out


def percentile(counts: Mapping[int, int], q: float) -> float:
    """The smallest value with at least ``q``% of the games at or below it."""
    n = sum(counts.values())
    need = q / 100 * n
    seen = 0
    for value in sorted(counts):
        seen += counts[value]
        if seen >= need:
            return value
    return max(counts)


def bins(counts: Mapping[int, int], most: int = 40) -> list[tuple[int, int, int]]:
    """A histogram in at most ``most`` bins of equal width: (low, high, games),
    ``high`` inclusive."""
    if not counts:
        return []
    low, high = min(counts), max(counts)
    width = max(1, math.ceil((high - low + 1) / most))
    out = []
    for start in range(low, high + 1, width):
        games = sum(c for v, c in counts.items() if start <= v < start + width)
        out.append((start, start + width - 1, games))
    return out


def eta_squared(groups: Sequence[tuple[int, float, float]]) -> Optional[float]:
    """The share of the variance of a value explained by the group (one-way
    analysis of variance): between-group sum of squares over the total, from
    each group's (count, sum, sum of squares). None without variance."""
    n = sum(g[0] for g in groups)
    if n < 2:
        return None
    total = sum(g[1] for g in groups)
    squares = sum(g[2] for g in groups)
    ss_total = squares - total * total / n
    if ss_total <= 0:
        return None
    ss_between = sum(g[1] * g[1] / g[0] for g in groups if g[0]) - total * total / n
    return max(0.0, ss_between / ss_total)


def batch_interval(values: Sequence[float]) -> dict[str, float]:
    """The mean of per-batch estimates with a 95% interval from their spread
    (batch means; the batches are independent slices of games)."""
    k = len(values)
    m = sum(values) / k
    if k < 2:
        return interval(m, m, m)
    sd = math.sqrt(sum((v - m) ** 2 for v in values) / (k - 1))
    half = _t95(k - 1) * sd / math.sqrt(k)
    return interval(m, m - half, m + half)


def _t95(df: int) -> float:
    """Student's t quantile for a two-sided 95% interval (a table, then the normal)."""
    table = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365,
             8: 2.306, 9: 2.262, 10: 2.228, 12: 2.179, 15: 2.131, 20: 2.086, 30: 2.042,
             60: 2.000, 120: 1.980}
    if df > 120:
        return Z95
    return table[max(k for k in table if k <= df)]  # the next smaller df: never too narrow
