"""A game host: the child process in which a Dask worker's games are played.

Dask runs tasks in threads of the worker process, where the referee's
guarantees do not hold: only a main thread may use SIGALRM (the guard of
in-process bots), and a bot that crashes its interpreter would take the
worker with it. So each worker thread keeps one host process (started by
``tournament/cluster.py``) and hands it games over a pipe: the host plays
them in its main thread with ``referee.play_or_fault``, exactly as a process of
the local pool does, and answers with the records. It dies with its parent
(``PR_SET_PDEATHSIG`` on Linux), so a killed worker leaves no games running,
and the sandbox's bot processes die with the host.

The pipe carries length-prefixed pickles in both directions; it joins this
process to its own parent only. Requests: ``("check", setup)`` (the problems
of the setup's bots, checked the way they will run, as ``entries.check``
does before a local run) and ``("play", (setup, games, disqualified))``.
"""

from __future__ import annotations

import ctypes
import os
import pickle
import signal
import struct
import sys
from typing import IO, Any, Optional

from ..bots import BotLoadError
from .botserver import close_servers
from .entries import check
from .referee import TableSetup, play_or_fault

PR_SET_PDEATHSIG = 1


def send(stream: IO[bytes], value: Any) -> None:
    data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(struct.pack("<Q", len(data)) + data)
    stream.flush()


def receive(stream: IO[bytes]) -> Optional[Any]:
    """The next message, or None at the end of the stream."""
    head = stream.read(8)
    if len(head) < 8:
        return None
    (size,) = struct.unpack("<Q", head)
    data = stream.read(size)
    if len(data) < size:
        return None
    return pickle.loads(data)


def problems(setup: TableSetup) -> list[str]:
    """Each bot that cannot play here, checked the way it will run."""
    out = []
    for name, (kind, target) in setup.bots.items():
        isolation = "process" if name in setup.isolated else "inprocess"
        try:
            check(kind, target, isolation, setup.limits, setup.sandbox)
        except BotLoadError as e:
            out.append(f"bot {name!r} ({kind} {target}): {e}")
    return out


def _die_with_parent() -> None:
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        if os.getppid() == 1:  # the parent died before the line above
            os._exit(1)


def main() -> None:
    _die_with_parent()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the coordinator handles Ctrl-C
    requests = sys.stdin.buffer
    replies = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # what an in-process bot prints must not reach the pipe
    while True:
        request = receive(requests)
        if request is None:
            close_servers()  # nothing of the bots outlives the host
            return
        kind, payload = request
        if kind == "check":
            send(replies, problems(payload))
            close_servers()  # the checks' sandboxes: the games start their own
        else:
            setup, games, disqualified = payload
            send(replies, [play_or_fault(setup, game, disqualified) for game in games])


if __name__ == "__main__":
    main()
