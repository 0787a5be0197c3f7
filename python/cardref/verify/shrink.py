"""Shrinking a failure found in lockstep to a short game that shows it too.

A game is replayed from its choices (indices into each step's legal actions);
past the end of the list, the first legal action is taken. A candidate counts
if it shows the same kind of failure (``Finding.same_kind``) no later than the
best so far, and is shorter, or as long with smaller choices. Two passes take
turns until neither helps: deleting runs of choices (halves, quarters, ... single
ones), then lowering single choices to 0. The work is bounded by a number of
replays, so a run gives the same result on any machine.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Optional

from . import invariants
from .lockstep import INVARIANT, Checks, Finding, Lockstep, Played
from .table import Table

#: The invariants checked only now and then in a normal run: a shrink checks
#: the one that broke at every step, so that a replay shows it where it is.
SAMPLED = (invariants.ILLEGAL, invariants.LEAK, invariants.ROUND_TRIP, invariants.CLONE)


def checks_for(finding: Finding) -> Checks:
    """The checks a replay of ``finding`` runs: the sampled invariant that
    broke at every step, or none of the sampled ones for the rest."""
    if finding.kind == INVARIANT and finding.name in SAMPLED:
        return Checks(only=finding.name)
    return Checks(illegal=0.0, leak=0.0, round_trip=0.0)


def replay_padded(table: Table, choices: list[int], checks: Checks, stop_after: int) -> Played:
    """Plays ``choices`` (modulo each step's legal count), then the first legal
    action, until a finding, the end, or ``stop_after`` actions."""

    def pick(step: int, state: Any, legal: list) -> Optional[int]:
        if step >= stop_after:
            return None
        return choices[step] % len(legal) if step < len(choices) else 0

    return Lockstep(table, checks).play(pick)


def _better(candidate: Played, target: Finding, best_step: int, best: list[int]) -> bool:
    found = candidate.finding
    if not target.same_kind(found) or found is None:
        return False
    mine = candidate.choices[:found.step]
    return (found.step, mine) < (best_step, best)


def shrink(table: Table, played: Played, max_replays: int = 400,
           progress: Optional[Callable[[int, int], None]] = None) -> Played:
    """A game as short as ``max_replays`` replays could find that shows the same
    kind of failure as ``played``; ``progress(replays, actions)`` is told as it goes."""
    target = played.finding
    if target is None:
        return played
    checks = checks_for(target)
    best = list(played.choices[:target.step])
    best_step = target.step
    replays = 0

    def attempt(candidate: list[int]) -> bool:
        nonlocal best, best_step, replays
        if replays >= max_replays:
            return False
        replays += 1
        result = replay_padded(table, candidate, checks, best_step)
        if progress is not None:
            progress(replays, best_step)
        if _better(result, target, best_step, best):
            best_step = result.finding.step
            best = result.choices[:best_step]
            return True
        return False

    improved = True
    while improved and replays < max_replays:
        improved = _delete_runs(best, attempt) or _lower_choices(lambda: best, attempt)
    final = replay_padded(table, best, checks, best_step)
    if not target.same_kind(final.finding):  # cannot happen, but never lose the finding
        return played
    return final


def _delete_runs(best: list[int], attempt: Callable[[list[int]], bool]) -> bool:
    size = max(1, len(best) // 2)
    while size >= 1:
        start = 0
        while start < len(best):
            if attempt(best[:start] + best[start + size:]):
                return True
            start += size
        size //= 2
    return False


def _lower_choices(current: Callable[[], list[int]],
                   attempt: Callable[[list[int]], bool]) -> bool:
    improved = False
    i = 0
    while i < len(current()):
        best = current()
        if best[i] != 0 and attempt([*best[:i], 0, *best[i + 1:]]):
            improved = True
        i += 1
    return improved
