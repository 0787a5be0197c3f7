"""Writing the TOML of scenario files: the few value kinds they hold."""

from __future__ import annotations

import json
import re
from typing import Any

_BARE = re.compile(r"^[A-Za-z0-9_-]+$")


def representable(value: Any) -> bool:
    """Whether TOML can hold ``value`` (it has no null)."""
    if value is None:
        return False
    if isinstance(value, (list, tuple)):
        return all(representable(v) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and representable(v) for k, v in value.items())
    return isinstance(value, (str, int, float, bool))


def key(name: str) -> str:
    return name if _BARE.match(name) else json.dumps(name)


def value(v: Any) -> str:
    """One TOML value, inline (strings as JSON strings, which TOML reads alike)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{key(k)} = {value(x)}" for k, x in v.items()) + "}"
    raise TypeError(f"TOML cannot hold {v!r}")


def pair(name: str, v: Any) -> str:
    """``name = value``, or for a value TOML cannot hold, ``name_json = "<JSON>"``."""
    if representable(v):
        return f"{key(name)} = {value(v)}"
    return f"{key(name + '_json')} = {json.dumps(json.dumps(v, sort_keys=True))}"


def comment(text: str) -> str:
    return "\n".join(f"# {line}".rstrip() for line in text.splitlines())
