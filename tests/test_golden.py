"""Both engines replay the committed golden games (``tests/golden/``, see
``golden_games.py``) to the same canonical JSON, step for step. (The game for
the tests only is replayed here on the reference engine and by ``cargo test``
on the Rust core: the same file ties the two.)"""

from __future__ import annotations

import pytest
from golden_games import load, play

import cardref
from playthrough import GAME_ENGINES


@pytest.mark.parametrize(("game_id", "engine"), GAME_ENGINES)
def test_engines_replay_the_golden_games(game_id: str, engine: str) -> None:
    games = load(game_id)
    assert games, f"tests/golden/{game_id}.jsonl holds no games"
    for g in games:
        game = cardref.load(game_id, g["players"], engine=engine, **g["variant"])
        states = play(game, g["seed"])
        where = f"{game_id} players={g['players']} variant={g['variant']} seed={g['seed']}"
        assert states.keys() == g["states"].keys(), f"game length differs: {where}"
        for step, text in g["states"].items():
            assert states[step] == text, f"to_json at step {step} differs: {where}"
