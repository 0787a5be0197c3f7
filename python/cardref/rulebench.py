"""``cardref bench --verify`` and ``cardref bench --analyze``: how many games
rule verification and rule analytics get through per second, per game.

``--verify`` plays games in lockstep on both engines with every invariant
checked, as ``cardref verify`` does (one core: the Python reference sets the
pace). ``--analyze`` plays native games as ``cardref analyze`` does, on every
core: random bots with the rule points counted and without (what counting
costs), and heuristic bots. A measurement, never a pass/fail test.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from typing import Any, Optional

from rich.console import Console
from rich.table import Table

import cardref

from . import registry


def verified_rate(game_id: str, players: int, seconds: float, seed: int) -> dict[str, float]:
    """Lockstep games with random bots for about ``seconds``."""
    from .verify.command import VerifyRun

    run = VerifyRun(game_id, players, {}, seed, ["random"] * players)
    found = run.play(None, seconds, None)
    if found is not None:
        raise RuntimeError(f"{game_id}: verify found a problem: {found[1].finding}")
    return {"games": run.games, "actions": run.actions, "seconds": run.seconds}


def analysed_rate(game_id: str, players: int, bots: str, points: bool, seconds: float,
                  seed: int, threads: Optional[int]) -> dict[str, float]:
    """Native analysis batches, doubling until a batch takes a fifth of the budget."""
    game = cardref.load(game_id, players)
    names = [bots] * players
    games, start, total = 1000, 0, {"games": 0, "actions": 0, "seconds": 0.0}
    while total["seconds"] < seconds:
        r = game.analyse(names, start, games, seed=seed, threads=threads, rule_points=points)
        start += games
        for key in ("games", "actions", "seconds"):
            total[key] += r[key]
        if r["seconds"] < seconds / 5:
            games *= 2
    return total


def _rate(r: dict[str, float], key: str = "games") -> str:
    if not r["seconds"]:
        return "–"
    rate = r[key] / r["seconds"]
    return f"{rate:,.1f}" if rate < 100 else f"{rate:,.0f}"


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="cardref bench",
                                     description=__doc__.split("\n\n")[0].replace("``", ""))
    parser.add_argument("games", nargs="*", help="game ids (default: every game)")
    which = parser.add_mutually_exclusive_group(required=True)
    which.add_argument("--verify", action="store_true", help="lockstep-verified games/s")
    which.add_argument("--analyze", action="store_true", help="native analysed games/s")
    parser.add_argument("--seconds", type=float, default=3.0,
                        help="time budget per measurement (default 3)")
    parser.add_argument("--threads", type=int, help="--analyze threads (default: every core)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    console = Console() if os.isatty(1) else Console(width=160)
    ids = args.games or cardref.games()
    unknown = [g for g in ids if g not in cardref.games()]
    if unknown:
        console.print(f"[red]unknown game {unknown[0]!r}; available: {', '.join(cardref.games())}")
        return 2
    table = Table(title=("Lockstep-verified games per second (one core, random bots, every "
                         "invariant)" if args.verify else
                         f"Native analysed games per second ({args.threads or os.cpu_count()} "
                         "threads)"))
    columns: list[str]
    if args.verify:
        columns = ["game", "players", "games", "actions", "games/s", "actions/s", "ms/action"]
    else:
        columns = ["game", "players", "random, points counted", "random, not counted",
                   "counting adds", "heuristic, points counted"]
    for c in columns:
        table.add_column(c, justify="left" if c == "game" else "right")
    for game_id in ids:
        players = registry.spec(game_id).default_players
        with console.status(f"measuring {game_id}…"):
            table.add_row(*_row(game_id, players, args))
    console.print(table)
    return 0


def _row(game_id: str, players: int, args: Any) -> list[str]:
    if args.verify:
        r = verified_rate(game_id, players, args.seconds, args.seed)
        ms = 1000 * r["seconds"] / max(r["actions"], 1)
        return [game_id, str(players), f"{r['games']:,}", f"{r['actions']:,}", _rate(r),
                _rate(r, "actions"), f"{ms:.2f}"]
    counted = analysed_rate(game_id, players, "random", True, args.seconds, args.seed,
                            args.threads)
    plain = analysed_rate(game_id, players, "random", False, args.seconds, args.seed,
                          args.threads)
    cost = (plain["games"] / plain["seconds"]) / (counted["games"] / counted["seconds"]) - 1
    cells = [game_id, str(players), _rate(counted), _rate(plain), f"{100 * cost:+.0f}%"]
    if registry.spec(game_id).heuristic:
        cells.append(_rate(analysed_rate(game_id, players, "heuristic", True, args.seconds,
                                         args.seed, args.threads)))
    else:
        cells.append("–")
    return cells
