"""100 test kit: the property tests' strategies (player counts, variants).
What the generic checks need of the game lives in ``cardref.verify.kits.hundred``,
read here through the names below."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from cardref.verify.kits.hundred import (  # noqa: F401  (the tests read them here)
    _decks,
    cards,
    check,
    max_actions,
    permute_hidden,
)

PLAYERS: list[int] = list(range(2, 13))  # 2 only with allow_two_players


@st.composite
def _variant(draw: Any, players: int) -> dict[str, Any]:
    """Every §8 key, valid combinations only (2 players need allow_two_players)."""
    v: dict[str, Any] = {}
    two = draw(st.booleans()) if players > 2 else True
    if two or players == 2:
        v["allow_two_players"] = two
    num_decks = draw(st.sampled_from(["auto", 1, 2]))
    if draw(st.booleans()):
        v["num_decks"] = num_decks
    deck = 52 * _decks(players, num_decks)
    if draw(st.booleans()):
        v["hand_size"] = draw(st.integers(1, min(8, (deck - 1) // players)))
    elif 3 * players >= deck:
        v["hand_size"] = (deck - 1) // players
    if draw(st.booleans()):
        v["chips"] = draw(st.sampled_from([1, 2, 4]))  # 3 is the default
    if draw(st.booleans()):
        v["first_dealer"] = draw(st.integers(0, players - 1))
    if draw(st.booleans()):
        v["red_ace"] = draw(st.sampled_from(["one", "choose", "zero"]))
    if draw(st.booleans()):
        v["bust_rule"] = draw(st.sampled_from(["reset", "void", "redeal"]))
    for key in ("allow_negative", "allow_voluntary_bust"):
        if draw(st.booleans()):
            v[key] = draw(st.booleans())
    if draw(st.booleans()):
        v["max_actions"] = draw(st.integers(1, 400))
    return v


def variants(players: int) -> Any:
    """A Hypothesis strategy of variant dicts for ``players`` seats."""
    return _variant(players)
