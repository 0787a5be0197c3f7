"""Variant keys: strict types and ranges (docs/rules/CONVENTIONS.md, "Configuration").

Each reference game lists its keys as ``Choice``/``Int``/``Bool`` specs; the
checks here turn a caller's keyword arguments into the effective values, or a
``InvalidParamsError`` naming the key and what is allowed. A boolean is never
accepted as an integer, and nothing is coerced.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Optional, Union

from .errors import InvalidParamsError


def _describe(value: Any) -> str:
    if isinstance(value, bool):
        return f"the boolean {'true' if value else 'false'}"
    if isinstance(value, int):
        return f"the integer {value}"
    if isinstance(value, str):
        return f"the string {value!r}"
    if value is None:
        return "none"
    return f"{value!r} (a {type(value).__name__})"


@dataclass(frozen=True)
class Choice:
    """One of a list of strings; the first is the default."""

    key: str
    choices: Sequence[str]

    def check(self, value: Any) -> str:
        if isinstance(value, str) and value in self.choices:
            return value
        allowed = ", ".join(f'"{c}"' for c in self.choices)
        raise InvalidParamsError(f"{self.key}: must be one of {allowed}, got {_describe(value)}")

    @property
    def default(self) -> str:
        return self.choices[0]


@dataclass(frozen=True)
class Int:
    """An integer in [low, high] (high None = unbounded); optional keys also take None."""

    key: str
    default: Optional[int]
    low: int
    high: Optional[int] = None
    optional: bool = False

    def check(self, value: Any) -> Optional[int]:
        if value is None and self.optional:
            return None
        ok = isinstance(value, int) and not isinstance(value, bool)
        if ok and value >= self.low and (self.high is None or value <= self.high):
            return value
        span = f">= {self.low}" if self.high is None else f"from {self.low} to {self.high}"
        raise InvalidParamsError(f"{self.key}: must be an integer {span}, got {_describe(value)}")


@dataclass(frozen=True)
class Bool:
    """True or false."""

    key: str
    default: bool

    def check(self, value: Any) -> bool:
        if isinstance(value, bool):
            return value
        raise InvalidParamsError(f"{self.key}: must be true or false, got {_describe(value)}")


@dataclass(frozen=True)
class SeatOrRandom:
    """``first_dealer`` where it may be drawn: a seat number, checked against
    the table by the game's ``check_config`` (``check_seat``), or "random"."""

    key: str
    default: Any = 0

    def check(self, value: Any) -> Any:
        if value == "random" and isinstance(value, str):
            return value
        if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
            return value
        raise InvalidParamsError(
            f'{self.key}: must be a seat number or "random", got {_describe(value)}'
        )


def check_seat(key: str, value: Any, players: int) -> None:
    """Refuses a seat (of a ``SeatOrRandom`` key) the table does not have."""
    if value != "random" and value >= players:
        raise InvalidParamsError(
            f'{key}: must be a seat from 0 to {players - 1} or "random", '
            f"got the integer {value}"
        )


Spec = Union[Choice, Int, Bool, SeatOrRandom]


def check_variant(specs: Sequence[Spec], given: dict[str, Any]) -> dict[str, Any]:
    """The effective value of every key, after rejecting unknown keys and bad values."""
    known = {spec.key for spec in specs}
    for key in given:
        if key not in known:
            allowed = ", ".join(sorted(known))
            close = difflib.get_close_matches(key, sorted(known), n=1, cutoff=0.75)
            hint = f" did you mean {close[0]}?" if close else ""
            raise InvalidParamsError(f"{key}: unknown variant key;{hint} allowed keys: {allowed}")
    return {s.key: s.check(given[s.key]) if s.key in given else s.default for s in specs}


def check_players(players: Any, low: int, high: int) -> int:
    """The player count, if it is an integer the game allows."""
    if isinstance(players, int) and not isinstance(players, bool) and low <= players <= high:
        return players
    raise InvalidParamsError(
        f"players: must be an integer from {low} to {high}, got {_describe(players)}"
    )
