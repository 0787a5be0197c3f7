"""Back Alley test kit: the property tests' strategies (player counts, variants).
What the generic checks need of the game lives in ``cardref.verify.kits.back_alley``,
read here through the names below."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from cardref.verify.kits.back_alley import (  # noqa: F401  (the tests read them here)
    NAMED,
    ORDER,
    cards,
    check,
    check_tricks,
    max_actions,
    permute_hidden,
)

PLAYERS = [4]


def variants(players: int) -> st.SearchStrategy[dict[str, Any]]:
    """Every §8 key. Short explicit schedules are drawn 19 times in 20 so that
    the many random games stay quick; the named (25/26-deal) schedules still
    come up."""
    short = st.lists(st.integers(1, 13), min_size=1, max_size=4)
    named = st.sampled_from(sorted(NAMED))
    schedule = st.integers(0, 19).flatmap(lambda k: named if k == 0 else short)
    points = st.one_of(st.integers(-20, 20), st.integers(-(2**31), 2**31 - 1))
    return st.fixed_dictionaries(
        {"schedule": schedule},
        optional={
            "first_dealer": st.one_of(st.integers(0, 3), st.just("random")),
            "joker_upcard": st.sampled_from(["no_trump", "turn_next"]),
            "joker_exchange_draw": st.sampled_from(["top", "bottom"]),
            "bid_cap": st.sampled_from(["hand_size_minus_one", "hand_size"]),
            "bid_not_above_previous": st.booleans(),
            "board_lead": st.sampled_from(["last", "first"]),
            "board_multiplier": st.sampled_from(["linear", "doubling"]),
            "board_multiplier_scope": st.sampled_from(["team", "hand"]),
            "board_trump_lead_exemption": st.sampled_from(["player", "team", "none"]),
            "blooper_lead_rules": st.booleans(),
            "big_blooper_binds_partner": st.booleans(),
            "bid_points_per_trick": points,
            "overtrick_points": points,
            "set_points_per_bid_trick": points,
            "board_points_per_trick": points,
            "max_consecutive_all_pass": st.integers(1, 5),
        },
    )
