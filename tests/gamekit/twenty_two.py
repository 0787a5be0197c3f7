"""Twenty-Two test kit: the property tests' strategies (player counts, variants).
What the generic checks need of the game lives in ``cardref.verify.kits.twenty_two``,
read here through the names below."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from cardref.verify.kits.twenty_two import (  # noqa: F401  (the tests read them here)
    cards,
    check,
    max_actions,
    permute_hidden,
)

PLAYERS = [2, 3, 4, 5, 6]


@st.composite
def _variant(draw: st.DrawFn, players: int) -> dict[str, Any]:
    """Every §8 key, each left out at times (its default), in valid combinations only:
    tied_dealer = "first" only with last_trick_tie = "all_tied_score"."""
    out: dict[str, Any] = draw(
        st.fixed_dictionaries(
            {},
            optional={
                "first_dealer": st.sampled_from(["random", *range(players)]),
                "first_hand_size": st.integers(2, 8),
                # Mostly low limits keep games short; 22 and the full range still come up.
                "elimination_score": st.one_of(
                    st.integers(2, 12), st.just(22), st.integers(2, 30)
                ),
                "follow_rule": st.sampled_from(["free_choice", "lowest_only_if_cannot_beat"]),
                "last_trick_tie": st.sampled_from(
                    ["all_tied_score", "last_played_wins", "first_played_wins"]
                ),
            },
        )
    )
    if out.get("last_trick_tie", "all_tied_score") == "all_tied_score" and draw(st.booleans()):
        out["tied_dealer"] = draw(st.sampled_from(["last", "first"]))
    return out


def variants(players: int) -> st.SearchStrategy[dict[str, Any]]:
    return _variant(players)
