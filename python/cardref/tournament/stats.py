"""Every statistic of a tournament, computed once from its stored games.

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

Two bots next to each other in the ranking are marked as tied when the
bootstrap distribution of the difference of their mean placements does not
exclude zero (``separated``).

``results`` gathers every section the reports show; ``LiveTally`` keeps the
running standings shown while a tournament plays, with the same win share.
"""

from __future__ import annotations

import json
import random
from collections import defaultdict
from typing import Any, Optional

from openskill.models import PlackettLuce

Teams = Optional[list[list[int]]]
Stat = dict[str, float]  # {"value", "low", "high"}

RATING_RESAMPLES = 200
RATING_BUDGET = 40_000  # openskill updates the rating bootstrap may spend


def rating_resamples(resamples: int, games: int) -> int:
    """Resamples for the rating's interval: ``min(resamples, 200)``, reduced so
    that resamples x games stays near RATING_BUDGET, but never below 50."""
    return min(resamples, RATING_RESAMPLES, max(50, RATING_BUDGET // max(1, games)))


def units_of(players: int, teams: Teams) -> list[list[int]]:
    """Seats that share a result: the teams, or every seat alone."""
    return teams if teams is not None else [[seat] for seat in range(players)]


def win_shares(placements: list[int], teams: Teams) -> list[float]:
    """Per seat: 1/k if its seat or team is one of k placed first, else 0."""
    units = units_of(len(placements), teams)
    first = sum(1 for unit in units if placements[unit[0]] == 1)
    return [1 / first if p == 1 else 0.0 for p in placements]


def percentile(sorted_values: list[float], q: float) -> float:
    """Linear-interpolation percentile (q in [0, 1]) of a sorted list.

    The same interpolation as ``statistics.quantiles(method="inclusive")``,
    computed as ``low + (high - low) * fraction``: that form is kept because
    stored reports give their bounds to the last bit.
    """
    if len(sorted_values) == 1:
        return sorted_values[0]
    pos = q * (len(sorted_values) - 1)
    low = int(pos)
    high = min(low + 1, len(sorted_values) - 1)
    return sorted_values[low] + (sorted_values[high] - sorted_values[low]) * (pos - low)


# The rating -------------------------------------------------------------------


def openskill_ratings(games: list[dict[str, Any]], bots: list[str],
                      teams: Teams) -> dict[str, float]:
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


# Standings with bootstrap intervals --------------------------------------------

Sums = dict[tuple[int, str], list[float]]  # (group, bot) -> [seats, placement, wins, score]


def _group_sums(games: list[dict[str, Any]], teams: Teams) -> Sums:
    """Per deal group and bot: seats played and the sums of each statistic."""
    sums: Sums = defaultdict(lambda: [0.0, 0.0, 0.0, 0.0])
    for game in games:
        shares = win_shares(game["placements"], teams)
        for seat, name in enumerate(game["seating"]):
            s = sums[(game["group"], name)]
            s[0] += 1
            s[1] += game["placements"][seat]
            s[2] += shares[seat]
            s[3] += float(game["scores"][seat])
    return sums


def _means(sums: Sums, bots: list[str],
           sample: list[int]) -> dict[str, Optional[tuple[float, float, float]]]:
    """Mean placement, win share and score per bot over the groups of ``sample``."""
    out: dict[str, Optional[tuple[float, float, float]]] = {}
    for name in bots:
        n = place = win = score = 0.0
        for g in sample:
            s = sums.get((g, name))
            if s:
                n, place, win, score = n + s[0], place + s[1], win + s[2], score + s[3]
        out[name] = (place / n, win / n, score / n) if n else None
    return out


Draws = dict[str, list[list[Optional[float]]]]  # bot -> statistic -> value per resample


def _bootstrap(games: list[dict[str, Any]], sums: Sums, bots: list[str], teams: Teams,
               resamples: int, seed: int) -> Draws:
    """Per bot, the resampled values of the three means and the rating, one
    per resample (None where the bot played no game of the resample), so that
    two bots' values can be compared resample by resample."""
    groups = sorted({game["group"] for game in games})
    by_group: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for game in games:
        by_group[game["group"]].append(game)
    rng = random.Random(f"bootstrap-{seed}")
    rating_draws = rating_resamples(resamples, len(games))
    draws: Draws = {name: [[], [], [], []] for name in bots}
    for r in range(resamples if groups else 0):
        sample = [rng.choice(groups) for _ in groups]
        for name, m in _means(sums, bots, sample).items():
            for i in range(3):
                draws[name][i].append(None if m is None else m[i])
        if r < rating_draws:
            resampled = [game for g in sample for game in by_group[g]]
            for name, mu in openskill_ratings(resampled, bots, teams).items():
                draws[name][3].append(mu)
    return draws


def _interval(draws: list[Optional[float]], value: float) -> Stat:
    values = sorted(v for v in draws if v is not None) or [value]
    return {"value": value, "low": percentile(values, 0.025),
            "high": percentile(values, 0.975)}


def separated(better: list[Optional[float]], worse: list[Optional[float]]) -> bool:
    """Whether the worse-ranked bot's mean placement is higher than the better
    one's with 95% confidence: the 2.5th percentile of the bootstrap
    distribution of the difference (worse - better, resample by resample) is
    above zero. Overlapping intervals would not say this: the two means move
    together across resamples (they share deals), so their difference is
    often far tighter than either interval."""
    diffs = sorted(w - b for b, w in zip(better, worse) if b is not None and w is not None)
    return bool(diffs) and percentile(diffs, 0.025) > 0


def _mark_ties(entries: list[dict[str, Any]], draws: Draws) -> None:
    """Give each entry ``tied`` (not separated from a neighbour in the
    ranking) and ``rank_group`` (the rank of the first bot of its run of
    bots that are not separated from each other)."""
    group = 1
    for i, entry in enumerate(entries):
        if i and separated(draws[entries[i - 1]["name"]][0], draws[entry["name"]][0]):
            group = entry["rank"]
        entry["rank_group"] = group
    for entry in entries:
        entry["tied"] = sum(e["rank_group"] == entry["rank_group"] for e in entries) > 1


def standings(games: list[dict[str, Any]], bots: list[str], teams: Teams,
              resamples: int = 1000, seed: int = 0) -> list[dict[str, Any]]:
    """One entry per bot that played, in rank order, each statistic with its CI."""
    sums = _group_sums(games, teams)
    groups = sorted({game["group"] for game in games})
    point = _means(sums, bots, groups)
    rating = openskill_ratings(games, bots, teams)
    draws = _bootstrap(games, sums, bots, teams, resamples, seed)
    failures = failure_counts(games, bots)
    played: dict[str, set[str]] = defaultdict(set)
    for game in games:
        for name in game["seating"]:
            played[name].add(game["key"])
    out = []
    for name in bots:
        m = point[name]
        if m is None:
            continue
        d = draws[name]
        out.append({
            "rank": 0,
            "name": name,
            "games": len(played[name]),
            "seats": int(sum(sums[(g, name)][0] for g in groups if (g, name) in sums)),
            "mean_placement": _interval(d[0], m[0]),
            "win_share": _interval(d[1], m[1]),
            "mean_score": _interval(d[2], m[2]),
            "rating": _interval(d[3], rating[name]),
            "failures": sum(failures[name].values()),
        })
    out.sort(key=lambda s: (s["mean_placement"]["value"], -s["win_share"]["value"],
                            -s["rating"]["value"], s["name"]))
    for rank, entry in enumerate(out, 1):
        entry["rank"] = rank
    _mark_ties(out, draws)
    return out


def compute(games: list[dict[str, Any]], bots: list[str], teams: Teams,
            resamples: int = 1000, seed: int = 0) -> dict[str, Any]:
    """Every result section, from finished games (dicts as ``Store.games``)."""
    return {
        "standings": standings(games, bots, teams, resamples, seed),
        "head_to_head": head_to_head(games, bots, teams),
        "by_seat": by_seat(games, bots),
        "failures": failure_counts(games, bots),
    }


# The other sections ---------------------------------------------------------------


def head_to_head(games: list[dict[str, Any]], bots: list[str],
                 teams: Teams) -> dict[str, dict[str, dict[str, float]]]:
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


def failure_list(games: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every failed seat, in schedule order: game, seat, bot, status, message
    and traceback (the bot's own, when its code raised; else None)."""
    return [{"game": g["key"], "seat": seat, "bot": name, "status": status,
             "message": g["messages"][seat] or "",
             "traceback": (g.get("tracebacks") or [None] * len(g["seating"]))[seat]}
            for g in games for seat, (name, status) in enumerate(zip(g["seating"],
                                                                     g["statuses"]))
            if status != "ok"]


def without_tracebacks(results: dict[str, Any]) -> dict[str, Any]:
    """The results with the bots' tracebacks left out (they show source lines:
    a report for publication may not want them)."""
    listed = [{**f, "traceback": None} for f in results.get("failure_list", [])]
    return {**results, "failure_list": listed}


def results(store: Any) -> dict[str, Any]:
    """Every results section of a results file, with the tournament's description."""
    meta = store.meta()
    games = store.games()
    bots = store.bot_names()
    teams = json.loads(meta["teams"])
    out = compute(games, bots, teams, resamples=int(meta["bootstrap"]),
                  seed=int(meta["seed"]))
    out["tournament"] = {
        "game": meta["game"], "players": int(meta["players"]),
        "params": json.loads(meta["params"]), "engine": meta["engine"],
        "format": meta["format"], "seed": int(meta["seed"]),
        "deal_groups": int(meta["deal_groups"]), "teams": teams,
        "bots": bots, "games_scheduled": len(store.schedule()), "games_played": len(games),
        "bootstrap": int(meta["bootstrap"]), "config": meta["config_text"],
        "sandbox": meta.get("sandbox", ""),
    }
    out["failure_list"] = failure_list(games)
    out["warnings"] = warnings(games)
    return out


#: Below this many deal groups the bootstrap intervals are not to be trusted
#: (documented in docs/tournaments.md).
MIN_DEAL_GROUPS = 20


def warnings(games: list[dict[str, Any]]) -> list[str]:
    """What a reader of the results must know before trusting them."""
    groups = len({game["group"] for game in games})
    if groups >= MIN_DEAL_GROUPS:
        return []
    return [f"Only {groups} deal group{'s' if groups != 1 else ''} played: the 95% intervals "
            f"come from resampling deal groups and need at least {MIN_DEAL_GROUPS} to mean "
            "much; with fewer they are too narrow (an interval of width 0 says nothing)."]


# While a tournament plays -----------------------------------------------------------


class LiveTally:
    """Running totals per bot for the live standings: seats, placements, win
    shares (as in the final standings) and failed seats."""

    def __init__(self, teams: Teams) -> None:
        self.teams = teams
        self.totals: dict[str, list[float]] = {}

    def add(self, seating: list[str], placements: list[int], statuses: list[str]) -> None:
        shares = win_shares(placements, self.teams)
        for name, place, share, status in zip(seating, placements, shares, statuses):
            t = self.totals.setdefault(name, [0, 0, 0.0, 0])
            t[0] += 1
            t[1] += place
            t[2] += share
            t[3] += status != "ok"

    def rows(self) -> list[tuple[str, int, float, float, int]]:
        """(bot, seats, mean placement, wins, failures), best mean placement first."""
        order = sorted(self.totals.items(), key=lambda kv: kv[1][1] / kv[1][0])
        return [(name, int(n), place / n, wins, int(fails))
                for name, (n, place, wins, fails) in order]
