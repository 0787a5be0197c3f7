"""5 Alive test kit (see gamekit/__init__.py)."""

from __future__ import annotations

import copy
import random
from typing import Any, Optional

from hypothesis import strategies as st

PLAYERS = [2, 3, 4, 5, 6, 7]
DECK_SIZE = {"hasbro77": 77, "alt75": 75}


@st.composite
def _variant(draw: st.DrawFn, players: int) -> dict[str, Any]:
    """Every §8 key, valid combinations only; few lives so most games stay short,
    and now and then a small cap so the CAP ending is reached too."""
    profile = draw(st.sampled_from(["hasbro77", "alt75"]))
    team = players in (4, 6) and draw(st.booleans())
    variant: dict[str, Any] = {
        "deck_profile": profile,
        "lives": draw(st.integers(1, 5)),
        "hand_size": draw(st.integers(1, min(10, DECK_SIZE[profile] // players))),
        "first_dealer": draw(st.integers(0, players - 1)),
        "reset_direction_each_round": draw(st.booleans()),
        "allow_voluntary_flip": draw(st.booleans()),
        "flip_ends_turn": draw(st.booleans()),
        "bomb_response": draw(st.sampled_from(["forced", "optional"])),
        "redeal_deal_order": draw(st.sampled_from(["clockwise_from_left", "play_direction"])),
        "sudden_death": not team and draw(st.booleans()),
        "team_play": team,
        "team_wilds_hit_teammates": draw(st.booleans()),
        "max_actions": draw(st.one_of(st.integers(1, 80), st.just(10000))),
    }
    variant["allow_seven_players"] = players == 7 or draw(st.booleans())
    # Any key may be left out: every default is valid for 2-7 players.
    dropped = draw(st.sets(st.sampled_from(sorted(variant))))
    if players == 7:
        dropped.discard("allow_seven_players")
    return {k: v for k, v in variant.items() if k not in dropped}


def variants(players: int) -> st.SearchStrategy[dict[str, Any]]:
    return _variant(players)


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
