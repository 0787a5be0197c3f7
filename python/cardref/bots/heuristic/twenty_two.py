"""A rule-of-thumb Twenty-Two bot: keep a low card for the final trick.

Only the final trick scores, and there the highest card loses. So the bot
- discards its high cards (jack and up) while the stock lasts, hoping to draw lower;
- leads the highest cards it can spare, never its lowest card;
- when following, plays the legal set that leaves it the lowest possible hand,
  which means beating with high cards whenever it may and only giving up low
  cards when the rules force a lowest set.
"""

from __future__ import annotations

from typing import Any

RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
#: Cards of this rank index or higher are worth swapping for a random draw.
HIGH = RANKS.index("J")


def rank(card: str) -> int:
    return RANKS.index(card[:-1])


def cards_of(action: str) -> list[str]:
    return action.split(" ")[1:]


class Bot:
    """Plays from the observation alone; deterministic."""

    def act(self, observation: dict[str, Any], legal_actions: list[str]) -> str:
        if observation["phase"] == "discard":
            return self._discard(observation, legal_actions)
        return min(legal_actions, key=lambda a: self._left_after(observation["hand"], a))

    def _discard(self, observation: dict[str, Any], legal_actions: list[str]) -> str:
        """Its high cards, highest first, as many as the stock allows (legal
        discards are listed by size, so the last one has the most cards)."""
        most = len(cards_of(legal_actions[-1]))
        high = sorted((c for c in observation["hand"] if rank(c) >= HIGH), key=rank)[-most:]
        action = " ".join(["discard", *(c for c in observation["hand"] if c in high)])
        return action if most and action in legal_actions else "discard"

    @staticmethod
    def _left_after(hand: list[str], action: str) -> tuple[int, ...]:
        """Ranks left in hand, highest first: smaller is better (a low last card,
        and as few high cards still to get rid of as possible)."""
        played = set(cards_of(action))
        return tuple(sorted((rank(c) for c in hand if c not in played), reverse=True))
