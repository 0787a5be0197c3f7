"""The weaker isolation an organiser may opt in to (``sandbox.weaker =
"rlimits"``, where bubblewrap cannot run): a seat process started directly
through ``jail.py`` (resource limits; as root, a user of its own through
``stage.py``), stopped and killed by its process group."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import tempfile
from dataclasses import asdict
from pathlib import Path
from typing import Any, Optional

from . import confine
from .sandbox import Limits, SeatProcess

JAIL = Path(__file__).with_name("jail.py")
SDK = Path(__file__).parents[1] / "bots" / "sdk.py"


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


def start(kind: str, target: str, limits: Limits) -> SeatProcess:
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
