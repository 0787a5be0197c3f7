"""Who chooses the actions of a verified game: a built-in bot per seat,
asked through the bot interface (``docs/bots.md``) with the seat's
observation of the reference state. The choice does not matter to what is
checked, only to which parts of the rules the games reach."""

from __future__ import annotations

import random
from typing import Any, Optional

from ..bots import builtin_module, load_bot_class
from ..rng import SplitMix64

GOLDEN = 0x9E3779B97F4A7C15


def game_seed(seed: int, index: int) -> int:
    """The seed of the ``index``-th game of a run started from ``seed``."""
    return SplitMix64((seed + index * GOLDEN) % (1 << 64)).next_u64()


class RandomBot:
    """A uniformly random legal action, from its own generator."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def act(self, observation: Any, legal: list[str]) -> str:
        return legal[self.rng.randrange(len(legal))]


def seat_bots(names: list[str], table: Any) -> list[Any]:
    """A fresh bot per seat for one game, started as a referee starts them."""
    bots: list[Any] = []
    params = table.load("reference").params
    for seat, name in enumerate(names):
        seed = game_seed(table.seed, seat + 1)
        if name == "random":
            bots.append(RandomBot(seed))
            continue
        bot = load_bot_class("module", builtin_module(name, table.game_id))()
        if hasattr(bot, "start"):
            bot.start({"game": table.game_id, "seat": seat, "players": table.players,
                       "params": dict(params), "seed": seed, "name": name, "key": "verify"})
        bots.append(bot)
    return bots


def picker(bots: list[Any]) -> Any:
    """The ``pick`` of a lockstep game: the seat to act's bot chooses."""

    def pick(step: int, state: Any, legal: list[str]) -> Optional[int]:
        bot = bots[state.current_player()]
        if isinstance(bot, RandomBot):
            return bot.rng.randrange(len(legal))
        choice = bot.act(state.observation(state.current_player()), list(legal))
        return legal.index(choice) if choice in legal else 0

    return pick
