"""The ``search`` built-in bot: determinized rollouts on the Rust core.

For each decision it draws states consistent with its observation (the cards
hidden from it dealt at random, ``Game.sample_states``), plays every legal
action out in each with the native heuristic bot for every seat, and picks
the action with the best total (see ``docs/simulation.md``). It sees only its
observation and legal actions, like every bot.
"""

from __future__ import annotations

import importlib
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
        try:
            action = self.game.search_action(observation, SAMPLES, self.seed)
        except cardref.InvalidStateError:
            # No consistent deal was found (possible only under constraints as
            # tight as Twenty-Two's lowest_only_if_cannot_beat): play as the
            # heuristic does, like the native search bot.
            return self._heuristic(observation["game"]).act(observation, legal_actions)
        return action if action in legal_actions else legal_actions[0]

    def _heuristic(self, game_id: str) -> Any:
        module = importlib.import_module(f"cardref.bots.heuristic.{game_id}")
        return module.Bot()
