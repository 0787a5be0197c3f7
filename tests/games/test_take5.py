"""Take 5 rule unit tests, in the order of the reference module (§1, §4–§7)."""

from __future__ import annotations

import json
from collections import Counter

import pytest

import cardref
from cardref.reference import take5

ENGINES = ["rust", "reference"]


def test_bullhead_table_t5_s1() -> None:
    expected = {1: 1, 5: 2, 10: 3, 11: 5, 15: 2, 22: 5, 50: 3, 51: 1, 55: 7, 65: 2, 66: 5,
                95: 2, 99: 5, 100: 3, 101: 1, 104: 1}
    assert {c: take5.heads(c) for c in expected} == expected
    counts = Counter(take5.heads(c) for c in range(1, 105))
    assert counts == {7: 1, 5: 8, 3: 10, 2: 9, 1: 76}
    assert sum(take5.heads(c) for c in range(1, 105)) == 171


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("players", [2, 5, 10])
def test_deal_sizes_and_unused(engine: str, players: int) -> None:
    state = cardref.load("take5", players=players, engine=engine).new_state(seed=99)
    data = json.loads(state.to_json())
    assert [len(h) for h in data["hands"]] == [10] * players
    assert [len(r) for r in data["rows"]] == [1, 1, 1, 1]
    assert len(data["unused"]) == 104 - 10 * players - 4


@pytest.mark.parametrize("engine", ENGINES)
def test_explicit_deck_does_not_advance_the_generator(engine: str) -> None:
    deck = [str(c) for c in range(1, 105)]
    state = cardref.load("take5", players=2, engine=engine).new_state(seed=1234, deck=deck)
    assert json.loads(state.to_json())["rng"] == 1234


@pytest.mark.parametrize("engine", ENGINES)
def test_seeded_deals_differ_by_seed_and_repeat_by_seed(engine: str) -> None:
    game = cardref.load("take5", players=4, engine=engine)
    assert game.new_state(seed=1).to_json() == game.new_state(seed=1).to_json()
    assert game.new_state(seed=1).to_json() != game.new_state(seed=2).to_json()


@pytest.mark.parametrize("engine", ENGINES)
def test_commit_order_is_seat_order_and_legal_is_hand_ascending(engine: str) -> None:
    state = cardref.load("take5", players=3, engine=engine).new_state(seed=5)
    for seat in range(3):
        assert state.current_player() == seat
        hand = state.observation(seat)["hand"]
        assert state.legal_actions() == [f"play {c}" for c in sorted(hand, key=int)]
        state.apply(state.legal_actions()[0])


@pytest.mark.parametrize("engine", ENGINES)
def test_a_turn_with_a_row_choice_has_exactly_one(engine: str) -> None:
    """§6: only the lowest revealed card can be too low, so at most one choice a turn."""
    game = cardref.load("take5", players=6, engine=engine)
    choices_per_turn: Counter = Counter()
    for seed in range(30):
        state = game.new_state(seed=seed)
        while not state.is_terminal():
            obs = state.observation(0)
            if obs["phase"] == "choose_row":
                choices_per_turn[(seed, obs["round"], obs["turn"])] += 1
                assert obs["next_to_place"] == 0
            state.apply(state.legal_actions()[-1])
    assert choices_per_turn and max(choices_per_turn.values()) == 1


@pytest.mark.parametrize("engine", ENGINES)
def test_scores_hold_completed_rounds_only(engine: str) -> None:
    state = cardref.load("take5", players=4, engine=engine).new_state(seed=8)
    while state.observation(0)["round"] == 1:
        assert state.scores() == [0, 0, 0, 0]
        state.apply(state.legal_actions()[0])
    first_round = state.observation(0)["round_scores"][0]
    assert state.scores() == first_round and sum(first_round) > 0


def test_termination_bound_formula_matches_the_rule_book() -> None:
    from gamekit.take5 import max_actions

    params = {"end_score": 66, "end_rule": "at_least", "round_limit": None}
    assert max_actions(4, params) == (65 * 4 + 1) * 50
    assert max_actions(4, {**params, "end_rule": "more_than"}) == (66 * 4 + 1) * 50
    assert max_actions(4, {**params, "round_limit": 2}) == 2 * 50


@pytest.mark.parametrize("engine", ENGINES)
def test_a_loaded_row_keeps_its_order_and_must_ascend(engine: str) -> None:
    """§6.1 only appends a card higher than a row's end, so every row ascends."""
    game = cardref.load("take5", players=2, engine=engine)
    data = json.loads(game.new_state(deck=[str(c) for c in range(1, 105)]).to_json())
    assert data["rows"] == [["21"], ["22"], ["23"], ["24"]]
    data["rows"][0] = ["21", "25", "30"]
    data["unused"] = [c for c in data["unused"] if c not in ("25", "30")]
    loaded = json.loads(game.state_from_json(json.dumps(data)).to_json())
    assert loaded["rows"][0] == ["21", "25", "30"]
    for bad in (["25", "21", "30"], ["21", "30", "25"], ["21", "21", "25"]):
        swapped = {**data, "rows": [bad, *data["rows"][1:]]}
        with pytest.raises(cardref.InvalidStateError, match="row 0 must ascend"):
            game.state_from_json(json.dumps(swapped))
