"""100: what the generic checks need of the game, from ``docs/rules/hundred.md``
(see ``cardref.verify.kits``)."""

from __future__ import annotations

import random
from typing import Any, Optional

LIMIT = 100
NEGATIVE_FLOOR = -1_000_000_000  # HU-22


def _decks(players: int, num_decks: Any) -> int:
    if num_decks == "auto":
        return 1 if players <= 6 else 2
    return num_decks


def cards(data: dict[str, Any]) -> Optional[list[str]]:
    """Every card of the state: hands, stock and pile."""
    return [c for hand in data["hands"] for c in hand] + data["stock"] + data["pile"]


def permute_hidden(data: dict[str, Any], seat: int, rng: random.Random) -> dict[str, Any]:
    """The other seats' hands and the stock, shuffled among themselves, sizes kept."""
    out = dict(data)
    others = [s for s in range(len(data["hands"])) if s != seat]
    hidden = [c for s in others for c in data["hands"][s]] + list(data["stock"])
    rng.shuffle(hidden)
    hands = [list(h) for h in data["hands"]]
    for s in others:
        size = len(hands[s])
        hands[s], hidden = hidden[:size], hidden[size:]
    out["hands"] = hands
    out["stock"] = hidden
    return out


def check(data: dict[str, Any]) -> None:
    """§3.2 invariants: value bounds, hand sizes, chips and eliminations, phase."""
    params = data["params"]
    n = data["players"]
    low = NEGATIVE_FLOOR if params["allow_negative"] else 0
    assert low <= data["value"] <= LIMIT, data["value"]
    assert data["dir"] in (1, -1)
    out = [s for s in range(n) if data["chips"][s] == 0]
    assert sorted(data["elimination_log"]) == out
    assert all(0 <= c <= params["chips"] for c in data["chips"])
    for s in range(n):
        assert len(data["hands"][s]) == (0 if s in out else params["hand_size"])
    assert data["action_count"] == len(data["history"]) <= params["max_actions"]
    if data["phase"] == "PLAY":
        assert data["result"] is None and data["chips"][data["current"]] > 0
        assert len(out) <= n - 2
    else:
        assert data["phase"] == "GAME_OVER" and data["current"] is None
        reason = data["result"]["reason"]
        assert reason in ("LAST_STANDING", "CAP")
        if reason == "LAST_STANDING":
            assert len(out) == n - 1 and data["result"]["ranking"][0] == [
                s for s in range(n) if s not in out
            ]
        else:
            assert data["action_count"] == params["max_actions"]
        ranked = sorted(s for group in data["result"]["ranking"] for s in group)
        assert ranked == list(range(n))
        assert data["result"]["ranking"][len(data["result"]["ranking"]) - len(out):] == [
            [s] for s in reversed(data["elimination_log"])
        ]


def max_actions(players: int, params: dict[str, Any]) -> int:
    """§7.3: the game stops after ``max_actions`` actions at the latest."""
    return params["max_actions"]
