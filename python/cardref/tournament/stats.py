"""Every statistic of a tournament, computed once from its stored games.

Per bot, over every seat it played: mean placement (1 = best), win share (a
first place shared by k seats or teams counts 1/k), mean game score (the
game's own tally, whatever direction is good in that game) and a rating: a
Plackett–Luce model fitted to all games at once (``rating.py``), so it does
not depend on the order the games were played in.

Confidence intervals come from a bootstrap over deal groups: the deal groups
played are resampled with replacement ``report.bootstrap`` times, every
statistic (the rating's fit included) is recomputed on each resample, and
the 2.5th and 97.5th percentiles form the interval. Deal groups are the unit
because the games of one group share their deal and so are not independent.
Each group's counts are whole numbers, so a resample's totals are exact sums
(``bootstrap.py``).

Two bots next to each other in the ranking are marked as tied when the
bootstrap distribution of the difference of their mean placements does not
exclude zero (``separated``).

``results`` gathers every section the reports show; ``LiveTally`` keeps the
running standings shown while a tournament plays, with the same win share.
"""

from __future__ import annotations

import json
import math
from collections import Counter, defaultdict
from typing import Any, Optional

from . import rating, sprt
from .bootstrap import GroupCounts, interval, pack, unpack

Teams = Optional[list[list[int]]]
Stat = dict[str, float]  # {"value", "low", "high"}


def units_of(players: int, teams: Teams) -> list[list[int]]:
    """Seats that share a result: the teams, or every seat alone."""
    return teams if teams is not None else [[seat] for seat in range(players)]


def win_shares(placements: list[int], teams: Teams) -> list[float]:
    """Per seat: 1/k if its seat or team is one of k placed first, else 0."""
    units = units_of(len(placements), teams)
    first = sum(1 for unit in units if placements[unit[0]] == 1)
    return [1 / first if p == 1 else 0.0 for p in placements]


# Standings with bootstrap intervals --------------------------------------------

FIELDS = 3  # per bot: seats, sum of placements, wins (x win_scale); scores come last


class _Tally:
    """Per deal group, every count the standings need, as whole numbers: per
    bot ``FIELDS`` counts, the rating's choice counts (``rating.Choices``),
    then per bot the sum of its scores. Apart from the scores, a game's counts
    depend only on its seating and placements: they are worked out once per
    distinct pattern, packed in one integer (``bootstrap.pack``) that is added
    to its group's."""

    def __init__(self, games: list[dict[str, Any]], bots: list[str], teams: Teams) -> None:
        players = max((len(g["seating"]) for g in games), default=1)
        self.bots = bots
        self.teams = teams
        self.index = {name: i for i, name in enumerate(bots)}
        self.win_scale = math.factorial(players)  # a multiple of every k in 1/k
        self.choices = rating.Choices(len(bots), math.factorial(players))
        self.fitter = rating.Fitter(self.choices)
        self.patterns: dict[Any, int] = {}
        packed: dict[int, int] = {}
        scores: dict[int, list[Any]] = {}
        index = self.index
        for game in games:
            g = game["group"]
            seating = game["seating"]
            key = (tuple(seating), tuple(game["placements"]))
            pattern = self.patterns.get(key)
            if pattern is None:
                pattern = self.patterns[key] = self._pattern(*key)
            packed[g] = packed.get(g, 0) + pattern
            sums = scores.get(g)
            if sums is None:
                sums = scores[g] = [0] * len(bots)
            for name, score in zip(seating, game["scores"]):
                sums[index[name]] += score
        self.group_ids = sorted(packed)
        counted = FIELDS * len(bots) + self.choices.size
        self.score_base = counted
        integral = all(type(v) is int for sums in scores.values() for v in sums)
        self.score_scale = 1 if integral else 1000
        self.counts = GroupCounts(
            [unpack(packed[g], counted) + [round(v * self.score_scale) for v in scores[g]]
             for g in self.group_ids], counted + len(bots))

    def _pattern(self, seating: tuple[str, ...], placements: tuple[int, ...]) -> int:
        """The packed counts of a game with this seating and these placements."""
        fields: dict[int, int] = defaultdict(int)
        shares = win_shares(list(placements), self.teams)
        for name, place, share in zip(seating, placements, shares):
            base = self.index[name] * FIELDS
            fields[base] += 1
            fields[base + 1] += place
            fields[base + 2] += round(share * self.win_scale)
        units = units_of(len(seating), self.teams)
        designs = tuple(tuple(sorted(self.index[seating[s]] for s in unit)) for unit in units)
        places = tuple(placements[unit[0]] for unit in units)
        base = FIELDS * len(self.bots)
        for field, weight in self.choices.of_game(designs, places):
            fields[base + field] += weight
        vector = [0] * (max(fields) + 1)
        for field, amount in fields.items():
            vector[field] = amount
        return pack(vector)

    def means(self, counts: list[int]) -> list[Optional[tuple[float, float, float]]]:
        """Mean placement, win share and score per bot (None: no seat)."""
        out: list[Optional[tuple[float, float, float]]] = []
        for i in range(len(self.bots)):
            seats, place, wins = counts[i * FIELDS:(i + 1) * FIELDS]
            if not seats:
                out.append(None)
                continue
            # One division of whole numbers each: the same ratio always gives
            # the same float, so a point never falls outside its interval.
            score = counts[self.score_base + i] / (self.score_scale * seats)
            out.append((place / seats, wins / (self.win_scale * seats), score))
        return out

    def rating(self, counts: list[int]) -> list[float]:
        """Ratings per bot: the first call fits every game, later calls
        (resamples) start from that fit."""
        return self.fitter.fit(counts[FIELDS * len(self.bots):self.score_base])


Draws = dict[str, list[list[Optional[float]]]]  # bot -> statistic -> value per resample


def _bootstrap(tally: _Tally, resamples: int, seed: int) -> Draws:
    """Per bot, the resampled values of the three means and the rating, one
    per resample (None where the bot played no game of the resample), so that
    two bots' values can be compared resample by resample."""
    draws: Draws = {name: [[], [], [], []] for name in tally.bots}
    for counts in tally.counts.resamples(resamples, f"bootstrap-{seed}"):
        means = tally.means(counts)
        ratings = tally.rating(counts)
        for name, m, r in zip(tally.bots, means, ratings):
            d = draws[name]
            for i in range(3):
                d[i].append(None if m is None else m[i])
            d[3].append(None if m is None else r)
    return draws


def _interval(draws: list[Optional[float]], value: float) -> Stat:
    return interval([v for v in draws if v is not None], value)


def separated(better: list[Optional[float]], worse: list[Optional[float]]) -> bool:
    """Whether the worse-ranked bot's mean placement is higher than the better
    one's with 95% confidence: the 2.5th percentile of the bootstrap
    distribution of the difference (worse - better, resample by resample) is
    above zero. Overlapping intervals would not say this: the two means move
    together across resamples (they share deals), so their difference is
    often far tighter than either interval."""
    diffs = [w - b for b, w in zip(better, worse) if b is not None and w is not None]
    return bool(diffs) and interval(diffs, 0.0)["low"] > 0


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
              resamples: int = 1000, seed: int = 0,
              failures: Optional[dict[str, dict[str, int]]] = None) -> list[dict[str, Any]]:
    """One entry per bot that played, in rank order, each statistic with its CI."""
    tally = _Tally(games, bots, teams)
    totals = tally.counts.total()
    point = tally.means(totals)
    ratings = tally.rating(totals)
    draws = _bootstrap(tally, resamples, seed)
    if failures is None:
        failures = failure_counts(games, bots)
    played: Counter = Counter()
    for game in games:
        for name in set(game["seating"]):
            played[name] += 1
    out = []
    for i, name in enumerate(bots):
        m = point[i]
        if m is None:
            continue
        d = draws[name]
        out.append({
            "rank": 0,
            "name": name,
            "games": played[name],
            "seats": totals[i * FIELDS],
            "mean_placement": _interval(d[0], m[0]),
            "win_share": _interval(d[1], m[1]),
            "mean_score": _interval(d[2], m[2]),
            "rating": _interval(d[3], ratings[i]),
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
    failures = failure_counts(games, bots)
    return {
        "standings": standings(games, bots, teams, resamples, seed, failures),
        "head_to_head": head_to_head(games, bots, teams),
        "by_seat": by_seat(games, bots),
        "failures": failures,
    }


# The other sections ---------------------------------------------------------------


def _patterns(games: list[dict[str, Any]]) -> Counter:
    """How many games had each (seating, placements): the sections below
    depend on nothing else, and a tournament repeats a few hundred patterns."""
    return Counter((tuple(g["seating"]), tuple(g["placements"])) for g in games)


def head_to_head(games: list[dict[str, Any]], bots: list[str],
                 teams: Teams) -> dict[str, dict[str, dict[str, float]]]:
    """For bots a and b on opposing seats (or teams): the share of their meetings
    a placed better (ties count half) and the number of meetings."""
    tally: dict[tuple[str, str], list[float]] = defaultdict(lambda: [0.0, 0.0])
    for (seating, placements), n in _patterns(games).items():
        unit = {}
        for u, seats in enumerate(units_of(len(seating), teams)):
            for seat in seats:
                unit[seat] = u
        for sa, a in enumerate(seating):
            for sb, b in enumerate(seating):
                if a == b or unit[sa] == unit[sb]:
                    continue
                t = tally[(a, b)]
                t[1] += n
                pa, pb = placements[sa], placements[sb]
                t[0] += n * (1.0 if pa < pb else 0.5 if pa == pb else 0.0)
    return {a: {b: {"score": tally[(a, b)][0] / tally[(a, b)][1], "n": int(tally[(a, b)][1])}
                for b in bots if (a, b) in tally} for a in bots}


def by_seat(games: list[dict[str, Any]], bots: list[str]) -> dict[str, list[dict[str, Any]]]:
    """Mean placement of each bot in each seat."""
    tally: dict[tuple[str, int], list[float]] = defaultdict(lambda: [0.0, 0.0])
    players = 0
    for (seating, placements), n in _patterns(games).items():
        players = max(players, len(seating))
        for seat, name in enumerate(seating):
            tally[(name, seat)][0] += n * placements[seat]
            tally[(name, seat)][1] += n
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
    test = sprt.tracker(json.loads(meta.get("meaning", "{}")), teams, store.group_sizes(),
                        games)
    if test is not None and test.decided_at is not None:  # what the test decided on
        games = [game for game in games if game["group"] <= test.decided_at]
    out = compute(games, bots, teams, resamples=int(meta["bootstrap"]),
                  seed=int(meta["seed"]))
    out["tournament"] = {
        "game": meta["game"], "players": int(meta["players"]),
        "params": json.loads(meta["params"]), "engine": meta["engine"],
        "format": meta["format"], "seed": int(meta["seed"]),
        "deal_groups": int(meta["deal_groups"]), "teams": teams,
        "bots": bots, "games_scheduled": store.scheduled(), "games_played": len(games),
        "bootstrap": int(meta["bootstrap"]), "config": meta["config_text"],
        "sandbox": meta.get("sandbox", ""),
    }
    if test is not None:
        out["sprt"] = test.summary()
    out["failure_list"] = failure_list(games)
    out["warnings"] = warnings(games)
    if len(games) < store.scheduled() and (test is None or test.decided_at is None):
        out["warnings"].insert(0, (
            f"Incomplete: {len(games)} of {store.scheduled()} scheduled games are stored; the "
            "run is still going or was interrupted (running cardref tournament on its config "
            "again resumes it), so these results may change."))
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
