"""Hostile bots, each in a real (small) tournament against two honest built-ins.

For every hostile bot the tournament finishes, the honest bots' games are
scored normally (their places are the engine's, among themselves), and the
hostile seat's failure is stored with its status and a message. Bots that try
to spy or to write outside their directory are refused by the sandbox and
play on; the test checks that nothing leaked and nothing was written.
"""

from __future__ import annotations

import json
import os
import sys
import textwrap
from pathlib import Path

import pytest

from cardref.cli import main
from cardref.tournament.store import Store

TOURNAMENT = """
game = "take5"
players = 3
seed = 11
deal_groups = 1
rotation = "cyclic"
output = "hostile.sqlite"

[limits]
{limits}

[[bots]]
name = "random"
builtin = "random"
[[bots]]
name = "heuristic"
builtin = "heuristic"
[[bots]]
name = "hostile"
{bot}
"""


def _python_bot(act: str, prelude: str = "") -> str:
    return textwrap.dedent(prelude) + textwrap.dedent("""
        class Bot:
            def act(self, observation, legal_actions):
        """) + textwrap.indent(textwrap.dedent(act), " " * 8)


def _command(code: str) -> str:
    """A bot given as ``command``: an inline program speaking the protocol."""
    return "command = " + json.dumps([sys.executable, "-c", textwrap.dedent(code)])


#: name -> (bot source or command, the extra [limits] lines, the expected status)
PYTHON_BOTS = {
    "infinite_loop": ("while True:\n    pass\n", "", "timeout"),
    "sleeps_past_the_limit": ("import time\ntime.sleep(30)\n", "", "timeout"),
    "raises": ("raise ValueError('no')\n", "", "error"),
    "calls_sys_exit": ("import sys\nsys.exit(0)\n", "", "error"),
    "exits_the_process": ("import os\nos._exit(3)\n", "", "crash"),
    "segfaults": ("import ctypes\nctypes.string_at(0)\n", "", "crash"),
    "unbounded_memory": ("hoard = []\nwhile True:\n    hoard.append(bytearray(1 << 24))\n",
                         "memory_mb = 300\ndecision_seconds = 10", "limit"),
    "forks": ("import os\nif os.fork() == 0:\n    os._exit(0)\nreturn legal_actions[0]\n",
              "", "limit"),
    "opens_too_many_files": ("files = [open('/dev/null') for _ in range(1000)]\n", "",
                             "limit"),
    "floods_standard_output": ("while True:\n    print('x' * 100000)\n",
                               "output_bytes = 200000", "limit"),
    "burns_cpu": ("while True:\n    pass\n", "cpu_seconds = 1\ndecision_seconds = 30",
                  "limit"),
    "illegal_action": ("return 'play 1000'\n", "", "illegal"),
    "returns_a_number": ("return 42\n", "", "invalid"),
}

HELLO = """
import json, sys
hello = sys.stdin.readline()
print(json.dumps({"type": "ready"}), flush=True)
for line in sys.stdin:
    request = json.loads(line)
"""

COMMAND_BOTS = {
    "prints_garbage": (HELLO + "    print('garbage, not JSON', flush=True)\n", "", "malformed"),
    "floods_its_reply": (HELLO + "    sys.stdout.write('x' * 300000)\n    sys.stdout.flush()\n",
                         "output_bytes = 100000", "limit"),
    "answers_a_number": (HELLO + "    print(json.dumps({'type': 'action', 'action': 7}), "
                         "flush=True)\n", "", "malformed"),
    "answers_out_of_turn": (HELLO + "    print(json.dumps({'type': 'ready'}), flush=True)\n",
                            "", "protocol"),
    "never_says_ready": ("import time\ntime.sleep(30)\n", "startup_seconds = 1", "timeout"),
}


def _play(workspace: Path, make_config, bot: str, limits: str) -> list[dict]:
    if "decision_seconds" not in limits:
        limits += "\ndecision_seconds = 0.5"
    path = make_config(TOURNAMENT.format(bot=bot, limits=limits))
    assert main(["tournament", str(path), "--workers", "1", "--quiet"]) == 0
    with Store(workspace / "hostile.sqlite") as store:
        games = store.games()
        assert len(games) == len(store.schedule()) == 3
        for game in games:
            game["actions"] = store.actions(game["key"])
    return games


def _check_honest(game: dict) -> None:
    """The two honest seats end "ok", placed by the engine (among themselves
    when the hostile seat forfeited)."""
    honest = [s for s, name in enumerate(game["seating"]) if name != "hostile"]
    assert [game["statuses"][s] for s in honest] == ["ok", "ok"]
    if set(game["statuses"]) == {"ok"}:
        assert game["placements"] == game["engine_placements"]
        return
    a, b = (game["engine_placements"][s] for s in honest)
    expected = [1, 1] if a == b else ([1, 2] if a < b else [2, 1])
    assert [game["placements"][s] for s in honest] == expected
    assert all(actor == "bot" for seat, actor, _, _ in game["actions"] if seat in honest)


@pytest.mark.parametrize("name", sorted(PYTHON_BOTS))
def test_a_hostile_python_bot_forfeits_and_the_tournament_finishes(name, workspace,
                                                                   make_config):
    act, limits, status = PYTHON_BOTS[name]
    (workspace / "bots" / f"{name}.py").write_text(_python_bot(act))
    games = _play(workspace, make_config, f'path = "bots/{name}.py"', limits)
    for game in games:
        _check_honest(game)
        seat = game["seating"].index("hostile")
        assert game["statuses"][seat] == status, game["messages"][seat]
        assert game["messages"][seat]
        assert game["placements"][seat] == 3
        assert {actor for s, actor, _, _ in game["actions"] if s == seat} == {"fallback"}


@pytest.mark.parametrize("name", sorted(COMMAND_BOTS))
def test_a_hostile_program_forfeits_and_the_tournament_finishes(name, workspace, make_config):
    code, limits, status = COMMAND_BOTS[name]
    games = _play(workspace, make_config, _command(code), limits)
    for game in games:
        _check_honest(game)
        seat = game["seating"].index("hostile")
        assert game["statuses"][seat] == status, game["messages"][seat]
        assert game["placements"][seat] == 3


SPY = """
import gc, json, os, socket

class Bot:
    def act(self, observation, legal_actions):
        found = []
        if "CARDREF_TEST_SECRET" in os.environ:
            found.append("the referee's environment")
        for obj in gc.get_objects():  # the engine's state is not in this process
            if type(obj).__name__ in ("State", "ReferenceState"):
                found.append("a game state object")
        for path in [RESULTS, f"/proc/{os.getppid()}/mem", f"/proc/{os.getppid()}/environ"]:
            try:
                with open(path, "rb") as f:
                    f.read(1)
                found.append(path)
            except OSError:
                pass
        for pid in os.listdir("/proc"):  # other bots and the referee
            if pid.isdigit() and int(pid) != os.getpid():
                try:
                    with open(f"/proc/{pid}/environ", "rb") as f:
                        if b"CARDREF_TEST_SECRET" in f.read():
                            found.append(f"/proc/{pid}/environ")
                except OSError:
                    pass
        try:
            socket.create_connection(("1.1.1.1", 53), timeout=0.2).close()
            found.append("the network")
        except OSError:
            pass
        if found:
            raise RuntimeError("found " + ", ".join(found))
        return legal_actions[0]
"""


def test_a_bot_cannot_see_the_state_the_referee_or_other_processes(workspace, make_config,
                                                                    monkeypatch):
    monkeypatch.setenv("CARDREF_TEST_SECRET", "the deck is 1 2 3")
    results = workspace / "hostile.sqlite"
    (workspace / "bots" / "spy.py").write_text(f"RESULTS = {str(results)!r}\n" + SPY)
    # The spy's searching is slow on a busy machine: it must not time out instead.
    for game in _play(workspace, make_config, 'path = "bots/spy.py"', "decision_seconds = 5"):
        _check_honest(game)
        seat = game["seating"].index("hostile")
        assert game["statuses"][seat] == "ok", game["messages"][seat]
    # The same bot trusted to run inside the referee finds what the sandbox hides.
    results.unlink()
    inside = 'path = "bots/spy.py"\nisolation = "inprocess"'
    for game in _play(workspace, make_config, inside, ""):
        seat = game["seating"].index("hostile")
        assert game["statuses"][seat] == "error"
        assert "the referee's environment" in game["messages"][seat]
        assert "a game state object" in game["messages"][seat]


WRITER = """
import os

class Bot:
    def act(self, observation, legal_actions):
        with open("mine.txt", "w") as f:  # its own directory: allowed
            f.write("notes")
        for path in TARGETS:
            try:
                with open(path, "a") as f:
                    f.write("scribbled")
            except OSError:
                pass
        return legal_actions[0]
"""


def test_a_bot_cannot_write_outside_its_directory(workspace, make_config, tmp_path_factory):
    outside = tmp_path_factory.mktemp("outside")
    os.chmod(outside, 0o777)  # even a world-writable directory is out of reach
    targets = [str(workspace / "escaped.txt"), str(outside / "escaped.txt"),
               "/tmp/cardref-escaped.txt", "/dev/shm/cardref-escaped.txt",
               str(workspace / "bots" / "writer.py")]
    (workspace / "bots" / "writer.py").write_text(f"TARGETS = {targets!r}\n" + WRITER)
    source = (workspace / "bots" / "writer.py").read_text()
    for game in _play(workspace, make_config, 'path = "bots/writer.py"', ""):
        _check_honest(game)
        seat = game["seating"].index("hostile")
        assert game["statuses"][seat] == "ok", game["messages"][seat]
    # As root the bot runs as a user of its own with a private /tmp: nothing got
    # through. (Run by another user, bots share that user; docs/protocol.md.)
    assert os.geteuid() == 0, "this machine's tests run as root"
    for target in targets[:4]:
        assert not Path(target).exists(), target
    assert (workspace / "bots" / "writer.py").read_text() == source


SLOW = "import time\ntime.sleep(0.04)\nreturn legal_actions[0]\n"


@pytest.mark.parametrize(("bank", "status"), [(30, "ok"), (0.1, "timeout")])
def test_the_time_bank_pays_for_slow_decisions_until_it_is_spent(bank, status, workspace,
                                                                 make_config):
    (workspace / "bots" / "slow.py").write_text(_python_bot(SLOW))
    limits = f"decision_seconds = 0.01\nbank_seconds = {bank}"
    for game in _play(workspace, make_config, 'path = "bots/slow.py"', limits):
        _check_honest(game)
        seat = game["seating"].index("hostile")
        assert game["statuses"][seat] == status, game["messages"][seat]
        if status == "timeout":
            assert "time bank is spent" in game["messages"][seat]
            # 0.1 s of bank covers at most three 0.03 s overruns, never all the decisions.
            bot = [a for s, a, _, _ in game["actions"] if s == seat and a == "bot"]
            assert len(bot) <= 3


def test_repeated_failures_disqualify_a_bot(workspace, make_config):
    (workspace / "bots" / "raises.py").write_text(_python_bot("raise ValueError('no')\n"))
    text = TOURNAMENT.format(bot='path = "bots/raises.py"', limits="decision_seconds = 0.5")
    path = make_config(text + "\n[failure]\ndisqualify_after = 1\n")
    assert main(["tournament", str(path), "--workers", "1", "--quiet"]) == 0
    with Store(workspace / "hostile.sqlite") as store:
        games = store.games()
        for game in games:
            game["actions"] = store.actions(game["key"])
    statuses = [g["statuses"][g["seating"].index("hostile")] for g in games]
    assert statuses == ["error", "disqualified", "disqualified"]
    for game in games:
        _check_honest(game)
    # Every report lists every failure, with its game, seat, status and message.
    out = workspace / "report.json"
    assert main(["report", str(workspace / "hostile.sqlite"), "--format", "json",
                 "-o", str(out)]) == 0
    listed = json.loads(out.read_text())["failure_list"]
    assert [(f["game"], f["bot"], f["status"]) for f in listed] == [
        (g["key"], "hostile", st) for g, st in zip(games, statuses)]
    assert "ValueError: no" in listed[0]["message"]
    md = workspace / "report.md"
    assert main(["report", str(workspace / "hostile.sqlite"), "--format", "md",
                 "-o", str(md)]) == 0
    assert f"| {games[1]['key']} |" in md.read_text()
