"""Back Alley: the readable reference, following ``rules/back_alley.md``.

Rules summary (section numbers and BA-n ambiguity ids refer to the rule book):

- §1–2 Four players in two partnerships, seats 0+2 (team 0) against 1+3
  (team 1). 54 cards: the 52 standard cards ("2C" .. "AS") and two jokers, the
  Big Blooper "BB" and the Little Blooper "LB". Canonical order: clubs,
  diamonds, hearts, spades, 2..A in each, then BB, LB.
- §2 The trump set is both jokers plus the trump suit, high to low BB, LB,
  A, K, .., 2. Jokers belong to the trump suit for every purpose (BA-13).
- §4 One deal per schedule entry (25 deals of 13, 12, .., 1, .., 13 cards by
  default, BA-19), each from a freshly shuffled deck. Cards are dealt one at a
  time from the dealer's left, then one card is turned up: its suit is trump
  (BA-18). A turned joker means no trump; whoever holds the other joker
  discards it and draws the top stock card (BA-16, BA-17). Variant
  ``turn_next`` instead moves jokers under the stock until a standard card is
  turned. The dealer rotates left after every deal; the first dealer is seat 0
  (BA-25).
- §5.1 Each seat bids once, starting left of the dealer (BA-1a), in the open
  (BA-27): ``pass``, a number 1..n-1 (BA-2; no ordering rule, BA-1) or
  ``board``, whose level is 1 + the boards already bid (BA-3, BA-4).
- §6.1 Four passes void the deal: it is redealt at the same size by the next
  dealer, and abandoned for 0 points after ``max_consecutive_all_pass``
  such auctions in a row (BA-20). Otherwise a team with a board bid has a
  board contract at its highest level (BA-5, BA-26), else the sum of its two
  numbers (BA-8, BA-9).
- §6.2 The last board bidder leads, else the first of the highest numbers
  (BA-10).
- §5.2 Trumps may not be led until a trick has held one, unless the leader bid
  board or holds nothing else (BA-11, BA-12, BA-15). Follow the led suit if
  possible, else play anything (BA-21, BA-22). A led BB forces each other
  player's highest trump, a led LB their lowest (BA-14).
- §6.3 The highest trump wins the trick, else the highest card of the led
  suit; the winner leads next. Trumps break once a trick holding one is over.
- §7 Number contract b, t tricks: 5b + (t - b) if t >= b, else -5b (BA-7).
  Board of level L: +10·n·L if the team took all n tricks, else -10·n·L
  (BA-6). After the last deal the higher total wins; equal totals draw (BA-23,
  BA-24).

Actions: ``bid pass``, ``bid K``, ``bid board`` while bidding; ``play CARD``
while playing. Legal bids are listed pass, numbers ascending, board; legal
cards in canonical deck order.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

from ..errors import InvalidParamsError
from ..params import Bool, Choice, Int, SeatOrRandom, _describe, check_seat
from ..results import competition_placements
from ..rng import SplitMix64
from .base import GameSpec, ReferenceState, counting_now, fired

GAME = GameSpec(id="back_alley", min_players=4, max_players=4, default_players=4,
                rule_prefix="BA", loader="cardref.reference.loading.back_alley",
                teams=((0, 2), (1, 3)), heuristic=True, search=True)
GAME_ID = GAME.id
MAX_SCHEDULE = 1000  # engine limit (BA-28)
POINT_LIMIT = 2**31  # point constants lie in [-2**31, 2**31 - 1] (BA-28)

#: The rule points of the rule book's §11: every clause that can fire in play.
RULE_POINTS = {
    "BA-P1": "§4 `first_dealer = \"random\"`: the first generator call picks the first dealer.",
    "BA-P2": "§4 A deal's upcard is a standard card: its suit is trumps.",
    "BA-P3": "§4 `joker_upcard = \"no_trump\"`: a joker is turned up; the deal has no trumps.",
    "BA-P4": "§4 A joker upcard: the holder of the other joker puts it out of play and draws a "
            "stock card (BA-16).",
    "BA-P5": "§4 `joker_exchange_draw = \"bottom\"`: the exchanging seat draws the last stock "
            "card.",
    "BA-P6": "§4 A joker upcard and the other joker is in the stock: nobody exchanges.",
    "BA-P7": "§4 `joker_upcard = \"turn_next\"`: a turned joker goes under the stock and the next "
            "card is turned up.",
    "BA-P8": "§4 `joker_upcard = \"turn_next\"` and the stock holds no standard card: the joker "
            "stays up, no trumps.",
    "BA-P9": "§5.1 A seat passes.",
    "BA-P10": "§5.1 A seat bids a number of tricks.",
    "BA-P11": "§5.1 A seat bids board.",
    "BA-P12": "§5.1 A second board in one auction raises the level (double board or more, BA-4).",
    "BA-P13": "§5.1 A one-card hand with `bid_cap = \"hand_size_minus_one\"`: only pass or board "
            "may be bid.",
    "BA-P14": "§5.1 `bid_not_above_previous`: the last number bid lowers the highest number "
            "allowed (BA-1).",
    "BA-P15": "§5.2 Trumps are not broken: a leader holding other cards may not lead a trump.",
    "BA-P16": "§5.2 A leader exempt by a board bid leads a trump before trumps are broken (BA-11).",
    "BA-P17": "§5.2 A leader holding only trumps leads one before trumps are broken (BA-12).",
    "BA-P18": "§5.2 A follower holds the led suit (trumps if a trump was led): it must follow.",
    "BA-P19": "§5.2 A follower without the led suit may play any card (BA-21, BA-22).",
    "BA-P20": "§6.4 The Big Blooper is led: a follower holding trumps must play its highest one.",
    "BA-P21": "§6.4 The Little Blooper is led: a follower holding trumps must play its lowest one.",
    "BA-P22": "§6.4 `big_blooper_binds_partner = false`: the leader's partner follows a led Big "
            "Blooper under the ordinary rule.",
    "BA-P23": "§6.4 `blooper_lead_rules = false`: a led Blooper is just the top trump.",
    "BA-P24": "§6.1 All four pass: the deal is void and dealt again at the same size (BA-20).",
    "BA-P25": "§6.1 All four pass for the `max_consecutive_all_pass`-th time running: the hand is "
            "abandoned.",
    "BA-P26": "§6.1 A team's contract is board, at the highest level among its board bids.",
    "BA-P27": "§6.1 `board_multiplier_scope = \"hand\"`: a board contract takes the highest level "
            "bid by anyone.",
    "BA-P28": "§6.1 A board team's partner also bid a number, which is ignored (BA-5).",
    "BA-P29": "§6.1 A team's contract is the sum of its partners' number bids.",
    "BA-P30": "§6.1 A team's number contract is 0: both partners passed (BA-8).",
    "BA-P31": "§6.1 A team's number contract exceeds the hand size (BA-9).",
    "BA-P32": "§6.2 The last board bidder leads first.",
    "BA-P33": "§6.2 `board_lead = \"first\"`: the first board bidder leads first.",
    "BA-P34": "§6.2 No board: the highest number bidder leads first.",
    "BA-P35": "§6.2 Several seats bid the highest number: the first of them leads.",
    "BA-P36": "§6.3 A trick holds a trump: the highest trump wins it.",
    "BA-P37": "§6.3 A trick without trumps: the highest card of the led suit wins it.",
    "BA-P38": "§6.3 The first trick holding a trump breaks trumps.",
    "BA-P39": "§7 A number contract is made: 5 points per bid trick and 1 per overtrick.",
    "BA-P40": "§7 A number contract is set: minus 5 points per bid trick.",
    "BA-P41": "§7 A board contract is made: every trick taken.",
    "BA-P42": "§7 A board contract fails.",
    "BA-P43": "§7 `board_multiplier = \"doubling\"`: a board of level 2 or more is worth 2^(L−1) "
            "times.",
    "BA-P44": "§7 The last deal of the schedule is over: the team with the higher total wins.",
    "BA-P45": "§7 The last deal of the schedule is over and the totals are equal: a draw (BA-23).",
}


# §2 Card notation and deck order ----------------------------------------------

RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
SUITS = ["C", "D", "H", "S"]
JOKERS = ["BB", "LB"]
DECK_ORDER = [rank + suit for suit in SUITS for rank in RANKS] + JOKERS
POSITION = {card: i for i, card in enumerate(DECK_ORDER)}


def suit_of(card: str) -> Optional[str]:
    """The suit letter of a standard card; None for a joker."""
    return None if card in JOKERS else card[-1]


def rank_of(card: str) -> int:
    """0 for a two .. 12 for an ace (standard cards only)."""
    return RANKS.index(card[:-1])


def in_canonical_order(cards: list[str]) -> list[str]:
    return sorted(cards, key=POSITION.__getitem__)


# §3 State ---------------------------------------------------------------------


def team_of(seat: int) -> int:
    return seat % 2


def partner_of(seat: int) -> int:
    return (seat + 2) % 4


class State(ReferenceState):
    """A Back Alley game. Cards are their rule-book codes throughout."""

    GAME_ID = GAME_ID

    def __init__(self, players: int, params: dict[str, Any], seed: int, deck: Optional[list[str]]):
        self.players = players
        self.params = params
        self.schedule = schedule_of(params)
        self.rng = SplitMix64(seed)
        # The random first dealer is drawn before the first shuffle, also when
        # the first deck is given (§2 "Generator calls").
        self.dealer = (
            self.rng.bounded(4) if params["first_dealer"] == "random" else params["first_dealer"]
        )
        if params["first_dealer"] == "random":
            fired("BA-P1")
        self.hand_index = 0
        self.hand_size = self.schedule[0]
        self.all_pass_count = 0
        self.team_scores = [0, 0]
        self.deals: list[dict[str, Any]] = []
        self._history: list[str] = []
        self._deal(list(deck) if deck is not None else self._shuffled_deck())

    # §4 Setup, deal, dealer rotation, first leader --------------------------

    def _shuffled_deck(self) -> list[str]:
        cards = list(DECK_ORDER)
        self.rng.shuffle(cards)
        return cards

    def _deal(self, deck: list[str]) -> None:
        """Deal one card at a time from the dealer's left, turn the next card up."""
        n = self.hand_size
        self.hands: list[list[str]] = [[] for _ in range(4)]
        for i in range(4 * n):
            self.hands[(self.dealer + 1 + i) % 4].append(deck[i])
        self.upcard = deck[4 * n]
        self.stock = deck[4 * n + 1 :]
        self.turned_jokers: list[str] = []
        self.joker_exchange: Optional[dict[str, Any]] = None
        if self.upcard not in JOKERS:
            fired("BA-P2")
            self.trump = suit_of(self.upcard)
        elif self.params["joker_upcard"] == "turn_next":
            self._turn_next_card()
        else:
            fired("BA-P3")
            self.trump = "none"
            self._joker_exchange()
        self.hands = [in_canonical_order(hand) for hand in self.hands]
        self.phase = "bidding"
        self.bids: list[tuple[int, str]] = []
        self.to_act: Optional[int] = (self.dealer + 1) % 4
        self.trick_leader: Optional[int] = None
        self.trick: list[tuple[int, str]] = []
        self.completed_tricks: list[dict[str, Any]] = []
        self.tricks_won = [0, 0, 0, 0]
        self.trump_broken = False
        self.deal_start = len(self._history)

    def _joker_exchange(self) -> None:
        """The holder of the other joker discards it and draws a stock card (BA-16)."""
        other = "LB" if self.upcard == "BB" else "BB"
        holders = [seat for seat in range(4) if other in self.hands[seat]]
        if not holders:
            fired("BA-P6")
            return  # the other joker is in the stock: nothing happens
        fired("BA-P4")
        if self.params["joker_exchange_draw"] == "bottom":
            fired("BA-P5")
        seat = holders[0]
        drawn = (
            self.stock.pop()
            if self.params["joker_exchange_draw"] == "bottom"
            else self.stock.pop(0)
        )
        self.hands[seat].remove(other)
        self.hands[seat].append(drawn)
        self.joker_exchange = {"seat": seat, "discarded": other, "drawn": drawn}

    def _turn_next_card(self) -> None:
        """Move turned jokers under the stock until a standard card shows."""
        if all(card in JOKERS for card in self.stock):
            fired("BA-P8")
            self.trump = "none"  # only with n = 13 and both jokers undealt
            return
        while self.upcard in JOKERS:
            fired("BA-P7")
            self.stock.append(self.upcard)
            self.turned_jokers.append(self.upcard)
            self.upcard = self.stock.pop(0)
        self.trump = suit_of(self.upcard)

    def _bid_of(self, seat: int) -> Optional[str]:
        for bidder, bid in self.bids:
            if bidder == seat:
                return bid
        return None

    # §5 Turn structure and legal actions -------------------------------------

    def current_player(self) -> Optional[int]:
        return self.to_act

    def legal_actions(self) -> list[str]:
        if self.phase == "bidding":
            numbers = [f"bid {k}" for k in range(1, self._max_number_bid() + 1)]
            return ["bid pass", *numbers, "bid board"]
        if self.phase == "play":
            return [f"play {card}" for card in in_canonical_order(self._playable())]
        return []

    def illegal_reason(self, action: str) -> str:
        verb, _, arg = action.partition(" ")
        if self.phase == "bidding":
            if verb == "play":
                return "the auction is not over; it must bid"
            highest = self._max_number_bid()
            if verb == "bid" and arg.isdigit() and str(int(arg)) == arg and 1 <= int(arg) <= 13:
                if highest < 1:
                    return "no number bid is allowed now (only pass or board)"
                return f"number bids must be from 1 to {highest} now"
        if self.phase == "play":
            if verb == "bid":
                return "the auction is over; it must play a card"
            if verb == "play" and arg in POSITION:
                if arg not in self.hands[self.to_act]:
                    return f"{arg} is not in its hand"
                if not self.trick:
                    return "trumps may not be led before they are broken"
                return "it must follow the led suit (or the Blooper's highest/lowest trump rule)"
        return "not an action of back_alley (bid pass, bid K, bid board, play CARD)"

    def _apply_unchecked(self, action: str) -> None:
        self._history.append(action)
        verb, arg = action.split(" ")
        if verb == "bid":
            self._bid(arg)
        else:
            self._play_card(arg)

    # §5.1 Bidding -----------------------------------------------------------

    def _max_number_bid(self) -> int:
        """The highest number the player to act may bid now (0: none): n - 1, or n
        with ``bid_cap = hand_size`` (BA-2), capped by the last number bid under
        ``bid_not_above_previous`` (BA-1)."""
        n = self.hand_size
        highest = n if self.params["bid_cap"] == "hand_size" else n - 1
        if self.params["bid_not_above_previous"]:
            numbers = [int(bid) for _, bid in self.bids if bid not in ("pass", "board")]
            if numbers:
                highest = min(highest, numbers[-1])
        return highest

    def _bid(self, bid: str) -> None:
        if counting_now():
            self._note_bid(bid)
        self.bids.append((self.to_act, bid))
        if len(self.bids) < 4:
            self.to_act = (self.to_act + 1) % 4
        else:
            self._end_auction()

    def _note_bid(self, bid: str) -> None:
        """The rule points of a bid."""
        fired({"pass": "BA-P9", "board": "BA-P11"}.get(bid, "BA-P10"))
        if bid == "board" and any(b == "board" for _, b in self.bids):
            fired("BA-P12")
        if self._max_number_bid() == 0:
            fired("BA-P13")
        numbers = [int(b) for _, b in self.bids if b not in ("pass", "board")]
        n = self.hand_size
        cap = n if self.params["bid_cap"] == "hand_size" else n - 1
        if self.params["bid_not_above_previous"] and numbers and numbers[-1] < cap:
            fired("BA-P14")

    # §5.2 Play --------------------------------------------------------------

    def _is_trump(self, card: str) -> bool:
        return card in JOKERS or suit_of(card) == self.trump

    def _exempt(self, seat: int) -> bool:
        """May ``seat`` lead a trump before trumps are broken (BA-11)?"""
        rule = self.params["board_trump_lead_exemption"]
        if rule == "player":
            return self._bid_of(seat) == "board"
        if rule == "team":
            return "board" in (self._bid_of(seat), self._bid_of(partner_of(seat)))
        return False

    def _playable(self) -> list[str]:
        seat = self.to_act
        hand = self.hands[seat]
        trumps = [card for card in hand if self._is_trump(card)]
        if not self.trick:
            others = [card for card in hand if not self._is_trump(card)]
            if not self.trump_broken and not self._exempt(seat) and others:
                return others
            return hand
        led = self.trick[0][1]
        if trumps and self._blooper_rule_applies(led, seat):
            return [self._blooper_answer(trumps, led)]
        if self._is_trump(led):
            follow = trumps
        else:
            follow = [card for card in hand if suit_of(card) == suit_of(led)]
        return follow or hand


    def _note_play(self, card: str) -> None:
        """The rule points of a lead or a follow (§5.2, §6.4)."""
        seat = self.to_act
        hand = self.hands[seat]
        trumps = [c for c in hand if self._is_trump(c)]
        if not self.trick:
            has_others = len(trumps) < len(hand)
            if not self.trump_broken and not self._exempt(seat) and has_others:
                fired("BA-P15")
            if self._is_trump(card) and not self.trump_broken:
                if self._exempt(seat) and has_others:
                    fired("BA-P16")
                elif not has_others:
                    fired("BA-P17")
            if card in JOKERS and not self.params["blooper_lead_rules"]:
                fired("BA-P23")
            return
        led = self.trick[0][1]
        if trumps and self._blooper_rule_applies(led, seat):
            fired("BA-P20" if led == "BB" else "BA-P21")
            return
        if led == "BB" and self.params["blooper_lead_rules"] and \
                seat == partner_of(self.trick_leader):
            fired("BA-P22")
        same_suit = [c for c in hand if suit_of(c) == suit_of(led)]
        follow = trumps if self._is_trump(led) else same_suit
        fired("BA-P18" if follow else "BA-P19")

    def _play_card(self, card: str) -> None:
        if counting_now():
            self._note_play(card)
        seat = self.to_act
        self.hands[seat].remove(card)
        self.trick.append((seat, card))
        if len(self.trick) < 4:
            self.to_act = (seat + 1) % 4
        else:
            self._resolve_trick()

    # §6.1 End of the auction -------------------------------------------------

    def _end_auction(self) -> None:
        if all(bid == "pass" for _, bid in self.bids):
            self._all_pass()
            return
        self.all_pass_count = 0
        self.phase = "play"
        self.trick_leader = self._first_leader()
        self.to_act = self.trick_leader
        if counting_now():
            self._note_auction()

    def _note_auction(self) -> None:
        """The rule points of the contracts and the first leader (§6.1, §6.2)."""
        for team in (0, 1):
            bids = [bid for seat, bid in self.bids if team_of(seat) == team]
            if "board" in bids:
                fired("BA-P26")
                if self.params["board_multiplier_scope"] == "hand":
                    fired("BA-P27")
                if any(bid not in ("pass", "board") for bid in bids):
                    fired("BA-P28")
                continue
            fired("BA-P29")
            contract = sum(int(bid) for bid in bids if bid != "pass")
            if contract == 0:
                fired("BA-P30")
            if contract > self.hand_size:
                fired("BA-P31")
        if any(bid == "board" for _, bid in self.bids):
            fired("BA-P33" if self.params["board_lead"] == "first" else "BA-P32")
            return
        fired("BA-P34")
        numbers = [int(bid) for _, bid in self.bids if bid != "pass"]
        if numbers.count(max(numbers)) > 1:
            fired("BA-P35")

    def _all_pass(self) -> None:
        """BA-20: redeal at the same size, or abandon the hand after the cap."""
        self.all_pass_count += 1
        if self.all_pass_count < self.params["max_consecutive_all_pass"]:
            fired("BA-P24")
            self._record_deal("redeal", [0, 0], [0, 0])
        else:
            fired("BA-P25")
            self._record_deal("abandoned", [0, 0], [0, 0])
            self.all_pass_count = 0
            self.hand_index += 1
        self._next_deal()

    # §6.2 First leader ------------------------------------------------------

    def _first_leader(self) -> int:
        """BA-10: the last (or first) board bidder, else the first highest number."""
        boards = [seat for seat, bid in self.bids if bid == "board"]
        if boards:
            return boards[0] if self.params["board_lead"] == "first" else boards[-1]
        numbers = [(seat, int(bid)) for seat, bid in self.bids if bid != "pass"]
        highest = max(k for _, k in numbers)
        return next(seat for seat, k in numbers if k == highest)

    # §6.3 Resolving a trick ---------------------------------------------------

    def _trump_rank(self, card: str) -> int:
        """Trump order, low to high: 2..A of the trump suit, LB, BB."""
        if card == "BB":
            return 14
        if card == "LB":
            return 13
        return rank_of(card)

    def _trick_winner(self, trick: list[tuple[int, str]]) -> int:
        trumps = [(seat, card) for seat, card in trick if self._is_trump(card)]
        if trumps:
            return max(trumps, key=lambda sc: self._trump_rank(sc[1]))[0]
        led_suit = suit_of(trick[0][1])
        following = [(seat, card) for seat, card in trick if suit_of(card) == led_suit]
        return max(following, key=lambda sc: rank_of(sc[1]))[0]

    def _resolve_trick(self) -> None:
        winner = self._trick_winner(self.trick)
        self.completed_tricks.append(
            {"leader": self.trick_leader, "cards": list(self.trick), "winner": winner}
        )
        self.tricks_won[winner] += 1
        has_trump = any(self._is_trump(card) for _, card in self.trick)
        fired("BA-P36" if has_trump else "BA-P37")
        if has_trump and not self.trump_broken:
            fired("BA-P38")
        if has_trump:
            self.trump_broken = True  # set when the trick is resolved, not before
        self.trick = []
        self.trick_leader = winner
        self.to_act = winner
        if len(self.completed_tricks) == self.hand_size:
            self._score_deal()

    # §6.4 The Bloopers -------------------------------------------------------

    def _blooper_rule_applies(self, led: str, seat: int) -> bool:
        """BA-14: a led Blooper binds every other player (the partner optionally)."""
        if not self.params["blooper_lead_rules"]:
            return False
        if led == "LB":
            return True
        if led == "BB":
            is_partner = seat == partner_of(self.trick_leader)
            return self.params["big_blooper_binds_partner"] or not is_partner
        return False

    def _blooper_answer(self, trumps: list[str], led: str) -> str:
        """BA-14: the card a bound player holding ``trumps`` must play: its highest
        trump under the Big Blooper, its lowest under the Little one."""
        ranked = sorted(trumps, key=self._trump_rank)
        return ranked[-1] if led == "BB" else ranked[0]

    # §7 Hand end, scoring, game end ------------------------------------------

    def _board_level(self, team: int) -> int:
        """The level of ``team``'s board contract, 0 if it has none (BA-5)."""
        levels = {}  # seat -> level of its board bid
        for seat, bid in self.bids:
            if bid == "board":
                levels[seat] = len(levels) + 1
        own = [level for seat, level in levels.items() if team_of(seat) == team]
        if not own:
            return 0
        if self.params["board_multiplier_scope"] == "hand":
            return max(levels.values())
        return max(own)

    def _deal_points(self, team: int, taken: int) -> int:
        p = self.params
        n = self.hand_size
        level = self._board_level(team)
        if level:
            multiplier = level if p["board_multiplier"] == "linear" else 2 ** (level - 1)
            value = p["board_points_per_trick"] * n * multiplier
            return value if taken == n else -value
        contract = sum(
            int(bid) for seat, bid in self.bids if team_of(seat) == team and bid != "pass"
        )
        if taken >= contract:
            return p["bid_points_per_trick"] * contract + p["overtrick_points"] * (taken - contract)
        return -p["set_points_per_bid_trick"] * contract

    def _score_deal(self) -> None:
        tricks = [self.tricks_won[0] + self.tricks_won[2], self.tricks_won[1] + self.tricks_won[3]]
        points = [self._deal_points(team, tricks[team]) for team in (0, 1)]
        for team in (0, 1):
            level = self._board_level(team)
            if level:
                fired("BA-P41" if tricks[team] == self.hand_size else "BA-P42")
                if self.params["board_multiplier"] == "doubling" and level >= 2:
                    fired("BA-P43")
            else:
                contract = sum(int(bid) for seat, bid in self.bids
                               if team_of(seat) == team and bid != "pass")
                fired("BA-P39" if tricks[team] >= contract else "BA-P40")
        self.team_scores = [self.team_scores[0] + points[0], self.team_scores[1] + points[1]]
        self._record_deal("played", tricks, points)
        self.hand_index += 1
        self._next_deal()

    def _record_deal(self, outcome: str, tricks: list[int], points: list[int]) -> None:
        record = {
            "dealer": self.dealer,
            "hand_index": self.hand_index,
            "hand_size": self.hand_size,
            "upcard": self.upcard,
            "turned_jokers": list(self.turned_jokers),
            "trump": self.trump,
            "bids": [[seat, bid] for seat, bid in self.bids],
            "tricks": tricks,
            "points": points,
            "outcome": outcome,
        }
        if self.joker_exchange is not None:  # only present when there was one
            exchange = self.joker_exchange
            record["joker_exchange"] = {
                "seat": exchange["seat"],
                "discarded": exchange["discarded"],
            }
        self.deals.append(record)

    def _next_deal(self) -> None:
        """After the last schedule entry the game is over and the table stays as
        it is; otherwise the next dealer deals the next hand."""
        if self.hand_index == len(self.schedule):
            fired("BA-P45" if self.team_scores[0] == self.team_scores[1] else "BA-P44")
            self.phase = "game_over"
            self.to_act = None
            self.trick_leader = None
            return
        self.dealer = (self.dealer + 1) % 4
        self.hand_size = self.schedule[self.hand_index]
        self._deal(self._shuffled_deck())

    def _result(self) -> Optional[str]:
        if self.phase != "game_over":
            return None
        a, b = self.team_scores
        return "team0" if a > b else "team1" if b > a else "draw"

    def scores(self) -> list[int]:
        return [self.team_scores[team_of(seat)] for seat in range(4)]

    def final_placements(self) -> list[int]:
        s = self.scores()
        return competition_placements(4, lambda a, b: s[a] > s[b])

    def rounds(self) -> int:
        """Deals dealt so far (played, redealt or abandoned), the one in play included."""
        return len(self.deals) + (self.phase != "game_over")

    # Observation and JSON ------------------------------------------------------

    def _public(self) -> dict[str, Any]:
        """Everything every seat sees (§3 "Observation")."""
        return {
            "game": GAME_ID,
            "players": 4,
            "params": dict(self.params),
            "phase": self.phase,
            "hand_index": self.hand_index,
            "hand_size": self.hand_size,
            "dealer": self.dealer,
            "all_pass_count": self.all_pass_count,
            "to_act": self.to_act,
            "upcard": self.upcard,
            "turned_jokers": list(self.turned_jokers),
            "trump": self.trump,
            "bids": [[seat, bid] for seat, bid in self.bids],
            "trick_leader": self.trick_leader,
            "trick": [[seat, card] for seat, card in self.trick],
            "completed_tricks": [
                {
                    "leader": t["leader"],
                    "cards": [[s, c] for s, c in t["cards"]],
                    "winner": t["winner"],
                }
                for t in self.completed_tricks
            ],
            "tricks_won": list(self.tricks_won),
            "trump_broken": self.trump_broken,
            "team_scores": list(self.team_scores),
            "deals": [_copy_deal(d) for d in self.deals],
            "result": self._result(),
        }

    def observation(self, seat: int) -> dict[str, Any]:
        if not 0 <= seat < 4:
            raise ValueError(f"seat {seat} does not exist; seats are 0 to 3")
        view = self._public()
        exchange = self.joker_exchange
        if exchange is not None:  # the drawn card is shown to the exchanger only
            exchange = {"seat": exchange["seat"], "discarded": exchange["discarded"]}
            if self.joker_exchange["seat"] == seat:
                exchange["drawn"] = self.joker_exchange["drawn"]
        view.update(
            {
                "seat": seat,
                "hand": list(self.hands[seat]),
                "hand_sizes": [len(hand) for hand in self.hands],
                "stock_size": len(self.stock),
                "joker_exchange": exchange,
                "actions": self._history[self.deal_start :],
            }
        )
        return view

    def to_dict(self) -> dict[str, Any]:
        data = self._public()
        data.update(
            {
                "rng": self.rng.state,
                "hands": [list(hand) for hand in self.hands],
                "stock": list(self.stock),
                "joker_exchange": None
                if self.joker_exchange is None
                else dict(self.joker_exchange),
                "history": list(self._history),
                "deal_start": self.deal_start,
            }
        )
        return data


def _copy_deal(deal: dict[str, Any]) -> dict[str, Any]:
    copied = dict(deal)
    copied["turned_jokers"] = list(deal["turned_jokers"])
    copied["bids"] = [list(pair) for pair in deal["bids"]]
    copied["tricks"], copied["points"] = list(deal["tricks"]), list(deal["points"])
    if "joker_exchange" in deal:
        copied["joker_exchange"] = dict(deal["joker_exchange"])
    return copied


# §8 Variants (config keys, defaults first) ------------------------------------

NAMED_SCHEDULES = {
    "13-1-13": list(range(13, 0, -1)) + list(range(2, 14)),
    "13-1-1-13": list(range(13, 0, -1)) + list(range(1, 14)),
    "1-13-1": list(range(1, 14)) + list(range(12, 0, -1)),
    "1-13-13-1": list(range(1, 14)) + list(range(13, 0, -1)),
}


@dataclass(frozen=True)
class ScheduleSpec:
    """``schedule``: a named schedule, or an explicit list of hand sizes."""

    key: str = "schedule"
    default: str = "13-1-13"

    def check(self, value: Any) -> Any:
        if isinstance(value, str) and value in NAMED_SCHEDULES:
            return value
        if (
            isinstance(value, list)
            and 1 <= len(value) <= MAX_SCHEDULE
            and all(isinstance(k, int) and not isinstance(k, bool) and 1 <= k <= 13 for k in value)
        ):
            return list(value)
        names = ", ".join(f'"{name}"' for name in NAMED_SCHEDULES)
        raise InvalidParamsError(
            f"{self.key}: must be one of {names} or a non-empty list of at most "
            f"{MAX_SCHEDULE} integers from 1 to 13, got {_describe(value)}"
        )


VARIANTS = [
    ScheduleSpec(),
    SeatOrRandom("first_dealer"),  # BA-25
    Choice("joker_upcard", ["no_trump", "turn_next"]),
    Choice("joker_exchange_draw", ["top", "bottom"]),
    Choice("bid_cap", ["hand_size_minus_one", "hand_size"]),
    Bool("bid_not_above_previous", False),
    Choice("board_lead", ["last", "first"]),
    Choice("board_multiplier", ["linear", "doubling"]),
    Choice("board_multiplier_scope", ["team", "hand"]),
    Choice("board_trump_lead_exemption", ["player", "team", "none"]),
    Bool("blooper_lead_rules", True),
    Bool("big_blooper_binds_partner", True),
    Int("bid_points_per_trick", 5, low=-POINT_LIMIT, high=POINT_LIMIT - 1),
    Int("overtrick_points", 1, low=-POINT_LIMIT, high=POINT_LIMIT - 1),
    Int("set_points_per_bid_trick", 5, low=-POINT_LIMIT, high=POINT_LIMIT - 1),
    Int("board_points_per_trick", 10, low=-POINT_LIMIT, high=POINT_LIMIT - 1),
    Int("max_consecutive_all_pass", 4, low=1, high=2**63 - 1),
]


def check_config(players: int, params: dict[str, Any]) -> None:
    """The first dealer must be a seat of the table; the player count (4) is
    checked by the frame."""
    check_seat("first_dealer", params["first_dealer"], players)


def schedule_of(params: dict[str, Any]) -> list[int]:
    """The hand size of every deal that counts."""
    schedule = params["schedule"]
    return NAMED_SCHEDULES[schedule] if isinstance(schedule, str) else list(schedule)


def canonical_deck(players: int, params: dict[str, Any]) -> list[str]:
    """The 54 cards in canonical order (§2)."""
    return list(DECK_ORDER)
