"""Naming the bots of a command line (``--bots random,heuristic``): one
built-in bot per seat, checked against the game, in one place."""

from __future__ import annotations

from . import BUILTINS, BotLoadError, builtin_module


def parse_bots(text: str, game_id: str, players: int) -> list[str]:
    """One built-in bot name per seat from a comma-separated list: as many
    names as seats, or fewer, repeated round the table (``heuristic,random``
    on four seats is heuristic, random, heuristic, random). Every name must be
    a built-in bot the game has (``cardref.simulate`` takes the same names);
    BotLoadError says which is not."""
    names = [name.strip() for name in text.split(",")]
    if not text.strip() or "" in names:
        raise BotLoadError(f"--bots {text!r}: give bot names separated by commas, "
                           f"e.g. random,heuristic (built-in bots: {', '.join(BUILTINS)})")
    if len(names) > players:
        raise BotLoadError(f"--bots {text!r}: {len(names)} bots for {players} seats")
    for name in dict.fromkeys(names):
        builtin_module(name, game_id)  # raises BotLoadError naming the problem
    return [names[seat % len(names)] for seat in range(players)]
