"""Invariants that hold for every game on both engines, over many random games:
cards conserved, game-specific invariants, no information leak, illegal actions
rejected with the state unchanged, JSON round trip and clone independence,
and termination within the rule book's bound."""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any

import pytest
from hypothesis import given, settings

import cardref
from gamekit import kit
from playthrough import GAME_ENGINES, GAMES, Setup, setups


def canonical_deck(setup: Setup) -> list[str]:
    ref = setup.load("reference")
    return ref._module.canonical_deck(ref.players, ref.params)


def malformed(action: str, rng: random.Random) -> list[str]:
    """Near-misses of a legal action that the grammar must reject."""
    words = action.split(" ")
    bad = [action + " ", " " + action, action.replace(" ", "  ", 1), action.upper(),
           action.capitalize(), "", "pass", "play", words[0] + " " + "0" + words[-1]]
    if len(words) > 1 and words[-1].isdigit():
        bad += [f"{words[0]} +{words[-1]}", f"{words[0]} {words[-1]}.0"]
    return [b for b in bad if rng.random() < 0.5]


def check_illegal_rejected(state: Any, rng: random.Random, setup: Setup) -> None:
    legal = set(state.legal_actions())
    before = state.to_json()
    probes = [b for a in rng.sample(sorted(legal), min(2, len(legal))) for b in malformed(a, rng)]
    for probe in probes:
        if probe in legal:
            continue
        with pytest.raises(cardref.IllegalActionError):
            state.apply(probe)
        assert state.to_json() == before, f"illegal {probe!r} changed the state\n{setup.repro()}"


def check_no_leak(game: Any, state: Any, rng: random.Random, setup: Setup) -> None:
    seat = rng.randrange(setup.players)
    data = json.loads(state.to_json())
    permuted = kit(setup.game_id).permute_hidden(data, seat, rng)
    other = game.state_from_json(json.dumps(permuted))
    assert other.observation(seat) == state.observation(seat), (
        f"observation({seat}) depends on hidden cards\n{setup.repro()}")
    if state.current_player() == seat:
        assert other.legal_actions() == state.legal_actions(), setup.repro()


def check_round_trip(game: Any, state: Any, setup: Setup) -> Any:
    """A state loaded from its JSON is equal, and a clone is independent."""
    text = state.to_json()
    loaded = game.state_from_json(text)
    assert loaded.to_json() == text, setup.repro()
    twin = state.clone()
    if not twin.is_terminal():
        twin.apply(twin.legal_actions()[0])
        assert state.to_json() == text, f"applying to a clone changed the original\n{setup.repro()}"
    return loaded


def play_checked(setup: Setup, engine: str) -> None:
    gk = kit(setup.game_id)
    game = setup.load(engine)
    state = game.new_state(seed=setup.seed)
    deck = Counter(canonical_deck(setup))
    rng = random.Random(setup.choice_seed)
    bound = gk.max_actions(game.players, game.params)
    shadow = None
    while True:
        data = json.loads(state.to_json())
        found = gk.cards(data)
        if found is not None:
            assert Counter(found) == deck, f"cards not conserved\n{setup.repro()}"
        gk.check(data)
        assert state.placements() is None or state.is_terminal()
        if shadow is not None:
            same = shadow.to_json() == state.to_json()
            assert same, f"a reloaded state diverged\n{setup.repro()}"
        if state.is_terminal():
            break
        if rng.random() < 0.1:
            check_illegal_rejected(state, rng, setup)
        if rng.random() < 0.05:
            check_no_leak(game, state, rng, setup)
        if rng.random() < 0.03:
            shadow = check_round_trip(game, state, setup)
        action = rng.choice(state.legal_actions())
        setup.actions.append(action)
        state.apply(action)
        if shadow is not None:
            shadow.apply(action)
        assert len(setup.actions) <= bound, f"game longer than its bound {bound}\n{setup.repro()}"
    check_finished(state, setup)


def check_finished(state: Any, setup: Setup) -> None:
    placements = state.placements()
    assert placements is not None and len(placements) == setup.players
    assert min(placements) == 1 and all(1 <= p <= setup.players for p in placements)
    for place in placements:  # competition ranking
        assert place == 1 + sum(p < place for p in placements), placements
    assert state.legal_actions() == [] and state.current_player() is None
    assert state.history() == setup.actions
    with pytest.raises(cardref.IllegalActionError):
        state.apply(setup.actions[-1])


@pytest.mark.parametrize(("game_id", "engine"), GAME_ENGINES)
def test_invariants_hold_over_random_games(game_id: str, engine: str) -> None:
    examples = GAMES if engine == "rust" else max(10, GAMES // 3)

    @settings(max_examples=examples)
    @given(setups(game_id))
    def check(setup: Setup) -> None:
        play_checked(setup, engine)

    check()
