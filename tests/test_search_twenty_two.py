"""Twenty-Two determinization: what resampling must keep beyond the generic
tests of test_simulate.py (the follow rule's revelations, hidden discards)."""

from __future__ import annotations

import json

import pytest

import cardref
from gamekit import twenty_two as kit

RULES = ["free_choice", "lowest_only_if_cannot_beat"]


def _states(players: int, seed: int, follow_rule: str):
    """Every state of one game played by heuristic and random bots."""
    bots = (["heuristic", "random"] * players)[:players]
    rec = cardref.simulate("twenty_two", players=players, games=1, bots=bots, seed=seed,
                           records=True, follow_rule=follow_rule)["records"][0]
    state = cardref.load("twenty_two", players, follow_rule=follow_rule).new_state(
        seed=rec["seed"])
    yield state.clone()
    for action in rec["actions"]:
        state.apply(action)
        yield state.clone()


def _hidden_places(data: dict, seat: int) -> list[list[str]]:
    others = [s for s in range(data["players"]) if s != seat]
    return [data["hands"][s] for s in others] + [data["discards"][s] for s in others]


@pytest.mark.parametrize("follow_rule", RULES)
@pytest.mark.parametrize("players", [2, 4, 6])
def test_every_resample_keeps_the_follows_legal(players, follow_rule):
    """The test kit replays each hand's tricks from the resampled hands: every
    follow that did not meet the bar is still the follower's lowest set (and,
    under the variant, it still could not meet the bar)."""
    game = cardref.load("twenty_two", players, follow_rule=follow_rule)
    for i, state in enumerate(_states(players, seed=players, follow_rule=follow_rule)):
        if i % 3:
            continue
        for seat in range(players):
            data = json.loads(state.resample(seat, i).to_json())
            kit.check(data)
            assert game.state_from_json(json.dumps(data)).to_json() == json.dumps(
                data, separators=(",", ":"))
            for obs_sample in game.sample_states(state.observation(seat), 1, seed=i):
                kit.check(json.loads(obs_sample.to_json()))


def test_hidden_discards_move_and_counts_stay():
    state = cardref.load("twenty_two", 4).new_state(seed=7)
    for _ in range(4):  # every seat discards (the heuristic's choice)
        state.apply(state.legal_actions()[-1])
    before = json.loads(state.to_json())
    seen = set()
    for seed in range(30):
        after = json.loads(state.resample(0, seed).to_json())
        assert after["discards"][0] == before["discards"][0]
        assert [len(d) for d in after["discards"]] == [len(d) for d in before["discards"]]
        # The history shows the resampled discards, not the real ones.
        hand_actions = after["history"][-4:]
        assert hand_actions == [
            " ".join(["discard", *after["discards"][s]]) for s in (1, 2, 3, 0)]
        seen.add(tuple(after["discards"][1]))
        hidden = [c for place in _hidden_places(after, 0) for c in place] + after["stock"]
        assert sorted(hidden) == sorted(
            [c for place in _hidden_places(before, 0) for c in place] + before["stock"])
    assert len(seen) > 20


def test_search_prunes_the_discard_phase():
    """The first discard has all 2^7 subsets of a 7-card hand legal; the search
    bot still answers fast and picks one of them."""
    game = cardref.load("twenty_two", 3)
    state = game.new_state(seed=1)
    assert len(state.legal_actions()) == 128
    action = game.search_action(state.observation(state.current_player()), 16, 1)
    assert action in state.legal_actions()
