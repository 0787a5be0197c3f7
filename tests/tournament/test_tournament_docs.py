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
