"""cardref.simulate, state.resample, Game.sample_states and the search bot."""

from __future__ import annotations

import json
from collections import Counter

import pytest

import cardref
from cardref import registry
from cardref.bench import main as bench_main
from cardref.bots import BotLoadError, builtin_module
from gamekit import kit

#: Games that declare determinization (resample, sample_states) and so the search bot.
NATIVE = [g for g in cardref.games() if registry.spec(g).search]
#: Games that declare a heuristic bot, native and in Python.
HEURISTIC = [g for g in cardref.games() if registry.spec(g).heuristic]
#: Each game's typical table.
DEFAULT_PLAYERS = {g: registry.spec(g).default_players for g in cardref.games()}


@pytest.mark.parametrize("game_id", cardref.games())
def test_the_declared_bots_are_there(game_id):
    """A declared heuristic has a Python bot and a native one; a declared search
    bot resamples; a game without them has them refused by name."""
    spec = registry.spec(game_id)
    n = spec.default_players
    state = cardref.load(game_id, n).new_state(seed=1)
    if spec.heuristic:
        assert builtin_module("heuristic", game_id) == f"cardref.bots.heuristic.{game_id}"
        cardref.simulate(game_id, players=n, games=1, bots=["heuristic"] * n)
    else:
        with pytest.raises(BotLoadError, match="no heuristic bot"):
            builtin_module("heuristic", game_id)
        with pytest.raises(cardref.InvalidParamsError, match="no native heuristic"):
            cardref.simulate(game_id, players=n, games=1, bots=["heuristic"] * n)
    if spec.search:
        assert builtin_module("search", game_id) == "cardref.bots.search"
        assert state.resample(0, 1).observation(0) == state.observation(0)
    else:
        with pytest.raises(BotLoadError, match="does not play"):
            builtin_module("search", game_id)
        with pytest.raises(cardref.InvalidStateError, match="no determinization"):
            state.resample(0, 1)


def test_every_game_has_a_heuristic_and_the_search_bot():
    assert HEURISTIC == NATIVE == cardref.games()


def _without_time(result: dict) -> dict:
    return {k: v for k, v in result.items() if k not in ("seconds", "threads")}


@pytest.mark.parametrize("game_id", HEURISTIC)
def test_same_seed_same_results_for_any_thread_count(game_id):
    bots = ["random", "heuristic", "random", "heuristic"]
    runs = [
        cardref.simulate(game_id, players=4, games=24, bots=bots, seed=5, threads=t, records=True)
        for t in (1, 2, 3, None)
    ]
    first = _without_time(runs[0])
    for r in runs[1:]:
        assert _without_time(r) == first
    assert first["games"] == 24
    assert first["actions"] == sum(len(rec["actions"]) for rec in first["records"])
    assert [s["bot"] for s in first["seats"]] == bots


@pytest.mark.parametrize("game_id", cardref.games())
def test_random_bots_play_every_game_the_same_on_any_thread_count(game_id):
    players = DEFAULT_PLAYERS[game_id]
    runs = [
        cardref.simulate(game_id, players=players, games=6, bots=["random"] * players, seed=2,
                         threads=t, records=True)
        for t in (1, 2)
    ]
    assert _without_time(runs[0]) == _without_time(runs[1])
    reference = cardref.load(game_id, players, engine="reference")
    for rec in runs[0]["records"]:
        state = reference.new_state(seed=rec["seed"])
        for action in rec["actions"]:
            state.apply(action)
        assert state.is_terminal()
        assert state.scores() == rec["scores"]
        assert state.placements() == rec["placements"]


@pytest.mark.parametrize("game_id", HEURISTIC)
def test_records_replay_on_both_engines(game_id):
    n = DEFAULT_PLAYERS[game_id]
    result = cardref.simulate(game_id, players=n, games=3, bots=["heuristic"] * n,
                              seed=9, records=True)
    for rec in result["records"]:
        for engine in ("rust", "reference"):
            state = cardref.load(game_id, n, engine=engine).new_state(seed=rec["seed"])
            for action in rec["actions"]:
                state.apply(action)
            assert state.is_terminal()
            assert state.scores() == rec["scores"]
            assert state.placements() == rec["placements"]


@pytest.mark.parametrize("game_id", NATIVE)
def test_per_seat_results_add_up(game_id):
    result = cardref.simulate(game_id, players=4, games=50, bots=["random"] * 4,
                              seed=1, records=True)
    records = result["records"]
    for seat, s in enumerate(result["seats"]):
        assert s["wins"] == sum(r["placements"][seat] == 1 for r in records)
        assert s["mean_placement"] == pytest.approx(
            sum(r["placements"][seat] for r in records) / 50)
        assert s["mean_score"] == pytest.approx(sum(r["scores"][seat] for r in records) / 50)
    # Different seeds deal different games.
    other = cardref.simulate(game_id, players=4, games=50, bots=["random"] * 4, seed=2)
    assert other["actions"] != result["actions"] or other["seats"] != result["seats"]


def test_native_heuristic_beats_random():
    result = cardref.simulate("take5", players=4, games=300, bots=["heuristic", "random"] * 2,
                              seed=3)
    heur = [result["seats"][0], result["seats"][2]]
    rand = [result["seats"][1], result["seats"][3]]
    assert sum(s["mean_placement"] for s in heur) < sum(s["mean_placement"] for s in rand)


@pytest.mark.parametrize("game_id", HEURISTIC)
def test_native_heuristic_plays_like_the_python_heuristic(game_id):
    """The native heuristic ports the Python bot's strategy: same choices."""
    import importlib

    bot = importlib.import_module(f"cardref.bots.heuristic.{game_id}").Bot()
    result = cardref.simulate(game_id, players=4, games=3, bots=["heuristic"] * 4,
                              seed=12, records=True)
    for rec in result["records"]:
        state = cardref.load(game_id, 4).new_state(seed=rec["seed"])
        for action in rec["actions"]:
            seat = state.current_player()
            assert bot.act(state.observation(seat), state.legal_actions()) == action
            state.apply(action)


def test_bad_arguments_raise():
    with pytest.raises(cardref.InvalidParamsError, match="one bot per seat"):
        cardref.simulate("take5", players=4, games=1, bots=["random"] * 3)
    with pytest.raises(cardref.InvalidParamsError, match="unknown native bot"):
        cardref.simulate("take5", players=2, games=1, bots=["random", "clever"])
    with pytest.raises(cardref.InvalidParamsError, match="threads"):
        cardref.simulate("take5", players=2, games=1, bots=["random"] * 2, threads=0)
    with pytest.raises(cardref.InvalidSeedError):
        cardref.simulate("take5", players=2, games=1, bots=["random"] * 2, seed=-1)
    with pytest.raises(cardref.UnknownGameError):
        cardref.simulate("chess", players=2, games=1, bots=["random"] * 2)


def test_variant_keys_reach_the_games():
    short = cardref.simulate("take5", players=3, games=20, bots=["random"] * 3, round_limit=1,
                             records=True)
    assert all(len(r["actions"]) <= 3 * 10 + 10 for r in short["records"])
    with pytest.raises(cardref.InvalidParamsError):
        cardref.simulate("take5", players=3, games=1, bots=["random"] * 3, colour="red")


def _cards(game_id: str, state_json: str) -> Counter:
    """Every card of the state, by place-independent count (gamekit's cards)."""
    return Counter(kit(game_id).cards(json.loads(state_json)) or [])


def _table_sizes(game_id: str) -> list[int]:
    """The smallest, a middle and the largest table the test kit plays with the
    default variant (100 allows 2 seats only with ``allow_two_players``)."""
    sizes = [n for n in kit(game_id).PLAYERS if _default_allows(game_id, n)]
    return sorted({sizes[0], sizes[len(sizes) // 2], sizes[-1]})


def _default_allows(game_id: str, players: int) -> bool:
    try:
        cardref.load(game_id, players)
    except cardref.InvalidParamsError:
        return False
    return True


def _walk(game_id: str, players: int, seed: int, steps: int):
    """States along one random game (heuristic and random moves mixed)."""
    game = cardref.load(game_id, players)
    state = game.new_state(seed=seed)
    rec = cardref.simulate(game_id, players=players, games=1, bots=["heuristic"] * players,
                           seed=seed, records=True)["records"][0]
    state = game.new_state(seed=rec["seed"])
    yield state.clone()
    for action in rec["actions"][:steps]:
        state.apply(action)
        yield state.clone()


@pytest.mark.parametrize(("game_id", "players"),
                         [(g, n) for g in NATIVE for n in _table_sizes(g)])
def test_resample_keeps_what_the_seat_knows(game_id, players):
    game = cardref.load(game_id, players)
    for state in _walk(game_id, players, seed=players, steps=60):
        cards = _cards(game_id, state.to_json())
        for seat in range(players):
            a, b = state.resample(seat, 1), state.resample(seat, 2)
            for r in (a, b):
                assert r.observation(seat) == state.observation(seat)
                assert r.current_player() == state.current_player()
                if state.current_player() == seat:
                    assert r.legal_actions() == state.legal_actions()
                assert _cards(game_id, r.to_json()) == cards
                # A consistent state: it reloads on both engines.
                assert game.state_from_json(r.to_json()).to_json() == r.to_json()
                ref = cardref.load(game_id, players, engine="reference")
                assert ref.state_from_json(r.to_json()).to_json() == r.to_json()
            if not state.is_terminal():
                assert a.to_json() != b.to_json()
            assert state.resample(seat, 1).to_json() == a.to_json()


def test_resample_varies_every_hidden_hand():
    state = cardref.load("take5", 4).new_state(seed=3)
    seen = [set() for _ in range(4)]
    for seed in range(20):
        hands = json.loads(state.resample(0, seed).to_json())["hands"]
        for s in range(4):
            seen[s].add(tuple(hands[s]))
    assert len(seen[0]) == 1
    assert all(len(seen[s]) == 20 for s in (1, 2, 3))


@pytest.mark.parametrize("game_id", NATIVE)
def test_sample_states_from_an_observation(game_id):
    game = cardref.load(game_id, 4)
    for state in _walk(game_id, 4, seed=8, steps=50):
        for seat in range(4):
            obs = state.observation(seat)
            samples = game.sample_states(obs, 4, seed=seat)
            assert len(samples) == 4
            assert len({s.to_json() for s in samples}) == 4
            for s in samples:
                assert s.observation(seat) == obs
                if state.current_player() == seat:
                    assert s.legal_actions() == state.legal_actions()


def test_sample_states_rejects_another_games_observation():
    obs = cardref.load("take5", 4).new_state(seed=1).observation(0)
    with pytest.raises(cardref.InvalidStateError):
        cardref.load("take5", 3).sample_states(obs, 1)
    with pytest.raises(cardref.InvalidStateError):
        cardref.load("take5", 4).sample_states({"game": "take5"}, 1)


def test_search_bot_is_a_builtin_and_plays_legally():
    assert builtin_module("search", "take5") == "cardref.bots.search"
    with pytest.raises(BotLoadError, match="unknown built-in"):
        builtin_module("oracle", "take5")
    from cardref.bots.search import Bot

    state = cardref.load("take5", 3).new_state(seed=4)
    bots = [Bot() for _ in range(3)]
    for seat, bot in enumerate(bots):
        bot.start({"game": "take5", "players": 3, "params": {}, "seed": seat, "seat": seat})
    for _ in range(40):
        seat = state.current_player()
        legal = state.legal_actions()
        action = bots[seat].act(state.observation(seat), legal)
        assert action in legal
        state.apply(action)


def test_search_is_deterministic_given_its_seed():
    game = cardref.load("take5", 4)
    obs = game.new_state(seed=5).observation(0)
    assert game.search_action(obs, 8, 3) == game.search_action(obs, 8, 3)


@pytest.mark.parametrize("game_id", NATIVE)
def test_search_refuses_the_observation_of_a_seat_not_to_act(game_id):
    n = DEFAULT_PLAYERS[game_id]
    game = cardref.load(game_id, n)
    state = game.new_state(seed=2)
    idle = (state.current_player() + 1) % n
    with pytest.raises(cardref.InvalidStateError, match="not to act"):
        game.search_action(state.observation(idle), 4, 1)
    assert game.search_action(state.observation(state.current_player()), 4, 1) in \
        state.legal_actions()


@pytest.mark.parametrize("game_id", NATIVE)
def test_native_search_beats_the_heuristic(game_id):
    """Search and heuristic alternate seats (partners in Back Alley); search
    places better on average over the same deals."""
    n = DEFAULT_PLAYERS[game_id]
    bots = (["search", "heuristic"] * n)[:n]
    result = cardref.simulate(game_id, players=n, games=24, bots=bots, seed=4)
    mean = {b: sum(s["mean_placement"] for s in result["seats"] if s["bot"] == b) / bots.count(b)
            for b in ("search", "heuristic")}
    assert mean["search"] < mean["heuristic"]


def test_state_size_is_reported():
    assert 100 < cardref.load("take5", 4).state_size() < 4096


def test_bench_says_how_to_get_openspiel_or_compares_with_it(capsys):
    assert bench_main(["back_alley", "--seconds", "0.01"]) == 0
    out = capsys.readouterr().out
    assert "pip install 'cardref[bench]'" in out or "spades" in out


def test_bench_prints_every_column(capsys):
    assert bench_main(["take5", "--seconds", "0.01"]) == 0
    out = capsys.readouterr().out
    assert "threads" in out and "state" in out and "take5" in out
    assert "legal/step" in out


def test_bench_counts_the_legal_actions_a_python_step_lists():
    from cardref.bench import legal_per_step

    # Take 5 lists the hand at a commit (10 cards down to 1: 5.5 on average)
    # and 4 rows at a row choice, so its mean lies between 4 and 5.5.
    assert 4 < legal_per_step("take5", 4, seed=0, games=3) <= 5.5
    # Twenty-Two lists every subset of the hand that may be discarded.
    assert legal_per_step("twenty_two", 4, seed=0, games=3) > 20


@pytest.mark.parametrize("variant", [{"deck": "tactics"},
                                     {"too_low_choice": "auto_fewest_heads", "end_score": 20}])
def test_determinization_under_take5_variants(variant):
    game = cardref.load("take5", 3, **variant)
    rec = cardref.simulate("take5", players=3, games=1, bots=["search", "heuristic", "random"],
                           records=True, **variant)["records"][0]
    state = game.new_state(seed=rec["seed"])
    for i, action in enumerate(rec["actions"][:40]):
        for seat in range(3):
            obs = state.observation(seat)
            assert all(s.observation(seat) == obs for s in game.sample_states(obs, 2, i))
            assert state.resample(seat, i).observation(seat) == obs
        state.apply(action)


def test_search_bot_plays_as_the_heuristic_when_no_deal_is_found():
    from cardref.bots.heuristic.twenty_two import Bot as Heuristic
    from cardref.bots.search import Bot

    class NoDeal:
        def search_action(self, *args):
            raise cardref.InvalidStateError("no consistent deal")

    state = cardref.load("twenty_two", 4).new_state(seed=6)
    seat, legal = state.current_player(), state.legal_actions()
    bot = Bot()
    bot.game = NoDeal()
    expected = Heuristic().act(state.observation(seat), legal)
    assert bot.act(state.observation(seat), legal) == expected


def test_bench_native_keeps_every_game_and_the_fastest_full_size_batch():
    from cardref import bench

    class FakeGame:
        """Each batch of g games takes g ms at 10 actions a game, except that
        the second full-size batch runs twice as fast."""

        players = 2

        def __init__(self):
            self.calls = []

        def simulate(self, bots, games, seed, threads):
            self.calls.append(games)
            full = [g for g in self.calls if g >= 64]
            seconds = games / 1000 / (2 if len(full) == 2 else 1)
            return {"games": games, "actions": 10 * games, "seconds": seconds}

    game = FakeGame()
    rate = bench.native(game, budget=0.3, seed=0)
    assert game.calls[:7] == [1, 2, 4, 8, 16, 32, 64]
    assert set(game.calls[6:]) == {64}, "a full-size batch keeps its size"
    assert rate.games == sum(game.calls)
    assert rate.actions == 10 * rate.games
    assert rate.fastest_ns_per_action == pytest.approx(1e9 * 0.032 / 640)
    assert rate.ns_per_action > rate.fastest_ns_per_action


def test_bench_measures_one_and_every_thread_in_turns():
    from itertools import groupby

    from cardref import bench

    class FakeGame:
        """A batch of g games takes g ms on one thread and g/2 ms on more,
        except that the machine is twice as slow until the first
        every-thread batch: measured one after the other, every one-thread
        batch would come from the slow minutes."""

        players = 2

        def __init__(self):
            self.calls = []

        def simulate(self, bots, games, seed, threads):
            slow = 2 if all(t == 1 for t, _, _ in self.calls) and threads == 1 else 1
            self.calls.append((threads, games, seed))
            seconds = games / 1000 / (1 if threads == 1 else 2) * slow
            return {"games": games, "actions": 10 * games, "seconds": seconds}

    game = FakeGame()
    one, every = bench.native_in_turns(game, budget=0.6, seed=0)
    assert [t for t, _ in groupby(t for t, _, _ in game.calls)] == [1, None, 1, None]
    assert one.games == sum(g for t, g, _ in game.calls if t == 1)
    assert every.games == sum(g for t, g, _ in game.calls if t is None)
    assert one.best_ns_per_action / every.best_ns_per_action == pytest.approx(2)
    # The second pass deals new games: no seed is used twice by one-thread batches.
    seeds = [s for t, _, s in game.calls if t == 1]
    assert len(set(seeds)) == len(seeds)
