"""Determinization and the search bot for 100 (docs/games/hundred.md,
"Determinization and search").

Hidden from a seat: the other hands and the stock (contents and order). Two
rules show more than the pile: a rebuilt stock holds exactly the cards that
were under the pile's top, and a forced bust (HU-6) shows that the buster's
other cards bust too. Every resample must keep both.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest

import cardref
from cardref.bots import builtin_module
from cardref.bots.heuristic.hundred import value_after

VARIANTS: list[tuple[int, dict[str, Any]]] = [
    (2, {"allow_two_players": True}),
    (3, {}),
    (5, {}),
    (4, {"bust_rule": "redeal"}),
    (4, {"bust_rule": "void", "red_ace": "choose"}),
    (4, {"allow_voluntary_bust": True, "hand_size": 4}),
    (7, {}),  # two decks
]


def _busts(card: str, value: int, params: dict[str, Any]) -> bool:
    """Whether ``card`` busts at ``value`` (docs/rules/hundred.md §6.1; a
    value-choosing ace never does)."""
    if card in ("AS", "AC") or (card in ("AH", "AD") and params["red_ace"] == "choose"):
        return False
    return value_after(card, value, params) > 100


def _states(players: int, variant: dict[str, Any], seed: int) -> Iterator[tuple[Any, Any]]:
    """(state before, action) along one game of heuristic and random players,
    then (final state, None)."""
    bots = (["heuristic", "random"] * players)[:players]
    rec = cardref.simulate("hundred", players=players, games=1, bots=bots, seed=seed,
                           records=True, **variant)["records"][0]
    state = cardref.load("hundred", players, **variant).new_state(seed=rec["seed"])
    for action in rec["actions"]:
        yield state.clone(), action
        state.apply(action)
    yield state, None


@pytest.mark.parametrize(("players", "variant"), VARIANTS)
def test_resample_keeps_the_view_and_the_cards(players, variant):
    game = cardref.load("hundred", players, **variant)
    reference = cardref.load("hundred", players, engine="reference", **variant)
    for step, (state, _) in enumerate(_states(players, variant, seed=players)):
        if step % 3:
            continue
        data = json.loads(state.to_json())
        cards = Counter(c for hand in data["hands"] for c in hand) + Counter(data["stock"])
        for seat in range(players):
            r = state.resample(seat, step)
            assert r.observation(seat) == state.observation(seat)
            if state.current_player() == seat:
                assert r.legal_actions() == state.legal_actions()
            rd = json.loads(r.to_json())
            assert Counter(c for hand in rd["hands"] for c in hand) + Counter(rd["stock"]) == cards
            assert rd["hands"][seat] == data["hands"][seat]
            assert game.state_from_json(r.to_json()).to_json() == r.to_json()
            assert reference.state_from_json(r.to_json()).to_json() == r.to_json()


@pytest.mark.parametrize("seed", range(4))
def test_a_rebuilt_stock_holds_only_what_was_under_the_top(seed):
    """From a rebuild to the next, every resampled stock is part of the cards
    that were on the pile before it (one deck: with two, a code played later
    may be either copy, and the bot does not tell the rebuilds apart)."""
    players = 4
    rebuilt = None
    checked = 0
    previous = None
    for state, action in _states(players, {}, seed):
        data = json.loads(state.to_json())
        if previous is not None and len(data["stock"]) > len(previous["stock"]):
            rebuilt = Counter(previous["pile"])
        if rebuilt is not None:
            for seat in range(players):
                stock = Counter(json.loads(state.resample(seat, checked).to_json())["stock"])
                assert not stock - rebuilt, (seat, stock - rebuilt)
                checked += 1
        previous = data
        if action is None:
            break
    assert checked > 0


@pytest.mark.parametrize("seed", range(6))
def test_a_forced_bust_shows_that_the_busters_other_cards_bust(seed):
    players = 4
    seen = 0
    for state, action in _states(players, {}, seed):
        if action is None:
            break
        before = json.loads(state.to_json())
        p = state.current_player()
        after = state.clone()
        after.apply(action)
        data = json.loads(after.to_json())
        if data["chips"][p] == before["chips"][p] or data["chips"][p] == 0:
            continue
        # p busted with no safe card; it keeps its other cards and draws one.
        kept = data["hands"][p][:-1]
        value = before["value"]
        assert all(_busts(c, value, data["params"]) for c in kept)
        for seat in (s for s in range(players) if s != p):
            for k in range(10):
                hand = json.loads(after.resample(seat, k).to_json())["hands"][p]
                assert all(_busts(c, value, data["params"]) for c in hand[:-1]), hand
        seen += 1
    assert seen > 0


def test_sampled_states_keep_the_recent_actions_and_reload():
    game = cardref.load("hundred", 5)
    reference = cardref.load("hundred", 5, engine="reference")
    for step, (state, _) in enumerate(_states(5, {}, seed=2)):
        if step % 25:
            continue
        obs = state.observation(step % 5)
        for s in game.sample_states(obs, 3, seed=step):
            data = json.loads(s.to_json())
            assert s.observation(step % 5) == obs
            assert reference.state_from_json(s.to_json()).to_json() == s.to_json()
            assert len(data["history"]) == obs["action_count"]
            assert data["history"][len(data["history"]) - len(obs["recent"]):] == [
                a for _, a in obs["recent"]]


def test_the_search_bot_plays_100_legally():
    assert builtin_module("search", "hundred") == "cardref.bots.search"
    from cardref.bots.search import Bot

    state = cardref.load("hundred", 3).new_state(seed=4)
    bots = [Bot() for _ in range(3)]
    for seat, bot in enumerate(bots):
        bot.start({"game": "hundred", "players": 3, "params": {}, "seed": seat, "seat": seat})
    for _ in range(60):
        if state.is_terminal():
            break
        seat = state.current_player()
        legal = state.legal_actions()
        action = bots[seat].act(state.observation(seat), legal)
        assert action in legal
        state.apply(action)
