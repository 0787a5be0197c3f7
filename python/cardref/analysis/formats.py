"""How ``cardref analyze`` writes its figures, the same in the terminal and
on the page: shares as percentages, means with two decimals, intervals in
brackets; a value that rounds to zero is written without a sign."""

from __future__ import annotations

from typing import Callable, Optional


def pct(x: float) -> str:
    return f"{100 * x:.1f}%" if abs(x) >= 0.0005 else "0.0%"


def num(x: float) -> str:
    return f"{x:,.2f}" if abs(x) >= 0.005 else "0.00"


def signed(fmt: Callable[[float], str]) -> Callable[[float], str]:
    """``fmt`` with a plus sign on positive values that do not round to zero."""
    return lambda x: ("+" if x > 0 and fmt(x) != fmt(0.0) else "") + fmt(x)


def span(iv: Optional[dict[str, float]], fmt: Callable[[float], str] = pct) -> str:
    """A value with its 95% interval: ``25.7% [25.4%, 26.1%]``."""
    if iv is None:
        return "–"
    return f"{fmt(iv['value'])} [{fmt(iv['low'])}, {fmt(iv['high'])}]"
