"""The invariants every game keeps on either engine, each a function that
raises ``Broken`` (naming the invariant) when a state breaks it: every card in
exactly one place, the game's own invariants (its kit), no information leak,
illegal actions refused with the state unchanged, the JSON round trip, clone
independence, the termination bound, and what a finished game shows.
``cardref verify`` and the invariant tests apply them."""

from __future__ import annotations

import json
import random
from collections import Counter
from types import ModuleType
from typing import Any, Optional

import cardref

CARDS = "cards conserved"
GAME_RULES = "game invariant"
PLACEMENTS = "placements only at the end"
ILLEGAL = "illegal actions refused"
LEAK = "no information leak"
ROUND_TRIP = "JSON round trip"
CLONE = "clone independence"
BOUND = "termination bound"
FINISHED = "finished game"


class Broken(Exception):
    """An invariant does not hold: ``name`` (one of this module's names) and why."""

    def __init__(self, name: str, detail: str) -> None:
        super().__init__(f"{name}: {detail}")
        self.name = name
        self.detail = detail


def check_state(kit: ModuleType, data: dict[str, Any], deck: Counter) -> None:
    """The invariants of one state's JSON: its cards and the game's own rules."""
    found = kit.cards(data)
    if found is not None and Counter(found) != deck:
        missing = sorted((deck - Counter(found)).elements())
        extra = sorted((Counter(found) - deck).elements())
        raise Broken(CARDS, f"missing {missing[:8]}, extra {extra[:8]}")
    try:
        kit.check(data)
    except AssertionError as e:
        raise Broken(GAME_RULES, str(e) or "a check of the game's kit failed") from None


def check_placements(state: Any) -> None:
    """Placements exist only once the game is over."""
    if state.placements() is not None and not state.is_terminal():
        raise Broken(PLACEMENTS, f"placements {state.placements()} before the end")


def malformed(action: str, rng: random.Random) -> list[str]:
    """Near-misses of a legal action that the grammar must reject."""
    words = action.split(" ")
    bad = [action + " ", " " + action, action.replace(" ", "  ", 1), action.upper(),
           action.capitalize(), "", "pass", "play", words[0] + " " + "0" + words[-1]]
    if len(words) > 1 and words[-1].isdigit():
        bad += [f"{words[0]} +{words[-1]}", f"{words[0]} {words[-1]}.0"]
    return [b for b in bad if rng.random() < 0.5]


def check_illegal_refused(state: Any, rng: random.Random) -> None:
    """Malformed near-misses of legal actions raise and leave the state as it was."""
    legal = set(state.legal_actions())
    before = state.to_json()
    probes = [b for a in rng.sample(sorted(legal), min(2, len(legal))) for b in malformed(a, rng)]
    for probe in probes:
        if probe in legal:
            continue
        try:
            state.apply(probe)
        except cardref.IllegalActionError:
            if state.to_json() != before:
                raise Broken(ILLEGAL, f"the refused {probe!r} changed the state") from None
        else:
            raise Broken(ILLEGAL, f"{probe!r} was applied, but it is not a legal action")


def check_no_leak(kit: ModuleType, game: Any, state: Any, seat: int,
                  rng: random.Random) -> None:
    """``seat``'s observation (and, if it is to act, its legal actions) do not
    change when the cards hidden from it are permuted among their places."""
    data = json.loads(state.to_json())
    other = game.state_from_json(json.dumps(kit.permute_hidden(data, seat, rng)))
    if other.observation(seat) != state.observation(seat):
        raise Broken(LEAK, f"observation({seat}) depends on cards hidden from seat {seat}")
    if state.current_player() == seat and other.legal_actions() != state.legal_actions():
        raise Broken(LEAK, f"seat {seat}'s legal actions depend on cards hidden from it")


def check_round_trip(game: Any, state: Any) -> Any:
    """A state loaded from its JSON is equal; returns it (the caller plays it on)."""
    text = state.to_json()
    try:
        loaded = game.state_from_json(text)
    except ValueError as e:
        raise Broken(ROUND_TRIP, f"its own JSON does not load: {e}") from None
    if loaded.to_json() != text:
        raise Broken(ROUND_TRIP, "the loaded state's JSON differs")
    return loaded


def check_clone(state: Any) -> None:
    """Applying an action to a clone leaves the original as it was."""
    text = state.to_json()
    twin = state.clone()
    if not twin.is_terminal():
        twin.apply(twin.legal_actions()[0])
        if state.to_json() != text:
            raise Broken(CLONE, "applying an action to a clone changed the original")


def check_bound(actions: int, bound: int) -> None:
    if actions > bound:
        raise Broken(BOUND, f"{actions} actions, more than the rule book's bound {bound}")


def check_finished(state: Any, players: int, actions: list[str]) -> None:
    """A finished game: competition placements for every seat, nothing legal,
    nobody to act, the history as played, every action refused."""
    placements = state.placements()
    problem: Optional[str] = None
    if placements is None or len(placements) != players:
        problem = f"placements {placements} for {players} seats"
    elif min(placements) != 1 or any(
            p != 1 + sum(q < p for q in placements) for p in placements):
        problem = f"placements {placements} are no competition ranking"
    elif state.legal_actions() or state.current_player() is not None:
        problem = "legal actions or a player to act after the end"
    elif state.history() != actions:
        problem = "the history is not the actions applied"
    if problem is None and actions:
        try:
            state.apply(actions[-1])
            problem = "an action was applied after the end"
        except cardref.IllegalActionError:
            pass
    if problem:
        raise Broken(FINISHED, problem)
