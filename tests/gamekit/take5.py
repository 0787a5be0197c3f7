"""Take 5 test kit: the property tests' strategies (player counts, variants).
What the generic checks need of the game lives in ``cardref.verify.kits.take5``,
read here through the names below."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from cardref.verify.kits.take5 import (  # noqa: F401  (the tests read them here)
    cards,
    check,
    max_actions,
    permute_hidden,
)

PLAYERS = list(range(2, 11))


def variants(players: int) -> st.SearchStrategy[dict[str, Any]]:
    """Every §8 key, with end scores small enough that most games stay short."""
    return st.fixed_dictionaries(
        {},
        optional={
            "deck": st.sampled_from(["full", "tactics"]),
            "end_score": st.one_of(st.integers(1, 30), st.just(66), st.integers(67, 120)),
            "end_rule": st.sampled_from(["at_least", "more_than"]),
            "too_low_choice": st.sampled_from(["player", "auto_fewest_heads"]),
            "round_limit": st.one_of(st.none(), st.integers(1, 4)),
        },
    )
