"""What the generic checks (``cardref verify``, the invariant tests) need to
know of each game, one module per game, written from its rule book on its own
(not from either engine), so that a misreading both engines share still
breaks them:

- ``cards(data)``: every card of a state's JSON, wherever it lies (None where
  the game does not keep them all, e.g. Take 5 at its end), for card conservation;
- ``permute_hidden(data, seat, rng)``: the state with the cards ``seat`` cannot
  see shuffled among their places, for the information-leak check;
- ``check(data)``: the game's own invariants on one state (raises AssertionError);
- ``max_actions(players, params)``: the rule book's termination bound.

A game registered from outside the package (the tests' High Card) registers
its kit with ``register``.
"""

from __future__ import annotations

import importlib
from types import ModuleType

_KITS: dict[str, str] = {}


def register(game_id: str, module_name: str) -> None:
    """Use module ``module_name`` as the kit of ``game_id``."""
    _KITS[game_id] = module_name


def kit(game_id: str) -> ModuleType:
    """The kit of ``game_id``: a registered module, else ``cardref.verify.kits.<id>``."""
    return importlib.import_module(_KITS.get(game_id, f"{__name__}.{game_id}"))
