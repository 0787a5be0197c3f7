"""The referee: failing bots forfeit and the tournament still finishes; the
stored results are identical for every number of workers."""

from __future__ import annotations

import sqlite3
import time

import pytest

from cardref.cli import main
from cardref.tournament.config import load_config
from cardref.tournament.referee import TableSetup, final_placements, play_game
from cardref.tournament.schedule import build_schedule
from cardref.tournament.store import Store

FAILING = """
game = "take5"
players = 4
seed = 5
deal_groups = 1
output = "fail.sqlite"

[limits]
decision_seconds = 0.05

[[bots]]
name = "ok"
path = "bots/first.py"
[[bots]]
name = "raises"
path = "bots/raises.py"
[[bots]]
name = "illegal"
path = "bots/illegal.py"
[[bots]]
name = "garbage"
path = "bots/garbage.py"
[[bots]]
name = "sleeper"
path = "bots/sleeper.py"
"""

EXPECTED_STATUS = {"ok": "ok", "raises": "error", "illegal": "illegal", "garbage": "invalid",
                   "sleeper": "timeout"}


def test_failing_bots_forfeit_and_the_tournament_finishes(make_config, workspace):
    path = make_config(FAILING)
    assert main(["tournament", str(path), "--workers", "1", "--quiet"]) == 0
    with Store(workspace / "fail.sqlite") as store:
        games = store.games()
        assert len(games) == len(store.schedule()) == 5 * 4  # C(5,4) lineups x 4 rotations
        for game in games:
            assert game["statuses"] == [EXPECTED_STATUS[n] for n in game["seating"]]
            failed = [s for s, n in enumerate(game["seating"]) if n != "ok"]
            # Forfeits share last place; the one sound bot (if seated) is first.
            for seat in failed:
                assert game["placements"][seat] == 4 - len(failed) + 1
                assert game["messages"][seat]
            for seat, name in enumerate(game["seating"]):
                if name == "ok":
                    assert game["placements"][seat] == 1
            # Each failing bot fails on its first decision; the fallback plays the rest.
            actions = store.actions(game["key"])
            assert all(actor == "fallback" for seat, actor, _, _ in actions if seat in failed)
            assert all(actor == "bot" for seat, actor, _, _ in actions if seat not in failed)
        results = main(["replay", str(workspace / "fail.sqlite"), games[0]["key"]])
        assert results == 0
    db = sqlite3.connect(workspace / "fail.sqlite")
    counts = dict(db.execute(
        "SELECT actor, COUNT(*) FROM actions WHERE seat >= 0 GROUP BY actor"))
    db.close()
    assert counts["fallback"] > counts["bot"]  # four of five bots hand over at once


def test_the_stop_policy_ends_the_run_at_the_first_failure(make_config, workspace, capsys):
    text = FAILING.replace("[limits]", '[failure]\npolicy = "stop"\n[limits]')
    assert main(["tournament", str(make_config(text)), "--workers", "1", "--quiet"]) == 1
    assert "stopped by the failure policy" in capsys.readouterr().err
    with Store(workspace / "fail.sqlite") as store:
        games = store.games()
        assert len(games) == 1 and games[0]["key"] == store.schedule()[0].key
        assert "error" in games[0]["statuses"]


def test_a_bot_that_hangs_is_interrupted(make_config, workspace):
    (workspace / "bots" / "hang.py").write_text(
        "import time\n\nclass Bot:\n    def act(self, observation, legal_actions):\n"
        "        while True:\n            time.sleep(0.01)\n")
    text = FAILING.replace('path = "bots/raises.py"', 'path = "bots/hang.py"')
    config = load_config(make_config(text))
    game = next(g for g in build_schedule(config) if "raises" in g.seating)
    began = time.monotonic()
    record = play_game(TableSetup.from_config(config), game)
    assert time.monotonic() - began < 5
    seat = game.seating.index("raises")
    assert record.statuses[seat] == "timeout"
    assert record.placements[seat] == max(record.placements) > min(record.placements)


def test_final_placements_put_forfeits_last():
    assert final_placements([1, 2, 3, 4], set(), None) == [1, 2, 3, 4]
    assert final_placements([1, 2, 3, 4], {0}, None) == [4, 1, 2, 3]
    assert final_placements([1, 1, 3, 4], {3}, None) == [1, 1, 3, 4]
    assert final_placements([1, 1, 3, 4], {1}, None) == [1, 4, 2, 3]
    assert final_placements([1, 2, 3, 4], {0, 2}, None) == [3, 1, 3, 2]
    teams = [[0, 2], [1, 3]]  # team games rank seats: the winning pair 1, 1, the other 3, 3
    assert final_placements([1, 3, 1, 3], {0}, teams) == [3, 1, 3, 1]
    assert final_placements([1, 3, 1, 3], {3}, teams) == [1, 3, 1, 3]
    assert final_placements([1, 1, 1, 1], {1}, teams) == [1, 3, 1, 3]
    assert final_placements([1, 3, 1, 3], {0, 1}, teams) == [1, 1, 1, 1]


DETERMINISM = """
game = "take5"
players = 3
seed = 77
deal_groups = 2
output = "det.sqlite"

[[bots]]
name = "random"
builtin = "random"
[[bots]]
name = "heuristic"
builtin = "heuristic"
[[bots]]
name = "first"
path = "bots/first.py"
"""


@pytest.mark.parametrize("workers", [2])
def test_results_are_identical_for_every_number_of_workers(make_config, workspace, workers,
                                                            stored_games):
    path = make_config(DETERMINISM)
    one, many = workspace / "one.sqlite", workspace / "many.sqlite"
    assert main(["tournament", str(path), "--workers", "1", "--quiet", "--output", str(one)]) == 0
    assert main(["tournament", str(path), "--workers", str(workers), "--quiet",
                 "--output", str(many)]) == 0
    games, actions = stored_games(one, engine_placements=True)
    assert len(games) == 2 * 6 and len(actions) > 12 * 100
    assert stored_games(many, engine_placements=True) == (games, actions)
    # Random bots really are seeded per game: the games of one group differ.
    assert len({g[6] for g in games}) > 1


def test_the_reference_engine_referees_identically(make_config, workspace, stored_games):
    rust = workspace / "rust.sqlite"
    ref = workspace / "reference.sqlite"
    assert main(["tournament", str(make_config(DETERMINISM)), "--workers", "1", "--quiet",
                 "--output", str(rust)]) == 0
    path = make_config('engine = "reference"\n' + DETERMINISM, name="ref.toml")
    assert main(["tournament", str(path), "--workers", "1", "--quiet",
                 "--output", str(ref)]) == 0
    assert stored_games(ref, True) == stored_games(rust, True)


def test_a_bot_calling_sys_exit_forfeits_instead_of_ending_the_run(make_config, workspace):
    (workspace / "bots" / "exits.py").write_text(
        "import sys\n\nclass Bot:\n    def act(self, observation, legal_actions):\n"
        "        sys.exit(3)\n")
    config = load_config(make_config(FAILING.replace("bots/raises.py", "bots/exits.py")))
    game = next(g for g in build_schedule(config) if "raises" in g.seating)
    record = play_game(TableSetup.from_config(config), game)
    seat = game.seating.index("raises")
    assert record.statuses[seat] == "error" and "SystemExit" in record.messages[seat]


def test_a_worker_that_dies_once_is_replaced_and_loses_nothing(make_config, workspace,
                                                               stored_games):
    # The first decision of this trusted bot kills its worker (as the
    # out-of-memory killer would); the games in flight are played again in
    # a fresh pool, and the results equal those of a run where nothing died.
    marker = workspace / "died-once"
    (workspace / "bots" / "once.py").write_text(
        "import os\n\nclass Bot:\n    def act(self, observation, legal_actions):\n"
        "        try:\n"
        f"            os.close(os.open({str(marker)!r}, os.O_CREAT | os.O_EXCL))\n"
        "        except FileExistsError:\n"
        "            return legal_actions[0]\n"
        "        os._exit(1)\n")
    text = DETERMINISM.replace('path = "bots/first.py"',
                               'path = "bots/once.py"\nisolation = "inprocess"')
    path = make_config(text)
    died, calm = workspace / "died.sqlite", workspace / "calm.sqlite"
    assert main(["tournament", str(path), "--workers", "2", "--quiet",
                 "--output", str(died)]) == 0
    assert marker.exists()  # a worker did die
    assert main(["tournament", str(path), "--workers", "1", "--quiet",
                 "--output", str(calm)]) == 0
    games, actions = stored_games(calm, engine_placements=True)
    assert len(games) == 2 * 6
    assert stored_games(died, engine_placements=True) == (games, actions)


def test_a_worker_process_that_dies_stops_the_run_with_a_message(make_config, workspace,
                                                                 capsys):
    (workspace / "bots" / "dies.py").write_text(
        "import os\n\nclass Bot:\n    def act(self, observation, legal_actions):\n"
        "        os._exit(1)\n")
    # A trusted bot runs inside the worker process: its os._exit kills the worker.
    text = DETERMINISM.replace('path = "bots/first.py"',
                               'path = "bots/dies.py"\nisolation = "inprocess"')
    path = make_config(text)
    assert main(["tournament", str(path), "--workers", "2", "--quiet"]) == 1
    err = capsys.readouterr().err
    assert "a worker process died" in err and "run the same command again" in err
