"""Playing the games: the referee loop, the failure policy and the process pool.

The referee gives each bot its seat's observation and the legal actions,
never the state. Submitted bots play in their own confined processes
(``sandbox.BotProcess``, one per seat and game, over the protocol of
``docs/protocol.md``); trusted ones (the built-ins, or bots marked
``isolation = "inprocess"``) are called directly. A bot *fails* with one of
the statuses of ``sandbox.STATUSES``: it raises (``error``), its process dies
(``crash``), it runs past its time (``timeout``), answers something that is
not a string action (``invalid``, ``malformed``, ``protocol``), an action the
engine refuses (``illegal``), or hits a resource limit (``limit``). A failing
bot forfeits the game: from that decision on a seeded random fallback plays
its seat so the game finishes, and the seat (with its team, in team games) is
placed last. A bot with ``failure.disqualify_after`` failed games is
``disqualified``: the fallback plays its seats in its later games.

Each decision may take ``decision_seconds`` plus what is left of the seat's
time bank for the game. A bot process is killed at that deadline; an
in-process decision is measured after the fact and interrupted with SIGALRM
at twice the allowance plus one second (where the platform and thread allow),
so one hung bot cannot stall a tournament.

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
from ..bots.sdk import compact_json
from .config import Config
from .sandbox import STATUSES, BotFailure, BotProcess, Limits
from .schedule import ScheduledGame, bot_seed

FAILURES = (*STATUSES, "disqualified")


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
    limits: Limits = field(default_factory=Limits)
    isolated: frozenset[str] = frozenset()  # names of the bots run in their own process

    @classmethod
    def from_config(cls, config: Config) -> TableSetup:
        return cls(
            game=config.game, players=config.players, params=dict(config.params),
            engine=config.engine, bots={b.name: (b.kind, b.target) for b in config.bots},
            decision_seconds=config.decision_seconds, teams=config.teams,
            limits=config.limits,
            isolated=frozenset(b.name for b in config.bots if b.isolation == "process"),
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
            # The handler stays installed (setting it costs ~10 µs a decision);
            # only a timer set here can fire it.
            if signal.getsignal(signal.SIGALRM) is not _on_alarm:
                signal.signal(signal.SIGALRM, _on_alarm)
            signal.setitimer(signal.ITIMER_REAL, self.seconds)
        return self

    def __exit__(self, *exc: Any) -> None:
        if self.usable:
            signal.setitimer(signal.ITIMER_REAL, 0)


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


class InProcessSeat:
    """A trusted bot called directly in the referee's process."""

    def __init__(self, bot_class: Any) -> None:
        self.bot_class = bot_class
        self.bot: Any = None

    def start(self, info: dict[str, Any], seconds: float) -> None:
        try:
            with _Alarm(seconds):
                self.bot = self.bot_class()
                hook = getattr(self.bot, "start", None)
                if callable(hook):
                    hook(info)
        except DecisionInterrupted:
            raise BotFailure("timeout", f"start: still running after {seconds:g} s") from None
        except (Exception, SystemExit) as e:  # a bot's sys.exit() too
            raise BotFailure("error", f"start: {type(e).__name__}: {e}") from None

    @staticmethod
    def view(state: Any, seat: int) -> Any:
        """What ``act`` is given of the state: the observation as Python data."""
        return state.observation(seat)

    def act(self, observation: Any, legal: list[str], seconds: float) -> str:
        try:
            with _Alarm(2 * seconds + 1.0):
                action = self.bot.act(observation, legal)
        except DecisionInterrupted:
            raise BotFailure("timeout", "interrupted") from None
        except (Exception, SystemExit) as e:  # a bot's sys.exit() too
            raise BotFailure("error", f"act raised {type(e).__name__}: {e}") from None
        if not isinstance(action, str):
            raise BotFailure("invalid",
                             f"act returned {type(action).__name__} {action!r:.80}, not a string")
        return action

    def end(self, info: dict[str, Any], seconds: float) -> None:
        hook = getattr(self.bot, "end", None)
        if callable(hook):
            # The game is over; a failing or hanging end hook changes nothing.
            with contextlib.suppress(Exception, SystemExit, DecisionInterrupted), \
                    _Alarm(seconds):
                hook(info)

    def close(self) -> None:
        self.bot = None


class ProcessSeat:
    """A submitted bot in its own confined process (see sandbox.py)."""

    def __init__(self, kind: str, target: str, limits: Limits) -> None:
        self.process = BotProcess.spawn(kind, target, limits)

    def start(self, info: dict[str, Any], seconds: float) -> None:
        self.process.request({"type": "hello", "protocol": 1, **info}, seconds, "ready")

    @staticmethod
    def view(state: Any, seat: int) -> str:
        """What ``act`` is given of the state: the observation as JSON text,
        spliced into the request as it is (no Python objects in between)."""
        return state.observation_json(seat)

    def act(self, observation: str, legal: list[str], seconds: float) -> str:
        message = (f'{{"type":"act","observation":{observation},'
                   f'"legal":{compact_json(legal)}}}')
        reply = self.process.request_text(message, seconds, "action")
        action = reply.get("action")
        if not isinstance(action, str):
            self.process.kill()
            raise BotFailure("malformed", f"the action is {json.dumps(action)[:80]}, "
                             "not a string")
        return action

    def end(self, info: dict[str, Any], seconds: float) -> None:
        with contextlib.suppress(BotFailure):
            self.process.request({"type": "end", **info}, seconds, "done")
        self.process.finish(min(seconds, 1.0))  # then it has a second to exit

    def close(self) -> None:
        self.process.kill()


def _seat(setup: TableSetup, name: str) -> Any:
    kind, target = setup.bots[name]
    if name in setup.isolated:
        return ProcessSeat(kind, target, setup.limits)
    return InProcessSeat(_bot_class(kind, target))


def play_game(setup: TableSetup, game: ScheduledGame,
              disqualified: frozenset[str] = frozenset()) -> GameRecord:
    """Play one scheduled game to the end under the failure policy.

    Bots named in ``disqualified`` do not play: the fallback plays their seats.
    """
    began = time.perf_counter()
    engine_game = _game(setup)
    state = engine_game.new_state(seed=game.seed)
    n = setup.players
    statuses = ["ok"] * n
    messages: list[Optional[str]] = [None] * n
    fallbacks = [random.Random(f"fallback-{game.seed}-{seat}") for seat in range(n)]
    limit = setup.decision_seconds
    bank = [setup.limits.bank_seconds] * n
    hook_limit = setup.limits.startup  # set-up may take longer than a decision, not forever
    seats: list[Any] = [None] * n

    def fail(seat: int, status: str, message: str) -> None:
        statuses[seat], messages[seat] = status, message[:500]
        if seats[seat] is not None:
            seats[seat].close()

    try:
        for seat, name in enumerate(game.seating):
            if name in disqualified:
                statuses[seat] = "disqualified"
                messages[seat] = "disqualified by earlier failures (failure.disqualify_after)"
                continue
            try:
                seats[seat] = _seat(setup, name)
            except OSError as e:
                fail(seat, "crash", f"its process could not be started: {e}")
        for seat, name in enumerate(game.seating):
            if statuses[seat] != "ok":
                continue
            try:
                seats[seat].start({"game": setup.game, "seat": seat, "players": n,
                                   "params": dict(setup.params),
                                   "seed": bot_seed(game.seed, seat), "name": name,
                                   "key": game.key}, hook_limit)
            except BotFailure as e:
                fail(seat, e.status, f"start: {e.message}"
                     if not e.message.startswith("start:") else e.message)

        actions: list[tuple[int, str, str, float]] = []
        while not state.is_terminal():
            seat = state.current_player()
            legal = state.legal_actions()
            if statuses[seat] == "ok":
                allowed = limit + bank[seat]
                started = time.perf_counter()
                try:
                    try:
                        bot = seats[seat]
                        action = bot.act(bot.view(state, seat), list(legal), allowed)
                    finally:
                        seconds = time.perf_counter() - started
                    bank[seat] -= max(0.0, seconds - limit)
                    if bank[seat] < 0:
                        raise BotFailure("timeout", "")
                    state.apply(action)
                    actions.append((seat, "bot", state.history()[-1], seconds))
                    continue
                except BotFailure as e:
                    if e.status == "timeout" or seconds > allowed:
                        spent = " (and its time bank is spent)" if setup.limits.bank_seconds \
                            else ""
                        fail(seat, "timeout", f"a decision took {seconds:.3f} s; the limit is "
                             f"{limit:g} s{spent}")
                    else:
                        fail(seat, e.status, e.message)
                except cardref.IllegalActionError as e:
                    fail(seat, "illegal", str(e))
                except Exception as e:  # an action string the engine cannot even parse
                    fail(seat, "illegal", f"{type(e).__name__}: {e}")
            choice = fallbacks[seat].choice(legal)
            state.apply(choice)
            actions.append((seat, "fallback", choice, 0.0))

        engine_placements = list(state.placements())
        scores = list(state.scores())
        placements = final_placements(
            engine_placements, {s for s in range(n) if statuses[s] != "ok"}, setup.teams
        )
        for seat in range(n):
            if statuses[seat] == "ok":
                seats[seat].end({"placements": placements, "scores": scores, "seat": seat},
                                hook_limit)
    finally:
        for handle in seats:
            if handle is not None:
                handle.close()
    return GameRecord(
        key=game.key, seed=game.seed, seating=list(game.seating), statuses=statuses,
        messages=messages, engine_placements=engine_placements, placements=placements,
        scores=scores, actions=actions, seconds=time.perf_counter() - began,
    )


# The pool ---------------------------------------------------------------------

_SETUP: Optional[TableSetup] = None


def _init_worker(setup: TableSetup) -> None:
    global _SETUP
    _SETUP = setup
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C


def _play_in_worker(game: ScheduledGame, disqualified: frozenset[str]) -> GameRecord:
    assert _SETUP is not None
    return play_game(_SETUP, game, disqualified)


def play_all(setup: TableSetup, games: list[ScheduledGame], workers: int,
             disqualified: Callable[[], frozenset[str]] = frozenset) -> Iterator[GameRecord]:
    """Yield finished games as they complete: in-process for one worker, else in
    a pool of spawned processes with a small window of games in flight (an
    interrupted run loses at most those). ``disqualified()`` names the bots
    disqualified when a game is handed out."""
    if workers <= 1:
        for game in games:
            yield play_game(setup, game, disqualified())
        return
    context = multiprocessing.get_context("spawn")
    pool = ProcessPoolExecutor(workers, mp_context=context, initializer=_init_worker,
                               initargs=(setup,))
    try:
        pending = iter(games)
        running: set[Future] = set()
        for game in pending:
            running.add(pool.submit(_play_in_worker, game, disqualified()))
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
                    running.add(pool.submit(_play_in_worker, nxt, disqualified()))
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
    failed: dict[str, int] = {}
    limit = config.disqualify_after

    def count(seating: list[str], statuses: list[str]) -> None:
        for name in {n for n, st in zip(seating, statuses) if st in STATUSES}:
            failed[name] = failed.get(name, 0) + 1

    for game in store.games():
        count(game["seating"], game["statuses"])

    def disqualified() -> frozenset[str]:
        if not limit:
            return frozenset()
        return frozenset(name for name, n in failed.items() if n >= limit)

    for record in play_all(TableSetup.from_config(config), todo, workers, disqualified):
        store.save_game(record)
        count(record.seating, record.statuses)
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
