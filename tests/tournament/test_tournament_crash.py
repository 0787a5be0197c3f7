"""A tournament survives what happens to its coordinator and its results
file: kills and signals, a second run on the same file, a full disk, a file
deleted, damaged or not a results file at all; each gets a message naming
the file and what to do, and no stored game is lost."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cardref.cli import main
from cardref.tournament.config import load_config
from cardref.tournament.referee import TableSetup, play_game
from cardref.tournament.schedule import build_schedule
from cardref.tournament.store import Store, StoreWriteError

SLOW = """
game = "take5"
players = 3
seed = 5
deal_groups = 40
output = "r.sqlite"
[[bots]]
name = "slow"
path = "bots/slow_random.py"
isolation = "inprocess"
[[bots]]
name = "heuristic"
builtin = "heuristic"
"""

QUICK = SLOW.replace("deal_groups = 40", "deal_groups = 1")


def _stored(path: Path) -> int:
    try:
        db = sqlite3.connect(path, timeout=10)
        try:
            return db.execute("SELECT COUNT(*) FROM games").fetchone()[0]
        finally:
            db.close()
    except sqlite3.OperationalError:
        return 0


def _children(pid: int) -> list[int]:
    """The processes whose parent is ``pid``."""
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                out.append(int(entry.name))
    return out


def _alive(pid: int) -> bool:
    try:
        return (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _start(config: Path, workers: int) -> subprocess.Popen:
    proc = subprocess.Popen([sys.executable, "-m", "cardref.cli", "tournament", str(config),
                             "--workers", str(workers), "--quiet"], cwd=config.parent,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while _stored(config.parent / "r.sqlite") < 2 and time.monotonic() < deadline:
        assert proc.poll() is None, proc.communicate()[1]
        time.sleep(0.02)
    return proc


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc and prctl are Linux's")
def test_pool_workers_die_with_a_killed_coordinator(make_config):
    proc = _start(make_config(SLOW), workers=2)
    workers = _children(proc.pid)
    assert workers  # the pool is up
    os.kill(proc.pid, signal.SIGKILL)
    proc.communicate()
    deadline = time.monotonic() + 30
    while any(_alive(w) for w in workers) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(_alive(w) for w in workers), "pool workers outlived the coordinator"


def test_sigterm_stops_cleanly_and_the_rerun_completes(make_config, workspace):
    config = make_config(SLOW.replace("deal_groups = 40", "deal_groups = 8"))
    proc = _start(config, workers=2)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 143, err
    assert "terminated (SIGTERM)" in err and "run the same command again to resume" in err
    assert "Traceback" not in err
    assert main(["tournament", str(config), "--workers", "1", "--quiet"]) == 0
    assert _stored(workspace / "r.sqlite") == 8 * 6


def test_a_second_run_on_the_same_file_is_refused(make_config, workspace, capsys):
    config = make_config(QUICK)
    with Store(workspace / "r.sqlite", exclusive=True):
        assert main(["tournament", str(config), "--workers", "1", "--quiet"]) == 2
        assert main(["tournament", str(config), "--workers", "1", "--quiet",
                     "--restart"]) == 2
    err = capsys.readouterr().err
    assert err.count("another cardref tournament is playing into this results file") == 2
    assert main(["tournament", str(config), "--workers", "1", "--quiet"]) == 0


def test_a_file_that_is_not_a_results_file_is_never_written(make_config, workspace, capsys):
    config = make_config(QUICK)
    out = workspace / "r.sqlite"
    out.write_text("name,score\nalice,3\n")
    for extra in ([], ["--restart"]):
        assert main(["tournament", str(config), "--workers", "1", "--quiet", *extra]) == 2
        assert out.read_text() == "name,score\nalice,3\n"
    assert "not a cardref results file" in capsys.readouterr().err
    out.unlink()
    db = sqlite3.connect(out)
    db.execute("CREATE TABLE users (name TEXT)")
    db.commit()
    db.close()
    for extra in ([], ["--restart"]):
        assert main(["tournament", str(config), "--workers", "1", "--quiet", *extra]) == 2
        db = sqlite3.connect(out)
        tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        db.close()
        assert tables == ["users"]
    assert f"{out}: an SQLite database but not a cardref results file" in \
        capsys.readouterr().err


def _records(config_path: Path, n: int) -> tuple[object, list, list]:
    config = load_config(config_path)
    schedule = build_schedule(config)
    setup = TableSetup.from_config(config)
    return config, schedule, [play_game(setup, game) for game in schedule[:n]]


def test_a_full_disk_stops_with_a_message_and_keeps_the_stored_games(make_config, workspace):
    config, schedule, records = _records(make_config(QUICK), 2)
    with Store(workspace / "r.sqlite") as store:
        store.initialise(config, schedule)
        store.save_game(records[0])
        pages = store.db.execute("PRAGMA page_count").fetchone()[0]
        store.db.execute(f"PRAGMA max_page_count = {pages}")  # the disk is now full
        with pytest.raises(StoreWriteError, match=r"the disk is full.*resume"):
            store.save_game(records[1])
        assert not store.db.in_transaction
        assert store.finished_keys() == {records[0].key}


def test_a_results_file_deleted_mid_run_is_written_back(make_config, workspace):
    config, schedule, records = _records(make_config(QUICK), 2)
    out = workspace / "r.sqlite"
    with Store(out) as store:
        store.initialise(config, schedule)
        store.save_game(records[0])
        for suffix in ("", "-wal", "-shm"):
            Path(f"{out}{suffix}").unlink(missing_ok=True)
        with pytest.raises(StoreWriteError, match=r"deleted or replaced.*2 games stored"):
            store.save_game(records[1])
    assert _stored(out) == 2


def test_a_damaged_results_file_gets_a_clear_error(make_config, workspace, capsys):
    config = make_config(SLOW.replace("deal_groups = 40", "deal_groups = 6"))
    assert main(["tournament", str(config), "--workers", "1", "--quiet"]) == 0
    out = workspace / "r.sqlite"
    data = bytearray(out.read_bytes())
    data[8192:len(data) // 2] = bytes(len(data) // 2 - 8192)  # pages zeroed
    out.write_bytes(bytes(data))
    capsys.readouterr()
    assert main(["tournament", str(config), "--workers", "1", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert f"{out}: the results file is damaged" in err and ".recover" in err, err
    assert "Traceback" not in err
    assert main(["tournament", str(config), "--workers", "1", "--quiet", "--restart"]) == 0
    assert _stored(out) == 6 * 6


def test_a_report_says_the_run_is_incomplete(make_config, workspace, capsys):
    config, schedule, records = _records(make_config(QUICK), 1)
    out = workspace / "r.sqlite"
    with Store(out) as store:
        store.initialise(config, schedule)
        store.save_game(records[0])
    assert main(["report", str(out)]) == 0
    text = capsys.readouterr().out
    assert f"Incomplete: 1 of {len(schedule)} scheduled games are stored" in text


def test_a_report_reads_a_file_it_cannot_write(make_config, workspace, capsys, monkeypatch):
    config = make_config(QUICK)
    assert main(["tournament", str(config), "--workers", "1", "--quiet"]) == 0
    out = workspace / "r.sqlite"
    before = sorted(p.name for p in workspace.iterdir())
    monkeypatch.setattr(os, "access", lambda path, mode: mode != os.W_OK)
    capsys.readouterr()
    assert main(["report", str(out), "--format", "json"]) == 0
    assert '"games_played": 6' in capsys.readouterr().out
    assert sorted(p.name for p in workspace.iterdir()) == before
