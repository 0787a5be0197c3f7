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

import hashlib
import importlib
import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

BUILTINS = ("random", "heuristic")


class BotLoadError(Exception):
    """A bot module cannot be imported or does not define a usable ``Bot``."""


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


def _import_file(path: Path) -> ModuleType:
    """Import a bot from a file under a private module name derived from its path,
    so two submitted files called ``bot.py`` never shadow each other."""
    digest = hashlib.sha256(str(path).encode()).hexdigest()[:16]
    name = f"_cardref_bot_{digest}"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise BotLoadError(f"{path} is not a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


def load_bot_class(kind: str, target: str) -> Any:
    """The ``Bot`` class of a bot given as ``kind`` "module" (an importable name)
    or "path" (a file). Import failures become BotLoadError with the cause."""
    try:
        if kind == "path":
            path = Path(target)
            if not path.is_file():
                raise BotLoadError(f"no such file: {path}")
            module = _import_file(path)
        else:
            module = importlib.import_module(target)
    except BotLoadError:
        raise
    except BaseException as e:  # a bot's import may raise anything, even SystemExit
        raise BotLoadError(f"importing it failed: {type(e).__name__}: {e}") from None
    bot = getattr(module, "Bot", None)
    if not isinstance(bot, type):
        raise BotLoadError("the module does not define a class named Bot")
    if not callable(getattr(bot, "act", None)):
        raise BotLoadError("its class Bot has no act(observation, legal_actions) method")
    return bot
