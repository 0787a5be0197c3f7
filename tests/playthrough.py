"""Helpers shared by the property tests: building a game from drawn parameters
and describing it in one line that reproduces it."""

from __future__ import annotations

import os
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Optional

from hypothesis import strategies as st

import cardref
from cardref import registry
from cardref.verify.table import Table
from gamekit import kit

PROFILE = os.environ.get("CARDREF_PROFILE", "ci")
#: Complete games per game and property test, by Hypothesis profile.
GAMES = {"dev": 15, "ci": 150, "thorough": 2000}[PROFILE]


def engines(game_id: str) -> list[str]:
    """The engines that play ``game_id``: both, or only the reference for a game
    the extension is built without (the game for the tests only)."""
    return ["rust", "reference"] if game_id in cardref.games() else ["reference"]


#: (game, engine) for every registered game and every engine that plays it.
GAME_ENGINES = [(g, e) for g in registry.ids() for e in engines(g)]


@dataclass
class Setup:
    """A drawn game: everything needed to replay it."""

    game_id: str
    players: int
    variant: dict[str, Any]
    seed: int
    choice_seed: int
    actions: list[str] = field(default_factory=list)

    def repro(self, actions: Optional[list[str]] = None) -> str:
        """One line that rebuilds the failing game in a Python shell."""
        played = self.actions if actions is None else actions
        return "REPRO: " + self.table().repro(played)

    def load(self, engine: str) -> Any:
        return cardref.load(self.game_id, self.players, engine=engine, **self.variant)

    def table(self) -> Table:
        return Table(self.game_id, self.players, dict(self.variant), self.seed)


def random_pick(setup: Setup) -> Callable[[int, Any, list], int]:
    """Uniformly random actions from the setup's choice seed (for ``Lockstep.play``)."""
    chooser = random.Random(setup.choice_seed)

    def pick(step: int, state: Any, legal: list) -> int:
        return chooser.randrange(len(legal))

    return pick


@st.composite
def setups(draw: st.DrawFn, game_id: str) -> Setup:
    gk = kit(game_id)
    players = draw(st.sampled_from(gk.PLAYERS))
    variant = draw(gk.variants(players))
    seed = draw(st.one_of(st.integers(0, 1000), st.integers(0, 2**64 - 1)))
    return Setup(game_id, players, variant, seed, draw(st.integers(0, 2**32)))
