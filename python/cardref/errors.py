"""The exceptions both engines raise.

They are defined once, here; the Rust binding raises these very classes, so
``except cardref.IllegalActionError`` works whichever engine is in use. Every
one is a ``ValueError``: each reports a bad input, never an engine fault.
"""


class CardrefError(ValueError):
    """Base class of every error cardref reports about its input."""


class UnknownGameError(CardrefError):
    """The game id is not one of ``cardref.games()``."""


class InvalidParamsError(CardrefError):
    """A player count, a variant key or a variant value is not allowed."""


class IllegalActionError(CardrefError):
    """The action is not among the legal actions of the player to act."""


class InvalidSeedError(CardrefError):
    """A seed is not an integer from 0 to 2**64 - 1."""


class InvalidDeckError(CardrefError):
    """An explicit deck is not a permutation of the cards in play."""


class InvalidStateError(CardrefError):
    """A state given as JSON is malformed, for another game, or inconsistent."""
