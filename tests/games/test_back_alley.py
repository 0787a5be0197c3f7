"""Rule unit tests for Back Alley, in the order of ``cardref/reference/back_alley.py``
(and ``rust/src/games/back_alley/``); every test runs on both engines.

Positions are built from explicit decks (dealt from the dealer's left, one card
at a time, then the upcard and the stock) and, where a test needs a later
position, by editing a state's JSON and loading it back.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

import cardref
from cardref.bots.heuristic.back_alley import Bot
from cardref.rng import SplitMix64

RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
CANONICAL = [r + s for s in "CDHS" for r in RANKS] + ["BB", "LB"]


@pytest.fixture(params=["rust", "reference"])
def engine(request: pytest.FixtureRequest) -> str:
    return request.param


def stacked(hands: list[list[str]], dealer: int, then: list[str]) -> list[str]:
    """The deck that deals ``hands[seat]`` to each seat from the dealer's left,
    then ``then``, then the other cards in canonical order."""
    deck = []
    for k in range(len(hands[0])):
        for j in range(4):
            deck.append(hands[(dealer + 1 + j) % 4][k])
    deck += then
    return deck + [c for c in CANONICAL if c not in deck]


def game(engine: str, schedule: Any = None, **variant: Any) -> Any:
    if schedule is not None:
        variant["schedule"] = schedule
    return cardref.load("back_alley", 4, engine=engine, **variant)


def position(
    engine: str,
    hands: list[list[str]],
    then: list[str],
    dealer: int = 3,
    actions: tuple[str, ...] = (),
    **variant: Any,
) -> Any:
    """A one-deal game with these hands, dealer and upcard, after ``actions``."""
    g = game(engine, [len(hands[0])], first_dealer=dealer, **variant)
    state = g.new_state(seed=1, deck=stacked(hands, dealer, then))
    for action in actions:
        state.apply(action)
    return state


def data(state: Any) -> dict[str, Any]:
    return json.loads(state.to_json())


def reload(engine: str, state: Any, **changes: Any) -> Any:
    d = data(state)
    d.update(changes)
    params = d["params"]
    return cardref.load("back_alley", 4, engine=engine, **params).state_from_json(json.dumps(d))


# §2 Card notation ----------------------------------------------------------------


def test_card_codes_are_written_as_the_rule_book_does(engine: str) -> None:
    state = position(
        engine,
        [["10H", "2C"], ["AS", "QD"], ["BB", "3S"], ["4D", "5D"]],
        ["6D"],
        actions=("bid 1", "bid pass", "bid pass", "bid pass"),
    )
    assert state.legal_actions() == ["play 2C", "play 10H"]  # suit-major canonical order
    for bad in ["play TH", "play 10h", "play 10", "play H10", "play  10H", "play 2C 10H"]:
        with pytest.raises(cardref.IllegalActionError):
            state.apply(bad)
    state.apply("play 10H")
    assert data(state)["trick"] == [[0, "10H"]]


def test_canonical_deck_has_54_cards_jokers_last(engine: str) -> None:
    assert game(engine).new_state(seed=0, deck=list(CANONICAL)) is not None
    with pytest.raises(cardref.InvalidDeckError):
        game(engine).new_state(seed=0, deck=[*CANONICAL[:-1], "BB"])


# §8 Variants ---------------------------------------------------------------------


def test_effective_params_list_every_key_with_defaults(engine: str) -> None:
    params = game(engine).params
    assert params == {
        "schedule": "13-1-13",
        "first_dealer": 0,
        "joker_upcard": "no_trump",
        "joker_exchange_draw": "top",
        "bid_cap": "hand_size_minus_one",
        "bid_not_above_previous": False,
        "board_lead": "last",
        "board_multiplier": "linear",
        "board_multiplier_scope": "team",
        "board_trump_lead_exemption": "player",
        "blooper_lead_rules": True,
        "big_blooper_binds_partner": True,
        "bid_points_per_trick": 5,
        "overtrick_points": 1,
        "set_points_per_bid_trick": 5,
        "board_points_per_trick": 10,
        "max_consecutive_all_pass": 4,
    }


@pytest.mark.parametrize(
    "key, value",
    [
        ("schedule", [0]),
        ("schedule", [True]),
        ("schedule", [1] * 1001),
        ("schedule", "13-1"),
        ("schedule", 13),
        ("first_dealer", -1),
        ("first_dealer", "Random"),
        ("first_dealer", True),
        ("overtrick_points", 1.0),
        ("board_points_per_trick", 2**31),
        ("bid_cap", "n"),
        ("max_consecutive_all_pass", 0),
        ("big_blooper_binds_partner", "true"),
    ],
)
def test_bad_variant_values_name_the_key(engine: str, key: str, value: Any) -> None:
    with pytest.raises(cardref.InvalidParamsError, match=key):
        game(engine, **{key: value})


@pytest.mark.parametrize(
    "name, length, middle",
    [
        ("13-1-13", 25, [2, 1, 2]),
        ("13-1-1-13", 26, [2, 1, 1, 2]),
        ("1-13-1", 25, [12, 13, 12]),
        ("1-13-13-1", 26, [12, 13, 13, 12]),
    ],
)
def test_named_schedules(engine: str, name: str, length: int, middle: list[int]) -> None:
    state = game(engine, name, max_consecutive_all_pass=1).new_state(seed=4)
    sizes = []
    while not state.is_terminal():  # all-pass auctions abandon every hand at once
        sizes.append(data(state)["hand_size"])
        for _ in range(4):
            state.apply("bid pass")
    assert len(sizes) == length
    assert (
        sizes[length // 2 - len(middle) // 2 : length // 2 - len(middle) // 2 + len(middle)]
        == middle
    )


# §4 Setup and deal ---------------------------------------------------------------


def test_deal_starts_left_of_the_dealer_and_turns_the_next_card(engine: str) -> None:
    deck = list(CANONICAL)
    state = game(engine, [2], first_dealer=2).new_state(seed=0, deck=deck)
    d = data(state)
    assert d["hands"] == [["3C", "7C"], ["4C", "8C"], ["5C", "9C"], ["2C", "6C"]]
    assert d["upcard"] == "10C" and d["trump"] == "C"
    assert d["stock"] == CANONICAL[9:]
    assert state.current_player() == 3


def test_seeded_deals_shuffle_the_canonical_deck(engine: str) -> None:
    state = game(engine, [3]).new_state(seed=77)
    deck = list(CANONICAL)
    SplitMix64(77).shuffle(deck)
    d = data(state)
    assert d["hands"][1] == sorted([deck[0], deck[4], deck[8]], key=CANONICAL.index)
    assert d["upcard"] == deck[12] or d["upcard"] in ("BB", "LB")


def test_explicit_deck_uses_no_generator_call_and_the_redeal_is_the_first_shuffle(
    engine: str,
) -> None:
    state = game(engine, [2]).new_state(seed=123, deck=list(CANONICAL))
    assert data(state)["rng"] == 123
    for _ in range(4):
        state.apply("bid pass")
    deck = list(CANONICAL)
    SplitMix64(123).shuffle(deck)
    d = data(state)
    assert d["dealer"] == 1
    assert d["hands"][2] == sorted([deck[0], deck[4]], key=CANONICAL.index)


def test_random_first_dealer_is_drawn_before_the_first_shuffle(engine: str) -> None:
    for seed in range(6):
        rng = SplitMix64(seed)
        dealer = rng.bounded(4)
        deck = list(CANONICAL)
        rng.shuffle(deck)
        d = data(game(engine, [1], first_dealer="random").new_state(seed=seed))
        assert d["dealer"] == dealer
        assert d["hands"][(dealer + 1) % 4] == [deck[0]]


def test_joker_exchange_discards_the_other_joker_and_draws_the_top(engine: str) -> None:
    hands = [["4H", "8H"], ["BB", "5H"], ["2H", "6H"], ["3H", "7H"]]
    state = position(engine, hands, ["LB", "9H", "10H"], dealer=0)
    d = data(state)
    assert d["hands"][1] == ["5H", "9H"]
    assert d["joker_exchange"] == {"seat": 1, "discarded": "BB", "drawn": "9H"}
    assert d["stock"][0] == "10H" and len(d["stock"]) == 44
    assert state.observation(1)["joker_exchange"]["drawn"] == "9H"
    assert "drawn" not in state.observation(3)["joker_exchange"]


def test_joker_exchange_from_the_bottom(engine: str) -> None:
    hands = [["4H", "8H"], ["BB", "5H"], ["2H", "6H"], ["3H", "7H"]]
    state = position(engine, hands, ["LB", "9H"], dealer=0, joker_exchange_draw="bottom")
    d = data(state)
    assert d["hands"][1] == ["5H", "AS"] and d["stock"][0] == "9H" and d["stock"][-1] == "KS"


def test_turn_next_moves_jokers_under_the_stock_in_order(engine: str) -> None:
    hands = [["AS"], ["KS"], ["QS"], ["JS"]]
    state = position(engine, hands, ["LB", "BB", "7D", "8D"], joker_upcard="turn_next")
    d = data(state)
    assert (d["upcard"], d["trump"], d["turned_jokers"]) == ("7D", "D", ["LB", "BB"])
    assert d["stock"][0] == "8D" and d["stock"][-2:] == ["LB", "BB"] and len(d["stock"]) == 49


def test_turn_next_keeps_dealt_jokers_as_top_trumps(engine: str) -> None:
    hands = [["BB", "2C"], ["3C", "4C"], ["5C", "6C"], ["7C", "8C"]]
    state = position(
        engine,
        hands,
        ["LB", "9D"],
        joker_upcard="turn_next",
        actions=("bid board", "bid pass", "bid pass", "bid pass"),
    )
    assert data(state)["hands"][0] == ["2C", "BB"] and data(state)["trump"] == "D"
    assert state.legal_actions() == ["play 2C", "play BB"]  # S0 bid board: exempt


# §5.1 Bidding --------------------------------------------------------------------


def test_each_seat_bids_once_from_the_dealers_left(engine: str) -> None:
    state = game(engine, [4], first_dealer=1).new_state(seed=2)
    seen = []
    for _ in range(4):
        seen.append(state.current_player())
        state.apply("bid 1")
    assert seen == [2, 3, 0, 1]
    assert data(state)["phase"] == "play"


def test_bid_not_above_previous_skips_passes_and_boards(engine: str) -> None:
    state = game(engine, [9], bid_not_above_previous=True).new_state(seed=2)
    for action in ["bid 4", "bid board", "bid pass"]:
        state.apply(action)
    assert state.legal_actions() == ["bid pass", "bid 1", "bid 2", "bid 3", "bid 4", "bid board"]
    with pytest.raises(cardref.IllegalActionError, match="from 1 to 4"):
        state.apply("bid 5")


# §5.2 Play -----------------------------------------------------------------------

LEAD_HANDS = [["2H", "KS", "LB"], ["2C", "3C", "4C"], ["2D", "3D", "4D"], ["5C", "6C", "7C"]]


@pytest.mark.parametrize(
    "rule, s0_bid, s2_bid, leader_hand",
    [
        ("player", "bid 2", "bid pass", ["play KS"]),
        ("player", "bid board", "bid pass", ["play 2H", "play KS", "play LB"]),
        ("player", "bid pass", "bid board", ["play 2H", "play KS", "play LB"]),
        ("none", "bid board", "bid pass", ["play KS"]),
    ],
)
def test_trump_lead_restriction_and_exemptions(
    engine: str, rule: str, s0_bid: str, s2_bid: str, leader_hand: list[str]
) -> None:
    # S2 leads when it bid board and S0 passed; give S2 the test hand then.
    hands = [list(h) for h in LEAD_HANDS]
    leader = 0 if s0_bid != "bid pass" else 2
    hands[0], hands[leader] = hands[leader], hands[0]
    state = position(
        engine,
        hands,
        ["3H"],
        board_trump_lead_exemption=rule,
        actions=(s0_bid, "bid pass", s2_bid, "bid pass"),
    )
    assert state.current_player() == leader
    assert state.legal_actions() == leader_hand
    if len(leader_hand) == 1:
        with pytest.raises(cardref.IllegalActionError, match="trumps may not be led"):
            state.apply("play LB")


def test_follow_suit_when_able_else_anything(engine: str) -> None:
    hands = [["5S", "6C", "7C"], ["BB", "9S", "2D"], ["2S", "3S", "4S"], ["6S", "7S", "8S"]]
    state = position(
        engine, hands, ["2H"], actions=("bid 1", "bid pass", "bid pass", "bid pass", "play 6C")
    )
    assert state.legal_actions() == ["play 2D", "play 9S", "play BB"]
    with pytest.raises(cardref.IllegalActionError, match="not in its hand"):
        state.apply("play 5S")


def test_a_led_blooper_binds_only_the_led_trick(engine: str) -> None:
    # BB played second (not led) lays no obligation on the next player.
    hands = [["5H", "6C", "7C"], ["BB", "9S", "2D"], ["2H", "AH", "4S"], ["6S", "7S", "8S"]]
    state = position(
        engine,
        hands,
        ["3H"],
        actions=("bid board", "bid pass", "bid pass", "bid pass", "play 5H", "play BB"),
    )
    assert state.legal_actions() == ["play 2H", "play AH"]


# §6 Effects --------------------------------------------------------------------


def test_first_leader_prefers_the_last_board_then_the_first_highest_number(engine: str) -> None:
    for bids, leader in [
        (["bid 3", "bid 5", "bid 5", "bid pass"], 1),
        (["bid board", "bid 5", "bid board", "bid 7"], 2),
        (["bid 1", "bid pass", "bid pass", "bid pass"], 0),
    ]:
        state = game(engine, [8], first_dealer=3).new_state(seed=0)
        for b in bids:
            state.apply(b)
        assert state.current_player() == leader, bids


def test_trump_wins_over_the_led_suit_and_breaks_trumps_when_resolved(engine: str) -> None:
    hands = [["QC", "10H", "JH"], ["KC", "5H", "6H"], ["AC", "8H", "9H"], ["2D", "3D", "7H"]]
    state = position(
        engine,
        hands,
        ["4D"],
        dealer=0,
        actions=("bid 1", "bid pass", "bid pass", "bid pass", "play KC", "play AC", "play 2D"),
    )
    assert data(state)["trump_broken"] is False
    state.apply("play QC")
    d = data(state)
    assert d["trump_broken"] is True and d["completed_tricks"][0]["winner"] == 3
    assert state.current_player() == 3


# §7 Scoring ----------------------------------------------------------------------

SPLIT_HANDS = [["AC", "AD", "AH"], ["2C", "2D", "2H"], ["3C", "3D", "3H"], ["4C", "4D", "4H"]]
SWEEP = (
    "play AC",
    "play 2C",
    "play 3C",
    "play 4C",
    "play AD",
    "play 2D",
    "play 3D",
    "play 4D",
    "play AH",
    "play 2H",
    "play 3H",
    "play 4H",
)


@pytest.mark.parametrize(
    "bids, variant, scores",
    [
        (("bid 1", "bid pass", "bid 1", "bid 2"), {}, [11, -10]),
        (
            ("bid 1", "bid pass", "bid 1", "bid 2"),
            {"bid_points_per_trick": 3, "overtrick_points": 2, "set_points_per_bid_trick": 4},
            [8, -8],
        ),
        (("bid board", "bid board", "bid pass", "bid board"), {}, [30, -90]),
        (
            ("bid board", "bid board", "bid pass", "bid board"),
            {"board_multiplier": "doubling", "board_points_per_trick": 6},
            [18, -72],
        ),
        (("bid pass", "bid pass", "bid 3", "bid pass"), {"bid_cap": "hand_size"}, [15, 0]),
    ],
)
def test_deal_scoring(
    engine: str, bids: tuple[str, ...], variant: dict[str, Any], scores: list[int]
) -> None:
    # S0 holds the three aces; everyone must follow suit, so team 0 takes all
    # three tricks whoever leads and whichever legal card is played.
    state = position(engine, SPLIT_HANDS, ["2S"], actions=bids, **variant)
    while not state.is_terminal():
        state.apply(state.legal_actions()[0])
    assert state.observation(0)["deals"][0]["tricks"] == [3, 0]
    assert state.scores() == [scores[0], scores[1], scores[0], scores[1]]


def test_team_0_takes_every_trick_in_the_sweep(engine: str) -> None:
    state = position(
        engine, SPLIT_HANDS, ["2S"], actions=("bid 2", "bid pass", "bid pass", "bid pass", *SWEEP)
    )
    assert state.scores() == [11, 0, 11, 0]  # contract 2, took 3: 5*2 + 1
    assert state.placements() == [1, 3, 1, 3]


def test_scores_hold_completed_deals_only(engine: str) -> None:
    state = position(
        engine,
        SPLIT_HANDS,
        ["2S"],
        actions=("bid 2", "bid pass", "bid pass", "bid pass", *SWEEP[:8]),
    )
    assert state.scores() == [0, 0, 0, 0]
    assert state.observation(1)["tricks_won"] == [2, 0, 0, 0]


# State JSON ----------------------------------------------------------------------


def test_observation_shows_own_hand_and_public_facts_only(engine: str) -> None:
    state = game(engine).new_state(seed=3)
    state.apply("bid 2")
    obs = state.observation(2)
    assert obs["hand"] == data(state)["hands"][2]
    assert "hands" not in obs and "stock" not in obs and "rng" not in obs
    assert obs["stock_size"] == len(data(state)["stock"])
    assert obs["actions"] == ["bid 2"] and obs["bids"] == [[1, "2"]]


@pytest.mark.parametrize(
    "change",
    [
        {"to_act": 2},
        {"trump": "none"},
        {"upcard": "LB"},
        {"hand_size": 12},
        {"tricks_won": [1, 0, 0, 0]},
        {"bids": [[2, "pass"]]},
        {"bids": [[1, "13"]]},
        {"result": "draw"},
        {"rng": -1},
        {"phase": "play"},
    ],
)
def test_inconsistent_states_are_rejected(engine: str, change: dict[str, Any]) -> None:
    state = game(engine).new_state(seed=0, deck=list(CANONICAL))  # upcard BB, LB in the stock
    if "trump" in change:
        deck = [*CANONICAL[1:53], "2C", "LB"]  # upcard 2C
        state = game(engine).new_state(seed=0, deck=deck)
    with pytest.raises(cardref.InvalidStateError):
        reload(engine, state, **change)


def test_moved_or_duplicated_cards_are_rejected(engine: str) -> None:
    state = game(engine).new_state(seed=8)
    d = data(state)
    for edit in ("duplicate", "unsorted"):
        bad = json.loads(json.dumps(d))
        if edit == "duplicate":
            bad["hands"][0][0] = bad["hands"][1][0]
        else:
            bad["hands"][0].reverse()
        with pytest.raises(cardref.InvalidStateError):
            game(engine).state_from_json(json.dumps(bad))


def test_json_round_trip_mid_trick(engine: str) -> None:
    state = position(
        engine,
        SPLIT_HANDS,
        ["2S"],
        actions=("bid 2", "bid pass", "bid pass", "bid pass", *SWEEP[:6]),
    )
    again = reload(engine, state)
    assert again.to_json() == state.to_json()
    assert again.legal_actions() == state.legal_actions() == ["play 3D"]


# The heuristic bot -------------------------------------------------------------


def test_heuristic_bot_plays_legal_actions_and_beats_random() -> None:
    """The bot's partnership (alternating teams) beats uniform random play."""
    bot, margins = Bot(), []
    for seed in range(4):
        state = game("rust", "1-13-1").new_state(seed=seed)
        chooser, team = random.Random(seed), seed % 2
        while not state.is_terminal():
            seat, legal = state.current_player(), state.legal_actions()
            if seat % 2 == team:
                action = bot.act(state.observation(seat), legal)
                assert action in legal
            else:
                action = chooser.choice(legal)
            state.apply(action)
        margins.append(state.scores()[team] - state.scores()[1 - team])
    assert all(m > 0 for m in margins), margins
