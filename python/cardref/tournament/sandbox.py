"""Submitted bots in confined processes: limits, statuses, the protocol client.

``open_process`` gives a ``SeatProcess``: one bot playing one seat of one
game, a fresh confined process spoken to over the line protocol of
``docs/protocol.md``, made by the bot's warm server (``botserver.py``) or,
with the weaker isolation, started directly (``weaker.py``). Between its
reply and the referee's next request a seat does not run, so a bot uses no
time but its own. Every way a bot can fail becomes a ``BotFailure`` with one
of the statuses of ``STATUSES``; the referee never waits past a deadline,
never blocks writing, and parses every reply with bounds on its size and
nesting. A failure of the sandbox itself is a ``ConfinementError``: the
referee's fault, never blamed on a bot.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import importlib.util
import json
import os
import re
import select
import signal
import time
from dataclasses import asdict, dataclass
from typing import Any, Optional, Protocol

from ..bots.sdk import compact_json
from .confine import ConfinementError, Sandbox

__all__ = ["STATUSES", "BotFailure", "ConfinementError", "Limits", "Sandbox", "SeatProcess",
           "check_bot", "open_process", "safe_text"]

#: Every failure status, for reports and docs: see docs/protocol.md.
STATUSES = ("error", "crash", "timeout", "invalid", "illegal", "malformed", "protocol",
            "limit")

#: Exceptions a bot reports that mean it ran into one of its resource limits.
LIMIT_ERRORS = ("MemoryError",)
LIMIT_ERRNOS = (errno.EAGAIN, errno.EMFILE, errno.ENFILE, errno.EFBIG, errno.ENOMEM,
                errno.ENOSPC)

#: The deepest nesting of arrays and objects a reply may have.
MAX_DEPTH = 32
STDERR_KEPT = 4096  # the tail of a seat's standard error kept for messages
TRACEBACK_KEPT = 4000  # the characters of a bot's traceback kept (the SDK sends no more)


@dataclass(frozen=True)
class Limits:
    """The limits of ``[limits]`` in a config (documented in docs/tournaments.md)."""

    decision_seconds: float = 1.0
    startup_seconds: Optional[float] = None  # None: 10 x decision_seconds + 10
    bank_seconds: float = 0.0
    memory_mb: int = 1024
    cpu_seconds: int = 60
    processes: int = 0
    open_files: int = 64
    output_bytes: int = 1 << 20
    disk_mb: int = 16

    @property
    def startup(self) -> float:
        if self.startup_seconds is not None:
            return self.startup_seconds
        return 10 * self.decision_seconds + 10.0

    def non_default(self) -> dict[str, Any]:
        """The keys set to something else than the default (for the fingerprint)."""
        default = asdict(Limits())
        return {k: v for k, v in asdict(self).items()
                if k != "decision_seconds" and v != default[k]}


class BotFailure(Exception):
    """A bot process failed; ``status`` is one of STATUSES. ``traceback`` is
    the bot's own traceback when its code raised (escaped, bounded), else ""."""

    def __init__(self, status: str, message: str, traceback: str = "") -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.traceback = traceback


#: Control characters, the invisible ones that reorder or hide text
#: (bidirectional overrides and isolates, zero-width characters), and lone
#: surrogates (valid in JSON text, but no UTF-8 file or database holds them).
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e"
                      "\u2060-\u2064\u2066-\u2069\ufeff\ud800-\udfff]")


def safe_text(text: str, limit: int = 500) -> str:
    """Text a bot controls, made safe to store, print and render: at most
    ``limit`` characters, every control character (terminal escapes, carriage
    returns, bells), every invisible one that reorders or hides text
    (``\\u202e``, right to left) and every lone surrogate written as an
    escape such as ``\\x1b``."""
    text = text[:limit]
    return _CONTROL.sub(lambda m: m.group().encode("unicode_escape").decode(), text)


def _depth(line: bytes) -> int:
    """The deepest nesting of arrays and objects in a JSON text (outside strings)."""
    depth = deepest = 0
    in_string = escaped = False
    for byte in line:
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:  # backslash
                escaped = True
            elif byte == 0x22:  # quote
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte in (0x5B, 0x7B):
            depth += 1
            deepest = max(deepest, depth)
        elif byte in (0x5D, 0x7D):
            depth -= 1
    return deepest


def parse_reply(line: bytes) -> dict[str, Any]:
    """One reply line as a JSON object; BotFailure("malformed") for anything
    else, including nesting deeper than MAX_DEPTH (never a RecursionError)."""
    shown = safe_text(repr(line[:80]))
    if line.count(b"[") + line.count(b"{") > MAX_DEPTH and _depth(line) > MAX_DEPTH:
        raise BotFailure("malformed", f"a reply nested deeper than {MAX_DEPTH} levels")
    try:
        reply = json.loads(line)
    except (ValueError, RecursionError):
        raise BotFailure("malformed", f"not a JSON line: {shown}") from None
    if not isinstance(reply, dict):
        raise BotFailure("malformed", f"not a JSON object: {shown}")
    return reply


class Control(Protocol):
    """What the referee may do to a seat's processes beyond talking to them."""

    def stop(self) -> None: ...
    def resume(self) -> None: ...
    def kill(self) -> None: ...
    def cpu_seconds(self) -> float: ...
    def ending(self) -> dict[str, Any]: ...


class SeatProcess:
    """One confined bot process, spoken to over the protocol."""

    def __init__(self, stdin: int, stdout: int, stderr: int, control: Control,
                 limits: Limits) -> None:
        self.in_fd, self.out_fd, self.err_fd = stdin, stdout, stderr
        self.control = control
        self.limits = limits
        self.buffer = bytearray()
        self.errors = bytearray()
        self.error_bytes = 0
        self.closed = False
        for fd in (stdin, stdout, stderr):
            flags = fcntl.fcntl(fd, fcntl.F_GETFL)
            fcntl.fcntl(fd, fcntl.F_SETFL, flags | os.O_NONBLOCK)

    # The protocol -------------------------------------------------------------

    def request(self, message: dict[str, Any], seconds: float,
                kind: str | tuple[str, ...]) -> dict[str, Any]:
        """Send ``message`` and return the reply of type ``kind`` (or of one of
        several types), within ``seconds``.

        Raises BotFailure for anything else; the process is then killed.
        """
        return self.request_text(compact_json(message), seconds, kind)

    def request_text(self, message: str, seconds: float,
                     kind: str | tuple[str, ...]) -> dict[str, Any]:
        """``request`` for a message already encoded as one line of JSON text.
        The seat runs from the moment it is sent its request to its reply."""
        deadline = time.perf_counter() + seconds
        try:
            self.control.resume()
            self._send(message.encode() + b"\n", deadline)
            line = self._line(deadline, seconds)
            self.control.stop()
            return self._expect(parse_reply(line), kind)
        except BotFailure:
            self.kill()
            raise

    @staticmethod
    def _expect(reply: dict[str, Any], kind: str | tuple[str, ...]) -> dict[str, Any]:
        got = reply.get("type")
        if got == "error":
            name = safe_text(str(reply.get("error")), 80)
            text = f"{name}: {safe_text(str(reply.get('message')), 300)}"
            trace = reply.get("traceback")
            trace = safe_text(trace, TRACEBACK_KEPT) if isinstance(trace, str) else ""
            if name in LIMIT_ERRORS or reply.get("errno") in LIMIT_ERRNOS:
                raise BotFailure("limit", f"a resource limit: {text}", trace)
            raise BotFailure("error", f"raised {text}", trace)
        if got == "invalid":
            raise BotFailure("invalid", safe_text(str(reply.get("message")), 300))
        if got not in ((kind,) if isinstance(kind, str) else kind):
            shown = safe_text(compact_json(reply)[:80])
            raise BotFailure("protocol", f"expected a {kind!r} reply, got {shown}")
        return reply

    def _send(self, data: bytes, deadline: float) -> None:
        view = memoryview(data)
        while view:
            try:
                view = view[os.write(self.in_fd, view):]
                continue
            except BlockingIOError:
                pass
            except (BrokenPipeError, ConnectionResetError):
                raise self._death() from None
            remaining = deadline - time.perf_counter()
            if remaining <= 0:
                raise BotFailure("timeout", "did not read its input within the time limit")
            select.select([self.err_fd], [self.in_fd], [], remaining)
            self._drain_errors()

    def _line(self, deadline: float, seconds: float) -> bytes:
        cap = self.limits.output_bytes
        while True:
            end = self.buffer.find(b"\n")
            if end >= 0:
                line = bytes(self.buffer[:end])
                del self.buffer[:end + 1]
                return line
            if len(self.buffer) > cap:
                raise BotFailure("limit", f"a reply longer than output_bytes = {cap}")
            remaining = deadline - time.perf_counter()
            ready = select.select([self.out_fd, self.err_fd], [], [], max(0.0, remaining))[0]
            if self.err_fd in ready:
                self._drain_errors()
            if self.out_fd in ready:
                try:
                    chunk = os.read(self.out_fd, 1 << 16)
                except BlockingIOError:
                    continue
                if not chunk:
                    raise self._death()
                self.buffer += chunk
            elif time.perf_counter() >= deadline:
                raise BotFailure("timeout", f"no reply within {seconds:.3g} s")

    def _drain_errors(self) -> None:
        """Keep the tail of standard error; a bot that writes more than
        ``output_bytes`` there in all has run into a limit."""
        while not self.closed:  # a closed descriptor's number may be another's now
            try:
                chunk = os.read(self.err_fd, 1 << 16)
            except (BlockingIOError, OSError):
                return
            if not chunk:
                return
            self.error_bytes += len(chunk)
            self.errors = (self.errors + chunk)[-STDERR_KEPT:]
            if self.error_bytes > self.limits.output_bytes:
                raise BotFailure("limit", f"more than output_bytes = "
                                 f"{self.limits.output_bytes} written to standard error")

    def stderr_tail(self, size: int = 200) -> str:
        with contextlib.suppress(BotFailure):
            self._drain_errors()
        return safe_text(self.errors[-size:].decode("utf-8", "replace").strip(), size)

    def _death(self) -> BotFailure:
        """The failure of a process that closed its output (it exited or died)."""
        ending = self.control.ending()
        if "setup" in ending:
            raise ConfinementError(f"a seat process could not be set up: {ending['setup']}")
        tail = self.stderr_tail()
        said = f"; stderr: {tail}" if tail else ""
        sig = ending.get("signal")
        if sig is not None:
            name = signal.Signals(sig).name if sig in signal.valid_signals() else str(sig)
            # As process 1 of its namespace a seat never sees SIGXCPU, only the
            # SIGKILL at the hard limit a second later: its CPU time tells.
            used = ending.get("cpu", 0.0)
            if sig == signal.SIGXCPU or (sig == signal.SIGKILL and \
                    used >= self.limits.cpu_seconds):
                return BotFailure("limit", f"CPU time limit ({self.limits.cpu_seconds} s)")
            if sig == signal.SIGXFSZ:
                return BotFailure("limit", f"output size limit ({self.limits.output_bytes} "
                                  f"bytes written to a file)")
            return BotFailure("crash", f"killed by {name}{said}")
        if "exit" in ending:
            return BotFailure("crash", f"exited with code {ending['exit']}{said}")
        return BotFailure("protocol", f"closed its output without exiting{said}")

    # Time and ending ------------------------------------------------------------

    def cpu_seconds(self) -> float:
        return self.control.cpu_seconds()

    def kill(self) -> None:
        """Kill every process of the seat and release its pipes."""
        if self.closed:
            return
        self.control.kill()
        with contextlib.suppress(BotFailure):
            self._drain_errors()  # what it wrote last is often why it failed
        self.closed = True
        for fd in (self.in_fd, self.out_fd, self.err_fd):
            with contextlib.suppress(OSError):
                os.close(fd)


def open_process(kind: str, target: str, limits: Limits, sandbox: Sandbox) -> SeatProcess:
    """A fresh seat process for a submitted bot, confined as ``sandbox`` says."""
    if sandbox.mode == "bubblewrap":
        from .botserver import server_for

        return server_for(kind, target, limits, sandbox.packages).seat()
    from .weaker import start

    return start(kind, target, limits)


def check_bot(kind: str, target: str, limits: Limits, sandbox: Sandbox) -> Optional[str]:
    """Load a bot and make one ``Bot()`` in a seat confined as its games will
    be: None if usable, else why not."""
    if kind == "module" and importlib.util.find_spec(target.split(".")[0]) is None:
        return f"importing it failed: ModuleNotFoundError: No module named {target!r}"
    try:
        seat = open_process(kind, target, limits, sandbox)
    except ConfinementError as e:
        return f"the sandbox failed: {e}"
    try:
        reply = seat.request({"type": "check"}, limits.startup, ("usable", "unusable"))
    except BotFailure as e:
        return f"its process failed while loading it: {e}"
    except ConfinementError as e:
        return f"the sandbox failed: {e}"
    finally:
        seat.kill()
    if reply["type"] == "usable":
        return None
    return safe_text(str(reply.get("message")), 2000)
