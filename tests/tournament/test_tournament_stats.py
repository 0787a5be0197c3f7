"""The statistics against hand-computed cases."""

from __future__ import annotations

import math

import pytest

from cardref.tournament.bootstrap import GroupCounts, interval, percentile
from cardref.tournament.stats import LiveTally, compute, win_shares


def _game(key, group, seating, placements, scores):
    return {"key": key, "group": group, "seating": seating, "placements": placements,
            "scores": scores, "statuses": ["ok"] * len(seating)}


GAMES = [
    _game("a", 0, ["x", "y"], [1, 2], [10, 20]),
    _game("b", 0, ["y", "x"], [1, 2], [5, 30]),
    _game("c", 1, ["x", "y"], [1, 1], [7, 7]),
    _game("d", 1, ["y", "x"], [2, 1], [9, 3]),
]


def test_point_estimates_head_to_head_and_seats_by_hand():
    results = compute(GAMES, ["x", "y"], None, resamples=400, seed=3)
    x, y = results["standings"]
    assert (x["rank"], x["name"], y["name"]) == (1, "x", "y")
    assert x["games"] == y["games"] == 4
    assert x["mean_placement"]["value"] == pytest.approx(5 / 4)  # 1, 2, 1, 1
    assert y["mean_placement"]["value"] == pytest.approx(6 / 4)  # 2, 1, 1, 2
    assert x["win_share"]["value"] == pytest.approx(2.5 / 4)  # 1, 0, 1/2, 1
    assert y["win_share"]["value"] == pytest.approx(1.5 / 4)  # 0, 1, 1/2, 0
    assert x["mean_score"]["value"] == pytest.approx((10 + 30 + 7 + 3) / 4)
    assert y["mean_score"]["value"] == pytest.approx((20 + 5 + 7 + 9) / 4)
    assert results["head_to_head"]["x"]["y"] == {"score": pytest.approx(2.5 / 4), "n": 4}
    assert results["head_to_head"]["y"]["x"]["score"] == pytest.approx(1.5 / 4)
    assert results["by_seat"]["x"] == [
        {"seat": 0, "n": 2, "mean_placement": 1.0},
        {"seat": 1, "n": 2, "mean_placement": 1.5},
    ]
    assert results["failures"] == {"x": {}, "y": {}}


def test_bootstrap_intervals_resample_deal_groups():
    # Group 0 gives x a mean placement of 1.5, group 1 of 1.0; resamples of two
    # groups can only average to 1.0, 1.25 or 1.5, each extreme with chance 1/4.
    x = compute(GAMES, ["x", "y"], None, resamples=1000, seed=1)["standings"][0]
    assert x["mean_placement"]["low"] == pytest.approx(1.0)
    assert x["mean_placement"]["high"] == pytest.approx(1.5)
    assert x["win_share"]["low"] == pytest.approx(0.5)  # group 0: 1/2, group 1: 3/4
    assert x["win_share"]["high"] == pytest.approx(0.75)
    assert x["rating"]["low"] <= x["rating"]["value"] <= x["rating"]["high"]
    # A single deal group has nothing to resample: the interval is the point.
    one = compute(GAMES[:2], ["x", "y"], None, resamples=200)["standings"][0]
    assert one["mean_placement"]["low"] == one["mean_placement"]["high"] == 1.5
    # The same seed gives the same intervals.
    assert compute(GAMES, ["x", "y"], None, resamples=1000, seed=1)["standings"][0] == x


def test_the_rating_is_one_fit_to_all_games_whatever_their_order():
    # x placed ahead of y in games a and d, tied in c, behind in b: x won 2.5
    # of 4 choices, so with the prior's slight pull the fit is just under
    # 400 log10(2.5 / 1.5) apart, the field's mean at 0.
    standings = compute(GAMES, ["x", "y"], None, resamples=100)["standings"]
    x, y = (s["rating"]["value"] for s in standings)
    assert x == pytest.approx(-y)
    assert 0.95 * 400 * math.log10(5 / 3) < x - y < 400 * math.log10(5 / 3)
    again = compute(GAMES[::-1], ["x", "y"], None, resamples=100)["standings"]
    assert [s["rating"] for s in again] == [s["rating"] for s in standings]


def test_a_bot_seated_twice_counts_every_seat():
    game = _game("a", 0, ["x", "y", "x", "y"], [1, 2, 3, 4], [0, 0, 0, 0])
    stats = compute([game], ["x", "y"], None, resamples=100)["standings"]
    assert [s["mean_placement"]["value"] for s in stats] == [2.0, 3.0]
    assert stats[0]["games"] == 1 and stats[0]["seats"] == 2


def test_teams_share_wins_and_do_not_meet_their_partners():
    teams = [[0, 2], [1, 3]]
    assert win_shares([1, 3, 1, 3], teams) == [1.0, 0.0, 1.0, 0.0]
    assert win_shares([1, 1, 1, 1], teams) == [0.5] * 4
    assert win_shares([1, 1, 3, 4], None) == [0.5, 0.5, 0.0, 0.0]
    game = _game("a", 0, ["p", "q", "r", "s"], [1, 3, 1, 3], [10, 3, 10, 3])
    h2h = compute([game], list("pqrs"), teams, resamples=100)["head_to_head"]
    assert "r" not in h2h["p"] and h2h["p"]["q"] == {"score": 1.0, "n": 1}


def test_failures_are_counted_per_bot_and_status():
    game = _game("a", 0, ["x", "y"], [2, 1], [0, 0])
    game["statuses"] = ["timeout", "ok"]
    results = compute([game, {**game, "key": "b"}], ["x", "y"], None, resamples=100)
    assert results["failures"] == {"x": {"timeout": 2}, "y": {}}
    assert results["standings"][1]["failures"] == 2


def test_intervals_interpolate_the_percentiles():
    values = [float(v) for v in range(41)]  # 2.5th percentile at 1, 97.5th at 39
    assert interval(values, 20.0) == {"value": 20.0, "low": 1.0, "high": 39.0}
    assert interval([2.0, 1.0], 1.5) == {"value": 1.5, "low": 1.025, "high": 1.975}
    assert interval([5.0], 4.0) == {"value": 4.0, "low": 5.0, "high": 5.0}
    assert interval([], 4.0) == {"value": 4.0, "low": 4.0, "high": 4.0}
    # Equal neighbours give their value exactly, so a point equal to every
    # resample is inside its interval (a weighted mean can miss by a bit).
    third = 7 / 3
    assert interval([third] * 1000, third) == {"value": third, "low": third, "high": third}
    assert percentile([1.0, 2.0, 3.0, 4.0], 0.5) == 2.5


def test_group_counts_sum_exactly_over_resamples():
    counts = GroupCounts([[1, 0, 7], [2, 5, (1 << 40)]], 3)
    assert counts.total() == [3, 5, 7 + (1 << 40)]
    draws = list(counts.resamples(200, "seed"))
    # Each resample draws two groups: 0+0, 0+1 or 1+1 (first field 2, 3 or 4).
    assert {d[0] for d in draws} == {2, 3, 4}
    assert all(d[1] == 5 * (d[0] - 2) for d in draws)
    assert draws == list(counts.resamples(200, "seed"))
    signed = GroupCounts([[-3, 1], [2, 1]], 2)  # a score may be negative
    assert signed.total() == [-1, 2]
    assert {tuple(d) for d in signed.resamples(100, "s")} == {(-6, 2), (-1, 2), (4, 2)}
    with pytest.raises(ValueError):
        GroupCounts([[1 << 63], [0]], 1)


def test_the_live_standings_share_a_first_place_as_the_final_standings_do():
    tally = LiveTally(None)
    for game in GAMES:
        tally.add(game["seating"], game["placements"], game["statuses"])
    live = {name: (seats, place, wins) for name, seats, place, wins, _ in tally.rows()}
    final = {s["name"]: s for s in compute(GAMES, ["x", "y"], None, resamples=100)["standings"]}
    for name, (seats, place, wins) in live.items():
        assert place == pytest.approx(final[name]["mean_placement"]["value"])
        assert wins == pytest.approx(final[name]["win_share"]["value"] * seats)
    assert live["x"][2] == pytest.approx(2.5)  # game c's shared first place counts 1/2
    teams = LiveTally([[0, 2], [1, 3]])
    teams.add(["p", "q", "r", "s"], [1, 1, 1, 1], ["ok", "ok", "ok", "timeout"])
    assert {name: wins for name, _, _, wins, _ in teams.rows()} == {n: 0.5 for n in "pqrs"}
    assert {name: fails for name, *_, fails in teams.rows()} == {"p": 0, "q": 0, "r": 0, "s": 1}


def test_separation_is_decided_resample_by_resample():
    from cardref.tournament.stats import separated

    # Both means wander together (they share deals): the intervals overlap
    # widely, yet the worse bot is behind in every resample.
    better = [1.0 + 0.01 * i for i in range(100)]
    worse = [b + 0.05 for b in better]
    assert max(better) > min(worse)  # overlapping intervals...
    assert separated(better, worse)  # ...but a clear difference
    assert not separated(better, list(better))  # equal: never separated
    shuffled = worse[50:] + worse[:50]  # the same values, unpaired: the difference
    assert not separated(better, shuffled)  # changes sign, so no longer separated
    assert separated([1.0, None, 1.0], [2.0, 1.0, None]) is True  # one usable pair
    assert separated([None], [2.0]) is False


def test_ties_are_marked_in_the_standings():
    # x and y play identically in every group (the same placements by
    # symmetry), z always last: x and y are tied, z is separated.
    games = []
    for g in range(6):
        games.append(_game(f"a{g}", g, ["x", "y", "z"], [1, 2, 3], [0, 0, 0]))
        games.append(_game(f"b{g}", g, ["y", "x", "z"], [1, 2, 3], [0, 0, 0]))
    standings = compute(games, ["x", "y", "z"], None, resamples=200)["standings"]
    assert {s["name"] for s in standings[:2]} == {"x", "y"}
    assert [(s["rank"], s["rank_group"], s["tied"]) for s in standings] == [
        (1, 1, True), (2, 1, True), (3, 3, False)]
    assert standings[2]["name"] == "z"


def test_few_deal_groups_are_warned_about():
    from cardref.tournament.stats import MIN_DEAL_GROUPS, warnings

    assert warnings(GAMES) and "Only 2 deal groups" in warnings(GAMES)[0]
    many = [_game(f"k{g}", g, ["x", "y"], [1, 2], [0, 0]) for g in range(MIN_DEAL_GROUPS)]
    assert warnings(many) == []
    assert "Only 1 deal group played" in warnings(many[:1])[0]
