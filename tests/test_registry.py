"""One registration point per engine: both engines register the same games
and declare the same things about each (``GameSpec``), and every game has the
companions ``docs/architecture.md`` ("Adding a game") lists."""

from __future__ import annotations

from pathlib import Path

import pytest
from testgame.reference import GAME as TEST_GAME

import cardref
from cardref import _core, registry

ROOT = Path(__file__).resolve().parent.parent


def test_both_engines_register_the_same_games() -> None:
    """The extension has every game but the one for the tests only, which
    only ``cargo test`` builds into the Rust core."""
    assert cardref.games() == sorted(_core.GAME_IDS)
    assert registry.ids() == sorted([*_core.GAME_IDS, TEST_GAME.id])
    assert [spec["id"] for spec in _core.GAME_SPECS] == _core.GAME_IDS


def test_the_test_only_game_is_refused_by_the_rust_engine_by_name() -> None:
    assert cardref.load(TEST_GAME.id, 2, engine="reference").players == 2
    with pytest.raises(cardref.UnknownGameError, match=TEST_GAME.id):
        cardref.load(TEST_GAME.id, 2, engine="rust")


@pytest.mark.parametrize("game_id", cardref.games())
def test_both_engines_declare_the_same(game_id: str) -> None:
    rust = next(spec for spec in _core.GAME_SPECS if spec["id"] == game_id)
    spec = registry.spec(game_id)
    python = {
        "id": spec.id,
        "min_players": spec.min_players,
        "max_players": spec.max_players,
        "default_players": spec.default_players,
        "teams": [list(team) for team in spec.teams],
        "rule_prefix": spec.rule_prefix,
        "heuristic": spec.heuristic,
        "search": spec.search,
    }
    assert python == rust


@pytest.mark.parametrize("game_id", cardref.games())
def test_the_declared_player_range_is_the_range_both_engines_accept(game_id: str) -> None:
    spec = registry.spec(game_id)
    for engine in ("rust", "reference"):
        assert cardref.load(game_id, spec.default_players, engine=engine).players \
            == spec.default_players
        for outside in (spec.min_players - 1, spec.max_players + 1):
            with pytest.raises(cardref.InvalidParamsError, match="players"):
                cardref.load(game_id, outside, engine=engine)


@pytest.mark.parametrize("game_id", cardref.games())
def test_every_game_has_its_companions(game_id: str) -> None:
    companions = [
        ROOT / "docs" / "rules" / f"{game_id}.md",
        ROOT / "docs" / "games" / f"{game_id}.md",
        ROOT / "rust" / "src" / "games" / game_id / "rules.rs",
        ROOT / "python" / "cardref" / "reference" / f"{game_id}.py",
        ROOT / "python" / "cardref" / "reference" / "loading" / f"{game_id}.py",
        ROOT / "python" / "cardref" / "verify" / "kits" / f"{game_id}.py",
        ROOT / "tests" / "gamekit" / f"{game_id}.py",
        ROOT / "tests" / "golden" / f"{game_id}.jsonl",
    ]
    missing = [str(p.relative_to(ROOT)) for p in companions if not p.exists()]
    assert not missing, f"{game_id}: missing {missing}"
    assert list((ROOT / "tests" / "scenarios" / game_id).glob("*.toml")), game_id


def test_an_unknown_id_is_refused_by_name() -> None:
    with pytest.raises(cardref.UnknownGameError, match=r"take6.*take5"):
        registry.spec("take6")


def test_the_test_only_game_has_its_companions() -> None:
    """What "Adding a game" lists, for the game the tests add."""
    game_id = TEST_GAME.id
    companions = [
        ROOT / "rust" / "src" / "games" / game_id / "rules.rs",
        ROOT / "tests" / "testgame" / "reference.py",
        ROOT / "tests" / "testgame" / "loading.py",
        ROOT / "tests" / "testgame" / "rules.md",
        ROOT / "tests" / "gamekit" / f"{game_id}.py",
        ROOT / "tests" / "golden" / f"{game_id}.jsonl",
    ]
    missing = [str(p.relative_to(ROOT)) for p in companions if not p.exists()]
    assert not missing, missing
    assert list((ROOT / "tests" / "scenarios" / game_id).glob("*.toml"))
