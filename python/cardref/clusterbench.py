"""``cardref bench --cluster``: a tournament on a Dask cluster of this machine,
with one worker and with two, and what the coordinator costs per game.

It starts a ``dask scheduler`` and single-thread ``dask worker`` processes on
localhost (``LocalDask``), plays the same round robin of built-in Take 5
bots on one worker and then on two, each into a fresh results file, and
prints the wall time, games per second, the speed-up of two workers over one
and the coordinator's CPU time per game (choosing, submitting, receiving and
storing games: everything this process does). The local process pool is
timed alongside for comparison. A measurement, never a pass/fail test; on a
machine shared with other work the figures move.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Optional

from rich.console import Console
from rich.table import Table

WAIT = 60.0  # seconds a process may take to start

CONFIG = """game = "take5"
players = 4
seed = 7
deal_groups = {groups}
output = "{output}"
[[bots]]
name = "heuristic"
builtin = "heuristic"
[[bots]]
name = "heuristic-2"
builtin = "heuristic"
[[bots]]
name = "random"
builtin = "random"
[[bots]]
name = "random-2"
builtin = "random"
"""


class LocalDask:
    """A Dask scheduler and named single-thread workers on localhost, each
    its own process (and process group), logs in ``directory``; with ``tls``
    (CA file, certificate, key) every connection uses TLS."""

    def __init__(self, directory: Path, tls: Optional[tuple[str, str, str]] = None) -> None:
        self.directory = directory
        self.workers: dict[str, subprocess.Popen] = {}
        self.tls = [] if tls is None else [
            "--tls-ca-file", tls[0], "--tls-cert", tls[1], "--tls-key", tls[2]]
        info = directory / "scheduler.json"
        protocol = ["--protocol", "tls"] if tls else []
        self.scheduler = self._start(["scheduler", *protocol, "--host", "127.0.0.1", "--port",
                                      "0", "--scheduler-file", str(info), *self.tls],
                                     "scheduler")
        deadline = time.monotonic() + WAIT
        while True:
            try:
                self.address = json.loads(info.read_text())["address"]
                break
            except (OSError, ValueError, KeyError):
                if time.monotonic() > deadline or self.scheduler.poll() is not None:
                    self.stop()
                    raise RuntimeError(f"the Dask scheduler did not start; see "
                                       f"{directory / 'scheduler.log'}") from None
                time.sleep(0.1)

    def _start(self, args: list[str], log: str) -> subprocess.Popen:
        with open(self.directory / f"{log}.log", "a") as out:
            return subprocess.Popen([sys.executable, "-m", "dask", *args, "--no-dashboard"],
                                    cwd=self.directory, stdout=out, stderr=subprocess.STDOUT,
                                    start_new_session=True)

    def ensure_workers(self, names: Sequence[str]) -> None:
        """Exactly the named workers: start those not running, stop others,
        and wait until the scheduler knows just them."""
        for name in [n for n in self.workers if n not in names]:
            self._end([self.workers.pop(name)])
        for name in names:
            process = self.workers.get(name)
            if process is None or process.poll() is not None:
                self.workers[name] = self._start(
                    ["worker", self.address, "--nthreads", "1", "--no-nanny", "--name", name,
                     "--death-timeout", "60", *self.tls], name)
        from distributed import Client, Security

        security = Security(tls_ca_file=self.tls[1], tls_client_cert=self.tls[3],
                            tls_client_key=self.tls[5]) if self.tls else None
        with Client(self.address, timeout=WAIT, set_as_default=False,
                    security=security) as client:
            deadline = time.monotonic() + WAIT
            while sorted(i["name"] for i in client.scheduler_info()["workers"].values()) \
                    != sorted(names):
                if time.monotonic() > deadline:
                    raise RuntimeError(f"the Dask workers {', '.join(names)} did not join; "
                                       f"see the logs in {self.directory}")
                time.sleep(0.2)

    def kill(self, name: str) -> None:
        """SIGKILL a worker: no chance to hand anything over."""
        os.kill(self.workers[name].pid, signal.SIGKILL)
        self.workers[name].wait(WAIT)

    def stop(self) -> None:
        """The workers (with their game hosts) first, then the scheduler."""
        self._end(list(self.workers.values()))
        self._end([self.scheduler])

    @staticmethod
    def _end(processes: list[subprocess.Popen]) -> None:
        for process in processes:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
        for process in processes:
            try:
                process.wait(15)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait(WAIT)


def _tournament(directory: Path, name: str, groups: int, executor: Any = None,
                workers: int = 1) -> tuple[float, float, int]:
    """Wall seconds, this process's CPU seconds and games of one run."""
    from .tournament import runner
    from .tournament.config import load_config
    from .tournament.schedule import build_schedule
    from .tournament.store import Store

    path = directory / f"{name}.toml"
    path.write_text(CONFIG.format(groups=groups, output=f"{name}.sqlite"))
    config = load_config(path)
    with Store(config.output) as store:
        store.initialise(config, build_schedule(config))
        wall, cpu = time.perf_counter(), time.process_time()
        played = runner.run(config, store, workers, executor=executor)
        return time.perf_counter() - wall, time.process_time() - cpu, played


def measure(groups: int, directory: Path) -> list[tuple[str, float, float, int]]:
    """(setting, wall s, coordinator CPU s, games) for each setting."""
    from . import cluster
    from .tournament.cluster import DaskExecutor
    from .tournament.config import load_config
    from .tournament.referee import TableSetup

    rows = [("local: 1 process", *_tournament(directory, "serial", groups)),
            ("local: pool of 2 processes", *_tournament(directory, "pool", groups,
                                                        workers=2))]
    dask = LocalDask(directory)
    try:
        for names in (["w1"], ["w1", "w2"]):
            dask.ensure_workers(names)
            client = cluster.connect(dask.address)
            try:
                setup = TableSetup.from_config(load_config(directory / "serial.toml"))
                executor = DaskExecutor(client, setup)
                rows.append((f"Dask: {len(names)} worker(s)", *_tournament(
                    directory, f"dask{len(names)}", groups, executor)))
            finally:
                client.close()
    finally:
        dask.stop()
    return rows


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="cardref bench --cluster",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--cluster", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--deal-groups", type=int, default=250,
                        help="deal groups of the round robin, 4 games each (default 250)")
    args = parser.parse_args(argv)
    console = Console()
    with tempfile.TemporaryDirectory() as tmp, console.status("playing…"):
        rows = measure(args.deal_groups, Path(tmp))
    table = Table(title=f"cardref bench --cluster: Take 5, 4 built-in bots, "
                        f"{rows[0][3]} games per run")
    for column in ("setting", "wall s", "games/s", "speed-up", "coordinator ms/game"):
        table.add_column(column, justify="left" if column == "setting" else "right")
    serial, one = rows[0][1], rows[2][1]
    for label, wall, cpu, games in rows:
        base = one if label.startswith("Dask") else serial
        table.add_row(label, f"{wall:.2f}", f"{games / wall:.1f}", f"{base / wall:.2f}×",
                      f"{1000 * cpu / max(games, 1):.2f}")
    console.print(table)
    console.print("speed-up: over 1 local process, or over 1 Dask worker; the coordinator's "
                  "ms/game is its CPU time (for local runs it includes playing the games "
                  "itself with 1 process)")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    console.print(f"load average {load:.2f} on {os.cpu_count()} cores")
    return 0
