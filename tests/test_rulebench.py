"""``cardref bench --verify`` and ``--analyze`` measure and print their tables."""

from __future__ import annotations

from cardref.cli import main


def test_the_rule_benches_print_games_per_second(capsys) -> None:
    assert main(["bench", "--verify", "take5", "--seconds", "0.3"]) == 0
    out = capsys.readouterr().out
    assert "Lockstep-verified games per second" in out and "take5" in out
    assert main(["bench", "--analyze", "hundred", "--seconds", "0.2", "--threads", "1"]) == 0
    out = capsys.readouterr().out
    assert "Native analysed games per second (1 threads)" in out
    assert "counting adds" in out and "hundred" in out
