"""``cardref analyze``: a game designer's figures from many native games
(docs/verify.md). ``add_parser`` registers it with the ``cardref`` command;
``run`` carries it out: exit 0, or 2 for bad input, 130 if interrupted."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, Optional

COMMAND = "analyze"


def add_parser(sub: Any) -> None:
    from .. import cluster

    a = sub.add_parser(COMMAND, help="seat advantage, game length, scores, rule points and "
                       "how much skill matters, from many native games")
    a.add_argument("game", help="a game id (cardref.games())")
    a.add_argument("--players", type=int, help="seats (default: the game's typical table)")
    a.add_argument("--variant", action="append", default=[], metavar="KEY=VALUE",
                   help="a variant key of the rule book's §8 (repeatable)")
    a.add_argument("--bots", help="built-in bots, one per seat or repeated round the table "
                   "(default: heuristic where the game has one, else random)")
    a.add_argument("--games", type=int, default=100_000, help="games (default 100,000)")
    a.add_argument("--skill-games", type=int, metavar="N",
                   help="games for the skill measure, each seat's bot drawn from heuristic "
                        "and random (default: as many as --games; 0: none)")
    a.add_argument("--compare", action="append", default=[], metavar="KEY=VALUE",
                   help="a variant key to put beside the base game (repeatable: one variant)")
    a.add_argument("--seed", type=int, default=0, help="the run's seed (default 0)")
    a.add_argument("--threads", type=int, help="threads (default: every core)")
    cluster.add_arguments(a)
    a.add_argument("--json", type=Path, metavar="FILE", help="write every figure as JSON")
    a.add_argument("--html", type=Path, metavar="FILE", help="write a page with plots")
    a.add_argument("--quiet", action="store_true", help="no progress bar")


class UsageError(Exception):
    """Bad input, reported in one line with exit code 2."""


def run(args: argparse.Namespace) -> int:
    from ..bots import BotLoadError
    from ..cluster import ClusterError
    from ..verify.table import TableError

    try:
        return _analyze(args)
    except (UsageError, TableError, BotLoadError, ClusterError) as e:
        print(f"cardref analyze: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("cardref analyze: interrupted", file=sys.stderr)
        return 130


def _checked(args: argparse.Namespace) -> tuple[int, dict[str, Any], list[str],
                                                 Optional[dict[str, Any]], int]:
    """Players, variant, bots, the compared variant and the skill games, all checked."""
    import cardref

    from .. import registry
    from ..bots.names import parse_bots
    from ..verify.table import check_table, parse_variant

    for name, value, least in (("--games", args.games, 1), ("--threads", args.threads, 1),
                               ("--skill-games", args.skill_games, 0)):
        if value is not None and value < least:
            raise UsageError(f"{name} must be at least {least}, got {value}")
    if not 0 <= args.seed < 1 << 64:
        raise UsageError(f"--seed must be from 0 to 2**64 - 1, got {args.seed}")
    variant = parse_variant(args.variant)
    players = check_table(args.game, args.players, variant, ("rust",))
    spec = registry.spec(args.game)
    bots = parse_bots(args.bots or ("heuristic" if spec.heuristic else "random"), args.game,
                      players)
    compared = None
    if args.compare:
        change = parse_variant(args.compare)
        compared = {**variant, **change}
        check_table(args.game, players, compared, ("rust",))
        same = cardref.load(args.game, players, **compared).params == cardref.load(
            args.game, players, **variant).params
        if same:
            raise UsageError(f"--compare {' '.join(args.compare)} is the base game itself")
    skill = args.games if args.skill_games is None else args.skill_games
    if not spec.heuristic:
        skill = 0  # nothing to tell random play from
    return players, variant, bots, compared, skill


def _analyze(args: argparse.Namespace) -> int:
    players, variant, bots, compared, skill_games = _checked(args)
    client = None
    if args.scheduler:
        from ..cluster import connect_from

        client = connect_from(args)
    try:
        return _report(args, players, variant, bots, compared, skill_games, client)
    finally:
        if client is not None:
            client.close()


def _report(args: argparse.Namespace, players: int, variant: dict[str, Any], bots: list[str],
            compared: Optional[dict[str, Any]], skill_games: int, client: Any) -> int:
    """Plays the runs (here or on ``client``'s cluster) and writes every figure."""
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )

    from . import run as runs
    from . import summary, terminal

    console = Console()
    if not console.is_terminal:
        console = Console(width=max(console.width, 120))
    configs = [variant] + ([compared] if compared is not None else [])
    total = len(configs) * (args.games + skill_games)
    progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                        TextColumn("games"), TimeRemainingColumn(), console=console,
                        disable=args.quiet, transient=True)
    results = []
    with progress:
        task = progress.add_task(f"analyze {args.game}", total=total)

        def advance(games: int) -> None:
            progress.advance(task, games)

        for config in configs:
            main = runs.analyse(args.game, players, config, bots, args.games, args.seed,
                                args.threads, rule_points=True, progress=advance,
                                client=client)
            skill = None
            if skill_games:
                skill = runs.analyse(args.game, players, config, ["heuristic", "random"],
                                     skill_games, args.seed, args.threads, mixed=True,
                                     progress=advance, client=client)
            results.append(summary.summarize(args.game, config, main, skill))
    comparison = None
    if compared is not None:
        comparison = {"label": "with " + ", ".join(args.compare), "variant": compared,
                      "result": results[1],
                      "differences": summary.differences(results[0], results[1])}
    terminal.render(results[0], console, comparison)
    output = {**results[0], "compare": comparison}
    if args.json:
        args.json.write_text(json.dumps(output, indent=2, sort_keys=True) + "\n",
                             encoding="utf-8")
        console.print(f"JSON: {args.json}", highlight=False)
    if args.html:
        from .htmlpage import page

        args.html.write_text(page(output), encoding="utf-8")
        console.print(f"HTML: {args.html}", highlight=False)
    return 0
