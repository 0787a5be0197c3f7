"""``cardref verify`` and ``cardref scenario``: the command lines of rule
verification (docs/verify.md). ``add_parsers`` registers them with the
``cardref`` command; ``run`` carries one out and returns its exit code:
0 all held, 1 a finding or a failing scenario, 2 bad input."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any, Optional

COMMANDS = ("verify", "scenario")


class UsageError(Exception):
    """Bad input, reported in one line with exit code 2."""


def add_parsers(sub: Any) -> None:
    v = sub.add_parser("verify", help="play both engines in lockstep, checking every "
                       "invariant; shrink a failure to a scenario file")
    v.add_argument("game", help="a game id (cardref.games())")
    v.add_argument("--players", type=int, help="seats (default: the game's typical table)")
    v.add_argument("--variant", action="append", default=[], metavar="KEY=VALUE",
                   help="a variant key of the rule book's §8 (repeatable), e.g. end_score=40")
    amount = v.add_mutually_exclusive_group()
    amount.add_argument("--games", type=int, help="games to play (default 100)")
    amount.add_argument("--seconds", type=float, help="play until this much time has passed")
    v.add_argument("--seed", type=int, default=0, help="the run's seed (default 0)")
    v.add_argument("--bots", default="random",
                   help="built-in bots choosing the actions, one per seat or repeated round "
                        "the table (default: random)")
    v.add_argument("-o", "--output", type=Path,
                   help="where a failure's scenario file goes (default: "
                        "verify-GAME-SEED-GAMENUMBER.toml here)")
    v.add_argument("--shrink-replays", type=int, default=400, metavar="N",
                   help="replays spent shrinking a failure (default 400; 0: no shrinking)")
    v.add_argument("--json", type=Path, metavar="FILE", help="also write the summary as JSON")
    v.add_argument("--quiet", action="store_true", help="no progress bar")
    s = sub.add_parser("scenario", help="check scenario files against both engines, or "
                       "start a new one")
    ssub = s.add_subparsers(dest="action", required=True)
    c = ssub.add_parser("check", help="replay scenario files on both engines")
    c.add_argument("paths", nargs="+", type=Path, help="scenario files or folders of them")
    n = ssub.add_parser("new", help="write a scenario file with the engines' current values")
    n.add_argument("game", help="a game id")
    n.add_argument("--players", type=int, help="seats (default: the game's typical table)")
    n.add_argument("--variant", action="append", default=[], metavar="KEY=VALUE")
    n.add_argument("--seed", type=int, default=0, help="the game's seed (default 0)")
    n.add_argument("--deck", help="the first deal, top card first, separated by spaces or "
                   "commas (default: the seed's shuffle)")
    n.add_argument("--do", action="append", default=[], metavar="ACTION", dest="actions",
                   help="an action to play, e.g. --do 'play 57' (repeatable, in order)")
    n.add_argument("--each", action="store_true",
                   help="a step with expectations after every action, not only the last")
    n.add_argument("--title", help="the file's title (default: what was played)")
    n.add_argument("-o", "--output", type=Path, required=True, help="the file to write")


def run(args: argparse.Namespace) -> int:
    from ..bots import BotLoadError
    from .scenarios import ScenarioError
    from .table import TableError

    try:
        if args.command == "verify":
            return _verify(args)
        if args.action == "check":
            return _check(args)
        return _new(args)
    except (UsageError, TableError, BotLoadError, ScenarioError, FileExistsError) as e:
        print(f"cardref {args.command}: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"cardref {args.command}: interrupted", file=sys.stderr)
        return 130


def _console() -> Any:
    """The terminal's console; a wide one when the output is piped, so that
    tables are not squeezed."""
    from rich.console import Console

    console = Console()
    return console if console.is_terminal else Console(width=max(console.width, 120))


# cardref verify ---------------------------------------------------------------------


def _verify(args: argparse.Namespace) -> int:
    from ..bots.names import parse_bots
    from .table import check_table, parse_variant

    if args.games is not None and args.games < 1:
        raise UsageError(f"--games must be at least 1, got {args.games}")
    if args.seconds is not None and args.seconds <= 0:
        raise UsageError(f"--seconds must be positive, got {args.seconds}")
    if not 0 <= args.seed < 1 << 64:
        raise UsageError(f"--seed must be from 0 to 2**64 - 1, got {args.seed}")
    variant = parse_variant(args.variant)
    players = check_table(args.game, args.players, variant)
    bots = parse_bots(args.bots, args.game, players)
    console = _console()
    run = VerifyRun(args.game, players, variant, args.seed, bots)
    games = args.games if args.games is not None or args.seconds is not None else 100
    found = run.play(games, args.seconds, None if args.quiet else console)
    summary = run.summary()
    print_summary(summary, console)
    if args.json:
        args.json.write_text(json.dumps(summary, indent=2, sort_keys=True) + "\n",
                             encoding="utf-8")
    if found is None:
        return 0
    return _report_finding(args, run, found, console)


class VerifyRun:
    """Games played in lockstep one after another, their totals, the first finding."""

    def __init__(self, game_id: str, players: int, variant: dict[str, Any], seed: int,
                 bots: list[str]) -> None:
        self.game_id, self.players, self.variant, self.seed = game_id, players, variant, seed
        self.bots = bots
        self.games = 0
        self.actions = 0
        self.seconds = 0.0
        self.fired: Counter = Counter()
        self.reached: Counter = Counter()
        self.finished_games = 0

    def table(self, index: int) -> Any:
        from .players import game_seed
        from .table import Table

        return Table(self.game_id, self.players, dict(self.variant), game_seed(self.seed, index))

    def play(self, games: Optional[int], seconds: Optional[float], console: Any) -> Any:
        """Plays until ``games`` are done or ``seconds`` have passed, or until
        the first finding, which it returns (with the game's index)."""
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        from .lockstep import Lockstep
        from .players import picker, seat_bots

        columns = [TextColumn("[progress.description]{task.description}"), BarColumn(),
                   MofNCompleteColumn(), TextColumn("{task.fields[actions]:,} actions"),
                   TimeElapsedColumn() if games is None else TimeRemainingColumn()]
        progress = Progress(*columns, console=console, disable=console is None, transient=True)
        start = time.monotonic()
        with progress:
            task = progress.add_task(f"verify {self.game_id}", total=games, actions=0)
            index = 0
            while (games is None or index < games) and (
                    seconds is None or time.monotonic() - start < seconds):
                table = self.table(index)
                played = Lockstep(table).play(picker(seat_bots(self.bots, table)))
                self.games += 1
                self.actions += len(played.actions)
                self.finished_games += played.finished
                self.fired.update(played.points)
                self.reached.update(played.points.keys())
                self.seconds = time.monotonic() - start
                progress.update(task, advance=1, actions=self.actions)
                if played.finding is not None:
                    return index, played
                index += 1
        self.seconds = time.monotonic() - start
        return None

    def summary(self) -> dict[str, Any]:
        """Games, actions, speed, and every rule point with how often it fired."""
        from .lockstep import rule_points_of

        points = [{"id": pid, "clause": clause, "fired": self.fired[pid],
                   "games": self.reached[pid]}
                  for pid, clause in rule_points_of(self.game_id).items()]
        return {"game": self.game_id, "players": self.players, "variant": self.variant,
                "seed": self.seed, "bots": self.bots, "games": self.games,
                "actions": self.actions, "seconds": round(self.seconds, 3),
                "games_per_second": round(self.games / self.seconds, 2) if self.seconds else None,
                "rule_points": points,
                "never_fired": [p["id"] for p in points if p["fired"] == 0]}


def print_summary(summary: dict[str, Any], console: Any) -> None:
    """The run's totals and its rule coverage: every point, how often it fired,
    in how many games; the ones random play never reached stand out."""
    from rich.table import Table as RichTable

    games = summary["games"]
    speed = summary["games_per_second"]
    console.print(f"{summary['game']}, {summary['players']} players"
                  + (f", variant {summary['variant']}" if summary["variant"] else "")
                  + f": {games} games, {summary['actions']:,} actions in "
                  f"{summary['seconds']:.1f} s" + (f" ({speed:.1f} games/s)" if speed else ""),
                  markup=False, highlight=False)
    table = RichTable(title="Rule coverage: how often each rule point fired")
    for label, justify in (("point", "left"), ("fired", "right"), ("games", "right"),
                           ("clause", "left")):
        table.add_column(label, justify=justify)
    for p in summary["rule_points"]:
        style = "red" if p["fired"] == 0 else "yellow" if p["games"] * 20 < games else None
        share = f"{p['games']} ({100 * p['games'] / games:.0f}%)" if games else "0"
        table.add_row(p["id"], f"{p['fired']:,}", share, p["clause"], style=style)
    console.print(table)
    never = summary["never_fired"]
    total = len(summary["rule_points"])
    console.print(f"Rule points reached: {total - len(never)} of {total}"
                  + (f"; never: {', '.join(never)}" if never else ""),
                  markup=False, highlight=False)


def _report_finding(args: argparse.Namespace, run: VerifyRun, found: Any, console: Any) -> int:
    from . import report
    from .shrink import shrink

    index, played = found
    finding = played.finding
    console.print(f"[bold red]FAILURE[/] in game {index} (seed {played.table.seed}): "
                  f"{finding.headline()}", highlight=False)
    before = finding.step
    if args.shrink_replays > 0:
        with console.status("shrinking") as status:
            def progress(replays: int, actions: int) -> None:
                status.update(f"shrinking: {replays} replays, {actions} actions")

            played = shrink(played.table, played, args.shrink_replays, progress)
    origin = f"game {index} of the run, shrunk from {before} to {played.finding.step} actions"
    command = " ".join(["cardref verify", run.game_id, "--players", str(run.players),
                        *[f"--variant {item}" for item in args.variant],
                        "--seed", str(run.seed), "--bots", ",".join(run.bots)])
    path = args.output or Path(f"verify-{run.game_id}-{run.seed}-{index}.toml")
    report.write(path, report.finding_scenario(played, command, origin))
    console.print(f"Shrunk to {played.finding.step} actions: {played.finding}",
                  markup=False, highlight=False)
    console.print(f"In Python: {played.table.repro(played.actions[:played.finding.step])}",
                  markup=False, highlight=False, soft_wrap=True)
    console.print(f"Scenario written to {path} (undecided until the right value is "
                  "written in it; docs/scenarios.md)", markup=False, highlight=False)
    return 1


# cardref scenario ---------------------------------------------------------------------


def _check(args: argparse.Namespace) -> int:
    import cardref

    from . import scenarios

    console = _console()
    paths = scenarios.scenario_paths(args.paths)
    if not paths:
        raise UsageError(f"no .toml files in {', '.join(map(str, args.paths))}")
    failed = undecided = 0
    for path in paths:
        try:
            doc = scenarios.load(path)
        except scenarios.ScenarioError as e:
            failed += 1
            console.print(f"[red]ERROR[/]     {e}", highlight=False)
            continue
        engines = ["rust", "reference"] if doc["game"] in cardref.games() else ["reference"]
        try:
            fails = [f for i, engine in enumerate(engines)
                     for f in scenarios.run(doc, engine, str(path), undecided=i == 0)]
        except (KeyError, TypeError, ValueError, AttributeError) as e:
            failed += 1
            console.print(f"[red]ERROR[/]     {path}: the file does not follow "
                          f"docs/scenarios.md: {type(e).__name__}: {e}", highlight=False)
            continue
        if scenarios.is_undecided(doc):
            undecided += 1
            status = "[yellow]UNDECIDED[/]"
        elif fails:
            failed += 1
            status = "[red]FAIL[/]     "
        else:
            status = "[green]ok[/]       "
        console.print(f"{status} {path}", highlight=False, markup=True)
        for failure in fails:
            console.print(f"    {failure}", markup=False, highlight=False, soft_wrap=True)
    held = len(paths) - failed - undecided
    console.print(f"{len(paths)} files: {held} hold, {failed} fail, {undecided} undecided",
                  markup=False, highlight=False)
    return 0 if held == len(paths) else 1


def _new(args: argparse.Namespace) -> int:
    from . import report
    from .table import Table, check_table, parse_variant

    variant = parse_variant(args.variant)
    import cardref

    engines = ("rust", "reference") if args.game in cardref.games() else ("reference",)
    players = check_table(args.game, args.players, variant, engines)
    deck = None
    if args.deck:
        deck = [c for c in args.deck.replace(",", " ").split() if c]
    table = Table(args.game, players, variant, args.seed)
    title = args.title or (f"{args.game}: {len(args.actions)} actions from seed {args.seed}")
    try:
        text = report.new_scenario(table, args.actions, deck, args.each, title)
    except ValueError as e:
        raise UsageError(str(e)) from None
    report.write(args.output, text)
    print(f"wrote {args.output}: {len(args.actions)} actions; its values come from the "
          "engines and are marked undecided until worked out by hand")
    return 0
