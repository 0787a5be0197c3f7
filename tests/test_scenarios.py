"""Every scenario file, against both engines (the Rust test replays them too)."""

from __future__ import annotations

from pathlib import Path

import pytest

from cardref import registry
from playthrough import engines
from scenario_runner import SCENARIO_ROOT, load_scenario, run, scenario_files

FILES = scenario_files()
#: Every file on every engine that plays its game.
RUNS = [pytest.param(path, engine, id=f"{engine}-{path.relative_to(SCENARIO_ROOT)}")
        for path in FILES for engine in engines(load_scenario(path)["game"])]


@pytest.mark.parametrize(("path", "engine"), RUNS)
def test_scenario(path: Path, engine: str) -> None:
    run(load_scenario(path), engine)


def test_every_game_has_scenarios() -> None:
    for game in registry.ids():
        assert list((SCENARIO_ROOT / game).glob("*.toml")), f"no scenarios for {game}"


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(SCENARIO_ROOT)))
def test_scenario_cites_rule_book_ids(path: Path) -> None:
    doc = load_scenario(path)
    assert doc.get("title"), f"{path}: a scenario needs a title"
    assert doc.get("covers"), f"{path}: a scenario must cite the rule-book ids it pins"
