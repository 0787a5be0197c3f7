"""Loading a Twenty-Two state from its JSON (``State.to_dict``), checking that
it is whole: the 52 cards each in one place, seats and scores in agreement,
and a phase whose trick, hands and turn order follow from the plays."""

from __future__ import annotations

from typing import Any, Optional

from ...rng import SplitMix64
from ..twenty_two import CANONICAL_DECK, MAX_TRICKS, State, in_play_order
from . import fail, per_seat, uint
from . import seat as a_seat


def from_dict(players: int, params: dict[str, Any], data: dict[str, Any]) -> State:
    """Rebuild a state from ``to_dict`` output, checking that it is whole."""
    state = State.__new__(State)
    state.players, state.params = players, params
    state.rng = SplitMix64(uint(data, "rng"))
    state.hand_number = _count(data["hand_number"], "hand_number")
    state.dealer = a_seat(data["dealer"], players, "dealer")
    state.target_size = uint(data, "target_size")
    state.deal_size = uint(data, "deal_size")
    state.phase = data["phase"]
    state.to_act = None if data["to_act"] is None else a_seat(data["to_act"], players, "to_act")
    state.active = [_bool(a, "active") for a in per_seat(data, "active", players)]
    state.out_hand = [_count(h, "out_hand") for h in per_seat(data, "out_hand", players)]
    piles, hands = per_seat(data, "score_piles", players), per_seat(data, "hands", players)
    state.score_piles = [_cards(p, "score_piles") for p in piles]
    state.hands = [_cards(h, "hands") for h in hands]
    state.discards = [_cards(d, "discards") for d in per_seat(data, "discards", players)]
    state.stock = _cards(data["stock"], "stock", keep_order=True)
    state.trick = _trick(data["trick"], players, "trick")
    if not isinstance(data["tricks"], list):
        fail("tricks must be a list")
    state.tricks = [_trick(t, players, "tricks") for t in data["tricks"]]
    if len(state.tricks) > MAX_TRICKS:
        fail("too many completed tricks")
    state.last_trick = _trick(data["last_trick"], players, "last_trick")
    if not isinstance(data["history"], list) or not all(
        isinstance(a, str) for a in data["history"]
    ):
        fail("history must be a list of actions")
    state._history = list(data["history"])
    if [_count(x, "scores") for x in per_seat(data, "scores", players)] != state.scores():
        fail("scores must be the point values of the score piles")
    check_consistency(state)
    return state


def _count(value: Any, key: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < 1 << 32:
        fail(f"{key!r} must hold non-negative integers")
    return value


def _bool(value: Any, key: str) -> bool:
    if not isinstance(value, bool):
        fail(f"{key!r} must hold true or false")
    return value


def _cards(value: Any, key: str, keep_order: bool = False) -> list[str]:
    """A list of card codes; sets must be written in play order, each card once."""
    if not isinstance(value, list) or not all(c in CANONICAL_DECK for c in value):
        fail(f"{key!r} must hold lists of card codes")
    if len(set(value)) != len(value) or (not keep_order and value != in_play_order(value)):
        fail(f"{key!r}: cards must be distinct and in play order")
    return list(value)


def _trick(value: Any, players: int, key: str) -> Optional[dict[str, Any]]:
    """A trick object: plays of [seat, cards], plus its own seat and card fields."""
    if value is None:
        return None
    fields = {
        "trick": ("bar", "bar_holder", "leader", "plays"),
        "tricks": ("leader", "plays", "winner"),
        "last_trick": ("plays", "scorers"),
    }[key]
    if not isinstance(value, dict) or tuple(sorted(value)) != fields:
        fail(f"{key!r} must be an object with the fields {', '.join(fields)}")
    trick: dict[str, Any] = {}
    if not isinstance(value["plays"], list):
        fail(f"{key!r}: plays must be a list")
    plays = []
    for play in value["plays"]:
        if not isinstance(play, list) or len(play) != 2:
            fail(f"{key!r}: each play must be [seat, cards]")
        plays.append([a_seat(play[0], players, key), _cards(play[1], key)])
    if len({seat for seat, _ in plays}) != len(plays):
        fail(f"{key!r}: a seat plays once per trick")
    trick["plays"] = plays
    for field in ("leader", "winner"):
        if field in fields:
            trick[field] = a_seat(value[field], players, key)
    if "bar" in fields:
        trick["bar"] = _cards(value["bar"], key)
        holder = value["bar_holder"]
        trick["bar_holder"] = None if holder is None else a_seat(holder, players, key)
    if "scorers" in fields:
        if not isinstance(value["scorers"], list):
            fail(f"{key!r}: scorers must be a list of seats")
        trick["scorers"] = [a_seat(s, players, key) for s in value["scorers"]]
        in_order = [seat for seat, _ in plays if seat in trick["scorers"]]
        if trick["scorers"] != in_order:
            fail(f"{key!r}: scorers must be distinct seats of the trick, in play order")
    return trick


def check_consistency(state: State) -> None:
    """Everything a loaded state must satisfy beyond its field types."""
    _check_cards(state)
    _check_seats(state)
    if state.phase == "discard":
        _check_discard_phase(state)
    elif state.phase == "play":
        _check_play_phase(state)
    elif state.phase == "game_over":
        _check_game_over(state)
    else:
        fail(f"unknown phase {state.phase!r}")


def _check_cards(state: State) -> None:
    """The 52 cards, each exactly once: hands, stock, discards, tricks, score piles."""
    cards = list(state.stock)
    for seat in range(state.players):
        cards += state.hands[seat] + state.discards[seat] + state.score_piles[seat]
    for trick in [*state.tricks, state.trick or {"plays": []}]:
        cards += [c for _, played in trick["plays"] for c in played]
    if sorted(cards) != sorted(CANONICAL_DECK):
        fail("the cards in hands, stock, discards, tricks and score piles are not the 52 cards")


def _check_seats(state: State) -> None:
    """Active seats have no elimination hand; out seats hold nothing and reached the limit."""
    limit = state.params["elimination_score"]
    if state.hand_number < 1 or not 1 <= state.target_size <= 11:
        fail("hand_number or target_size out of range")
    if not 1 <= state.deal_size <= 11:
        fail("deal_size out of range")
    for seat in range(state.players):
        out = state.out_hand[seat]
        if state.active[seat] != (out == 0):
            fail("a seat is active exactly when out_hand is 0")
        reached = state.scores()[seat] >= limit
        if out != 0 and not (out <= state.hand_number and reached):
            fail("an eliminated seat must have reached the elimination score in an earlier hand")
        if out == 0 and reached:
            fail("an active seat cannot have reached the elimination score")
        if out != 0 and (state.hands[seat] or state.discards[seat]):
            fail("an eliminated seat holds no cards")


def _check_hand_in_progress(state: State) -> list[int]:
    """Shared by both phases: at least two active seats, one of them to act."""
    seats = state._seats_after(state.dealer)
    if len(seats) < 2 or state.to_act not in seats:
        fail("a hand needs two active seats, one of them to act")
    return seats


def _check_discard_phase(state: State) -> None:
    seats = _check_hand_in_progress(state)
    if state.trick is not None or state.tricks:
        fail("no trick is played during the discard phase")
    waiting = seats[seats.index(state.to_act) + 1 :]
    if any(state.discards[s] for s in waiting):
        fail("a seat that has not had its discard turn has discards")
    if any(len(state.hands[s]) != state.deal_size for s in seats):
        fail("during the discard phase every active hand holds deal_size cards")


def _check_play_phase(state: State) -> None:
    """The trick's plays follow the turn order and agree with its bar; hands are equal."""
    seats = _check_hand_in_progress(state)
    trick = state.trick
    if trick is None or trick["leader"] not in seats:
        fail("the play phase needs a trick led by an active seat")
    order = [trick["leader"], *state._seats_after(trick["leader"])[:-1]]
    played = [seat for seat, _ in trick["plays"]]
    if played != order[: len(played)] or len(played) >= len(seats):
        fail("the trick's plays must follow the turn order from its leader")
    if state.to_act != order[len(played)]:
        fail("to_act must be the next seat in the trick")
    bar, holder = [], None
    for seat, cards in trick["plays"]:
        if not bar or State.beats_or_equals(cards, bar):
            bar, holder = cards, seat
    if trick["bar"] != bar or trick["bar_holder"] != holder:
        fail("the trick's bar and bar_holder do not follow from its plays")
    sizes = {len(cards) for _, cards in trick["plays"]}
    waiting = {len(state.hands[s]) for s in order[len(played) :]}
    done = {len(state.hands[s]) + len(trick["bar"]) for s in played}
    if len(sizes) > 1 or len(waiting | done) != 1 or 0 in waiting:
        fail("hands are not equal in size or the trick's sets differ in size")
    for past in state.tricks:
        if sorted(seat for seat, _ in past["plays"]) != sorted(seats):
            fail("every completed trick has one play per active seat")
    for seat in seats:
        played = sum(len(cs) for t in [*state.tricks, trick] for s, cs in t["plays"] if s == seat)
        if len(state.hands[seat]) + played != state.deal_size:
            fail("each hand and the cards its seat played this hand must make deal_size")


def _check_game_over(state: State) -> None:
    if state.active.count(True) > 1 or state.to_act is not None or state.trick is not None:
        fail("a finished game has at most one active seat and nobody to act")
    if state.tricks or any(state.hands) or any(state.discards):
        fail("a finished game has no cards in play")
