"""Twenty-Two rule unit tests, in the order of the reference module (§1-2, §8,
§4, §5, §6, §7, JSON). Positions are built as state JSON and loaded into either
engine, so each test pins one rule on both."""

from __future__ import annotations

import json
import random
from typing import Any, Optional

import pytest

import cardref
from cardref.bots.heuristic.twenty_two import Bot
from cardref.reference import twenty_two

ENGINES = ["rust", "reference"]
RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
CANONICAL = [r + s for s in "CDHS" for r in RANKS]
GOLDEN_GAMMA = 0x9E3779B97F4A7C15


def order(card: str) -> tuple[int, int]:
    return (RANKS.index(card[:-1]), "CDHS".index(card[-1]))


def base(engine: str, players: int, **variant: Any) -> tuple[Any, dict[str, Any]]:
    game = cardref.load("twenty_two", players, engine=engine, **variant)
    return game, json.loads(game.new_state(seed=0).to_json())


def load(game: Any, data: dict[str, Any]) -> Any:
    """Fill the stock with every card not placed elsewhere, then load."""
    placed = {c for key in ("hands", "discards", "score_piles") for cs in data[key] for c in cs}
    for trick in data["tricks"] + ([data["trick"]] if data["trick"] else []):
        placed |= {c for _, cs in trick["plays"] for c in cs}
    data["stock"] = [c for c in CANONICAL if c not in placed]
    data["scores"] = [sum(value(c) for c in pile) for pile in data["score_piles"]]
    for key in ("hands", "score_piles"):
        data[key] = [sorted(cards, key=order) for cards in data[key]]
    return game.state_from_json(json.dumps(data))


def value(card: str) -> int:
    rank = card[:-1]
    return 11 if rank == "A" else 10 if rank in ("J", "Q", "K") else int(rank)


def play_position(
    engine: str,
    hands: list[list[str]],
    plays: Optional[list[list[Any]]] = None,
    bar: Optional[list[Any]] = None,
    leader: int = 0,
    piles: Optional[list[list[str]]] = None,
    **variant: Any,
) -> Any:
    """A play-phase position: ``plays`` so far in the trick, ``bar`` = [cards, holder]."""
    players = len(hands)
    game, data = base(engine, players, **variant)
    plays = plays or []
    data.update(
        hands=hands,
        discards=[[] for _ in hands],
        score_piles=piles or [[] for _ in hands],
        phase="play",
        to_act=(leader + len(plays)) % players,
        deal_size=len(hands[(leader + len(plays)) % players]),  # no trick completed yet
        trick={"leader": leader, "plays": plays, "bar": bar[0] if bar else [],
               "bar_holder": bar[1] if bar else None},
    )
    return load(game, data)


def discard_position(engine: str, hands: list[list[str]], to_act: int = 0) -> Any:
    game, data = base(engine, len(hands), first_dealer=len(hands) - 1)
    data.update(hands=hands, discards=[[] for _ in hands], to_act=to_act,
                deal_size=len(hands[0]))
    return load(game, data)


# §1-2 Cards --------------------------------------------------------------------------


def test_card_order_and_values_tt19() -> None:
    assert twenty_two.canonical_deck(4, {}) == CANONICAL
    assert [twenty_two.value_of(c) for c in ["2H", "9C", "10D", "JS", "QS", "KH", "AC"]] == [
        2, 9, 10, 10, 10, 10, 11]
    assert sorted(["10C", "9D", "AS", "JC", "2S"], key=twenty_two.play_order) == [
        "2S", "9D", "10C", "JC", "AS"]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(("card", "points"), [("AS", 11), ("KS", 10), ("JS", 10), ("10S", 10),
                                              ("9S", 9), ("2S", 2)])
def test_final_trick_scores_the_card_value_tt19(engine: str, card: str, points: int) -> None:
    state = play_position(engine, [[], [card]], plays=[[0, ["2C"]]], bar=[["2C"], 0])
    state.apply(f"play {card}")
    assert state.scores() == ([2, 2] if card == "2S" else [0, points])  # two 2s tie


# §8 Variants -----------------------------------------------------------------------------


@pytest.mark.parametrize("engine", ENGINES)
def test_defaults_fill_every_key(engine: str) -> None:
    game = cardref.load("twenty_two", 4, engine=engine)
    assert game.params == {
        "first_dealer": 0, "first_hand_size": 7, "elimination_score": 22,
        "follow_rule": "free_choice", "last_trick_tie": "all_tied_score", "tied_dealer": "last",
    }
    assert cardref.load("twenty_two", 4, engine=engine, first_dealer="random").params[
        "first_dealer"] == "random"


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(
    "variant",
    [{"first_dealer": -1}, {"first_dealer": 6}, {"first_dealer": "Random"}, {"first_dealer": 1.0},
     {"first_dealer": False}, {"first_hand_size": 1}, {"first_hand_size": 9},
     {"first_hand_size": "7"}, {"elimination_score": 1}, {"elimination_score": 31},
     {"follow_rule": "beat"}, {"last_trick_tie": None}, {"tied_dealer": "middle"},
     {"tied_dealer": "first", "last_trick_tie": "first_played_wins"}, {"dealer": 0}],
)
def test_bad_variants_are_rejected(engine: str, variant: dict[str, Any]) -> None:
    with pytest.raises(cardref.InvalidParamsError):
        cardref.load("twenty_two", 6, engine=engine, **variant)


# §4 Setup, deal, dealer, leader ---------------------------------------------------------------


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
@pytest.mark.parametrize("size", [2, 7, 8])
def test_first_deal_is_first_hand_size_tt21(engine: str, players: int, size: int) -> None:
    state = cardref.load("twenty_two", players, engine=engine, first_hand_size=size).new_state(9)
    data = json.loads(state.to_json())
    assert [len(h) for h in data["hands"]] == [size] * players
    assert len(data["stock"]) == 52 - size * players
    assert state.current_player() == 1 % players  # the dealer (seat 0) discards last


@pytest.mark.parametrize("engine", ENGINES)
def test_explicit_deck_uses_no_generator_call(engine: str) -> None:
    state = cardref.load("twenty_two", 3, engine=engine).new_state(seed=77, deck=CANONICAL)
    data = json.loads(state.to_json())
    assert data["rng"] == 77
    # Deck cards 0, 3, 6, ... go to seat 1 (the dealer's left).
    assert data["hands"][1] == ["2C", "4D", "5C", "7D", "8C", "JC", "AC"]


@pytest.mark.parametrize("engine", ENGINES)
def test_random_dealer_is_one_generator_call_tt4(engine: str) -> None:
    game = cardref.load("twenty_two", 3, engine=engine, first_dealer="random")
    data = json.loads(game.new_state(seed=0, deck=CANONICAL).to_json())
    assert data["rng"] == GOLDEN_GAMMA  # one output drawn: 0xE220A8397B1DCDAF = 1 mod 3
    assert data["dealer"] == 1


@pytest.mark.parametrize("engine", ENGINES)
def test_deal_skips_an_eliminated_dealer_tt17(engine: str) -> None:
    state = play_position(engine, [[], ["3C"], ["2D"]], plays=[[0, ["AS"]]], bar=[["AS"], 0],
                          piles=[["KC", "5H"], [], []])
    state.apply("play 3C")
    state.apply("play 2D")  # S0 scores AS: 15 + 11 = 26, out; it deals hand 2 anyway
    data = json.loads(state.to_json())
    assert data["active"] == [False, True, True] and data["dealer"] == 0
    assert [len(h) for h in data["hands"]] == [0, 11, 11]
    assert data["deal_size"] == 11 and len(data["stock"]) == 52 - 3 - 22
    assert state.current_player() == 1


# §5.1 Discard phase --------------------------------------------------------------------------


@pytest.mark.parametrize("engine", ENGINES)
def test_discard_options_by_size_then_card_by_card(engine: str) -> None:
    state = discard_position(engine, [["10D", "9C", "10C"], ["2C", "3C", "4C"]])
    assert state.legal_actions() == [
        "discard", "discard 9C", "discard 10C", "discard 10D", "discard 9C 10C",
        "discard 9C 10D", "discard 10C 10D", "discard 9C 10C 10D"]


@pytest.mark.parametrize("engine", ENGINES)
def test_discard_draws_from_the_top_and_is_hidden(engine: str) -> None:
    state = discard_position(engine, [["10D", "9C", "10C"], ["2C", "3C", "4C"]])
    stock = json.loads(state.to_json())["stock"]
    state.apply("discard 10C 9C")
    mine, theirs = state.observation(0), state.observation(1)
    assert mine["hand"] == sorted(["10D", *stock[:2]], key=order)
    assert mine["my_discards"] == ["9C", "10C"] and theirs["my_discards"] == []
    assert theirs["discard_counts"] == [2, 0] and theirs["stock_size"] == len(stock) - 2
    assert "9C" not in json.dumps(theirs) and "10C" not in json.dumps(theirs)


# §5.2 Play phase ----------------------------------------------------------------------------


@pytest.mark.parametrize("engine", ENGINES)
def test_lead_options_by_rank_then_size_then_suits_tt6(engine: str) -> None:
    state = play_position(engine, [["9S", "5D", "9C", "5H"], ["2C", "3C", "4C", "6C"]])
    assert state.legal_actions() == [
        "play 5D", "play 5H", "play 5D 5H", "play 9C", "play 9S", "play 9C 9S"]


def test_beats_or_equals_is_a_partial_order_tt7() -> None:
    beats = twenty_two.State.beats_or_equals
    assert beats(["7D", "6H"], ["6C", "6D"]) and beats(["6S", "6H"], ["6C", "6D"])
    assert not beats(["2S", "9H"], ["6C", "6D"]) and not beats(["6C", "6D"], ["2S", "9H"])
    assert beats(["QS", "KS", "AS"], ["JS", "QC", "QD"])


def test_lowest_set_is_by_rank_any_suit_tt10() -> None:
    hand = ["3C", "3D", "9S", "2H"]
    assert twenty_two.State.is_lowest_set(["2H", "3D"], hand)
    assert twenty_two.State.is_lowest_set(["3C", "2H"], hand)
    assert not twenty_two.State.is_lowest_set(["2H", "9S"], hand)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(("rule", "legal"), [
    ("free_choice", ["play 2S 3D", "play 7D 9C"]),
    ("lowest_only_if_cannot_beat", ["play 7D 9C"]),
])
def test_follow_rule_tt11(engine: str, rule: str, legal: list[str]) -> None:
    state = play_position(engine, [["2C", "QC"], ["2S", "3D", "7D", "9C"]],
                          plays=[[0, ["6C", "6D"]]], bar=[["6C", "6D"], 0], follow_rule=rule)
    assert state.legal_actions() == legal


@pytest.mark.parametrize("engine", ENGINES)
def test_cannot_beat_means_lowest_even_under_the_variant(engine: str) -> None:
    state = play_position(engine, [["2C"], ["2S", "3D"]], plays=[[0, ["KC"]]], bar=[["KC"], 0],
                          follow_rule="lowest_only_if_cannot_beat")
    assert state.legal_actions() == ["play 2S"]


# §6 Effects ------------------------------------------------------------------------------------


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(("second", "played", "holder"), [
    ("7D", "play 7D", 1), ("7D", "play 2S", 0), ("KH", "play KH", 1)])
def test_bar_moves_only_to_a_set_that_meets_it_tt8_tt9(
    engine: str, second: str, played: str, holder: int
) -> None:
    state = play_position(engine, [["3C"], ["2S", second], ["4C", "5C"]],
                          plays=[[0, ["7C"]]], bar=[["7C"], 0])
    state.apply(played)
    assert state.observation(2)["trick"]["bar_holder"] == holder


@pytest.mark.parametrize("engine", ENGINES)
def test_the_holder_wins_and_leads_the_next_trick(engine: str) -> None:
    state = play_position(engine, [["3C", "4C"], ["2S", "8D", "KH"], ["4D", "5D", "6D"]],
                          plays=[[0, ["7C"]]], bar=[["7C"], 0])
    state.apply("play 8D")
    state.apply("play 4D")
    obs = state.observation(0)
    assert obs["tricks"][-1]["winner"] == 1 and state.current_player() == 1
    assert obs["trick"] == {"leader": 1, "plays": [], "bar": [], "bar_holder": None}


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(("tie", "dealer_rule", "scores", "dealer"), [
    ("all_tied_score", "last", [10, 0, 10], 2),
    ("all_tied_score", "first", [10, 0, 10], 0),
    ("last_played_wins", "last", [0, 0, 10], 2),
    ("first_played_wins", "last", [10, 0, 0], 0),
])
def test_final_trick_ties_tt14_tt15(engine: str, tie: str, dealer_rule: str,
                                    scores: list[int], dealer: int) -> None:
    state = play_position(engine, [[], ["9H"], ["KS"]], plays=[[0, ["KD"]]], bar=[["KD"], 0],
                          last_trick_tie=tie, tied_dealer=dealer_rule)
    state.apply("play 9H")
    state.apply("play KS")
    obs = state.observation(1)
    assert state.scores() == scores and obs["dealer"] == dealer
    assert obs["target_size"] == 10 and obs["hand_number"] == 2


@pytest.mark.parametrize("engine", ENGINES)
def test_pool_excludes_every_score_pile_tt3(engine: str) -> None:
    state = play_position(engine, [[], ["4H"], ["2D"]], plays=[[0, ["3C"]]], bar=[["3C"], 0],
                          piles=[["5C"], ["KD", "9C"], ["8S"]])
    state.apply("play 4H")
    state.apply("play 2D")  # S1 scores 4H: 23, out; pool 52 - 5 = 47, two left, target 4
    data = json.loads(state.to_json())
    assert data["deal_size"] == 4 and len(data["stock"]) == 47 - 8
    assert not {"5C", "KD", "9C", "8S", "4H"} & set(data["stock"])


# §7 Hand end, game end, placements -------------------------------------------------------------


@pytest.mark.parametrize("engine", ENGINES)
def test_equal_lowest_scores_share_the_win_tt18(engine: str) -> None:
    state = play_position(engine, [[], ["AD"]], plays=[[0, ["AC"]]], bar=[["AC"], 0],
                          piles=[["QC", "2D"], ["QH", "2H"]])
    state.apply("play AD")
    assert state.is_terminal() and state.scores() == [23, 23]
    assert state.placements() == [1, 1]


@pytest.mark.parametrize("engine", ENGINES)
def test_elimination_score_variant_tt16(engine: str) -> None:
    state = play_position(engine, [[], ["5D"]], plays=[[0, ["4C"]]], bar=[["4C"], 0],
                          elimination_score=5)
    state.apply("play 5D")
    assert state.is_terminal() and state.placements() == [1, 2]
    assert state.legal_actions() == [] and state.current_player() is None


# Actions, observation and JSON -----------------------------------------------------------------


@pytest.mark.parametrize("engine", ENGINES)
def test_cards_in_any_order_are_accepted_and_written_canonically(engine: str) -> None:
    state = play_position(engine, [["9S", "5D", "9C", "5H"], ["2C", "3C", "4C", "6C"]])
    state.apply("play 9S 9C")
    assert state.history()[-1] == "play 9C 9S"


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("action", ["play 9C 9C", "play 9c", "play 9C  9S", "play 09C",
                                    "play 9C 9S 5D", "discard 9C", "play 10", "play X9C"])
def test_bad_actions_leave_the_state_unchanged(engine: str, action: str) -> None:
    state = play_position(engine, [["9S", "5D", "9C", "5H"], ["2C", "3C", "4C", "6C"]])
    before = state.to_json()
    with pytest.raises(cardref.IllegalActionError):
        state.apply(action)
    assert state.to_json() == before


@pytest.mark.parametrize("engine", ENGINES)
def test_observation_holds_only_public_fields_and_own_cards(engine: str) -> None:
    state = cardref.load("twenty_two", 3, engine=engine).new_state(seed=4)
    obs = state.observation(2)
    assert set(obs) == {
        "game", "seat", "players", "params", "hand_number", "dealer", "target_size", "deal_size",
        "phase", "to_act", "active", "out_hand", "score_piles", "scores", "hand", "stock_size",
        "discard_counts", "my_discards", "trick", "tricks", "last_trick"}
    data = json.loads(state.to_json())
    assert obs["hand"] == data["hands"][2]
    hidden = set(data["stock"]) | set(data["hands"][0]) | set(data["hands"][1])
    assert not hidden & set(json.dumps(obs).replace('"', " ").replace(",", " ").split())


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("change", [
    {"scores": [1, 0, 0]}, {"phase": "deal"}, {"out_hand": [1, 0, 0]}, {"to_act": 3},
    {"stock": []}, {"hand_number": 0}, {"deal_size": 12}, {"trick": {"leader": 0}},
    {"active": [True, True, 1]}, {"hands": [["2C", "2C"], [], []]},
])
def test_inconsistent_states_are_rejected(engine: str, change: dict[str, Any]) -> None:
    game = cardref.load("twenty_two", 3, engine=engine)
    data = json.loads(game.new_state(seed=2).to_json())
    data.update(change)
    with pytest.raises(cardref.InvalidStateError):
        game.state_from_json(json.dumps(data))


# The heuristic bot ------------------------------------------------------------------------------


def test_heuristic_bot_plays_legally_and_beats_random() -> None:
    wins = 0
    for i in range(20):
        state = cardref.load("twenty_two", 3).new_state(seed=500 + i)
        chooser, bot_seat = random.Random(i), i % 3
        while not state.is_terminal():
            seat, legal = state.current_player(), state.legal_actions()
            action = Bot().act(state.observation(seat), legal) if seat == bot_seat else (
                chooser.choice(legal))
            assert action in legal
            state.apply(action)
        wins += state.placements()[bot_seat] == 1
    assert wins >= 14  # a random seat wins about 1 game in 3


# Whole games --------------------------------------------------------------------------------------


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("players", [2, 4, 6])
def test_scores_only_grow_and_eliminated_seats_never_act(engine: str, players: int) -> None:
    game = cardref.load("twenty_two", players, engine=engine, elimination_score=12,
                        first_dealer="random")
    for seed in range(4):
        state, chooser = game.new_state(seed=seed), random.Random(seed)
        scores, out = state.scores(), [0] * players
        while not state.is_terminal():
            assert out[state.current_player()] == 0, "an eliminated seat is asked to act"
            state.apply(chooser.choice(state.legal_actions()))
            now = state.observation(0)
            assert all(a <= b for a, b in zip(scores, now["scores"])), (scores, now["scores"])
            assert all(o in (0, n) for o, n in zip(out, now["out_hand"])), "out_hand changed"
            scores, out = now["scores"], now["out_hand"]
        assert sum(o == 0 for o in out) <= 1
