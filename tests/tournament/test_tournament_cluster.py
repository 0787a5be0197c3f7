"""Tournaments and simulate on a real Dask cluster on this machine: a
``dask scheduler`` and two ``dask worker`` processes, started and stopped by
the fixture, every wait bounded."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

import cardref
from cardref import cluster
from cardref.cli import main
from cardref.cluster import ClusterError, resolve_address
from cardref.clusterbench import WAIT, LocalDask
from cardref.tournament import runner
from cardref.tournament.config import load_config
from cardref.tournament.referee import TableSetup
from cardref.tournament.schedule import build_schedule
from cardref.tournament.store import Store


class Cluster(LocalDask):
    def ensure_workers(self, names=("w1", "w2")) -> None:
        super().ensure_workers(names)


@pytest.fixture(scope="module")
def dask_cluster(tmp_path_factory):
    """Every wait of the processes' start and stop is bounded (LocalDask)."""
    processes = Cluster(tmp_path_factory.mktemp("dask"))
    try:
        processes.ensure_workers()
        yield processes
    finally:
        processes.stop()


FIELD = """
game = "take5"
players = 3
seed = 21
deal_groups = {groups}
output = "{output}"
[variant]
end_score = 30
[[bots]]
name = "heuristic"
builtin = "heuristic"
[[bots]]
name = "random"
builtin = "random"
[[bots]]
name = "first"
path = "bots/first.py"
"""


def test_a_cluster_run_stores_the_games_of_a_local_run(dask_cluster, make_config, workspace,
                                                       capsys, stored_games):
    local = make_config(FIELD.format(groups=4, output="local.sqlite"), name="local.toml")
    assert main(["tournament", str(local), "--workers", "1", "--quiet"]) == 0
    dask_cluster.ensure_workers()
    remote = make_config(FIELD.format(groups=4, output="remote.sqlite"), name="remote.toml")
    capsys.readouterr()
    assert main(["tournament", str(remote), "--scheduler", dask_cluster.address]) == 0
    shown = " ".join(capsys.readouterr().out.split())
    assert f"a Dask cluster at {dask_cluster.address} (2 worker(s), 2 thread(s))" in shown
    assert "24/24" in shown and "Live standings" in shown
    # The path bot "first" went to the workers by content and played in its
    # sandbox there: the stored games equal the local run's, key by key.
    games, actions = stored_games(workspace / "remote.sqlite", True)
    assert len(games) == 24 and (games, actions) == stored_games(workspace / "local.sqlite",
                                                                 True)


def test_a_worker_killed_mid_run_loses_nothing(dask_cluster, make_config, workspace,
                                               stored_games):
    dask_cluster.ensure_workers()
    path = make_config(FIELD.format(groups=10, output="killed.sqlite"))
    config = load_config(path)
    client = cluster.connect(dask_cluster.address)
    from cardref.tournament.cluster import DaskExecutor

    executor = DaskExecutor(client, TableSetup.from_config(config), one_per_group=True)
    busy = []

    def kill_w1_once(record) -> None:
        if not busy and len(store.finished_keys()) >= 8:
            workers = {info["name"]: address
                       for address, info in client.scheduler_info()["workers"].items()}
            busy.append(len(client.processing()[workers["w1"]]))
            dask_cluster.kill("w1")

    try:
        with Store(config.output) as store:
            store.initialise(config, build_schedule(config))
            runner.run(config, store, 1, on_game=kill_w1_once, executor=executor)
            assert busy and busy[0] >= 1  # w1 was playing a batch when it was killed
            assert len(store.finished_keys()) == store.scheduled() == 60
    finally:
        client.close()
    local = make_config(FIELD.format(groups=10, output="reference.sqlite"), name="r.toml")
    assert main(["tournament", str(local), "--workers", "1", "--quiet"]) == 0
    assert stored_games(config.output) == stored_games(workspace / "reference.sqlite")


def test_workers_unlike_the_coordinator_are_refused_by_name(dask_cluster, make_config,
                                                            workspace, monkeypatch, capsys):
    dask_cluster.ensure_workers()
    # A module only the coordinator can import: the workers cannot play it.
    (workspace / "only_here").mkdir()
    (workspace / "only_here" / "mine.py").write_text(
        "class Bot:\n    def act(self, observation, legal):\n        return legal[0]\n")
    monkeypatch.syspath_prepend(str(workspace / "only_here"))
    text = FIELD.format(groups=1, output="refused.sqlite").replace(
        'path = "bots/first.py"', 'module = "mine"\nisolation = "inprocess"')
    path = make_config(text)
    assert main(["tournament", str(path), "--quiet", "--scheduler", dask_cluster.address]) == 2
    err = capsys.readouterr().err
    assert "worker tcp://127.0.0.1:" in err and "(w1)" in err and "(w2)" in err
    assert "bot 'first' (module mine): importing it failed" in err
    # Another engine build on the coordinator: every worker is refused.
    monkeypatch.setattr(cluster, "engine_build_id", lambda: "another-build")
    with pytest.raises(ClusterError, match=r"engine .* \(this machine: another-build\)"):
        cluster.connect(dask_cluster.address)


def test_simulate_on_the_cluster_equals_a_local_run(dask_cluster):
    dask_cluster.ensure_workers()
    args = dict(players=4, games=37, bots=["heuristic", "random", "random", "heuristic"],
                seed=2**64 - 5, records=True, end_score=40)
    local = cardref.simulate("take5", **args)
    remote = cardref.simulate("take5", scheduler=dask_cluster.address, **args)
    for key in ("games", "actions", "seats", "records", "seed"):
        assert remote[key] == local[key], key
    assert remote["threads"] == 2


def test_addresses_beyond_this_machine_need_tls():
    assert resolve_address("127.0.0.1:8786") == "tcp://127.0.0.1:8786"
    assert resolve_address("localhost:8786") == "tcp://localhost:8786"
    assert resolve_address("[::1]:8786") == "tcp://[::1]:8786"
    assert resolve_address("10.0.0.5:8786") == "tls://10.0.0.5:8786"
    assert resolve_address("tls://sched.example:8786") == "tls://sched.example:8786"
    with pytest.raises(ClusterError, match="must use TLS"):
        resolve_address("tcp://10.0.0.5:8786")
    assert resolve_address("tcp://10.0.0.5:8786", insecure=True) == "tcp://10.0.0.5:8786"
    with pytest.raises(ClusterError, match="TLS needs the cluster's CA file"):
        cluster.connect("tls://10.0.0.5:8786")  # refused before any connection


def _certificates(directory: Path) -> tuple[str, str, str]:
    """A CA and one certificate for 127.0.0.1 signed by it (openssl)."""
    def openssl(*args: str) -> None:
        subprocess.run(["openssl", *args], cwd=directory, check=True, capture_output=True,
                       timeout=WAIT)

    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out",
            "ca.pem", "-days", "2", "-subj", "/CN=test-ca")
    openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", "node.key", "-out", "node.csr",
            "-subj", "/CN=127.0.0.1")
    (directory / "san.cnf").write_text("subjectAltName=IP:127.0.0.1\n")
    openssl("x509", "-req", "-in", "node.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
            "-CAcreateserial", "-out", "node.pem", "-days", "2", "-extfile", "san.cnf")
    return tuple(str(directory / name) for name in ("ca.pem", "node.pem", "node.key"))


def test_a_tls_cluster_needs_the_certificates(tmp_path, make_config, capsys):
    ca, cert, key = _certificates(tmp_path)
    processes = LocalDask(tmp_path, tls=(ca, cert, key))
    try:
        processes.ensure_workers(["t1"])
        assert processes.address.startswith("tls://127.0.0.1:")
        path = make_config(FIELD.format(groups=1, output="tls.sqlite"))
        assert main(["tournament", str(path), "--quiet", "--scheduler", processes.address]) == 2
        assert "TLS needs the cluster's CA file" in capsys.readouterr().err
        assert main(["tournament", str(path), "--quiet", "--scheduler", processes.address,
                     "--tls-ca-file", ca, "--tls-cert", cert, "--tls-key", key]) == 0
        assert "Results:" in capsys.readouterr().out
    finally:
        processes.stop()
