"""Loading a 5 Alive state from its JSON (``State.to_dict``), checking that it
is whole: the deck's cards all held, the elimination log and the lives in
agreement, a phase that matches the player to act and any pending Bomb."""

from __future__ import annotations

from typing import Any, Optional

from ...rng import SplitMix64
from ..five_alive import KINDS, State, canonical_deck, kind_order
from . import a_list, ensure, fail, field, integer, is_int, per_seat, seats

#: Why a game can end (§7).
REASONS = ("LAST_STANDING", "SUDDEN_DEATH", "TEAM", "TEAM_DRAW", "CAP")


def from_dict(players: int, params: dict[str, Any], data: dict[str, Any]) -> State:
    """Rebuild a state from ``to_dict`` output, checking that it is whole."""
    state = State.__new__(State)
    state.players, state.params = players, params
    state.teams = params["team_play"]
    state.rng = SplitMix64(integer(data, "rng", 0, (1 << 64) - 1))
    state.round = integer(data, "round", 1, (1 << 32) - 1)
    state.dealer = integer(data, "dealer", 0, players - 1)
    state.dir = field(data, "dir")
    state.phase = field(data, "phase")
    state.total = integer(data, "total", 0, 21)
    state.action_count = integer(data, "action_count", 0)
    state.round_start = integer(data, "round_start", 0)
    state.lives = _lives(data, "lives", players, params, not state.teams)
    state.team_lives = _lives(data, "team_lives", 2, params, state.teams)
    state.hands = [_cards(h, "hands") for h in per_seat(data, "hands", players)]
    state.draw_pile = _cards(field(data, "draw_pile"), "draw_pile")
    state.discard_pile = _cards(field(data, "discard_pile"), "discard_pile")
    state._history = [_action(a) for a in a_list(field(data, "history"), "history")]
    state.elimination_log = [seats(b, players, "elimination_log") for b in
                             a_list(field(data, "elimination_log"), "elimination_log")]
    state.current = field(data, "current")
    state.pending_bomb = _read_bomb(field(data, "pending_bomb"), players)
    state.result = _read_result(field(data, "result"), players)
    check_consistency(state)
    return state


def _cards(value: Any, what: str) -> list[str]:
    for card in a_list(value, what):
        ensure(card in KINDS, f"{card!r} in {what} is not a card code")
    return list(value)


def _lives(data: dict[str, Any], key: str, size: int, params: dict[str, Any],
           used: bool) -> Optional[list[int]]:
    value = field(data, key)
    if not used:
        ensure(value is None, f"{key!r} must be null with team_play = {params['team_play']}")
        return None
    items = a_list(value, key)
    ensure(len(items) == size and all(is_int(x) and 0 <= x <= params["lives"] for x in items),
           f"{key!r} must hold {size} integers from 0 to {params['lives']}")
    return list(items)


def _action(action: Any) -> str:
    ok = action in ("flip", "respond 0", "decline") or (
        isinstance(action, str) and action.startswith("play ") and action[5:] in KINDS)
    ensure(ok, f"{action!r} in history is not an action")
    return action


def _read_bomb(value: Any, players: int) -> Optional[dict[str, Any]]:
    if value is None:
        return None
    if not isinstance(value, dict) or set(value) != {"bomber", "responders", "index", "eliminated"}:
        fail("pending_bomb must be null or {bomber, responders, index, eliminated}")
    bomber = seats([value["bomber"]], players, "pending_bomb.bomber")[0]
    index = value["index"]
    ensure(is_int(index) and index >= 0, "pending_bomb.index must be a non-negative integer")
    return {"bomber": bomber, "responders": seats(value["responders"], players, "responders"),
            "index": index, "eliminated": seats(value["eliminated"], players, "eliminated")}


def _read_result(value: Any, players: int) -> Optional[dict[str, Any]]:
    if value is None:
        return None
    if not isinstance(value, dict) or set(value) != {"reason", "ranking"} \
            or value["reason"] not in REASONS:
        fail("result must be null or {reason, ranking} with a known reason")
    ranking = [seats(g, players, "ranking") for g in a_list(value["ranking"], "ranking")]
    ensure(sorted(s for g in ranking for s in g) == list(range(players)) and all(ranking),
           "the ranking must hold every seat once")
    return {"reason": value["reason"], "ranking": ranking}


def check_consistency(state: State) -> None:
    """Consistency of a loaded state: conservation, phase, seats, counters."""
    held = [c for hand in state.hands for c in hand] + state.draw_pile + state.discard_pile
    ensure(sorted(held, key=kind_order) == canonical_deck(state.players, state.params),
           "the hands, draw pile and discard pile are not exactly the deck's cards")
    ensure(state.dir in (1, -1) and is_int(state.dir), "dir must be 1 or -1")
    ensure(state.action_count == len(state._history),
           "action_count must equal the history length")
    ensure(state.round_start <= len(state._history), "round_start is past the history")
    for seat in range(state.players):
        ensure(state.is_active(seat) or not state.hands[seat], "an eliminated seat holds cards")
    out = [s for batch in state.elimination_log for s in batch]
    if state.pending_bomb is not None:
        out += state.pending_bomb["eliminated"]
    inactive = [s for s in range(state.players) if not state.is_active(s)]
    ensure(sorted(out) == inactive and all(state.elimination_log),
           "the elimination log must list every eliminated seat once")
    ensure(len(state.active_seats()) >= 1, "nobody is active")
    _check_phase(state)


def _check_phase(state: State) -> None:
    if state.phase == "game_over":
        ensure(state.current is None and state.result is not None
               and state.pending_bomb is None,
               "a finished game has no player to act, no pending Bomb, and a result")
        return
    ensure(state.phase in ("play", "bomb_response"), f"unknown phase {state.phase!r}")
    ensure(state.result is None, "a game in progress has no result")
    ensure(is_int(state.current) and 0 <= state.current < state.players
           and state.is_active(state.current), "current must be an active seat")
    if state.phase == "play":
        ensure(state.pending_bomb is None, "no Bomb may be pending while playing")
        ensure(all(state.hands[s] for s in state.active_seats()),
               "every active player holds a card during play")
    else:
        bomb = state.pending_bomb
        ensure(bomb is not None and state.params["bomb_response"] == "optional"
               and bomb["index"] < len(bomb["responders"])
               and bomb["responders"][bomb["index"]] == state.current
               and bomb["bomber"] not in bomb["responders"]
               and len(set(bomb["responders"])) == len(bomb["responders"])
               and all(state.is_active(s) for s in bomb["responders"][bomb["index"]:]),
               "the pending Bomb does not match the player to act")
