"""The executors' queue: with untrusted bots, never two games of one deal
group in flight; every game handed out exactly once."""

from __future__ import annotations

import random

from cardref.tournament.executor import GameQueue
from cardref.tournament.schedule import ScheduledGame


def _games(groups: int, per_group: int) -> list[ScheduledGame]:
    return [ScheduledGame(key=f"g{g}-l0-s{s}", order=g * per_group + s, group=g, lineup=0,
                          seating_index=s, seed=g, seating=("a", "b"))
            for g in range(groups) for s in range(per_group)]


def test_one_game_per_deal_group_at_a_time_and_every_game_once():
    games = _games(5, 4)
    queue = GameQueue(games, one_per_group=True)
    rng = random.Random(1)
    running: list[ScheduledGame] = []
    handed: list[ScheduledGame] = []
    while queue or running:
        while len(running) < 3 and (game := queue.take()) is not None:
            assert game.group not in {g.group for g in running}
            running.append(game)
            handed.append(game)
        done = running.pop(rng.randrange(len(running)))
        queue.finished(done)
    assert sorted(g.key for g in handed) == sorted(g.key for g in games)
    # Within a group, seatings go in schedule order.
    for group in range(5):
        mine = [g.seating_index for g in handed if g.group == group]
        assert mine == sorted(mine)


def test_without_the_constraint_games_go_in_schedule_order():
    games = _games(2, 3)
    queue = GameQueue(games, one_per_group=False)
    taken = [queue.take() for _ in games]
    assert taken == games and queue.take() is None and not queue


def test_a_busy_group_blocks_only_itself():
    queue = GameQueue(_games(2, 2), one_per_group=True)
    first, second = queue.take(), queue.take()
    assert (first.group, second.group) == (0, 1)
    assert queue.take() is None  # both groups are busy
    queue.finished(first)
    assert queue.take().key == "g0-l0-s1"
