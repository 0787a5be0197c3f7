"""`cardref match` and `cardref.match`: bots against each other in this
process, seated as a tournament seats them, stopping at the first failure
with the bot's own traceback; and the one way of naming bots."""

from __future__ import annotations

import json
import os
import re
import stat
import sys
import textwrap
from pathlib import Path

import pytest

import cardref
from cardref.bots.naming import BotSpecError, parse_bot, parse_bots
from cardref.cli import main
from cardref.localmatch import BotError, MatchError, schedule, variant_of
from cardref.tournament.schedule import deal_seed, lineups, seatings

RAISES = """
def deeper(observation):
    return observation["no such key"]

class Bot:
    def act(self, observation, legal_actions):
        if observation["turn"] >= 2:
            return deeper(observation)
        return legal_actions[0]
"""

PROTOCOL_BOT = """
import json, sys
for line in sys.stdin:
    request = json.loads(line)
    if request["type"] == "hello":
        reply = {"type": "ready"}
    elif request["type"] == "act":
        print("thinking", file=sys.stderr)
        reply = {"type": "action", "action": request["legal"][-1]}
    else:
        reply = {"type": "done"}
    print(json.dumps(reply), flush=True)
"""


@pytest.fixture
def bots(tmp_path: Path, monkeypatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "raises.py").write_text(textwrap.dedent(RAISES))
    (tmp_path / "last.py").write_text(textwrap.dedent(PROTOCOL_BOT))
    (tmp_path / "first.py").write_text(
        "class Bot:\n    def act(self, observation, legal_actions):\n"
        "        return legal_actions[0]\n")
    return tmp_path


def _replayed(result, game, players, variant):
    """Each game's scores, replaying its actions through the engine."""
    scores = []
    for g in result.games:
        state = cardref.load(game, players, **variant).new_state(seed=g.seed)
        for seat, _, action, _ in g.actions:
            assert state.current_player() == seat
            state.apply(action)
        assert state.is_terminal()
        scores.append(list(state.scores()))
    return scores


def test_games_go_deal_by_deal_in_every_seating(bots):
    result = cardref.match("take5", ["heuristic", "first.py"], games=5, seed=7, end_score=20)
    assert result.players == 2 and result.bots == ["heuristic", "first"]
    pair = [["heuristic", "first"], ["first", "heuristic"]]
    assert [g.seating for g in result.games] == pair * 2 + pair[:1]
    assert [g.deal for g in result.games] == [0, 0, 1, 1, 2]
    assert [g.seed for g in result.games] == [deal_seed(7, d) for d in (0, 0, 1, 1, 2)]
    assert _replayed(result, "take5", 2, {"end_score": 20}) == [g.scores for g in result.games]
    assert sorted(s["name"] for s in result.standings) == ["first", "heuristic"]
    assert [s["games"] for s in result.standings] == [5, 5]
    # The same seed plays the same games.
    again = cardref.match("take5", ["heuristic", "first.py"], games=5, seed=7, end_score=20)
    assert [[a[:3] for a in g.actions] for g in again.games] == \
        [[a[:3] for a in g.actions] for g in result.games]


def test_fewer_bots_than_seats_are_seated_as_a_tournament_seats_them(bots):
    result = cardref.match("take5", ["heuristic", "random"], players=4, end_score=10)
    expected = [s for lineup in lineups(["heuristic", "random"], 4)
                for s in seatings(lineup, "auto", None)]
    assert [tuple(g.seating) for g in result.games] == expected
    assert expected == [("heuristic", "random", "heuristic", "random"),
                        ("random", "heuristic", "random", "heuristic")]
    # Back Alley seats four: two bots make a table of four by default, partners rotated.
    assert schedule(["a", "b"], 4, None, [[0, 2], [1, 3]]) == [
        (0, s) for s in seatings(("a", "b", "a", "b"), "auto", [[0, 2], [1, 3]])]
    alley = cardref.match("back_alley", ["heuristic", "random"], games=1, schedule=[1])
    assert alley.players == 4


def test_bot_classes_objects_and_names(bots):
    made = []

    class Counting:
        def __init__(self):
            made.append(self)

        def act(self, observation, legal_actions):
            return legal_actions[-1]

    class Keeper:
        def start(self, info):
            self.seat = info["seat"]

        def act(self, observation, legal_actions):
            assert observation["seat"] == self.seat
            return legal_actions[0]

    keeper = Keeper()
    result = cardref.match("take5", {"counting": Counting, "keeper": keeper, "h": "heuristic"},
                           games=3, end_score=10)
    assert result.bots == ["counting", "keeper", "h"]
    assert result.players == 3
    assert len(made) == 3  # a fresh instance per game
    # Unnamed: a class is named after its module (here, this test file) or itself.
    named = cardref.match("take5", [Counting, Counting(), "random"], games=1, end_score=5)
    assert named.bots == ["test_match", "test_match-2", "random"]
    # The same BOT given twice is one bot.
    assert cardref.match("take5", ["random", "random", "first.py"], games=1,
                         end_score=5).bots == ["random", "first"]


def test_a_raising_bot_stops_the_match_with_its_exception(bots, tmp_path):
    page = tmp_path / "stopped.html"
    with pytest.raises(BotError) as caught:
        cardref.match("take5", ["heuristic", "raises.py"], seed=1, html=page)
    error = caught.value
    assert isinstance(error.__cause__, KeyError)
    assert error.bot == "raises" and error.game.number == 1
    assert "bot 'raises' in seat 1: act raised KeyError: 'no such key'" in str(error)
    assert f"step {len(error.game.actions)}]" in str(error)
    data = page.read_text()
    assert '"statuses":["ok","error"]' in data and "deeper(observation)" in data


def test_an_illegal_or_invalid_answer_stops_the_match(bots):
    class Illegal:
        def act(self, observation, legal_actions):
            return "play 1000"

    class NotText:
        def act(self, observation, legal_actions):
            return 3

    with pytest.raises(BotError, match=r"act returned 'play 1000', which is not legal here: .* "
                                       r"Its legal actions were: play \d+"):
        cardref.match("take5", [Illegal, "random"], games=1)
    with pytest.raises(BotError, match="act returned int 3, not a string"):
        cardref.match("take5", [NotText, "random"], games=1)


def test_the_command_prints_each_game_and_the_standings(bots, capsys):
    assert main(["match", "take5", "heuristic", "first.py", "--games", "3", "--seed", "4",
                 "--variant", "end_score=15"]) == 0
    out = capsys.readouterr().out
    assert [line.split(":")[0] for line in out.splitlines() if line.startswith("game ")] == \
        ["game 1 (deal 0)", "game 2 (deal 0)", "game 3 (deal 1)"]
    assert "take5, 2 players: 3 games" in out and "Mean placement" in out
    assert "heuristic:" in out and "decisions, mean" in out


def test_the_command_stops_with_the_bots_full_traceback(bots, capsys, tmp_path):
    page = tmp_path / "p.html"
    assert main(["match", "take5", "random", "raises.py", "--html", str(page)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("Traceback (most recent call last):")
    assert f'File "{bots / "raises.py"}", line 8, in act' in err
    assert f'File "{bots / "raises.py"}", line 3, in deeper' in err
    assert "KeyError: 'no such key'" in err
    assert "localmatch.py" not in err  # the match's own frames are left out
    assert "cardref match: stopped: bot 'raises'" in err and str(page) in err
    assert page.is_file()


def test_a_command_bot_plays_in_its_own_process(bots, capsys):
    result = cardref.match("take5", [f"{sys.executable} last.py", "random"], games=2,
                           end_score=10)
    assert result.bots == ["last", "random"]
    seat = result.games[0].seating.index("last")
    state = cardref.load("take5", 2, end_score=10).new_state(seed=result.games[0].seed)
    for who, _, action, _ in result.games[0].actions:
        if who == seat:
            assert action == state.legal_actions()[-1]
        state.apply(action)
    assert "thinking" in capsys.readouterr().err  # its standard error is passed on
    crash = bots / "crash.py"
    crash.write_text("import sys\nprint('about to go', file=sys.stderr)\nsys.exit(3)\n")
    with pytest.raises(BotError, match="its program failed in start: crash: exited with "
                                       "code 3") as caught:
        cardref.match("take5", [f"{sys.executable} crash.py", "random"], games=1)
    assert "about to go" in caught.value.failure.stderr


def test_bots_are_named_one_way(bots):
    assert parse_bot("heuristic", "take5").target == "cardref.bots.heuristic.take5"
    mine = parse_bot("mine=first.py", "take5")
    assert (mine.name, mine.kind, mine.target) == ("mine", "path", str(bots / "first.py"))
    (bots / "folder").mkdir()
    (bots / "folder" / "bot.py").write_text((bots / "first.py").read_text())
    assert parse_bot("folder", "take5").name == "folder"
    command = parse_bot(f"{sys.executable} last.py --fast", "take5")
    assert command.kind == "command" and command.name == "last"
    assert json.loads(command.target) == [sys.executable, str(bots / "last.py"), "--fast"]
    program = bots / "prog"
    program.write_text("#!/bin/sh\n")
    program.chmod(program.stat().st_mode | stat.S_IXUSR)
    assert parse_bot("prog", "take5").kind == "command"
    (bots / "empty").mkdir()
    for text, problem in [
        ("heurstic", re.escape("not a built-in bot (random, heuristic, search), no such "
                               "file") + ".*Did you mean 'heuristic'?"),
        ("empty", "has no bot.py"),
        ("notes.txt=", "names no bot"),
    ]:
        with pytest.raises(BotSpecError, match=problem):
            parse_bot(text, "take5")
    (bots / "notes.txt").write_text("hello")
    os.chmod(bots / "notes.txt", 0o644)
    with pytest.raises(BotSpecError, match=r"neither a \.py bot nor an executable"):
        parse_bot("notes.txt", "take5")
    (bots / "other").mkdir()
    (bots / "other" / "first.py").write_text((bots / "first.py").read_text())
    with pytest.raises(BotSpecError, match="different bots both called 'first'"):
        parse_bots(["first.py", "other/first.py"], "take5")


def test_bad_input_is_named(bots, capsys):
    assert variant_of(["end_score=20", "deck=tactics", "round_limit=null"]) == {
        "end_score": 20, "deck": "tactics", "round_limit": None}
    with pytest.raises(MatchError, match="expected KEY=VALUE"):
        variant_of(["end_score"])
    for argv, problem in [
        (["match", "chess", "random"], "unknown game 'chess'"),
        (["match", "take5", "random", "nobot"], "'nobot': not a built-in bot"),
        (["match", "take5", "random", "--variant", "end_scor=3"], "end_scor"),
        (["match", "take5", "random", "--players", "11"], "players"),
        (["match", "take5", "random", "--games", "0"], "games must be at least 1"),
    ]:
        assert main(argv) == 2, argv
        assert problem in capsys.readouterr().err, argv
