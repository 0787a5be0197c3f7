"""``cardref verify`` and ``cardref scenario``, end to end: a rule bug planted
in a test-only copy of the Python reference is found, shrunk and written to a
scenario file that fails until the bug is removed; scenario files that hold,
fail or are undecided are told apart; bad input is refused with exit code 2."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from cardref.cli import main
from planted import planted

ROOT = Path(__file__).resolve().parent
FIXTURES = ROOT / "fixtures" / "scenarios"

#: Take 5 with the fifth card of a row, not the sixth, taking the row.
SIXTH_CARD = ("        if len(self.rows[row]) == ROW_CAPACITY:\n",
              "        if len(self.rows[row]) == ROW_CAPACITY - 1:\n")


def decide(path: Path, values: dict[str, object]) -> None:
    """What a person does with an undecided file: the right values as
    expectations in place of the undecided record, the note removed."""
    text = path.read_text(encoding="utf-8")
    text = re.sub(r"^undecided = .*\n", "", text, flags=re.M)
    text = text.replace("covers = []", 'covers = ["T5-S4"]')
    expect = "\n".join(f"{k} = {json.dumps(v)}" for k, v in values.items())
    text = re.sub(r"\[step\.undecided\]\n(.*\n?)*", f"[step.expect]\n{expect}\n", text)
    path.write_text(text, encoding="utf-8")


def test_a_planted_bug_is_found_shrunk_and_pinned(tmp_path: Path, capsys) -> None:
    found = tmp_path / "found.toml"
    with planted("take5", *SIXTH_CARD, tmp_path):
        code = main(["verify", "take5", "--players", "2", "--games", "20", "--quiet",
                     "--shrink-replays", "60", "-o", str(found)])
        assert code == 1
        out = capsys.readouterr().out
        assert "FAILURE in game 0" in out and "Scenario written to" in out
        assert main(["scenario", "check", str(found)]) == 1
        assert "UNDECIDED" in capsys.readouterr().out
    text = found.read_text(encoding="utf-8")
    record = text[text.index("[step.undecided]"):]
    assert 'field = "' in record and "rust" in record and "reference" in record
    # Shrunk (or as short as found), and the file holds exactly the actions up to it.
    shrunk = re.search(r"shrunk from (\d+) to (\d+) actions", text)
    do = re.search(r"^do = (\[.*\])$", text, re.M)
    assert shrunk is not None and do is not None
    assert int(shrunk.group(2)) <= int(shrunk.group(1))
    assert len(json.loads(do.group(1))) == int(shrunk.group(2))
    # The person decides from the rule book: the sixth card takes, not the
    # fifth, so the Rust core's value is the right one here.
    rust = re.search(r"^rust = (.*)$", record, re.M)
    field = re.search(r'^field = "(\w+)"', record, re.M)
    assert rust is not None and field is not None
    names = {"legal_actions": "legal", "current_player": "current_player",
             "scores": "scores", "is_terminal": "terminal", "placements": "placements"}
    if field.group(1) in names:
        decide(found, {names[field.group(1)]: json.loads(rust.group(1))})
    else:  # an observation or the state: pin it by the rows the seats see
        decide(found, {})
        with_rows = found.read_text(encoding="utf-8") + _rows_of(text)
        found.write_text(with_rows, encoding="utf-8")
    with planted("take5", *SIXTH_CARD, tmp_path):
        assert main(["scenario", "check", str(found)]) == 1, "the bug is still there"
        assert "FAIL" in capsys.readouterr().out
    assert main(["scenario", "check", str(found)]) == 0, "the bug is gone"


def _rows_of(text: str) -> str:
    """An observation of the rows after the file's actions, from the real reference."""
    import cardref
    game = re.search(r"^seed = (\d+)$", text, re.M)
    do = re.search(r"^do = (\[.*\])$", text, re.M)
    assert game is not None and do is not None
    state = cardref.load("take5", 2, engine="reference").new_state(seed=int(game.group(1)))
    for action in json.loads(do.group(1)):
        state.apply(action)
    rows = json.dumps(state.observation(0)["rows"])
    return f"[[step.observe]]\nseat = 0\nrows = {rows}\n"


def test_scenario_check_tells_holding_failing_and_undecided_files_apart(capsys) -> None:
    assert main(["scenario", "check", str(FIXTURES / "holds.toml")]) == 0
    assert main(["scenario", "check", str(FIXTURES / "fails.toml")]) == 1
    out = capsys.readouterr().out
    # Each failure names the file, the engine, the step, the field, expected and got.
    assert "fails.toml [rust] step 0: observation(1).round_heads: expected [0, 13], got [13, 0]" \
        in out
    assert "fails.toml [reference] step 0: fired: expected" in out
    assert main(["scenario", "check", str(FIXTURES / "undecided.toml")]) == 1
    out = capsys.readouterr().out
    assert "UNDECIDED" in out and "rust [0, 0], reference [0, 1]" in out
    assert main(["scenario", "check", str(FIXTURES)]) == 1
    assert "3 files: 1 hold, 1 fail, 1 undecided" in capsys.readouterr().out


def test_scenario_new_writes_an_undecided_starting_point(tmp_path: Path, capsys) -> None:
    path = tmp_path / "new.toml"
    actions = ["play 10", "play 20", "play 30", "play 40", "play 45", "play 71"]
    hands = [["10", "30", "45", "99", "98", "97", "96", "95", "94", "93"],
             ["20", "40", "71", "92", "91", "90", "89", "88", "87", "86"]]
    deck = [c for pair in zip(*hands) for c in pair] + ["3", "50", "60", "70"]
    deck += [str(c) for c in range(1, 105) if str(c) not in deck]
    args = ["scenario", "new", "take5", "--players", "2", "--deck", " ".join(deck), "--each",
            "-o", str(path)]
    for action in actions:
        args += ["--do", action]
    assert main(args) == 0
    text = path.read_text(encoding="utf-8")
    assert text.count("[[step]]") == len(actions) + 1
    # The last step: a commit, the reveal, 45 as the sixth card, 71 appended, the next turn.
    assert 'fired = ["T5-P2", "T5-P3", "T5-P4", "T5-P8", "T5-P9"]' in text
    assert main(["scenario", "check", str(path)]) == 1, "undecided until worked out"
    path.write_text(re.sub(r"^undecided = .*\n", "", text, flags=re.M), encoding="utf-8")
    assert main(["scenario", "check", str(path)]) == 0, "the engines' own values hold"
    assert main(args) == 2, "an existing file is not overwritten"
    assert "exists" in capsys.readouterr().err


def test_a_clean_run_reports_games_and_rule_coverage(tmp_path: Path) -> None:
    summary = tmp_path / "summary.json"
    assert main(["verify", "take5", "--players", "3", "--variant", "round_limit=1",
                 "--games", "4", "--quiet", "--json", str(summary)]) == 0
    data = json.loads(summary.read_text(encoding="utf-8"))
    assert data["games"] == 4 and data["players"] == 3
    points = {p["id"]: p for p in data["rule_points"]}
    # One round of three seats per game: 30 commits, one round end, one end by the limit.
    assert points["T5-P2"]["fired"] == 4 * 30
    assert points["T5-P10"]["fired"] == points["T5-P1"]["fired"] == 4
    assert "T5-P15" in data["never_fired"]  # no second round is ever dealt


@pytest.mark.parametrize(("argv", "message"), [
    (["verify", "take6"], "unknown game 'take6'"),
    (["verify", "take5", "--players", "11"], "players"),
    (["verify", "take5", "--variant", "end_scor=40"], "end_scor"),
    (["verify", "take5", "--variant", "end_score=0"], "end_score"),
    (["verify", "take5", "--variant", "end_score"], "KEY=VALUE"),
    (["verify", "back_alley", "--players", "3"], "players"),
    (["verify", "take5", "--bots", "random,smart"], "smart"),
    (["verify", "take5", "--games", "0"], "--games"),
    (["scenario", "check", "no/such/file.toml"], "no such file"),
    (["scenario", "new", "take5", "--do", "play 999", "-o", "x.toml"], "play 999"),
])
def test_bad_input_is_refused_with_a_clear_message(argv: list[str], message: str,
                                                   capsys, tmp_path: Path,
                                                   monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.startswith(f"cardref {argv[0]}: error:")


@pytest.mark.parametrize("argv", [("verify",), ("scenario",), ("scenario", "check"),
                                  ("scenario", "new"), ("analyze",)], ids=" ".join)
def test_help_is_plain_text_and_names_every_argument(argv: tuple[str, ...], capsys) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main([*argv, "--help"])
    assert exit_info.value.code == 0
    text = capsys.readouterr().out
    assert "usage: cardref" in text and "``" not in text
    for positional in ("game", "paths"):
        if f" {positional}" in text.split("\n")[0]:
            assert f"  {positional} " in text, f"{positional} has no help"
