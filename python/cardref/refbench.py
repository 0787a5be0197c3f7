"""``cardref bench --referee``: the referee's overhead per decision.

It records the decisions of a few random games (the state, the seat to act
and its legal actions), then replays them to one bot three ways and times
each decision, the seat's view of the state included: (a) calling the bot's
``act`` directly with ``state.observation(seat)``, (b) through the referee's
in-process seat (the SIGALRM guard), and (c) through a confined bot process
(``sandbox.BotProcess``: the observation's JSON text from the engine spliced
into the request line, the SDK's parse and reply, the line back). The bot is
the built-in random bot, whose own work is a single ``random.choice``, so
(b) − (a) and (c) − (a) are the referee's overhead. A measurement, never a
pass/fail test; the target for (c) is under 50 µs.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Callable, Optional

from rich.console import Console
from rich.table import Table

import cardref

from .bots import load_bot_class
from .tournament.sandbox import Limits, Sandbox
from .tournament.seats import InProcessSeat, ProcessSeat

#: The bot timed: the built-in random bot's file, submitted as a stranger's would be.
RANDOM_BOT = Path(__file__).parent / "bots" / "random.py"


def decisions(game_id: str, players: int, count: int, seed: int) -> list[tuple[Any, int, list]]:
    """(state, seat to act, legal actions) of ``count`` decisions of random games."""
    game = cardref.load(game_id, players)
    out: list[tuple[Any, int, list]] = []
    import random

    pick = random.Random(seed)
    while len(out) < count:
        state = game.new_state(seed=seed + len(out))
        while not state.is_terminal() and len(out) < count:
            seat = state.current_player()
            legal = list(state.legal_actions())
            out.append((state.clone(), seat, legal))
            state.apply(pick.choice(legal))
    return out


def _cpu_of(pid: Optional[int]) -> float:
    """CPU seconds (user + system) used so far by process ``pid`` (Linux)."""
    if pid is None:
        return 0.0
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return float("nan")


def _time(act: Callable[[Any, int, list], Any], recorded: list[tuple[Any, int, list]],
          rounds: int, pid: Optional[int] = None) -> tuple[float, float, float]:
    """Medians over ``rounds`` of the wall-clock seconds, the referee's CPU
    seconds and the bot process's CPU seconds, per decision (each decision
    includes taking the seat's view of the state)."""
    wall, mine, theirs = [], [], []
    for _ in range(rounds):
        began, cpu, other = time.perf_counter(), time.process_time(), _cpu_of(pid)
        for state, seat, legal in recorded:
            act(state, seat, legal)
        wall.append((time.perf_counter() - began) / len(recorded))
        mine.append((time.process_time() - cpu) / len(recorded))
        theirs.append((_cpu_of(pid) - other) / len(recorded))
    return statistics.median(wall), statistics.median(mine), statistics.median(theirs)


def measure(game_id: str, players: int, count: int, rounds: int,
            seed: int) -> dict[str, tuple[float, float, float]]:
    recorded = decisions(game_id, players, count, seed)
    bot_class = load_bot_class("module", "cardref.bots.random")
    info = {"game": game_id, "seat": 0, "players": players, "params": {}, "seed": seed,
            "name": "random", "key": "bench"}
    bot = bot_class()
    bot.start(info)
    inside = InProcessSeat(bot_class)
    inside.start(info, 10.0)
    limits = Limits(decision_seconds=10.0)
    outside = ProcessSeat("path", str(RANDOM_BOT), limits, Sandbox())
    try:
        outside.start(info, 30.0)
        return {
            "direct": _time(lambda s, p, a: bot.act(s.observation(p), a), recorded, rounds),
            "inprocess": _time(lambda s, p, a: inside.act(inside.view(s, p), a, 10.0),
                               recorded, rounds),
            "process": _time(lambda s, p, a: outside.act(outside.view(s, p), a, 10.0),
                             recorded, rounds, outside.process.control.pid),
        }
    finally:
        outside.close()


THROUGHPUT = """
game = "{game}"
players = {players}
seed = 1
deal_groups = {groups}
output = "bench.sqlite"
[[bots]]
name = "a"
path = "a.py"
isolation = "{isolation}"
[[bots]]
name = "b"
path = "b.py"
isolation = "{isolation}"
"""


def throughput(game_id: str, players: int, games: int, workers: int) -> dict[str, float]:
    """Games per second of a real tournament of two Python bot files (copies of
    the random bot), played in-process and in confined processes."""
    import shutil
    import tempfile

    from .tournament import runner
    from .tournament.config import load_config
    from .tournament.schedule import build_schedule
    from .tournament.store import Store

    rates = {}
    with tempfile.TemporaryDirectory(prefix="cardref-bench-") as folder:
        for name in ("a.py", "b.py"):
            shutil.copyfile(RANDOM_BOT, Path(folder, name))
        for isolation in ("inprocess", "process"):
            config_path = Path(folder, f"{isolation}.toml")
            config_path.write_text(THROUGHPUT.format(game=game_id, players=players,
                                                     groups=1, isolation=isolation))
            per_group = len(build_schedule(load_config(config_path)))
            config_path.write_text(THROUGHPUT.format(
                game=game_id, players=players, groups=max(1, games // per_group),
                isolation=isolation))
            config = load_config(config_path)
            Path(folder, "bench.sqlite").unlink(missing_ok=True)
            with Store(config.output) as store:
                store.initialise(config, build_schedule(config))
                began = time.perf_counter()
                played = runner.run(config, store, workers)
                rates[isolation] = played / (time.perf_counter() - began)
    return rates


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="cardref bench --referee",
                                     description=__doc__.split("\n\n")[0].replace("``", ""))
    parser.add_argument("--referee", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--game", default="take5", help="game id (default take5)")
    parser.add_argument("--players", type=int, default=4, help="seats (default 4)")
    parser.add_argument("--decisions", type=int, default=2000,
                        help="recorded decisions per round (default 2000)")
    parser.add_argument("--rounds", type=int, default=5,
                        help="rounds; the median counts (default 5)")
    parser.add_argument("--seed", type=int, default=0, help="first game seed (default 0)")
    parser.add_argument("--games", type=int, default=100,
                        help="games of the throughput tournament (default 100; 0: skip it)")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1,
                        help="workers of the throughput tournament (default: every core)")
    args = parser.parse_args(argv)
    console = Console()
    with console.status("measuring the referee…"):
        r = measure(args.game, args.players, args.decisions, args.rounds, args.seed)
    table = Table(title=f"cardref bench --referee: {args.game}, {args.players} players, "
                        f"{args.decisions} decisions × {args.rounds} rounds (median)")
    for column in ("bot", "wall µs/decision", "overhead (wall) µs", "referee CPU µs",
                   "bot process CPU µs"):
        table.add_column(column, justify="left" if column == "bot" else "right")
    base = r["direct"][0]
    for label, key in (("bot.act called directly", "direct"), ("in-process seat", "inprocess"),
                       ("subprocess bot (sandbox + SDK)", "process")):
        wall, mine, theirs = r[key]
        table.add_row(label, f"{wall * 1e6:,.1f}",
                      "—" if key == "direct" else f"{(wall - base) * 1e6:,.1f}",
                      f"{mine * 1e6:,.1f}", f"{theirs * 1e6:,.1f}" if key == "process" else "—")
    console.print(table)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    console.print(f"load average {load:.2f} on {os.cpu_count()} cores (a loaded machine adds "
                  "scheduling delay to every subprocess round trip); the target for the "
                  "subprocess bot is under 50 µs of overhead per decision")
    if args.games:
        with console.status("playing the throughput tournaments…"):
            rates = throughput(args.game, args.players, args.games, args.workers)
        console.print(
            f"tournament of two Python bots, {args.games} games, {args.players} seats, "
            f"{args.workers} worker(s): in-process {rates['inprocess']:.1f} games/s, "
            f"confined processes {rates['process']:.1f} games/s = "
            f"{rates['process'] / rates['inprocess']:.0%} of in-process (target: 50%)")
    return 0
