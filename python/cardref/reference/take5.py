"""Take 5 (6 nimmt!): the readable reference, following ``rules/take5.md``.

Rules summary (section numbers refer to the rule book):

- §1 104 cards, 1..104, each with 1, 2, 3, 5 or 7 bullheads; lower is better.
- §4 Each round: shuffle, deal 10 cards each round-robin from seat 0, then the
  next four cards start rows 0..3 face up (T5-4, T5-10); the rest are unused.
- §5 Each of the ten turns, every seat commits one card face down, asked in
  seat order (T5-8). When all have committed, the cards are revealed and placed
  lowest first.
- §6 A card goes on the row whose last card is the highest below it; as a sixth
  card it takes the five and starts the row. A card lower than every row end
  lets its owner take any row of their choice (T5-6, T5-7), which it then starts;
  rows keep their index (T5-9).
- §7 After ten turns each seat scores the heads it took. The game ends when a
  cumulative score reaches ``end_score`` (checked only at round end, T5-1,
  T5-2), or after ``round_limit`` rounds; the lowest total wins, ties share
  (T5-3, T5-14).

Actions: ``play N`` while committing (one per card in hand, ascending) and
``take R`` (R = 0..3) when a too-low card's owner chooses a row.
"""

from __future__ import annotations

from typing import Any, Optional

from ..params import Choice, Int
from ..results import competition_placements
from ..rng import SplitMix64
from .base import GameSpec, ReferenceState, counting_now, fired

GAME = GameSpec(id="take5", min_players=2, max_players=10, default_players=4,
                rule_prefix="T5", loader="cardref.reference.loading.take5",
                heuristic=True, search=True)
GAME_ID = GAME.id
CARDS_PER_HAND = 10
TURNS_PER_ROUND = 10
ROW_COUNT = 4
ROW_CAPACITY = 5

#: The rule points of the rule book's §11: every clause that can fire in play.
RULE_POINTS = {
    "T5-P1": "§4 The first round is dealt: ten cards each from seat 0, then the four rows.",
    "T5-P2": "§5 A seat commits a card face down.",
    "T5-P3": "§5 The last seat has committed: the turn's cards are revealed at once.",
    "T5-P4": "§5 Every card of a turn is placed and the next turn begins.",
    "T5-P5": "§6.2 A too-low card: its owner takes the row it chooses, and the card starts it.",
    "T5-P6": "§6.2 `auto_fewest_heads`: a too-low card takes the row with the fewest bullheads.",
    "T5-P7": "§6.2 `auto_fewest_heads`: rows tie for the fewest bullheads; the lowest index is "
             "taken.",
    "T5-P8": "§6.3 A card is appended to the row whose last card is the highest below it.",
    "T5-P9": "§6.3 A sixth card: its owner takes the row's five cards and the card starts the row.",
    "T5-P10": "§7 A round ends after its tenth turn: each seat adds the bullheads in its pile.",
    "T5-P11": "§7 `end_rule = \"at_least\"`: a total has reached `end_score`; the game ends.",
    "T5-P12": "§7 `end_rule = \"more_than\"`: a total is above `end_score`; the game ends.",
    "T5-P13": "§7 `end_rule = \"more_than\"`: the highest total is exactly `end_score`, which does "
              "not end the game.",
    "T5-P14": "§7 `round_limit` rounds are played and nobody is at the end score; the game ends.",
    "T5-P15": "§7 The game goes on: the next round is dealt from a fresh shuffle of every card.",
    "T5-P16": "§7 The game ends with several seats sharing the lowest total: they share the win.",
}


# §1 Bullheads ---------------------------------------------------------------


def heads(card: int) -> int:
    """Bullheads printed on a card (§1, T5-11: numbers *ending* in 5 have two)."""
    if card == 55:
        return 7
    if card % 11 == 0:
        return 5
    if card % 10 == 0:
        return 3
    if card % 5 == 0:
        return 2
    return 1


# §3 State ---------------------------------------------------------------------


class State(ReferenceState):
    """A Take 5 game. Cards are ints inside, decimal strings outside."""

    GAME_ID = GAME_ID

    def __init__(self, players: int, params: dict[str, Any], seed: int, deck: Optional[list[str]]):
        self.players = players
        self.params = params
        self.rng = SplitMix64(seed)
        self.round = 1
        self.scores_so_far = [0] * players
        self.round_scores: list[list[int]] = []
        self._history: list[str] = []
        first_deck = [int(c) for c in deck] if deck is not None else self._shuffled_deck()
        self._deal(first_deck)

    # §4 Setup and deal --------------------------------------------------------

    def _shuffled_deck(self) -> list[int]:
        cards = list(range(1, highest_card(self.players, self.params) + 1))
        self.rng.shuffle(cards)
        return cards

    def _deal(self, deck: list[int]) -> None:
        fired("T5-P1" if self.round == 1 else "T5-P15")
        n = self.players
        self.hands: list[list[int]] = [[] for _ in range(n)]
        for i in range(CARDS_PER_HAND * n):
            self.hands[i % n].append(deck[i])
        for hand in self.hands:
            hand.sort()
        self.rows = [[deck[CARDS_PER_HAND * n + r]] for r in range(ROW_COUNT)]
        self.unused = sorted(deck[CARDS_PER_HAND * n + ROW_COUNT :])
        self.piles: list[list[int]] = [[] for _ in range(n)]
        self.committed: list[Optional[int]] = [None] * n
        self.revealed: list[tuple[int, int]] = []
        self.next_to_place = 0
        self.turn = 0
        self.phase = "commit"
        self.round_start = len(self._history)

    # §5 Turn structure and legal actions -------------------------------------

    def current_player(self) -> Optional[int]:
        if self.phase == "commit":
            return self.committed.index(None)  # the lowest seat yet to commit
        if self.phase == "choose_row":
            return self.revealed[self.next_to_place][1]  # the too-low card's owner
        return None

    def legal_actions(self) -> list[str]:
        if self.phase == "commit":
            return [f"play {card}" for card in self.hands[self.current_player()]]
        if self.phase == "choose_row":
            return [f"take {row}" for row in range(ROW_COUNT)]
        return []

    def illegal_reason(self, action: str) -> str:
        verb, _, arg = action.partition(" ")
        if self.phase == "commit" and verb == "play" and arg.isdigit() and str(int(arg)) == arg:
            return f"card {arg} is not in its hand"
        if self.phase == "commit" and action.startswith("take"):
            return "no row choice is pending; every seat must play a card"
        if self.phase == "choose_row":
            return "it must choose a row to take (take 0 .. take 3)"
        return "not an action of take5 (play N, take R)"

    def _apply_unchecked(self, action: str) -> None:
        self._history.append(action)
        verb, arg = action.split(" ")
        if verb == "play":
            self._commit(int(arg))
        else:
            self._choose_row(int(arg))

    def _commit(self, card: int) -> None:
        seat = self.current_player()
        fired("T5-P2")
        self.hands[seat].remove(card)
        self.committed[seat] = card
        if None not in self.committed:
            self._reveal()
            self._place_revealed()

    def _reveal(self) -> None:
        """All commitments become public at once, sorted by card."""
        fired("T5-P3")
        self.revealed = sorted((card, seat) for seat, card in enumerate(self.committed))
        self.committed = [None] * self.players
        self.next_to_place = 0

    def _place_revealed(self) -> None:
        """Place cards lowest first until a row choice is needed or all are placed."""
        while self.next_to_place < len(self.revealed):
            card, seat = self.revealed[self.next_to_place]
            row = self._target_row(card)
            if row is not None:
                self._place_on(row, card, seat)
            elif self.params["too_low_choice"] == "auto_fewest_heads":
                self._take_row(self._fewest_heads_row(), card, seat)
            else:
                self.phase = "choose_row"
                return
            self.next_to_place += 1
        self._finish_turn()

    def _choose_row(self, row: int) -> None:
        fired("T5-P5")
        card, seat = self.revealed[self.next_to_place]
        self._take_row(row, card, seat)
        self.next_to_place += 1
        self.phase = "commit"
        self._place_revealed()

    def _finish_turn(self) -> None:
        self.turn += 1
        self.phase = "commit"
        self.revealed = []
        if self.turn == TURNS_PER_ROUND:
            self._end_round()
        else:
            fired("T5-P4")

    # §6 Effects: placing a card ---------------------------------------------

    def _target_row(self, card: int) -> Optional[int]:
        """§6.1, §6.3: of the rows whose last card is lower than ``card``, the one
        whose last card is the highest; None if the card is too low for every row."""
        eligible = [r for r in range(ROW_COUNT) if self.rows[r][-1] < card]
        return max(eligible, key=lambda r: self.rows[r][-1]) if eligible else None

    def _fewest_heads_row(self) -> int:
        """Variant ``auto_fewest_heads`` (§6.2): the row with the fewest heads,
        the lowest index on ties."""
        row_heads = [sum(map(heads, row)) for row in self.rows]
        if counting_now():
            fired("T5-P6")
            if row_heads.count(min(row_heads)) > 1:
                fired("T5-P7")
        return min(range(ROW_COUNT), key=lambda r: (row_heads[r], r))

    def _place_on(self, row: int, card: int, seat: int) -> None:
        """Append to the closest row, unless it would be the sixth card."""
        if len(self.rows[row]) == ROW_CAPACITY:
            fired("T5-P9")
            self._take_row(row, card, seat)
        else:
            fired("T5-P8")
            self.rows[row].append(card)

    def _take_row(self, row: int, card: int, seat: int) -> None:
        """The row's cards go to the seat's pile; the card starts the row in place."""
        self.piles[seat] = sorted(self.piles[seat] + self.rows[row])
        self.rows[row] = [card]

    # §7 Round end, scoring, game end -----------------------------------------

    def _end_round(self) -> None:
        taken = [sum(map(heads, pile)) for pile in self.piles]
        self.scores_so_far = [total + t for total, t in zip(self.scores_so_far, taken)]
        self.round_scores.append(taken)
        self.piles = [[] for _ in range(self.players)]
        fired("T5-P10")
        if self._game_ends():
            self.phase = "game_over"
            if self.scores_so_far.count(min(self.scores_so_far)) > 1:
                fired("T5-P16")
        else:
            self.round += 1
            self._deal(self._shuffled_deck())

    def _game_ends(self) -> bool:
        limit = self.params["end_score"]
        if self.params["end_rule"] == "at_least":
            reached = any(score >= limit for score in self.scores_so_far)
            if reached:
                fired("T5-P11")
        else:
            reached = any(score > limit for score in self.scores_so_far)
            if reached:
                fired("T5-P12")
            elif max(self.scores_so_far) == limit:
                fired("T5-P13")
        if not reached and self.params["round_limit"] == self.round:
            fired("T5-P14")
        return reached or self.params["round_limit"] == self.round

    def scores(self) -> list[int]:
        return list(self.scores_so_far)

    def final_placements(self) -> list[int]:
        s = self.scores_so_far
        return competition_placements(self.players, lambda a, b: s[a] < s[b])

    def rounds(self) -> int:
        """Rounds dealt so far."""
        return self.round

    # Observation and JSON ------------------------------------------------------

    def observation(self, seat: int) -> dict[str, Any]:
        if not 0 <= seat < self.players:
            raise ValueError(f"seat {seat} does not exist; seats are 0 to {self.players - 1}")
        # Commitments made this turn are not public until the reveal (T5-8).
        hidden = self.players - self.committed.count(None) if self.phase == "commit" else 0
        public = self._history[self.round_start : len(self._history) - hidden]
        mine = self.committed[seat]
        return {
            "game": GAME_ID,
            "seat": seat,
            "players": self.players,
            "params": dict(self.params),
            "round": self.round,
            "turn": self.turn,
            "phase": self.phase,
            "to_act": self.current_player(),
            "hand": [str(c) for c in self.hands[seat]],
            "my_commitment": None if mine is None else str(mine),
            "committed": [c is not None for c in self.committed],
            "rows": self._rows_json(),
            "revealed": self._revealed_json(),
            "next_to_place": self.next_to_place,
            "piles": [[str(c) for c in pile] for pile in self.piles],
            "round_heads": [sum(map(heads, pile)) for pile in self.piles],
            "scores": self.scores(),
            "round_scores": [list(r) for r in self.round_scores],
            "history": public,
        }

    def _rows_json(self) -> list[list[str]]:
        return [[str(c) for c in row] for row in self.rows]

    def _revealed_json(self) -> list[list[Any]]:
        if self.phase != "choose_row":
            return []
        return [[str(card), seat] for card, seat in self.revealed]

    def to_dict(self) -> dict[str, Any]:
        return {
            "game": GAME_ID,
            "players": self.players,
            "params": dict(self.params),
            "rng": self.rng.state,
            "round": self.round,
            "turn": self.turn,
            "phase": self.phase,
            "hands": [[str(c) for c in hand] for hand in self.hands],
            "committed": [None if c is None else str(c) for c in self.committed],
            "rows": self._rows_json(),
            "unused": [str(c) for c in self.unused],
            "revealed": self._revealed_json(),
            "next_to_place": self.next_to_place,
            "piles": [[str(c) for c in pile] for pile in self.piles],
            "scores": self.scores(),
            "round_scores": [list(r) for r in self.round_scores],
            "history": list(self._history),
            "round_start": self.round_start,
        }


# §8 Variants -----------------------------------------------------------------

VARIANTS = [
    Choice("deck", ["full", "tactics"]),
    Int("end_score", 66, low=1),
    Choice("end_rule", ["at_least", "more_than"]),
    Choice("too_low_choice", ["player", "auto_fewest_heads"]),
    Int("round_limit", None, low=1, optional=True),
]


def check_config(players: int, params: dict[str, Any]) -> None:
    """No key depends on another in Take 5."""


def highest_card(players: int, params: dict[str, Any]) -> int:
    """104, or 10N+4 with the Tactics deck (§8, T5-5)."""
    return 10 * players + 4 if params["deck"] == "tactics" else 104


def canonical_deck(players: int, params: dict[str, Any]) -> list[str]:
    """The cards in play in canonical order, ascending (§2)."""
    return [str(c) for c in range(1, highest_card(players, params) + 1)]
