"""The engine API contract, identical on both engines: loading, errors, seeds,
decks, JSON loading."""

from __future__ import annotations

import json

import pytest

import cardref

ENGINES = ["rust", "reference"]


def test_games_are_sorted_ids() -> None:
    ids = cardref.games()
    assert ids == sorted(ids) and "take5" in ids


@pytest.mark.parametrize("engine", ENGINES)
def test_unknown_game_lists_the_valid_ids(engine: str) -> None:
    with pytest.raises(cardref.UnknownGameError) as e:
        cardref.load("take6", players=4, engine=engine)
    assert "take6" in str(e.value) and "take5" in str(e.value)
    assert isinstance(e.value, ValueError)


def test_unknown_engine_is_named() -> None:
    with pytest.raises(cardref.InvalidParamsError, match="engine"):
        cardref.load("take5", players=4, engine="fast")


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(
    ("players", "variant", "key"),
    [
        (1, {}, "players"),
        (11, {}, "players"),
        (True, {}, "players"),
        ("4", {}, "players"),
        (4, {"end_score": 0}, "end_score"),
        (4, {"end_score": 66.0}, "end_score"),
        (4, {"end_score": True}, "end_score"),
        (4, {"end_score": "66"}, "end_score"),
        (4, {"deck": "short"}, "deck"),
        (4, {"round_limit": 0}, "round_limit"),
        (4, {"round_limit": False}, "round_limit"),
        (4, {"too_low_choice": None}, "too_low_choice"),
        (4, {"bogus": 1}, "bogus"),
    ],
)
def test_bad_params_name_the_key(engine: str, players: object, variant: dict, key: str) -> None:
    with pytest.raises(cardref.InvalidParamsError) as e:
        cardref.load("take5", players=players, engine=engine, **variant)
    assert key in str(e.value)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(
    ("players", "variant", "got"),
    [
        ("4", {}, "got the string '4'"),
        (11, {}, "got the integer 11"),
        (4, {"end_score": "66"}, "got the string '66'"),
        (4, {"end_score": 66.0}, "got 66.0 (a float)"),
    ],
)
def test_bad_values_are_described_alike_by_both_engines(engine: str, players: object,
                                                        variant: dict, got: str) -> None:
    with pytest.raises(cardref.InvalidParamsError) as e:
        cardref.load("take5", players=players, engine=engine, **variant)
    assert str(e.value).endswith(got), str(e.value)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(
    ("game_id", "key", "hint"),
    [
        ("take5", "end_scor", " did you mean end_score?"),
        ("take5", "round_limits", " did you mean round_limit?"),
        ("hundred", "bust_rul", " did you mean bust_rule?"),
        ("take5", "score", ""),
        ("take5", "bogus", ""),
    ],
)
def test_a_misspelt_variant_key_gets_the_closest_one(engine: str, game_id: str, key: str,
                                                     hint: str) -> None:
    with pytest.raises(cardref.InvalidParamsError) as e:
        cardref.load(game_id, players=4, engine=engine, **{key: 1})
    assert str(e.value).startswith(f"{key}: unknown variant key;{hint} allowed keys: "), e.value


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(
    ("game_id", "players", "value", "message"),
    [
        ("back_alley", 4, 4, 'must be a seat from 0 to 3 or "random", got the integer 4'),
        ("back_alley", 4, -1, 'must be a seat number or "random", got the integer -1'),
        ("twenty_two", 3, 3, 'must be a seat from 0 to 2 or "random", got the integer 3'),
        ("twenty_two", 3, "x", "must be a seat number or \"random\", got the string 'x'"),
    ],
)
def test_a_first_dealer_off_the_table_is_refused_alike(engine: str, game_id: str, players: int,
                                                       value: object, message: str) -> None:
    with pytest.raises(cardref.InvalidParamsError) as e:
        cardref.load(game_id, players=players, engine=engine, first_dealer=value)
    assert str(e.value) == f"first_dealer: {message}"


@pytest.mark.parametrize("engine", ENGINES)
def test_params_are_filled_with_defaults(engine: str) -> None:
    game = cardref.load("take5", players=3, engine=engine, end_score=10)
    assert game.params == {"deck": "full", "end_rule": "at_least", "end_score": 10,
                           "round_limit": None, "too_low_choice": "player"}
    assert (game.id, game.players, game.engine) == ("take5", 3, engine)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("seed", [-1, 2**64, 1.0, "7", True, [7]])
def test_bad_seeds_are_rejected(engine: str, seed: object) -> None:
    with pytest.raises(cardref.InvalidSeedError):
        cardref.load("take5", players=2, engine=engine).new_state(seed=seed)


@pytest.mark.parametrize("engine", ENGINES)
def test_largest_seed_is_accepted_and_not_reduced(engine: str) -> None:
    game = cardref.load("take5", players=2, engine=engine)
    big = game.new_state(seed=2**64 - 1)
    assert json.loads(big.to_json())["rng"] != json.loads(game.new_state(seed=0).to_json())["rng"]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(
    ("deck", "needle"),
    [
        ([str(c) for c in range(1, 104)], "missing"),
        ([str(c) for c in range(1, 105)] + ["1"], "1"),
        ([str(c) for c in range(1, 104)] + ["0"], "0"),
        ([str(c) for c in range(1, 104)] + ["057"], "057"),
        (list(range(1, 105)), "deck[0]"),
        ("1 2 3", "list"),
    ],
)
def test_bad_decks_name_the_problem(engine: str, deck: object, needle: str) -> None:
    game = cardref.load("take5", players=2, engine=engine)
    with pytest.raises(cardref.InvalidDeckError) as e:
        game.new_state(seed=0, deck=deck)
    assert needle in str(e.value)


@pytest.mark.parametrize("engine", ENGINES)
def test_illegal_action_message_names_game_seat_action(engine: str) -> None:
    state = cardref.load("take5", players=2, engine=engine).new_state(
        seed=0, deck=[str(c) for c in range(1, 105)])
    with pytest.raises(cardref.IllegalActionError) as e:
        state.apply("play 2")  # seat 1's card
    message = str(e.value)
    assert "take5" in message and "seat 0" in message and "play 2" in message
    assert "not in its hand" in message


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("index", [-1, 9, 2**70, True, 1.0, "0"])
def test_an_index_that_names_no_legal_action_is_refused(engine: str, index: object) -> None:
    state = cardref.load("five_alive", players=2, engine=engine).new_state(seed=3)
    assert state.legal_count() == len(state.legal_actions()) == 9
    before = state.to_json()
    with pytest.raises(cardref.IllegalActionError) as e:
        state.apply_legal(index)
    message = str(e.value)
    if isinstance(index, int) and not isinstance(index, bool):
        assert f"legal action {index}" in message and "numbered 0 to 8" in message
    else:
        assert "must be an integer" in message and type(index).__name__ in message
    assert state.to_json() == before


@pytest.mark.parametrize("game_id", cardref.games())
def test_every_index_applies_the_action_at_that_position(game_id: str) -> None:
    """Twenty-Two's first discard lists up to 2^11 subsets and the Rust core
    finds the i-th without listing them: every position must still match."""
    state = cardref.load(game_id, players=4).new_state(seed=5)
    for _ in range(3):
        legal = state.legal_actions()
        for i in range(0, len(legal), max(1, len(legal) // 400)):
            by_index, by_text = state.clone(), state.clone()
            by_index.apply_legal(i)
            by_text.apply(legal[i])
            assert by_index.to_json() == by_text.to_json(), f"{game_id}: {i} {legal[i]}"
        state.apply_legal(len(legal) - 1)


@pytest.mark.parametrize("engine", ENGINES)
def test_no_index_is_legal_once_the_game_is_over(engine: str) -> None:
    state = cardref.load("take5", players=2, engine=engine).new_state(seed=1)
    while not state.is_terminal():
        state.apply_legal(state.legal_count() - 1)
    assert state.legal_count() == 0
    with pytest.raises(cardref.IllegalActionError, match="the game is over"):
        state.apply_legal(0)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(
    "mutate",
    [
        lambda d: "not json",
        lambda d: json.dumps({**d, "game": "hundred"}),
        lambda d: json.dumps({**d, "players": 5}),
        lambda d: json.dumps({**d, "params": {**d["params"], "end_score": 1}}),
        lambda d: json.dumps({k: v for k, v in d.items() if k != "rows"}),
        lambda d: json.dumps({**d, "unused": d["unused"][1:]}),
        lambda d: json.dumps({**d, "rows": [d["rows"][0] * 6, *d["rows"][1:]]}),
        lambda d: json.dumps({**d, "phase": "bidding"}),
        lambda d: json.dumps({**d, "hands": d["hands"][:1]}),
    ],
)
def test_bad_state_json_is_rejected(engine: str, mutate) -> None:
    game = cardref.load("take5", players=2, engine=engine)
    data = json.loads(game.new_state(seed=3).to_json())
    with pytest.raises(cardref.InvalidStateError):
        game.state_from_json(mutate(data))


@pytest.mark.parametrize("engine", ENGINES)
def test_json_loads_across_engines(engine: str) -> None:
    other = "reference" if engine == "rust" else "rust"
    state = cardref.load("take5", players=4, engine=engine).new_state(seed=11)
    for _ in range(7):
        state.apply(state.legal_actions()[-1])
    moved = cardref.load("take5", players=4, engine=other).state_from_json(state.to_json())
    assert moved.to_json() == state.to_json()
    assert moved.legal_actions() == state.legal_actions()


@pytest.mark.parametrize("engine", ENGINES)
def test_observation_of_a_missing_seat_is_an_error(engine: str) -> None:
    state = cardref.load("take5", players=2, engine=engine).new_state(seed=0)
    with pytest.raises(ValueError, match="seat"):
        state.observation(2)
    with pytest.raises(ValueError, match="seat"):
        state.observation_json(2)


@pytest.mark.parametrize("game_id", cardref.games())
def test_observation_json_is_the_observation_as_canonical_text(game_id: str) -> None:
    """The text a bot process is sent: the same data, one spelling on both engines."""
    players = 5 if game_id == "hundred" else 4
    rust = cardref.load(game_id, players).new_state(seed=3)
    ref = cardref.load(game_id, players, engine="reference").new_state(seed=3)
    for _ in range(25):
        if rust.is_terminal():
            break
        for seat in range(players):
            text = rust.observation_json(seat)
            assert json.loads(text) == rust.observation(seat)
            assert text == ref.observation_json(seat)
        action = rust.legal_actions()[len(rust.legal_actions()) // 2]
        rust.apply(action)
        ref.apply(action)
