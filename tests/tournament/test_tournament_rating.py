"""The batch Plackett–Luce rating against hand-worked cases."""

from __future__ import annotations

import math
import random

import pytest

from cardref.tournament.rating import Choices, fit, game_choices


def _counts(choices: Choices, games: list[tuple[tuple, tuple]]) -> list[int]:
    vector: dict[int, int] = {}
    for units, places in games:
        for field, weight in choices.of_game(units, places):
            vector[field] = vector.get(field, 0) + weight
    return [vector.get(i, 0) for i in range(choices.size)]


def test_a_ranking_is_a_sequence_of_choices():
    # a > b > c: a chosen from {a, b, c}, then b from {b, c}; c alone says nothing.
    sets, chosen = game_choices([(0,), (1,), (2,)], [1, 2, 3], 1)
    assert sets == {((0,), (1,), (2,)): 1, ((1,), (2,)): 1}
    assert chosen == {0: 1, 1: 1}


def test_tied_units_count_every_order_equally():
    # a and b share first place over c: half the orders are a > b > c, half
    # b > a > c. Weighted by 3! = 6: {a,b,c} is chosen from once (6), a and b
    # half each (3 + 3); then {b,c} half the time (3, b chosen) and {a,c} half
    # the time (3, a chosen).
    sets, chosen = game_choices([(0,), (1,), (2,)], [1, 1, 3], 6)
    assert sets == {((0,), (1,), (2,)): 6, ((1,), (2,)): 3, ((0,), (2,)): 3}
    assert chosen == {0: 6, 1: 6}
    # A tie of two, alone: half a win each, as a draw counts in chess.
    sets, chosen = game_choices([(0,), (1,)], [1, 1], 2)
    assert sets == {((0,), (1,)): 2} and chosen == {0: 1, 1: 1}


def test_a_bot_seated_twice_is_two_units_of_one_strength():
    # x, y, x, y placed 1..4: x from {x,x,y,y}, y from {x,y,y}, x from {x,y}.
    sets, chosen = game_choices([(0,), (1,), (0,), (1,)], [1, 2, 3, 4], 1)
    assert sets == {((0,), (0,), (1,), (1,)): 1, ((0,), (1,), (1,)): 1, ((0,), (1,)): 1}
    assert chosen == {0: 2, 1: 1}


def test_teams_are_units_of_their_members():
    # Back Alley: seats 0+2 (bots 2 and 0) beat seats 1+3 (bots 1 and 3).
    sets, chosen = game_choices([(0, 2), (1, 3)], [1, 3], 1)
    assert sets == {((0, 2), (1, 3)): 1} and chosen == {0: 1, 2: 1}


def test_two_bots_fit_the_odds_of_their_record():
    # x won 3 of 4: the likelihood's maximum has P(x before y) = 3/4, i.e.
    # 400 log10(3) = 190.85 points apart, the mean at 0.
    choices = Choices(2, 1)
    games = [(((0,), (1,)), (1, 2))] * 3 + [(((0,), (1,)), (2, 1))]
    x, y = fit(choices, _counts(choices, games), prior_elo=None)
    assert x == pytest.approx(400 * math.log10(3) / 2) and y == pytest.approx(-x)
    # The prior pulls only slightly towards 0, and less with more games.
    x4, _ = fit(choices, _counts(choices, games))
    x400, _ = fit(choices, _counts(choices, games * 100))
    assert 0.97 * x < x4 < x400 < x and x - x400 < 0.001 * x


def test_teams_of_two_fit_the_sum_of_their_strengths():
    # Bots 0..3; team {0,1} beats {2,3} twice and loses once; {0,2} v {1,3}
    # and {0,3} v {1,2} split their two games. Only sums of strengths are
    # seen, and the fit's team differences reproduce each record.
    choices = Choices(4, 1)
    games = ([(((0, 1), (2, 3)), (1, 3))] * 2 + [(((0, 1), (2, 3)), (3, 1))]
             + [(((0, 2), (1, 3)), (1, 3)), (((0, 2), (1, 3)), (3, 1))]
             + [(((0, 3), (1, 2)), (1, 3)), (((0, 3), (1, 2)), (3, 1))])
    r = fit(choices, _counts(choices, games), prior_elo=None)
    # {0,1} v {2,3} won 2 of 3: (r0 + r1) - (r2 + r3) = 400 log10(2); the
    # even splits leave (r0 + r2) = (r1 + r3) and (r0 + r3) = (r1 + r2).
    assert (r[0] + r[1]) - (r[2] + r[3]) == pytest.approx(400 * math.log10(2))
    assert r[0] + r[2] == pytest.approx(r[1] + r[3], abs=1e-6)
    assert r[0] + r[3] == pytest.approx(r[1] + r[2], abs=1e-6)
    assert sum(r) == pytest.approx(0, abs=1e-9)


def test_at_the_maximum_each_bot_is_expected_to_win_what_it_won():
    # The likelihood's gradient: for every bot, sum over choice sets of
    # count x P(bot chosen) equals the times it was chosen (seed printed).
    seed = random.randrange(1 << 30)
    print(f"seed {seed}")
    rng = random.Random(seed)
    choices = Choices(5, 6)
    games = []
    for _ in range(300):
        table = rng.sample(range(5), 3)
        places = [1 + rng.randrange(3) for _ in table]
        places = [1 + sorted(places).index(p) for p in places]  # competition ranks
        games.append((tuple((b,) for b in table), tuple(places)))
    counts = _counts(choices, games)
    r = fit(choices, counts, prior_elo=None)
    theta = [v * math.log(10) / 400 for v in r]
    expected = [0.0] * 5
    for i, units in enumerate(choices.sets):
        weight = counts[5 + i] / 6
        norm = sum(math.exp(theta[u[0]]) for u in units)
        for u in units:
            expected[u[0]] += weight * math.exp(theta[u[0]]) / norm
    assert expected == pytest.approx([c / 6 for c in counts[:5]], rel=1e-7)
