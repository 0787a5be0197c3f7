"""Every rule-book id of every game (scenarios Sn and ambiguities n) is pinned by
a scenario file's ``covers`` and explained in the game's docs page."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import cardref
from cardref import registry
from scenario_runner import SCENARIO_ROOT, load_scenario

ROOT = Path(__file__).resolve().parent.parent
RULE_BOOK = ROOT / "docs" / "rules"


def rule_book_ids(game_id: str) -> set[str]:
    """The ids the rule book of ``game_id`` defines, by the prefix the game declares."""
    prefix = registry.spec(game_id).rule_prefix
    text = (RULE_BOOK / f"{game_id}.md").read_text(encoding="utf-8")
    return set(re.findall(rf"\b{prefix}-[ST]?[0-9]+[a-z]?\b", text))


@pytest.mark.parametrize("name", ["CONVENTIONS", *cardref.games()])
def test_the_rule_book_is_in_the_repository(name: str) -> None:
    text = (RULE_BOOK / f"{name}.md").read_text(encoding="utf-8")
    assert text.startswith("# "), f"docs/rules/{name}.md has no title"


@pytest.mark.parametrize("game_id", cardref.games())
def test_every_id_is_pinned_by_a_scenario(game_id: str) -> None:
    covered: set[str] = set()
    for path in (SCENARIO_ROOT / game_id).glob("*.toml"):
        covered.update(load_scenario(path)["covers"])
    missing = sorted(rule_book_ids(game_id) - covered)
    assert not missing, f"{game_id}: no scenario covers {missing}"


@pytest.mark.parametrize("game_id", cardref.games())
def test_every_ambiguity_is_explained_in_the_docs(game_id: str) -> None:
    docs = (ROOT / "docs" / "games" / f"{game_id}.md").read_text(encoding="utf-8")
    ambiguities = {i for i in rule_book_ids(game_id) if re.search(r"-[0-9]", i)}
    missing = sorted(i for i in ambiguities if not re.search(rf"\b{i}\b", docs))
    assert not missing, f"docs/games/{game_id}.md does not explain {missing}"
