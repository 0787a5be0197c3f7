"""``cardref analyze`` and its statistics against cases worked out by hand or
known in closed form: interval formulas on small numbers, a one-round game's
exact counts, identical games compared to themselves, no skill between equal
bots, zero seat advantage by symmetry, and the figures of a run equal to
those recomputed from its game records."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

import cardref
from cardref.analysis import run as runs
from cardref.analysis import stats, summary
from cardref.cli import main


def test_wilson_interval_of_half_of_a_hundred() -> None:
    # p = 0.5, n = 100, z = 1.96: the centre stays 0.5; the half-width is
    # z * sqrt(0.25/100 + z^2/40000) / (1 + z^2/100) = 0.09617.
    iv = stats.share(50, 100)
    assert iv["value"] == 0.5
    assert iv["low"] == pytest.approx(0.40383, abs=1e-4)
    assert iv["high"] == pytest.approx(0.59617, abs=1e-4)
    # None of 20: the interval starts at 0 and is not empty.
    none = stats.share(0, 20)
    assert none["low"] == 0.0 and none["high"] == pytest.approx(0.16113, abs=1e-4)


def test_mean_interval_from_sums() -> None:
    # 1..5: mean 3, sample variance 2.5, half-width 1.96 * sqrt(2.5 / 5) = 1.3859.
    iv = stats.mean(15, 55, 5)
    assert iv["value"] == 3
    assert iv["high"] - iv["value"] == pytest.approx(1.959964 * math.sqrt(0.5), rel=1e-6)


def test_eta_squared_is_all_or_nothing_in_the_extreme_cases() -> None:
    # Two groups that differ and vary not at all inside: the group explains everything.
    assert stats.eta_squared([(3, 3.0, 3.0), (3, 9.0, 27.0)]) == 1.0
    # Two groups alike (1 and 3 each): nothing.
    assert stats.eta_squared([(2, 4.0, 10.0), (2, 4.0, 10.0)]) == 0.0
    # Groups {1, 2} and {3, 4}: between 4 of a total 5.
    assert stats.eta_squared([(2, 3.0, 5.0), (2, 7.0, 25.0)]) == pytest.approx(0.8)


def test_percentiles_and_bins_of_a_histogram() -> None:
    counts = {1: 1, 2: 1, 3: 1, 4: 1}
    assert [stats.percentile(counts, q) for q in (25, 50, 75, 100)] == [1, 2, 3, 4]
    assert stats.bins(counts, most=2) == [(1, 2, 2), (3, 4, 2)]
    d = stats.histogram_stats({10: 3})
    assert (d["mean"], d["sd"], d["min"], d["max"]) == (10, 0, 10, 10)


def test_differences_combine_half_widths() -> None:
    a = stats.interval(1.0, 0.0, 2.0)
    b = stats.interval(4.0, 1.0, 7.0)
    d = stats.difference(a, b)
    assert d["value"] == 3.0
    assert d["high"] - d["value"] == pytest.approx(math.hypot(1.0, 3.0))


def one_round(players: int, games: int, **variant: object) -> runs.Totals:
    return runs.analyse("take5", players, {"round_limit": 1, **variant},
                        ["random"] * players, games, seed=5, threads=2, rule_points=True)


def test_one_round_games_count_exactly_what_one_round_holds() -> None:
    totals = one_round(3, 300)
    result = summary.summarize("take5", {"round_limit": 1}, totals)
    assert dict(totals.rounds) == {1: 300}
    # 10 commits per seat, at most one row choice per turn.
    assert all(30 <= n <= 40 for n in totals.lengths), sorted(totals.lengths)
    points = {p["id"]: p for p in result["rule_points"]}
    assert points["T5-P2"]["per_game"] == 30  # every seat commits ten times
    assert points["T5-P3"]["per_game"] == 10  # ten reveals
    assert points["T5-P4"]["per_game"] == 9   # nine turns follow the first
    assert points["T5-P10"]["per_game"] == 1 and points["T5-P15"]["fired"] == 0
    # Every game ends by the limit or by the end score, and by exactly one rule.
    assert points["T5-P11"]["fired"] + points["T5-P14"]["fired"] == 300


def test_a_variant_that_changes_nothing_differs_by_nothing() -> None:
    # With one round, an end score of 66 or of 200 ends every game at the same
    # place: the same seeds give the same games, so every difference is 0.
    base = summary.summarize("take5", {}, one_round(4, 400))
    other = summary.summarize("take5", {}, one_round(4, 400, end_score=200))
    d = summary.differences(base, other)
    assert all(s["win_share"]["value"] == 0 and s["mean_score"]["value"] == 0
               for s in d["seats"])
    assert d["length"]["value"] == 0 and d["rounds"]["value"] == 0


def test_equal_bots_explain_no_variance() -> None:
    # A pool of one bot: a single group, so the bot explains exactly nothing.
    alone = runs.analyse("take5", 4, {}, ["random"], 200, seed=1, threads=2, mixed=True)
    assert summary.skill_figures(alone)["eta_squared"] == 0.0
    # The heuristic against random: placements owe a good part to the bot.
    mixed = runs.analyse("take5", 4, {}, ["heuristic", "random"], 2000, seed=1, threads=2,
                         mixed=True)
    skill = summary.skill_figures(mixed)
    assert skill["eta_squared_interval"]["low"] > 0.2
    heuristic, random_bot = skill["bots"]
    assert heuristic["mean_placement"]["high"] < random_bot["mean_placement"]["low"]


def test_seat_advantage_is_zero_by_symmetry() -> None:
    # Take 5 with the same random bot in every seat: the seats commit blind and
    # the deal treats them alike, so a rotation of the seats maps games onto
    # equally likely games: every seat's true win share is the same. Each
    # seat's estimate stays within four standard errors of the seats' average.
    totals = runs.analyse("take5", 4, {}, ["random"] * 4, 20_000, seed=11, threads=2)
    seats = summary.seat_figures(totals)
    average = sum(s["win_share"]["value"] for s in seats) / 4
    se = math.sqrt(average * (1 - average) / 20_000)
    assert all(abs(s["advantage"]) < 4 * se for s in seats), [s["advantage"] for s in seats]
    assert abs(sum(s["advantage"] for s in seats)) < 1e-12


def test_the_figures_are_those_of_the_games_played() -> None:
    # analyse and simulate deal and play game i alike: the per-seat figures
    # equal those recomputed from simulate's game records.
    game = cardref.load("take5", 3)
    records = game.simulate(["heuristic", "random", "random"], 50, 9, 2, True)["records"]
    totals = runs.analyse("take5", 3, {}, ["heuristic", "random", "random"], 50, seed=9,
                          threads=2)
    seats = summary.seat_figures(totals)
    for seat in range(3):
        wins = sum(r["placements"][seat] == 1 for r in records)
        scores = [r["scores"][seat] for r in records]
        assert seats[seat]["win_share"]["value"] == wins / 50
        assert seats[seat]["mean_score"]["value"] == pytest.approx(sum(scores) / 50)
    lengths = sorted(len(r["actions"]) for r in records)
    assert sorted(totals.lengths.elements()) == lengths


def test_the_command_writes_json_with_seats_and_a_page(tmp_path: Path, capsys) -> None:
    out, page = tmp_path / "a.json", tmp_path / "a.html"
    assert main(["analyze", "take5", "--games", "400", "--skill-games", "400", "--compare",
                 "too_low_choice=auto_fewest_heads", "--json", str(out), "--html", str(page),
                 "--quiet"]) == 0
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["games"] == 400 and len(data["seats"]) == 4
    for seat in data["seats"]:
        for key in ("win_share", "mean_score"):
            iv = seat[key]
            assert set(iv) == {"value", "low", "high"} and iv["low"] <= iv["value"] <= iv["high"]
    assert data["compare"]["variant"] == {"too_low_choice": "auto_fewest_heads"}
    assert {p["id"] for p in data["rule_points"]} == set(
        cardref.registry.module("take5").RULE_POINTS)
    text = page.read_text(encoding="utf-8")
    assert text.count("<svg") >= 8 and "How much skill matters" in text
    assert "Seats (95% intervals)" in capsys.readouterr().out


@pytest.mark.parametrize(("argv", "message"), [
    (["analyze", "take6"], "unknown game"),
    (["analyze", "hundred", "--players", "2"], "players"),
    (["analyze", "take5", "--variant", "deck=small"], "deck"),
    (["analyze", "take5", "--compare", "end_score=66"], "base game itself"),
    (["analyze", "take5", "--games", "0"], "--games"),
    (["analyze", "take5", "--bots", "heuristic,nobody"], "nobody"),
])
def test_bad_input_is_refused_with_a_clear_message(argv: list[str], message: str,
                                                   capsys) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.startswith("cardref analyze: error:")
