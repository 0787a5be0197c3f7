"""Reports in every format, replay, and every shipped tournament config."""

from __future__ import annotations

import csv
import io
import json
import re
import sqlite3
from pathlib import Path

import pytest

import cardref
from cardref.cli import main
from cardref.tournament.config import load_config
from cardref.tournament.schedule import build_schedule
from cardref.tournament.store import Store

ROOT = Path(__file__).resolve().parents[2]

FIELD = """
game = "take5"
players = 3
seed = 8
deal_groups = 3
output = "field.sqlite"
[report]
bootstrap = 200
[[bots]]
name = "random"
builtin = "random"
[[bots]]
name = "heuristic"
builtin = "heuristic"
[[bots]]
name = "<first & co>"
path = "bots/first.py"
"""


@pytest.fixture
def results_file(make_config, workspace, capsys) -> Path:
    assert main(["tournament", str(make_config(FIELD)), "--workers", "1"]) == 0
    shown = capsys.readouterr().out
    # Progress and live standings, then the final tables with CIs.
    assert "Starting take5 tournament: 18 games (0 already played)" in shown
    assert "18/18" in shown and "Live standings" in shown
    assert "95% CI" in shown and "Head-to-head" in shown and "heuristic" in shown
    assert "Mean placement by seat" in shown
    return workspace / "field.sqlite"


def _report(path: Path, fmt: str, capsys) -> str:
    capsys.readouterr()
    assert main(["report", str(path), "--format", fmt]) == 0
    return capsys.readouterr().out


def test_reports_in_every_format_agree(results_file, capsys, tmp_path):
    data = json.loads(_report(results_file, "json", capsys))
    standings = data["standings"]
    assert [s["rank"] for s in standings] == [1, 2, 3]
    assert standings[0]["name"] == "heuristic"  # it beats random and "first" clearly
    means = [s["mean_placement"]["value"] for s in standings]
    assert means == sorted(means)
    for s in standings:
        for key in ("mean_placement", "win_share", "mean_score", "rating"):
            assert s[key]["low"] <= s[key]["value"] <= s[key]["high"]
        assert s["games"] == 3 * 6  # every game of the single lineup
    assert data["tournament"]["games_played"] == data["tournament"]["games_scheduled"] == 18

    rows = list(csv.DictReader(io.StringIO(_report(results_file, "csv", capsys))))
    assert [r["name"] for r in rows] == [s["name"] for s in standings]
    assert float(rows[0]["mean_placement"]) == pytest.approx(means[0])
    assert float(rows[2]["rating_high"]) == pytest.approx(standings[2]["rating"]["high"])

    md = _report(results_file, "md", capsys)
    assert "| 1 | heuristic | 18 |" in md and "## Head-to-head" in md
    assert "| Bot | Seat 0 | Seat 1 | Seat 2 |" in md

    out = tmp_path / "r.html"
    assert main(["report", str(results_file), "--format", "html", "-o", str(out)]) == 0
    page = out.read_text()
    assert page.count("<svg") == 2 and "&lt;first &amp; co&gt;" in page
    assert '<table id="by-seat">' in page and '<table id="head-to-head">' in page
    assert "<script" not in page and not re.search(r"(src|href)=", page)
    names = re.findall(r'<g class="bot" data-name="([^"]+)"', page)
    assert len(names) == 6 and names[0] == names[3] == "heuristic"
    assert set(names) == {"heuristic", "random", "&lt;first &amp; co&gt;"}


def test_replay_reproduces_and_shows_steps(results_file, capsys):
    db = sqlite3.connect(results_file)
    key, count = db.execute("SELECT s.key, COUNT(*) FROM actions a JOIN schedule s "
                            "ON s.ord = a.game GROUP BY a.game LIMIT 1").fetchone()
    capsys.readouterr()
    assert main(["replay", str(results_file), key, "--steps"]) == 0
    out = capsys.readouterr().out
    assert "reproduced" in out
    assert len(re.findall(r"^\s+\d+  seat \d", out, re.MULTILINE)) == count

    # Tamper with the stored result: replay must notice.
    db.execute("UPDATE games SET scores = '[0, 0, 0]' WHERE key = ?", (key,))
    db.commit()
    db.close()
    assert main(["replay", str(results_file), key]) == 1
    assert "MISMATCH" in capsys.readouterr().out


def test_usage_errors_exit_2(results_file, tmp_path, capsys):
    assert main(["replay", str(results_file), "g99-l0-s0"]) == 2
    assert "no finished game 'g99-l0-s0'" in capsys.readouterr().err
    assert main(["report", str(tmp_path / "none.sqlite"), "--format", "md"]) == 2
    assert "no such results file" in capsys.readouterr().err
    junk = tmp_path / "junk.sqlite"
    junk.write_text("not a database at all" * 100)
    assert main(["report", str(junk), "--format", "json"]) == 2
    assert "junk.sqlite" in capsys.readouterr().err
    with pytest.raises(SystemExit) as info:
        main(["report", str(results_file), "--format", "pdf"])
    assert info.value.code == 2


@pytest.mark.parametrize("config", sorted((ROOT / "tournaments").glob("*.toml")),
                         ids=lambda p: p.stem)
def test_every_shipped_config_runs(config, tmp_path, capsys):
    loaded = load_config(config, deal_groups=1)
    out = tmp_path / "out.sqlite"
    assert main(["tournament", str(config), "--deal-groups", "1", "--workers", "1", "--quiet",
                 "--output", str(out)]) == 0
    capsys.readouterr()
    assert main(["report", str(out), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["tournament"]["games_played"] == len(build_schedule(loaded)) > 0
    assert {s["name"] for s in data["standings"]} == set(loaded.bot_names())


def _fewest_players(game_id: str) -> int:
    for players in range(1, 11):
        try:
            cardref.load(game_id, players)
            return players
        except cardref.InvalidParamsError:
            continue
    raise AssertionError(f"{game_id}: no player count from 1 to 10 is allowed")


@pytest.mark.parametrize("game_id", cardref.games())
def test_every_game_plays_a_tournament_heuristic_against_random(game_id, make_config,
                                                                workspace, capsys):
    players = _fewest_players(game_id)
    path = make_config(f"""
        game = "{game_id}"
        players = {players}
        seed = 21
        deal_groups = 1
        output = "{game_id}.sqlite"
        [report]
        bootstrap = 100
        [[bots]]
        name = "heuristic"
        builtin = "heuristic"
        [[bots]]
        name = "random"
        builtin = "random"
    """)
    assert main(["tournament", str(path), "--workers", "1", "--quiet"]) == 0
    capsys.readouterr()
    out = workspace / f"{game_id}.sqlite"
    assert main(["report", str(out), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["tournament"]["games_played"] == data["tournament"]["games_scheduled"] > 0
    assert {s["name"] for s in data["standings"]} == {"heuristic", "random"}
    assert all(s["failures"] == 0 for s in data["standings"])
    with Store(out) as store:
        key = store.games()[0]["key"]
    assert main(["replay", str(out), key]) == 0


def test_markdown_shows_any_bot_name_and_message_literally():
    from cardref.tournament.report import md_text, to_markdown
    from cardref.tournament.stats import compute

    games = [{"key": f"g{i}-l0-s0", "group": i, "seating": ["a|b", "<i>x</i>"],
              "placements": [1, 2], "scores": [0, 1], "statuses": ["ok", "error"],
              "messages": [None, "raised [link](http://x) | *boom*"]} for i in range(3)]
    results = compute(games, ["a|b", "<i>x</i>"], None, resamples=100)
    results["tournament"] = {"game": "take5", "players": 2, "format": "round_robin",
                             "games_played": 3, "games_scheduled": 3}
    results["failure_list"] = [{"game": g["key"], "seat": 1, "bot": "<i>x</i>",
                                "status": "error", "message": g["messages"][1]} for g in games]
    md = to_markdown(results)
    assert "a|b" not in md.replace("a\\|b", "") and "<i>" not in md
    assert "| 1 | a\\|b | 3 |" in md
    assert "&lt;i&gt;x&lt;/i&gt;" in md
    assert "\\[link\\](http://x) \\| \\*boom\\*" in md
    # every table row has as many cells as its header
    for block in md.split("\n\n"):
        rows = [line for line in block.splitlines() if line.startswith("|")]
        widths = {len(re.findall(r"(?<!\\)\|", row)) for row in rows}
        assert len(widths) <= 1, block
    assert md_text("plain-name 2") == "plain-name 2"


def test_the_terminal_table_never_wraps_an_interval(results_file):
    from rich.console import Console

    from cardref.tournament.report import print_results
    from cardref.tournament.stats import results as results_of

    with Store(results_file) as store:
        results = results_of(store)
    console = Console(width=90, record=True, force_terminal=False)
    print_results(results, console)
    text = console.export_text()
    for s in results["standings"]:
        m = s["mean_placement"]
        whole = f"{m['value']:.2f} [{m['low']:.2f}, {m['high']:.2f}]"
        line = next(line for line in text.splitlines() if s["name"][:5] in line)
        assert whole in line, text
    assert "Warning: Only 3 deal groups played" in text
