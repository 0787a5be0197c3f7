"""Both engines in lockstep (``cardref.verify.lockstep``): after every action
they must agree on the player to act, the legal actions, every seat's
observation, scores, the end, placements, rounds, the canonical JSON and the
rule points the step fired. A failure prints a one-line reproduction."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

import cardref
from cardref.verify.lockstep import Checks, Lockstep
from playthrough import GAMES, Setup, random_pick, setups

#: The invariants have their own test; here, only the cheap ones run beside the comparison.
COMPARE_ONLY = Checks(illegal=0.0, leak=0.0, round_trip=0.0)


def play_both(setup: Setup) -> None:
    played = Lockstep(setup.table(), COMPARE_ONLY).play(random_pick(setup))
    assert played.finding is None, f"{played.finding}\n{setup.repro(played.actions)}"
    assert played.finished


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
        assert rust.to_json() == ref.to_json(), setup.repro([])

    check()
