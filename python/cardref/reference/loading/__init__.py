"""Loading a reference state from its JSON: the field readers every game's
loader shares (``loading/<game>.py`` reads its own fields with them and checks
that the state is whole). Every problem is an ``InvalidStateError`` that names
the field; the Rust core's readers are ``rust/src/json.rs``.
"""

from __future__ import annotations

from typing import Any, NoReturn, Optional

from ...errors import InvalidStateError


def fail(why: str) -> NoReturn:
    """Refuse the state: ``why`` names the field or the broken invariant."""
    raise InvalidStateError(f"invalid state: {why}")


def ensure(ok: bool, why: str) -> None:
    """Refuse the state unless ``ok``."""
    if not ok:
        fail(why)


def is_int(value: Any) -> bool:
    """A JSON integer (a boolean is not one)."""
    return isinstance(value, int) and not isinstance(value, bool)


def field(data: Any, key: str) -> Any:
    """The field ``key`` of an object."""
    if not isinstance(data, dict) or key not in data:
        fail(f"missing field {key!r}")
    return data[key]


def integer(data: Any, key: str, low: int, high: Optional[int] = None) -> int:
    """The field ``key``: an integer from ``low`` to ``high`` (no upper bound if None)."""
    value = field(data, key)
    if not is_int(value) or value < low or (high is not None and value > high):
        upper = "" if high is None else f" and <= {high}"
        fail(f"field {key!r} must be an integer >= {low}{upper}")
    return value


def uint(data: Any, key: str) -> int:
    """The field ``key``: a non-negative integer that fits in 64 bits."""
    return integer(data, key, 0, 2**64 - 1)


def a_list(value: Any, what: str) -> list[Any]:
    """``value``, which must be a list (``what`` names it)."""
    if not isinstance(value, list):
        fail(f"{what} must be a list")
    return value


def per_seat(data: Any, key: str, players: int) -> list[Any]:
    """The field ``key``: a list with one entry per seat."""
    value = field(data, key)
    if not isinstance(value, list) or len(value) != players:
        fail(f"{key!r} must have one entry per seat")
    return value


def ints(value: Any, what: str) -> list[int]:
    """A list of integers."""
    items = a_list(value, what)
    if not all(is_int(x) for x in items):
        fail(f"{what} must hold integers")
    return list(items)


def strings(value: Any, what: str) -> list[str]:
    """A list of strings (e.g. actions)."""
    items = a_list(value, what)
    if not all(isinstance(x, str) for x in items):
        fail(f"{what} must hold strings")
    return list(items)


def seat(value: Any, players: int, what: str) -> int:
    """A seat number of this table."""
    if not is_int(value) or not 0 <= value < players:
        fail(f"{what} must be a seat from 0 to {players - 1}")
    return value


def seats(value: Any, players: int, what: str) -> list[int]:
    """A list of seat numbers."""
    return [seat(s, players, what) for s in a_list(value, what)]
