"""The referee loop: one game, from its seed and seating to a ``GameRecord``.

The referee gives each bot its seat's observation and the legal actions,
never the state (``seats.py`` says how a bot is reached). A bot *fails* with
one of the statuses of ``sandbox.STATUSES``: it raises (``error``), its
process dies (``crash``), it runs past its time (``timeout``), answers
something that is not a string action (``invalid``, ``malformed``,
``protocol``), an action the engine refuses (``illegal``), or hits a resource
limit (``limit``). A failing bot forfeits the game: from that decision on a
seeded random fallback plays its seat so the game finishes, and the seat
(with its team, in team games) is placed last. Bots disqualified by earlier
failures do not play at all: the fallback plays their seats.

Each decision may take ``decision_seconds`` plus what is left of the seat's
time bank for the game. A bot process is killed at that deadline; an
in-process decision is measured after the fact and interrupted with SIGALRM
at twice the allowance plus one second (where the platform and thread allow).

A game depends only on its seed and seating, so games may be played in any
order, anywhere, and give the same record.
"""

from __future__ import annotations

import json
import random
import time
from dataclasses import dataclass, field
from typing import Any, Optional

import cardref

from .config import Config
from .sandbox import STATUSES, BotFailure, ConfinementError, Limits, Sandbox, safe_text
from .schedule import ScheduledGame, bot_seed
from .seats import Seat, open_seat

FAILURES = (*STATUSES, "disqualified")


@dataclass(frozen=True)
class TableSetup:
    """What a worker needs to play any game of the tournament."""

    game: str
    players: int
    params: dict[str, Any]
    engine: str
    bots: dict[str, tuple[str, str]]  # name -> (kind, target)
    decision_seconds: float
    teams: Optional[list[list[int]]]
    limits: Limits = field(default_factory=Limits)
    isolated: frozenset[str] = frozenset()  # names of the bots run in their own process
    sandbox: Sandbox = field(default_factory=Sandbox)

    @classmethod
    def from_config(cls, config: Config) -> TableSetup:
        return cls(
            game=config.game, players=config.players, params=dict(config.params),
            engine=config.engine, bots={b.name: (b.kind, b.target) for b in config.bots},
            decision_seconds=config.decision_seconds, teams=config.teams,
            limits=config.limits,
            isolated=frozenset(b.name for b in config.bots if b.isolation == "process"),
            sandbox=config.sandbox,
        )

    def open_seat(self, name: str) -> Seat:
        kind, target = self.bots[name]
        return open_seat(kind, target, name in self.isolated, self.limits, self.sandbox)


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
    cpu: list[float] = field(default_factory=list)  # CPU seconds of each action's decision
    # Per seat: the bot's traceback when its code raised, and the tail of its
    # standard error (bot text, escaped and bounded); empty lists in records
    # made without them.
    tracebacks: list[Optional[str]] = field(default_factory=list)
    stderr: list[Optional[str]] = field(default_factory=list)

    def failed(self) -> bool:
        return any(status != "ok" for status in self.statuses)


class RefereeFault(Exception):
    """Something failed that no bot caused (the engine, the sandbox, this
    machine): the game is not stored, and a resumed run plays it again."""


@dataclass(frozen=True)
class Fault:
    """A game that ended in a ``RefereeFault``, as an executor reports it."""

    key: str
    message: str


def play_or_fault(setup: TableSetup, game: ScheduledGame,
                  disqualified: frozenset[str] = frozenset()) -> GameRecord | Fault:
    """``play_game``, with a referee fault returned rather than raised."""
    try:
        return play_game(setup, game, disqualified)
    except RefereeFault as e:
        return Fault(game.key, str(e))


_GAMES: dict[Any, Any] = {}


def _engine(setup: TableSetup) -> Any:
    """The loaded game, once per process and configuration."""
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


class _Table:
    """The seats of one game in play, with each seat's status and time bank."""

    def __init__(self, setup: TableSetup, game: ScheduledGame) -> None:
        n = setup.players
        self.setup = setup
        self.game = game
        self.seats: list[Optional[Seat]] = [None] * n
        self.statuses = ["ok"] * n
        self.messages: list[Optional[str]] = [None] * n
        self.tracebacks: list[Optional[str]] = [None] * n
        self.stderr: list[Optional[str]] = [None] * n
        self.bank = [setup.limits.bank_seconds] * n
        self.fallbacks = [random.Random(f"fallback-{game.seed}-{seat}") for seat in range(n)]
        self.actions: list[tuple[int, str, str, float]] = []
        self.cpu: list[float] = []

    def fail(self, seat: int, status: str, message: str, traceback: str = "") -> None:
        """The bot of ``seat`` forfeits: record why and release it."""
        self.statuses[seat], self.messages[seat] = status, safe_text(message, 500)
        self.tracebacks[seat] = traceback or None
        self.release(seat)

    def release(self, seat: int) -> None:
        """Close the seat's bot, keeping the tail of its standard error."""
        handle = self.seats[seat]
        if handle is not None:
            handle.close()
            self.stderr[seat] = handle.stderr() or None

    def open(self, disqualified: frozenset[str]) -> None:
        """Open every seat whose bot may play."""
        for seat, name in enumerate(self.game.seating):
            if name in disqualified:
                self.statuses[seat] = "disqualified"
                self.messages[seat] = "disqualified by earlier failures (failure.disqualify_after)"
                continue
            try:
                self.seats[seat] = self.setup.open_seat(name)
            except (OSError, ConfinementError) as e:
                raise RefereeFault(f"seat {seat} ({name}) could not be opened: {e}") from None

    def start(self) -> None:
        """Start every open seat's bot, within the start-up limit."""
        setup = self.setup
        for seat, name in enumerate(self.game.seating):
            handle = self.seats[seat]
            if self.statuses[seat] != "ok" or handle is None:
                continue
            info = {"game": setup.game, "seat": seat, "players": setup.players,
                    "params": dict(setup.params), "seed": bot_seed(self.game.seed, seat),
                    "name": name, "key": self.game.key}
            try:
                handle.start(info, setup.limits.startup)
            except ConfinementError as e:
                raise RefereeFault(f"seat {seat} ({name}): {e}") from None
            except BotFailure as e:
                self.fail(seat, e.status, e.message if e.message.startswith("start:")
                          else f"start: {e.message}", e.traceback)

    def step(self, state: Any) -> None:
        """One action: the seat's bot if it still plays, else its fallback."""
        seat = state.current_player()
        legal = state.legal_actions()
        if self.statuses[seat] == "ok" and self._ask(state, seat, legal):
            return
        choice = self.fallbacks[seat].choice(legal)
        _apply_listed(state, choice)
        self.actions.append((seat, "fallback", choice, 0.0))
        self.cpu.append(0.0)

    def _ask(self, state: Any, seat: int, legal: list[str]) -> bool:
        """Let the bot act; False (and the seat forfeits) if it fails."""
        limit = self.setup.decision_seconds
        allowed = limit + self.bank[seat]
        handle = self.seats[seat]
        assert handle is not None
        try:
            observation = handle.view(state, seat)
        except Exception as e:  # the engine's observation: never the bot's doing
            raise RefereeFault(f"the observation of seat {seat} failed: {e!r}") from None
        started = time.perf_counter()
        try:
            try:
                action = handle.act(observation, list(legal), allowed)
            finally:
                seconds = time.perf_counter() - started
            self.bank[seat] -= max(0.0, seconds - limit)
            if self.bank[seat] < 0:
                raise BotFailure("timeout", "")
        except ConfinementError as e:
            raise RefereeFault(f"seat {seat}: {e}") from None
        except BotFailure as e:
            if e.status == "timeout" or seconds > allowed:
                self.fail(seat, "timeout", self._too_slow(seconds))
            else:
                self.fail(seat, e.status, e.message, e.traceback)
            return False
        return self._play(state, seat, action, legal, seconds, handle.cpu)

    def _play(self, state: Any, seat: int, action: str, legal: list[str], seconds: float,
              cpu: float) -> bool:
        """Apply a bot's action. The engine refusing a listed action, or failing
        on one, is the referee's fault; on anything else, the bot's."""
        try:
            state.apply(action)
        except Exception as e:
            if action in legal:
                raise RefereeFault(f"the engine failed on the listed action {action!r}: "
                                   f"{e!r}") from None
            message = str(e) if isinstance(e, cardref.IllegalActionError) else \
                f"{type(e).__name__}: {e}"
            self.fail(seat, "illegal", message)
            return False
        self.actions.append((seat, "bot", state.history()[-1], seconds))
        self.cpu.append(cpu)
        return True

    def _too_slow(self, seconds: float) -> str:
        limits = self.setup.limits
        spent = " (and its time bank is spent)" if limits.bank_seconds else ""
        return (f"a decision took {seconds:.3f} s; the limit is "
                f"{self.setup.decision_seconds:g} s{spent}")

    def finish(self, state: Any, began: float) -> GameRecord:
        """The record of the ended game; the bots still playing hear the result."""
        n = self.setup.players
        engine_placements = list(state.placements())
        scores = list(state.scores())
        placements = final_placements(
            engine_placements, {s for s in range(n) if self.statuses[s] != "ok"},
            self.setup.teams)
        for seat, handle in enumerate(self.seats):
            if self.statuses[seat] == "ok" and handle is not None:
                handle.end({"placements": placements, "scores": scores, "seat": seat},
                           self.setup.limits.startup)
                self.release(seat)
        return GameRecord(
            key=self.game.key, seed=self.game.seed, seating=list(self.game.seating),
            statuses=self.statuses, messages=self.messages,
            engine_placements=engine_placements, placements=placements, scores=scores,
            actions=self.actions, seconds=time.perf_counter() - began, cpu=self.cpu,
            tracebacks=self.tracebacks, stderr=self.stderr,
        )

    def close(self) -> None:
        for handle in self.seats:
            if handle is not None:
                handle.close()


def _apply_listed(state: Any, action: str) -> None:
    try:
        state.apply(action)
    except Exception as e:
        raise RefereeFault(f"the engine failed on the listed action {action!r}: "
                           f"{e!r}") from None


def play_game(setup: TableSetup, game: ScheduledGame,
              disqualified: frozenset[str] = frozenset()) -> GameRecord:
    """Play one scheduled game to the end under the failure policy.

    Bots named in ``disqualified`` do not play: the fallback plays their seats.
    """
    began = time.perf_counter()
    table = _Table(setup, game)
    try:
        state = _engine(setup).new_state(seed=game.seed)
        table.open(disqualified)
        table.start()
        while not state.is_terminal():
            table.step(state)
        return table.finish(state, began)
    except (RefereeFault, KeyboardInterrupt):
        raise
    except Exception as e:  # a bug of the referee's own: not a bot's failure
        raise RefereeFault(f"{type(e).__name__}: {e}") from e
    finally:
        table.close()
