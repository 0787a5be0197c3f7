"""Bot servers: one per submitted bot and referee process, each in its own
bubblewrap sandbox (``confine.py``), making a fresh confined seat process for
every seat of every game (``cardref.bots.seatserver``).

The referee holds each seat by pidfd: to stop and resume it between its
turns, read its CPU time and kill it with everything it started. A server
ends, with every process in its sandbox, when this process ends it
(``close_servers``) or goes away.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import select
import signal
import socket
import subprocess
import tempfile
import time
from dataclasses import asdict
from typing import Any, Optional

from . import confine
from .confine import ConfinementError
from .sandbox import BotFailure, Limits, SeatProcess

#: Where a task asleep reading a pipe waits (``/proc/PID/wchan``; the name
#: changed in Linux 6.x).
PIPE_READ = (b"pipe_read", b"anon_pipe_read")


def _proc_pid(pidfd: int) -> int:
    """The pid, in this process's namespace, of the process a pidfd refers to."""
    with open(f"/proc/self/fdinfo/{pidfd}") as f:
        for line in f:
            if line.startswith("Pid:"):
                pid = int(line.split()[1])
                if pid <= 0:
                    raise ConfinementError("the seat ended before it was handed over")
                return pid
    raise ConfinementError("this kernel does not report a pidfd's pid (Linux 5.4+ needed)")


class PidfdControl:
    """A seat made by a bot server: its process 1 by pidfd, its whole PID
    namespace when it may start processes, and the status pipe its parent
    writes how it ended to.

    Stopping a process costs it a wake-up and a context switch, twice a
    decision. A seat with ``processes = 0`` is one task (no threads: its
    process limit counts them), with no timers to wake it (the system-call
    filter refuses them) and nobody else in its namespaces: blocked in
    ``read`` on a pipe, it cannot run again before the referee writes to its
    standard input (no one else holds a pipe's other end). So such a seat is
    stopped only if it is not asleep reading a pipe after its reply. Not
    merely in ``read``: a read of a socket or a terminal can end by itself
    (``SO_RCVTIMEO``, ``VTIME``)."""

    def __init__(self, pidfd: int, status: int, processes: int) -> None:
        self.pidfd = pidfd
        self.status = status
        self.pid = _proc_pid(pidfd)
        self.namespace = os.readlink(f"/proc/{self.pid}/ns/pid") if processes else ""
        self.stat = os.open(f"/proc/{self.pid}/stat", os.O_RDONLY | os.O_CLOEXEC)
        self.wchan = -1 if processes else os.open(f"/proc/{self.pid}/wchan",
                                                  os.O_RDONLY | os.O_CLOEXEC)
        self.stopped: list[int] = []
        self.halted = False  # process 1 was sent SIGSTOP
        self.dead = False

    def _idle(self) -> bool:
        """Whether the one task of the seat is asleep reading a pipe: where
        it sleeps, as the kernel names it (False if it does not say)."""
        try:
            return os.pread(self.wchan, 64, 0) in PIPE_READ
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
        if not self.namespace and self.wchan >= 0 and self._idle():
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
        for fd in (self.pidfd, self.status, self.stat, self.wchan):
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
        try:
            control = PidfdControl(pidfd, status, self.limits.processes)
        except (OSError, ConfinementError) as e:
            for fd in fds:
                os.close(fd)
            raise ConfinementError(f"the bot server could not make a seat: {e}") from None
        control.halted = True  # the server stopped it before handing it over
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


def server_for(kind: str, target: str, limits: Limits, packages: tuple[str, ...]) -> BotServer:
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
