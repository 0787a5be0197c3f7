"""Take 5: what the generic checks need of the game (see ``cardref.verify.kits``)."""

from __future__ import annotations

import copy
import random
from typing import Any, Optional


def cards(data: dict[str, Any]) -> Optional[list[str]]:
    """Every card's place: hands, commitments, rows, piles, unused and the revealed
    cards not yet placed. None at game end (the last piles are cleared)."""
    if data["phase"] == "game_over":
        return None
    found = [c for hand in data["hands"] for c in hand]
    found += [c for c in data["committed"] if c is not None]
    found += [c for row in data["rows"] for c in row]
    found += [c for pile in data["piles"] for c in pile] + data["unused"]
    if data["phase"] == "choose_row":
        found += [c for c, _ in data["revealed"][data["next_to_place"]:]]
    return found


def permute_hidden(data: dict[str, Any], seat: int, rng: random.Random) -> dict[str, Any]:
    """Shuffle the cards `seat` cannot see (other hands, others' commitments,
    unused) among those places, keeping each place's size."""
    out = copy.deepcopy(data)
    others = [s for s in range(data["players"]) if s != seat]
    pool = [c for s in others for c in out["hands"][s]] + out["unused"]
    pool += [out["committed"][s] for s in others if out["committed"][s] is not None]
    rng.shuffle(pool)
    key = int
    for s in others:
        size = len(out["hands"][s])
        out["hands"][s], pool = sorted(pool[:size], key=key), pool[size:]
        if out["committed"][s] is not None:
            out["committed"][s], pool = pool[0], pool[1:]
    out["unused"] = sorted(pool, key=key)
    return out


def check(data: dict[str, Any]) -> None:
    """Always 4 rows of 1 to 5 cards; hands shrink together; scores never negative."""
    assert len(data["rows"]) == 4
    assert all(1 <= len(row) <= 5 for row in data["rows"]), data["rows"]
    if data["phase"] == "commit":
        sizes = [len(h) + (c is not None) for h, c in zip(data["hands"], data["committed"])]
        assert sizes == [10 - data["turn"]] * data["players"], sizes
    assert all(s >= 0 for s in data["scores"])


def max_actions(players: int, params: dict[str, Any]) -> int:
    """take5.md §7: at most (end_score-1)N+1 rounds (at_least) or end_score*N+1
    (more_than), each with 10N commits and at most 10 row choices."""
    e = params["end_score"]
    rounds = (e - 1) * players + 1 if params["end_rule"] == "at_least" else e * players + 1
    if params["round_limit"] is not None:
        rounds = min(rounds, params["round_limit"])
    return rounds * (10 * players + 10)
