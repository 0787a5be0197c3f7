"""Replays a scenario file (format: docs/scenarios.md) against one engine.

The Rust integration test ``rust/tests/scenarios.rs`` reads the same files; the
two runners are kept deliberately simple so a file means the same to both.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, Optional

import cardref

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

SCENARIO_ROOT = Path(__file__).parent / "scenarios"
TOP_KEYS = {"title", "covers", "game", "players", "variant", "seed", "deck", "deal", "patch",
            "step", "error"}
EXPECT_KEYS = {"current_player", "legal", "illegal", "scores", "placements", "terminal",
               "history"}


def scenario_files() -> list[Path]:
    return sorted(SCENARIO_ROOT.rglob("*.toml"))


def load_scenario(path: Path) -> dict[str, Any]:
    doc = tomllib.loads(path.read_text(encoding="utf-8"))
    unknown = set(doc) - TOP_KEYS
    assert not unknown, f"{path}: unknown keys {sorted(unknown)}"
    return doc


def _cards(items: list[Any]) -> list[str]:
    return [str(c) for c in items]


def stacked_deck(deal: dict[str, Any], canonical: list[str]) -> list[str]:
    """Hands dealt one card at a time from seat ``first``, then ``then``, then the
    remaining cards in canonical order."""
    hands = [_cards(h) for h in deal["hands"]]
    first = deal.get("first", 0)
    n = len(hands)
    deck = []
    for k in range(max(len(h) for h in hands)):
        for j in range(n):
            hand = hands[(first + j) % n]
            if k < len(hand):
                deck.append(hand[k])
    deck += _cards(deal.get("then", []))
    rest = list(canonical)
    for card in deck:
        if card in rest:
            rest.remove(card)
    return deck + rest


def setup(doc: dict[str, Any], engine: str) -> Any:
    game = cardref.load(doc["game"], doc["players"], engine=engine, **doc.get("variant", {}))
    deck: Optional[list[str]] = None
    if "deck" in doc:
        deck = _cards(doc["deck"])
    elif "deal" in doc:
        variant = doc.get("variant", {})
        ref = cardref.load(doc["game"], doc["players"], engine="reference", **variant)
        deck = stacked_deck(doc["deal"], _canonical(ref))
    state = game.new_state(seed=doc.get("seed", 0), deck=deck)
    if "patch" in doc:
        data = json.loads(state.to_json())
        data.update(doc["patch"])
        state = game.state_from_json(json.dumps(data))
    return state


def _canonical(reference_game: Any) -> list[str]:
    module = reference_game._module
    return module.canonical_deck(reference_game.players, reference_game.params)


def check_expect(state: Any, expect: dict[str, Any], where: str) -> None:
    unknown = set(expect) - EXPECT_KEYS
    assert not unknown, f"{where}: unknown expect keys {sorted(unknown)}"
    if "current_player" in expect:
        got = state.current_player()
        got = "none" if got is None else got
        assert got == expect["current_player"], f"{where}: current_player"
    if "legal" in expect:
        assert state.legal_actions() == expect["legal"], f"{where}: legal actions"
    if "scores" in expect:
        assert state.scores() == expect["scores"], f"{where}: scores"
    if "placements" in expect:
        assert state.placements() == expect["placements"], f"{where}: placements"
    if "terminal" in expect:
        assert state.is_terminal() == expect["terminal"], f"{where}: terminal"
    if "history" in expect:
        assert state.history() == expect["history"], f"{where}: history"
    for action in expect.get("illegal", []):
        before = state.to_json()
        try:
            state.apply(action)
        except cardref.IllegalActionError:
            assert state.to_json() == before, f"{where}: illegal {action!r} changed the state"
        else:
            raise AssertionError(f"{where}: {action!r} should be illegal")


def run(doc: dict[str, Any], engine: str) -> None:
    """Replay one scenario; raises AssertionError naming the step and the field."""
    if "error" in doc:
        error = getattr(cardref, doc["error"])
        try:
            setup(doc, engine)
        except error:
            return
        raise AssertionError(f"setup should raise {doc['error']}")
    state = setup(doc, engine)
    for i, step in enumerate(doc.get("step", [])):
        for action in step.get("do", []):
            state.apply(action)
        check_expect(state, step.get("expect", {}), f"step {i}")
        for obs in step.get("observe", []):
            seen = state.observation(obs["seat"])
            for field in obs.get("null", []):
                where = f"step {i}: observation({obs['seat']}).{field}"
                assert seen[field] is None, f"{where} is not null"
            for field, want in obs.items():
                if field not in ("seat", "null"):
                    assert seen[field] == want, (
                        f"step {i}: observation({obs['seat']}).{field}: expected {want}, "
                        f"got {seen[field]}"
                    )
