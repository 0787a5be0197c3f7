"""Loading a Take 5 state from its JSON (``State.to_dict``), checking that it
is whole: every card in exactly one place, rows that ascend, commitments made
in seat order."""

from __future__ import annotations

from typing import Any

from ...rng import SplitMix64
from ..take5 import ROW_CAPACITY, ROW_COUNT, TURNS_PER_ROUND, State, highest_card
from . import ensure, fail, field, ints, per_seat, uint


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
    state.round, state.turn = uint(data, "round"), uint(data, "turn")
    state.phase = field(data, "phase")
    state.hands = [sorted(card(c) for c in h) for h in per_seat(data, "hands", players)]
    state.piles = [sorted(card(c) for c in p) for p in per_seat(data, "piles", players)]
    state.committed = [None if c is None else card(c)
                       for c in per_seat(data, "committed", players)]
    state.unused = sorted(card(c) for c in field(data, "unused"))
    state.rows = [[card(c) for c in row] for row in field(data, "rows")]
    state.revealed = [(card(c), int(s)) for c, s in field(data, "revealed")]
    state.next_to_place = uint(data, "next_to_place")
    state.scores_so_far = ints(per_seat(data, "scores", players), "scores")
    state.round_scores = [ints(r, "round_scores") for r in field(data, "round_scores")]
    state._history = [str(a) for a in field(data, "history")]
    state.round_start = uint(data, "round_start")
    check_consistency(state, top)
    return state


def check_consistency(state: State, top: int) -> None:
    """The invariants of a state between actions (§3, §6)."""
    ensure(state.phase in ("commit", "choose_row", "game_over"),
           f"unknown phase {state.phase!r}")
    ensure(len(state.rows) == ROW_COUNT
           and all(1 <= len(r) <= ROW_CAPACITY for r in state.rows),
           "there must be 4 rows of 1 to 5 cards")
    for r, row in enumerate(state.rows):
        ensure(all(low < high for low, high in zip(row, row[1:])),
               f"row {r} must ascend: each card is higher than the one before")
    ensure(state.round >= 1 and state.turn <= TURNS_PER_ROUND
           and state.round_start <= len(state._history),
           "round, turn or round_start out of range")
    ensure(all(len(r) == state.players for r in state.round_scores),
           "round_scores rows must have one entry per seat")
    if state.phase == "commit":
        made = state.committed.count(None)
        k = state.players - made
        ensure(state.committed[k:] == [None] * made and made > 0
               and state.turn < TURNS_PER_ROUND,
               "commitments must be made in seat order")
        ensure(not state.revealed, "revealed must be empty while committing")
    if state.phase == "choose_row":
        ensure(len(state.revealed) == state.players and state.next_to_place < state.players
               and all(0 <= s < state.players for _, s in state.revealed),
               "bad revealed cards")
    if state.phase != "game_over":
        placed = state.revealed[state.next_to_place:] if state.phase == "choose_row" else []
        cards = [c for h in state.hands for c in h] + [c for p in state.piles for c in p]
        cards += [c for c in state.committed if c is not None] + state.unused
        cards += [c for row in state.rows for c in row] + [c for c, _ in placed]
        ensure(sorted(cards) == list(range(1, top + 1)),
               "the cards in hands, commitments, rows, piles and unused are not "
               "exactly the cards in play")
