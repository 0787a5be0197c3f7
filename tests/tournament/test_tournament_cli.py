"""The command line: subcommand wiring and usage errors."""

from __future__ import annotations

import sys
import types

import pytest

import cardref
from cardref.cli import main


def test_bench_delegates_to_cardref_bench_main(monkeypatch):
    seen = []
    fake = types.ModuleType("cardref.bench")
    fake.main = lambda argv: seen.append(argv) or 7
    monkeypatch.setitem(sys.modules, "cardref.bench", fake)
    monkeypatch.setattr(cardref, "bench", fake, raising=False)
    assert main(["bench", "--games", "3", "take5"]) == 7
    assert seen == [["--games", "3", "take5"]]


def test_usage_errors_exit_2(tmp_path, capsys):
    with pytest.raises(SystemExit) as info:
        main(["tournament"])
    assert info.value.code == 2
    config = tmp_path / "c.toml"
    config.write_text("game = 'take5'\n")
    assert main(["tournament", str(config), "--workers", "0"]) == 2
    assert "--workers must be at least 1" in capsys.readouterr().err
    assert main(["tournament", str(config), "--deal-groups", "0"]) == 2
    assert "--deal-groups must be at least 1" in capsys.readouterr().err
