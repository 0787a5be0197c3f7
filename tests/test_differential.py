"""Both engines in lockstep: after every action they must agree on the player to
act, the legal actions, every seat's observation, scores, the end, placements
and the canonical JSON. A failure prints a one-line reproduction."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings

import cardref
from playthrough import GAMES, Setup, setups


def assert_same(rust: object, ref: object, setup: Setup) -> None:
    """Every observable of the two states is equal."""
    where = f"after {len(setup.actions)} actions\n{setup.repro()}"
    assert rust.current_player() == ref.current_player(), f"current_player {where}"
    assert rust.legal_actions() == ref.legal_actions(), f"legal_actions {where}"
    assert rust.legal_count() == ref.legal_count() == len(ref.legal_actions()), \
        f"legal_count {where}"
    assert rust.is_terminal() == ref.is_terminal(), f"is_terminal {where}"
    assert rust.scores() == ref.scores(), f"scores {where}"
    assert rust.placements() == ref.placements(), f"placements {where}"
    for seat in range(setup.players):
        assert rust.observation(seat) == ref.observation(seat), f"observation({seat}) {where}"
    assert rust.to_json() == ref.to_json(), f"to_json {where}"


def play_both(setup: Setup) -> None:
    rust = setup.load("rust").new_state(seed=setup.seed)
    ref = setup.load("reference").new_state(seed=setup.seed)
    chooser = random.Random(setup.choice_seed)
    assert_same(rust, ref, setup)
    while not ref.is_terminal():
        legal = ref.legal_actions()
        index = chooser.randrange(len(legal))
        setup.actions.append(legal[index])
        if len(setup.actions) % 2:
            rust.apply(legal[index])
            ref.apply(legal[index])
        else:  # every other step by position, which must name the same action
            rust.apply_legal(index)
            ref.apply_legal(index)
        assert_same(rust, ref, setup)
    assert rust.history() == ref.history() == setup.actions, setup.repro()


@pytest.mark.parametrize("game_id", cardref.games())
def test_engines_agree_step_by_step(game_id: str) -> None:
    @settings(max_examples=GAMES)
    @given(setups(game_id))
    def check(setup: Setup) -> None:
        play_both(setup)

    check()


@pytest.mark.parametrize("game_id", cardref.games())
def test_engines_deal_the_same_from_the_same_seed(game_id: str) -> None:
    @settings(max_examples=GAMES)
    @given(setups(game_id))
    def check(setup: Setup) -> None:
        rust = setup.load("rust").new_state(seed=setup.seed)
        ref = setup.load("reference").new_state(seed=setup.seed)
        assert rust.to_json() == ref.to_json(), setup.repro()

    check()
