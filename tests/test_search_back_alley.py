"""Back Alley determinization: every resampled or sampled state must make every
play of the deal so far legal (docs/rules/back_alley.md §5.2), i.e. honour every void
and every Blooper or trump-lead constraint a seat has shown. The check rebuilds
each seat's holdings trick by trick with the test kit's follow rules, written
from the rule book independently of the engines."""

from __future__ import annotations

import json
from typing import Any

import pytest

import cardref
from gamekit.back_alley import ORDER, check_tricks

VARIANTS = [
    {},
    {"joker_upcard": "turn_next"},
    {"big_blooper_binds_partner": False, "board_trump_lead_exemption": "team"},
    {"blooper_lead_rules": False, "schedule": "1-13-1"},
]


def check_deal_is_legal(data: dict[str, Any]) -> None:
    """Every lead and follow of this deal was legal for the holdings the
    state implies: each seat's hand now plus what it played from then on."""
    tricks = [t["cards"] for t in data["completed_tricks"]]
    if data["trick"]:
        tricks.append(data["trick"])
    check_tricks(data, tricks, broken=False)


def _states(variant: dict[str, Any], seed: int, steps: int):
    """States along one game of search, heuristic and random bots."""
    rec = cardref.simulate("back_alley", players=4, games=1, seed=seed, records=True,
                           bots=["heuristic", "random", "heuristic", "random"],
                           **variant)["records"][0]
    state = cardref.load("back_alley", 4, **variant).new_state(seed=rec["seed"])
    for action in rec["actions"][:steps]:
        state.apply(action)
        if json.loads(state.to_json())["phase"] == "play":
            yield state.clone()


@pytest.mark.parametrize("variant", VARIANTS)
def test_every_resample_honours_the_shown_voids(variant):
    checked = 0
    for seed in range(2):
        for state in _states(variant, seed, 400):
            check_deal_is_legal(json.loads(state.to_json()))
            for seat in range(4):
                r = state.resample(seat, checked)
                assert r.observation(seat) == state.observation(seat)
                check_deal_is_legal(json.loads(r.to_json()))
                checked += 1
    assert checked > 500


@pytest.mark.parametrize("variant", VARIANTS[:3])
def test_every_sampled_state_honours_the_shown_voids(variant):
    game = cardref.load("back_alley", 4, **variant)
    for i, state in enumerate(_states(variant, 7, 300)):
        if i % 3:
            continue
        for seat in range(4):
            obs = state.observation(seat)
            for s in game.sample_states(obs, 2, seed=i):
                assert s.observation(seat) == obs
                check_deal_is_legal(json.loads(s.to_json()))


def test_a_shown_void_keeps_the_suit_out_of_that_hand():
    """S1 cannot follow a club lead: in every resample for S0 it holds no club,
    while the clubs it might have held turn up in the other hidden hands."""
    deck = ["2C", "2D", "3C", "KS", "4C", "3D", "5C", "QS", "6C", "4D", "7C", "JS", "3H"]
    game = cardref.load("back_alley", 4, schedule=[3], first_dealer=3)
    rest = [c for c in ORDER if c not in deck]
    state = game.new_state(seed=0, deck=deck + rest)
    for action in ["bid 1", "bid 1", "bid 1", "bid pass", "play 2C", "play 2D"]:
        state.apply(action)
    clubs_seen = {2: 0, 3: 0}
    for seed in range(200):
        hands = json.loads(state.resample(0, seed).to_json())["hands"]
        assert not any(c.endswith("C") for c in hands[1])
        for s in (2, 3):
            clubs_seen[s] += any(c.endswith("C") for c in hands[s])
    assert all(n > 0 for n in clubs_seen.values())


def test_the_search_bot_plays_back_alley_legally():
    from cardref.bots.search import Bot

    state = cardref.load("back_alley", 4, schedule=[5, 2]).new_state(seed=4)
    bots = [Bot() for _ in range(4)]
    for seat, bot in enumerate(bots):
        bot.start({"game": "back_alley", "players": 4, "params": {"schedule": [5, 2]},
                   "seed": seat, "seat": seat})
    while not state.is_terminal():
        seat = state.current_player()
        legal = state.legal_actions()
        action = bots[seat].act(state.observation(seat), legal)
        assert action in legal
        state.apply(action)
