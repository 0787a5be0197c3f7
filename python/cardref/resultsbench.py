"""``cardref bench --results``: how long the results of a big tournament take
to compute, and how many bytes each game takes in the results file.

It writes the results file of a 6-bot Take 5 round robin, 4 per table
(60 games per deal group), with ``--games`` games (default 100,000). The
games are really played, by the Rust core's native ``heuristic`` and
``random`` bots (``simulate``) on the deal of each deal group, and stored as
a tournament stores them. Only the first ``--with-actions`` games carry
their action rows: the statistics never read them, and they give the bytes
per game (the file's growth per stored game). Then, on one core, it times
what an organiser waits for: reading the games, every statistic, ``cardref
report`` (Markdown) and the final table a tournament prints. A measurement,
never a pass/fail test.
"""

from __future__ import annotations

import argparse
import io
import os
import random
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, Callable, Optional

from rich.console import Console
from rich.table import Table

import cardref

from .tournament import stats
from .tournament.config import Config, load_config
from .tournament.referee import GameRecord
from .tournament.report import print_results, render
from .tournament.schedule import ScheduledGame, build_schedule
from .tournament.store import Store

#: The field: bot name -> the native bot that plays it.
FIELD = {"heuristic": "heuristic", "heuristic-2": "heuristic", "heuristic-3": "heuristic",
         "random": "random", "random-2": "random", "random-3": "random"}

CONFIG = """game = "take5"
players = 4
seed = 2026
deal_groups = {groups}
output = "bench.sqlite"
[variant]
end_score = 66
"""


def bench_config(directory: Path, games: int) -> Config:
    """The benchmark's tournament, with enough deal groups for ``games`` games."""
    bots = "".join(f'[[bots]]\nname = "{name}"\nbuiltin = "{kind}"\n'
                   for name, kind in FIELD.items())
    path = directory / "bench.toml"
    path.write_text(CONFIG.format(groups=1) + bots)
    per_group = len(build_schedule(load_config(path)))
    path.write_text(CONFIG.format(groups=max(1, -(-games // per_group))) + bots)
    return load_config(path)


def played(config: Config, schedule: list[ScheduledGame]) -> Iterator[GameRecord]:
    """Every scheduled game played by native bots, one seating at a time
    (``simulate``'s game i is dealt as deal group i)."""
    game = cardref.load(config.game, config.players, **config.params)
    groups = config.deal_groups
    by_seating: dict[tuple[str, ...], list[ScheduledGame]] = {}
    for scheduled in schedule:
        by_seating.setdefault(scheduled.seating, []).append(scheduled)
    for seating, games in by_seating.items():
        out = game.simulate([FIELD[name] for name in seating], groups, config.seed,
                            records=True)
        for scheduled, rec in zip(games, out["records"]):
            assert rec["seed"] == scheduled.seed, "simulate deals differently from the schedule"
            yield GameRecord(
                key=scheduled.key, seed=scheduled.seed, seating=list(seating),
                statuses=["ok"] * len(seating), messages=[None] * len(seating),
                engine_placements=list(rec["placements"]), placements=list(rec["placements"]),
                scores=list(rec["scores"]), actions=_actions(game, rec), seconds=0.05)


_TIMINGS = random.Random(0)


def _actions(game: Any, rec: dict[str, Any]) -> list[tuple[int, str, str, float]]:
    """The game's action rows (seat from a replay, a bot-like time per action)."""
    state = game.new_state(seed=rec["seed"])
    rows = []
    for action in rec["actions"]:
        rows.append((state.current_player(), "bot", action, _TIMINGS.uniform(2e-5, 2e-4)))
        state.apply(action)
    return rows


def write_results(directory: Path, games: int, with_actions: int) -> tuple[Path, float]:
    """The benchmark's results file, and the bytes per stored game (with actions)."""
    config = bench_config(directory, games)
    schedule = build_schedule(config)[:games]
    with Store(config.output) as store:
        store.initialise(config, schedule)
        records = played(config, schedule)
        store.checkpoint()
        before = _size(config.output)
        sample = [next(records) for _ in range(min(with_actions, len(schedule)))]
        store.save_games(sample)
        store.checkpoint()
        per_game = (_size(config.output) - before) / max(1, len(sample))
        batch: list[GameRecord] = []
        for record in records:
            record.actions = []
            batch.append(record)
            if len(batch) == 5000:
                store.save_games(batch)
                batch = []
        store.save_games(batch)
        store.checkpoint()
    return config.output, per_game


def _size(path: Path) -> int:
    return sum(Path(str(path) + s).stat().st_size for s in ("", "-wal")
               if Path(str(path) + s).exists())


def timed(step: Callable[[], Any]) -> tuple[float, float, Any]:
    """Wall and CPU seconds of ``step()``, and its value."""
    wall, cpu = time.perf_counter(), time.process_time()
    value = step()
    return time.perf_counter() - wall, time.process_time() - cpu, value


def measure(path: Path) -> list[tuple[str, float, float]]:
    """(what, wall s, CPU s) of each step an organiser waits for."""
    rows = []
    with Store(path) as store:
        wall, cpu, games = timed(store.games)
        rows.append((f"read {len(games):,} games", wall, cpu))
        wall, cpu, results = timed(lambda: stats.results(store))
        rows.append(("every statistic (stats.results, reading included)", wall, cpu))
    wall, cpu, _ = timed(lambda: render(results, "md"))
    rows.append(("render the Markdown report", wall, cpu))
    console = Console(file=io.StringIO(), width=120)
    w2, c2, _ = timed(lambda: print_results(results, console))
    rows.append(("print the final table", w2, c2))
    total = rows[1]
    rows.append(("cardref report (statistics + Markdown)", total[1] + wall, total[2] + cpu))
    rows.append(("a tournament's final table (statistics + table)", total[1] + w2,
                 total[2] + c2))
    return rows


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="cardref bench --results",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--results", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--games", type=int, default=100_000,
                        help="games in the results file (default 100,000)")
    parser.add_argument("--with-actions", type=int, default=1000,
                        help="games stored with their actions, for bytes per game "
                             "(default 1,000)")
    parser.add_argument("--file", type=Path,
                        help="time this results file instead of writing one")
    parser.add_argument("--keep", type=Path,
                        help="write the benchmark's results file here and keep it")
    args = parser.parse_args(argv)
    console = Console()
    with tempfile.TemporaryDirectory() as tmp:
        per_game: Optional[float] = None
        path = args.file
        if path is None:
            directory = args.keep or Path(tmp)
            directory.mkdir(parents=True, exist_ok=True)
            with console.status(f"playing and storing {args.games:,} games…"):
                path, per_game = write_results(directory, args.games, args.with_actions)
        with console.status("timing the results…"):
            rows = measure(path)
    table = Table(title=f"cardref bench --results: {path.name}")
    for column in ("step", "wall s", "CPU s"):
        table.add_column(column, justify="left" if column == "step" else "right")
    for what, wall, cpu in rows:
        table.add_row(what, f"{wall:.2f}", f"{cpu:.2f}")
    console.print(table)
    if per_game is not None:
        console.print(f"stored bytes per game (with its actions): {per_game:,.0f}")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    console.print(f"one core; load average {load:.2f} on {os.cpu_count()} cores")
    return 0
