"""The ``random`` built-in bot: a uniformly random legal action.

It draws from its own generator, seeded from the per-bot seed the referee
passes to ``start``, so a tournament with random bots is reproducible.
"""

from __future__ import annotations

import random
from typing import Any


class Bot:
    """Plays a uniformly random legal action."""

    def __init__(self) -> None:
        self.rng = random.Random(0)

    def start(self, info: dict[str, Any]) -> None:
        self.rng = random.Random(info["seed"])

    def act(self, observation: dict[str, Any], legal_actions: list[str]) -> str:
        return self.rng.choice(legal_actions)
