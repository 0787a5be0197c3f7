"""A program speaking the bot protocol, as a bot object, with no sandbox.

``cardref match`` and ``cardref play`` run every bot in their own process;
a command bot (any language) is the exception: ``CommandBot`` starts its
program for each game, as a tournament does, and speaks the protocol of
``docs/protocol.md`` to it through ``sandbox.SeatProcess`` (bounded, with
deadlines), but starts it as an ordinary process. What the program writes to
its standard error is passed on to ours after each reply.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any, Optional

#: Generous local deadlines: a hung program still ends the match, with a reason.
START_SECONDS = 60.0
DECISION_SECONDS = 60.0


class CommandBotFailed(Exception):
    """The program failed (``status`` as in a tournament: error, crash,
    timeout, malformed, protocol, ...); ``traceback`` is the one it sent, if
    any, and ``stderr`` the end of what it wrote there."""

    def __init__(self, status: str, message: str, traceback: str, stderr: str) -> None:
        super().__init__(f"{status}: {message}")
        self.status, self.message = status, message
        self.traceback, self.stderr = traceback, stderr


class CommandBot:
    """One game of a protocol-speaking program; ``start`` starts it."""

    def __init__(self, argv: list[str]) -> None:
        self.argv = argv
        self.process: Optional[Any] = None  # a sandbox.SeatProcess once started
        self.shown = 0  # bytes of its standard error passed on so far

    def start(self, info: dict[str, Any]) -> None:
        from ..tournament.sandbox import Limits, SeatProcess
        from ..tournament.weaker import PopenControl

        try:
            child = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, start_new_session=True)
        except OSError as e:
            raise CommandBotFailed("crash", f"cannot run {self.argv[0]}: {e.strerror or e}",
                                   "", "") from None
        fds = [os.dup(s.fileno()) for s in (child.stdin, child.stdout, child.stderr)]
        for stream in (child.stdin, child.stdout, child.stderr):
            stream.close()  # type: ignore[union-attr]
        limits = Limits(decision_seconds=DECISION_SECONDS, output_bytes=1 << 30)
        self.process = SeatProcess(fds[0], fds[1], fds[2], PopenControl(child, None), limits)
        self._ask({"type": "hello", "protocol": 1, **info}, START_SECONDS, "ready")

    def act(self, observation: dict[str, Any], legal_actions: list[str]) -> Any:
        message = {"type": "act", "observation": observation, "legal": legal_actions}
        return self._ask(message, DECISION_SECONDS, "action").get("action")

    def end(self, info: dict[str, Any]) -> None:
        try:
            self._ask({"type": "end", **info}, START_SECONDS, "done")
        finally:
            self.close()

    def close(self) -> None:
        if self.process is not None:
            self.process.kill()
            self._pass_on_stderr()

    def _ask(self, message: dict[str, Any], seconds: float, kind: str) -> dict[str, Any]:
        if self.process is None:  # act before start: start it as the referee would
            raise CommandBotFailed("protocol", "asked to act before start", "", "")
        from ..tournament.sandbox import BotFailure

        text = json.dumps(message, sort_keys=True, separators=(",", ":"))
        try:
            return self.process.request_text(text, seconds, kind)
        except BotFailure as e:
            raise CommandBotFailed(e.status, e.message, e.traceback,
                                   self.process.stderr_tail(1000)) from None
        finally:
            self._pass_on_stderr()

    def _pass_on_stderr(self) -> None:
        """What it wrote to standard error since last time (its last 4 KiB at most)."""
        assert self.process is not None
        if not self.process.closed:
            self.process.stderr_tail(0)  # reads what is waiting
        new = self.process.error_bytes - self.shown
        if new > 0:
            sys.stderr.write(bytes(self.process.errors[-new:]).decode("utf-8", "replace"))
            sys.stderr.flush()
            self.shown = self.process.error_bytes
