"""A rule-of-thumb 5 Alive bot.

The plan: get rid of number cards while they still fit, biggest first, so the
total climbs for the players after us; keep the wild cards and the ``0`` cards as
saves for when nothing else fits (a ``0`` also answers a Bomb). When only saves
are left, prefer the ones that hurt the others most (``=21``, the draws, the
Bomb) over the ones that merely pass the turn. A last card that fits is always
played, since going out costs everybody else a life.
"""

from __future__ import annotations

from typing import Any

#: Saves, most useful to play first when no number card (other than 0) fits.
SAVE_ORDER = ["BOMB", "=21", "D2", "D1", "SKIP", "REV", "PASS", "=10", "=0", "0", "REDEAL"]


class Bot:
    """Plays numbers high to low, then the most harmful save; always answers a Bomb."""

    def act(self, observation: dict[str, Any], legal_actions: list[str]) -> str:
        if "respond 0" in legal_actions:
            return "respond 0"  # a 0 is cheaper than a life
        plays = [a[len("play "):] for a in legal_actions if a.startswith("play ")]
        if not plays:
            return legal_actions[0]  # the forced flip (or decline)
        if len(observation["hand"]) == 1:
            return f"play {plays[0]}"  # going out costs everybody else a life
        if "REDEAL" in plays and self._hand_is_heavy(observation):
            return "play REDEAL"
        numbers = [c for c in plays if c.isdigit() and c != "0"]
        if numbers:
            return f"play {max(numbers, key=int)}"
        if len(observation["hand"]) > 4 and len(plays) > 1:
            plays = [c for c in plays if c != "BOMB"]  # hold it: a last-card Bomb costs two lives
        return f"play {min(plays, key=SAVE_ORDER.index)}"

    @staticmethod
    def _hand_is_heavy(observation: dict[str, Any]) -> bool:
        """A Redeal pays when we hold clearly more cards than the others on average."""
        me = observation["seat"]
        others = [n for s, n in enumerate(observation["hand_sizes"]) if s != me and n > 0]
        return bool(others) and len(observation["hand"]) > sum(others) / len(others) + 2
