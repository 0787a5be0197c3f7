"""A failing bot's traceback and standard error: made by the SDK (or the
in-process seat), escaped, bounded, stored, shown and reported."""

from __future__ import annotations

import io
import json
import sqlite3
import textwrap

import pytest

from cardref.bots import sdk
from cardref.cli import main
from cardref.tournament.store import Store

HELPER = """
    def pick(observation):
        return observation["cards"][0]   # no such field: a KeyError
"""

FAILING = """
    import sys
    import helper

    class Bot:
        def act(self, observation, legal_actions):
            print("about to pick \\x1b[31mred\\x1b[0m", file=sys.stderr)
            if observation["seat"] == 0:
                raise ValueError("bad \\x1b[2J thing")
            return helper.pick(observation)
"""

CONFIG = """
game = "take5"
players = 2
seed = 5
deal_groups = 1
output = "tb.sqlite"
[variant]
end_score = 5
[[bots]]
name = "folder"
path = "bots/failing/"
{isolation}
[[bots]]
name = "random"
builtin = "random"
"""


@pytest.fixture
def failing(workspace):
    folder = workspace / "bots" / "failing"
    folder.mkdir()
    (folder / "bot.py").write_text(textwrap.dedent(FAILING))
    (folder / "helper.py").write_text(textwrap.dedent(HELPER))
    return workspace


def _run(failing, make_config, isolation: str) -> list[dict]:
    config = make_config(CONFIG.format(isolation=isolation))
    assert main(["tournament", str(config), "--workers", "1", "--quiet"]) == 0
    with Store(failing / "tb.sqlite") as store:
        return store.games()


@pytest.mark.parametrize("isolation", ["", 'isolation = "inprocess"'])
def test_the_traceback_shows_the_bots_own_frames_relative_and_escaped(
        failing, make_config, isolation, capsys):
    games = _run(failing, make_config, isolation)
    out = capsys.readouterr().out
    assert len(games) == 2
    for game in games:
        seat = game["seating"].index("folder")
        assert game["statuses"][seat] == "error"
        trace = game["tracebacks"][seat]
        other = 1 - seat
        assert game["tracebacks"][other] is None
        if seat == 0:  # raised in bot.py itself, with terminal escapes in the message
            assert 'File "bot.py", line 9, in act' in trace
            assert 'raise ValueError("bad \\x1b[2J thing")' in trace
            assert trace.rstrip().endswith("ValueError: bad \\x1b[2J thing")
            assert "helper.py" not in trace
        else:  # raised in the folder's other module
            assert 'File "bot.py", line 10, in act' in trace
            assert 'File "helper.py", line 3, in pick' in trace
            assert 'return observation["cards"][0]' in trace
            assert trace.rstrip().endswith("KeyError: 'cards'")
        assert "\x1b" not in trace and "sdk.py" not in trace and "seats.py" not in trace
        assert str(failing) not in trace and "/tmp/bot" not in trace
        if isolation:  # in-process: what it prints goes to the referee's own stderr
            assert game["stderr"] == [None, None]
        else:
            assert game["stderr"][seat] == "about to pick \\x1b[31mred\\x1b[0m"
    # The terminal summary shows each distinct traceback once, with its games.
    assert out.count("Traceback of folder") == 2
    assert 'File "helper.py", line 3, in pick' in out and "\x1b[2J" not in out


def test_reports_carry_tracebacks_unless_left_out(failing, make_config, capsys):
    _run(failing, make_config, "")
    results = failing / "tb.sqlite"
    capsys.readouterr()
    for flags, shown in (([], True), (["--no-tracebacks"], False)):
        assert main(["report", str(results), "--format", "json", *flags]) == 0
        listed = json.loads(capsys.readouterr().out)["failure_list"]
        assert len(listed) == 2
        assert all(("KeyError" in (f["traceback"] or "") or "ValueError" in
                    (f["traceback"] or "")) == shown for f in listed)
        assert main(["report", str(results), "--format", "md", *flags]) == 0
        md = capsys.readouterr().out
        assert ("## Tracebacks" in md) == shown
        assert ('      File "helper.py", line 3, in pick' in md) == shown  # a code block
        assert main(["report", str(results), "--format", "html", *flags]) == 0
        page = capsys.readouterr().out
        assert ('<div id="tracebacks">' in page) == shown
        assert ("File &quot;helper.py&quot;, line 3" in page) == shown
        # The failure list itself stays either way.
        assert "raised KeyError" in md and "raised KeyError" in page


def test_replay_shows_the_traceback_and_standard_error(failing, make_config, capsys):
    games = _run(failing, make_config, "")
    capsys.readouterr()
    key = next(g["key"] for g in games if g["seating"].index("folder") == 1)
    assert main(["replay", str(failing / "tb.sqlite"), key]) == 0
    out = capsys.readouterr().out
    assert "seat 1 (folder) failed: error: raised KeyError: 'cards'" in out
    assert '    File "helper.py", line 3, in pick' in out
    assert "seat 1 (folder) standard error, its last part:" in out
    assert "  | about to pick \\x1b[31mred\\x1b[0m" in out


def test_a_results_file_from_before_tracebacks_still_loads(failing, make_config, capsys):
    _run(failing, make_config, "")
    results = failing / "tb.sqlite"
    db = sqlite3.connect(results)
    db.execute("DROP TABLE seat_logs")  # as files written before it existed
    db.commit()
    db.close()
    with Store(results) as store:
        games = store.games()
    assert [g["tracebacks"] for g in games] == [[None, None]] * 2
    assert [g["stderr"] for g in games] == [[None, None]] * 2
    capsys.readouterr()
    assert main(["report", str(results), "--format", "md"]) == 0
    md = capsys.readouterr().out
    assert "raised KeyError" in md and "## Tracebacks" not in md
    assert main(["replay", str(results), games[0]["key"]]) == 0


def _serve(path, *requests):
    load = sdk.loader("path", str(path))
    out = io.BytesIO()
    lines = b"".join(json.dumps(r).encode() + b"\n" for r in requests)
    sdk.serve(load, io.BytesIO(lines), out)
    return [json.loads(line) for line in out.getvalue().splitlines()]


HELLO = {"type": "hello", "game": "take5", "seat": 0, "players": 2, "params": {}, "seed": 1,
         "name": "x", "key": "k"}
ACT = {"type": "act", "observation": {}, "legal": ["play 1"]}


def test_a_runaway_recursion_is_shown_once_and_bounded(tmp_path):
    bot = tmp_path / "deep.py"
    bot.write_text("def f(n):\n    return f(n + 1)\n\nclass Bot:\n"
                   "    def act(self, observation, legal_actions):\n        return f(0)\n")
    replies = _serve(bot, HELLO, ACT)
    trace = replies[1]["traceback"]
    assert replies[1]["error"] == "RecursionError"
    assert len(trace) <= sdk.TRACEBACK_CHARS
    assert trace.count('File "deep.py", line 2, in f') == 1
    assert "[the frame above repeated" in trace
    assert 'File "deep.py", line 6, in act' in trace


def test_an_import_failure_points_at_the_bots_line(tmp_path):
    bot = tmp_path / "broken.py"
    bot.write_text("class Bot:\n    def act(self, o, l):\n        return (\n")
    replies = _serve(bot, HELLO)
    assert replies[0]["type"] == "error"
    trace = replies[0]["traceback"]
    assert 'File "broken.py", line 3' in trace and "SyntaxError" in trace
    assert str(tmp_path) not in trace
