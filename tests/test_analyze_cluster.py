"""``cardref analyze --scheduler``: the same figures from a Dask cluster's
workers as from this machine (a scheduler and two workers on this machine,
started and stopped by the fixture, every wait bounded)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cardref import cluster
from cardref.analysis import run as runs
from cardref.cli import main
from cardref.clusterbench import LocalDask


@pytest.fixture(scope="module")
def dask_cluster(tmp_path_factory):
    processes = LocalDask(tmp_path_factory.mktemp("dask"))
    try:
        processes.ensure_workers(("w1", "w2"))
        yield processes
    finally:
        processes.stop()


def test_a_cluster_analysis_adds_up_to_a_local_one(dask_cluster) -> None:
    args = ("take5", 3, {"end_score": 30}, ["heuristic", "random", "random"], 300, 2**64 - 9,
            None)
    local = runs.analyse(*args, rule_points=True)
    client = cluster.connect(dask_cluster.address)
    try:
        remote = runs.analyse(*args, rule_points=True, client=client)
    finally:
        client.close()
    for key in ("games", "actions", "seats", "lengths", "rounds", "scores", "points"):
        assert getattr(remote, key) == getattr(local, key), key


def test_the_command_runs_on_the_cluster(dask_cluster, tmp_path: Path) -> None:
    out = tmp_path / "a.json"
    assert main(["analyze", "take5", "--games", "200", "--skill-games", "100", "--quiet",
                 "--scheduler", dask_cluster.address, "--json", str(out)]) == 0
    local = tmp_path / "b.json"
    assert main(["analyze", "take5", "--games", "200", "--skill-games", "100", "--quiet",
                 "--json", str(local)]) == 0
    a, b = (json.loads(p.read_text(encoding="utf-8")) for p in (out, local))
    assert a["seats"] == b["seats"] and a["rule_points"] == b["rule_points"]
