"""The readable reference engine: one module per game, written straight from the
rule book for a reader, plus the frame they share (``base``)."""

from .base import ReferenceGame, ReferenceState, canonical_json, check_seed

__all__ = ["ReferenceGame", "ReferenceState", "canonical_json", "check_seed"]
