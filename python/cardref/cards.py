"""Card helpers shared by the reference games: checking an explicit deck."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from .errors import InvalidDeckError


def check_deck(deck: Any, canonical: Sequence[str]) -> list[str]:
    """Return ``deck`` if it is a permutation of ``canonical`` (the cards in play,
    with repeats where a card exists more than once); else InvalidDeckError."""
    if not isinstance(deck, list):
        raise InvalidDeckError("invalid deck: deck must be a list of card codes (top card first)")
    for i, card in enumerate(deck):
        if not isinstance(card, str):
            raise InvalidDeckError(f"invalid deck: deck[{i}] = {card!r} is not a card code string")
    have, want = Counter(deck), Counter(canonical)
    for i, card in enumerate(deck):
        if card not in want:
            raise InvalidDeckError(
                f"invalid deck: {card!r} at position {i} is not a card of this game"
            )
        if have[card] > want[card]:
            raise InvalidDeckError(
                f"invalid deck: card {card!r} appears {have[card]} times, the game has {want[card]}"
            )
    missing = [card for card in canonical if have[card] < want[card]]
    if missing:
        raise InvalidDeckError(
            f"invalid deck: the deck has {len(deck)} cards, expected {len(canonical)}; "
            f"missing {missing[0]!r}"
        )
    return list(deck)
