"""Golden games: the canonical ``to_json`` of a fixed set of seeded games per
game and variant, committed under ``tests/golden/<game>.jsonl``.

Each line is one game: its table (``players``, ``variant``, ``seed``) and the
state JSON at a few fixed steps and at the end. The actions are chosen by
position with the rule book's generator, so any engine can replay them without
a Python-side random module: after ``SplitMix64(seed ^ CHOOSER)`` is created,
every step applies legal action number ``bounded(legal_count())``. The Rust
core replays the same files in ``rust/tests/golden.rs``.

A change that alters any of these texts changes what users see (the state
JSON, a deal, a rule); the tests compare both engines against them.
Regenerate only for an intended change of the JSON or the rules:
``python tests/golden_games.py [game ...]`` (writes the files with the
reference engine and checks that the Rust core agrees; the game for the tests
only, which the extension lacks, is checked by ``cargo test``).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import cardref
from cardref.rng import SplitMix64

GOLDEN_ROOT = Path(__file__).resolve().parent / "golden"
#: Mixed into the seed for the generator that picks the actions.
CHOOSER = 0x601D_E116_A3E5
#: States recorded at these steps (when the game is that long), and at the end.
STEPS = (0, 3, 10, 30, 100, 300)

#: (players, variant) per game: the default table at a few sizes, then every
#: variant value that differs from the default, once.
TABLES: dict[str, list[tuple[int, dict[str, Any]]]] = {
    "take5": [
        (2, {}), (4, {}), (10, {}),
        (4, {"deck": "tactics"}),
        (3, {"end_score": 20, "end_rule": "more_than"}),
        (5, {"too_low_choice": "auto_fewest_heads", "end_score": 30}),
        (6, {"round_limit": 2}),
    ],
    "back_alley": [
        (4, {}),
        (4, {"schedule": "1-13-1", "first_dealer": 2}),
        (4, {"schedule": [5, 3], "first_dealer": "random"}),
        (4, {"schedule": [13, 12], "joker_upcard": "turn_next"}),
        (4, {"schedule": [9, 4], "joker_exchange_draw": "bottom", "bid_cap": "hand_size"}),
        (4, {"schedule": [6, 6], "bid_not_above_previous": True, "board_lead": "first"}),
        (4, {"schedule": [7, 2], "board_multiplier": "doubling",
             "board_multiplier_scope": "hand"}),
        (4, {"schedule": [8, 8], "board_trump_lead_exemption": "team"}),
        (4, {"schedule": [8, 3], "board_trump_lead_exemption": "none",
             "blooper_lead_rules": False}),
        (4, {"schedule": [10, 11], "big_blooper_binds_partner": False}),
        (4, {"schedule": [4, 5, 6], "bid_points_per_trick": 7, "overtrick_points": -2,
             "set_points_per_bid_trick": 3, "board_points_per_trick": 12,
             "max_consecutive_all_pass": 1}),
    ],
    "five_alive": [
        (2, {}), (4, {}), (6, {}),
        (7, {"allow_seven_players": True, "hand_size": 8}),
        (3, {"deck_profile": "alt75", "lives": 2}),
        (4, {"first_dealer": 2, "reset_direction_each_round": False}),
        (3, {"allow_voluntary_flip": True, "flip_ends_turn": False}),
        (4, {"bomb_response": "optional", "redeal_deal_order": "play_direction"}),
        (5, {"sudden_death": True}),
        (4, {"team_play": True}),
        (6, {"team_play": True, "team_wilds_hit_teammates": False}),
        (4, {"max_actions": 60}),
    ],
    "hundred": [
        (3, {}), (5, {}), (12, {}),
        (2, {"allow_two_players": True}),
        (6, {"num_decks": 2, "chips": 2}),
        (4, {"hand_size": 5, "first_dealer": 3}),
        (4, {"red_ace": "choose"}),
        (5, {"red_ace": "zero", "allow_negative": True}),
        (4, {"allow_voluntary_bust": True}),
        (4, {"bust_rule": "void"}),
        (5, {"bust_rule": "redeal"}),
        (7, {"num_decks": 1, "max_actions": 90}),
    ],
    "twenty_two": [
        (2, {}), (4, {}), (6, {}),
        (3, {"first_dealer": "random"}),
        (4, {"first_dealer": 2, "first_hand_size": 4}),
        (5, {"elimination_score": 12}),
        (4, {"follow_rule": "lowest_only_if_cannot_beat"}),
        (4, {"last_trick_tie": "last_played_wins"}),
        (3, {"last_trick_tie": "first_played_wins"}),
        (4, {"tied_dealer": "first"}),
    ],
    # The game for the tests only: the Rust core plays it under `cargo test`.
    "high_card": [
        (2, {}), (3, {}), (4, {}),
        (3, {"hand_size": 1, "scoring": "sum"}),
        (4, {"hand_size": 6}),
    ],
}
#: Every table is played from these seeds.
SEEDS = (1, 2)


def play(game: Any, seed: int) -> dict[str, str]:
    """The state JSON at ``STEPS`` and at the end of the game dealt from ``seed``."""
    state = game.new_state(seed=seed)
    chooser = SplitMix64(seed ^ CHOOSER)
    states: dict[str, str] = {}
    step = 0
    while True:
        if step in STEPS:
            states[str(step)] = state.to_json()
        if state.is_terminal():
            states["end"] = state.to_json()
            return states
        state.apply_legal(chooser.bounded(state.legal_count()))
        step += 1


def record(game_id: str, engine: str = "reference") -> list[dict[str, Any]]:
    """Every golden game of ``game_id`` as played on ``engine``."""
    games = []
    for players, variant in TABLES[game_id]:
        game = cardref.load(game_id, players, engine=engine, **variant)
        for seed in SEEDS:
            games.append({"players": players, "variant": variant, "seed": seed,
                          "states": play(game, seed)})
    return games


def path(game_id: str) -> Path:
    return GOLDEN_ROOT / f"{game_id}.jsonl"


def load(game_id: str) -> list[dict[str, Any]]:
    """The committed golden games of ``game_id``."""
    with path(game_id).open(encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def write(game_id: str) -> None:
    """Records ``game_id`` on the reference engine, checks the Rust core plays
    the same, and writes the file."""
    games = record(game_id)
    if game_id in cardref.games() and record(game_id, "rust") != games:
        raise SystemExit(f"{game_id}: the engines disagree; nothing written")
    GOLDEN_ROOT.mkdir(exist_ok=True)
    with path(game_id).open("w", encoding="utf-8") as f:
        for g in games:
            f.write(json.dumps(g, sort_keys=True, separators=(",", ":")) + "\n")


if __name__ == "__main__":
    import testgame

    testgame.register()
    for game_id in sys.argv[1:] or sorted(TABLES):
        write(game_id)
        print(f"wrote {path(game_id)}")
