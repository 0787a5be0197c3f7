"""High Card: the readable reference, following ``tests/testgame/rules.md``.

- §4 Shuffle the cards 1..6N, deal ``hand_size`` each from seat 0; the rest is
  the stock. Seat 0 leads.
- §5 Each round every seat plays one card, the leader first, then clockwise;
  any card of the hand may be played (HC-1).
- §6 The player draws the top stock card, if any (HC-2). The highest card
  wins the round: a point, or the round's sum with ``scoring = "sum"``; its
  player leads next (HC-3).
- §7 When the hands are empty the game is over; the higher score places
  better, equal scores share (HC-4).

Actions: ``play C``, one per card of the hand, ascending.
"""

from __future__ import annotations

from typing import Any, Optional

from cardref.params import Choice, Int
from cardref.reference.base import GameSpec, ReferenceState, fired
from cardref.results import competition_placements
from cardref.rng import SplitMix64

GAME = GameSpec(id="high_card", min_players=2, max_players=4, default_players=3,
                rule_prefix="HC", loader="testgame.loading")
GAME_ID = GAME.id
CARDS_PER_SEAT = 6

#: The rule points of the rule book's §11: every clause that can fire in play.
RULE_POINTS = {
    "HC-P1": "§4 The cards are dealt: `hand_size` to each seat from seat 0, the rest is the stock.",
    "HC-P2": "§6 A card is played and its player draws the top card of the stock (HC-2).",
    "HC-P3": "§6 A card is played and the stock is empty: its player draws nothing.",
    "HC-P4": "§6 A round ends: the highest card's player scores a point and leads next (HC-3).",
    "HC-P5": "§6 `scoring = \"sum\"`: a round's winner scores the sum of its cards.",
    "HC-P6": "§7 The hands are empty and several seats share the highest score (HC-4).",
}


# §3 State ---------------------------------------------------------------------


class State(ReferenceState):
    """A game of High Card. Cards are ints inside, decimal strings outside."""

    GAME_ID = GAME_ID

    def __init__(self, players: int, params: dict[str, Any], seed: int, deck: Optional[list[str]]):
        self.players = players
        self.params = params
        self.rng = SplitMix64(seed)
        self.round: list[tuple[int, int]] = []
        self.played: list[int] = []
        self.leader = 0
        self.to_act: Optional[int] = 0
        self.scores_so_far = [0] * players
        self._history: list[str] = []
        self._deal([int(c) for c in deck] if deck is not None else self._shuffled_deck())

    # §4 Setup and deal ------------------------------------------------------

    def _shuffled_deck(self) -> list[int]:
        cards = list(range(1, highest_card(self.players, self.params) + 1))
        self.rng.shuffle(cards)
        return cards

    def _deal(self, deck: list[int]) -> None:
        """§4: ``hand_size`` each, one at a time from seat 0; the rest is the stock."""
        fired("HC-P1")
        dealt = self.params["hand_size"] * self.players
        self.hands: list[list[int]] = [sorted(deck[s:dealt:self.players])
                                       for s in range(self.players)]
        self.stock = deck[dealt:]

    # §5 Turn structure and legal actions -----------------------------------

    def current_player(self) -> Optional[int]:
        return self.to_act

    def legal_actions(self) -> list[str]:
        """Any card of the hand, ascending (HC-1)."""
        if self.to_act is None:
            return []
        return [f"play {card}" for card in self.hands[self.to_act]]

    def illegal_reason(self, action: str) -> str:
        verb, _, arg = action.partition(" ")
        if verb == "play" and arg.isdigit() and str(int(arg)) == arg:
            return f"card {arg} is not in its hand"
        return "not an action of high_card (play C)"

    def _apply_unchecked(self, action: str) -> None:
        self._history.append(action)
        self._play_card(int(action.split(" ")[1]))

    # §6 Effects ---------------------------------------------------------------

    def _play_card(self, card: int) -> None:
        """§6.1: the card goes to the round and the player draws; after the
        last seat the round is won."""
        seat = self.to_act
        self.hands[seat].remove(card)
        self.round.append((seat, card))
        self._draw(seat)
        if len(self.round) < self.players:
            self.to_act = (seat + 1) % self.players
        else:
            self._end_round()

    def _draw(self, seat: int) -> None:
        """HC-2: the top card of the stock, if there is one."""
        if self.stock:
            fired("HC-P2")
            self.hands[seat] = sorted([*self.hands[seat], self.stock.pop(0)])
        else:
            fired("HC-P3")

    def _end_round(self) -> None:
        """§6.2: the highest card wins (HC-3) and leads the next round."""
        winner, _ = max(self.round, key=lambda play: play[1])
        cards = [card for _, card in self.round]
        fired("HC-P5" if self.params["scoring"] == "sum" else "HC-P4")
        self.scores_so_far[winner] += sum(cards) if self.params["scoring"] == "sum" else 1
        self.played = sorted(self.played + cards)
        self.round = []
        self.leader = winner
        self.to_act = None if not any(self.hands) else winner
        top = max(self.scores_so_far)
        if self.to_act is None and self.scores_so_far.count(top) > 1:
            fired("HC-P6")

    # §7 Game end --------------------------------------------------------------

    def scores(self) -> list[int]:
        return list(self.scores_so_far)

    def final_placements(self) -> list[int]:
        """The higher score is better; equal scores share (HC-4)."""
        s = self.scores_so_far
        return competition_placements(self.players, lambda a, b: s[a] > s[b])

    def rounds(self) -> int:
        """Rounds begun so far: the rounds won, and the one in play."""
        return len(self.played) // self.players + (1 if self.round else 0)

    # Observation and JSON -------------------------------------------------------

    def observation(self, seat: int) -> dict[str, Any]:
        """Every play is public; a seat sees its own hand and the sizes of the others."""
        if not 0 <= seat < self.players:
            raise ValueError(f"seat {seat} does not exist; seats are 0 to {self.players - 1}")
        return {
            "game": GAME_ID,
            "seat": seat,
            "players": self.players,
            "params": dict(self.params),
            "hand": [str(c) for c in self.hands[seat]],
            "hand_sizes": [len(h) for h in self.hands],
            "stock_size": len(self.stock),
            "round": self._round_json(),
            "leader": self.leader,
            "to_act": self.to_act,
            "scores": self.scores(),
            "history": list(self._history),
        }

    def _round_json(self) -> list[list[Any]]:
        return [[seat, str(card)] for seat, card in self.round]

    def to_dict(self) -> dict[str, Any]:
        return {
            "game": GAME_ID,
            "players": self.players,
            "params": dict(self.params),
            "rng": self.rng.state,
            "hands": [[str(c) for c in hand] for hand in self.hands],
            "stock": [str(c) for c in self.stock],
            "round": self._round_json(),
            "played": [str(c) for c in self.played],
            "leader": self.leader,
            "to_act": self.to_act,
            "scores": self.scores(),
            "history": list(self._history),
        }


# §8 Variants (config keys, defaults first) --------------------------------------

VARIANTS = [
    Int("hand_size", 3, low=1, high=CARDS_PER_SEAT),
    Choice("scoring", ["count", "sum"]),
]


def check_config(players: int, params: dict[str, Any]) -> None:
    """No key depends on another."""


def highest_card(players: int, params: dict[str, Any]) -> int:
    """The highest card: 6N (§1)."""
    return CARDS_PER_SEAT * players


def canonical_deck(players: int, params: dict[str, Any]) -> list[str]:
    """The cards 1 to 6N, ascending (§2)."""
    return [str(c) for c in range(1, highest_card(players, params) + 1)]
