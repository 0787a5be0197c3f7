"""Take 5 heuristic: play the card least likely to take a row; take the
cheapest row when forced to choose.

For each card in hand it estimates the bullheads it risks this turn: a card
lower than every row end takes the cheapest row; a card that would be sixth
takes its row; otherwise the risk grows with the gap to the row end (more room
for other players' cards to land first) and with how full the row already is.
"""

from __future__ import annotations

from typing import Any

from cardref.reference.take5 import heads


def _row_heads(row: list[int]) -> int:
    return sum(heads(c) for c in row)


def card_cost(card: int, rows: list[list[int]], players: int) -> float:
    """Expected bullheads (a rough estimate) of playing ``card`` now."""
    below = [r for r in rows if r[-1] < card]
    if not below:
        return min(_row_heads(r) for r in rows) + 0.5
    row = max(below, key=lambda r: r[-1])
    if len(row) == 5:
        return _row_heads(row)
    gap = card - row[-1]
    slots = 5 - len(row)  # cards that fit before mine would be sixth
    others = (players - 1) * min(1.0, gap / 20)  # other cards likely to land first
    danger = max(0.0, others - slots + 1) / max(1, players - 1)
    return danger * (_row_heads(row) + 1) + gap / 1000


class Bot:
    """Minimises the bullheads risked on each card."""

    def act(self, observation: dict[str, Any], legal_actions: list[str]) -> str:
        rows = [[int(c) for c in row] for row in observation["rows"]]
        if legal_actions[0].startswith("take"):
            return min(legal_actions, key=lambda a: (_row_heads(rows[int(a.split()[1])]), a))
        players = observation["players"]

        def cost(action: str) -> tuple[float, int]:
            card = int(action.split()[1])
            return (card_cost(card, rows, players), -card)

        return min(legal_actions, key=cost)
