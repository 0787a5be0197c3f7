"""Early stopping for gauntlets: a sequential probability ratio test.

The model. A gauntlet asks one question: is the candidate stronger than the
field? Each deal group gives one observation, the candidate's *pairwise
score* in that group: over every game of the group, every seat of the
candidate against every seat of an opponent (partners in team games and
other seats of the candidate itself are not opponents), 1 when the candidate
placed better, 1/2 when equal, 0 when worse; the score is the mean of these
comparisons. Forfeits count through the final placements (a forfeiting seat
is last). Deal groups are independent (each is its own deal), while the
games inside a group are not (the same cards, seat by seat), so a whole
group is one observation and the test never treats correlated games as
independent evidence.

A score s corresponds to an Elo difference e by ``s = 1 / (1 + 10**(-e/400))``
(as for the share of games a two-player engine scores). The hypotheses are
``H0: e = elo0`` and ``H1: e = elo1``. The group scores are not Bernoulli
(they are means of many comparisons), so the test is a generalized SPRT on a
normal model with unknown variance: after n groups with mean m and variance
v (dividing by n), the log-likelihood ratio is

    LLR = n/2 · ln((v + (m - s0)²) / (v + (m - s1)²))

(each hypothesis's variance is its maximum-likelihood value with the mean
fixed at s0 or s1). The run stops at the first deal group where LLR reaches
``ln((1 - beta) / alpha)`` (H1 accepted: the candidate is elo1 stronger) or
falls to ``ln(beta / (1 - alpha))`` (H0 accepted), but never before
``MIN_GROUPS`` deal groups: the variance of a handful of groups is too
uncertain (a few equal scores have none at all), and deciding on it would
exceed the error rates; from 20 groups on, simulations keep them (see the
tests). That is also the number of deal groups below which reports warn
that the confidence intervals say little. It is evaluated only
over whole deal groups in schedule order (group 0, 1, 2, ..., each with all
its games played), so it depends only on which games are stored: a resumed
run, or one played in any order on any number of workers, decides at the same
group as one played straight through; games of later groups that finished
before the decision are kept in the file but left out of the results.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass
from typing import Any, Optional

Teams = Optional[list[list[int]]]

#: No decision before this many deal groups (stats.MIN_DEAL_GROUPS too).
MIN_GROUPS = 20


@dataclass(frozen=True)
class Sprt:
    """The test of ``[stop] sprt`` (documented in docs/tournaments.md)."""

    elo0: float = 0.0
    elo1: float = 5.0
    alpha: float = 0.05
    beta: float = 0.05

    @property
    def lower(self) -> float:
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper(self) -> float:
        return math.log((1 - self.beta) / self.alpha)

    def decide(self, groups: int, value: float) -> Optional[str]:
        """"H1", "H0" or None (go on) for LLR ``value`` after ``groups`` groups."""
        if groups < MIN_GROUPS:
            return None
        if value >= self.upper:
            return "H1"
        if value <= self.lower:
            return "H0"
        return None


def expected_score(elo: float) -> float:
    """The pairwise score of a bot ``elo`` points stronger than its opponents."""
    return 1 / (1 + 10 ** (-elo / 400))


def llr(count: int, total: float, squares: float, test: Sprt) -> float:
    """The log-likelihood ratio of H1 over H0 after ``count`` group scores
    with sum ``total`` and sum of squares ``squares``."""
    if count < 2:
        return 0.0
    mean = total / count
    variance = max(0.0, squares / count - mean * mean)
    s0, s1 = expected_score(test.elo0), expected_score(test.elo1)
    v0, v1 = variance + (mean - s0) ** 2, variance + (mean - s1) ** 2
    if v0 == v1:
        return 0.0
    if v1 == 0:
        return math.inf
    if v0 == 0:
        return -math.inf
    return count / 2 * math.log(v0 / v1)


def pairwise(seating: list[str], placements: list[int], candidate: str,
             teams: Teams) -> tuple[float, int]:
    """The candidate's pairwise points and comparisons in one game."""
    team = {}
    for t, seats in enumerate(teams or [[s] for s in range(len(seating))]):
        for seat in seats:
            team[seat] = t
    points, comparisons = 0.0, 0
    for c, name in enumerate(seating):
        if name != candidate:
            continue
        for o, other in enumerate(seating):
            if other == candidate or team[o] == team[c]:
                continue
            comparisons += 1
            points += 1.0 if placements[c] < placements[o] else (
                0.5 if placements[c] == placements[o] else 0.0)
    return points, comparisons


class Tracker:
    """The test as games are stored: each game is added once, in any order;
    the test advances over the deal groups complete in schedule order."""

    def __init__(self, test: Sprt, candidate: str, teams: Teams,
                 group_sizes: dict[int, int]) -> None:
        self.test = test
        self.candidate = candidate
        self.teams = teams
        self.sizes = group_sizes
        self.order = sorted(group_sizes)
        self.pending: dict[int, list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0])
        self.groups = 0  # deal groups counted, from the first in order
        self.total = self.squares = 0.0
        self.llr = 0.0
        self.decision: Optional[str] = None  # "H0" or "H1"
        self.decided_at: Optional[int] = None  # the deciding deal group

    def add(self, group: int, seating: list[str], placements: list[int]) -> None:
        points, comparisons = pairwise(seating, placements, self.candidate, self.teams)
        tally = self.pending[group]
        tally[0] += points
        tally[1] += comparisons
        tally[2] += 1
        self._advance()

    def _advance(self) -> None:
        while self.decision is None and self.groups < len(self.order):
            group = self.order[self.groups]
            tally = self.pending.get(group)
            if tally is None or tally[2] < self.sizes[group]:
                return
            score = tally[0] / tally[1] if tally[1] else 0.5
            self.groups += 1
            self.total += score
            self.squares += score * score
            self.llr = llr(self.groups, self.total, self.squares, self.test)
            self.decision = self.test.decide(self.groups, self.llr)
            if self.decision is not None:
                self.decided_at = group

    def summary(self) -> dict[str, Any]:
        """The test's state for reports (``stats.results``)."""
        t = self.test
        return {"elo0": t.elo0, "elo1": t.elo1, "alpha": t.alpha, "beta": t.beta,
                "llr": self.llr, "lower": t.lower, "upper": t.upper,
                "deal_groups": self.groups, "decision": self.decision,
                "decided_at": self.decided_at}

    def status(self) -> str:
        """One line for the progress display."""
        return describe(self.summary())


def describe(summary: dict[str, Any]) -> str:
    """``SPRT elo0 0, elo1 5: LLR 1.23 (bounds -2.94, 2.94) after 40 deal
    groups: no decision yet``, or the decision."""
    groups = summary["deal_groups"]
    head = (f"SPRT elo0 {summary['elo0']:g}, elo1 {summary['elo1']:g}: LLR "
            f"{summary['llr']:.2f} (bounds {summary['lower']:.2f}, {summary['upper']:.2f}) "
            f"after {groups} deal group{'s' if groups != 1 else ''}")
    if summary["decision"] == "H1":
        return f"{head}: H1 accepted, the candidate is {summary['elo1']:g} Elo stronger"
    if summary["decision"] == "H0":
        return f"{head}: H0 accepted, the candidate is not {summary['elo1']:g} Elo stronger"
    return f"{head}: no decision yet"


def tracker(meaning: dict[str, Any], teams: Teams, sizes: dict[int, int],
            games: list[dict[str, Any]]) -> Optional[Tracker]:
    """The test of a tournament whose config (``Config.meaning()``) has
    ``[stop] sprt``, with ``sizes`` (games per deal group) and the games
    already stored (dicts as ``Store.games``); None without a test."""
    spec = meaning.get("stop", {}).get("sprt")
    if not spec or meaning.get("format") != "gauntlet":
        return None
    out = Tracker(Sprt(**spec), meaning["candidate"], teams, sizes)
    for game in games:
        out.add(game["group"], game["seating"], game["placements"])
    return out
