"""Rule tests for 100, in the order of ``python/cardref/reference/hundred.py``
(docs/rules/hundred.md).

Each test builds a small position, runs it on both engines and checks what the
rule book says must happen.
"""

from __future__ import annotations

import json
import random
from typing import Any, Optional

import pytest

import cardref
from cardref.reference.hundred import CARDS
from cardref.rng import SplitMix64


@pytest.fixture(params=["rust", "reference"])
def engine(request: pytest.FixtureRequest) -> str:
    return request.param


def dealt_deck(players: int, hands: dict[int, list[str]], first: int, decks: int = 1,
               hand_size: int = 3, then: Optional[list[str]] = None) -> list[str]:
    """A full deck that deals ``hands`` (seat -> cards) when seat ``first`` is dealt first."""
    pool = CARDS * decks
    for cards in hands.values():
        for c in cards:
            pool.remove(c)
    for c in then or []:
        pool.remove(c)
    full = {s: list(hands.get(s, [])) for s in range(players)}
    for s in range(players):
        while len(full[s]) < hand_size:
            full[s].append(pool.pop(0))
    deck = [full[(first + i) % players][k] for k in range(hand_size) for i in range(players)]
    return deck + list(then or []) + pool


def position(engine: str, players: int = 3, hands: Optional[dict[int, list[str]]] = None,
             then: Optional[list[str]] = None, variant: Optional[dict[str, Any]] = None,
             seed: int = 0, **patch: Any) -> Any:
    """A state with the given hands and stock top, then top-level fields replaced."""
    variant = variant or {}
    game = cardref.load("hundred", players, engine=engine, **variant)
    decks = 1 if players <= 6 else 2
    first = (game.params["first_dealer"] + 1) % players
    deck = dealt_deck(players, hands or {}, first, decks, game.params["hand_size"], then)
    state = game.new_state(seed, deck=deck)
    if patch:
        data = json.loads(state.to_json())
        data.update(patch)
        state = game.state_from_json(json.dumps(data))
    return state


def out_of_game(data: dict[str, Any], seat: int) -> None:
    """Marks ``seat`` as eliminated in state JSON: its hand goes under the pile."""
    data["pile"] = data["hands"][seat] + data["pile"]
    data["hands"][seat] = []
    data["chips"][seat] = 0
    data["elimination_log"].append(seat)


def seen(state: Any, seat: int = 0) -> dict[str, Any]:
    return state.observation(seat)


# §2 Cards ---------------------------------------------------------------------------


def test_explicit_deck_must_hold_each_card_once_per_deck(engine: str) -> None:
    game = cardref.load("hundred", 7, engine=engine)
    with pytest.raises(cardref.InvalidDeckError):
        game.new_state(0, deck=list(CARDS))  # 52 cards where two decks are in play
    with pytest.raises(cardref.InvalidDeckError):
        cardref.load("hundred", 3, engine=engine).new_state(0, deck=["1C", *CARDS[1:]])


# §8 Variants -------------------------------------------------------------------------


def test_every_key_has_its_default(engine: str) -> None:
    assert cardref.load("hundred", 3, engine=engine).params == {
        "allow_two_players": False, "num_decks": "auto", "chips": 3, "hand_size": 3,
        "first_dealer": 0, "red_ace": "one", "allow_negative": False,
        "allow_voluntary_bust": False, "bust_rule": "reset", "max_actions": 5000,
    }


@pytest.mark.parametrize(("players", "variant"), [
    (2, {}), (1, {"allow_two_players": True}), (13, {}),
    (3, {"chips": True}), (3, {"chips": 0}), (3, {"hand_size": 1.0}), (3, {"num_decks": "two"}),
    (3, {"num_decks": 3}), (3, {"num_decks": True}), (3, {"num_decks": [2]}),
    (3, {"red_ace": "two"}),
    (3, {"bust_rule": "RESET"}), (3, {"max_actions": 0}), (3, {"n_players": 3}),
    (3, {"first_dealer": 3}), (3, {"allow_negative": 1}), (7, {"num_decks": 1, "hand_size": 8}),
    (3, {"hand_size": 18}),
])
def test_bad_configs_are_rejected(engine: str, players: int, variant: dict[str, Any]) -> None:
    with pytest.raises(cardref.InvalidParamsError):
        cardref.load("hundred", players, engine=engine, **variant)


@pytest.mark.parametrize("key", ["chips", "hand_size", "first_dealer", "max_actions"])
def test_integer_keys_beyond_64_bits_are_rejected(engine: str, key: str) -> None:
    with pytest.raises(cardref.InvalidParamsError):
        cardref.load("hundred", 3, engine=engine, **{key: 1 << 70})


def test_one_deck_may_be_forced_for_seven_players_if_the_hands_fit(engine: str) -> None:
    state = cardref.load("hundred", 7, engine=engine, num_decks=1).new_state(3)
    data = json.loads(state.to_json())
    assert len(data["stock"]) == 52 - 21


# §4 Setup and deal -----------------------------------------------------------------


def test_seeded_deal_is_the_first_shuffle_of_the_canonical_deck(engine: str) -> None:
    state = cardref.load("hundred", 4, engine=engine).new_state(99)
    deck = list(CARDS)
    gen = SplitMix64(99)
    gen.shuffle(deck)
    data = json.loads(state.to_json())
    assert data["hands"][1] == [deck[0], deck[4], deck[8]]
    assert data["hands"][0] == [deck[3], deck[7], deck[11]]
    assert data["stock"] == deck[12:]
    assert data["rng"] == gen.state


def test_explicit_deck_uses_no_generator_call(engine: str) -> None:
    state = cardref.load("hundred", 3, engine=engine).new_state(1234, deck=list(CARDS))
    assert json.loads(state.to_json())["rng"] == 1234


# §5 Legal actions -----------------------------------------------------------------------


def test_all_busting_hand_may_play_any_card(engine: str) -> None:
    state = position(engine, hands={1: ["9C", "8D", "7S"]}, value=95)
    assert state.legal_actions() == ["play 9C", "play 8D", "play 7S"]


def test_voluntary_bust_lists_every_card_with_ace_values_in_place(engine: str) -> None:
    state = position(engine, hands={1: ["9S", "AC", "KD"]}, value=95,
                     variant={"allow_voluntary_bust": True})
    legal = state.legal_actions()
    assert legal[:101] == [f"play AC {x}" for x in range(101)]
    assert legal[101:] == ["play KD", "play 9S"]


def test_grammar_is_strict(engine: str) -> None:
    state = position(engine, hands={1: ["AS", "KD", "3C"]}, value=10)
    before = state.to_json()
    for bad in ["play AS", "play AS 007", "play AS 1.0", "play KD 0", "play kd", "PLAY KD",
                "play KD ", "play 3C 3C", "play TD", "", "play 10C"]:
        with pytest.raises(cardref.IllegalActionError):
            state.apply(bad)
        assert state.to_json() == before
    state.apply("play AS 100")
    assert seen(state)["value"] == 100


# §6.1 Card effects --------------------------------------------------------------------


@pytest.mark.parametrize(("card", "value", "after"), [
    ("2C", 40, 42), ("2D", 40, 42), ("2H", 40, 42), ("2S", 40, 80), ("3H", 40, 43),
    ("4C", 40, 40), ("5C", 40, 45), ("5S", 40, 45), ("5H", 40, 35), ("5D", 2, 0),
    ("6D", 40, 46), ("7C", 40, 47), ("8S", 40, 48), ("9H", 40, 49), ("10S", 40, 100),
    ("JC", 40, 30), ("JD", 9, 0), ("QH", 40, 0), ("QC", 40, 50), ("QD", 40, 50), ("QS", 90, 100),
    ("KH", 40, 40), ("AH", 40, 41), ("AD", 40, 41),
])
def test_card_values(engine: str, card: str, value: int, after: int) -> None:
    state = position(engine, hands={1: [card]}, value=value)
    state.apply(f"play {card}")
    assert seen(state)["value"] == after
    assert state.scores() == [3, 3, 3]


def test_negative_values_with_allow_negative(engine: str) -> None:
    state = position(engine, hands={1: ["JD"], 2: ["2S"]}, value=3,
                     variant={"allow_negative": True})
    state.apply("play JD")
    state.apply("play 2S")
    assert seen(state)["value"] == -14


def test_four_reverses_and_the_play_goes_back(engine: str) -> None:
    state = position(engine, players=5, hands={1: ["4H"], 0: ["4S"]}, value=12)
    state.apply("play 4H")
    assert state.current_player() == 0
    state.apply("play 4S")
    assert state.current_player() == 1
    assert seen(state)["dir"] == 1


# §6.3 Bust penalty ---------------------------------------------------------------------


def test_reset_keeps_direction_and_skips_nobody(engine: str) -> None:
    state = position(engine, players=4, hands={1: ["9C", "8D", "7S"]}, value=95, dir=-1)
    state.apply("play 8D")
    obs = seen(state, 1)
    assert (obs["value"], obs["dir"], state.current_player()) == (0, -1, 0)
    assert len(obs["hand"]) == 3


def test_eliminated_seat_is_skipped_and_never_acts(engine: str) -> None:
    state = position(engine, players=4, hands={1: ["9C", "8D", "7S"]}, value=95,
                     chips=[3, 1, 3, 3])
    state.apply("play 9C")
    assert state.current_player() == 2
    for _ in range(12):
        assert state.current_player() != 1
        state.apply(state.legal_actions()[0])
    assert seen(state)["hand_sizes"][1] == 0


def test_redeal_when_the_buster_goes_out_starts_left_of_it(engine: str) -> None:
    state = position(engine, players=4, hands={2: ["9C", "8D", "7S"]}, value=95, current=2,
                     chips=[3, 3, 1, 3], variant={"bust_rule": "redeal"}, seed=5)
    state.apply("play 7S")
    obs = seen(state, 3)
    assert (obs["dealer"], obs["deal_number"], obs["elimination_log"]) == (2, 2, [2])
    assert obs["hand_sizes"] == [3, 3, 0, 3] and obs["pile"] == []
    assert state.current_player() == 3
    deck = list(CARDS)
    SplitMix64(5).shuffle(deck)
    assert obs["hand"] == [deck[0], deck[3], deck[6]]


def test_redeal_continues_while_two_seats_remain(engine: str) -> None:
    state = position(engine, hands={1: ["9C", "8D", "7S"]}, value=95, chips=[2, 1, 3],
                     variant={"bust_rule": "redeal"})
    state.apply("play 9C")
    assert state.placements() is None
    assert (seen(state)["deal_number"], state.current_player()) == (2, 2)


def test_no_redeal_once_one_seat_is_left(engine: str) -> None:
    game = cardref.load("hundred", 3, engine=engine, bust_rule="redeal")
    data = json.loads(game.new_state(0, deck=dealt_deck(3, {1: ["9C", "8D", "7S"]}, 1)).to_json())
    out_of_game(data, 2)
    data.update(value=95, chips=[2, 1, 0])
    state = game.state_from_json(json.dumps(data))
    state.apply("play 8D")
    assert state.placements() == [1, 2, 3]
    assert seen(state)["deal_number"] == 1 and seen(state)["hand_sizes"] == [3, 0, 0]


# §6.4 Drawing --------------------------------------------------------------------


def test_rebuild_shuffles_the_pile_under_its_top(engine: str) -> None:
    hands = {0: CARDS[4:20], 1: CARDS[20:36], 2: ["KH", "QH", *CARDS[38:52]]}
    state = position(engine, hands=hands, variant={"hand_size": 16}, current=2, value=50,
                     stock=[], pile=CARDS[:4], rng=77)
    state.apply("play KH")
    under = CARDS[:4]
    SplitMix64(77).shuffle(under)
    obs = seen(state, 2)
    assert obs["hand"] == ["QH", *CARDS[38:52], under[0]]
    assert obs["pile"] == ["KH"] and obs["stock_size"] == 3 and obs["value"] == 50


# §7 Game end and termination ----------------------------------------------------------


def test_cap_ranks_active_by_chips_then_the_eliminated(engine: str) -> None:
    game = cardref.load("hundred", 4, engine=engine, max_actions=1)
    data = json.loads(game.new_state(0, deck=dealt_deck(4, {1: ["KC"]}, 1)).to_json())
    out_of_game(data, 2)
    data.update(chips=[2, 3, 0, 2])
    state = game.state_from_json(json.dumps(data))
    state.apply("play KC")
    assert state.placements() == [2, 1, 4, 2]
    assert seen(state)["result"] == {"reason": "CAP", "ranking": [[1], [0, 3], [2]]}


# JSON ------------------------------------------------------------------------------


@pytest.mark.parametrize("change", [
    {"value": 101}, {"value": -1}, {"dir": 0}, {"dir": True}, {"current": 5},
    {"chips": [3, 0, 3]}, {"chips": [4, 3, 3]}, {"stock": []}, {"phase": "OVER"},
    {"action_count": 1}, {"history": ["play 3C"]}, {"elimination_log": [1]},
    {"result": {"reason": "CAP", "ranking": []}}, {"deal_number": 0},
    {"recent": [[0, "play 3C"]]}, {"hands": [["3C"], [], []]}, {"history": ["play AS 07"]},
])
def test_inconsistent_states_are_rejected(engine: str, change: dict[str, Any]) -> None:
    game = cardref.load("hundred", 3, engine=engine)
    data = json.loads(game.new_state(1).to_json())
    data.update(change)
    with pytest.raises(cardref.InvalidStateError):
        game.state_from_json(json.dumps(data))


@pytest.mark.parametrize("bust_rule", ["reset", "void", "redeal"])
def test_random_games_keep_the_invariants(engine: str, bust_rule: str) -> None:
    """Chips never rise, the out never act, the value stays in bounds, JSON round-trips,
    and the only winner of a game played out is the last seat with chips."""
    game = cardref.load("hundred", 5, engine=engine, chips=2, red_ace="choose",
                        bust_rule=bust_rule)
    rng = random.Random(3)
    for seed in range(3):
        state = game.new_state(seed)
        chips = state.scores()
        while not state.is_terminal():
            seat = state.current_player()
            assert chips[seat] > 0
            state.apply(rng.choice(state.legal_actions()))
            assert all(a <= b for a, b in zip(state.scores(), chips))
            chips = state.scores()
            assert 0 <= seen(state)["value"] <= 100
        assert game.state_from_json(state.to_json()).to_json() == state.to_json()
        assert state.placements().count(1) == 1
        assert [c > 0 for c in state.scores()] == [p == 1 for p in state.placements()]


# The heuristic bot -------------------------------------------------------------


def test_heuristic_bot_plays_legally_and_beats_random() -> None:
    from cardref.bots.heuristic.hundred import Bot

    bot, rng, wins = Bot(), random.Random(5), 0
    for seed in range(40):
        variant = {"red_ace": ["one", "choose", "zero"][seed % 3],
                   "allow_voluntary_bust": seed % 4 == 0}
        state = cardref.load("hundred", 3, **variant).new_state(seed)
        hero = seed % 3
        while not state.is_terminal():
            seat, legal = state.current_player(), state.legal_actions()
            action = bot.act(state.observation(seat), legal) if seat == hero else rng.choice(legal)
            assert action in legal
            state.apply(action)
        wins += state.placements()[hero] == 1
    assert wins >= 20  # a uniform random player wins about 13 of 40

