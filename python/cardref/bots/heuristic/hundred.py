"""A rule-of-thumb bot for 100: keep the cards that save you, squeeze the next player.

Cards that can never bust (kings, fours, tens, jacks, the queen of hearts, the
subtracting fives and the value-choosing aces) are what gets a player out of a
high count, so the bot spends them last. Among the other safe cards it prefers the
one that leaves the highest value, which leaves the next player the fewest safe
cards. An ace is used only when nothing else is safe, and then sets 100 (or 0 when
no other card of the hand could follow a high value). When every card busts, the
bot gives up the card it values least.
"""

from __future__ import annotations

from typing import Any

#: How much a card is worth keeping: the higher, the later it is played.
RESCUE = {"A": 10, "QH": 7, "K": 6, "4": 6, "J": 5, "5H": 4, "5D": 4, "10": 3}


def rescue_value(card: str) -> int:
    """How useful ``card`` is to escape a high value."""
    return RESCUE.get(card, RESCUE.get(card[:-1], 0))


def value_after(card: str, value: int, params: dict[str, Any]) -> int:
    """The value after ``card`` (docs/rules/hundred.md §6.1); an ace that sets a value
    counts as keeping it, since it can always be played safely."""
    rank = card[:-1]
    if card == "2S":
        return 2 * value
    if card in ("AH", "AD") and params["red_ace"] == "one":
        return value + 1
    if rank in ("4", "K", "A"):
        return value
    if card in ("5H", "5D"):
        return value - 5
    if rank == "J":
        return value - 10
    if rank == "10":
        return 100
    if card == "QH":
        return 0
    if rank == "Q":
        return value + 10
    return value + int(rank)


class Bot:
    """Plays 100 from an observation and the legal actions."""

    def act(self, observation: dict[str, Any], legal_actions: list[str]) -> str:
        if len(legal_actions) == 1:
            return legal_actions[0]
        value = observation["value"]
        params = observation["params"]
        plain = [a for a in legal_actions if len(a.split(" ")) == 2]
        aces = [a for a in legal_actions if len(a.split(" ")) == 3]
        safe = [a for a in plain if value_after(a.split(" ")[1], value, params) <= 100]
        if safe:
            return max(safe, key=lambda a: self._score(a.split(" ")[1], value, params))
        if aces:
            return self._ace(observation, aces)
        # Every card busts: give up the least useful one.
        return min(plain, key=lambda a: (rescue_value(a.split(" ")[1]), a))

    def _score(self, card: str, value: int, params: dict[str, Any]) -> float:
        """Keep rescue cards; otherwise push the value as high as is safe."""
        return value_after(card, value, params) / 10 - 3 * rescue_value(card)

    def _ace(self, observation: dict[str, Any], aces: list[str]) -> str:
        """Set 100 if another card in hand could follow it, else set 0."""
        card = aces[0].split(" ")[1]
        others = list(observation["hand"])
        others.remove(card)
        keeps = any(value_after(c, 100, observation["params"]) <= 100 for c in others)
        return f"play {card} {100 if keeps else 0}"
