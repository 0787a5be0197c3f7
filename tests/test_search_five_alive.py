"""5 Alive determinization: resamples and states sampled from an observation
keep to what the round showed about hidden cards (docs/games/five_alive.md,
"Determinization and search")."""

from __future__ import annotations

import json

import pytest

import cardref


def _states(players: int, seed: int, **variant):
    """Every state of one heuristic game, with the state before it."""
    rec = cardref.simulate("five_alive", players=players, games=1, bots=["heuristic"] * players,
                           seed=seed, records=True, **variant)["records"][0]
    state = cardref.load("five_alive", players, **variant).new_state(seed=rec["seed"])
    for action in rec["actions"]:
        before = json.loads(state.to_json())
        state.apply(action)
        yield before, action, state


def _views(game, state, seat: int, seed: int) -> list[dict]:
    """A resample and two states sampled from the seat's observation, as JSON."""
    samples = game.sample_states(state.observation(seat), 2, seed=seed)
    return [json.loads(s.to_json()) for s in [state.resample(seat, seed), *samples]]


@pytest.mark.parametrize(("players", "seed"), [(3, 1), (4, 2), (6, 3)])
def test_flips_and_bomb_losses_bind_every_sample(players, seed):
    game = cardref.load("five_alive", players)
    flips = 0
    for i, (before, action, state) in enumerate(_states(players, seed)):
        now = json.loads(state.to_json())
        if state.is_terminal() or now["round"] != before["round"]:
            continue
        actor = before["current"]
        if action == "flip" and now["lives"][actor] > 0:
            # Only numbers that would have taken the total over 21.
            allowed = {str(v) for v in range(8) if before["total"] + v > 21}
            for seat in (s for s in range(players) if s != actor):
                for view in _views(game, state, seat, i):
                    assert set(view["hands"][actor]) <= allowed, (i, seat, view["hands"][actor])
            flips += 1
        if action == "play BOMB":
            losers = [s for s in range(players)
                      if s != actor and 0 < now["lives"][s] < before["lives"][s]]
            for loser in losers:
                for seat in (s for s in range(players) if s != loser):
                    for view in _views(game, state, seat, i):
                        assert "0" not in view["hands"][loser], (i, seat)
    assert flips > 0


def test_sampled_states_keep_the_counters_and_the_round():
    game = cardref.load("five_alive", 4)
    for i, (_, _, state) in enumerate(_states(4, 5)):
        data = json.loads(state.to_json())
        for seat in range(4):
            obs = state.observation(seat)
            for s in game.sample_states(obs, 2, seed=i):
                sampled = json.loads(s.to_json())
                assert sampled["action_count"] == data["action_count"]
                assert sampled["round_start"] == data["round_start"]
                assert sampled["history"][sampled["round_start"]:] == obs["history"]
                assert s.observation(seat) == obs


def test_an_observation_that_does_not_fit_the_deck_is_rejected():
    game = cardref.load("five_alive", 4)
    obs = game.new_state(seed=1).observation(0)
    obs["draw_size"] += 1
    with pytest.raises(cardref.InvalidStateError, match="do not fit"):
        game.sample_states(obs, 1)
