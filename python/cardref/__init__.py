"""cardref: rules engines, verification and tournament refereeing for card games.

>>> import cardref
>>> game = cardref.load("take5", players=4)          # the Rust core
>>> state = game.new_state(seed=7)
>>> state.apply(state.legal_actions()[0])
>>> state.current_player()
1

``cardref.load(..., engine="reference")`` gives the readable Python reference
engine instead; both engines behave identically. ``cardref.match`` plays bots
against each other in this process (``docs/bots.md``).
"""

from typing import Any

from .api import games, load, simulate
from .errors import (
    CardrefError,
    IllegalActionError,
    InvalidDeckError,
    InvalidParamsError,
    InvalidSeedError,
    InvalidStateError,
    UnknownGameError,
)
from .version import __version__, build_id


def match(game: str, bots: Any, **options: Any) -> Any:
    """Play ``bots`` against each other at ``game`` in this process: see
    ``cardref.localmatch.match`` for the options and the result."""
    from .localmatch import match as play_match

    return play_match(game, bots, **options)


__all__ = [
    "CardrefError",
    "IllegalActionError",
    "InvalidDeckError",
    "InvalidParamsError",
    "InvalidSeedError",
    "InvalidStateError",
    "UnknownGameError",
    "__version__",
    "build_id",
    "games",
    "load",
    "match",
    "simulate",
]
