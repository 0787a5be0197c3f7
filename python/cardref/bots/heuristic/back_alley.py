"""A rule-of-thumb Back Alley bot.

Bidding: count the tricks the hand should take (jokers, high trumps, side
aces and guarded kings), bid that many (capped by what the table allows and by
what is left after the partner's bid), and bid board only on a one-card hand
holding a sure winner. Play: win a trick as cheaply as possible unless the
partner is already winning it; otherwise throw the lowest card. Leads: a side
ace or a top trump when allowed, else the lowest card.
"""

from __future__ import annotations

from typing import Any, Optional

RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]


def _suit(card: str) -> Optional[str]:
    return None if card in ("BB", "LB") else card[-1]


def _rank(card: str) -> int:
    return RANKS.index(card[:-1])


class Bot:
    """Greedy partnership play; see the module docstring."""

    def act(self, observation: dict[str, Any], legal_actions: list[str]) -> str:
        if legal_actions[0].startswith("bid"):
            return self._bid(observation, legal_actions)
        return self._play(observation, legal_actions)

    # Bidding ---------------------------------------------------------------

    def _is_trump(self, card: str, trump: str) -> bool:
        return card in ("BB", "LB") or _suit(card) == trump

    def _expected_tricks(self, hand: list[str], trump: str) -> float:
        tricks = 0.0
        trumps = [c for c in hand if self._is_trump(c, trump)]
        for card in hand:
            if card in ("BB", "LB"):
                tricks += 1.0
            elif self._is_trump(card, trump):
                tricks += 1.0 if _rank(card) >= 11 else 0.6 if _rank(card) >= 8 else 0.25
            else:
                suit_len = sum(1 for c in hand if _suit(c) == _suit(card))
                if _rank(card) == 12:
                    tricks += 0.9
                elif _rank(card) == 11 and suit_len >= 2:
                    tricks += 0.5
        return tricks + 0.2 * max(0, len(trumps) - 3)

    def _bid(self, obs: dict[str, Any], legal: list[str]) -> str:
        n = obs["hand_size"]
        seat = obs["seat"]
        partner_bid = next((b for s, b in obs["bids"] if s == (seat + 2) % 4), None)
        expected = self._expected_tricks(obs["hand"], obs["trump"])
        if n == 1:
            sure = any(c in ("BB", "LB") for c in obs["hand"]) or (
                obs["hand"][0][:-1] == "A" and _suit(obs["hand"][0]) == obs["trump"]
            )
            return "bid board" if sure and partner_bid != "board" else "bid pass"
        wanted = int(expected + 0.3)
        if partner_bid not in (None, "pass", "board"):
            wanted = min(wanted, n - int(partner_bid))
        numbers = [int(a[4:]) for a in legal if a[4:].isdigit()]
        if wanted <= 0 or not numbers:
            return "bid pass"
        return f"bid {min(wanted, max(numbers))}"

    # Play --------------------------------------------------------------------

    def _strength(self, card: str, led: str, trump: str) -> int:
        if self._is_trump(card, trump):
            return 100 + {"BB": 14, "LB": 13}.get(card, _rank(card) if card[:-1] in RANKS else 0)
        if _suit(card) == _suit(led) and led not in ("BB", "LB"):
            return _rank(card)
        return -1

    def _play(self, obs: dict[str, Any], legal: list[str]) -> str:
        cards = [a[5:] for a in legal]
        trump = obs["trump"]
        trick = obs["trick"]
        if not trick:
            return "play " + self._lead(cards, trump)
        led = trick[0][1]
        best_seat, best_card = max(trick, key=lambda sc: self._strength(sc[1], led, trump))
        best = self._strength(best_card, led, trump)
        cheapest = min(cards, key=lambda c: (self._strength(c, led, trump), _order(c)))
        if best_seat == (obs["seat"] + 2) % 4:
            return "play " + cheapest  # the partner is winning: keep high cards
        winners = [c for c in cards if self._strength(c, led, trump) > best]
        if winners:
            return "play " + min(winners, key=lambda c: self._strength(c, led, trump))
        return "play " + cheapest

    def _lead(self, cards: list[str], trump: str) -> str:
        top_trumps = [
            c for c in cards if c in ("BB", "LB") or (self._is_trump(c, trump) and _rank(c) == 12)
        ]
        if top_trumps:
            return top_trumps[0]
        aces = [c for c in cards if not self._is_trump(c, trump) and c[:-1] == "A"]
        if aces:
            return aces[0]
        plain = [c for c in cards if not self._is_trump(c, trump)] or cards
        return min(plain, key=_order)


def _order(card: str) -> int:
    """Low cards first: by rank, jokers last."""
    return 20 if card in ("BB", "LB") else _rank(card)
