"""Helpers for the tournament tests: configs and bot files in a temp dir."""

from __future__ import annotations

import sqlite3
import textwrap
from pathlib import Path
from typing import Callable

import pytest

BOTS = {
    "raises.py": """
        class Bot:
            def act(self, observation, legal_actions):
                raise RuntimeError("boom")
    """,
    "illegal.py": """
        class Bot:
            def act(self, observation, legal_actions):
                return "play 1000"
    """,
    "garbage.py": """
        class Bot:
            def act(self, observation, legal_actions):
                return 42
    """,
    "sleeper.py": """
        import time

        class Bot:
            def act(self, observation, legal_actions):
                time.sleep(0.12)
                return legal_actions[0]
    """,
    "slow_random.py": """
        import random
        import time

        class Bot:
            def start(self, info):
                self.rng = random.Random(info["seed"])

            def act(self, observation, legal_actions):
                time.sleep(0.001)
                return self.rng.choice(legal_actions)
    """,
    "first.py": """
        class Bot:
            def __init__(self):
                self.seen = []

            def start(self, info):
                assert set(info) >= {"game", "seat", "players", "params", "seed"}
                self.info = info

            def act(self, observation, legal_actions):
                assert observation["seat"] == self.info["seat"]
                return legal_actions[0]
    """,
    "broken.py": """
        import no_such_module_anywhere
    """,
    "nobot.py": """
        class Player:
            pass
    """,
}


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """A temp dir with the test bots under bots/."""
    bots = tmp_path / "bots"
    bots.mkdir()
    for name, source in BOTS.items():
        (bots / name).write_text(textwrap.dedent(source))
    return tmp_path


@pytest.fixture
def make_config(workspace: Path) -> Callable[..., Path]:
    """Write a config file into the workspace: ``make_config(text, name="t.toml")``."""

    def write(text: str, name: str = "t.toml") -> Path:
        path = workspace / name
        path.write_text(textwrap.dedent(text))
        return path

    return write


@pytest.fixture
def stored_games() -> Callable[..., tuple[list, list]]:
    """``stored_games(path)``: a results file's games and actions by key."""
    return read_stored_games


def read_stored_games(path: Path, engine_placements: bool = False) -> tuple[list, list]:
    """Every stored game and action of a results file, by game key (timings
    left out: they differ from run to run)."""
    db = sqlite3.connect(path)
    extra = "engine_placements, " if engine_placements else ""
    games = list(db.execute(f"SELECT key, seed, seating, statuses, {extra}placements, scores "
                            "FROM games ORDER BY key"))
    actions = list(db.execute(
        "SELECT s.key, a.step, a.seat, a.actor, a.action FROM actions a "
        "JOIN schedule s ON s.ord = a.game ORDER BY s.key, a.step"))
    db.close()
    return games, actions
