"""Standings with 95% confidence intervals, head-to-head, by-seat and failures.

Per bot, over every seat it played: mean placement (1 = best), win share (a
first place shared by k seats or teams counts 1/k), mean game score (the
game's own tally, whatever direction is good in that game) and an openskill
Plackett–Luce rating (mu; every bot starts at 25), updated game by game in
schedule order with teams as openskill teams. A bot seated several times at
one table gets the mean of its updates.

Confidence intervals come from a bootstrap over deal groups: the deal groups
played are resampled with replacement, every statistic is recomputed on the
resample, and the 2.5th and 97.5th percentiles form the interval. Deal groups
are the unit because the games of one group share their deal and so are not
independent. The rating's bootstrap refits openskill per resample (about a
tenth of a millisecond per game), so it uses ``rating_resamples``: at most 200,
fewer for long tournaments (no fewer than 50); the other statistics use
``report.bootstrap``.
"""

from __future__ import annotations

import random
from collections import defaultdict
from typing import Any, Optional

from openskill.models import PlackettLuce

RATING_RESAMPLES = 200
RATING_BUDGET = 40_000  # openskill updates the rating bootstrap may spend


def rating_resamples(resamples: int, games: int) -> int:
    """Resamples for the rating's interval: ``min(resamples, 200)``, reduced so
    that resamples x games stays near RATING_BUDGET, but never below 50."""
    return min(resamples, RATING_RESAMPLES, max(50, RATING_BUDGET // max(1, games)))


def units_of(players: int, teams: Optional[list[list[int]]]) -> list[list[int]]:
    """Seats that share a result: the teams, or every seat alone."""
    return teams if teams is not None else [[seat] for seat in range(players)]


def win_shares(placements: list[int], teams: Optional[list[list[int]]]) -> list[float]:
    """Per seat: 1/k if its seat or team is one of k placed first, else 0."""
    units = units_of(len(placements), teams)
    first = sum(1 for unit in units if placements[unit[0]] == 1)
    return [1 / first if p == 1 else 0.0 for p in placements]


def percentile(sorted_values: list[float], q: float) -> float:
    """Linear-interpolation percentile (q in [0, 1]) of a sorted list."""
    if len(sorted_values) == 1:
        return sorted_values[0]
    pos = q * (len(sorted_values) - 1)
    low = int(pos)
    high = min(low + 1, len(sorted_values) - 1)
    return sorted_values[low] + (sorted_values[high] - sorted_values[low]) * (pos - low)


def openskill_ratings(games: list[dict[str, Any]], bots: list[str],
                      teams: Optional[list[list[int]]]) -> dict[str, float]:
    """Openskill Plackett–Luce mu per bot after all ``games``, in the order given."""
    model = PlackettLuce()
    ratings = {name: model.rating(name=name) for name in bots}
    for game in games:
        seating, placements = game["seating"], game["placements"]
        units = units_of(len(seating), teams)
        # A fresh copy per seat: a bot seated twice must not share one object.
        rated = model.rate(
            [[model.rating(mu=ratings[seating[seat]].mu, sigma=ratings[seating[seat]].sigma)
              for seat in unit] for unit in units],
            ranks=[placements[unit[0]] for unit in units],
        )
        updates: dict[str, list[Any]] = defaultdict(list)
        for unit, team in zip(units, rated):
            for seat, new in zip(unit, team):
                updates[seating[seat]].append(new)
        for name, news in updates.items():
            ratings[name] = model.rating(
                mu=sum(r.mu for r in news) / len(news),
                sigma=sum(r.sigma for r in news) / len(news), name=name,
            )
    return {name: r.mu for name, r in ratings.items()}


def compute(games: list[dict[str, Any]], bots: list[str], teams: Optional[list[list[int]]],
            resamples: int = 1000, seed: int = 0) -> dict[str, Any]:
    """Every result section, from finished games (dicts as ``Store.games``)."""
    sums: dict[tuple[int, str], list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0, 0.0])
    played: dict[str, set[str]] = defaultdict(set)
    for game in games:
        shares = win_shares(game["placements"], teams)
        for seat, name in enumerate(game["seating"]):
            s = sums[(game["group"], name)]
            s[0] += 1
            s[1] += game["placements"][seat]
            s[2] += shares[seat]
            s[3] += float(game["scores"][seat])
            played[name].add(game["key"])
    groups = sorted({game["group"] for game in games})
    by_group: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for game in games:
        by_group[game["group"]].append(game)

    def means(sample: list[int]) -> dict[str, Optional[tuple[float, float, float]]]:
        out: dict[str, Optional[tuple[float, float, float]]] = {}
        for name in bots:
            n = place = win = score = 0.0
            for g in sample:
                s = sums.get((g, name))
                if s:
                    n, place, win, score = n + s[0], place + s[1], win + s[2], score + s[3]
            out[name] = (place / n, win / n, score / n) if n else None
        return out

    point = means(groups)
    rating = openskill_ratings(games, bots, teams)
    rng = random.Random(f"bootstrap-{seed}")
    rating_draws = rating_resamples(resamples, len(games))
    draws: dict[str, list[list[float]]] = {name: [[], [], [], []] for name in bots}
    for r in range(resamples if groups else 0):
        sample = [rng.choice(groups) for _ in groups]
        for name, m in means(sample).items():
            if m is not None:
                for i in range(3):
                    draws[name][i].append(m[i])
        if r < rating_draws:
            resampled = [game for g in sample for game in by_group[g]]
            for name, mu in openskill_ratings(resampled, bots, teams).items():
                draws[name][3].append(mu)

    def interval(name: str, i: int, value: float) -> dict[str, float]:
        values = sorted(draws[name][i]) or [value]
        return {"value": value, "low": percentile(values, 0.025),
                "high": percentile(values, 0.975)}

    failures = failure_counts(games, bots)
    standings = []
    for name in bots:
        m = point[name]
        if m is None:
            continue
        standings.append({
            "rank": 0,
            "name": name,
            "games": len(played[name]),
            "seats": int(sum(sums[(g, name)][0] for g in groups if (g, name) in sums)),
            "mean_placement": interval(name, 0, m[0]),
            "win_share": interval(name, 1, m[1]),
            "mean_score": interval(name, 2, m[2]),
            "rating": interval(name, 3, rating[name]),
            "failures": sum(failures[name].values()),
        })
    standings.sort(key=lambda s: (s["mean_placement"]["value"], -s["win_share"]["value"],
                                  -s["rating"]["value"], s["name"]))
    for rank, entry in enumerate(standings, 1):
        entry["rank"] = rank
    return {
        "standings": standings,
        "head_to_head": head_to_head(games, bots, teams),
        "by_seat": by_seat(games, bots),
        "failures": failures,
    }


def head_to_head(games: list[dict[str, Any]], bots: list[str],
                 teams: Optional[list[list[int]]]) -> dict[str, dict[str, dict[str, float]]]:
    """For bots a and b on opposing seats (or teams): the share of their meetings
    a placed better (ties count half) and the number of meetings."""
    tally: dict[tuple[str, str], list[float]] = defaultdict(lambda: [0.0, 0.0])
    for game in games:
        seating, placements = game["seating"], game["placements"]
        unit = {}
        for u, seats in enumerate(units_of(len(seating), teams)):
            for seat in seats:
                unit[seat] = u
        for sa, a in enumerate(seating):
            for sb, b in enumerate(seating):
                if a == b or unit[sa] == unit[sb]:
                    continue
                t = tally[(a, b)]
                t[1] += 1
                pa, pb = placements[sa], placements[sb]
                t[0] += 1.0 if pa < pb else 0.5 if pa == pb else 0.0
    return {a: {b: {"score": tally[(a, b)][0] / tally[(a, b)][1], "n": int(tally[(a, b)][1])}
                for b in bots if (a, b) in tally} for a in bots}


def by_seat(games: list[dict[str, Any]], bots: list[str]) -> dict[str, list[dict[str, Any]]]:
    """Mean placement of each bot in each seat."""
    tally: dict[tuple[str, int], list[float]] = defaultdict(lambda: [0.0, 0.0])
    players = 0
    for game in games:
        players = max(players, len(game["seating"]))
        for seat, name in enumerate(game["seating"]):
            tally[(name, seat)][0] += game["placements"][seat]
            tally[(name, seat)][1] += 1
    return {name: [{"seat": seat, "n": int(tally[(name, seat)][1]),
                    "mean_placement": tally[(name, seat)][0] / tally[(name, seat)][1]}
                   for seat in range(players) if (name, seat) in tally] for name in bots}


def failure_counts(games: list[dict[str, Any]], bots: list[str]) -> dict[str, dict[str, int]]:
    """Per bot: how many seats ended in each failure status."""
    counts: dict[str, dict[str, int]] = {name: {} for name in bots}
    for game in games:
        for name, status in zip(game["seating"], game["statuses"]):
            if status != "ok":
                counts[name][status] = counts[name].get(status, 0) + 1
    return counts
