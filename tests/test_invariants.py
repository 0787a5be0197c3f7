"""Invariants that hold for every game on each engine, over many random games
(``cardref.verify.invariants``, checked by ``cardref.verify.lockstep`` on one
engine at a time): cards conserved, game-specific invariants, no information
leak, illegal actions rejected with the state unchanged, JSON round trip and
clone independence, termination within the rule book's bound, and what a
finished game shows."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from cardref.verify.lockstep import Lockstep
from playthrough import GAME_ENGINES, GAMES, Setup, random_pick, setups


@pytest.mark.parametrize(("game_id", "engine"), GAME_ENGINES)
def test_invariants_hold_over_random_games(game_id: str, engine: str) -> None:
    examples = GAMES if engine == "rust" else max(10, GAMES // 3)

    @settings(max_examples=examples)
    @given(setups(game_id))
    def check(setup: Setup) -> None:
        played = Lockstep(setup.table(), engines=(engine,)).play(random_pick(setup))
        assert played.finding is None, f"{played.finding}\n{setup.repro(played.actions)}"
        assert played.finished

    check()
