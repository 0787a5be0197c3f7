"""5 Alive: what the generic checks need of the game (see ``cardref.verify.kits``)."""

from __future__ import annotations

import copy
import random
from typing import Any, Optional


def cards(data: dict[str, Any]) -> Optional[list[str]]:
    """Every card sits in a hand, the draw pile or the discard pile, even at the end."""
    return [c for hand in data["hands"] for c in hand] + data["draw_pile"] + data["discard_pile"]


def permute_hidden(data: dict[str, Any], seat: int, rng: random.Random) -> dict[str, Any]:
    """Shuffle the cards `seat` cannot see (the other hands and the draw pile)
    among those places, keeping each place's size."""
    out = copy.deepcopy(data)
    others = [s for s in range(data["players"]) if s != seat]
    pool = [c for s in others for c in out["hands"][s]] + out["draw_pile"]
    rng.shuffle(pool)
    for s in others:
        size = len(out["hands"][s])
        out["hands"][s], pool = pool[:size], pool[size:]
    out["draw_pile"] = pool
    return out


def check(data: dict[str, Any]) -> None:
    """The invariants of five_alive.md §3.2 and §6.7, on one state."""
    params, n = data["params"], data["players"]
    assert 0 <= data["total"] <= 21, data["total"]
    assert data["dir"] in (1, -1)
    assert data["action_count"] == len(data["history"]) <= params["max_actions"]
    if params["team_play"]:
        assert data["lives"] is None and len(data["team_lives"]) == 2
        lives = [data["team_lives"][s % 2] for s in range(n)]
        active = list(range(n))
    else:
        assert data["team_lives"] is None
        lives = data["lives"]
        active = [s for s in range(n) if lives[s] > 0]
    assert all(0 <= x <= params["lives"] for x in lives), lives
    for s in range(n):
        if s not in active:
            assert data["hands"][s] == [], "an eliminated seat holds cards"
    out = [s for batch in data["elimination_log"] for s in batch]
    assert len(out) == len(set(out)) and all(s not in active for s in out)
    if data["phase"] == "game_over":
        assert data["current"] is None and data["result"] is not None
        return
    assert data["current"] in active, "the player to act is eliminated"
    assert len(active) >= 2
    if data["phase"] == "play":
        # A team may reach 0 in the middle of an optional Bomb; the end waits for it.
        assert not params["team_play"] or 0 not in data["team_lives"]
        assert all(data["hands"][s] for s in active), "an active player has no cards in play"
        assert data["pending_bomb"] is None
    else:
        bomb = data["pending_bomb"]
        assert bomb["responders"][bomb["index"]] == data["current"]


def max_actions(players: int, params: dict[str, Any]) -> int:
    """five_alive.md §7.5: the cap ends every game after max_actions actions."""
    return params["max_actions"]
