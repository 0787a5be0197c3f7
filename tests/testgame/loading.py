"""Loading a High Card state from its JSON (``State.to_dict``), checking that
every card is in one place and that the round follows the turn order."""

from __future__ import annotations

from typing import Any

from cardref.reference.loading import ensure, fail, field, ints, per_seat, seat, strings, uint
from cardref.rng import SplitMix64

from .reference import State, highest_card


def from_dict(players: int, params: dict[str, Any], data: dict[str, Any]) -> State:
    """Rebuild a state from ``to_dict`` output, checking that it is whole."""
    state = State.__new__(State)
    state.players, state.params = players, params
    top = highest_card(players, params)

    def card(text: Any) -> int:
        if not isinstance(text, str) or not text.isdigit() or str(int(text)) != text:
            fail(f"{text!r} is not a card code")
        if not 1 <= int(text) <= top:
            fail(f"{text!r} is not a card in play")
        return int(text)

    state.rng = SplitMix64(uint(data, "rng"))
    state.hands = [sorted(card(c) for c in h) for h in per_seat(data, "hands", players)]
    state.stock = [card(c) for c in strings(field(data, "stock"), "stock")]
    state.played = sorted(card(c) for c in strings(field(data, "played"), "played"))
    state.round = [(seat(s, players, "round"), card(c)) for s, c in field(data, "round")]
    state.leader = seat(field(data, "leader"), players, "leader")
    to_act = field(data, "to_act")
    state.to_act = None if to_act is None else seat(to_act, players, "to_act")
    state.scores_so_far = ints(per_seat(data, "scores", players), "scores")
    state._history = strings(field(data, "history"), "history")
    check_consistency(state, top)
    return state


def check_consistency(state: State, top: int) -> None:
    """Every card in exactly one place; the round's seats in turn order from the
    leader; the player to act the next of them, or none once the hands are empty."""
    n = state.players
    cards = [c for h in state.hands for c in h] + state.stock + state.played
    cards += [c for _, c in state.round]
    ensure(sorted(cards) == list(range(1, top + 1)),
           "the cards in hands, stock, round and played are not exactly the cards in play")
    ensure(len(state.round) < n and all(s == (state.leader + i) % n
                                        for i, (s, _) in enumerate(state.round)),
           "the round's plays must follow the turn order from the leader")
    over = not any(state.hands)
    expected = None if over else (state.leader + len(state.round)) % n
    ensure(state.to_act == expected, "to_act is not the next seat of the round")
    ensure(not over or not state.round, "a finished game has no round in play")
    ensure(all(s >= 0 for s in state.scores_so_far), "scores must not be negative")
