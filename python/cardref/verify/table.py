"""A game to play on both engines, and checking what a user asks for:
the game id, the player count and the variant keys, each refused with a
message that names the problem (the engines' own checks, which know every
key's type and range)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Optional

import cardref

from .. import registry


class TableError(ValueError):
    """A game, player count or variant that cannot be played; the message says why."""


@dataclass
class Table:
    """Everything needed to deal a game again: game, seats, variant, seed."""

    game_id: str
    players: int
    variant: dict[str, Any] = field(default_factory=dict)
    seed: int = 0

    def load(self, engine: str) -> Any:
        return cardref.load(self.game_id, self.players, engine=engine, **self.variant)

    def repro(self, actions: list[str]) -> str:
        """One line that rebuilds the game after ``actions`` in a Python shell."""
        return (f"g = cardref.load({self.game_id!r}, {self.players}, **{self.variant!r}); "
                f"s = g.new_state(seed={self.seed}); [s.apply(a) for a in {actions!r}]")


def reference_canonical_deck(game_id: str, players: int, variant: dict[str, Any]) -> list[str]:
    """The cards in play for a configuration, in canonical order."""
    game = cardref.load(game_id, players, engine="reference", **variant)
    return game._module.canonical_deck(game.players, game.params)


def parse_variant(items: list[str]) -> dict[str, Any]:
    """``KEY=VALUE`` pairs; a value is read as JSON where it parses (``66``,
    ``true``, ``[13, 1]``, ``null``), else taken as a string (``more_than``)."""
    out: dict[str, Any] = {}
    for item in items:
        key, sep, text = item.partition("=")
        if not sep or not key:
            raise TableError(f"--variant {item!r}: write KEY=VALUE, e.g. end_score=40")
        try:
            value = json.loads(text)
        except ValueError:
            value = text
        if key in out:
            raise TableError(f"--variant: the key {key!r} is given twice")
        out[key] = value
    return out


def check_table(game_id: str, players: Optional[int], variant: dict[str, Any],
                engines: tuple[str, ...] = ("rust", "reference")) -> int:
    """The player count to play (the game's typical table if None), after
    checking that every engine accepts the game, the count and the variant."""
    known = cardref.games() if "rust" in engines else registry.ids()
    if game_id not in known:
        raise TableError(f"unknown game {game_id!r}; games: {', '.join(known)}")
    spec = registry.spec(game_id)
    n = spec.default_players if players is None else players
    for engine in engines:
        try:
            cardref.load(game_id, n, engine=engine, **variant)
        except (cardref.InvalidParamsError, TypeError) as e:
            raise TableError(f"{game_id} with {n} players: {e} "
                             f"(players: {spec.min_players} to {spec.max_players}; the variant "
                             f"keys are in §8 of docs/rules/{game_id}.md)") from None
    return n
