"""Twenty-Two: what the generic checks need of the game (see ``cardref.verify.kits``).

Written from the rule book (docs/rules/twenty_two.md), independently of the
reference module, so the invariants it checks are a second reading of the rules.
"""

from __future__ import annotations

import copy
import random
from itertools import combinations
from typing import Any, Optional

RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
SUITS = "CDHS"
VALUES = {r: min(i + 2, 10) for i, r in enumerate(RANKS)} | {"A": 11}


def rank(card: str) -> int:
    return RANKS.index(card[:-1])


def play_order(card: str) -> tuple[int, int]:
    return (rank(card), SUITS.index(card[-1]))


def cards(data: dict[str, Any]) -> Optional[list[str]]:
    """Hands, stock, discards, the current trick, completed tricks and score piles.
    At game end every card outside the score piles is gathered in the stock."""
    found = list(data["stock"])
    for seat in range(data["players"]):
        found += data["hands"][seat] + data["discards"][seat] + data["score_piles"][seat]
    tricks = data["tricks"] + ([data["trick"]] if data["trick"] else [])
    found += [c for t in tricks for _, played in t["plays"] for c in played]
    return found


def permute_hidden(data: dict[str, Any], seat: int, rng: random.Random) -> dict[str, Any]:
    """Shuffle what ``seat`` cannot see (other hands, other seats' discards, the
    stock) among those places, keeping each place's size."""
    out = copy.deepcopy(data)
    others = [s for s in range(data["players"]) if s != seat]
    pool = list(out["stock"]) + [c for s in others for c in out["hands"][s] + out["discards"][s]]
    rng.shuffle(pool)
    for s in others:
        for key in ("hands", "discards"):
            size = len(out[key][s])
            out[key][s], pool = sorted(pool[:size], key=play_order), pool[size:]
    out["stock"] = pool
    return out


def _meets(cards_: list[str], bar: list[str]) -> bool:
    return all(a >= b for a, b in zip(sorted(map(rank, cards_)), sorted(map(rank, bar))))


def _check_follow(cards_: list[str], bar: list[str], hand: list[str], rule: str) -> None:
    """A follower's set: k cards that meet the bar or are a lowest set (TT-7, TT-10,
    TT-11); under lowest_only_if_cannot_beat, lowest only when nothing meets it."""
    assert len(cards_) == len(bar), (cards_, bar)
    lowest = sorted(map(rank, cards_)) == sorted(map(rank, hand))[: len(bar)]
    if _meets(cards_, bar):
        return
    assert lowest, f"{cards_} neither meets {bar} nor is the lowest of {hand}"
    if rule == "lowest_only_if_cannot_beat":
        assert not any(_meets(list(s), bar) for s in combinations(hand, len(bar))), (cards_, hand)


def _check_tricks(data: dict[str, Any]) -> None:
    """Replays the hand's tricks backwards to recover each hand at play time."""
    tricks = data["tricks"] + ([data["trick"]] if data["trick"] else [])
    held = {s: list(data["hands"][s]) for s in range(data["players"])}
    for trick in reversed(tricks):
        for seat, played in trick["plays"]:
            held[seat] = held[seat] + played
        bar: list[str] = []
        for i, (seat, played) in enumerate(trick["plays"]):
            hand_then = held[seat]  # each seat plays once per trick
            if len(hand_then) == 1:
                assert played == hand_then  # the final trick
            elif i == 0:
                assert len({rank(c) for c in played}) == 1, f"lead of two ranks {played}"
                assert len(played) < len(hand_then), "a lead must keep a card (TT-6)"
            if i == 0:
                bar = played
            else:
                _check_follow(played, bar, hand_then, data["params"]["follow_rule"])
                if _meets(played, bar):
                    bar = played
        if "winner" in trick:
            assert trick["winner"] == next(s for s, p in trick["plays"] if p == bar)
        else:
            assert trick["bar"] == bar


def check(data: dict[str, Any]) -> None:
    """Equal hands, eliminated seats idle, scores = pile values, legal follows."""
    n = data["players"]
    limit = data["params"]["elimination_score"]
    for seat in range(n):
        assert data["scores"][seat] == sum(VALUES[c[:-1]] for c in data["score_piles"][seat])
        assert data["active"][seat] == (data["out_hand"][seat] == 0)
        assert (data["scores"][seat] >= limit) != data["active"][seat]
        if not data["active"][seat]:
            assert data["hands"][seat] == [] and data["to_act"] != seat
    if data["phase"] == "game_over":
        assert data["active"].count(True) <= 1 and data["to_act"] is None
        return
    active = [s for s in range(n) if data["active"][s]]
    assert len(active) >= 2 and data["to_act"] in active
    played = {}
    if data["trick"]:
        played = {seat: len(cards_) for seat, cards_ in data["trick"]["plays"]}
    sizes = {len(data["hands"][s]) + played.get(s, 0) for s in active}
    assert len(sizes) == 1, f"active hands differ in size: {data['hands']}"
    if data["phase"] == "discard":
        assert sizes == {data["deal_size"]} and data["deal_size"] <= data["target_size"]
    _check_tricks(data)


def max_actions(players: int, params: dict[str, Any]) -> int:
    """§7 termination bound: 12 N^2 ceil(E / 2) decisions."""
    return 12 * players * players * -(-params["elimination_score"] // 2)
