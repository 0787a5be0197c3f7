"""Test kit of High Card, the game for the tests only (tests/testgame/rules.md)."""

from __future__ import annotations

import copy
import random
from typing import Any, Optional

from hypothesis import strategies as st

PLAYERS = [2, 3, 4]


def variants(players: int) -> st.SearchStrategy[dict[str, Any]]:
    """Every §8 key, each left out at times (its default)."""
    return st.fixed_dictionaries(
        {},
        optional={
            "hand_size": st.integers(1, 6),
            "scoring": st.sampled_from(["count", "sum"]),
        },
    )


def cards(data: dict[str, Any]) -> Optional[list[str]]:
    """Every card's place: hands, stock, the round in play, the rounds played."""
    found = [c for hand in data["hands"] for c in hand] + data["stock"] + data["played"]
    return found + [c for _, c in data["round"]]


def permute_hidden(data: dict[str, Any], seat: int, rng: random.Random) -> dict[str, Any]:
    """The other hands and the stock, shuffled among themselves, sizes kept."""
    out = copy.deepcopy(data)
    others = [s for s in range(data["players"]) if s != seat]
    pool = [c for s in others for c in out["hands"][s]] + out["stock"]
    rng.shuffle(pool)
    for s in others:
        size = len(out["hands"][s])
        out["hands"][s], pool = sorted(pool[:size], key=int), pool[size:]
    out["stock"] = pool
    return out


def check(data: dict[str, Any]) -> None:
    """§6: a round holds fewer plays than seats; no hand holds more than hand_size
    cards; the stock runs out only at a round's end (its size is a multiple of N)."""
    n = data["players"]
    assert len(data["round"]) < n
    assert all(len(h) <= data["params"]["hand_size"] for h in data["hands"])
    if not data["round"]:
        assert len(data["stock"]) % n == 0
        assert len({len(h) for h in data["hands"]}) == 1


def max_actions(players: int, params: dict[str, Any]) -> int:
    """§7: 6 rounds of N plays at most."""
    return 6 * players
