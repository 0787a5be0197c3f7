"""`cardref replay` beyond the check: what one seat saw, the game as a page,
and the refusal to show a deal other seatings are still to play."""

from __future__ import annotations

import json
import re
import sqlite3

import pytest

import cardref
from cardref.cli import main
from cardref.tournament.store import Store

CONFIG = """
game = "take5"
players = 2
seed = 9
deal_groups = 2
output = "r.sqlite"
[variant]
end_score = 8
[[bots]]
name = "heuristic"
builtin = "heuristic"
[[bots]]
name = "raises"
path = "bots/raises.py"
isolation = "inprocess"
"""


@pytest.fixture
def played(workspace, make_config, capsys):
    config = make_config(CONFIG)
    assert main(["tournament", str(config), "--workers", "1", "--quiet"]) == 0
    capsys.readouterr()
    with Store(workspace / "r.sqlite") as store:
        return workspace / "r.sqlite", store.games(), store.schedule()


def test_a_seat_sees_its_observations_legal_actions_and_answers(played, capsys):
    results, games, _ = played
    game = games[0]
    seat = game["seating"].index("heuristic")
    assert main(["replay", str(results), game["key"], "--seat", str(seat)]) == 0
    out = capsys.readouterr().out
    with Store(results) as store:
        actions = store.actions(game["key"])
    state = cardref.load("take5", 2, end_score=8).new_state(seed=game["seed"])
    expected = []
    for step, (who, actor, action, seconds) in enumerate(actions):
        if who == seat:
            expected += [f"step {step}: seat {seat} (heuristic) to act",
                         f"  observation: {state.observation_json(seat)}",
                         f"  legal ({len(state.legal_actions())}): "
                         + ", ".join(state.legal_actions()),
                         f"  answer: {action} ({actor}, {seconds * 1000:.2f} ms)"]
        state.apply(action)
    shown = [line for line in out.splitlines()
             if re.match(r"(step \d+: seat|  observation:|  legal \(|  answer:)", line)]
    assert shown == expected and len(expected) >= 4 * 10


def test_replay_writes_the_page_of_a_game(played, capsys, tmp_path):
    results, games, _ = played
    game = games[1]
    page = tmp_path / "game.html"
    assert main(["replay", str(results), game["key"], "--html", str(page)]) == 0
    assert f"page: {page}" in capsys.readouterr().out
    text = page.read_text()
    data = json.loads(re.search(r'<script id="replay-data" type="application/json">(.*?)'
                                r"</script>", text, re.S).group(1))
    assert data["names"] == game["seating"] and data["statuses"] == game["statuses"]
    seat = game["seating"].index("raises")
    assert data["tracebacks"][seat].startswith("Traceback") and "RuntimeError: boom" in \
        data["tracebacks"][seat]
    assert data["placements"] == game["placements"]
    with Store(results) as store:
        assert [s["action"] for s in data["steps"][:-1]] == \
            [a for _, _, a, _ in store.actions(game["key"])]


def test_a_deal_still_to_be_played_is_not_shown_unless_forced(played, capsys):
    results, _, schedule = played
    first = [g.key for g in schedule if g.group == 0]
    later = next(g.key for g in schedule if g.group == 1)
    db = sqlite3.connect(results)  # as if the run had stopped before that game
    db.execute("DELETE FROM actions WHERE game = ?", (first[1],))
    db.execute("DELETE FROM seat_logs WHERE game = ?", (first[1],))
    db.execute("DELETE FROM games WHERE key = ?", (first[1],))
    db.commit()
    db.close()
    for extra in ([], ["--steps"], ["--seat", "0"]):
        assert main(["replay", str(results), first[0], *extra]) == 2
        err = capsys.readouterr().err
        assert "replaying it now would reveal their deal" in err and first[1] in err
        assert "--force" in err
    assert main(["replay", str(results), first[0], "--force"]) == 0
    assert "reproduced" in capsys.readouterr().out
    assert main(["replay", str(results), later]) == 0  # its group is complete


def test_a_seat_that_is_not_at_the_table_is_refused(played, capsys):
    results, games, _ = played
    assert main(["replay", str(results), games[0]["key"], "--seat", "2"]) == 2
    assert "--seat must be a seat of this game, 0 to 1; got 2" in capsys.readouterr().err
