"""The ``cardref`` command: tournament, replay, report and bench.

Exit codes: 0 success, 1 a run that did not succeed (a replay that does not
reproduce, a tournament stopped by the failure policy), 2 a config or usage
error (a message, never a traceback), 130 interrupted. Output cut short by its
reader (``cardref replay ... --steps | head``) ends the command quietly with 1.
"""

from __future__ import annotations

import argparse
import functools
import os
import signal
import sqlite3
import sys
import threading
import time
from pathlib import Path
from typing import Any, Callable, Optional

FORMATS = ("md", "csv", "json", "html")


class UsageError(Exception):
    """A problem with the command line or its files, reported with exit code 2."""


def _parser() -> argparse.ArgumentParser:
    from . import cluster

    parser = argparse.ArgumentParser(prog="cardref",
                                     description=__doc__.split("\n")[0].replace("``", ""))
    parser.add_argument("--version", action="version", version=_version(),
                        help="print the package version and the engine's build id")
    sub = parser.add_subparsers(dest="command", required=True)
    t = sub.add_parser("tournament", help="play (or resume) a tournament from a TOML config")
    t.add_argument("config", type=Path, help="the tournament's TOML file (docs/tournaments.md)")
    t.add_argument("--restart", "--fresh", action="store_true",
                   help="discard the results file's games and start over")
    t.add_argument("--workers", type=int, help="worker processes (default: config, else cores)")
    t.add_argument("--quiet", action="store_true", help="no progress display")
    t.add_argument("--deal-groups", type=int, help="override deal_groups (e.g. a smoke test)")
    t.add_argument("--output", type=Path, help="override the results file")
    cluster.add_arguments(t)
    r = sub.add_parser("replay", help="re-play a stored game and check its result")
    r.add_argument("file", type=Path, help="a tournament's results file (.sqlite)")
    r.add_argument("game", help="the game's key, e.g. g0-alice,bob-s1")
    r.add_argument("--steps", action="store_true", help="show every action")
    r.add_argument("--seat", type=int, metavar="N",
                   help="show each observation seat N was sent, its legal actions and its answer")
    r.add_argument("--html", type=Path, metavar="OUT.html",
                   help="also write the game as a page to step through (one self-contained file)")
    r.add_argument("--force", action="store_true",
                   help="replay even a game whose deal is still to be played by other seatings "
                   "(organisers only: it reveals that deal)")
    p = sub.add_parser("report", help="publish a results file")
    p.add_argument("file", type=Path, help="a tournament's results file (.sqlite)")
    p.add_argument("--format", choices=FORMATS, default="md", help="output format (default: md)")
    p.add_argument("-o", "--output", type=Path, help="write here instead of stdout")
    p.add_argument("--no-tracebacks", action="store_true",
                   help="leave the bots' tracebacks out (they show source lines)")
    sub.add_parser("bench", help="engine speed; with --referee the referee's overhead "
                   "(cardref bench --help)", add_help=False)
    from . import localmatch, play
    from .analysis.command import add_parser as analyze_parser
    from .verify.command import add_parsers as verify_parsers

    localmatch.add_arguments(sub.add_parser(
        "match", help="play bots against each other here, no sandbox (the edit-run loop)",
        description=localmatch.__doc__.split("\n")[0]))
    play.add_arguments(sub.add_parser(
        "play", help="take a seat yourself against bots, in the terminal",
        description=play.__doc__.split("\n")[0]))
    verify_parsers(sub)
    analyze_parser(sub)
    return parser


def _version() -> str:
    from .version import version_text

    return version_text()


def _quiet_on_broken_pipe(run: Callable[[Optional[list[str]]], int]) -> Callable[..., int]:
    """Stop quietly when the reader of our output goes away (``| head``), as other
    command-line tools do, instead of a traceback (and a second one when Python
    flushes standard output at exit): the rest of the output goes to devnull."""

    @functools.wraps(run)
    def guarded(argv: Optional[list[str]] = None) -> int:
        try:
            try:
                return run(argv)
            finally:
                sys.stdout.flush()
        except BrokenPipeError:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return 1

    return guarded


@_quiet_on_broken_pipe
def main(argv: Optional[list[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["bench"]:
        return _bench(argv[1:])
    args = _parser().parse_args(argv)
    if args.command in ("verify", "scenario"):
        from .verify import command

        return command.run(args)
    if args.command == "analyze":
        from .analysis import command as analysis

        return analysis.run(args)
    from .cluster import ClusterError
    from .localmatch import MatchError
    from .tournament.config import ConfigError
    from .tournament.store import StoreError

    try:
        if args.command == "tournament":
            return _tournament(args)
        if args.command == "replay":
            return _replay(args)
        if args.command == "match":
            from .localmatch import run

            return run(args)
        if args.command == "play":
            from .play import run as play

            return play(args)
        return _report(args)
    except (ConfigError, StoreError, UsageError, ClusterError, MatchError) as e:
        for line in str(e).splitlines():  # a config error may list several problems
            print(f"cardref {args.command}: error: {line}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as e:
        print(f"cardref {args.command}: interrupted", file=sys.stderr)
        return 143 if isinstance(e, Terminated) else 130


def _bench(argv: list[str]) -> int:
    try:
        from . import bench  # type: ignore[attr-defined]
    except ImportError:
        print("cardref bench: error: cardref.bench is not available in this build",
              file=sys.stderr)
        return 2
    return int(bench.main(argv) or 0)


class Terminated(KeyboardInterrupt):
    """SIGTERM (a service manager, ``kill``): stop as Ctrl-C does, cleanly."""


def _terminate(signum: int, frame: Any) -> None:
    raise Terminated()


def _tournament(args: argparse.Namespace) -> int:
    if threading.current_thread() is not threading.main_thread():
        return _run_tournament(args)
    previous = signal.signal(signal.SIGTERM, _terminate)
    try:
        return _run_tournament(args)
    finally:
        signal.signal(signal.SIGTERM, previous)


def _run_tournament(args: argparse.Namespace) -> int:
    from .tournament.config import load_config
    from .tournament.report import print_results
    from .tournament.stats import results as results_from_store
    from .tournament.store import Store, explain

    for flag, value in (("--deal-groups", args.deal_groups), ("--workers", args.workers)):
        if value is not None and value < 1:
            raise UsageError(f"{flag} must be at least 1, got {value}")
    config = load_config(args.config, deal_groups=args.deal_groups, output=args.output)
    console = _console()
    with Store(config.output, exclusive=True, fresh=args.restart) as store:
        try:
            code, faults = _play_tournament(args, config, store, console)
            if code is not None:
                return code
            results = results_from_store(store)
        except sqlite3.Error as e:
            raise explain(config.output, e) from None
    print_results(results, console)
    console.print(f"Results: {config.output}", markup=False, highlight=False)
    if faults is not None:
        print(f"cardref tournament: error: {faults}. No bot is blamed for them; run the "
              "same command again to play them.", file=sys.stderr)
        return 1
    return 0


def _console() -> Any:
    """The terminal, or 160 columns for a file or pipe (the standings need them)."""
    from rich.console import Console

    console = Console()
    return console if console.is_terminal else Console(width=max(console.width, 160))


def _play_tournament(args: argparse.Namespace, config: Any, store: Any,
                     console: Any) -> tuple[Optional[int], Any]:
    """Play what is left; an exit code if the run ended early, and the
    referee faults (games not stored) if any."""
    from .tournament import runner
    from .tournament.schedule import build_schedule
    from .tournament.store import StoreWriteError

    schedule = build_schedule(config)
    resuming = store.initialise(config, schedule)
    workers = args.workers or config.workers or os.cpu_count() or 1
    done = len(store.finished_keys())
    executor, where = _cluster(args, config) if args.scheduler else (
        None, f"{workers} worker(s)")
    if not args.quiet:
        _announce(config, store, console, resuming, len(schedule), done, where)
    try:
        if args.quiet:
            runner.run(config, store, workers, executor=executor, on_fault=_report_fault)
        else:
            _run_live(config, store, workers, len(schedule), done, console, executor)
    except runner.RefereeFaults as e:
        return None, e
    except runner.TournamentStopped as e:
        print(f"cardref tournament: stopped by the failure policy: {e}", file=sys.stderr)
        return 1, None
    except StoreWriteError as e:
        print(f"cardref tournament: error: {e}", file=sys.stderr)
        return 1, None
    except runner.WorkerDied as e:
        print(f"cardref tournament: error: {e}; run the same command again to resume",
              file=sys.stderr)
        return 1, None
    except KeyboardInterrupt as e:
        how = "terminated (SIGTERM)" if isinstance(e, Terminated) else "interrupted"
        print(f"cardref tournament: {how}; {len(store.finished_keys())} games are "
              "stored; run the same command again to resume", file=sys.stderr)
        return (143 if isinstance(e, Terminated) else 130), None
    finally:
        if executor is not None:
            executor.client.close()
    return None, None


def _announce(config: Any, store: Any, console: Any, resuming: bool, total: int, done: int,
              where: str) -> None:
    """What is about to be played, where, and how submitted bots are confined."""
    if store.extended:
        console.print("Extending the tournament: " + "; ".join(store.extended), markup=False)
    verb = "Resuming" if resuming else "Starting"
    console.print(f"{verb} {config.game} tournament: {total} games ({done} already played), "
                  f"{where}, results in {config.output}", markup=False, highlight=False)
    if config.submitted():
        console.print(f"Submitted bots: {config.sandbox.describe()}", markup=False,
                      style="bold yellow" if config.sandbox.mode != "bubblewrap" else None)


def _report_fault(fault: Any) -> None:
    """A referee fault, said loudly as it happens."""
    print(f"cardref tournament: REFEREE FAULT in game {fault.key} (not stored, not blamed "
          f"on any bot): {fault.message}", file=sys.stderr)


def _cluster(args: argparse.Namespace, config: Any) -> tuple[Any, str]:
    """The Dask executor of ``--scheduler``, and how to describe it."""
    from .cluster import connect_from
    from .tournament.cluster import DaskExecutor
    from .tournament.referee import TableSetup

    client = connect_from(args)
    setup = TableSetup.from_config(config)
    threads = client.nthreads()
    where = (f"a Dask cluster at {client.scheduler.address} ({len(threads)} worker(s), "
             f"{sum(threads.values())} thread(s))")
    return DaskExecutor(client, setup, one_per_group=bool(setup.isolated)), where


def _run_live(config: Any, store: Any, workers: int, total: int, done: int,
              console: Any, executor: Any = None) -> None:
    """Run with a progress bar (with ETA) and standings that update as games end."""
    from rich.console import Group
    from rich.live import Live
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn
    from rich.table import Table
    from rich.text import Text

    from .tournament import runner
    from .tournament.referee import GameRecord
    from .tournament.stats import LiveTally

    progress = Progress("[progress.description]{task.description}", BarColumn(),
                        MofNCompleteColumn(), TimeRemainingColumn(), console=console)
    task = progress.add_task("games", total=total, completed=done)
    tally = LiveTally(config.teams)
    for game in store.games():
        tally.add(game["seating"], game["placements"], game["statuses"])

    def standings() -> Table:
        table = Table(title="Live standings (no confidence intervals yet)")
        for label in ("Bot", "Seats", "Mean placement", "Wins", "Failures"):
            table.add_column(label, justify="left" if label == "Bot" else "right")
        for name, seats, place, wins, fails in tally.rows():
            shown = f"{wins:.0f}" if wins == int(wins) else f"{wins:.2f}"  # shared wins
            table.add_row(name, str(seats), f"{place:.2f}", shown, str(fails))
        return table

    test = runner.sprt_tracker(config, store)

    def view() -> Group:
        parts = [progress, standings()]
        if test is not None:  # the early-stopping test's LLR, bounds and decision
            parts.append(Text(test.status()))
        return Group(*parts)

    last = 0.0
    with Live(view(), console=console, refresh_per_second=4) as live:

        def on_game(record: GameRecord) -> None:
            nonlocal last
            tally.add(record.seating, record.placements, record.statuses)
            progress.advance(task)
            if time.monotonic() - last > 0.25:
                live.update(view())
                last = time.monotonic()

        runner.run(config, store, workers, on_game, executor=executor, tracker=test,
                   on_fault=_report_fault)
        live.update(view())
    console.print()


def _replay(args: argparse.Namespace) -> int:
    from . import replaying

    try:
        return replaying.run(args)
    except replaying.ReplayError as e:
        raise UsageError(str(e)) from None


def _report(args: argparse.Namespace) -> int:
    from .tournament.report import render
    from .tournament.stats import results as results_from_store
    from .tournament.stats import without_tracebacks
    from .tournament.store import open_existing

    with open_existing(args.file) as store:
        results = results_from_store(store)
    if args.no_tracebacks:
        results = without_tracebacks(results)
    text = render(results, args.format)
    if args.output is None:
        sys.stdout.write(text)
    else:
        args.output.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
