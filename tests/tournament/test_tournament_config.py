"""Config loading: the minimal file works as written; every kind of mistake
stops before any game with a message naming the file, key path and value."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from cardref.cli import main
from cardref.tournament.config import ConfigError, load_config

MINIMAL = """
game = "take5"
players = 4
seed = 1
deal_groups = 20
output = "results.sqlite"      # relative to the config file

[variant]                      # optional: the game's variant keys
end_score = 66

[limits]                       # optional
decision_seconds = 1.0         # wall-clock time a bot may take per decision

[[bots]]
name = "rand"
builtin = "random"             # or: path = "bots/mine.py" (a file), module = "pkg.mod" (importable)
[[bots]]
name = "mine"
path = "bots/mine.py"
"""

BASE = """
game = "take5"
players = 4
seed = 1
deal_groups = 2
output = "out.sqlite"
{extra}
[[bots]]
name = "a"
builtin = "random"
[[bots]]
name = "b"
{second}
"""


def test_the_minimal_config_from_the_issue_loads_as_written(workspace, make_config):
    (workspace / "bots" / "mine.py").write_text((workspace / "bots" / "first.py").read_text())
    config = load_config(make_config(MINIMAL))
    assert config.game == "take5" and config.players == 4 and config.seed == 1
    assert config.deal_groups == 20 and config.params["end_score"] == 66
    assert config.output == (workspace / "results.sqlite").resolve()
    assert config.decision_seconds == 1.0
    assert [(b.name, b.kind) for b in config.bots] == [("rand", "module"), ("mine", "path")]
    assert config.bots[0].target == "cardref.bots.random"
    assert config.format == "round_robin" and config.failure_policy == "forfeit"


def _error(make_config, extra: str = "", second: str = 'builtin = "heuristic"') -> str:
    path = make_config(BASE.format(extra=extra, second=second))
    with pytest.raises(ConfigError) as info:
        load_config(path)
    message = str(info.value)
    assert message.startswith(str(path) + ": "), message
    return message


@pytest.mark.parametrize(
    ("extra", "second", "needles"),
    [
        ("colour = 3", 'builtin = "heuristic"', ["colour = 3", "unknown key", "deal_groups"]),
        ('workers = "x"', 'builtin = "heuristic"', ['workers = "x"', "an integer >= 1"]),
        ("[variant]\nend_score = 0", 'builtin = "heuristic"',
         ["variant.end_score = 0", "must be an integer"]),
        ("[variant]\nflavour = 1", 'builtin = "heuristic"', ["variant.flavour = 1", "unknown"]),
        ("[limits]\ndecision_seconds = -1", 'builtin = "heuristic"',
         ["limits.decision_seconds = -1", "positive number"]),
        ("[limits]\nper_game = 2", 'builtin = "heuristic"', ["limits.per_game", "unknown key"]),
        ('format = "swiss"', 'builtin = "heuristic"',
         ['format = "swiss"', '"round_robin", "gauntlet"']),
        ('[failure]\npolicy = "ignore"', 'builtin = "heuristic"',
         ['failure.policy = "ignore"', '"forfeit", "stop"']),
        ("", 'builtin = "clever"', ['bots[1].builtin = "clever"', "random, heuristic"]),
        ("", 'path = "bots/missing.py"', ['bots[1].path = "bots/missing.py"', "no such file"]),
        ("", 'path = "bots/broken.py"',
         ['bots[1].path = "bots/broken.py"', "ModuleNotFoundError", "no_such_module_anywhere"]),
        ("", 'path = "bots/nobot.py"', ["bots[1].path", "does not define a class named Bot"]),
        ("", 'module = "no.such.module"', ['bots[1].module = "no.such.module"', "import"]),
        ("", 'builtin = "random"\npath = "bots/first.py"', ["bots[1]", "exactly one of"]),
        ("", 'builtin = "random"\nlevel = 3', ["bots[1].level = 3", "unknown key"]),
        ('format = "gauntlet"', 'builtin = "random"', ["candidate is missing", '"a", "b"']),
        ('format = "gauntlet"\ncandidate = "z"', 'builtin = "random"',
         ['candidate = "z"', '"a", "b"']),
    ],
)
def test_bad_values_name_the_key_the_value_and_what_is_allowed(make_config, extra, second,
                                                               needles):
    message = _error(make_config, extra, second)
    for needle in needles:
        assert needle in message, message


def test_wrong_player_count_unknown_game_and_missing_keys(make_config):
    text = BASE.format(extra="", second='builtin = "random"')
    cases = [
        (text.replace("players = 4", "players = 11"), ["players = 11", "from 2 to 10"]),
        (text.replace("players = 4", 'players = "4"'), ['players = "4"', "integer"]),
        (text.replace('game = "take5"', 'game = "chess"'), ['game = "chess"', "take5"]),
        (text.replace("seed = 1\n", ""), ["seed is missing", "integer"]),
        (text.replace("seed = 1\n", "seed = -1\n"),
         ["seed = -1", "from 0 to 18446744073709551615"]),
        (text.replace("seed = 1\n", "seed = true\n"), ["seed = true", "integer"]),
        (text.replace('output = "out.sqlite"\n', ""), ["output is missing"]),
        (text.replace('name = "b"', 'name = "a"'), ['bots[1].name = "a"', "unique"]),
        ("game = 'take5'\nplayers = 4\nseed = 1\ndeal_groups = 1\noutput = 'o'\n",
         ["bots is missing"]),
        ("game = 'take5'\nplayers = 4 = 5\n", ["not valid TOML"]),
    ]
    for i, (body, needles) in enumerate(cases):
        path = make_config(body, name=f"case{i}.toml")
        with pytest.raises(ConfigError) as info:
            load_config(path)
        for needle in [str(path), *needles]:
            assert needle in str(info.value), str(info.value)


def test_a_game_without_a_heuristic_bot_is_a_config_error_naming_the_game(make_config,
                                                                          monkeypatch):
    import cardref.bots as bots

    real = bots.importlib.util.find_spec
    monkeypatch.setattr(bots.importlib.util, "find_spec",
                        lambda name: None if name.endswith(".take5") else real(name))
    message = _error(make_config, "", 'builtin = "heuristic"')
    assert 'bots[1].builtin = "heuristic"' in message
    assert "no heuristic bot for the game 'take5'" in message


def test_cli_config_errors_exit_2_with_a_message_and_no_traceback(make_config, workspace):
    path = make_config(BASE.format(extra="", second='path = "bots/broken.py"'))
    done = subprocess.run([sys.executable, "-m", "cardref.cli", "tournament", str(path)],
                          capture_output=True, text=True, cwd=workspace, timeout=60)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert str(path) in done.stderr and "bots[1].path" in done.stderr
    assert not (workspace / "out.sqlite").exists()  # stopped before any game


def test_missing_config_file(tmp_path: Path, capsys):
    assert main(["tournament", str(tmp_path / "nope.toml")]) == 2
    assert "nope.toml: cannot read the config file" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("extra", "second", "needles"),
    [
        ("[limits]\nmemory_mb = 8", 'builtin = "random"', ["limits.memory_mb = 8", ">= 64"]),
        ("[limits]\nbank_seconds = -1", 'builtin = "random"',
         ["limits.bank_seconds = -1", ">= 0"]),
        ("[limits]\nprocesses = 1.5", 'builtin = "random"', ["limits.processes", "integer"]),
        ("[failure]\ndisqualify_after = -2", 'builtin = "random"',
         ["failure.disqualify_after = -2", "integer >= 0"]),
        ("", 'command = "python bot.py"', ["bots[1].command", "array of strings"]),
        ("", 'command = []', ["bots[1].command", "array of strings"]),
        ("", 'command = ["x"]\nisolation = "inprocess"', ["bots[1].isolation", "own process"]),
        ("", 'path = "bots/first.py"\nisolation = "nowhere"',
         ['bots[1].isolation = "nowhere"', '"process", "inprocess"']),
    ],
)
def test_new_limit_failure_and_bot_keys_are_checked(make_config, extra, second, needles):
    message = _error(make_config, extra, second)
    for needle in needles:
        assert needle in message, message


def test_limits_and_isolation_are_read_and_count_in_the_fingerprint(make_config):
    base = BASE.format(extra="", second='path = "bots/first.py"')
    plain = load_config(make_config(base, name="plain.toml"))
    assert plain.bots[1].isolation == "process" and plain.bots[0].isolation == "inprocess"
    limited = load_config(make_config(BASE.format(
        extra="[limits]\nmemory_mb = 512\nbank_seconds = 2\n[failure]\ndisqualify_after = 3",
        second='path = "bots/first.py"'), name="limited.toml"))
    assert limited.limits.memory_mb == 512 and limited.limits.bank_seconds == 2.0
    assert limited.disqualify_after == 3
    assert limited.fingerprint() != plain.fingerprint()
    command = load_config(make_config(BASE.format(
        extra="", second='command = ["python3", "-m", "mybot"]'), name="command.toml"))
    assert command.bots[1].kind == "command" and command.bots[1].isolation == "process"


def test_every_problem_of_a_file_is_reported_at_once(make_config):
    text = BASE.format(extra='rotation = "spiral"\n[limits]\nmemory_mb = 8',
                       second='builtin = "random"\nlevel = 3')
    path = make_config(text.replace("seed = 1\n", "seed = -1\n"))
    with pytest.raises(ConfigError) as info:
        load_config(path)
    problems = info.value.problems
    assert len(problems) == 4, problems
    assert all(p.startswith(f"{path}: ") for p in problems)
    for needle, line in zip(["seed = -1", 'rotation = "spiral"', "limits.memory_mb = 8",
                             "bots[1].level = 3"], sorted(problems, key=_order)):
        assert needle in line, problems
    assert str(info.value) == "\n".join(problems)


def _order(problem: str) -> int:
    return next(i for i, key in enumerate(["seed", "rotation", "limits", "bots"])
                if f": {key}" in problem)


def test_cli_prints_every_problem_on_its_own_line(make_config, capsys):
    text = BASE.format(extra="colour = 3\nworkers = 0", second='builtin = "random"')
    assert main(["tournament", str(make_config(text))]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 2 and all(line.startswith("cardref tournament: error: ")
                                   for line in lines), lines


@pytest.mark.parametrize(("extra", "needle"), [
    ("deal_group = 3", "did you mean deal_groups?"),
    ("[limits]\ndecision_second = 1", "did you mean decision_seconds?"),
    ("[failure]\npolicies = 'stop'", "did you mean policy?"),
])
def test_unknown_keys_suggest_the_closest_allowed_key(make_config, extra, needle):
    assert needle in _error(make_config, extra)


def test_an_unknown_key_unlike_any_other_gets_no_suggestion(make_config):
    message = _error(make_config, "zzz = 3")
    assert "unknown key; allowed keys here" in message and "did you mean" not in message


def test_a_top_level_key_written_after_the_bots_is_explained(make_config):
    text = BASE.format(extra="", second='builtin = "random"').replace("seed = 1\n", "")
    path = make_config(text + "seed = 1\n")  # TOML reads it as bots[1].seed
    with pytest.raises(ConfigError) as info:
        load_config(path)
    [problem] = info.value.problems  # and not also "seed is missing"
    assert "bots[1].seed = 1" in problem
    assert "top-level key" in problem and "above the first [[bots]]" in problem


def test_a_player_count_given_as_a_string_says_so(make_config):
    text = BASE.format(extra="", second='builtin = "random"')
    path = make_config(text.replace("players = 4", 'players = "4"'))
    with pytest.raises(ConfigError) as info:
        load_config(path)
    message = str(info.value)
    assert "players = \"4\": must be an integer" in message
    assert "got the string '4'" in message, message


NEEDS_ARGUMENTS = """
class Bot:
    def __init__(self, depth):
        self.depth = depth

    def act(self, observation, legal_actions):
        return legal_actions[0]
"""


@pytest.mark.parametrize("isolation", ["process", "inprocess"])
def test_a_bot_that_cannot_be_created_is_a_config_error(make_config, workspace, isolation):
    (workspace / "bots" / "args.py").write_text(NEEDS_ARGUMENTS)
    message = _error(make_config, "", f'path = "bots/args.py"\nisolation = "{isolation}"')
    assert 'bots[1].path = "bots/args.py": not a usable bot: Bot() failed: TypeError' in message
    assert "depth" in message


def test_a_bot_whose_constructor_exits_is_refused_in_its_own_process(make_config, workspace):
    (workspace / "bots" / "exits.py").write_text(
        "import sys\nclass Bot:\n    def __init__(self):\n        sys.exit(4)\n"
        "    def act(self, o, l):\n        return l[0]\n")
    message = _error(make_config, "", 'path = "bots/exits.py"')
    assert "Bot() failed: SystemExit: 4" in message
