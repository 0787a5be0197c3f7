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

from ..errors import InvalidParamsError, InvalidStateError
from ..params import Bool, Choice, Int, _describe
from ..reference import ReferenceState, canonical_json
from ..results import competition_placements
from ..rng import SplitMix64

GAME_ID = "back_alley"
MIN_PLAYERS = 4
MAX_PLAYERS = 4
MAX_SCHEDULE = 1000  # engine limit (BA-28)
POINT_LIMIT = 2**31  # point constants lie in [-2**31, 2**31 - 1] (BA-28)


# §2 Card notation and ranking -------------------------------------------------

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


# §8 Variants -----------------------------------------------------------------

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


@dataclass(frozen=True)
class FirstDealerSpec:
    """``first_dealer``: a seat 0..3 or "random" (BA-25)."""

    key: str = "first_dealer"
    default: int = 0

    def check(self, value: Any) -> Any:
        if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 3:
            return value
        if value == "random":
            return value
        raise InvalidParamsError(
            f'{self.key}: must be an integer seat from 0 to 3 or "random", got {_describe(value)}'
        )


def _points(key: str, default: int) -> Int:
    return Int(key, default, low=-POINT_LIMIT, high=POINT_LIMIT - 1)


VARIANTS = [
    ScheduleSpec(),
    FirstDealerSpec(),
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
    _points("bid_points_per_trick", 5),
    _points("overtrick_points", 1),
    _points("set_points_per_bid_trick", 5),
    _points("board_points_per_trick", 10),
    Int("max_consecutive_all_pass", 4, low=1, high=2**63 - 1),
]


def check_config(players: int, params: dict[str, Any]) -> None:
    """No key depends on another; the player count (4) is checked by the frame."""


def schedule_of(params: dict[str, Any]) -> list[int]:
    """The hand size of every deal that counts."""
    schedule = params["schedule"]
    return NAMED_SCHEDULES[schedule] if isinstance(schedule, str) else list(schedule)


def canonical_deck(players: int, params: dict[str, Any]) -> list[str]:
    """The 54 cards in canonical order (§2)."""
    return list(DECK_ORDER)


def team_of(seat: int) -> int:
    return seat % 2


def partner_of(seat: int) -> int:
    return (seat + 2) % 4


# §3 State ---------------------------------------------------------------------


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
        self.hand_index = 0
        self.hand_size = self.schedule[0]
        self.all_pass_count = 0
        self.team_scores = [0, 0]
        self.deals: list[dict[str, Any]] = []
        self._history: list[str] = []
        self._deal(list(deck) if deck is not None else self._shuffled_deck())

    # §4 Setup, deal, dealer rotation ----------------------------------------

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
            self.trump = suit_of(self.upcard)
        elif self.params["joker_upcard"] == "turn_next":
            self._turn_next_card()
        else:
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
            return  # the other joker is in the stock: nothing happens
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
            self.trump = "none"  # only with n = 13 and both jokers undealt
            return
        while self.upcard in JOKERS:
            self.stock.append(self.upcard)
            self.turned_jokers.append(self.upcard)
            self.upcard = self.stock.pop(0)
        self.trump = suit_of(self.upcard)

    def _bid_of(self, seat: int) -> Optional[str]:
        for bidder, bid in self.bids:
            if bidder == seat:
                return bid
        return None

    # §5.1 Bidding -----------------------------------------------------------

    def _number_bids_allowed(self) -> list[int]:
        """1..n-1 (or 1..n), capped by the last number bid under BA-1's variant."""
        n = self.hand_size
        highest = n if self.params["bid_cap"] == "hand_size" else n - 1
        if self.params["bid_not_above_previous"]:
            numbers = [int(bid) for _, bid in self.bids if bid not in ("pass", "board")]
            if numbers:
                highest = min(highest, numbers[-1])
        return list(range(1, highest + 1))

    def _bid(self, bid: str) -> None:
        self.bids.append((self.to_act, bid))
        if len(self.bids) < 4:
            self.to_act = (self.to_act + 1) % 4
        else:
            self._end_auction()

    # §5.2 Play: legal cards ---------------------------------------------------

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
            ranked = sorted(trumps, key=self._trump_rank)
            return [ranked[-1]] if led == "BB" else [ranked[0]]
        if self._is_trump(led):
            follow = trumps
        else:
            follow = [card for card in hand if suit_of(card) == suit_of(led)]
        return follow or hand

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

    def _trump_rank(self, card: str) -> int:
        """Trump order, low to high: 2..A of the trump suit, LB, BB."""
        if card == "BB":
            return 14
        if card == "LB":
            return 13
        return rank_of(card)

    def _play_card(self, card: str) -> None:
        seat = self.to_act
        self.hands[seat].remove(card)
        self.trick.append((seat, card))
        if len(self.trick) < 4:
            self.to_act = (seat + 1) % 4
        else:
            self._resolve_trick()

    # §6.1 End of the auction, §6.2 first leader ---------------------------------

    def _end_auction(self) -> None:
        if all(bid == "pass" for _, bid in self.bids):
            self._all_pass()
            return
        self.all_pass_count = 0
        self.phase = "play"
        self.trick_leader = self._first_leader()
        self.to_act = self.trick_leader

    def _all_pass(self) -> None:
        """BA-20: redeal at the same size, or abandon the hand after the cap."""
        self.all_pass_count += 1
        if self.all_pass_count < self.params["max_consecutive_all_pass"]:
            self._record_deal("redeal", [0, 0], [0, 0])
        else:
            self._record_deal("abandoned", [0, 0], [0, 0])
            self.all_pass_count = 0
            self.hand_index += 1
        self._next_deal()

    def _first_leader(self) -> int:
        """BA-10: the last (or first) board bidder, else the first highest number."""
        boards = [seat for seat, bid in self.bids if bid == "board"]
        if boards:
            return boards[0] if self.params["board_lead"] == "first" else boards[-1]
        numbers = [(seat, int(bid)) for seat, bid in self.bids if bid != "pass"]
        highest = max(k for _, k in numbers)
        return next(seat for seat, k in numbers if k == highest)

    # §6.3 Resolving a trick ---------------------------------------------------

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
        if any(self._is_trump(card) for _, card in self.trick):
            self.trump_broken = True  # set when the trick is resolved, not before
        self.trick = []
        self.trick_leader = winner
        self.to_act = winner
        if len(self.completed_tricks) == self.hand_size:
            self._score_deal()

    # §7 Scoring and game end -----------------------------------------------

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

    # The state API -----------------------------------------------------------

    def current_player(self) -> Optional[int]:
        return self.to_act

    def legal_actions(self) -> list[str]:
        if self.phase == "bidding":
            numbers = [f"bid {k}" for k in self._number_bids_allowed()]
            return ["bid pass", *numbers, "bid board"]
        if self.phase == "play":
            return [f"play {card}" for card in in_canonical_order(self._playable())]
        return []

    def why_illegal(self, action: str) -> str:
        verb, _, arg = action.partition(" ")
        if self.phase == "bidding":
            if verb == "play":
                return "the auction is not over; it must bid"
            allowed = self._number_bids_allowed()
            if verb == "bid" and arg.isdigit() and str(int(arg)) == arg and 1 <= int(arg) <= 13:
                if not allowed:
                    return "no number bid is allowed now (only pass or board)"
                return f"number bids must be from 1 to {allowed[-1]} now"
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

    def _play(self, action: str) -> None:
        self._history.append(action)
        verb, arg = action.split(" ")
        if verb == "bid":
            self._bid(arg)
        else:
            self._play_card(arg)

    def scores(self) -> list[int]:
        return [self.team_scores[team_of(seat)] for seat in range(4)]

    def _final_placements(self) -> list[int]:
        s = self.scores()
        return competition_placements(4, lambda a, b: s[a] > s[b])

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

    @classmethod
    def from_dict(cls, players: int, params: dict[str, Any], data: dict[str, Any]) -> State:
        """Rebuild a state from ``to_dict`` output, checking that it is whole."""
        if canonical_json(data["params"]) != canonical_json(params):  # 1 is not true here
            _fail("the state's params differ from the game's")
        return _StateReader(cls.__new__(cls), params, data).read()


def _copy_deal(deal: dict[str, Any]) -> dict[str, Any]:
    copied = dict(deal)
    copied["turned_jokers"] = list(deal["turned_jokers"])
    copied["bids"] = [list(pair) for pair in deal["bids"]]
    copied["tricks"], copied["points"] = list(deal["tricks"]), list(deal["points"])
    if "joker_exchange" in deal:
        copied["joker_exchange"] = dict(deal["joker_exchange"])
    return copied


# Loading a state ---------------------------------------------------------------


def _fail(why: str) -> None:
    raise InvalidStateError(f"invalid state: {why}")


def _is_int(value: Any) -> bool:
    """A JSON integer that fits in 64 signed bits (what the Rust core reads)."""
    return isinstance(value, int) and not isinstance(value, bool) and -(2**63) <= value < 2**63


def _uint(data: dict[str, Any], key: str, below: int = 2**64) -> int:
    value = data[key]
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < below:
        _fail(
            f"field {key!r} must be a non-negative integer" + (f" below {below}" if below else "")
        )
    return value


def _card(value: Any) -> str:
    if not isinstance(value, str) or value not in POSITION:
        _fail(f"{value!r} is not a card")
    return value


def _cards(value: Any, what: str) -> list[str]:
    if not isinstance(value, list):
        _fail(f"{what} must be a list of cards")
    return [_card(c) for c in value]


def _bid_text(value: Any) -> str:
    ok = isinstance(value, str) and (
        value in ("pass", "board")
        or (value.isdigit() and str(int(value)) == value and 1 <= int(value) <= 13)
    )
    if not ok:
        _fail(f"{value!r} is not a bid")
    return value


def _is_action(value: Any) -> bool:
    """An action in the canonical grammar (bid pass/K/board, play CARD)."""
    if not isinstance(value, str):
        return False
    verb, _, arg = value.partition(" ")
    if verb == "bid":
        try:
            _bid_text(arg)
        except InvalidStateError:
            return False
        return True
    return verb == "play" and arg in POSITION


def _trump_text(value: Any) -> str:
    if value not in ("C", "D", "H", "S", "none"):
        _fail(f"unknown trump {value!r}")
    return value


def _seated_pairs(value: Any, first_seat: int, what: str, read: Any) -> list[tuple[int, str]]:
    """``[[seat, x], ...]`` with seats clockwise from ``first_seat``."""
    if not isinstance(value, list):
        _fail(f"{what} must be a list of [seat, value] pairs")
    pairs = []
    for i, pair in enumerate(value):
        if not (
            isinstance(pair, list)
            and len(pair) == 2
            and pair[0] == (first_seat + i) % 4
            and _is_int(pair[0])
        ):
            _fail(f"{what} must be [seat, value] pairs clockwise from seat {first_seat}")
        pairs.append((pair[0], read(pair[1])))
    return pairs


class _StateReader:
    """Reads every field of a state dict, then checks the whole is consistent."""

    def __init__(self, state: State, params: dict[str, Any], data: dict[str, Any]):
        self.s, self.params, self.data = state, params, data

    def read(self) -> State:
        s, d = self.s, self.data
        s.players, s.params, s.schedule = 4, self.params, schedule_of(self.params)
        s.rng = SplitMix64(_uint(d, "rng"))
        if d["phase"] not in ("bidding", "play", "game_over"):
            _fail(f"unknown phase {d['phase']!r}")
        s.phase = d["phase"]
        s.hand_index = _uint(d, "hand_index")
        s.hand_size = _uint(d, "hand_size", 14)
        s.dealer = _uint(d, "dealer", 4)
        if not _is_int(d["all_pass_count"]):
            _fail("field 'all_pass_count' must be an integer")
        s.all_pass_count = d["all_pass_count"]
        self._read_cards()
        s.bids = _seated_pairs(d["bids"], (s.dealer + 1) % 4, "bids", _bid_text)
        if len(s.bids) > 4:
            _fail("at most four bids per auction")
        self._read_tricks()
        if not isinstance(d["trump_broken"], bool):
            _fail("trump_broken must be true or false")
        s.trump_broken = d["trump_broken"]
        if not (
            isinstance(d["team_scores"], list)
            and len(d["team_scores"]) == 2
            and all(_is_int(x) for x in d["team_scores"])
        ):
            _fail("team_scores must hold two totals")
        s.team_scores = list(d["team_scores"])
        if not isinstance(d["deals"], list) or not isinstance(d["history"], list):
            _fail("deals and history must be lists")
        s.deals = [self._read_deal(deal) for deal in d["deals"]]
        if not all(_is_action(a) for a in d["history"]):
            _fail("history must hold actions of this game")
        s._history = list(d["history"])
        s.deal_start = _uint(d, "deal_start")
        self._check()
        return s

    def _read_cards(self) -> None:
        s, d = self.s, self.data
        if not isinstance(d["hands"], list) or len(d["hands"]) != 4:
            _fail("hands must have one entry per seat")
        s.hands = [_cards(hand, "a hand") for hand in d["hands"]]
        for hand in s.hands:
            if hand != in_canonical_order(hand) or len(set(hand)) != len(hand):
                _fail("a hand must list distinct cards in canonical order")
        s.upcard = _card(d["upcard"])
        s.turned_jokers = _cards(d["turned_jokers"], "turned_jokers")
        if len(s.turned_jokers) > 2 or any(c not in JOKERS for c in s.turned_jokers):
            _fail("turned_jokers must hold jokers only")
        s.stock = _cards(d["stock"], "stock")
        s.trump = _trump_text(d["trump"])
        exchange = d["joker_exchange"]
        if exchange is None:
            s.joker_exchange = None
        else:
            s.joker_exchange = {
                "seat": _uint(exchange, "seat", 4),
                "discarded": _card(exchange["discarded"]),
                "drawn": _card(exchange["drawn"]),
            }

    def _read_tricks(self) -> None:
        s, d = self.s, self.data
        if not isinstance(d["completed_tricks"], list) or len(d["completed_tricks"]) > s.hand_size:
            _fail("more completed tricks than the hand size")
        s.completed_tricks = []
        for trick in d["completed_tricks"]:
            leader = _uint(trick, "leader", 4)
            cards = _seated_pairs(trick["cards"], leader, "trick cards", _card)
            if len(cards) != 4:
                _fail("a completed trick holds four cards")
            s.completed_tricks.append(
                {"leader": leader, "cards": cards, "winner": _uint(trick, "winner", 4)}
            )
        leader = d["trick_leader"]
        if leader is not None and not (_is_int(leader) and 0 <= leader < 4):
            _fail("trick_leader must be a seat or null")
        s.trick_leader = leader
        s.trick = _seated_pairs(d["trick"], leader or 0, "trick cards", _card)
        if len(s.trick) > 3:
            _fail("the current trick holds at most three cards")
        won = d["tricks_won"]
        if not (
            isinstance(won, list)
            and len(won) == 4
            and all(_is_int(w) and 0 <= w <= 13 for w in won)
        ):
            _fail("tricks_won must hold four counts")
        s.tricks_won = list(won)

    def _read_deal(self, deal: Any) -> dict[str, Any]:
        dealer = _uint(deal, "dealer", 4)
        bids = _seated_pairs(deal["bids"], (dealer + 1) % 4, "deal record bids", _bid_text)
        if len(bids) != 4:
            _fail("a deal record holds four bids")
        for key in ("tricks", "points"):
            if not (
                isinstance(deal[key], list)
                and len(deal[key]) == 2
                and all(_is_int(x) for x in deal[key])
            ):
                _fail(f"deal record {key} must hold two numbers")
        if not all(0 <= t <= 13 for t in deal["tricks"]):
            _fail("deal record tricks out of range")
        exchange = deal.get("joker_exchange")
        if exchange is not None:
            exchange = {
                "seat": _uint(exchange, "seat", 4),
                "discarded": _card(exchange["discarded"]),
            }
        turned = _cards(deal["turned_jokers"], "turned_jokers")
        if len(turned) > 2 or any(c not in JOKERS for c in turned):
            _fail("deal record turned_jokers must hold at most two jokers")
        if deal["outcome"] not in ("played", "redeal", "abandoned"):
            _fail(f"unknown deal outcome {deal['outcome']!r}")
        record = {
            "dealer": dealer,
            "hand_index": _uint(deal, "hand_index"),
            "hand_size": _uint(deal, "hand_size", 14),
            "upcard": _card(deal["upcard"]),
            "turned_jokers": turned,
            "trump": _trump_text(deal["trump"]),
            "bids": [[seat, bid] for seat, bid in bids],
            "tricks": list(deal["tricks"]),
            "points": list(deal["points"]),
            "outcome": deal["outcome"],
        }
        if exchange is not None:
            record["joker_exchange"] = exchange
        return record

    # Consistency -----------------------------------------------------------

    def _check(self) -> None:
        s = self.s
        last = len(s.schedule)
        if (s.phase == "game_over") != (s.hand_index == last) or s.hand_index > last:
            _fail("hand_index does not match the phase")
        if s.hand_size != s.schedule[min(s.hand_index, last - 1)]:
            _fail("hand_size does not match the schedule")
        if s.phase == "bidding":
            ok = 0 <= s.all_pass_count < s.params["max_consecutive_all_pass"]
        else:
            ok = s.all_pass_count == 0
        if not ok:
            _fail("all_pass_count out of range")
        if s.deal_start > len(s._history):
            _fail("deal_start out of range")
        self._check_conservation()
        self._check_upcard()
        self._check_bids()
        self._check_play()
        expected = {"to_act": s.to_act, "trick_leader": s.trick_leader, "result": s._result()}
        for key, value in expected.items():
            if self.data[key] != value or isinstance(self.data[key], bool):
                _fail(f"{key} is not what the position implies")

    def _check_conservation(self) -> None:
        s = self.s
        cards = [c for hand in s.hands for c in hand] + s.stock + [s.upcard]
        if s.joker_exchange is not None:
            cards.append(s.joker_exchange["discarded"])
        cards += [c for _, c in s.trick]
        cards += [c for t in s.completed_tricks for _, c in t["cards"]]
        if sorted(cards, key=POSITION.__getitem__) != DECK_ORDER:
            _fail(
                "the cards in hands, stock, upcard, exchange and tricks "
                "are not exactly the 54 cards"
            )

    def _check_upcard(self) -> None:
        s = self.s
        turned = s.turned_jokers
        if turned and (
            len(turned) > len(s.stock) or s.stock[len(s.stock) - len(turned) :] != turned
        ):
            _fail("turned_jokers must lie at the bottom of the stock")
        if turned and (s.params["joker_upcard"] != "turn_next" or s.upcard in JOKERS):
            _fail("turned_jokers only under turn_next, before a standard upcard")
        if s.upcard not in JOKERS:
            if s.trump != suit_of(s.upcard):
                _fail("trump must be the upcard's suit")
            if s.joker_exchange is not None:
                _fail("no joker exchange without a joker upcard")
            return
        if s.trump != "none":
            _fail("a joker upcard means no trump")
        other = "LB" if s.upcard == "BB" else "BB"
        if s.params["joker_upcard"] == "turn_next":
            if other not in s.stock or any(c not in JOKERS for c in s.stock):
                _fail("under turn_next a joker stays up only when the stock holds no standard card")
            if s.joker_exchange is not None:
                _fail("no joker exchange under turn_next")
            return
        exchange = s.joker_exchange
        if exchange is None:
            if other not in s.stock:
                _fail("the other joker must be in the stock when nobody exchanged")
            return
        seat, drawn = exchange["seat"], exchange["drawn"]
        played = [c for t in s.completed_tricks for seat_c, c in t["cards"] if seat_c == seat]
        played += [c for seat_c, c in s.trick if seat_c == seat]
        drawn_ok = drawn not in JOKERS and (drawn in s.hands[seat] or drawn in played)
        if exchange["discarded"] != other or not drawn_ok:
            _fail("the joker exchange does not match the hands")

    def _check_bids(self) -> None:
        s = self.s
        cap = s.hand_size if s.params["bid_cap"] == "hand_size" else s.hand_size - 1
        last_number = None
        for _, bid in s.bids:
            limit = cap
            if s.params["bid_not_above_previous"] and last_number is not None:
                limit = min(cap, last_number)
            if bid not in ("pass", "board"):
                if int(bid) > limit:
                    _fail(f"bid {bid} is out of range")
                last_number = int(bid)
        all_pass = all(bid == "pass" for _, bid in s.bids)
        if s.phase == "bidding" and len(s.bids) >= 4:
            _fail("bidding holds at most three bids")
        if s.phase == "play" and (len(s.bids) != 4 or all_pass):
            _fail("play needs four bids, not all pass")
        if s.phase == "game_over" and len(s.bids) != 4:
            _fail("the last deal's auction must be complete")

    def _check_play(self) -> None:
        """Hand sizes, trick seats, winners, tricks won and trump_broken must
        all follow from the cards played; to_act follows from the position."""
        s = self.s
        n, played = s.hand_size, len(s.completed_tricks)
        abandoned = s.phase == "game_over" and all(bid == "pass" for _, bid in s.bids)
        if s.phase != "play" and s.trick:
            _fail("no trick in progress outside play")
        expected_played = {
            "bidding": 0,
            "play": played if played < n else -1,
            "game_over": 0 if abandoned else n,
        }[s.phase]
        if played != expected_played:
            _fail("the number of completed tricks does not match the phase")
        leader = s._first_leader() if s.phase == "play" or played else None
        won, broken = [0, 0, 0, 0], False
        for i, trick in enumerate(s.completed_tricks):
            if trick["leader"] != leader or trick["winner"] != s._trick_winner(trick["cards"]):
                _fail(f"completed trick {i} has the wrong leader or winner")
            won[trick["winner"]] += 1
            broken = broken or any(s._is_trump(c) for _, c in trick["cards"])
            leader = trick["winner"]
        if won != s.tricks_won or broken != s.trump_broken:
            _fail("tricks_won or trump_broken do not follow from the tricks")
        if s.phase == "play" and s.trick_leader != leader:
            _fail("trick_leader is not the last trick's winner")
        for seat in range(4):
            in_trick = any(seat_c == seat for seat_c, _ in s.trick)
            expected = n if abandoned else n - played - in_trick
            if len(s.hands[seat]) != expected:
                _fail(f"seat {seat} holds the wrong number of cards")
        if s.phase == "bidding":
            s.to_act, s.trick_leader = (s.dealer + 1 + len(s.bids)) % 4, None
        elif s.phase == "play":
            s.to_act = (s.trick_leader + len(s.trick)) % 4
        else:
            s.to_act, s.trick_leader = None, None
