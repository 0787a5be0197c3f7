"""5 Alive test kit: the property tests' strategies (player counts, variants).
What the generic checks need of the game lives in ``cardref.verify.kits.five_alive``,
read here through the names below."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from cardref.verify.kits.five_alive import (  # noqa: F401  (the tests read them here)
    cards,
    check,
    max_actions,
    permute_hidden,
)

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
