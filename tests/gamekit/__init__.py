"""Per-game knowledge the generic tests need: player counts, variant strategies,
where the cards are in a state's JSON, how to permute what a seat cannot see,
game-specific invariants and the termination bound."""

from __future__ import annotations

import importlib
from types import ModuleType


def kit(game_id: str) -> ModuleType:
    """The test kit of a game (``tests/gamekit/<game_id>.py``)."""
    return importlib.import_module(f"gamekit.{game_id}")
