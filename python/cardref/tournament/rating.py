"""The rating: one Plackett–Luce fit to every game at once, on the Elo scale.

The model. A game ranks its *units* (the seats, or the teams in team games) by
their final placements. Plackett–Luce reads a ranking as successive choices:
the unit placed first is chosen from all units with probability
``w_u / sum(w)``, the next from the units left, and so on. A unit's worth is
``w_u = exp(sum of its bots' strengths)``: a team is as strong as the sum of
its members' log-strengths, and a bot seated twice at a table is two units of
the same strength (or counts twice in its team). The rating of a bot is its
strength on the Elo scale, ``400 · log10(w)``, shifted so the field's mean is
0: a bot rated 100 points above another is chosen before it 64% of the time
when the two are all that is left (``1 / (1 + 10**(-100/400))``).

Ties: units sharing a placement are taken to have finished in every order
among them with equal probability: the game's log-likelihood is the mean
over those orders (each tied block's orders are enumerated, at most 5! of
them). Forfeits need nothing more: the final placements already rank a
forfeiting unit last (several forfeiting units share last place, a tie).

The fit: the maximum of the log-likelihood plus a weak Gaussian prior on
each rating (mean 0, standard deviation ``PRIOR_ELO`` = 1000 points), so a
bot that wins or loses every choice still gets a finite rating; the prior's
pull is negligible once a bot has played a few dozen games. It is found by
Newton's method (the function is concave), and it depends on the games only
through how often each set of units was left to choose from and how often
each bot was in the unit chosen: a tournament of any size is a few hundred
counts, and the order games were played in does not matter. The counts are
whole numbers (weights are scaled by ``players!``), so the bootstrap sums them
exactly (``bootstrap.py``).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from itertools import combinations
from math import comb, factorial
from typing import Any, Optional

ELO = 400 / math.log(10)  # rating points per unit of log-strength
PRIOR_ELO = 1000.0  # standard deviation of the prior on each rating

Unit = tuple[int, ...]  # the bots of a unit, as sorted bot indices
Choice = tuple[Unit, ...]  # the units left to choose from, sorted


def game_choices(units: Sequence[Unit], places: Sequence[int],
                 scale: int) -> tuple[Counter, Counter]:
    """The choices one game's ranking makes, each weighted by ``scale`` times
    its share of the orders of tied units: how often each set of units was
    chosen from (``Choice`` -> weight) and how often each bot was in the unit
    chosen (bot -> weight). A choice from a single unit says nothing and is
    left out. ``scale`` must be a multiple of the largest tied block's k!."""
    sets: Counter = Counter()
    chosen: Counter = Counter()
    remaining = list(range(len(units)))
    for place in sorted(set(places)):
        block = [u for u in remaining if places[u] == place]
        k = len(block)
        for j in range(k):  # j units of the block already chosen, in any order
            for gone in combinations(block, j):
                left = [u for u in remaining if u not in gone]
                if len(left) < 2:
                    continue
                sets[tuple(sorted(units[u] for u in left))] += scale // comb(k, j)
                share = scale * factorial(j) * factorial(k - j - 1) // factorial(k)
                for u in block:
                    if u not in gone:
                        for bot in units[u]:
                            chosen[bot] += share
        remaining = [u for u in remaining if u not in block]
    return sets, chosen


class Choices:
    """The distinct sets of units of a tournament, numbered as first seen, so
    that the counts of each deal group are one vector of whole numbers:
    ``bots`` weights of bots chosen, then one weight per set."""

    def __init__(self, bots: int, scale: int) -> None:
        self.bots = bots
        self.scale = scale
        self.sets: list[Choice] = []
        self.index: dict[Choice, int] = {}
        self._games: dict[Any, list[tuple[int, int]]] = {}

    def of_game(self, units: tuple[Unit, ...], places: tuple[int, ...]) -> list[tuple[int, int]]:
        """(position in the vector, weight) of one game's choices; cached, as
        a tournament's games repeat a few hundred patterns."""
        key = (units, places)
        found = self._games.get(key)
        if found is None:
            sets, chosen = game_choices(units, places, self.scale)
            found = list(chosen.items())
            for choice, weight in sets.items():
                if choice not in self.index:
                    self.index[choice] = len(self.sets)
                    self.sets.append(choice)
                found.append((self.bots + self.index[choice], weight))
            self._games[key] = found
        return found

    @property
    def size(self) -> int:
        return self.bots + len(self.sets)


class Fitter:
    """Fits count vectors laid out as ``choices`` lays them out.

    The first fit (all games) is Newton's method from 0. Later fits, the
    bootstrap's resamples, start from it and keep its curvature (the chord
    method: only the gradient is recomputed, which costs a fraction of the
    Hessian); should that not converge fast, Newton's method finishes."""

    def __init__(self, choices: Choices, prior_elo: Optional[float] = PRIOR_ELO) -> None:
        self.choices = choices
        self.ridge = 0.0 if prior_elo is None else (ELO / prior_elo) ** 2
        self.point: Optional[list[float]] = None
        self.factor: Optional[list[list[float]]] = None
        self.compiled: list[tuple[Optional[tuple[int, ...]], Choice]] = []

    def fit(self, counts: Sequence[int]) -> list[float]:
        """Ratings (Elo scale, mean 0) per bot."""
        n = self.choices.bots
        scale = self.choices.scale
        chosen = [counts[b] / scale for b in range(n)]
        if len(self.compiled) != len(self.choices.sets):
            self.compiled = [(tuple(u[0] for u in units) if all(len(u) == 1 for u in units)
                              else None, units) for units in self.choices.sets]
        sets = [(counts[n + i] / scale, single, units)
                for i, (single, units) in enumerate(self.compiled) if counts[n + i]]
        theta = None
        if self.point is not None and self.factor is not None:
            theta = self._chord(self.point, chosen, sets)
        if theta is None:
            theta = self._newton(self.point or [0.0] * n, chosen, sets)
        if self.point is None:
            self.point = theta
        mean = sum(theta) / n
        return [(t - mean) * ELO for t in theta]

    def _newton(self, theta: list[float], chosen: list[float],
                sets: Sets) -> list[float]:
        value, gradient, hessian = _evaluate(theta, chosen, sets, self.ridge)
        for _ in range(100):
            factor = _cholesky(hessian)
            if factor is None:
                break
            step = _solve(factor, gradient)
            size = 1.0
            while True:  # halve the step until the objective does not fall
                trial = [t + size * s for t, s in zip(theta, step)]
                new = _evaluate(trial, chosen, sets, self.ridge)
                if new[0] >= value - 1e-12 * abs(value) or size < 1e-6:
                    break
                size /= 2
            theta, (value, gradient, hessian) = trial, new
            if self.factor is None:
                self.factor = factor
            if max(map(abs, step)) * size < 1e-9:
                break
        if self.point is None:
            self.factor = _cholesky(hessian) or self.factor
        return theta

    def _chord(self, theta: list[float], chosen: list[float],
               sets: Sets) -> Optional[list[float]]:
        """Steps of the point fit's curvature; None unless they shrink to 0."""
        assert self.factor is not None
        last = math.inf
        for _ in range(30):
            step = _solve(self.factor, _gradient(theta, chosen, sets, self.ridge))
            size = max(map(abs, step))
            if size > last / 2:
                return None
            theta = [t + s for t, s in zip(theta, step)]
            if size < 1e-8:
                return theta
            last = size
        return None


def fit(choices: Choices, counts: Sequence[int],
        prior_elo: Optional[float] = PRIOR_ELO) -> list[float]:
    """Ratings (Elo scale, mean 0) per bot from one count vector;
    ``prior_elo=None`` fits the likelihood alone (finite only when every bot
    both won and lost a choice)."""
    return Fitter(choices, prior_elo).fit(counts)


Sets = list[tuple[float, Optional[tuple[int, ...]], Choice]]  # weight, bots if units are single


def _worths(theta: list[float]) -> list[float]:
    """exp(theta), scaled by a common factor so none overflows (choice
    chances do not change when every worth is scaled alike)."""
    top = max(theta)
    return [math.exp(t - top) for t in theta]


def _unit_worths(worths: list[float], single: Optional[tuple[int, ...]],
                 units: Choice) -> list[float]:
    if single is not None:
        return [worths[b] for b in single]
    return [math.prod(worths[b] for b in unit) for unit in units]


def _gradient(theta: list[float], chosen: list[float], sets: Sets,
              ridge: float) -> list[float]:
    """The objective's gradient (see ``_evaluate``)."""
    centre = sum(theta)
    gradient = [c - ridge * t - centre for c, t in zip(chosen, theta)]
    worths = _worths(theta)
    for weight, single, units in sets:
        ws = _unit_worths(worths, single, units)
        share = weight / sum(ws)
        if single is not None:
            for b, w in zip(single, ws):
                gradient[b] -= share * w
            continue
        for unit, w in zip(units, ws):
            for a in unit:
                gradient[a] -= share * w
    return gradient


def _evaluate(theta: list[float], chosen: list[float], sets: Sets,
              ridge: float) -> tuple[float, list[float], list[list[float]]]:
    """The objective, its gradient and its negated Hessian at ``theta``.

    The objective is the log-likelihood, the prior, and ``-(sum theta)^2 / 2``:
    a shift of every strength changes nothing else, and this pins it at 0."""
    n = len(theta)
    centre = sum(theta)
    value = sum(c * t for c, t in zip(chosen, theta)) - ridge / 2 * sum(
        t * t for t in theta) - centre * centre / 2
    gradient = [c - ridge * t - centre for c, t in zip(chosen, theta)]
    hessian = [[1.0] * n for _ in range(n)]
    for i in range(n):
        hessian[i][i] += ridge
    worths = _worths(theta)
    top = max(theta)
    for weight, single, units in sets:
        ws = _unit_worths(worths, single, units)
        norm = sum(ws)
        value -= weight * (math.log(norm) + top * len(units[0]))
        share = weight / norm
        chances = [share * w for w in ws]  # weight x P(unit chosen)
        for unit, p in zip(units, chances):  # weight x E[x x^T] - (weight x E[x])...
            for a in unit:
                gradient[a] -= p
                row = hessian[a]
                for b in unit:
                    row[b] += p
        inverse = 1 / weight
        for unit, p in zip(units, chances):  # ... x (weight x E[x])^T / weight
            for a in unit:
                row = hessian[a]
                pa = p * inverse
                for other, q in zip(units, chances):
                    for b in other:
                        row[b] -= pa * q
    return value, gradient, hessian


def _cholesky(matrix: list[list[float]]) -> Optional[list[list[float]]]:
    """The lower factor L of a symmetric positive definite matrix (L L^T), or
    None if it is not positive definite."""
    n = len(matrix)
    low = [[0.0] * n for _ in range(n)]
    for i in range(n):
        for j in range(i + 1):
            s = matrix[i][j] - sum(low[i][k] * low[j][k] for k in range(j))
            if i == j:
                if s <= 1e-300:
                    return None
                low[i][i] = math.sqrt(s)
            else:
                low[i][j] = s / low[j][j]
    return low


def _solve(low: list[list[float]], vector: list[float]) -> list[float]:
    """``(L L^T)^-1 vector`` for a Cholesky factor L."""
    n = len(vector)
    y = [0.0] * n
    for i in range(n):
        y[i] = (vector[i] - sum(low[i][k] * y[k] for k in range(i))) / low[i][i]
    x = [0.0] * n
    for i in reversed(range(n)):
        x[i] = (y[i] - sum(low[k][i] * x[k] for k in range(i + 1, n))) / low[i][i]
    return x
