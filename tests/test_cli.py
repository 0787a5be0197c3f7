"""The ``cardref`` command line as a user meets it: help texts, ``--version``,
and output piped into a reader that stops early (``| head``)."""

from __future__ import annotations

import argparse
import importlib.metadata
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import cardref
from cardref import _core
from cardref.cli import _parser, main
from cardref.tournament.store import Store

CONFIG = """
game = "take5"
players = 2
seed = 5
deal_groups = 1
output = "cli.sqlite"
[[bots]]
name = "random"
builtin = "random"
[[bots]]
name = "heuristic"
builtin = "heuristic"
"""


def _help(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    with pytest.raises(SystemExit) as exit_info:
        main([*argv, "--help"])
    assert exit_info.value.code == 0
    return capsys.readouterr().out


HELP_PAGES = [(), ("tournament",), ("replay",), ("report",), ("bench",),
              ("bench", "--referee")]


@pytest.mark.parametrize("argv", HELP_PAGES, ids=lambda a: " ".join(a) or "cardref")
def test_help_is_plain_text(argv: tuple[str, ...], capsys: pytest.CaptureFixture[str]) -> None:
    text = _help(capsys, *argv)
    assert "usage: cardref" in text
    assert "``" not in text, text


def test_the_top_help_describes_the_command(capsys: pytest.CaptureFixture[str]) -> None:
    text = _help(capsys)
    assert "The cardref command: tournament, replay, report and bench." in text
    assert "--version" in text


def _subparsers() -> dict[str, argparse.ArgumentParser]:
    for action in _parser()._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    raise AssertionError("cardref has no subcommands")


@pytest.mark.parametrize("command", ["tournament", "replay", "report"])
def test_every_positional_argument_has_help(command: str) -> None:
    positionals = [a for a in _subparsers()[command]._actions if not a.option_strings]
    assert positionals, f"{command} takes no positional argument"
    for action in positionals:
        assert action.help and action.help != argparse.SUPPRESS, (command, action.dest)


def test_positional_help_is_shown(capsys: pytest.CaptureFixture[str]) -> None:
    assert "a tournament's results file" in _help(capsys, "replay")
    assert "the tournament's TOML file" in _help(capsys, "tournament")
    assert "game ids (default: every game)" in _help(capsys, "bench")


def test_report_format_states_its_default(capsys: pytest.CaptureFixture[str]) -> None:
    text = " ".join(_help(capsys, "report").split())
    assert "--format {md,csv,json,html}" in text
    assert "(default: md)" in text
    assert _subparsers()["report"].get_default("format") == "md"


def test_bench_help_lists_the_referee_benchmark(capsys: pytest.CaptureFixture[str]) -> None:
    text = _help(capsys, "bench")
    assert "--referee" in text
    assert "referee's overhead" in " ".join(text.split())
    assert "--decisions" in _help(capsys, "bench", "--referee")


def test_version_prints_the_package_version_and_the_engine_build(
        capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0
    line = capsys.readouterr().out.strip()
    match = re.fullmatch(r"cardref (\S+) \(engine build ([0-9a-f]{32}); (\w+) ([\d.]+\S*)\)",
                         line)
    assert match, line
    assert match[1] == cardref.__version__ == importlib.metadata.version("cardref")
    assert match[2] == cardref.build_id() == _core.BUILD_ID
    assert match[4] == ".".join(map(str, sys.version_info[:3]))


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A finished two-game tournament: its results file and one game key."""
    folder = tmp_path_factory.mktemp("cli")
    (folder / "cli.toml").write_text(CONFIG)
    assert main(["tournament", str(folder / "cli.toml"), "--quiet", "--workers", "1"]) == 0
    with Store(folder / "cli.sqlite") as store:
        key = sorted(store.finished_keys())[0]
    return folder / "cli.sqlite", key


def _cardref_into_closed_pipe(*argv: str) -> subprocess.CompletedProcess[str]:
    """Run ``cardref argv`` with its standard output a pipe nobody reads any more,
    as after ``| head`` has exited: every write to it fails."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        return subprocess.run([sys.executable, "-m", "cardref.cli", *argv], stdout=write_end,
                              stderr=subprocess.PIPE, text=True, timeout=120, check=False)
    finally:
        os.close(write_end)


#: From Python 3.11 on, argparse ignores a failed write of its own messages
#: (help, version) and exits 0; before, the write fails in the guard: exit 1.
ARGPARSE_MESSAGE = 0 if sys.version_info >= (3, 11) else 1


@pytest.mark.parametrize(("argv", "code"), [
    pytest.param(("replay", "{file}", "{key}", "--steps"), 1, id="replay --steps"),
    pytest.param(("replay", "{file}", "{key}"), 1, id="replay"),
    pytest.param(("report", "{file}", "--format", "html"), 1, id="report html"),
    pytest.param(("report", "{file}", "--format", "csv"), 1, id="report csv"),
    pytest.param(("--help",), ARGPARSE_MESSAGE, id="--help"),
    pytest.param(("--version",), ARGPARSE_MESSAGE, id="--version"),
    pytest.param(("bench", "--help"), ARGPARSE_MESSAGE, id="bench --help"),
])
def test_a_closed_pipe_ends_quietly(argv: tuple[str, ...], code: int,
                                    results: tuple[Path, str]) -> None:
    file, key = results
    done = _cardref_into_closed_pipe(*(a.format(file=file, key=key) for a in argv))
    assert done.stderr == "", done.stderr
    assert done.returncode == code


def test_replay_into_an_open_pipe_still_succeeds(results: tuple[Path, str]) -> None:
    """The guard changes nothing while the reader reads."""
    file, key = results
    done = subprocess.run([sys.executable, "-m", "cardref.cli", "replay", str(file), key,
                           "--steps"], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.rstrip().endswith("reproduced: the engine gives the stored result")
    assert len(re.findall(r" ms( CPU)?\n", done.stdout)) > 10  # one line per step
