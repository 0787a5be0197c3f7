"""The games, one line each: the reference module of every game. A module
declares its game (``GAME``, a ``GameSpec``: players, teams, rule-id prefix,
what the Rust core offers for it) and holds its rules; the generic code
(``cardref.load``, the bots, ``cardref bench``, the tournament and the
tests) reads the declarations here and keeps no list of games of its own.

The Rust core registers the same games in ``rust/src/games/mod.rs``.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from .errors import UnknownGameError
from .reference.base import GameSpec

_MODULES: dict[str, ModuleType] = {}


def register(module_name: str) -> None:
    """Adds the game whose reference module is ``module_name`` (it declares ``GAME``)."""
    module = importlib.import_module(module_name)
    spec = module.GAME
    if not isinstance(spec, GameSpec):
        raise TypeError(f"{module_name}.GAME must be a GameSpec, not {type(spec).__name__}")
    _MODULES[spec.id] = module


register("cardref.reference.back_alley")
register("cardref.reference.five_alive")
register("cardref.reference.hundred")
register("cardref.reference.take5")
register("cardref.reference.twenty_two")


def ids() -> list[str]:
    """Ids of every registered game, sorted."""
    return sorted(_MODULES)


def module(game_id: str) -> ModuleType:
    """The reference module of ``game_id``; UnknownGameError names the ids."""
    try:
        return _MODULES[game_id]
    except KeyError:
        raise UnknownGameError(
            f"unknown game {game_id!r}; available games: {', '.join(ids())}") from None


def spec(game_id: str) -> GameSpec:
    """The declaration of ``game_id``."""
    return module(game_id).GAME
