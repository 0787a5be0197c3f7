"""Bots: the built-in ones and the loader for submitted modules.

A bot is a Python module (an importable name or a ``.py`` file) that defines a
class ``Bot``. The referee creates ``Bot()`` for every game and calls
``act(observation, legal_actions) -> str`` for each of its decisions, plus the
optional hooks ``start(info)`` and ``end(info)`` (see ``docs/bots.md``). Bots
never see the state, only what their seat may know.

Built-in bots: ``random`` for every game, ``heuristic`` (resolves to
``cardref.bots.heuristic.<game id>``) and ``search`` (``cardref.bots.search``,
determinized rollouts on the Rust core) for the games that declare them
(``GameSpec.heuristic`` and ``GameSpec.search``).
"""

from __future__ import annotations

import importlib.util

from .sdk import BotLoadError, load_bot_class

__all__ = ["BUILTINS", "BotLoadError", "builtin_module", "load_bot_class"]

BUILTINS = ("random", "heuristic", "search")


def builtin_module(name: str, game_id: str) -> str:
    """The module name of built-in bot ``name`` for ``game_id``.

    Raises BotLoadError for an unknown built-in, or when the game declares
    no such bot.
    """
    from .. import registry

    if name == "random":
        return "cardref.bots.random"
    if name == "heuristic":
        module = f"cardref.bots.heuristic.{game_id}"
        if not registry.spec(game_id).heuristic or importlib.util.find_spec(module) is None:
            raise BotLoadError(f"there is no heuristic bot for the game {game_id!r}")
        return module
    if name == "search":
        if not registry.spec(game_id).search:
            raise BotLoadError(f"the search bot does not play {game_id!r}")
        return "cardref.bots.search"
    raise BotLoadError(f"unknown built-in bot {name!r}; built-in bots: {', '.join(BUILTINS)}")
