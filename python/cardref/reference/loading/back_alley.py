"""Loading a Back Alley state from its JSON (``State.to_dict``): every field
read, then the whole checked against the rule book (the 54 cards, the upcard
and joker exchange, the bids, every trick's leader and winner)."""

from __future__ import annotations

from typing import Any

from ...errors import InvalidStateError
from ...rng import SplitMix64
from ..back_alley import (
    DECK_ORDER,
    JOKERS,
    POSITION,
    State,
    in_canonical_order,
    schedule_of,
    suit_of,
)
from ..base import canonical_json
from . import fail


def from_dict(players: int, params: dict[str, Any], data: dict[str, Any]) -> State:
    """Rebuild a state from ``to_dict`` output, checking that it is whole."""
    if canonical_json(data["params"]) != canonical_json(params):  # 1 is not true here
        fail("the state's params differ from the game's")
    return _StateReader(State.__new__(State), params, data).read()


def _is_int(value: Any) -> bool:
    """A JSON integer that fits in 64 signed bits (what the Rust core reads)."""
    return isinstance(value, int) and not isinstance(value, bool) and -(2**63) <= value < 2**63


def _uint(data: dict[str, Any], key: str, below: int = 2**64) -> int:
    value = data[key]
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < below:
        fail(
            f"field {key!r} must be a non-negative integer" + (f" below {below}" if below else "")
        )
    return value


def _card(value: Any) -> str:
    if not isinstance(value, str) or value not in POSITION:
        fail(f"{value!r} is not a card")
    return value


def _cards(value: Any, what: str) -> list[str]:
    if not isinstance(value, list):
        fail(f"{what} must be a list of cards")
    return [_card(c) for c in value]


def _bid_text(value: Any) -> str:
    ok = isinstance(value, str) and (
        value in ("pass", "board")
        or (value.isdigit() and str(int(value)) == value and 1 <= int(value) <= 13)
    )
    if not ok:
        fail(f"{value!r} is not a bid")
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
        fail(f"unknown trump {value!r}")
    return value


def _seated_pairs(value: Any, first_seat: int, what: str, read: Any) -> list[tuple[int, str]]:
    """``[[seat, x], ...]`` with seats clockwise from ``first_seat``."""
    if not isinstance(value, list):
        fail(f"{what} must be a list of [seat, value] pairs")
    pairs = []
    for i, pair in enumerate(value):
        if not (
            isinstance(pair, list)
            and len(pair) == 2
            and pair[0] == (first_seat + i) % 4
            and _is_int(pair[0])
        ):
            fail(f"{what} must be [seat, value] pairs clockwise from seat {first_seat}")
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
            fail(f"unknown phase {d['phase']!r}")
        s.phase = d["phase"]
        s.hand_index = _uint(d, "hand_index")
        s.hand_size = _uint(d, "hand_size", 14)
        s.dealer = _uint(d, "dealer", 4)
        if not _is_int(d["all_pass_count"]):
            fail("field 'all_pass_count' must be an integer")
        s.all_pass_count = d["all_pass_count"]
        self._read_cards()
        s.bids = _seated_pairs(d["bids"], (s.dealer + 1) % 4, "bids", _bid_text)
        if len(s.bids) > 4:
            fail("at most four bids per auction")
        self._read_tricks()
        if not isinstance(d["trump_broken"], bool):
            fail("trump_broken must be true or false")
        s.trump_broken = d["trump_broken"]
        if not (
            isinstance(d["team_scores"], list)
            and len(d["team_scores"]) == 2
            and all(_is_int(x) for x in d["team_scores"])
        ):
            fail("team_scores must hold two totals")
        s.team_scores = list(d["team_scores"])
        if not isinstance(d["deals"], list) or not isinstance(d["history"], list):
            fail("deals and history must be lists")
        s.deals = [self._read_deal(deal) for deal in d["deals"]]
        if not all(_is_action(a) for a in d["history"]):
            fail("history must hold actions of this game")
        s._history = list(d["history"])
        s.deal_start = _uint(d, "deal_start")
        self.check_consistency()
        return s

    def _read_cards(self) -> None:
        s, d = self.s, self.data
        if not isinstance(d["hands"], list) or len(d["hands"]) != 4:
            fail("hands must have one entry per seat")
        s.hands = [_cards(hand, "a hand") for hand in d["hands"]]
        for hand in s.hands:
            if hand != in_canonical_order(hand) or len(set(hand)) != len(hand):
                fail("a hand must list distinct cards in canonical order")
        s.upcard = _card(d["upcard"])
        s.turned_jokers = _cards(d["turned_jokers"], "turned_jokers")
        if len(s.turned_jokers) > 2 or any(c not in JOKERS for c in s.turned_jokers):
            fail("turned_jokers must hold jokers only")
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
            fail("more completed tricks than the hand size")
        s.completed_tricks = []
        for trick in d["completed_tricks"]:
            leader = _uint(trick, "leader", 4)
            cards = _seated_pairs(trick["cards"], leader, "trick cards", _card)
            if len(cards) != 4:
                fail("a completed trick holds four cards")
            s.completed_tricks.append(
                {"leader": leader, "cards": cards, "winner": _uint(trick, "winner", 4)}
            )
        leader = d["trick_leader"]
        if leader is not None and not (_is_int(leader) and 0 <= leader < 4):
            fail("trick_leader must be a seat or null")
        s.trick_leader = leader
        s.trick = _seated_pairs(d["trick"], leader or 0, "trick cards", _card)
        if len(s.trick) > 3:
            fail("the current trick holds at most three cards")
        won = d["tricks_won"]
        if not (
            isinstance(won, list)
            and len(won) == 4
            and all(_is_int(w) and 0 <= w <= 13 for w in won)
        ):
            fail("tricks_won must hold four counts")
        s.tricks_won = list(won)

    def _read_deal(self, deal: Any) -> dict[str, Any]:
        dealer = _uint(deal, "dealer", 4)
        bids = _seated_pairs(deal["bids"], (dealer + 1) % 4, "deal record bids", _bid_text)
        if len(bids) != 4:
            fail("a deal record holds four bids")
        for key in ("tricks", "points"):
            if not (
                isinstance(deal[key], list)
                and len(deal[key]) == 2
                and all(_is_int(x) for x in deal[key])
            ):
                fail(f"deal record {key} must hold two numbers")
        if not all(0 <= t <= 13 for t in deal["tricks"]):
            fail("deal record tricks out of range")
        exchange = deal.get("joker_exchange")
        if exchange is not None:
            exchange = {
                "seat": _uint(exchange, "seat", 4),
                "discarded": _card(exchange["discarded"]),
            }
        turned = _cards(deal["turned_jokers"], "turned_jokers")
        if len(turned) > 2 or any(c not in JOKERS for c in turned):
            fail("deal record turned_jokers must hold at most two jokers")
        if deal["outcome"] not in ("played", "redeal", "abandoned"):
            fail(f"unknown deal outcome {deal['outcome']!r}")
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

    def check_consistency(self) -> None:
        s = self.s
        last = len(s.schedule)
        if (s.phase == "game_over") != (s.hand_index == last) or s.hand_index > last:
            fail("hand_index does not match the phase")
        if s.hand_size != s.schedule[min(s.hand_index, last - 1)]:
            fail("hand_size does not match the schedule")
        if s.phase == "bidding":
            ok = 0 <= s.all_pass_count < s.params["max_consecutive_all_pass"]
        else:
            ok = s.all_pass_count == 0
        if not ok:
            fail("all_pass_count out of range")
        if s.deal_start > len(s._history):
            fail("deal_start out of range")
        self._check_conservation()
        self._check_upcard()
        self._check_bids()
        self._check_play()
        expected = {"to_act": s.to_act, "trick_leader": s.trick_leader, "result": s._result()}
        for key, value in expected.items():
            if self.data[key] != value or isinstance(self.data[key], bool):
                fail(f"{key} is not what the position implies")

    def _check_conservation(self) -> None:
        s = self.s
        cards = [c for hand in s.hands for c in hand] + s.stock + [s.upcard]
        if s.joker_exchange is not None:
            cards.append(s.joker_exchange["discarded"])
        cards += [c for _, c in s.trick]
        cards += [c for t in s.completed_tricks for _, c in t["cards"]]
        if sorted(cards, key=POSITION.__getitem__) != DECK_ORDER:
            fail(
                "the cards in hands, stock, upcard, exchange and tricks "
                "are not exactly the 54 cards"
            )

    def _check_upcard(self) -> None:
        s = self.s
        turned = s.turned_jokers
        if turned and (
            len(turned) > len(s.stock) or s.stock[len(s.stock) - len(turned) :] != turned
        ):
            fail("turned_jokers must lie at the bottom of the stock")
        if turned and (s.params["joker_upcard"] != "turn_next" or s.upcard in JOKERS):
            fail("turned_jokers only under turn_next, before a standard upcard")
        if s.upcard not in JOKERS:
            if s.trump != suit_of(s.upcard):
                fail("trump must be the upcard's suit")
            if s.joker_exchange is not None:
                fail("no joker exchange without a joker upcard")
            return
        if s.trump != "none":
            fail("a joker upcard means no trump")
        other = "LB" if s.upcard == "BB" else "BB"
        if s.params["joker_upcard"] == "turn_next":
            if other not in s.stock or any(c not in JOKERS for c in s.stock):
                fail("under turn_next a joker stays up only when the stock holds no standard card")
            if s.joker_exchange is not None:
                fail("no joker exchange under turn_next")
            return
        exchange = s.joker_exchange
        if exchange is None:
            if other not in s.stock:
                fail("the other joker must be in the stock when nobody exchanged")
            return
        seat, drawn = exchange["seat"], exchange["drawn"]
        played = [c for t in s.completed_tricks for seat_c, c in t["cards"] if seat_c == seat]
        played += [c for seat_c, c in s.trick if seat_c == seat]
        drawn_ok = drawn not in JOKERS and (drawn in s.hands[seat] or drawn in played)
        if exchange["discarded"] != other or not drawn_ok:
            fail("the joker exchange does not match the hands")

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
                    fail(f"bid {bid} is out of range")
                last_number = int(bid)
        all_pass = all(bid == "pass" for _, bid in s.bids)
        if s.phase == "bidding" and len(s.bids) >= 4:
            fail("bidding holds at most three bids")
        if s.phase == "play" and (len(s.bids) != 4 or all_pass):
            fail("play needs four bids, not all pass")
        if s.phase == "game_over" and len(s.bids) != 4:
            fail("the last deal's auction must be complete")

    def _check_play(self) -> None:
        """Hand sizes, trick seats, winners, tricks won and trump_broken must
        all follow from the cards played; to_act follows from the position."""
        s = self.s
        n, played = s.hand_size, len(s.completed_tricks)
        abandoned = s.phase == "game_over" and all(bid == "pass" for _, bid in s.bids)
        if s.phase != "play" and s.trick:
            fail("no trick in progress outside play")
        expected_played = {
            "bidding": 0,
            "play": played if played < n else -1,
            "game_over": 0 if abandoned else n,
        }[s.phase]
        if played != expected_played:
            fail("the number of completed tricks does not match the phase")
        leader = s._first_leader() if s.phase == "play" or played else None
        won, broken = [0, 0, 0, 0], False
        for i, trick in enumerate(s.completed_tricks):
            if trick["leader"] != leader or trick["winner"] != s._trick_winner(trick["cards"]):
                fail(f"completed trick {i} has the wrong leader or winner")
            won[trick["winner"]] += 1
            broken = broken or any(s._is_trump(c) for _, c in trick["cards"])
            leader = trick["winner"]
        if won != s.tricks_won or broken != s.trump_broken:
            fail("tricks_won or trump_broken do not follow from the tricks")
        if s.phase == "play" and s.trick_leader != leader:
            fail("trick_leader is not the last trick's winner")
        for seat in range(4):
            in_trick = any(seat_c == seat for seat_c, _ in s.trick)
            expected = n if abandoned else n - played - in_trick
            if len(s.hands[seat]) != expected:
                fail(f"seat {seat} holds the wrong number of cards")
        if s.phase == "bidding":
            s.to_act, s.trick_leader = (s.dealer + 1 + len(s.bids)) % 4, None
        elif s.phase == "play":
            s.to_act = (s.trick_leader + len(s.trick)) % 4
        else:
            s.to_act, s.trick_leader = None, None
