"""Rules that random play seldom reaches are pinned by hand-written scenario
files, and those files are worth something only if a wrong program fails
them. Each case plants the misreading in a test-only copy of the Python
reference (``planted``) and checks that its files fail on it, and hold on the
real reference."""

from __future__ import annotations

from pathlib import Path

import pytest

from cardref.verify import scenarios
from planted import planted
from scenario_runner import SCENARIO_ROOT

#: (game, the rule as written, the misreading, the files that pin it)
CASES = [
    pytest.param("twenty_two",
                 "self.deal_size = min(self.target_size, len(deck) // len(seats))",
                 "self.deal_size = min(self.target_size, len(deck) // self.players)",
                 ["s20_deal_after_an_elimination.toml"],
                 id="TT-2 the pool divided by every seat, the eliminated included"),
    pytest.param("five_alive",
                 "ranking = self._team_groups(0 if a > b else 1)",
                 "ranking = self._team_groups(1 if a > b else 0)",
                 ["s23b_team_cap_more_lives_wins.toml"],
                 id="FA-26 team ranking at the action cap reversed"),
    pytest.param("five_alive",
                 "dealer = self.next_active(dealer, self.dir)",
                 "dealer = self.next_active(dealer, 1)",
                 ["s13b_bomb_responders_out_counter_clockwise.toml"],
                 id="FA-12 the new dealer after a Bomb found clockwise"),
    pytest.param("five_alive",
                 "        dealer = actor\n",
                 "        dealer = gone_out[0]\n",
                 ["s13b_bomb_responders_out_counter_clockwise.toml"],
                 id="FA-12 the new dealer after a Bomb is the lowest seat out of cards"),
    pytest.param("take5",
                 "reached = any(score > limit for score in self.scores_so_far)",
                 "reached = any(score >= limit for score in self.scores_so_far)",
                 ["s11b_more_than_continues.toml", "s11f_more_than_exactly_twice.toml"],
                 id="T5-1 more_than ending at exactly end_score"),
    pytest.param("back_alley",
                 'if self.all_pass_count < self.params["max_consecutive_all_pass"]:',
                 'if self.all_pass_count <= self.params["max_consecutive_all_pass"]:',
                 ["s07_redeal_cap_abandons.toml", "s07b_redeal_cap_from_the_start.toml",
                  "s07c_abandoned_last_hand_draws.toml"],
                 id="BA-20 the all-pass cap one auction late"),
]


def failures(game_id: str, name: str) -> list:
    doc = scenarios.load(SCENARIO_ROOT / game_id / name)
    return scenarios.run(doc, "reference")


@pytest.mark.parametrize(("game_id", "rule", "misread", "files"), CASES)
def test_the_pinning_files_fail_on_the_misreading(game_id: str, rule: str, misread: str,
                                                  files: list[str], tmp_path: Path) -> None:
    for name in files:
        assert failures(game_id, name) == [], f"{name} fails on the real reference"
    with planted(game_id, rule, misread, tmp_path):
        for name in files:
            assert failures(game_id, name), f"{name} does not notice: {misread}"
