"""Bots: the built-in ones and the loader for submitted modules.

A bot is a Python module (an importable name or a ``.py`` file) that defines a
class ``Bot``. The referee creates ``Bot()`` for every game and calls
``act(observation, legal_actions) -> str`` for each of its decisions, plus the
optional hooks ``start(info)`` and ``end(info)`` (see ``docs/bots.md``). Bots
never see the state, only what their seat may know.

Two built-in bots exist for every game: ``random`` and ``heuristic``; the
latter resolves to ``cardref.bots.heuristic.<game id>``.
"""

from __future__ import annotations

import importlib.util

from .sdk import BotLoadError, load_bot_class

__all__ = ["BUILTINS", "BotLoadError", "builtin_module", "load_bot_class"]

BUILTINS = ("random", "heuristic")


def builtin_module(name: str, game_id: str) -> str:
    """The module name of built-in bot ``name`` for ``game_id``.

    Raises BotLoadError for an unknown built-in, or when the game has no
    heuristic bot (yet).
    """
    if name == "random":
        return "cardref.bots.random"
    if name == "heuristic":
        module = f"cardref.bots.heuristic.{game_id}"
        if importlib.util.find_spec(module) is None:
            raise BotLoadError(f"there is no heuristic bot for the game {game_id!r}")
        return module
    raise BotLoadError(f"unknown built-in bot {name!r}; built-in bots: {', '.join(BUILTINS)}")
