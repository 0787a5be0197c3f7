"""The examples in docs/tournaments.md and docs/bots.md work as printed."""

from __future__ import annotations

import json
import re
from pathlib import Path

from cardref.cli import main
from cardref.tournament.store import Store

DOCS = Path(__file__).resolve().parents[2] / "docs"


def _block(doc: str, language: str) -> str:
    text = (DOCS / doc).read_text()
    return re.search(rf"```{language}\n(.*?)```", text, re.DOTALL).group(1)


def test_the_documented_config_and_example_bot_play_a_tournament(tmp_path):
    (tmp_path / "bots").mkdir()
    (tmp_path / "bots" / "mine.py").write_text(_block("bots.md", "python"))
    config = tmp_path / "full.toml"
    config.write_text(_block("tournaments.md", "toml"))
    assert main(["tournament", str(config), "--deal-groups", "1", "--quiet"]) == 0
    with Store(tmp_path / "results.sqlite") as store:
        games = store.games()
        assert games and len(games) == len(store.schedule())
        assert all("mine" in g["seating"] for g in games)  # the gauntlet's candidate
        assert all(status == "ok" for g in games for status in g["statuses"])
        assert json.loads(store.meta()["params"])["end_score"] == 66


def test_the_protocol_example_bot_plays_a_tournament(tmp_path):
    import sys

    code = _block("protocol.md", "python")
    config = tmp_path / "protocol.toml"
    config.write_text(
        'game = "take5"\nplayers = 2\nseed = 3\ndeal_groups = 1\noutput = "p.sqlite"\n'
        '[[bots]]\nname = "random"\nbuiltin = "random"\n'
        f'[[bots]]\nname = "first"\ncommand = {json.dumps([sys.executable, "-c", code])}\n')
    assert main(["tournament", str(config), "--quiet", "--workers", "1"]) == 0
    with Store(tmp_path / "p.sqlite") as store:
        games = store.games()
        assert len(games) == 2
        assert all(status == "ok" for g in games for status in g["statuses"])


def test_the_bot_authors_match_commands_work_as_printed(tmp_path, monkeypatch, capsys):
    import shlex

    monkeypatch.chdir(tmp_path)
    (tmp_path / "bots").mkdir()
    (tmp_path / "bots" / "mine.py").write_text(_block("bots.md", "python"))
    text = (DOCS / "bots.md").read_text()
    commands = [line for block in re.findall(r"```sh\n(.*?)```", text, re.DOTALL)
                for line in block.splitlines() if line.startswith("cardref match ")]
    assert len(commands) >= 4
    for line in commands:
        assert main(shlex.split(line)[1:]) == 0, line
        assert "decisions, mean" in capsys.readouterr().out
    assert (tmp_path / "game.html").is_file() and (tmp_path / "last.html").is_file()
    snippet = re.findall(r"```python\n(.*?)```", text, re.DOTALL)[1]
    exec(compile(snippet, "bots.md", "exec"), {})
    shown = capsys.readouterr().out.splitlines()
    assert len(shown) == 11 and shown[0].startswith("['")
