"""High Card, a game for the tests only (``rules.md``): its Python reference
(``reference.py``) and loader (``loading.py``), registered the way every game
is, by one line, for the test suite only (``register``). The Rust core builds
its twin (``rust/src/games/high_card/``) only for ``cargo test``, so the
extension that pytest loads does not have it: the generic Python tests run it
on the reference engine, and its golden games tie it to the Rust twin."""

from __future__ import annotations

from cardref import registry
from cardref.verify import kits


def register() -> None:
    """Adds High Card to the registry, and its test kit to the kits of the
    generic checks (idempotent)."""
    registry.register("testgame.reference")
    kits.register("high_card", "gamekit.high_card")
