"""Early stopping: the SPRT against hand-worked cases, its error rates by
simulation, and gauntlets that stop at the same deal group however they run."""

from __future__ import annotations

import json
import math
import random

import pytest

from cardref.cli import main
from cardref.tournament import runner
from cardref.tournament.config import ConfigError, load_config
from cardref.tournament.referee import TableSetup, play_game
from cardref.tournament.schedule import build_schedule
from cardref.tournament.sprt import Sprt, Tracker, expected_score, llr, pairwise
from cardref.tournament.store import Store


def _llr_of(scores: list[float], test: Sprt) -> float:
    return llr(len(scores), sum(scores), sum(s * s for s in scores), test)


def test_the_log_likelihood_ratio_by_hand():
    # elo1 chosen so that s1 = 0.6 exactly: 400 log10(0.6 / 0.4).
    test = Sprt(elo0=0, elo1=400 * math.log10(1.5))
    assert expected_score(test.elo0) == 0.5
    assert expected_score(test.elo1) == pytest.approx(0.6)
    # Scores 0.4 and 0.6: mean 0.5 = s0, variance 0.01. Under H0 the
    # variance is 0.01, under H1 0.01 + (0.5 - 0.6)^2 = 0.02, so
    # LLR = 2/2 * ln(0.01 / 0.02) = -ln 2.
    assert _llr_of([0.4, 0.6], test) == pytest.approx(-math.log(2))
    # Scores 0.5 and 0.7: mean 0.6 = s1, variance 0.01: LLR = +ln 2.
    assert _llr_of([0.5, 0.7], test) == pytest.approx(math.log(2))
    # Four scores 0.55, 0.65, 0.55, 0.65: mean 0.6, variance 0.0025; under H0
    # 0.0025 + 0.01 = 0.0125: LLR = 4/2 * ln(0.0125 / 0.0025) = 2 ln 5.
    assert _llr_of([0.55, 0.65, 0.55, 0.65], test) == pytest.approx(2 * math.log(5))
    assert _llr_of([0.9], test) == 0.0  # one group: no variance, no evidence yet
    # The bounds of alpha = beta = 0.05: ln(0.05 / 0.95) and ln(0.95 / 0.05).
    assert Sprt().lower == pytest.approx(-math.log(19))
    assert Sprt().upper == pytest.approx(math.log(19))
    assert Sprt(alpha=0.1, beta=0.2).upper == pytest.approx(math.log(8))


def test_the_candidates_pairwise_score_in_a_game():
    # Seat 0 is the candidate, placed 2: it beat seat 3 (4th), tied seat 2
    # (also 2nd) and lost to seat 1: 1 + 0.5 + 0 of 3.
    assert pairwise(["c", "a", "b", "a"], [2, 1, 2, 4], "c", None) == (1.5, 3)
    # In a team game the partner is no opponent: c (seat 0) with seat 2 beat
    # seats 1 and 3.
    assert pairwise(["c", "a", "b", "a"], [1, 3, 1, 3], "c", [[0, 2], [1, 3]]) == (2.0, 2)
    # The candidate seated twice is never compared with itself.
    assert pairwise(["c", "a", "c"], [1, 2, 3], "c", None) == (1.0, 2)


def test_no_decision_before_twenty_deal_groups():
    test = Sprt(elo0=0, elo1=50)
    assert test.decide(19, 100.0) is None and test.decide(19, -100.0) is None
    assert test.decide(20, test.upper) == "H1" and test.decide(20, test.lower) == "H0"
    assert test.decide(500, 0.0) is None


def test_the_test_advances_over_whole_groups_in_order_only():
    test = Sprt(elo0=0, elo1=400 * math.log10(1.5))
    tracker = Tracker(test, "c", None, {0: 2, 1: 2, 2: 2})
    tracker.add(1, ["c", "a"], [1, 2])
    tracker.add(1, ["a", "c"], [2, 1])  # group 1 complete, group 0 not yet
    assert tracker.groups == 0
    tracker.add(0, ["c", "a"], [2, 1])
    assert tracker.groups == 0  # group 0 still has a game to come
    tracker.add(0, ["a", "c"], [2, 1])  # group 0: 1 of 2; then group 1: 2 of 2
    assert tracker.groups == 2
    # Scores 0.5 and 1.0: mean 0.75, variance 0.0625; LLR = ln(0.125 / 0.085).
    assert tracker.llr == pytest.approx(math.log(0.125 / 0.085))
    assert tracker.decision is None


def test_shuffled_games_decide_at_the_same_group():
    seed = random.randrange(1 << 30)
    print(f"seed {seed}")
    rng = random.Random(seed)
    games = [(g, ["c", "a", "b"] if i % 2 else ["b", "c", "a"],
              rng.sample([1, 2, 3], 3)) for g in range(200) for i in range(4)]
    games = [(g, s, [1, 2, 3] if s[0] == "c" and g % 3 else p) for g, s, p in games]

    def decide(order: list) -> tuple:
        tracker = Tracker(Sprt(elo0=0, elo1=100), "c", None, dict.fromkeys(range(200), 4))
        for group, seating, placements in order:
            tracker.add(group, seating, placements)
        return tracker.decision, tracker.decided_at, tracker.llr

    straight = decide(games)
    assert straight[0] is not None
    shuffled = games[:]
    rng.shuffle(shuffled)
    assert decide(shuffled) == straight


def _run_sprt(test: Sprt, elo: float, rng: random.Random, comparisons: int = 6,
              limit: int = 5000) -> str:
    """One test on synthetic deal groups: each group's score is the mean of
    ``comparisons`` pairwise results (win, draw 20%, loss) whose mean is
    ``expected_score(elo)``."""
    mean = expected_score(elo)
    win = mean - 0.1  # P(win) + P(draw) / 2 = mean, with P(draw) = 0.2
    n = total = squares = 0.0
    for _ in range(limit):
        score = 0.0
        for _ in range(comparisons):
            u = rng.random()
            score += 1.0 if u < win else 0.5 if u < win + 0.2 else 0.0
        score /= comparisons
        n, total, squares = n + 1, total + score, squares + score * score
        decision = test.decide(int(n), llr(int(n), total, squares, test))
        if decision is not None:
            return decision
    return "undecided"


@pytest.mark.parametrize("alpha,beta", [(0.05, 0.05), (0.1, 0.2)])
def test_error_rates_hold_by_simulation(alpha, beta):
    seed = random.randrange(1 << 30)
    print(f"seed {seed}")
    rng = random.Random(seed)
    test = Sprt(elo0=0, elo1=40, alpha=alpha, beta=beta)
    runs = 1000
    # Two equal bots (elo 0, H0 true): H1 accepted at most alpha of the time,
    # within three standard errors of the sampled rate; and the reverse.
    false_h1 = sum(_run_sprt(test, 0, rng) == "H1" for _ in range(runs)) / runs
    false_h0 = sum(_run_sprt(test, 40, rng) == "H0" for _ in range(runs)) / runs
    assert false_h1 <= alpha + 3 * math.sqrt(alpha * (1 - alpha) / runs), false_h1
    assert false_h0 <= beta + 3 * math.sqrt(beta * (1 - beta) / runs), false_h0
    # A bot stronger than elo1 is found stronger at least as often.
    found = sum(_run_sprt(test, 80, rng) == "H1" for _ in range(runs)) / runs
    assert found >= 1 - beta - 3 * math.sqrt(beta * (1 - beta) / runs), found


GAUNTLET = """
game = "take5"
players = 3
seed = 5
deal_groups = 40
output = "g.sqlite"
format = "gauntlet"
candidate = "heuristic"

[variant]
end_score = 20

[stop]
sprt = {{ elo0 = 0, elo1 = {elo1}, alpha = 0.05, beta = 0.05 }}

[[bots]]
name = "heuristic"
builtin = "heuristic"

[[bots]]
name = "random"
builtin = "random"

[[bots]]
name = "random-2"
module = "cardref.bots.random"
isolation = "inprocess"
"""


class _Shuffled:
    """Plays the games in a seeded random order, as a pool of many workers
    might finish them; stops after ``limit`` games (an interrupted run)."""

    def __init__(self, setup: TableSetup, seed: int, limit: int = 10 ** 9) -> None:
        self.setup, self.seed, self.limit = setup, seed, limit

    def play(self, games, disqualified):
        games = list(games)
        random.Random(self.seed).shuffle(games)
        for game in games[:self.limit]:
            yield play_game(self.setup, game, disqualified())


def _results_json(path, capsys) -> dict:
    capsys.readouterr()
    assert main(["report", str(path), "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_a_gauntlet_stops_at_the_same_group_however_it_is_run(make_config, workspace, capsys):
    path = make_config(GAUNTLET.format(elo1=100))
    assert main(["tournament", str(path), "--workers", "1"]) == 0
    shown = " ".join(capsys.readouterr().out.split())
    assert "after 20 deal groups: H1 accepted, the candidate is 100 Elo stronger" in shown
    straight = _results_json(workspace / "g.sqlite", capsys)
    summary = straight["sprt"]
    assert summary["decision"] == "H1" and summary["llr"] >= summary["upper"]
    played = straight["tournament"]["games_played"]
    assert played == 6 * (summary["decided_at"] + 1) < 6 * 40
    # Interrupted, then resumed, with games finishing out of order: the
    # test decides at the same group and the results are the same.
    config = load_config(path, output=workspace / "shuffled.sqlite")
    setup = TableSetup.from_config(config)
    with Store(config.output) as store:
        store.initialise(config, build_schedule(config))
        runner.run(config, store, 1, executor=_Shuffled(setup, seed=1, limit=50))
        assert runner.sprt_tracker(config, store).decision is None
        runner.run(config, store, 1, executor=_Shuffled(setup, seed=2))
        assert runner.run(config, store, 1, executor=_Shuffled(setup, seed=3)) == 0
    shuffled = _results_json(workspace / "shuffled.sqlite", capsys)
    assert shuffled["sprt"] == summary
    for key in ("standings", "head_to_head", "by_seat", "failures"):
        assert shuffled[key] == straight[key]
    assert main(["report", str(workspace / "g.sqlite"), "--format", "md"]) == 0
    md = capsys.readouterr().out
    assert "## Early stopping (SPRT)" in md and "H1 accepted" in md


def test_sprt_keys_are_checked(make_config):
    path = make_config(GAUNTLET.format(elo1=-5))
    with pytest.raises(ConfigError, match=r"stop\.sprt\.elo1 = -5: must be greater than elo0"):
        load_config(path)
    text = GAUNTLET.format(elo1=5).replace("alpha = 0.05", "alpha = 0.7")
    with pytest.raises(ConfigError, match=r"stop\.sprt\.alpha = 0\.7: must be a number between"):
        load_config(make_config(text))
    text = GAUNTLET.format(elo1=5).replace('format = "gauntlet"\ncandidate = "heuristic"\n', "")
    with pytest.raises(ConfigError, match=r'stop\.sprt = a table: only allowed with '
                                          r'format = "gauntlet"'):
        load_config(make_config(text))
    assert load_config(make_config(GAUNTLET.format(elo1=5))).meaning()["stop"] == {
        "sprt": {"elo0": 0.0, "elo1": 5.0, "alpha": 0.05, "beta": 0.05}}
