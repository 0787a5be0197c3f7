"""cardref: rules engines, verification and tournament refereeing for card games.

>>> import cardref
>>> game = cardref.load("take5", players=4)          # the Rust core
>>> state = game.new_state(seed=7)
>>> state.apply(state.legal_actions()[0])
>>> state.current_player()
1

``cardref.load(..., engine="reference")`` gives the readable Python reference
engine instead; both engines behave identically.
"""

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
    "simulate",
]
