"""Back Alley: what the generic checks need of the game (see ``cardref.verify.kits``).

The checks here are written from ``docs/rules/back_alley.md`` on their own: they
rebuild each seat's holdings trick by trick to check follow-suit, and rescore
every recorded deal, so a wrong engine fails them even when both engines agree.
"""

from __future__ import annotations

import copy
import random
from typing import Any, Optional

SUITS = "CDHS"
RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
ORDER = [r + s for s in SUITS for r in RANKS] + ["BB", "LB"]
NAMED = {
    "13-1-13": list(range(13, 0, -1)) + list(range(2, 14)),
    "13-1-1-13": list(range(13, 0, -1)) + list(range(1, 14)),
    "1-13-1": list(range(1, 14)) + list(range(12, 0, -1)),
    "1-13-13-1": list(range(1, 14)) + list(range(13, 0, -1)),
}


def cards(data: dict[str, Any]) -> Optional[list[str]]:
    """Hands, stock (turned jokers included), upcard, the discarded joker of an
    exchange, the current trick and the completed tricks. The last deal stays
    on the table at game end, so this always applies."""
    found = [c for hand in data["hands"] for c in hand] + data["stock"] + [data["upcard"]]
    if data["joker_exchange"] is not None:
        found.append(data["joker_exchange"]["discarded"])
    found += [c for _, c in data["trick"]]
    found += [c for t in data["completed_tricks"] for _, c in t["cards"]]
    return found


def permute_hidden(data: dict[str, Any], seat: int, rng: random.Random) -> dict[str, Any]:
    """Map the cards `seat` cannot see (other hands, the stock except the
    turned jokers at its bottom) onto a shuffle of themselves. In a no-trump
    deal no joker can be in a hand, which every seat knows, so jokers stay put.
    The exchanged card follows the mapping when it is hidden from `seat`."""
    out = copy.deepcopy(data)
    no_trump_deal = data["upcard"] in ("BB", "LB")
    keep = len(data["turned_jokers"])
    hidden_stock = list(range(len(data["stock"]) - keep))

    def movable(card: str) -> bool:
        return not (no_trump_deal and card in ("BB", "LB"))

    pool = [c for s in range(4) if s != seat for c in data["hands"][s] if movable(c)]
    pool += [data["stock"][i] for i in hidden_stock if movable(data["stock"][i])]
    shuffled = list(pool)
    rng.shuffle(shuffled)
    mapping = dict(zip(pool, shuffled))
    for s in range(4):
        if s != seat:
            moved = [mapping.get(c, c) for c in data["hands"][s]]
            out["hands"][s] = sorted(moved, key=ORDER.index)
    for i in hidden_stock:
        out["stock"][i] = mapping.get(data["stock"][i], data["stock"][i])
    exchange = out["joker_exchange"]
    if exchange is not None and exchange["seat"] != seat:
        exchange["drawn"] = mapping.get(exchange["drawn"], exchange["drawn"])
    return out


def _is_trump(card: str, trump: str) -> bool:
    return card in ("BB", "LB") or (trump != "none" and card.endswith(trump))


def _trump_order(card: str) -> int:
    return {"BB": 14, "LB": 13}.get(card, RANKS.index(card[:-1]) if card[:-1] in RANKS else -1)


def _check_follow(data: dict[str, Any]) -> None:
    """Rebuild what each seat held at the last completed trick and the current
    one (its hand now plus what it played from then on) and check the lead and
    every follow. The invariant test calls this after every action, so every
    trick of every deal is checked once it is the latest."""
    done = [t["cards"] for t in data["completed_tricks"]]
    tricks = done[-1:] + ([data["trick"]] if data["trick"] else [])
    earlier = done[:-1] if done else []
    broken = any(_is_trump(c, data["trump"]) for t in earlier for _, c in t)
    check_tricks(data, tricks, broken)


def check_tricks(data: dict[str, Any], tricks: list[list], broken: bool) -> None:
    """Check the lead and every follow of ``tricks`` (the state's latest ones,
    in order; ``broken``: trumps were broken before the first) against the
    holdings the state implies: each seat's hand now plus what it played in
    those tricks from then on."""
    trump, params = data["trump"], data["params"]
    held = {s: set(data["hands"][s]) for s in range(4)}
    holdings = []
    for trick in reversed(tricks):
        for seat, card in trick:
            held[seat].add(card)
        holdings.append({s: set(h) for s, h in held.items()})
    holdings.reverse()
    for trick, holding in zip(tricks, holdings):
        leader, led = trick[0]
        _check_lead(holding[leader], led, leader, broken, data)
        for seat, card in trick[1:]:
            partner = seat == (leader + 2) % 4
            _check_one_follow(holding[seat], card, led, partner, trump, params)
        broken = broken or any(_is_trump(c, trump) for _, c in trick)


def _check_lead(
    holding: set[str], led: str, leader: int, broken: bool, data: dict[str, Any]
) -> None:
    """No trump led before trumps are broken, unless exempt or only trumps held."""
    trump = data["trump"]
    bids = dict((seat, bid) for seat, bid in data["bids"])
    rule = data["params"]["board_trump_lead_exemption"]
    exempt = (rule == "player" and bids[leader] == "board") or (
        rule == "team" and "board" in (bids[leader], bids[(leader + 2) % 4])
    )
    only_trumps = all(_is_trump(c, trump) for c in holding)
    assert broken or exempt or only_trumps or not _is_trump(led, trump), (led, sorted(holding))


def _check_one_follow(
    holding: set[str], card: str, led: str, partner: bool, trump: str, params: dict[str, Any]
) -> None:
    trumps = {c for c in holding if _is_trump(c, trump)}
    bound = params["blooper_lead_rules"] and (
        led == "LB" or (led == "BB" and (params["big_blooper_binds_partner"] or not partner))
    )
    if bound and trumps:
        pick = max if led == "BB" else min
        assert card == pick(trumps, key=_trump_order), (led, card, sorted(trumps))
    elif _is_trump(led, trump):
        assert not trumps or card in trumps, (led, card, sorted(trumps))
    else:
        suit = {c for c in holding if not _is_trump(c, trump) and c[-1] == led[-1]}
        assert not suit or card in suit, (led, card, sorted(suit))


def _expected_points(deal: dict[str, Any], params: dict[str, Any]) -> list[int]:
    """§7 scoring, recomputed from a deal record."""
    n = deal["hand_size"]
    boards = [seat for seat, bid in deal["bids"] if bid == "board"]
    points = []
    for team in (0, 1):
        levels = [i + 1 for i, seat in enumerate(boards) if seat % 2 == team]
        taken = deal["tricks"][team]
        if levels:
            level = len(boards) if params["board_multiplier_scope"] == "hand" else max(levels)
            mult = level if params["board_multiplier"] == "linear" else 2 ** (level - 1)
            value = params["board_points_per_trick"] * n * mult
            points.append(value if taken == n else -value)
            continue
        b = sum(int(bid) for seat, bid in deal["bids"] if seat % 2 == team and bid != "pass")
        if taken >= b:
            points.append(
                params["bid_points_per_trick"] * b + params["overtrick_points"] * (taken - b)
            )
        else:
            points.append(-params["set_points_per_bid_trick"] * b)
    return points


def _check_bids(bids: list[list[Any]], n: int, params: dict[str, Any], dealer: int) -> None:
    cap = n if params["bid_cap"] == "hand_size" else n - 1
    last = None
    for i, (seat, bid) in enumerate(bids):
        assert seat == (dealer + 1 + i) % 4, bids
        if bid in ("pass", "board"):
            continue
        limit = min(cap, last) if params["bid_not_above_previous"] and last is not None else cap
        assert 1 <= int(bid) <= limit, (bids, n)
        last = int(bid)


def check(data: dict[str, Any]) -> None:
    """Hand sizes, one card per seat per trick, winner leads next, follow-suit,
    bids within bounds, and team scores = the sum of correctly scored deals."""
    n, phase, params = data["hand_size"], data["phase"], data["params"]
    tricks = data["completed_tricks"]
    for t in tricks:
        assert [s for s, _ in t["cards"]] == [(t["leader"] + i) % 4 for i in range(4)]
    for before, after in zip(tricks, tricks[1:]):
        assert after["leader"] == before["winner"], "the trick winner leads next"
    if phase == "play":
        assert data["trick_leader"] == (tricks[-1]["winner"] if tricks else data["trick_leader"])
        assert data["to_act"] == (data["trick_leader"] + len(data["trick"])) % 4
        played = {s for s, _ in data["trick"]}
        sizes = [n - len(tricks) - (s in played) for s in range(4)]
        assert [len(h) for h in data["hands"]] == sizes
    if phase == "bidding":
        assert [len(h) for h in data["hands"]] == [n] * 4 and not tricks
        assert data["to_act"] == (data["dealer"] + 1 + len(data["bids"])) % 4
    assert sum(data["tricks_won"]) == len(tricks)
    assert data["trump_broken"] == any(
        _is_trump(c, data["trump"]) for t in tricks for _, c in t["cards"]
    )
    _check_follow(data)
    _check_bids(data["bids"], n, params, data["dealer"])
    totals = [
        sum(d["points"][0] for d in data["deals"]),
        sum(d["points"][1] for d in data["deals"]),
    ]
    assert data["team_scores"] == totals, "team scores change only by scored deals"
    for deal in data["deals"][-1:]:  # each record is checked once, when it is the latest
        _check_bids(deal["bids"], deal["hand_size"], params, deal["dealer"])
        if deal["outcome"] == "played":
            assert deal["points"] == _expected_points(deal, params), deal
            assert sum(deal["tricks"]) == deal["hand_size"]
        else:
            assert deal["points"] == [0, 0] and all(b == "pass" for _, b in deal["bids"])
    counted = sum(d["outcome"] != "redeal" for d in data["deals"])
    assert counted == data["hand_index"], "one counted deal per schedule entry"


def max_actions(players: int, params: dict[str, Any]) -> int:
    """back_alley.md §7: len(schedule) × (4 × max_consecutive_all_pass + 52)."""
    schedule = params["schedule"]
    length = len(NAMED[schedule]) if isinstance(schedule, str) else len(schedule)
    return length * (4 * params["max_consecutive_all_pass"] + 52)
