"""Storage and resumption: a run killed with SIGKILL part-way resumes without
losing or replaying a game; a changed config is refused unless restarted."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from cardref.cli import main

SLOW = """
game = "take5"
players = 4
seed = 11
deal_groups = 6
output = "{output}"

[[bots]]
name = "slow"
path = "bots/slow_random.py"
[[bots]]
name = "heuristic"
builtin = "heuristic"
"""


def _finished(path: Path) -> int:
    if not path.exists():
        return 0
    db = sqlite3.connect(path, timeout=10)
    try:
        return db.execute("SELECT COUNT(*) FROM games").fetchone()[0]
    except sqlite3.OperationalError:
        return 0
    finally:
        db.close()


def test_a_killed_run_resumes_without_losing_or_replaying_games(make_config, workspace,
                                                                stored_games):
    config = make_config(SLOW.format(output="killed.sqlite"))
    out = workspace / "killed.sqlite"
    command = [sys.executable, "-m", "cardref.cli", "tournament", str(config),
               "--workers", "1", "--quiet"]
    proc = subprocess.Popen(command, cwd=workspace, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while _finished(out) < 3 and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.02)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert proc.returncode == -signal.SIGKILL, proc.stderr.read() if proc.stderr else ""
    proc.stderr.close()
    done_before = _finished(out)
    total = 6 * 2
    assert 3 <= done_before < total  # killed part-way, with games committed

    rerun = subprocess.run(command, cwd=workspace, capture_output=True, text=True, timeout=120)
    assert rerun.returncode == 0, rerun.stderr
    games, actions = stored_games(out)
    assert len(games) == total and len({g[0] for g in games}) == total

    # The same tournament run in one go stores exactly the same games and actions.
    fresh = workspace / "fresh.sqlite"
    assert main(["tournament", str(config), "--workers", "1", "--quiet",
                 "--output", str(fresh)]) == 0
    assert stored_games(fresh) == (games, actions)


def test_ctrl_c_stops_cleanly_and_the_rerun_completes(make_config, workspace):
    config = make_config(SLOW.format(output="interrupted.sqlite"))
    out = workspace / "interrupted.sqlite"
    command = [sys.executable, "-m", "cardref.cli", "tournament", str(config),
               "--workers", "2", "--quiet"]
    proc = subprocess.Popen(command, cwd=workspace, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while _finished(out) < 2 and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.02)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "run the same command again to resume" in err and "Traceback" not in err
    stored = _finished(out)
    assert 2 <= stored < 12
    rerun = subprocess.run(command, cwd=workspace, capture_output=True, text=True, timeout=120)
    assert rerun.returncode == 0, rerun.stderr
    assert _finished(out) == 12


QUICK = """
game = "take5"
players = 3
seed = 4
deal_groups = 1
output = "quick.sqlite"
[variant]
end_score = {end_score}
[[bots]]
name = "a"
builtin = "random"
[[bots]]
name = "b"
builtin = "heuristic"
"""


def test_a_changed_config_is_refused_unless_restarted(make_config, workspace, capsys,
                                                      stored_games):
    path = make_config(QUICK.format(end_score=20))
    assert main(["tournament", str(path), "--workers", "1", "--quiet"]) == 0
    out = workspace / "quick.sqlite"
    first = stored_games(out)
    # Running again resumes: nothing left to play, nothing changes.
    assert main(["tournament", str(path), "--workers", "1"]) == 0
    assert "(6 already played)" in capsys.readouterr().out
    assert stored_games(out) == first

    make_config(QUICK.format(end_score=30))
    capsys.readouterr()
    assert main(["tournament", str(path), "--workers", "1", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "holds results of a different config" in err and "--restart" in err
    assert "what changed since: params.end_score: 20 -> 30. " in err, err
    assert stored_games(out) == first

    assert main(["tournament", str(path), "--workers", "1", "--quiet", "--restart"]) == 0
    again = stored_games(out)
    assert len(again[0]) == 6 and again != first


def test_editing_a_bot_file_counts_as_a_changed_config(make_config, workspace, capsys):
    path = make_config(QUICK.format(end_score=20).replace('builtin = "random"',
                                                          'path = "bots/first.py"'))
    assert main(["tournament", str(path), "--workers", "1", "--quiet"]) == 0
    bot = workspace / "bots" / "first.py"
    bot.write_text(bot.read_text() + "\n# a change\n")
    assert main(["tournament", str(path), "--workers", "1", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "different config" in err
    assert f"bot 'a': its submission {bot.resolve()} has changed" in err, err
    assert "end_score" not in err  # only what changed is named


def test_changes_name_each_key_and_bot():
    from cardref.tournament.config import changes

    old = {"seed": 1, "deal_groups": 2, "bots": [
        {"name": "a", "kind": "module", "target": "x"},
        {"name": "b", "kind": "path", "target": "/b.py", "sha256": "1"}]}
    new = {"seed": 1, "deal_groups": 4, "limits": {"memory_mb": 512}, "params": {}, "bots": [
        {"name": "a", "kind": "module", "target": "y"},
        {"name": "c", "kind": "module", "target": "z"}]}
    assert changes(old, new) == [
        "deal_groups: 2 -> 4", 'limits: (not set) -> {"memory_mb": 512}',
        "params: (not set) -> {}",
        "bot 'b' was removed", "bot 'c' was added", 'bot \'a\': target "x" -> "y"']
    assert changes(old, old) == []
    swapped = {**old, "bots": old["bots"][::-1]}
    assert changes(old, swapped) == ["the bots are listed in another order"]
