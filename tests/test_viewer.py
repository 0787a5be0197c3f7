"""The replay page's data: patches that rebuild every view, what each seat is
shown, and a page that needs nothing from anywhere."""

from __future__ import annotations

import json
import random
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import cardref
from cardref.viewer import Replay, ReplayError, diff, page_data, patch, replay_page

JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.sampled_from(["a", "b", "10H"]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.sampled_from(["x", "y", "z", "hand"]), inner, max_size=3),
    max_leaves=12)


@settings(max_examples=300)
@given(JSON, JSON)
def test_a_patch_turns_the_old_value_into_the_new(old, new):
    assert patch(old, diff(old, new)) == new
    assert patch(None, diff(None, new)) == new


def _random_game(game: str, players: int, seed: int, **variant) -> Replay:
    state = cardref.load(game, players, **variant).new_state(seed=seed)
    rng = random.Random(seed)
    actions = []
    while not state.is_terminal():
        seat = state.current_player()
        state.apply(rng.choice(state.legal_actions()))
        actions.append((seat, "bot", state.history()[-1], 0.001))
    return Replay(game, players, variant, seed, [f"bot{i}" for i in range(players)], actions,
                  f"{game} test")


def _rebuilt(patches):
    views, current = [], None
    for p in patches:
        current = patch(current, p)
        views.append(current)
    return views


@pytest.mark.parametrize("game,players,variant", [
    ("take5", 3, {"end_score": 12}), ("twenty_two", 3, {"elimination_score": 6})])
def test_every_step_rebuilds_the_engines_views(game, players, variant):
    replay = _random_game(game, players, 11, **variant)
    data = page_data(replay)
    state = cardref.load(game, players, **variant).new_state(seed=11)
    full = _rebuilt(data["full"])
    seats = [_rebuilt(p) for p in data["seats"]]
    assert len(full) == len(data["steps"]) == len(replay.actions) + 1
    for k, step in enumerate(data["steps"]):
        assert full[k] == json.loads(state.to_json())
        for seat in range(players):
            assert seats[seat][k] == state.observation(seat)
        assert step["to_act"] == state.current_player()
        if k < len(replay.actions):
            assert step["action"] == replay.actions[k][2]
            assert step["legal"] == state.legal_actions()[:60]
            state.apply(step["action"])
    assert data["over"] and data["placements"] == list(state.placements())
    # Patches are small: the page holds far less than every view written out.
    whole = sum(len(json.dumps(v)) for v in full)
    assert len(json.dumps(data["full"])) < whole / 4


def test_the_page_is_self_contained_and_bot_text_stays_data():
    replay = _random_game("hundred", 3, 2, chips=1)
    replay.names = ["</script><script>alert(1)</script>", "a&b", "<b>x</b>"]
    page = replay_page(replay)
    assert not re.search(r"""\b(src|href)\s*=|<link|@import|url\(|https?://""", page)
    assert "</script><script>alert" not in page and "<b>x</b>" not in page
    blob = re.search(r'<script id="replay-data" type="application/json">(.*?)</script>', page,
                     re.S).group(1)
    assert json.loads(blob)["names"] == replay.names


def test_actions_that_do_not_replay_are_refused_with_the_step():
    replay = _random_game("take5", 2, 3)
    seat, actor, action, seconds = replay.actions[4]
    replay.actions[4] = (seat, actor, "play 999", seconds)
    with pytest.raises(ReplayError, match="step 4: the engine refuses 'play 999'"):
        page_data(replay)
    replay.actions[4] = (1 - seat, actor, action, seconds)
    with pytest.raises(ReplayError, match=f"step 4: the action is recorded for seat {1 - seat}"):
        page_data(replay)
