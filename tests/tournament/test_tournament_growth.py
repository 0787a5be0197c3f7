"""Tournaments that grow, and results files written with older game keys."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

from cardref.cli import main
from cardref.tournament.store import Store

FIXTURES = Path(__file__).parent / "fixtures"

ADDED_BOT = """
[[bots]]
name = "heuristic-2"
module = "cardref.bots.heuristic.take5"
isolation = "inprocess"
"""


def _old_file(tmp_path: Path) -> tuple[Path, Path]:
    """A copy of the schema-1 fixture and its config, side by side."""
    for name in ("v1_round_robin.toml", "v1_round_robin.sqlite"):
        shutil.copy(FIXTURES / name, tmp_path / name)
    return tmp_path / "v1_round_robin.toml", tmp_path / "v1_round_robin.sqlite"


def _count(path: Path, table: str) -> int:
    db = sqlite3.connect(path)
    try:
        return db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]
    finally:
        db.close()


def test_an_old_results_file_migrates_and_still_reports_replays_and_resumes(tmp_path, capsys):
    config, results = _old_file(tmp_path)
    assert _count(results, "actions") == 1066
    assert main(["report", str(results), "--format", "csv"]) == 0
    rows = capsys.readouterr().out.splitlines()
    assert rows[0].startswith("rank,name,games") and len(rows) == 4
    db = sqlite3.connect(results)
    keys = [k for (k,) in db.execute("SELECT key FROM games ORDER BY key")]
    schema = db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()[0]
    db.close()
    # g<group>-l<lineup>-s<seating> became keys that name the lineup's bots;
    # the actions moved with their games.
    assert schema == "2" and len(keys) == 18
    assert keys[0] == "g0-heuristic,random,random-2-s0"
    assert _count(results, "actions") == 1066
    assert main(["replay", str(results), "g2-heuristic,random,random-2-s5"]) == 0
    assert "reproduced" in capsys.readouterr().out
    # The same config resumes the migrated file: nothing is left to play.
    assert main(["tournament", str(config), "--workers", "1"]) == 0
    assert "18 games (18 already played)" in capsys.readouterr().out


def test_an_old_file_that_cannot_be_written_says_why(tmp_path, capsys, monkeypatch):
    _, results = _old_file(tmp_path)

    def read_only(self) -> None:  # as SQLite answers for a file it may not write
        raise sqlite3.OperationalError("attempt to write a readonly database")

    monkeypatch.setattr(Store, "_migrate_keys", read_only)
    assert main(["report", str(results)]) == 2
    err = capsys.readouterr().err
    assert "written by an older cardref (game keys numbering lineups); it is brought up " \
           "to date when opened, which failed: attempt to write a readonly database. " \
           "Make the file writable, or open a writable copy." in err


def test_more_deal_groups_and_a_new_bot_play_only_the_new_games(tmp_path, capsys,
                                                               stored_games):
    config, results = _old_file(tmp_path)
    assert main(["report", str(results), "-o", str(tmp_path / "r.md")]) == 0  # migrates
    before = stored_games(results)
    assert len(before[0]) == 18 and len(before[1]) == 1066
    # Two more deal groups: only their 12 games are played.
    assert main(["tournament", str(config), "--workers", "1", "--deal-groups", "5"]) == 0
    out = capsys.readouterr().out
    assert "Extending the tournament: deal_groups 3 -> 5" in out
    assert "30 games (18 already played)" in out
    grown = stored_games(results)
    assert set(before[0]) <= set(grown[0]) and set(before[1]) <= set(grown[1])
    # A fourth bot: three new lineups of three, 6 seatings each, in 5 groups.
    config.write_text(config.read_text() + ADDED_BOT)
    assert main(["tournament", str(config), "--workers", "1", "--deal-groups", "5"]) == 0
    out = capsys.readouterr().out
    assert "Extending the tournament: bot 'heuristic-2' added" in out
    assert "120 games (30 already played)" in out
    # Grown step by step or played in one go, the stored games are the same.
    fresh = tmp_path / "fresh.sqlite"
    assert main(["tournament", str(config), "--workers", "1", "--deal-groups", "5",
                 "--quiet", "--output", str(fresh)]) == 0
    assert stored_games(results) == stored_games(fresh)
    assert main(["report", str(results), "--format", "json", "-o",
                 str(tmp_path / "grown.json")]) == 0
    assert main(["report", str(fresh), "--format", "json", "-o",
                 str(tmp_path / "fresh.json")]) == 0
    grown_report = (tmp_path / "grown.json").read_text()
    assert grown_report.split('"config"')[0] == \
        (tmp_path / "fresh.json").read_text().split('"config"')[0]


def test_changes_that_decide_results_are_refused_by_name(tmp_path, capsys):
    config, results = _old_file(tmp_path)
    assert main(["tournament", str(config), "--quiet", "--deal-groups", "2"]) == 2
    err = capsys.readouterr().err
    assert "deal_groups: 3 -> 2: lowering deal_groups would drop deal groups already " \
           "played" in err
    # A new bot with another change: only the change is named, and refused.
    text = config.read_text().replace("end_score = 20", "end_score = 25")
    config.write_text(text + ADDED_BOT)
    assert main(["tournament", str(config), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "what changed since: params.end_score: 20 -> 25. Raising deal_groups and " \
           "adding bots extend a tournament" in err
    assert "heuristic-2" not in err
    # Bots already entered must stay, unchanged and in their order.
    config.write_text(text.replace("end_score = 25", "end_score = 20").replace(
        'name = "random-2"', 'name = "random-3"'))
    assert main(["tournament", str(config), "--quiet"]) == 2
    assert "bot 'random-2' was removed" in capsys.readouterr().err
    assert _count(results, "games") == 18


def test_a_field_smaller_than_a_table_cannot_grow(make_config, workspace, capsys):
    text = """
        game = "take5"
        players = 3
        seed = 3
        deal_groups = 1
        output = "small.sqlite"
        [variant]
        end_score = 10
        [[bots]]
        name = "a"
        builtin = "random"
        [[bots]]
        name = "b"
        builtin = "heuristic"
    """
    path = make_config(text)
    assert main(["tournament", str(path), "--workers", "1", "--quiet"]) == 0
    make_config(text + '    [[bots]]\n        name = "c"\n        builtin = "random"\n')
    assert main(["tournament", str(path), "--workers", "1", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "with fewer bots than seats a table repeats bots, so adding a bot changes " \
           "every lineup" in err
