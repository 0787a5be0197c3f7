"""The ``search`` built-in bot: determinized rollouts on the Rust core.

For each decision it draws states consistent with its observation (the cards
hidden from it dealt at random, ``Game.sample_states``), plays every legal
action out in each with the native heuristic bot for every seat, and picks
the action with the best total (see ``docs/simulation.md``). It sees only its
observation and legal actions, like every bot.
"""

from __future__ import annotations

from typing import Any

import cardref

#: Sampled states per decision; each legal action is played out once in each.
SAMPLES = 48


class Bot:
    """Flat Monte Carlo over determinizations, heuristic rollouts."""

    def __init__(self) -> None:
        self.seed = 0
        self.game: Any = None

    def start(self, info: dict[str, Any]) -> None:
        self.seed = info["seed"]
        self.game = cardref.load(info["game"], info["players"], **info["params"])

    def act(self, observation: dict[str, Any], legal_actions: list[str]) -> str:
        if len(legal_actions) == 1:
            return legal_actions[0]
        if self.game is None:  # driven without start(): the observation names the game
            self.game = cardref.load(
                observation["game"], observation["players"], **observation["params"]
            )
        self.seed = (self.seed + 1) % 2**64
        action = self.game.search_action(observation, SAMPLES, self.seed)
        return action if action in legal_actions else legal_actions[0]
