"""Submitted bots in confined processes: limits, servers, the protocol client.

A ``BotServer`` is one submitted bot's warm server (``confine.py`` says what
its sandbox shows, ``cardref.bots.seatserver`` what a seat process does).
``open_process`` gives a ``SeatProcess``: one bot playing one seat of one
game, a fresh confined process spoken to over the line protocol of
``docs/protocol.md``. Between its reply and the referee's next request a
seat's processes are stopped (SIGSTOP), so a bot uses no time but its own.
Every way a bot can fail becomes a ``BotFailure`` with one of the statuses
of ``STATUSES``; the referee never waits past a deadline, never blocks
writing, and parses every reply with bounds on its size and nesting. A
failure of the sandbox itself is a ``ConfinementError``: the referee's
fault, never blamed on a bot.
"""

from __future__ import annotations

import atexit
import contextlib
import errno
import fcntl
import importlib.util
import json
import os
import re
import select
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Optional, Protocol

from ..bots.sdk import compact_json
from . import confine
from .confine import ConfinementError, Sandbox

__all__ = ["STATUSES", "BotFailure", "ConfinementError", "Limits", "Sandbox", "SeatProcess",
           "check_bot", "open_process", "safe_text"]

JAIL = Path(__file__).with_name("jail.py")
SDK = Path(__file__).parents[1] / "bots" / "sdk.py"

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


_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029]")


def safe_text(text: str, limit: int = 500) -> str:
    """Text a bot controls, made safe to store, print and render: at most
    ``limit`` characters, every control character (terminal escapes, carriage
    returns, bells) written as an escape such as ``\\x1b``."""
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


# Seats of a bot server ----------------------------------------------------------------


def _proc_pid(pidfd: int) -> int:
    """The pid, in this process's namespace, of the process a pidfd refers to."""
    with open(f"/proc/self/fdinfo/{pidfd}") as f:
        for line in f:
            if line.startswith("Pid:"):
                return int(line.split()[1])
    raise ConfinementError("this kernel does not report a pidfd's pid (Linux 5.4+ needed)")


class PidfdControl:
    """A seat made by a bot server: its process 1 by pidfd, its whole PID
    namespace when it may start processes, and the status pipe its parent
    writes how it ended to.

    Stopping a process costs it a wake-up and a context switch, twice a
    decision. A seat with ``processes = 0`` is one task (no threads: its
    process limit counts them), with no timers to wake it (the system-call
    filter refuses them) and nobody else in its namespaces: blocked in
    ``read``, it cannot run again before the referee writes to it. So such a
    seat is stopped only if it is not blocked in ``read`` after its reply."""

    def __init__(self, pidfd: int, status: int, processes: int) -> None:
        self.pidfd = pidfd
        self.status = status
        self.pid = _proc_pid(pidfd)
        self.namespace = os.readlink(f"/proc/{self.pid}/ns/pid") if processes else ""
        self.stat = os.open(f"/proc/{self.pid}/stat", os.O_RDONLY | os.O_CLOEXEC)
        self.syscall = -1 if processes else os.open(f"/proc/{self.pid}/syscall",
                                                    os.O_RDONLY | os.O_CLOEXEC)
        self.stopped: list[int] = []
        self.halted = False  # process 1 was sent SIGSTOP
        self.dead = False

    def _idle(self) -> bool:
        """Whether the one task of the seat is blocked in ``read`` (number 0)."""
        try:
            return os.pread(self.syscall, 64, 0).split(b" ", 1)[0] == b"0"
        except OSError:
            return False

    def _signal(self, sig: int) -> None:
        with contextlib.suppress(ProcessLookupError, OSError):
            signal.pidfd_send_signal(self.pidfd, sig)

    def _members(self) -> list[int]:
        """Every process of the seat's PID namespace but its process 1."""
        found = []
        for entry in os.listdir("/proc"):
            if entry.isdigit() and int(entry) != self.pid:
                with contextlib.suppress(OSError):
                    if os.readlink(f"/proc/{entry}/ns/pid") == self.namespace:
                        found.append(int(entry))
        return found

    def stop(self) -> None:
        if not self.namespace and self.syscall >= 0 and self._idle():
            return
        self._signal(signal.SIGSTOP)
        self.halted = True
        if not self.namespace:
            return
        seen: set[int] = set()
        while True:  # until a pass finds no process not yet stopped
            fresh = [pid for pid in self._members() if pid not in seen]
            if not fresh:
                break
            for pid in fresh:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGSTOP)
            seen.update(fresh)
        self.stopped = sorted(seen)

    def resume(self) -> None:
        for pid in self.stopped:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGCONT)
        self.stopped = []
        if self.halted:
            self._signal(signal.SIGCONT)
            self.halted = False

    def cpu_seconds(self) -> float:
        """User and system time of process 1 and its waited-for children."""
        try:
            fields = os.pread(self.stat, 1024, 0).rsplit(b")", 1)[1].split()
        except OSError:
            return 0.0
        ticks = sum(int(f) for f in fields[11:15])  # utime stime cutime cstime
        return ticks / os.sysconf("SC_CLK_TCK")

    def ending(self) -> dict[str, Any]:
        """How the seat ended, from its parent's status pipe (waits up to 1 s)."""
        self._signal(signal.SIGCONT)
        text = b""
        deadline = time.monotonic() + 1.0
        while time.monotonic() < deadline:
            if not select.select([self.status], [], [], 0.1)[0]:
                continue
            chunk = os.read(self.status, 4096)
            if not chunk:
                break
            text += chunk
        ending: dict[str, Any] = {}
        for line in text.splitlines():
            with contextlib.suppress(ValueError):
                ending.update(json.loads(line))
        return ending

    def kill(self) -> None:
        if self.dead:
            return
        self.dead = True
        self._signal(signal.SIGKILL)  # process 1: its whole namespace goes with it
        for fd in (self.pidfd, self.status, self.stat, self.syscall):
            with contextlib.suppress(OSError):
                os.close(fd)


class BotServer:
    """A submitted bot's warm server, in its bubblewrap sandbox."""

    def __init__(self, kind: str, target: str, limits: Limits, packages: tuple[str, ...]
                 ) -> None:
        self.limits = limits
        self.process: Optional[subprocess.Popen] = None
        self.pidfd: Optional[int] = None  # the server: process 1 of the sandbox
        self.control, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.log = tempfile.TemporaryFile()  # noqa: SIM115 - closed in close()
        spec = {**asdict(limits), "startup_seconds": limits.startup}
        try:
            command = confine.server_command(kind, target, spec, packages, theirs.fileno(),
                                             limits.startup)
            self.process = subprocess.Popen(
                command, pass_fds=[theirs.fileno()], stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL, stderr=self.log, start_new_session=True)
            theirs.close()
            reply, fds = self._receive(limits.startup)
            if fds:
                self.pidfd = fds[0]
            if reply.get("type") != "ready" or len(fds) != 1:
                raise ConfinementError(f"the bot server did not start: {reply}")
        except (OSError, ConfinementError) as e:
            theirs.close()
            self.close()
            raise e if isinstance(e, ConfinementError) else \
                ConfinementError(f"cannot start bwrap: {e}") from None

    def _receive(self, seconds: float) -> tuple[dict[str, Any], list[int]]:
        if not select.select([self.control], [], [], seconds)[0]:
            raise ConfinementError(f"the bot server did not answer within {seconds:g} s"
                                   f"{self._log()}")
        data, fds, _, _ = socket.recv_fds(self.control, 4096, 8)
        if not data:
            raise ConfinementError(f"the bot server ended{self._log()}")
        try:
            return json.loads(data), fds
        except ValueError:
            for fd in fds:
                os.close(fd)
            raise ConfinementError(f"the bot server said {data[:200]!r}") from None

    def _log(self) -> str:
        with contextlib.suppress(OSError, ValueError):
            self.log.seek(0)
            text = self.log.read()[-500:].decode(errors="replace").strip()
            return f": {text}" if text else ""
        return ""

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def seat(self) -> SeatProcess:
        """A fresh seat process, stopped until its first request."""
        try:
            self.control.send(b"seat")
        except OSError as e:
            raise ConfinementError(f"the bot server is gone: {e}{self._log()}") from None
        reply, fds = self._receive(self.limits.startup)
        if reply.get("type") != "seat" or len(fds) != 5:
            for fd in fds:
                os.close(fd)
            raise ConfinementError(f"the bot server could not make a seat: "
                                   f"{reply.get('message', reply)}")
        pidfd, stdin, stdout, stderr, status = fds
        control = PidfdControl(pidfd, status, self.limits.processes)
        control.stop()
        return SeatProcess(stdin, stdout, stderr, control, self.limits)

    def _end_sandbox(self) -> bool:
        """Kill the server, process 1 of the sandbox, and wait for it; False
        if it never started."""
        if self.pidfd is None:
            return False
        with contextlib.suppress(OSError):
            signal.pidfd_send_signal(self.pidfd, signal.SIGKILL)
        # Readable once process 1 has exited, which the kernel lets happen
        # only after every other process of its namespaces is gone.
        select.select([self.pidfd], [], [], 5.0)
        os.close(self.pidfd)
        self.pidfd = None
        return True

    def close(self) -> None:
        """End the sandbox, and return only once every process in it is gone."""
        ended = self._end_sandbox()
        if self.process is not None:
            try:  # bwrap reaps the sandbox's process 1, then exits
                self.process.wait(timeout=5 if ended else 0.1)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(self.process.pid, signal.SIGKILL)
                with contextlib.suppress(subprocess.TimeoutExpired):
                    self.process.wait(timeout=5)
        self.control.close()
        self.log.close()


_SERVERS: dict[tuple, BotServer] = {}


def _server(kind: str, target: str, limits: Limits, packages: tuple[str, ...]) -> BotServer:
    """This process's server for a bot, started on first use (and again if it died)."""
    key = (kind, target, limits, packages)
    server = _SERVERS.get(key)
    if server is not None and not server.alive():
        server.close()
        server = None
    if server is None:
        server = _SERVERS[key] = BotServer(kind, target, limits, packages)
    return server


@atexit.register
def close_servers() -> None:
    """End every bot server of this process."""
    while _SERVERS:
        _SERVERS.popitem()[1].close()


def probe_sandbox() -> Optional[str]:
    """Make one real seat on this machine, as a tournament would: None if the
    sandbox works here, else why not."""
    argv = [confine.interpreter(), "-I", "-S", "-c",
            'import sys; sys.stdout.write(\'{"type": "ready"}\\n\')']
    limits = Limits(decision_seconds=10.0)
    try:
        server = BotServer("command", json.dumps(argv), limits, ())
    except ConfinementError as e:
        return str(e)
    try:
        seat = server.seat()
        seat.control.resume()
        line = seat._line(time.perf_counter() + 10, 10)
        seat.kill()
        return None if b"ready" in line else f"a test seat answered {line[:80]!r}"
    except (ConfinementError, BotFailure) as e:
        return f"a test seat failed: {e}"
    finally:
        server.close()


# The weaker isolation an organiser may opt in to -----------------------------------------


class PopenControl:
    """A seat started directly (``sandbox.weaker = "rlimits"``): its process group."""

    def __init__(self, process: subprocess.Popen, tempdir: Optional[str]) -> None:
        self.process = process
        self.tempdir = tempdir

    def _group(self, sig: int) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, sig)

    def stop(self) -> None:
        self._group(signal.SIGSTOP)

    def resume(self) -> None:
        self._group(signal.SIGCONT)

    def cpu_seconds(self) -> float:
        try:
            with open(f"/proc/{self.process.pid}/stat", "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
        except OSError:
            return 0.0
        return sum(int(x) for x in fields[11:15]) / os.sysconf("SC_CLK_TCK")

    def ending(self) -> dict[str, Any]:
        self._group(signal.SIGCONT)
        try:
            code = self.process.wait(timeout=1.0)
        except subprocess.TimeoutExpired:
            return {}
        return {"signal": -code} if code < 0 else {"exit": code}

    def kill(self) -> None:
        self._group(signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=5)
        if self.tempdir is not None:
            import shutil

            shutil.rmtree(self.tempdir, ignore_errors=True)


def _weaker(kind: str, target: str, limits: Limits) -> SeatProcess:
    """A seat process with resource limits only (see jail.py)."""
    if kind == "command":
        command = json.loads(target)
    else:
        flag = "--path" if kind == "path" else "--module"
        command = [sys.executable, "-s", str(SDK), flag, target]
    workdir = tempfile.mkdtemp(prefix="cardref-bot-")
    user = confine.sandbox_uid()
    spec = {"limits": asdict(limits), "own_user": bool(user), "workdir": workdir}
    launcher = [sys.executable, "-S", "-E", str(JAIL), json.dumps(spec)]
    if user:  # root: the bot's own user, who must still reach the interpreter
        os.chown(workdir, user[0], user[1])
        reach = {sys.base_prefix, sys.prefix, *(p for p in sys.path if os.path.isdir(p)),
                 *(p for p in command if os.path.isabs(p) and os.path.exists(p))}
        stage = {"uid": user[0], "gid": user[1], "expose": sorted(reach)}
        launcher = [sys.executable, "-S", "-E", str(confine.STAGE), json.dumps(stage),
                    *launcher]
    env = {**confine.ENVIRONMENT, "HOME": workdir, "TMPDIR": workdir,
           "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    process = subprocess.Popen(
        [*launcher, *command],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
        start_new_session=True, close_fds=True, cwd=workdir)
    control = PopenControl(process, workdir)
    fds = [os.dup(s.fileno()) for s in (process.stdin, process.stdout, process.stderr)]
    for stream in (process.stdin, process.stdout, process.stderr):
        stream.close()  # type: ignore[union-attr]
    return SeatProcess(fds[0], fds[1], fds[2], control, limits)


def open_process(kind: str, target: str, limits: Limits, sandbox: Sandbox) -> SeatProcess:
    """A fresh seat process for a submitted bot, confined as ``sandbox`` says."""
    if sandbox.mode == "bubblewrap":
        return _server(kind, target, limits, sandbox.packages).seat()
    return _weaker(kind, target, limits)


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
