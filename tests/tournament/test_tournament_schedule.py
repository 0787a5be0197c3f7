"""The schedule is fair: every bot sits in every seat equally often, every
table of a deal group plays the same deal, partners rotate in team games, and
seeds depend only on the master seed and the deal group."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from itertools import combinations

import pytest

from cardref.rng import SplitMix64
from cardref.tournament.config import TEAM_GAMES, load_config
from cardref.tournament.schedule import build_schedule, deal_seed, lineups, seatings

FIELD = """
game = "take5"
players = {players}
seed = 99
deal_groups = 3
output = "out.sqlite"
{extra}
""" + "".join(f'[[bots]]\nname = "{n}"\nbuiltin = "random"\n' for n in "abcde")


def _schedule(make_config, players: int, extra: str = ""):
    config = load_config(make_config(FIELD.format(players=players, extra=extra)))
    return config, build_schedule(config)


def test_deal_seeds_are_the_splitmix64_stream_of_the_master_seed():
    rng = SplitMix64(12345)
    assert [deal_seed(12345, g) for g in range(5)] == [rng.next_u64() for _ in range(5)]
    top = SplitMix64(2**64 - 1)
    assert deal_seed(2**64 - 1, 3) == [top.next_u64() for _ in range(4)][3]


def test_round_robin_every_bot_every_seat_and_the_same_deal_per_group(make_config):
    config, games = _schedule(make_config, players=3)
    names = config.bot_names()
    # Every combination of 3 of the 5 bots, each in all 6 seatings, per group.
    assert len(games) == 3 * len(list(combinations(names, 3))) * 6
    assert len({g.key for g in games}) == len(games)
    for group in range(3):
        in_group = [g for g in games if g.group == group]
        assert {g.seed for g in in_group} == {deal_seed(99, group)}
        seats = Counter((name, seat) for g in in_group for seat, name in enumerate(g.seating))
        # C(4, 2) = 6 lineups contain a given bot; it takes each seat 2 times in each.
        assert seats == Counter({(n, s): 12 for n in names for s in range(3)})
    assert len({deal_seed(99, g) for g in range(3)}) == 3


def test_large_tables_use_cyclic_rotations(make_config):
    _, games = _schedule(make_config, players=5)
    assert len(games) == 3 * 5  # one lineup of all five bots, 5 rotations
    first = [g.seating for g in games if g.group == 0]
    assert first == [tuple("abcde"[i:] + "abcde"[:i]) for i in range(5)]


def test_gauntlet_pits_the_candidate_against_every_combination(make_config):
    _, games = _schedule(make_config, players=3, extra='format = "gauntlet"\n'
                              'candidate = "c"')
    assert all("c" in g.seating for g in games)
    tables = {frozenset(g.seating) for g in games}
    assert tables == {frozenset({"c", *pair}) for pair in combinations("abde", 2)}
    seats = Counter(g.seating.index("c") for g in games)
    assert set(seats.values()) == {len(games) // 3}


def test_a_field_smaller_than_the_table_repeats_bots_evenly(make_config):
    config, _ = _schedule(make_config, players=4)
    two = replace(config, bots=config.bots[:2])
    games = build_schedule(two)
    seats = Counter((name, seat) for g in games for seat, name in enumerate(g.seating))
    assert seats == Counter({(n, s): 3 for n in "ab" for s in range(4)})
    three = lineups(["a", "b", "c"], 4)
    assert Counter(name for table in three for name in table) == Counter("aaaabbbbcccc")


@pytest.mark.parametrize(("rotation", "per_partnership"), [("auto", 8), ("cyclic", 4)])
def test_team_games_rotate_partners_and_seats(rotation, per_partnership):
    teams = TEAM_GAMES["back_alley"]
    layout = seatings(("a", "b", "c", "d"), rotation, teams=teams)
    partnerships = Counter(frozenset(frozenset(s[i] for i in team) for team in teams)
                           for s in layout)
    # Each bot partners each other bot: 3 partnerships, equally often.
    assert len(partnerships) == 3 and set(partnerships.values()) == {per_partnership}
    partners = Counter(frozenset((s[0], s[2])) for s in layout) + Counter(
        frozenset((s[1], s[3])) for s in layout)
    assert set(partners) == {frozenset(p) for p in combinations("abcd", 2)}
    seats = Counter((name, seat) for s in layout for seat, name in enumerate(s))
    assert set(seats.values()) == {3 * per_partnership // 4}  # every bot in every seat
    # By default each bot is followed by each opponent equally often; with
    # rotations alone the same opponent always plays right after a given bot.
    after = Counter((s[i], s[(i + 1) % 4]) for s in layout for i in range(4))
    assert (len(set(after.values())) == 1) == (rotation == "auto")


def test_the_schedule_does_not_depend_on_anything_but_the_config(make_config):
    config, games = _schedule(make_config, players=3)
    assert build_schedule(config) == games
    other = replace(config, seed=100)
    assert [g.seed for g in build_schedule(other)] != [g.seed for g in games]
