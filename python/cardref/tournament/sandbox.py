"""Untrusted bots in their own processes: limits, the protocol client, statuses.

A ``BotProcess`` is one bot playing one seat of one game: a fresh process,
started through ``jail.py`` (namespaces, resource limits, a private working
directory, a separate user when the referee is root), spoken to over the
line-based JSON protocol of ``docs/protocol.md``. Every way it can fail
becomes a ``BotFailure`` with one of the statuses of ``STATUSES``; the
referee never waits on it past a deadline and never blocks writing to it.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import IO, Any, Optional

from ..bots.sdk import compact_json

JAIL = Path(__file__).with_name("jail.py")
SDK = Path(__file__).parents[1] / "bots" / "sdk.py"

#: Every failure status, for reports and docs: see docs/protocol.md.
STATUSES = ("error", "crash", "timeout", "invalid", "illegal", "malformed", "protocol",
            "limit")

#: Exceptions a bot reports that mean it ran into one of its resource limits.
LIMIT_ERRORS = ("MemoryError",)
LIMIT_ERRNOS = (errno.EAGAIN, errno.EMFILE, errno.ENFILE, errno.EFBIG, errno.ENOMEM)


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
    """A bot process failed; ``status`` is one of STATUSES."""

    def __init__(self, status: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def scrubbed_env(workdir: str) -> dict[str, str]:
    """The whole environment a bot gets: nothing of the referee's but the
    Python path needed to import the SDK."""
    path = os.pathsep.join(p for p in sys.path if p)
    return {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": workdir, "TMPDIR": workdir, "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8",
        "PYTHONPATH": path, "PYTHONDONTWRITEBYTECODE": "1", "PYTHONHASHSEED": "0",
        "PYTHONUNBUFFERED": "1", "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
    }


def sdk_command(kind: str, target: str, check: bool = False) -> list[str]:
    """The command running a Python bot under the SDK."""
    flag = "--path" if kind == "path" else "--module"
    return [sys.executable, "-s", str(SDK), flag, target,
            *(["--check"] if check else [])]


_SLOTS = iter(range(1 << 30))


class BotProcess:
    """One confined bot process, spoken to over the protocol."""

    def __init__(self, command: list[str], limits: Limits, copy: Optional[str] = None) -> None:
        """Start ``command`` (for SDK bots built by ``spawn``); ``copy`` is a bot
        file to place into the private directory under the same name."""
        self.limits = limits
        self.buffer = bytearray()
        self.closed = False
        root = os.geteuid() == 0
        self.tempdir: Optional[str] = None
        if root:
            workdir = "/tmp/cardref-bot"  # inside the process's own tmpfs
            uid = 1_000_000 + 64 * os.getpid() + next(_SLOTS) % 64
        else:
            self.tempdir = workdir = tempfile.mkdtemp(prefix="cardref-bot-")
            uid = None
        spec: dict[str, Any] = {
            "workdir": workdir, "uid": uid, "limits": asdict(limits),
            "tmpfs_bytes": max(limits.output_bytes, 1 << 20),
            "expose": sorted({sys.base_prefix, sys.prefix,
                              os.path.dirname(os.path.realpath(sys.executable)),
                              *(p for p in sys.path if p and os.path.isdir(p))}),
        }
        if copy is not None:
            target = os.path.join(workdir, os.path.basename(copy))
            spec["copy"] = [copy, target]
            command = [target if part == copy else part for part in command]
        self.stderr: IO[bytes] = tempfile.TemporaryFile()  # noqa: SIM115 - closed in kill
        self.process = subprocess.Popen(
            [sys.executable, "-S", "-E", str(JAIL), json.dumps(spec), *command],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.stderr,
            env=scrubbed_env(workdir), start_new_session=True, close_fds=True, bufsize=0,
        )
        assert self.process.stdin is not None and self.process.stdout is not None
        self.in_fd = self.process.stdin.fileno()
        self.out_fd = self.process.stdout.fileno()
        flags = fcntl.fcntl(self.in_fd, fcntl.F_GETFL)
        fcntl.fcntl(self.in_fd, fcntl.F_SETFL, flags | os.O_NONBLOCK)

    @classmethod
    def spawn(cls, kind: str, target: str, limits: Limits) -> BotProcess:
        """A bot given as in a config: ``command`` (target: JSON array), or a
        Python ``path``/``module`` run under the SDK."""
        if kind == "command":
            return cls(json.loads(target), limits)
        command = sdk_command(kind, target)
        copy = target if kind == "path" and os.geteuid() == 0 else None
        return cls(command, limits, copy=copy)

    # The protocol -------------------------------------------------------------

    def request(self, message: dict[str, Any], seconds: float, kind: str) -> dict[str, Any]:
        """Send ``message`` and return the reply of type ``kind``, within ``seconds``.

        Raises BotFailure for anything else; the process is then killed.
        """
        return self.request_text(compact_json(message), seconds, kind)

    def request_text(self, message: str, seconds: float, kind: str) -> dict[str, Any]:
        """``request`` for a message already encoded as one line of JSON text."""
        deadline = time.perf_counter() + seconds
        try:
            self._send(message.encode() + b"\n", deadline)
            line = self._line(deadline, seconds)
            try:
                reply = json.loads(line)
            except ValueError:
                raise BotFailure("malformed", f"not a JSON line: {line[:80]!r}") from None
            if not isinstance(reply, dict):
                raise BotFailure("malformed", f"not a JSON object: {line[:80]!r}")
            got = reply.get("type")
            if got == "error":
                name = str(reply.get("error"))
                text = f"{name}: {str(reply.get('message'))[:300]}"
                if name in LIMIT_ERRORS or reply.get("errno") in LIMIT_ERRNOS:
                    raise BotFailure("limit", f"a resource limit: {text}")
                raise BotFailure("error", f"raised {text}")
            if got == "invalid":
                raise BotFailure("invalid", str(reply.get("message"))[:300])
            if got != kind:
                raise BotFailure("protocol", f"expected a {kind!r} reply, got {line[:80]!r}")
            return reply
        except BotFailure:
            self.kill()
            raise

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
            select.select([], [self.in_fd], [], remaining)

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
            if remaining <= 0 or not select.select([self.out_fd], [], [], remaining)[0]:
                if time.perf_counter() >= deadline:
                    raise BotFailure("timeout", f"no reply within {seconds:.3g} s")
                continue
            chunk = os.read(self.out_fd, 1 << 16)
            if not chunk:
                raise self._death()
            self.buffer += chunk

    def _death(self) -> BotFailure:
        """The failure of a process that closed its output (it exited or died)."""
        try:
            code = self.process.wait(timeout=1.0)
        except subprocess.TimeoutExpired:
            self.kill()
            return BotFailure("protocol", "closed its output without exiting")
        tail = self.stderr_tail()
        said = f"; stderr: {tail}" if tail else ""
        if code < 0:
            sig = -code
            name = signal.Signals(sig).name if sig in signal.valid_signals() else str(sig)
            if sig == signal.SIGXCPU:
                return BotFailure("limit", f"CPU time limit ({self.limits.cpu_seconds} s)")
            if sig == signal.SIGXFSZ:
                return BotFailure("limit", f"output size limit ({self.limits.output_bytes} "
                                  f"bytes written to a file or standard error)")
            return BotFailure("crash", f"killed by {name}{said}")
        return BotFailure("crash", f"exited with code {code}{said}")

    def stderr_tail(self, size: int = 200) -> str:
        try:
            self.stderr.seek(0, os.SEEK_END)
            end = self.stderr.tell()
            self.stderr.seek(max(0, end - size))
            return self.stderr.read().decode("utf-8", "replace").strip()
        except (OSError, ValueError):
            return ""

    # Ending -------------------------------------------------------------------

    def finish(self, seconds: float) -> None:
        """Close the input and give the bot ``seconds`` to exit, then kill it."""
        if self.closed:
            return
        try:
            self.process.stdin.close()  # type: ignore[union-attr]
            self.process.wait(timeout=seconds)
        except (OSError, subprocess.TimeoutExpired):
            pass
        self.kill()

    def kill(self) -> None:
        """Kill the bot's whole process group and free everything it held."""
        if self.closed:
            return
        self.closed = True
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=5)
        for stream in (self.process.stdin, self.process.stdout, self.stderr):
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass
        if self.tempdir is not None:
            import shutil

            shutil.rmtree(self.tempdir, ignore_errors=True)


def check_bot(kind: str, target: str, limits: Limits) -> Optional[str]:
    """Load a Python bot in a confined process: None if usable, else why not."""
    command = sdk_command(kind, target, check=True)
    copy = target if kind == "path" and os.geteuid() == 0 else None
    bot = BotProcess(command, limits, copy=copy)
    try:
        line = bot._line(time.perf_counter() + limits.startup, limits.startup)
        reply = json.loads(line)
    except (BotFailure, ValueError) as e:
        return f"its process failed while loading it: {e}"
    finally:
        bot.kill()
    if reply.get("type") == "usable":
        return None
    return str(reply.get("message"))
