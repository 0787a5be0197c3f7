"""Twenty-Two (22): the readable reference, following ``rules/twenty_two.md``.

Rules summary (section numbers refer to the rule book, TT-n to its ambiguities):

- §1 One 52-card deck; ranks 2 < 3 < ... < 10 < J < Q < K < A; suits only make
  cards distinct. Values: 2-10 face value, J = Q = K = 10, A = 11 (TT-19).
- §2 The pool for a hand is the 52 cards minus every score-pile card (TT-3),
  in canonical order, shuffled at the deal; an explicit deck replaces only the
  first hand's shuffle. With ``first_dealer = "random"`` the first generator
  call is ``bounded(N)`` (TT-4).
- §4 Each hand: P active seats, pool size D; ``deal_size = min(target_size,
  D // P)`` (TT-1, TT-2, TT-21), dealt one at a time from the first active seat
  after the dealer, skipping eliminated seats (an eliminated dealer still deals,
  TT-17); the rest is the stock.
- §5.1 Discard phase (TT-5): each active seat once, from the dealer's left, may
  discard j cards face down, 0 <= j <= min(hand, stock), and draws j from the
  top of the stock.
- §5.2 Play phase: the first active seat after the dealer leads. A lead is 1 to
  h-1 cards of one rank (keep one for the final trick, TT-6). A follower plays
  exactly k cards that either beat or equal the bar (both sorted, each card >=
  its counterpart, TT-7) or are a lowest set (the k lowest ranks held, TT-10);
  free choice by default (TT-11). With one card left (the final trick) every
  seat plays it (TT-22).
- §6 A follower's set that beats or equals the bar becomes the bar, whatever
  the reason it was played (TT-8, TT-9, TT-12). The bar's holder wins a
  non-final trick and leads the next. In the final trick the highest rank
  scores: by default every seat that played it keeps its card as a penalty
  (TT-14) and the last of them deals next (TT-15). The value of that rank is
  the next hand's ``target_size`` (TT-1).
- §6.5/§7 A seat whose score reaches ``elimination_score`` is out (TT-16); the
  last seat left wins; if everyone left goes out together, the lowest score
  among them wins (TT-18). Placements: still active, then later elimination,
  then lower score.

Actions: ``discard`` followed by 0 or more cards, ``play`` followed by 1 to 4
cards; cards written ascending by rank, ties by suit C < D < H < S.
"""

from __future__ import annotations

from itertools import combinations
from typing import Any, Optional

from ..errors import InvalidParamsError
from ..params import Choice, Int, SeatOrRandom, check_seat
from ..results import competition_placements
from ..rng import SplitMix64
from .base import GameSpec, ReferenceState, counting_now, fired

GAME = GameSpec(id="twenty_two", min_players=2, max_players=6, default_players=4,
                rule_prefix="TT", loader="cardref.reference.loading.twenty_two",
                heuristic=True, search=True)
GAME_ID = GAME.id
#: A hand has at most 11 cards and the final trick needs one (§4, §5.2).
MAX_TRICKS = 10

#: The rule points of the rule book's §11: every clause that can fire in play.
RULE_POINTS = {
    "TT-P1": "§4 `first_dealer = \"random\"`: the first generator call picks the first dealer.",
    "TT-P2": "§4 A hand is dealt: `target_size` cards to each active seat.",
    "TT-P3": "§4 The pool is short: each active seat is dealt `floor(pool / active seats)` "
             "cards, fewer than `target_size` (TT-2).",
    "TT-P4": "§4 An eliminated seat is skipped: only the active seats are dealt cards.",
    "TT-P5": "§4 An eliminated seat deals: it gets no cards and the seat after it starts (TT-17).",
    "TT-P6": "§5.1 A seat discards cards face down and draws as many from the top of the stock.",
    "TT-P7": "§5.1 A seat keeps its whole hand (`discard` alone) though the stock has cards.",
    "TT-P8": "§5.1 The stock is empty: the seat's only action is `discard`.",
    "TT-P9": "§5.1 The stock holds fewer cards than the seat's hand: it may discard at most "
             "that many.",
    "TT-P10": "§5.1 The last active seat has discarded: play begins; the first active seat after "
              "the dealer leads.",
    "TT-P11": "§5.2 A lead of one card.",
    "TT-P12": "§5.2 A lead of several cards of one rank.",
    "TT-P13": "§5.2 The leader's hand is all of one rank: it must keep a card for the final "
              "trick (TT-6).",
    "TT-P14": "§5.2 `follow_rule = \"lowest_only_if_cannot_beat\"`: the follower can beat or "
              "equal the bar, so it must.",
    "TT-P15": "§6.1 A follower's set beats or equals the bar: it becomes the bar.",
    "TT-P16": "§6.1 A follower's set equals the bar: the later of equal sets takes it over (TT-9).",
    "TT-P17": "§6.1 A lowest set that also beats or equals the bar takes the bar (TT-12).",
    "TT-P18": "§6.1 A lowest set that does not meet the bar changes nothing.",
    "TT-P19": "§6.2 A trick before the last ends: the bar's holder takes it and leads the next.",
    "TT-P20": "§6.3 The final trick has one highest card: its player keeps it as a penalty "
              "and deals next.",
    "TT-P21": "§6.3 `last_trick_tie = \"all_tied_score\"`: the final trick's highest rank is "
              "tied; every tied seat scores its card (TT-14).",
    "TT-P22": "§6.3 `tied_dealer = \"first\"`: after a tied final trick the first tied seat "
              "deals next (TT-15).",
    "TT-P23": "§6.3 `last_trick_tie = \"last_played_wins\"`: of a tied highest rank only the "
              "last one played scores.",
    "TT-P24": "§6.3 `last_trick_tie = \"first_played_wins\"`: of a tied highest rank only the "
              "first one played scores.",
    "TT-P25": "§6.5 A seat's score reaches `elimination_score`: it is out.",
    "TT-P26": "§7 Two or more seats are left: the next hand is dealt, its size set by the "
              "scoring card (TT-1).",
    "TT-P27": "§7 One seat is left: it wins.",
    "TT-P28": "§7 Every seat left went out in the same hand: the lowest score among them wins "
              "(TT-18).",
    "TT-P29": "§7 Every seat left went out in the same hand and several share the lowest "
              "score: they share the win.",
}

# §2 Card notation and deck order -----------------------------------------------

RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
SUITS = ["C", "D", "H", "S"]
CANONICAL_DECK = [rank + suit for suit in SUITS for rank in RANKS]


def rank_of(card: str) -> int:
    """The card's place in the rank order: 0 for a 2 up to 12 for an ace."""
    return RANKS.index(card[:-1])


def value_of(card: str) -> int:
    """The point value of a card (TT-19): face value, courts 10, ace 11."""
    rank = card[:-1]
    if rank == "A":
        return 11
    if rank in ("J", "Q", "K"):
        return 10
    return int(rank)


def play_order(card: str) -> tuple[int, int]:
    """How cards are ordered inside an action and a hand: rank, then suit."""
    return (rank_of(card), SUITS.index(card[-1]))


def in_play_order(cards: list[str]) -> list[str]:
    return sorted(cards, key=play_order)


# §3 State -----------------------------------------------------------------------


class State(ReferenceState):
    """A Twenty-Two game. Cards are their codes ("7H", "10C") throughout."""

    GAME_ID = GAME_ID

    def __init__(self, players: int, params: dict[str, Any], seed: int, deck: Optional[list[str]]):
        self.players = players
        self.params = params
        self.rng = SplitMix64(seed)
        self.active = [True] * players
        self.out_hand = [0] * players  # hand in which each seat went out; 0 = still in
        self.score_piles: list[list[str]] = [[] for _ in range(players)]
        self.last_trick: Optional[dict[str, Any]] = None
        self._history: list[str] = []
        self.hand_number = 1
        self.target_size = params["first_hand_size"]
        # §4 First dealer: seat given, or the first generator call (TT-4).
        if params["first_dealer"] == "random":
            fired("TT-P1")
            self.dealer = self.rng.bounded(players)
        else:
            self.dealer = params["first_dealer"]
        self._deal(list(deck) if deck is not None else self._shuffled_pool())

    # §4 Setup, deal, dealer, leader --------------------------------------------

    def _pool(self) -> list[str]:
        """Every card not in a score pile, in canonical order (TT-3)."""
        kept = {card for pile in self.score_piles for card in pile}
        return [card for card in CANONICAL_DECK if card not in kept]

    def _shuffled_pool(self) -> list[str]:
        deck = self._pool()
        self.rng.shuffle(deck)
        return deck

    def _seats_after(self, seat: int) -> list[int]:
        """The active seats in turn order, starting with the first one after ``seat``."""
        order = [(seat + i) % self.players for i in range(1, self.players + 1)]
        return [s for s in order if self.active[s]]

    def _deal(self, deck: list[str]) -> None:
        """§4 steps 1-5: deal_size each to the active seats, the rest is the stock."""
        seats = self._seats_after(self.dealer)
        self.deal_size = min(self.target_size, len(deck) // len(seats))
        fired("TT-P2" if self.deal_size == self.target_size else "TT-P3")
        if len(seats) < self.players:
            fired("TT-P4")
        if not self.active[self.dealer]:
            fired("TT-P5")
        self.hands: list[list[str]] = [[] for _ in range(self.players)]
        for i in range(self.deal_size * len(seats)):
            self.hands[seats[i % len(seats)]].append(deck[i])
        self.hands = [in_play_order(hand) for hand in self.hands]
        self.stock = deck[self.deal_size * len(seats) :]
        self.discards: list[list[str]] = [[] for _ in range(self.players)]
        self.tricks: list[dict[str, Any]] = []
        self.trick: Optional[dict[str, Any]] = None
        self.phase = "discard"
        self.to_act: Optional[int] = seats[0]

    # §5 Turn structure and legal actions ------------------------------------------

    def current_player(self) -> Optional[int]:
        return self.to_act

    def legal_actions(self) -> list[str]:
        if self.phase == "discard":
            return self._discard_options()
        if self.phase == "play":
            hand = self.hands[self.to_act]
            if len(hand) == 1:
                return [f"play {hand[0]}"]  # the final trick (TT-22)
            if not self.trick["plays"]:
                return self._lead_options()
            return self._follow_options()
        return []

    def _most_discards(self) -> int:
        """§5.1: the most cards the player to act may discard (its hand and the stock limit it)."""
        return min(len(self.hands[self.to_act]), len(self.stock))

    def _discard_options(self) -> list[str]:
        """§5.1: any j distinct cards, 0 <= j <= min(hand, stock); j ascending, then
        card by card. combinations() of a hand in play order keeps that order."""
        hand = self.hands[self.to_act]
        most = self._most_discards()
        return [
            " ".join(["discard", *chosen])
            for j in range(most + 1)
            for chosen in combinations(hand, j)
        ]

    def _lead_options(self) -> list[str]:
        """§5.2 leading: 1 .. h-1 cards of one rank (TT-6); by rank, size, suits."""
        hand = self.hands[self.to_act]
        options = []
        for rank in range(len(RANKS)):
            same = [card for card in hand if rank_of(card) == rank]
            for size in range(1, min(len(same), len(hand) - 1) + 1):
                options += [" ".join(["play", *chosen]) for chosen in combinations(same, size)]
        return options

    def _follow_options(self) -> list[str]:
        """§5.2 following: k cards that beat or equal the bar, or a lowest set (TT-11)."""
        hand = self.hands[self.to_act]
        bar = self.trick["bar"]
        sets = [list(chosen) for chosen in combinations(hand, len(bar))]
        beating = [s for s in sets if self.beats_or_equals(s, bar)]
        lowest = [s for s in sets if self.is_lowest_set(s, hand)]
        if self.params["follow_rule"] == "lowest_only_if_cannot_beat":
            allowed = beating if beating else lowest
        else:
            allowed = [s for s in sets if s in beating or s in lowest]
        return [" ".join(["play", *s]) for s in allowed]

    def canonical_action(self, action: str) -> str:
        """Sort the cards of an action into play order (input may use any order)."""
        if not isinstance(action, str):
            return action
        verb, *cards = action.split(" ")
        if verb not in ("discard", "play") or not all(c in CANONICAL_DECK for c in cards):
            return action
        return " ".join([verb, *in_play_order(cards)])

    def illegal_reason(self, action: str) -> str:
        verb, *cards = action.split(" ")
        if verb not in ("discard", "play"):
            return "not an action of twenty_two (discard CARDS, play CARDS)"
        if not all(c in CANONICAL_DECK for c in cards):
            return "not a card code (write e.g. 7H, 10C, QS)"
        if len(set(cards)) != len(cards):
            return "the same card is named twice"
        if verb != self.phase:  # the phases are named after their verbs
            return f"it is the {self.phase} phase; it must {self.phase}"
        missing = [c for c in cards if c not in self.hands[self.to_act]]
        if missing:
            return f"it does not hold {missing[0]}"
        if verb == "discard":
            most = self._most_discards()
            return f"it may discard at most {most} cards (its hand and the stock limit it)"
        return self._play_problem(cards)

    def _play_problem(self, cards: list[str]) -> str:
        """Why a play of ``cards``, all held, is illegal."""
        hand = self.hands[self.to_act]
        if not cards:
            return "a play needs at least one card"
        if len(hand) == 1:
            return "in the final trick it must play its last card"
        if not self.trick["plays"]:
            if len({rank_of(c) for c in cards}) > 1:
                return "a lead must be cards of one rank"
            return "a lead must leave at least one card in hand for the final trick"
        if len(cards) != len(self.trick["bar"]):
            return f"it must play exactly {len(self.trick['bar'])} cards"
        if self.is_lowest_set(cards, hand):  # illegal only under lowest_only_if_cannot_beat
            return "it can beat or equal the best set, so it must"
        return "the set neither beats or equals the best set nor is its lowest set"

    @staticmethod
    def beats_or_equals(cards: list[str], bar: list[str]) -> bool:
        """TT-7: sorted by rank, every card is at least its counterpart in the bar."""
        mine = sorted(rank_of(c) for c in cards)
        theirs = sorted(rank_of(c) for c in bar)
        return len(mine) == len(theirs) and all(a >= b for a, b in zip(mine, theirs))

    @staticmethod
    def is_lowest_set(cards: list[str], hand: list[str]) -> bool:
        """TT-10: the ranks of the set are the k lowest ranks of the hand."""
        lowest = sorted(rank_of(c) for c in hand)[: len(cards)]
        return sorted(rank_of(c) for c in cards) == lowest

    def _apply_unchecked(self, action: str) -> None:
        self._history.append(action)
        verb, *cards = action.split(" ")
        if verb == "discard":
            self._discard(cards)
        else:
            self._play_cards(cards)

    # §6 Effects ------------------------------------------------------------------------

    def _discard(self, cards: list[str]) -> None:
        """§5.1: the cards go face down to the discards; draw as many from the top."""
        seat = self.to_act
        hand, stock = self.hands[seat], self.stock
        if cards:
            fired("TT-P6")
        elif stock:
            fired("TT-P7")
        if not stock:
            fired("TT-P8")
        elif len(stock) < len(hand):
            fired("TT-P9")
        drawn, self.stock = self.stock[: len(cards)], self.stock[len(cards) :]
        kept = [c for c in self.hands[seat] if c not in cards]
        self.hands[seat] = in_play_order(kept + drawn)
        self.discards[seat] = in_play_order(self.discards[seat] + cards)
        seats = self._seats_after(self.dealer)
        if seat == seats[-1]:  # the dealer's turn, or the last active seat before it
            fired("TT-P10")
            self.phase = "play"
            self._start_trick(seats[0])
        else:
            self.to_act = seats[seats.index(seat) + 1]

    def _start_trick(self, leader: int) -> None:
        self.trick = {"leader": leader, "plays": [], "bar": [], "bar_holder": None}
        self.to_act = leader

    def _play_cards(self, cards: list[str]) -> None:
        """§6.1: a set that beats or equals the bar (or the lead) takes it over."""
        seat = self.to_act
        trick = self.trick
        if counting_now() and len(self.hands[seat]) > 1:
            self._note_play(cards, self.hands[seat])
        self.hands[seat] = [c for c in self.hands[seat] if c not in cards]
        is_lead = not trick["plays"]
        trick["plays"].append([seat, cards])
        if is_lead or self.beats_or_equals(cards, trick["bar"]):
            trick["bar"], trick["bar_holder"] = cards, seat
        if len(trick["plays"]) < self.active.count(True):
            self.to_act = self._seats_after(seat)[0]
        elif self.hands[seat]:
            self._end_trick()
        else:
            self._score_final_trick()

    def _note_play(self, cards: list[str], hand: list[str]) -> None:
        """The rule points a lead or a follow (not in the final trick) fires."""
        if not self.trick["plays"]:
            fired("TT-P11" if len(cards) == 1 else "TT-P12")
            if len({rank_of(c) for c in hand}) == 1:
                fired("TT-P13")
            return
        bar = self.trick["bar"]
        if self.params["follow_rule"] == "lowest_only_if_cannot_beat" and any(
                self.beats_or_equals(list(s), bar) for s in combinations(hand, len(bar))):
            fired("TT-P14")
        beats = self.beats_or_equals(cards, bar)
        lowest = self.is_lowest_set(cards, hand)
        if beats:
            fired("TT-P15")
            if sorted(map(rank_of, cards)) == sorted(map(rank_of, bar)):
                fired("TT-P16")
            if lowest:
                fired("TT-P17")
        else:
            fired("TT-P18")

    def _end_trick(self) -> None:
        """§6.2: the bar's holder takes the trick and leads the next one."""
        fired("TT-P19")
        winner = self.trick["bar_holder"]
        self.tricks.append(
            {"leader": self.trick["leader"], "plays": self.trick["plays"], "winner": winner}
        )
        self._start_trick(winner)

    def _score_final_trick(self) -> None:
        """§6.3: the highest rank of the final trick scores (TT-14, TT-15, TT-1)."""
        plays = self.trick["plays"]
        top = max(rank_of(cards[0]) for _, cards in plays)
        tied = [seat for seat, cards in plays if rank_of(cards[0]) == top]
        rule = self.params["last_trick_tie"]
        if len(tied) == 1:
            fired("TT-P20")
        else:
            fired({"all_tied_score": "TT-P21", "last_played_wins": "TT-P23",
                   "first_played_wins": "TT-P24"}[rule])
            if self.params["tied_dealer"] == "first":
                fired("TT-P22")
        if rule == "all_tied_score":
            scorers = tied
            next_dealer = tied[0] if self.params["tied_dealer"] == "first" else tied[-1]
        elif rule == "last_played_wins":
            scorers, next_dealer = [tied[-1]], tied[-1]
        else:
            scorers, next_dealer = [tied[0]], tied[0]
        for seat, cards in plays:
            if seat in scorers:
                self.score_piles[seat] = in_play_order(self.score_piles[seat] + cards)
        self.target_size = value_of(RANKS[top] + "C")  # every tied card has this value
        self.last_trick = {"plays": plays, "scorers": scorers}
        self._eliminate()
        self._end_hand(next_dealer)

    def _eliminate(self) -> None:
        """§6.5: reaching elimination_score puts a seat out (TT-16)."""
        for seat in range(self.players):
            if self.active[seat] and self.scores()[seat] >= self.params["elimination_score"]:
                fired("TT-P25")
                self.active[seat] = False
                self.out_hand[seat] = self.hand_number

    # §7 Hand end, game end, placements ---------------------------------------------

    def _end_hand(self, next_dealer: int) -> None:
        """Two or more left: the next hand, dealt by the scorer even if out (TT-17)."""
        if self.active.count(True) >= 2:
            fired("TT-P26")
            self.hand_number += 1
            self.dealer = next_dealer
            self._deal(self._shuffled_pool())
            return
        if self.active.count(True) == 1:
            fired("TT-P27")
        else:
            fired("TT-P28")
            last = [s for s in range(self.players) if self.out_hand[s] == self.hand_number]
            lowest = min(self.scores()[s] for s in last)
            if [self.scores()[s] for s in last].count(lowest) > 1:
                fired("TT-P29")
        self.phase = "game_over"
        self.to_act = None
        self.trick = None
        self.tricks = []
        self.hands = [[] for _ in range(self.players)]
        self.discards = [[] for _ in range(self.players)]
        self.stock = self._pool()  # every card back together, canonical order

    def scores(self) -> list[int]:
        return [sum(value_of(card) for card in pile) for pile in self.score_piles]

    def final_placements(self) -> list[int]:
        """Active first, then later elimination, then lower score (TT-18)."""
        return competition_placements(
            self.players, lambda a, b: self._standing(a) < self._standing(b))

    def rounds(self) -> int:
        """Hands dealt so far."""
        return self.hand_number

    def _standing(self, seat: int) -> tuple[int, int, int]:
        """A seat's place in the order of TT-18: still active, else the later it
        went out the better; then the lower score."""
        out = self.out_hand[seat]
        score = self.scores()[seat]
        return (0, 0, score) if out == 0 else (1, -out, score)

    # Observation and JSON ---------------------------------------------------------------

    def observation(self, seat: int) -> dict[str, Any]:
        if not 0 <= seat < self.players:
            raise ValueError(f"seat {seat} does not exist; seats are 0 to {self.players - 1}")
        return {
            "game": GAME_ID,
            "seat": seat,
            "players": self.players,
            "params": dict(self.params),
            "hand_number": self.hand_number,
            "dealer": self.dealer,
            "target_size": self.target_size,
            "deal_size": self.deal_size,
            "phase": self.phase,
            "to_act": self.to_act,
            "active": list(self.active),
            "out_hand": list(self.out_hand),
            "score_piles": [list(p) for p in self.score_piles],
            "scores": self.scores(),
            "hand": list(self.hands[seat]),
            "stock_size": len(self.stock) if self.phase != "game_over" else 0,
            "discard_counts": [len(d) for d in self.discards],
            "my_discards": list(self.discards[seat]),
            "trick": _copy_trick(self.trick),
            "tricks": [_copy_trick(t) for t in self.tricks],
            "last_trick": _copy_trick(self.last_trick),
        }

    def to_dict(self) -> dict[str, Any]:
        return {
            "game": GAME_ID,
            "players": self.players,
            "params": dict(self.params),
            "rng": self.rng.state,
            "hand_number": self.hand_number,
            "dealer": self.dealer,
            "target_size": self.target_size,
            "deal_size": self.deal_size,
            "phase": self.phase,
            "to_act": self.to_act,
            "active": list(self.active),
            "out_hand": list(self.out_hand),
            "score_piles": [list(p) for p in self.score_piles],
            "scores": self.scores(),
            "hands": [list(h) for h in self.hands],
            "stock": list(self.stock),
            "discards": [list(d) for d in self.discards],
            "trick": _copy_trick(self.trick),
            "tricks": [_copy_trick(t) for t in self.tricks],
            "last_trick": _copy_trick(self.last_trick),
            "history": list(self._history),
        }


def _copy_trick(trick: Optional[dict[str, Any]]) -> Optional[dict[str, Any]]:
    if trick is None:
        return None
    copied = dict(trick)
    copied["plays"] = [[seat, list(cards)] for seat, cards in trick["plays"]]
    for key in ("bar", "scorers"):
        if key in copied:
            copied[key] = list(copied[key])
    return copied


# §8 Variants (config keys, defaults first) --------------------------------------


VARIANTS = [
    SeatOrRandom("first_dealer"),  # TT-4
    Int("first_hand_size", 7, low=2, high=8),
    Int("elimination_score", 22, low=2, high=30),
    Choice("follow_rule", ["free_choice", "lowest_only_if_cannot_beat"]),
    Choice("last_trick_tie", ["all_tied_score", "last_played_wins", "first_played_wins"]),
    Choice("tied_dealer", ["last", "first"]),
]


def check_config(players: int, params: dict[str, Any]) -> None:
    """The checks that involve the player count or two keys at once (§8)."""
    check_seat("first_dealer", params["first_dealer"], players)
    if params["tied_dealer"] == "first" and params["last_trick_tie"] != "all_tied_score":
        raise InvalidParamsError(
            'tied_dealer: "first" is allowed only with last_trick_tie = "all_tied_score"'
        )


def canonical_deck(players: int, params: dict[str, Any]) -> list[str]:
    """The 52 cards in canonical order: suits C, D, H, S; ranks 2 .. A (§2)."""
    return list(CANONICAL_DECK)
