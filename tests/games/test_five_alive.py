"""Rule unit tests for 5 Alive, in the order of ``cardref/reference/five_alive.py``.

Each test builds a small position (hands, piles and fields patched into a fresh
state's JSON; the cards not named go to the draw pile or a spare hand so the
deck stays whole) and runs it on both engines.
"""

from __future__ import annotations

import json
import random
from typing import Any, Optional

import pytest

import cardref
from cardref.bots.heuristic.five_alive import Bot
from cardref.reference import five_alive as ref
from cardref.rng import SplitMix64
from scenario_runner import SCENARIO_ROOT, load_scenario

ENGINES = ["rust", "reference"]
CANONICAL = ref.canonical_deck(2, {"deck_profile": "hasbro77"})


def load(engine: str, players: int, **variant: Any) -> Any:
    return cardref.load("five_alive", players, engine=engine, **variant)


def remaining(*used: list[str]) -> list[str]:
    """The canonical deck minus the cards named."""
    rest = list(CANONICAL)
    for group in used:
        for card in group:
            rest.remove(card)
    return rest


def position(engine: str, players: int, hands: list[list[str]], *,
             draw: Optional[list[str]] = None, discard: Optional[list[str]] = None,
             spare: int = 0, variant: Optional[dict[str, Any]] = None, **fields: Any) -> Any:
    """A state with these hands and piles; unnamed cards go to the draw pile, or to
    the end of hand ``spare`` when the draw pile is given exactly."""
    game = load(engine, players, **(variant or {}))
    data = json.loads(game.new_state(seed=0, deck=list(CANONICAL)).to_json())
    hands = [list(h) for h in hands]
    discard = discard or []
    rest = remaining(*hands, discard, draw or [])
    if draw is None:
        draw = rest
    else:
        hands[spare] += rest
    data.update({"rng": 0, **fields, "hands": hands, "draw_pile": draw, "discard_pile": discard})
    return game.state_from_json(json.dumps(data))


def data(state: Any) -> dict[str, Any]:
    return json.loads(state.to_json())


# §1-2 Cards ------------------------------------------------------------------------


@pytest.mark.parametrize("engine", ENGINES)
def test_profiles_hold_77_and_75_cards(engine: str) -> None:
    """FA-1: alt75 trades four Reverse for two Skip; an explicit deck must match."""
    alt = ref.canonical_deck(2, {"deck_profile": "alt75"})
    assert len(CANONICAL) == 77 and len(alt) == 75
    assert (CANONICAL.count("REV"), CANONICAL.count("SKIP")) == (6, 4)
    assert (alt.count("REV"), alt.count("SKIP")) == (2, 6)
    load(engine, 2, deck_profile="alt75").new_state(deck=alt)
    with pytest.raises(cardref.InvalidDeckError):
        load(engine, 2).new_state(deck=alt)


# §8 Variants -------------------------------------------------------------------------


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(("players", "variant"), [
    (7, {}),
    (8, {"allow_seven_players": True}),
    (1, {}),
    (5, {"team_play": True}),
    (4, {"team_play": True, "sudden_death": True}),
    (3, {"first_dealer": 3}),
    (6, {"hand_size": 13}),
    (2, {"hand_size": 0}),
    (2, {"lives": True}),
    (2, {"lives": "5"}),
    (2, {"lives": 0}),
    (2, {"max_actions": 0}),
    (2, {"deck_profile": "hasbro78"}),
    (2, {"bomb_response": "sometimes"}),
    (2, {"sudden_death": 1}),
    (2, {"n_players": 2}),
])
def test_bad_configurations_are_rejected(engine: str, players: int, variant: dict) -> None:
    with pytest.raises(cardref.InvalidParamsError):
        load(engine, players, **variant)


@pytest.mark.parametrize("engine", ENGINES)
def test_every_key_has_its_default(engine: str) -> None:
    assert load(engine, 3).params == {
        "allow_seven_players": False, "deck_profile": "hasbro77", "lives": 5, "hand_size": 10,
        "first_dealer": 0, "reset_direction_each_round": True, "allow_voluntary_flip": False,
        "flip_ends_turn": True, "bomb_response": "forced",
        "redeal_deal_order": "clockwise_from_left", "sudden_death": False, "team_play": False,
        "team_wilds_hit_teammates": True, "max_actions": 10000,
    }


# §4 Setup, deal and who starts -----------------------------------------------------------


@pytest.mark.parametrize("engine", ENGINES)
def test_deal_starts_left_of_the_dealer(engine: str) -> None:
    """§4.2: one card at a time from the dealer's left; the rest is the draw pile."""
    state = load(engine, 3, first_dealer=1).new_state(deck=list(CANONICAL))
    d = data(state)
    assert d["hands"][2] == CANONICAL[0:30:3]
    assert d["hands"][0] == CANONICAL[1:30:3]
    assert d["draw_pile"] == CANONICAL[30:]
    assert state.current_player() == 2 and d["rng"] == 0


@pytest.mark.parametrize("engine", ENGINES)
def test_seeded_first_deal_is_the_generators_shuffle(engine: str) -> None:
    deck = list(CANONICAL)
    SplitMix64(42).shuffle(deck)
    d = data(load(engine, 2).new_state(seed=42))
    assert d["hands"] == [deck[1:20:2], deck[0:20:2]]
    assert d["draw_pile"] == deck[20:]


# §5 Legal actions -------------------------------------------------------------------------


@pytest.mark.parametrize("engine", ENGINES)
def test_legal_actions_in_kind_order_without_duplicates(engine: str) -> None:
    hands = [["BOMB", "5", "=0", "0", "5", "D1", "7"], ["1"], ["2"]]
    state = position(engine, 3, hands, current=0, total=15)
    assert state.legal_actions() == ["play 0", "play 5", "play D1", "play =0", "play BOMB"]


@pytest.mark.parametrize("engine", ENGINES)
def test_illegal_actions_name_the_reason_and_change_nothing(engine: str) -> None:
    state = position(engine, 3, [["7", "1"], ["1"], ["2"]], current=0, total=15)
    before = state.to_json()
    for action, reason in [("play 7", "over 21"), ("play 2", "not in its hand"),
                           ("flip", "can play"), ("decline", "no Bomb"),
                           ("play 8", "five_alive"), ("play  1", "five_alive")]:
        with pytest.raises(cardref.IllegalActionError, match=reason):
            state.apply(action)
        assert state.to_json() == before


@pytest.mark.parametrize("engine", ENGINES)
def test_voluntary_flip_is_listed_last(engine: str) -> None:
    state = position(engine, 3, [["1"], ["1"], ["2"]], current=0,
                     variant={"allow_voluntary_flip": True})
    assert state.legal_actions() == ["play 1", "flip"]


# §6.2 Card effects ---------------------------------------------------------------------------


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(("card", "total"), [("6", 17), ("=21", 21), ("=10", 10), ("=0", 0),
                                             ("PASS", 11), ("REV", 11), ("SKIP", 11)])
def test_effects_on_the_total(engine: str, card: str, total: int) -> None:
    state = position(engine, 4, [[card, "1"], ["1"], ["2"], ["3"]], current=0, total=11)
    state.apply(f"play {card}")
    assert data(state)["total"] == total


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(("card", "direction", "nxt"), [
    ("PASS", 1, 1), ("REV", 1, 3), ("SKIP", 1, 2), ("SKIP", -1, 2), ("REV", -1, 1),
])
def test_who_plays_next(engine: str, card: str, direction: int, nxt: int) -> None:
    state = position(engine, 4, [[card, "1"], ["1"], ["2"], ["3"]], current=0, dir=direction)
    state.apply(f"play {card}")
    assert state.current_player() == nxt


@pytest.mark.parametrize("engine", ENGINES)
def test_draw_two_goes_round_in_the_direction_of_play(engine: str) -> None:
    """FA-16: with dir = -1 seat 2 draws both its cards before seat 1 does."""
    state = position(engine, 3, [["D2", "1"], ["5"], ["6"]], draw=["0", "1", "2", "3"], spare=0,
                     current=0, dir=-1)
    state.apply("play D2")
    d = data(state)
    assert d["hands"][2] == ["6", "0", "1"] and d["hands"][1] == ["5", "2", "3"]
    assert state.current_player() == 2


# §6.3-6.4 Drawing and rebuilding the draw pile --------------------------------------------------


@pytest.mark.parametrize("engine", ENGINES)
def test_rebuild_shuffles_the_discards_under_the_top(engine: str) -> None:
    discard = ["7", "=10", "2", "4", "3"]
    state = position(engine, 3, [["D1", "1"], ["5"], ["6"]], draw=[], discard=discard, spare=0,
                     current=0, rng=99)
    state.apply("play D1")
    rebuilt = list(discard)  # bottom first; the D1 just played stays on top
    generator = SplitMix64(99)
    generator.shuffle(rebuilt)
    d = data(state)
    assert d["hands"][1] == ["5", rebuilt[0]] and d["hands"][2] == ["6", rebuilt[1]]
    assert d["draw_pile"] == rebuilt[2:] and d["discard_pile"] == ["D1"]
    assert d["rng"] == generator.state


# §6.5 Redeal -------------------------------------------------------------------------------------


@pytest.mark.parametrize("engine", ENGINES)
def test_redeal_evens_out_the_hands(engine: str) -> None:
    """FA-13: 8 cards over 3 players from seat 1: sizes 3, 3, 2 in dealing order."""
    hands = [["REDEAL", "=21", "1"], ["BOMB"], ["4", "5", "6", "7", "0"]]
    state = position(engine, 3, hands, current=0, total=9, rng=7)
    state.apply("play REDEAL")
    gathered = sorted(["=21", "1", "BOMB", "4", "5", "6", "7", "0"], key=ref.kind_order)
    SplitMix64(7).shuffle(gathered)
    d = data(state)
    assert d["hands"] == [gathered[2::3], gathered[0::3], gathered[1::3]]
    assert d["total"] == 0 and d["discard_pile"] == ["REDEAL"]


# §6.6 Bomb ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("engine", ENGINES)
def test_optional_bomb_goes_on_after_an_elimination(engine: str) -> None:
    """§6.6: a responder eliminated by declining drops out; the others still answer,
    and the game-over check waits for the last answer."""
    state = position(engine, 4, [["BOMB", "1"], ["0"], ["0", "2"], ["3"]], current=0,
                     lives=[5, 1, 1, 5], variant={"bomb_response": "optional"})
    state.apply("play BOMB")
    state.apply("decline")
    assert state.current_player() == 2 and data(state)["pending_bomb"]["eliminated"] == [1]
    state.apply("decline")
    assert state.legal_actions() == ["decline"]
    state.apply("decline")
    d = data(state)
    assert d["elimination_log"] == [[1, 2]] and d["lives"] == [5, 0, 0, 4]
    assert state.current_player() == 3 and d["phase"] == "play"


@pytest.mark.parametrize("engine", ENGINES)
def test_cap_during_an_optional_bomb_keeps_its_losses(engine: str) -> None:
    state = position(engine, 3, [["BOMB", "1"], ["1"], ["2"]], current=0, lives=[5, 1, 5],
                     variant={"bomb_response": "optional", "max_actions": 2})
    state.apply("play BOMB")
    state.apply("decline")
    d = data(state)
    assert d["result"] == {"reason": "CAP", "ranking": [[0, 2], [1]]}
    assert d["pending_bomb"] is None and state.placements() == [1, 3, 1]


# §6.7-6.8 Losing a life and flipping -----------------------------------------------------------


@pytest.mark.parametrize("engine", ENGINES)
def test_team_lives_stop_at_zero(engine: str) -> None:
    """Three failed answers against a team with one life: the team is at 0, not below."""
    state = position(engine, 6, [["BOMB", "1"], ["1"], ["2"], ["3"], ["4"], ["5"]], current=0,
                     team_lives=[5, 1], variant={"team_play": True})
    state.apply("play BOMB")
    assert data(state)["team_lives"] == [3, 0]
    assert state.placements() == [1, 4, 1, 4, 1, 4]


# §7.1 Round end --------------------------------------------------------------------------------


@pytest.mark.parametrize("engine", ENGINES)
def test_new_dealer_is_the_first_out_from_the_actor(engine: str) -> None:
    """FA-12: the bomber keeps cards; the responders who go out are seats 3 and 1;
    walking from seat 2 clockwise meets 3 first, so seat 3 deals round 2."""
    hands = [["0", "1"], ["0"], ["BOMB", "5"], ["0"]]
    state = position(engine, 4, hands, current=2)
    state.apply("play BOMB")
    d = data(state)
    assert d["round"] == 2 and d["dealer"] == 3 and state.current_player() == 0
    assert d["lives"] == [4, 5, 4, 5]


# §7.3-7.5 Game end and ranking ------------------------------------------------------------------


@pytest.mark.parametrize("engine", ENGINES)
def test_last_standing_ranks_later_eliminations_higher(engine: str) -> None:
    state = position(engine, 3, [["7", "6"], ["BOMB", "2"], ["3"]], current=0, total=20,
                     lives=[1, 3, 1])
    state.apply("flip")
    assert state.current_player() == 1
    state.apply("play BOMB")
    assert data(state)["result"] == {"reason": "LAST_STANDING", "ranking": [[1], [2], [0]]}
    assert state.placements() == [3, 1, 2]


@pytest.mark.parametrize("engine", ENGINES)
def test_cap_ranks_by_lives_with_ties_shared(engine: str) -> None:
    state = position(engine, 4, [["1", "1"], ["2"], ["3"], ["4"]], current=0,
                     lives=[3, 4, 3, 1], variant={"max_actions": 1})
    state.apply("play 1")
    assert state.placements() == [2, 1, 2, 4]


# Observation and JSON --------------------------------------------------------------------------


@pytest.mark.parametrize("engine", ENGINES)
def test_observation_holds_only_what_the_seat_may_know(engine: str) -> None:
    state = load(engine, 3).new_state(seed=5)
    seen = state.observation(1)
    assert "hands" not in seen and "draw_pile" not in seen and "rng" not in seen
    assert seen["hand"] == data(state)["hands"][1]
    assert seen["hand_sizes"] == [10, 10, 10] and seen["draw_size"] == 47


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("change", [
    {"total": 22}, {"dir": 0}, {"current": 5}, {"phase": "bidding"}, {"lives": [5, 5]},
    {"team_lives": [5, 5]}, {"action_count": 3}, {"pending_bomb": {"bomber": 0}},
    {"hands": [["0"], ["0"], ["0"]]}, {"draw_pile": ["0"] * 77}, {"discard_pile": ["X"]},
    {"elimination_log": [[1]]}, {"result": {"reason": "CAP", "ranking": [[0]]}},
])
def test_inconsistent_states_are_rejected(engine: str, change: dict[str, Any]) -> None:
    game = load(engine, 3)
    d = data(game.new_state(seed=1))
    d.update(change)
    with pytest.raises(cardref.InvalidStateError):
        game.state_from_json(json.dumps(d))


@pytest.mark.parametrize("engine", ENGINES)
def test_eliminated_seat_with_cards_is_rejected(engine: str) -> None:
    with pytest.raises(cardref.InvalidStateError):
        position(engine, 3, [["1"], ["2"], ["3"]], lives=[5, 0, 5], elimination_log=[[1]])


# Properties over whole games ----------------------------------------------------------------------


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("variant", [{}, {"bomb_response": "optional", "lives": 2},
                                     {"sudden_death": True, "hand_size": 4},
                                     {"flip_ends_turn": False, "allow_voluntary_flip": True}])
def test_lives_never_rise_and_the_eliminated_never_act(engine: str, variant: dict) -> None:
    chooser = random.Random(11)
    for seed in range(6):
        state = load(engine, 5, **variant).new_state(seed=seed)
        previous = state.scores()
        while not state.is_terminal():
            seat = state.current_player()
            assert previous[seat] > 0, "an eliminated seat is to act"
            state.apply(chooser.choice(state.legal_actions()))
            now = state.scores()
            assert all(a <= b for a, b in zip(now, previous)), (previous, now)
            assert 0 <= data(state)["total"] <= 21
            previous = now
        assert sorted(state.placements())[0] == 1


# The heuristic bot ------------------------------------------------------------------------------


def test_heuristic_bot_plays_legally_and_beats_random() -> None:
    """Over 80 four-player games against three random players the bot must win
    clearly more than the 25% a random player would."""
    bot, chooser = Bot(), random.Random(3)
    game = load("rust", 4, bomb_response="optional")
    wins = 0
    for seed in range(80):
        state, hero = game.new_state(seed=seed), seed % 4
        while not state.is_terminal():
            seat, legal = state.current_player(), state.legal_actions()
            if seat == hero:
                action = bot.act(state.observation(seat), legal)
            else:
                action = chooser.choice(legal)
            assert action in legal
            state.apply(action)
        wins += state.placements()[hero] == 1
    assert wins >= 36, wins


def test_scenarios_cover_every_rule_book_scenario_and_ambiguity() -> None:
    """Every FA-Tnn scenario of §10 and every ambiguity FA-1 … FA-28 is pinned by
    at least one scenario file."""
    files = (SCENARIO_ROOT / "five_alive").glob("*.toml")
    cited = {i for f in files for i in load_scenario(f)["covers"]}
    wanted = {f"FA-T{i:02d}" for i in range(1, 24)} | {f"FA-{i}" for i in range(1, 29)}
    assert wanted <= cited, sorted(wanted - cited)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("responders", [[1, 1, 2], [1, 2, 0], [1, 3, 2]])
def test_a_pending_bomb_must_be_consistent(engine: str, responders: list[int]) -> None:
    """Responders are distinct, never the bomber, and those yet to answer are active."""
    game = load(engine, 4, bomb_response="optional")
    state = game.new_state(seed=0, deck=list(CANONICAL))
    d = data(state)
    d.update(current=1, phase="bomb_response", lives=[5, 5, 5, 0],
             hands=[d["hands"][0], d["hands"][1], d["hands"][2], []],
             discard_pile=d["hands"][3], elimination_log=[[3]],
             pending_bomb={"bomber": 0, "responders": responders, "index": 0, "eliminated": []})
    with pytest.raises(cardref.InvalidStateError):
        game.state_from_json(json.dumps(d))
    d.update(pending_bomb={"bomber": 0, "responders": [1, 2], "index": 0, "eliminated": []})
    assert game.state_from_json(json.dumps(d)).legal_actions() == ["respond 0", "decline"]
