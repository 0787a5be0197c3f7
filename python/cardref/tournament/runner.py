"""Playing the games: the referee loop, the failure policy and the process pool.

The referee gives each bot its seat's observation and the legal actions,
never the state. A bot *fails* when it raises (status ``error``), takes longer
than ``limits.decision_seconds`` on a decision (``timeout``), returns something
that is not a string (``invalid``) or an action the engine refuses
(``illegal``). A failing bot forfeits the game: from that decision on a seeded
random fallback plays its seat so the game finishes, and the seat (with its
team, in team games) is placed last.

The time limit is measured after the fact for each decision; a decision still
running at twice the limit plus one second is interrupted with SIGALRM (where
the platform and thread allow), so one hung bot cannot stall a tournament.

Games are independent: each depends only on its seed and seating, so a process
pool can play them in any order and the stored results are identical for every
``workers`` setting.
"""

from __future__ import annotations

import contextlib
import json
import multiprocessing
import random
import signal
import threading
import time
from collections.abc import Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

import cardref

from ..bots import load_bot_class
from .config import Config
from .schedule import ScheduledGame, bot_seed

FAILURES = ("error", "timeout", "invalid", "illegal")


@dataclass(frozen=True)
class TableSetup:
    """What a worker process needs to play any game of the tournament."""

    game: str
    players: int
    params: dict[str, Any]
    engine: str
    bots: dict[str, tuple[str, str]]  # name -> (kind, target)
    decision_seconds: float
    teams: Optional[list[list[int]]]

    @classmethod
    def from_config(cls, config: Config) -> TableSetup:
        return cls(
            game=config.game, players=config.players, params=dict(config.params),
            engine=config.engine, bots={b.name: (b.kind, b.target) for b in config.bots},
            decision_seconds=config.decision_seconds, teams=config.teams,
        )


@dataclass
class GameRecord:
    """A finished game, as the store keeps it."""

    key: str
    seed: int
    seating: list[str]
    statuses: list[str]
    messages: list[Optional[str]]
    engine_placements: list[int]
    placements: list[int]
    scores: list[Any]
    actions: list[tuple[int, str, str, float]] = field(default_factory=list)
    seconds: float = 0.0

    def failed(self) -> bool:
        return any(status != "ok" for status in self.statuses)


class DecisionInterrupted(BaseException):
    """Raised inside a bot that ran far past its time limit. A BaseException so
    that a bot's own ``except Exception`` cannot swallow it."""


def _on_alarm(signum: int, frame: Any) -> None:
    raise DecisionInterrupted()


class _Alarm:
    """A hard stop for one decision via SIGALRM, when this thread may use it."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.usable = hasattr(signal, "setitimer") and (
            threading.current_thread() is threading.main_thread()
        )

    def __enter__(self) -> _Alarm:
        if self.usable:
            self.previous = signal.signal(signal.SIGALRM, _on_alarm)
            signal.setitimer(signal.ITIMER_REAL, self.seconds)
        return self

    def __exit__(self, *exc: Any) -> None:
        if self.usable:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, self.previous)


_BOT_CLASSES: dict[tuple[str, str], Any] = {}
_GAMES: dict[Any, Any] = {}


def _bot_class(kind: str, target: str) -> Any:
    if (kind, target) not in _BOT_CLASSES:
        _BOT_CLASSES[(kind, target)] = load_bot_class(kind, target)
    return _BOT_CLASSES[(kind, target)]


def _game(setup: TableSetup) -> Any:
    # Variant values may be lists (Back Alley's schedule): key on their JSON.
    key = (setup.game, setup.players, setup.engine, json.dumps(setup.params, sort_keys=True))
    if key not in _GAMES:
        _GAMES[key] = cardref.load(setup.game, setup.players, engine=setup.engine,
                                   **setup.params)
    return _GAMES[key]


def final_placements(engine: list[int], forfeited: set[int],
                     teams: Optional[list[list[int]]]) -> list[int]:
    """Engine placements with forfeiting seats (and their teams) placed last.

    Units are teams in team games, seats otherwise; a forfeit by one seat of a
    team forfeits the team. Seats of units that did not forfeit are re-ranked
    among themselves by competition ranking over seats, as the engines rank
    (a winning team of two is 1, 1; the next team 3, 3); seats of forfeiting
    units share the place after all of them. Without forfeits the engine's
    placements stand unchanged.
    """
    if not forfeited:
        return list(engine)
    units = teams if teams is not None else [[seat] for seat in range(len(engine))]
    lost = [seat for u in units if any(s in forfeited for s in u) for seat in u]
    kept = [seat for seat in range(len(engine)) if seat not in lost]
    out = [0] * len(engine)
    for seat in kept:
        out[seat] = 1 + sum(engine[other] < engine[seat] for other in kept)
    for seat in lost:
        out[seat] = len(kept) + 1
    return out


def play_game(setup: TableSetup, game: ScheduledGame) -> GameRecord:
    """Play one scheduled game to the end under the failure policy."""
    began = time.perf_counter()
    engine_game = _game(setup)
    state = engine_game.new_state(seed=game.seed)
    n = setup.players
    statuses = ["ok"] * n
    messages: list[Optional[str]] = [None] * n
    fallbacks = [random.Random(f"fallback-{game.seed}-{seat}") for seat in range(n)]
    bots: list[Any] = [None] * n

    def fail(seat: int, status: str, message: str) -> None:
        statuses[seat], messages[seat] = status, message[:500]

    limit = setup.decision_seconds
    hook_limit = 10 * limit + 10.0  # set-up may take longer than a decision, not forever
    for seat, name in enumerate(game.seating):
        try:
            with _Alarm(hook_limit):
                bots[seat] = _bot_class(*setup.bots[name])()
                hook = getattr(bots[seat], "start", None)
                if callable(hook):
                    hook({"game": setup.game, "seat": seat, "players": n,
                          "params": dict(setup.params), "seed": bot_seed(game.seed, seat),
                          "name": name, "key": game.key})
        except DecisionInterrupted:
            fail(seat, "timeout", f"start: still running after {hook_limit:g} s")
        except (Exception, SystemExit) as e:  # a bot's sys.exit() too
            fail(seat, "error", f"start: {type(e).__name__}: {e}")

    actions: list[tuple[int, str, str, float]] = []
    while not state.is_terminal():
        seat = state.current_player()
        legal = state.legal_actions()
        if statuses[seat] == "ok":
            action, seconds = _decide(bots[seat], state.observation(seat), list(legal), limit)
            problem = _check(action, seconds, limit)
            if problem is None:
                try:
                    state.apply(action)
                    actions.append((seat, "bot", state.history()[-1], seconds))
                    continue
                except cardref.IllegalActionError as e:
                    problem = ("illegal", str(e))
                except Exception as e:  # an action string the engine cannot even parse
                    problem = ("illegal", f"{type(e).__name__}: {e}")
            fail(seat, *problem)
        choice = fallbacks[seat].choice(legal)
        state.apply(choice)
        actions.append((seat, "fallback", choice, 0.0))

    engine_placements = list(state.placements())
    scores = list(state.scores())
    placements = final_placements(
        engine_placements, {s for s in range(n) if statuses[s] != "ok"}, setup.teams
    )
    for seat, bot in enumerate(bots):
        hook = getattr(bot, "end", None)
        if statuses[seat] == "ok" and callable(hook):
            # The game is over; a failing or hanging end hook changes nothing.
            with contextlib.suppress(Exception, SystemExit, DecisionInterrupted), \
                    _Alarm(hook_limit):
                hook({"placements": placements, "scores": scores, "seat": seat})
    return GameRecord(
        key=game.key, seed=game.seed, seating=list(game.seating), statuses=statuses,
        messages=messages, engine_placements=engine_placements, placements=placements,
        scores=scores, actions=actions, seconds=time.perf_counter() - began,
    )


def _decide(bot: Any, observation: Any, legal: list[str], limit: float) -> tuple[Any, float]:
    """Ask the bot; returns (action or the exception raised, seconds taken)."""
    began = time.perf_counter()
    try:
        with _Alarm(2 * limit + 1.0):
            action = bot.act(observation, legal)
    except DecisionInterrupted:
        action = DecisionInterrupted()
    except (Exception, SystemExit) as e:  # a bot's sys.exit() too
        action = e
    return action, time.perf_counter() - began


def _check(action: Any, seconds: float, limit: float) -> Optional[tuple[str, str]]:
    if isinstance(action, DecisionInterrupted) or seconds > limit:
        return ("timeout", f"a decision took {seconds:.3f} s; the limit is {limit:g} s")
    if isinstance(action, BaseException):
        return ("error", f"act raised {type(action).__name__}: {action}")
    if not isinstance(action, str):
        return ("invalid", f"act returned {type(action).__name__} {action!r:.80}, not a string")
    return None


# The pool ---------------------------------------------------------------------

_SETUP: Optional[TableSetup] = None


def _init_worker(setup: TableSetup) -> None:
    global _SETUP
    _SETUP = setup
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C


def _play_in_worker(game: ScheduledGame) -> GameRecord:
    assert _SETUP is not None
    return play_game(_SETUP, game)


def play_all(setup: TableSetup, games: list[ScheduledGame], workers: int) -> Iterator[GameRecord]:
    """Yield finished games as they complete: in-process for one worker, else in
    a pool of spawned processes with a small window of games in flight (an
    interrupted run loses at most those)."""
    if workers <= 1:
        for game in games:
            yield play_game(setup, game)
        return
    context = multiprocessing.get_context("spawn")
    pool = ProcessPoolExecutor(workers, mp_context=context, initializer=_init_worker,
                               initargs=(setup,))
    try:
        pending = iter(games)
        running: set[Future] = set()
        for game in pending:
            running.add(pool.submit(_play_in_worker, game))
            if len(running) >= 2 * workers:
                break
        while running:
            done, running = wait(running, return_when=FIRST_COMPLETED)
            for future in done:
                try:
                    record = future.result()
                except BrokenProcessPool:
                    raise WorkerDied(
                        "a worker process died while playing (a bot may have called "
                        "os._exit or crashed the interpreter); the games finished so far "
                        "are stored"
                    ) from None
                yield record
                nxt = next(pending, None)
                if nxt is not None:
                    running.add(pool.submit(_play_in_worker, nxt))
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


class TournamentStopped(Exception):
    """The failure policy "stop" ended the run at a bot failure."""


class WorkerDied(Exception):
    """A worker process died (a bot may have called os._exit or crashed it)."""


def run(config: Config, store: Any, workers: int,
        on_game: Optional[Callable[[GameRecord], None]] = None) -> int:
    """Play every scheduled game not yet in ``store``; returns how many were played.

    Each finished game is committed before the next result is taken, so a kill
    loses only games in flight.
    """
    finished = store.finished_keys()
    todo = [g for g in store.schedule() if g.key not in finished]
    played = 0
    for record in play_all(TableSetup.from_config(config), todo, workers):
        store.save_game(record)
        played += 1
        if on_game is not None:
            on_game(record)
        if config.failure_policy == "stop" and record.failed():
            seat = next(s for s, st in enumerate(record.statuses) if st != "ok")
            raise TournamentStopped(
                f"game {record.key}: bot {record.seating[seat]!r} (seat {seat}) failed with "
                f"status {record.statuses[seat]}: {record.messages[seat]}"
            )
    return played
