"""Seats: how the referee talks to the bot playing one seat of one game.

Every seat, wherever its bot runs, offers the same calls (``Seat``):
``start`` once, then ``view`` and ``act`` for each decision, ``end`` when the
game is over and ``close`` in every case; ``stderr`` at any time. A seat
turns whatever goes wrong in its bot into a ``BotFailure`` with one of the
statuses of ``sandbox.STATUSES`` (and the bot's traceback, when its code
raised); the referee never sees a bot's own exception.

Two kinds exist: ``InProcessSeat`` calls a trusted bot class (the built-ins,
or a bot marked ``isolation = "inprocess"``) directly, with a SIGALRM guard
so that one hung bot cannot stall the tournament; ``ProcessSeat`` speaks the
line protocol of ``docs/protocol.md`` to a submitted bot in its own confined
process (``sandbox.SeatProcess``), stopped whenever it is not its turn.
"""

from __future__ import annotations

import contextlib
import json
import signal
import threading
import time
from typing import Any, Protocol

from ..bots import load_bot_class
from ..bots.sdk import bot_traceback, compact_json, submission_root
from .sandbox import (
    TRACEBACK_KEPT,
    BotFailure,
    ConfinementError,
    Limits,
    Sandbox,
    open_process,
    safe_text,
)


class Seat(Protocol):
    """One bot in one seat of one game, as the referee sees it."""

    cpu: float

    def start(self, info: dict[str, Any], seconds: float) -> None:
        """Create the bot and give it the game's ``info`` (its ``start`` hook)."""

    def view(self, state: Any, seat: int) -> Any:
        """The observation of ``seat`` in the form ``act`` takes."""

    def act(self, observation: Any, legal: list[str], seconds: float) -> str:
        """The bot's action (a string, not yet checked by the engine); after
        it, ``cpu`` is the CPU time the decision took."""

    def end(self, info: dict[str, Any], seconds: float) -> None:
        """Tell the bot the result; a failure here changes nothing."""

    def close(self) -> None:
        """Release the bot; safe to call more than once."""

    def stderr(self) -> str:
        """The last STDERR_STORED characters the bot wrote to its standard
        error (escaped), or "" when it has none of its own."""


#: The characters of a seat's standard error stored with its game.
STDERR_STORED = 1000


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


def bot_class(kind: str, target: str) -> Any:
    """The ``Bot`` class of a trusted bot, imported once per process."""
    if (kind, target) not in _BOT_CLASSES:
        _BOT_CLASSES[(kind, target)] = load_bot_class(kind, target)
    return _BOT_CLASSES[(kind, target)]


class InProcessSeat:
    """A trusted bot called directly in the referee's process. Its failures
    carry the traceback of its exception, relative to ``root`` (its folder)."""

    def __init__(self, bot_class: Any, root: str = "") -> None:
        self.bot_class = bot_class
        self.root = root
        self.bot: Any = None
        self.cpu = 0.0

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
            raise self._raised(f"start: {type(e).__name__}: {e}", e) from None

    @staticmethod
    def view(state: Any, seat: int) -> Any:
        """What ``act`` is given of the state: the observation as Python data."""
        return state.observation(seat)

    def act(self, observation: Any, legal: list[str], seconds: float) -> str:
        before = time.thread_time()
        try:
            with _Alarm(2 * seconds + 1.0):
                action = self.bot.act(observation, legal)
            self.cpu = time.thread_time() - before
        except DecisionInterrupted:
            raise BotFailure("timeout", "interrupted") from None
        except (Exception, SystemExit) as e:  # a bot's sys.exit() too
            raise self._raised(f"act raised {type(e).__name__}: {e}", e) from None
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

    def _raised(self, message: str, error: BaseException) -> BotFailure:
        trace = safe_text(bot_traceback(error, self.root), TRACEBACK_KEPT)
        return BotFailure("error", message, trace)

    def close(self) -> None:
        self.bot = None

    @staticmethod
    def stderr() -> str:
        return ""  # it writes to the referee's own standard error


class ProcessSeat:
    """A submitted bot in a fresh confined process of its own (see sandbox.py).
    Its CPU time per decision is measured outside it, from the kernel."""

    def __init__(self, kind: str, target: str, limits: Limits, sandbox: Sandbox) -> None:
        self.process = open_process(kind, target, limits, sandbox)
        self.cpu = 0.0
        self.used = 0.0  # its CPU time at its last reply: it is stopped until the next request

    def start(self, info: dict[str, Any], seconds: float) -> None:
        self.process.request({"type": "hello", "protocol": 1, **info}, seconds, "ready")
        self.used = self.process.cpu_seconds()

    @staticmethod
    def view(state: Any, seat: int) -> str:
        """What ``act`` is given of the state: the observation as JSON text,
        spliced into the request as it is (no Python objects in between)."""
        return state.observation_json(seat)

    def act(self, observation: str, legal: list[str], seconds: float) -> str:
        message = (f'{{"type":"act","observation":{observation},'
                   f'"legal":{compact_json(legal)}}}')
        reply = self.process.request_text(message, seconds, "action")
        used = self.process.cpu_seconds()
        self.cpu, self.used = used - self.used, used
        action = reply.get("action")
        if not isinstance(action, str):
            self.process.kill()
            raise BotFailure("malformed", f"the action is "
                             f"{safe_text(json.dumps(action)[:80])}, not a string")
        return action

    def end(self, info: dict[str, Any], seconds: float) -> None:
        with contextlib.suppress(BotFailure, ConfinementError):  # the game is over
            self.process.request({"type": "end", **info}, seconds, "done")
        self.process.kill()  # a fresh process per game: nothing of it outlives the game

    def close(self) -> None:
        self.process.kill()

    def stderr(self) -> str:
        return self.process.stderr_tail(STDERR_STORED)


def open_seat(kind: str, target: str, isolated: bool, limits: Limits,
              sandbox: Sandbox) -> Seat:
    """The seat for a bot: its own confined process when ``isolated``, else in-process."""
    if isolated:
        return ProcessSeat(kind, target, limits, sandbox)
    return InProcessSeat(bot_class(kind, target), submission_root(kind, target))
