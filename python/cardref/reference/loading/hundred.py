"""Loading a state of 100 from its JSON (``State.to_dict``), checking the
invariants of §3.2: every card in exactly one place, chips, hands and the
elimination log in agreement, a result that follows from them."""

from __future__ import annotations

from typing import Any

from ...rng import SplitMix64
from ..hundred import (
    CARDS,
    LIMIT,
    NEGATIVE_FLOOR,
    State,
    canonical_deck,
    canonical_index,
)
from . import a_list, ensure, fail, field, integer, ints, is_int, per_seat, strings, uint


def from_dict(players: int, params: dict[str, Any], data: dict[str, Any]) -> State:
    """Rebuild a state from ``to_dict`` output, checking that it is whole."""
    state = State.__new__(State)
    state.players, state.params = players, params
    state.rng = SplitMix64(uint(data, "rng"))
    state.phase = field(data, "phase")
    state.current = field(data, "current")
    state.chips = ints(per_seat(data, "chips", players), "chips")
    state.hands = [_cards(h, "hands") for h in per_seat(data, "hands", players)]
    state.stock = _cards(field(data, "stock"), "stock")
    state.pile = _cards(field(data, "pile"), "pile")
    state.value = integer(data, "value", NEGATIVE_FLOOR, LIMIT)
    state.dir = field(data, "dir")
    state.dealer = integer(data, "dealer", 0, players - 1)
    state.deal_number = integer(data, "deal_number", 1)
    state.elimination_log = ints(field(data, "elimination_log"), "elimination_log")
    state.action_count = integer(data, "action_count", 0)
    state.result = field(data, "result")
    state._history = strings(field(data, "history"), "history")
    state.recent = [_pair(p) for p in a_list(field(data, "recent"), "recent")]
    ensure(all(is_action(a) for _, a in state.recent), "recent must hold actions")
    check_consistency(state)
    return state


def is_action(text: str) -> bool:
    """The grammar of §5.2: ``play C`` or ``play C X`` with X written 0..100 canonically."""
    words = text.split(" ")
    if len(words) not in (2, 3) or words[0] != "play" or words[1] not in CARDS:
        return False
    if len(words) == 2:
        return True
    x = words[2]
    return x.isdigit() and x.isascii() and str(int(x)) == x and int(x) <= LIMIT


def _cards(items: Any, what: str) -> list[str]:
    if not isinstance(items, list) or not all(isinstance(c, str) and c in CARDS for c in items):
        fail(f"{what} must be lists of card codes")
    return list(items)


def _pair(item: Any) -> list[Any]:
    if not isinstance(item, list) or len(item) != 2:
        fail("recent must hold [seat, action] pairs")
    if not is_int(item[0]) or not isinstance(item[1], str):
        fail("recent must hold [seat, action] pairs")
    return [item[0], item[1]]


def check_consistency(state: State) -> None:
    """The invariants of §3.2 between actions."""
    n, p = state.players, state.params
    in_hands = [card for hand in state.hands for card in hand]
    ensure(sorted(state.stock + state.pile + in_hands, key=canonical_index)
           == sorted(canonical_deck(n, p), key=canonical_index),
           "the cards in hands, stock and pile are not exactly the cards in play")
    ensure(all(0 <= c <= p["chips"] for c in state.chips), "chips out of range")
    ensure(p["allow_negative"] or state.value >= 0, "value below 0")
    ensure(state.dir in (1, -1) and not isinstance(state.dir, bool), "dir must be 1 or -1")
    out = [s for s in range(n) if state.chips[s] == 0]
    ensure(sorted(state.elimination_log) == out and len(set(out)) == len(out),
           "elimination_log must list exactly the seats without chips")
    for s in range(n):
        want = 0 if state.chips[s] == 0 else p["hand_size"]
        ensure(len(state.hands[s]) == want, f"seat {s} must hold {want} cards")
    ensure(state.action_count == len(state._history),
           "action_count must equal the history length")
    ensure(all(is_action(a) for a in state._history), "history must hold actions")
    tail = state._history[len(state._history) - len(state.recent):] if state.recent else []
    ensure(len(state.recent) == min(n, len(state._history))
           and [a for _, a in state.recent] == tail
           and all(0 <= s < n for s, _ in state.recent),
           "recent must pair the last actions of the history with their seats")
    if state.phase == "PLAY":
        ensure(len(out) < n - 1, "a game in play needs two active seats")
        ensure(state.result is None, "result must be null in play")
        ensure(is_int(state.current) and 0 <= state.current < n
               and state.chips[state.current] > 0,
               "current must be an active seat")
        ensure(state.action_count < p["max_actions"], "the action cap is reached")
    else:
        ensure(state.phase == "GAME_OVER", f"unknown phase {state.phase!r}")
        ensure(state.current is None, "current must be null once the game is over")
        reason = state.result.get("reason") if isinstance(state.result, dict) else None
        ensure(reason in ("LAST_STANDING", "CAP"), "result must hold a reason")
        ensure(reason == "CAP" or len(out) == n - 1, "LAST_STANDING needs one seat left")
        ensure(reason == "LAST_STANDING" or state.action_count >= p["max_actions"],
               "CAP needs max_actions actions")
        ensure(state.result == {"reason": reason, "ranking": state._ranking(reason)},
               "the ranking does not follow from chips and elimination_log")
