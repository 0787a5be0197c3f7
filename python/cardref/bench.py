"""``cardref bench``: how fast each engine plays, measured in one run.

For every game it times complete random games three ways: (a) the Rust core's
native loop (``cardref.simulate`` with random bots, no Python per step), on one
thread and on every core, (b) Python driving the Rust core step by step with
``legal_actions()`` + ``apply()`` and, without action texts, with
``legal_count()`` + ``apply_legal()``, and (c) the Python reference engine; then
prints the per-action costs, the ratios between them and the size of a state
in memory. It is a measurement, never a pass/fail test.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Optional

from rich.console import Console
from rich.table import Table

import cardref

from . import registry


@dataclass
class Rate:
    """Games and actions played in a measured time."""

    games: int
    actions: int
    seconds: float
    #: Process CPU time, where measured: less disturbed than wall time on a busy machine.
    cpu_seconds: float = 0.0
    #: Wall time per action of the fastest full-size batch, where batches were
    #: repeated: the least disturbed figure on a machine whose speed drifts.
    fastest_ns_per_action: Optional[float] = None

    @property
    def best_ns_per_action(self) -> float:
        """The fastest batch's ns/action where batches were repeated, else the mean."""
        return self.fastest_ns_per_action or self.ns_per_action

    @property
    def cpu_ns_per_action(self) -> float:
        return 1e9 * self.cpu_seconds / max(self.actions, 1)

    @property
    def ns_per_action(self) -> float:
        return 1e9 * self.seconds / max(self.actions, 1)

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds if self.seconds else float("inf")


#: Full-size batches per native measurement; the fastest one is reported too.
BATCHES = 5


def native(game: Any, budget: float, seed: int, threads: Optional[int] = 1) -> Rate:
    """(a) ``simulate`` with random bots inside Rust. The batch doubles until it
    takes a fifth of the budget, then repeats until the budget is spent; every
    game counts towards the totals, and the fastest full-size batch is kept
    (as ``timeit`` reports its best repeat), because on a shared machine a
    batch can only be slowed down, never sped up."""
    games, total = 1, Rate(0, 0, 0.0)
    full_size = False
    fastest: Optional[float] = None
    bots = ["random"] * game.players
    while total.seconds < budget or fastest is None:
        cpu = time.process_time()
        r = game.simulate(bots, games, seed + total.games, threads)
        cpu = time.process_time() - cpu
        total = Rate(total.games + r["games"], total.actions + r["actions"],
                     total.seconds + r["seconds"], total.cpu_seconds + cpu)
        full_size = full_size or r["seconds"] * BATCHES >= budget
        if full_size:
            batch = 1e9 * r["seconds"] / max(r["actions"], 1)
            fastest = batch if fastest is None else min(fastest, batch)
        else:
            games *= 2
    total.fastest_ns_per_action = fastest
    return total


def merged(a: Rate, b: Rate) -> Rate:
    """Two measurements of the same thing as one: totals added, the fastest batch of either."""
    fastest = [r for r in (a.fastest_ns_per_action, b.fastest_ns_per_action) if r is not None]
    return Rate(a.games + b.games, a.actions + b.actions, a.seconds + b.seconds,
                a.cpu_seconds + b.cpu_seconds, min(fastest) if fastest else None)


def native_in_turns(game: Any, budget: float, seed: int) -> tuple[Rate, Rate]:
    """One thread and every thread, each measured twice on half the budget,
    in turns (1, all, 1, all): the thread speed-up divides one mean by the
    other, and a slow minute of a shared machine then weighs on both sides."""
    one = native(game, budget / 2, seed, threads=1)
    every = native(game, budget / 2, seed, threads=None)
    one = merged(one, native(game, budget / 2, seed + one.games, threads=1))
    every = merged(every, native(game, budget / 2, seed + every.games, threads=None))
    return one, every


def stepped(game: Any, budget: float, seed: int) -> Rate:
    """(b)/(c) Python drives a state step by step: legal_actions + apply."""
    def play(state: Any, pick: Callable[[], float]) -> int:
        actions = 0
        while not state.is_terminal():
            legal = state.legal_actions()
            state.apply(legal[int(pick() * len(legal))])
            actions += 1
        return actions

    return whole_games(game, budget, seed, play)


def stepped_by_index(game: Any, budget: float, seed: int) -> Rate:
    """(b') Python drives a state step by step by position: legal_count +
    apply_legal, the same random choices as ``stepped`` without any action text."""
    def play(state: Any, pick: Callable[[], float]) -> int:
        actions = 0
        while not state.is_terminal():
            state.apply_legal(int(pick() * state.legal_count()))
            actions += 1
        return actions

    return whole_games(game, budget, seed, play)


def whole_games(game: Any, budget: float, seed: int,
                play: Callable[[Any, Callable[[], float]], int]) -> Rate:
    """Games from ``seed`` on, each played to the end by ``play`` (which
    returns its actions), until ``budget`` seconds are spent (at least one)."""
    pick = random.Random(seed).random
    games = actions = 0
    start = time.perf_counter()
    while time.perf_counter() - start < budget or games == 0:
        actions += play(game.new_state(seed=seed + games), pick)
        games += 1
    return Rate(games, actions, time.perf_counter() - start)


#: OpenSpiel's closest game to each of ours, compared per player decision.
OPENSPIEL_GAMES = {"back_alley": "spades", "five_alive": "crazy_eights"}


def openspiel(name: str, budget: float, seed: int) -> Optional[Rate]:
    """OpenSpiel's native ``evaluate_bots`` with uniform random bots on game
    ``name``; ``actions`` counts player decisions (chance nodes excluded).
    None if ``open_spiel`` is not installed (``pip install 'cardref[bench]'``)."""
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game(name)
    bots = [pyspiel.make_uniform_random_bot(p, seed + p) for p in range(game.num_players())]
    games = decisions = 0
    seconds = 0.0
    while seconds < budget:
        state = game.new_initial_state()
        start = time.perf_counter()
        pyspiel.evaluate_bots(state, bots, seed + games)
        seconds += time.perf_counter() - start
        decisions += sum(1 for h in state.full_history() if h.player >= 0)
        games += 1
    return Rate(games, decisions, seconds)


def measure(game_id: str, players: int, budget: float, seed: int) -> dict[str, Rate]:
    rust = cardref.load(game_id, players, engine="rust")
    reference = cardref.load(game_id, players, engine="reference")
    one, every = native_in_turns(rust, budget, seed)
    return {
        "native": one,
        "native_all": every,
        "python_rust": stepped(rust, budget, seed),
        "python_index": stepped_by_index(rust, budget, seed),
        "reference": stepped(reference, budget, seed),
    }


def render_openspiel(results: dict[str, dict[str, Rate]], budget: float, seed: int,
                     console: Console) -> None:
    """Our native per-action cost beside OpenSpiel's per decision, where comparable."""
    pairs = [(g, o) for g, o in OPENSPIEL_GAMES.items() if g in results]
    if not pairs:
        return
    rows = [(g, o, openspiel(o, budget, seed)) for g, o in pairs]
    if any(rate is None for _, _, rate in rows):
        console.print("OpenSpiel: not installed (pip install 'cardref[bench]' to compare)",
                      markup=False)
        return
    table = Table(title="beside OpenSpiel (random bots, one thread, per player decision)")
    for column in ("game", "OpenSpiel game", "ours ns/action", "OpenSpiel ns/decision",
                   "OpenSpiel ÷ ours"):
        table.add_column(column, justify="right" if "game" not in column else "left")
    for game_id, name, rate in rows:
        ours = results[game_id]["native"].ns_per_action
        assert rate is not None
        table.add_row(game_id, name, f"{ours:,.1f}", f"{rate.ns_per_action:,.0f}",
                      f"{rate.ns_per_action / ours:,.0f}×")
    console.print(table)


def legal_per_step(game_id: str, players: int, seed: int, games: int = 20) -> float:
    """Mean length of ``legal_actions()`` over the steps of a few random games:
    what a Python-driven step has to turn into strings (untimed)."""
    game = cardref.load(game_id, players, engine="rust")
    pick = random.Random(seed).random
    listed = steps = 0
    for i in range(games):
        state = game.new_state(seed=seed + i)
        while not state.is_terminal():
            legal = state.legal_actions()
            listed += len(legal)
            steps += 1
            state.apply(legal[int(pick() * len(legal))])
    return listed / max(steps, 1)


def state_size(game_id: str, players: int) -> tuple[int, int]:
    """Bytes of a state in memory (``std::mem::size_of`` of the Rust state) and
    of a fresh state's canonical JSON."""
    game = cardref.load(game_id, players)
    return game.state_size(), len(game.new_state(seed=0).to_json())


def render(results: dict[str, dict[str, Rate]], players: dict[str, int], threads: int,
           console: Console) -> None:
    table = Table(title=f"cardref bench: random games (native: 1 thread and {threads} threads)")
    for column in ("game", "players", "native ns/action fastest", "native ns/action mean",
                   "native CPU ns/action", "native games/s",
                   f"{threads} threads games/s", "threads speed-up",
                   "legal/step", "py→rust ns/step", "py→rust by index ns/step",
                   "reference ns/step",
                   "py→rust ÷ native",
                   "reference ÷ native", "reference ÷ py→rust", "state bytes"):
        table.add_column(column, justify="right" if column != "game" else "left")
    for game_id, r in results.items():
        n, a, p, ref = r["native"], r["native_all"], r["python_rust"], r["reference"]
        by_index = r["python_index"]
        size, _ = state_size(game_id, players[game_id])
        table.add_row(
            game_id, str(players[game_id]),
            f"{n.best_ns_per_action:,.1f}", f"{n.ns_per_action:,.1f}",
            f"{n.cpu_ns_per_action:,.1f}", f"{n.games_per_second:,.0f}",
            f"{a.games_per_second:,.0f}", f"{n.ns_per_action / a.ns_per_action:,.2f}×",
            f"{legal_per_step(game_id, players[game_id], 0):,.1f}",
            f"{p.ns_per_action:,.0f}", f"{by_index.ns_per_action:,.0f}",
            f"{ref.ns_per_action:,.0f}",
            f"{p.ns_per_action / n.ns_per_action:,.1f}×",
            f"{ref.ns_per_action / n.ns_per_action:,.0f}×",
            f"{ref.ns_per_action / p.ns_per_action:,.1f}×",
            f"{size:,}",
        )
    console.print(table)


def main(argv: Optional[Sequence[str]] = None) -> int:
    if argv is not None and "--referee" in argv:
        from . import refbench

        return refbench.main(argv)
    if argv is not None and "--cluster" in argv:
        from . import clusterbench

        return clusterbench.main(argv)
    if argv is not None and ("--verify" in argv or "--analyze" in argv):
        from . import rulebench

        return rulebench.main(argv)
    if argv is not None and "--results" in argv:
        from . import resultsbench

        return resultsbench.main(argv)
    parser = argparse.ArgumentParser(prog="cardref bench",
                                     description=__doc__.split("\n\n")[0].replace("``", ""))
    parser.add_argument("games", nargs="*", help="game ids (default: every game)")
    parser.add_argument("--referee", action="store_true",
                        help="measure the referee's overhead per decision instead "
                             "(options: cardref bench --referee --help)")
    parser.add_argument("--players", type=int,
                        help="seats per table (default: each game's typical table)")
    parser.add_argument("--seconds", type=float, default=1.0,
                        help="time budget per measurement (default 1.0)")
    parser.add_argument("--seed", type=int, default=0, help="first game seed (default 0)")
    args = parser.parse_args(argv)
    # Piped output gets a wide console so the ratio columns are never truncated.
    console = Console() if sys.stdout.isatty() else Console(width=200)
    ids = args.games or cardref.games()
    unknown = [g for g in ids if g not in cardref.games()]
    if unknown:
        console.print(f"[red]unknown game {unknown[0]!r}; available: {', '.join(cardref.games())}")
        return 2
    players = {g: args.players or registry.spec(g).default_players for g in ids}
    results = {}
    for game_id in ids:
        with console.status(f"measuring {game_id}…"):
            results[game_id] = measure(game_id, players[game_id], args.seconds, args.seed)
    render(results, players, os.cpu_count() or 1, console)
    render_openspiel(results, args.seconds, args.seed, console)
    for game_id in ids:
        size, text = state_size(game_id, players[game_id])
        console.print(f"{game_id}: state {size:,} bytes in memory (Rust, fixed part), "
                      f"{text:,} bytes of JSON at the deal")
    return 0


if __name__ == "__main__":
    sys.exit(main())
