"""``cardref bench``: how fast each engine plays, measured in one run.

For every game it times complete random games three ways: (a) the Rust core's
native playout loop (no Python per step), (b) Python driving the Rust core step
by step with ``legal_actions()`` + ``apply()``, and (c) the Python reference
engine; then prints the per-action costs and the ratios between them. It is a
measurement, never a pass/fail test.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Optional

from rich.console import Console
from rich.table import Table

import cardref

#: A typical table size per game, used unless --players is given.
DEFAULT_PLAYERS = {"take5": 4, "five_alive": 4, "back_alley": 4, "twenty_two": 4, "hundred": 5}


@dataclass
class Rate:
    """Games and actions played in a measured time."""

    games: int
    actions: int
    seconds: float

    @property
    def ns_per_action(self) -> float:
        return 1e9 * self.seconds / max(self.actions, 1)

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds if self.seconds else float("inf")


def native(game: Any, budget: float, seed: int) -> Rate:
    """(a) The Rust core's own random-playout loop, grown until it fills the budget."""
    games, total = 1, Rate(0, 0, 0.0)
    while total.seconds < budget:
        played, actions, seconds = game.random_playouts(games, seed + total.games)
        total = Rate(total.games + played, total.actions + actions, total.seconds + seconds)
        games *= 2
    return total


def stepped(game: Any, budget: float, seed: int) -> Rate:
    """(b)/(c) Python drives a state step by step: legal_actions + apply."""
    pick = random.Random(seed).random
    games = actions = 0
    start = time.perf_counter()
    while time.perf_counter() - start < budget or games == 0:
        state = game.new_state(seed=seed + games)
        while not state.is_terminal():
            legal = state.legal_actions()
            state.apply(legal[int(pick() * len(legal))])
            actions += 1
        games += 1
    return Rate(games, actions, time.perf_counter() - start)


def measure(game_id: str, players: int, budget: float, seed: int) -> dict[str, Rate]:
    rust = cardref.load(game_id, players, engine="rust")
    reference = cardref.load(game_id, players, engine="reference")
    return {
        "native": native(rust, budget, seed),
        "python_rust": stepped(rust, budget, seed),
        "reference": stepped(reference, budget, seed),
    }


def state_size(game_id: str, players: int) -> int:
    """Bytes of a fresh state's canonical JSON (the in-memory Rust state is smaller)."""
    return len(cardref.load(game_id, players).new_state(seed=0).to_json())


def render(results: dict[str, dict[str, Rate]], players: dict[str, int], console: Console) -> None:
    table = Table(title="cardref bench: random games (one thread)")
    for column in ("game", "players", "native ns/action", "native games/s",
                   "py→rust ns/step", "reference ns/step", "py→rust ÷ native",
                   "reference ÷ native", "reference ÷ py→rust"):
        table.add_column(column, justify="right" if column != "game" else "left")
    for game_id, r in results.items():
        n, p, ref = r["native"], r["python_rust"], r["reference"]
        table.add_row(
            game_id, str(players[game_id]),
            f"{n.ns_per_action:,.0f}", f"{n.games_per_second:,.0f}",
            f"{p.ns_per_action:,.0f}", f"{ref.ns_per_action:,.0f}",
            f"{p.ns_per_action / n.ns_per_action:,.1f}×",
            f"{ref.ns_per_action / n.ns_per_action:,.0f}×",
            f"{ref.ns_per_action / p.ns_per_action:,.1f}×",
        )
    console.print(table)


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="cardref bench", description=__doc__.split("\n\n")[0])
    parser.add_argument("games", nargs="*", help="game ids (default: every game)")
    parser.add_argument("--players", type=int, help="seats per table (default: per game)")
    parser.add_argument("--seconds", type=float, default=1.0,
                        help="time budget per measurement (default 1.0)")
    parser.add_argument("--seed", type=int, default=0, help="first game seed (default 0)")
    args = parser.parse_args(argv)
    # Piped output gets a wide console so the ratio columns are never truncated.
    console = Console() if sys.stdout.isatty() else Console(width=160)
    ids = args.games or cardref.games()
    unknown = [g for g in ids if g not in cardref.games()]
    if unknown:
        console.print(f"[red]unknown game {unknown[0]!r}; available: {', '.join(cardref.games())}")
        return 2
    players = {g: args.players or DEFAULT_PLAYERS.get(g, 4) for g in ids}
    results = {}
    for game_id in ids:
        with console.status(f"measuring {game_id}…"):
            results[game_id] = measure(game_id, players[game_id], args.seconds, args.seed)
    render(results, players, console)
    for game_id in ids:
        size = state_size(game_id, players[game_id])
        console.print(f"{game_id}: state JSON {size:,} bytes at the deal")
    return 0


if __name__ == "__main__":
    sys.exit(main())
