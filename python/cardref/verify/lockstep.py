"""Both engines in lockstep: the same game played on the Rust core and on the
Python reference, compared after every step on everything a caller can see
(the player to act, the legal actions, every seat's observation, scores,
placements, rounds, the end, the canonical JSON, the rule points each step
fired), with every invariant of ``invariants`` checked on both. The first
difference or broken invariant is a ``Finding``; ``cardref verify`` shrinks it
(``shrink``) and writes it down (``report``)."""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Optional

import cardref

from ..reference.base import counting
from . import invariants
from .kits import kit as game_kit
from .table import Table, reference_canonical_deck

ENGINES = ("rust", "reference")
DISAGREEMENT = "disagreement"
INVARIANT = "invariant"
#: The engines' answers compared after every step, in this order.
FIELDS = ("current_player", "legal_actions", "legal_count", "is_terminal", "scores",
          "placements", "rounds")


@dataclass
class Finding:
    """What went wrong, and after how many actions (0: at the deal)."""

    kind: str
    #: The field the engines differ on (``scores``, ``observation(2)``, ``rule
    #: points``, ``apply``), or the invariant broken.
    name: str
    step: int
    rust: Any = None
    reference: Any = None
    #: For an invariant: the engines that broke it and how.
    detail: str = ""
    engines: tuple[str, ...] = ()
    #: For a disagreement: the top-level keys of the state JSON that differ,
    #: each with the two engines' values (where both wrote valid JSON).
    state_diff: dict[str, Any] = field(default_factory=dict)

    def headline(self) -> str:
        """What went wrong and where, without the values."""
        if self.kind == INVARIANT:
            return f"the invariant '{self.name}' is broken after {self.step} actions"
        return f"the engines differ on {self.name} after {self.step} actions"

    def same_kind(self, other: Optional[Finding]) -> bool:
        """Whether ``other`` is the same failure (a shorter game may show it sooner)."""
        return other is not None and (self.kind, self.name) == (other.kind, other.name)

    def __str__(self) -> str:
        if self.kind == INVARIANT:
            return (f"after {self.step} actions, the invariant '{self.name}' is broken on "
                    f"{' and '.join(self.engines)}: {self.detail}")
        return (f"after {self.step} actions, the engines differ on {self.name}: "
                f"rust {_short(self.rust)}, reference {_short(self.reference)}")


def _short(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, default=str)
    return text if len(text) <= 160 else text[:157] + "..."


@dataclass
class Checks:
    """Which invariants run after a step: the cheap ones always, the costly
    ones on a random share of the steps, or one invariant at every step
    (``only``, for shrinking a failure of it)."""

    illegal: float = 0.1
    leak: float = 0.05
    round_trip: float = 0.03
    only: Optional[str] = None

    def wants(self, name: str, share: float, rng: random.Random) -> bool:
        if self.only is not None:
            return self.only == name
        return rng.random() < share


#: Chooses the next action: ``pick(step, reference_state, legal_actions)`` returns an
#: index into the legal actions, or None to stop (a replay that has run out).
Pick = Callable[[int, Any, list], Optional[int]]


@dataclass
class Played:
    """A game played in lockstep: the actions, the choice index of each (into
    that step's legal actions), the first finding, and the rule points the
    reference counted."""

    table: Table
    actions: list[str] = field(default_factory=list)
    choices: list[int] = field(default_factory=list)
    finding: Optional[Finding] = None
    points: Counter = field(default_factory=Counter)
    finished: bool = False


def _outcome(call: Callable[[], Any]) -> tuple[str, Any]:
    """What a call on an engine gave: ("ok", value) or ("error", its message)."""
    try:
        return "ok", call()
    except Exception as e:  # an engine's crash is a finding, not the end of verify
        return "error", f"{type(e).__name__}: {e}"


def _differing_keys(a: Any, b: Any) -> tuple[Any, Any]:
    """Two dicts cut down to the keys whose values differ; anything else whole."""
    if isinstance(a, dict) and isinstance(b, dict):
        keys = sorted(k for k in set(a) | set(b) if a.get(k, ...) != b.get(k, ...))
        return ({k: a.get(k) for k in keys}, {k: b.get(k) for k in keys})
    return a, b


def first_difference(rust: Any, ref: Any, players: int, step: int,
                     texts: Optional[list[str]] = None) -> Optional[Finding]:
    """The first thing the two states show differently, if any, with the
    state JSON keys that differ (``texts`` receives the canonical JSON both
    showed, when they agree on it)."""
    finding = _first_field(rust, ref, players, step, texts)
    if finding is not None:
        finding.state_diff = _state_diff(rust, ref)
    return finding


def _state_diff(rust: Any, ref: Any) -> dict[str, Any]:
    """The top-level keys of the state JSON on which the engines differ."""
    both = _outcome(rust.to_json), _outcome(ref.to_json)
    if both[0][0] != "ok" or both[1][0] != "ok":
        return {}
    a, b = (json.loads(t[1]) for t in both)
    return {k: {"rust": a.get(k), "reference": b.get(k)}
            for k in sorted(set(a) | set(b)) if a.get(k, ...) != b.get(k, ...)}


def _first_field(rust: Any, ref: Any, players: int, step: int,
                 texts: Optional[list[str]]) -> Optional[Finding]:
    for name in FIELDS:
        got = _outcome(getattr(rust, name)), _outcome(getattr(ref, name))
        if got[0] != got[1]:
            return Finding(DISAGREEMENT, name, step, got[0][1], got[1][1])
    for seat in range(players):
        got = (_outcome(lambda s=seat: rust.observation(s)),
               _outcome(lambda s=seat: ref.observation(s)))
        if got[0] != got[1]:
            return Finding(DISAGREEMENT, f"observation({seat})", step,
                           *_differing_keys(got[0][1], got[1][1]))
    both = _outcome(rust.to_json), _outcome(ref.to_json)
    if both[0] != both[1]:
        values = [json.loads(t[1]) if t[0] == "ok" else t[1] for t in both]
        return Finding(DISAGREEMENT, "to_json", step, *_differing_keys(*values))
    if texts is not None:
        texts.append(both[1][1])
    return None


class Lockstep:
    """One game on both engines, stepped together and checked after every step."""

    def __init__(self, table: Table, checks: Optional[Checks] = None,
                 engines: tuple[str, ...] = ENGINES) -> None:
        self.table = table
        self.checks = checks or Checks()
        self.kit = game_kit(table.game_id)
        #: Both engines, compared; or one, whose invariants alone are checked.
        self.engines = engines
        self.lead = "reference" if "reference" in engines else engines[0]
        self.games = {engine: table.load(engine) for engine in engines}
        self.deck = Counter(reference_canonical_deck(table.game_id, table.players,
                                                     table.variant))
        params = self.games[self.lead].params
        self.bound = self.kit.max_actions(table.players, params)
        self.played = Played(table)
        self.points_by_step: list[Counter] = []
        self.shadows: dict[str, Any] = {}
        #: The canonical JSON of the latest step, which both engines showed.
        self.texts: list[str] = []

    def play(self, pick: Pick) -> Played:
        """Plays until the end, a finding, or ``pick`` stops."""
        played = self.played
        played.finding = self._deal() or self._check(0)
        while played.finding is None and not self.states[self.lead].is_terminal():
            legal = self.states[self.lead].legal_actions()
            step = len(played.actions)
            index = pick(step, self.states[self.lead], legal)
            if index is None:
                played.finding = self._check(step, last=True)
                break
            played.finding = self._step(legal, index) or self._check(step + 1)
        if played.finding is None:
            played.finding = self._compare_points()
        if played.finding is None and self.states[self.lead].is_terminal():
            played.finished = True
            played.finding = self._check_finished()
        for counts in self.points_by_step:
            played.points.update(counts)
        return played

    def _deal(self) -> Optional[Finding]:
        seed = self.table.seed
        counts: Counter = Counter()
        dealt = {}
        for engine, game in self.games.items():
            with counting(counts if engine == "reference" else Counter()):
                dealt[engine] = _outcome(lambda g=game: g.new_state(seed=seed))
        self.points_by_step.append(counts)
        if any(result[0] != "ok" for result in dealt.values()):
            shown = {e: "dealt" if r[0] == "ok" else r[1] for e, r in dealt.items()}
            agree = len({r[0] for r in dealt.values()}) == 1
            return Finding(INVARIANT if agree else DISAGREEMENT, "new_state", 0,
                           shown.get("rust"), shown.get("reference"),
                           detail="; ".join(f"{e}: {s}" for e, s in shown.items()),
                           engines=tuple(e for e, r in dealt.items() if r[0] != "ok"))
        self.states = {engine: result[1] for engine, result in dealt.items()}
        return self._compare(0)

    def _compare(self, step: int) -> Optional[Finding]:
        """The two engines' states after ``step`` actions, or the one engine's JSON."""
        if len(self.engines) == 2:
            return first_difference(self.states["rust"], self.states["reference"],
                                    self.table.players, step, self.texts)
        self.texts.append(self.states[self.lead].to_json())
        return None

    def _step(self, legal: list[str], index: int) -> Optional[Finding]:
        """Applies ``legal[index]`` to both engines (by its text on odd steps, by
        its index on even ones, which must name the same action)."""
        played = self.played
        action = legal[index]
        played.actions.append(action)
        played.choices.append(index)
        step = len(played.actions)
        counts: Counter = Counter()
        results = {}
        for engine, state in self.states.items():
            apply = (lambda s=state: s.apply(action)) if step % 2 else (
                lambda s=state: s.apply_legal(index))
            if engine == "reference":
                with counting(counts):
                    results[engine] = _outcome(apply)
            else:
                results[engine] = _outcome(apply)
        self.points_by_step.append(counts)
        for engine, shadow in list(self.shadows.items()):
            if _outcome(lambda s=shadow: s.apply(action))[0] != "ok":
                self.shadows[engine] = _Refused(action)
        if len({r for r in results.values()}) > 1:
            shown = {e: "applied" if r[0] == "ok" else r[1] for e, r in results.items()}
            return Finding(DISAGREEMENT, "apply", step, shown["rust"], shown["reference"],
                           detail=f"applying {action!r}")
        if results[self.lead][0] != "ok":
            return Finding(INVARIANT, "a legal action is refused", step,
                           detail=f"{action!r}: {results[self.lead][1]}", engines=self.engines)
        return self._compare(step)

    def _check(self, step: int, last: bool = False) -> Optional[Finding]:
        """Every invariant due after ``step`` actions, on both engines (the ones
        on the state's JSON once: both engines showed the same JSON)."""
        broken: dict[str, invariants.Broken] = {}
        text = self.texts[-1]
        data = json.loads(text)
        rng = random.Random(f"{self.table.seed}:{step}")
        checks = self.checks
        if checks.only is None or checks.only in (invariants.CARDS, invariants.GAME_RULES):
            try:
                invariants.check_state(self.kit, data, self.deck)
            except invariants.Broken as e:
                broken = {engine: e for engine in self.engines}
        for engine, state in self.states.items():
            if engine in broken:
                continue
            try:
                self._invariants(engine, state, text, step, random.Random(rng.random()), last)
            except invariants.Broken as e:
                broken[engine] = e
        if not broken:
            return None
        first = next(iter(broken.values()))
        return Finding(INVARIANT, first.name, step,
                       detail="; ".join(f"{e}: {b.detail}" for e, b in broken.items()),
                       engines=tuple(broken))

    def _invariants(self, engine: str, state: Any, text: str, step: int,
                    rng: random.Random, last: bool) -> None:
        checks, game = self.checks, self.games[engine]
        invariants.check_placements(state)
        invariants.check_bound(step, self.bound)
        round_trip = checks.wants(invariants.ROUND_TRIP, checks.round_trip, rng)
        shadow = self.shadows.get(engine)
        # A state loaded from JSON earlier must have played on alike: looked at
        # when a round trip is due and at the end, not at every step (a JSON text each).
        if shadow is not None and (round_trip or last or state.is_terminal()) and \
                shadow.to_json() != text:
            raise invariants.Broken(invariants.ROUND_TRIP,
                                    "a state loaded from JSON played on differently")
        if state.is_terminal():
            return
        if checks.wants(invariants.ILLEGAL, checks.illegal, rng):
            invariants.check_illegal_refused(state, rng)
        if checks.wants(invariants.LEAK, checks.leak, rng):
            invariants.check_no_leak(self.kit, game, state, rng.randrange(self.table.players),
                                     rng)
        if round_trip:
            self.shadows[engine] = invariants.check_round_trip(game, state)
        if checks.wants(invariants.CLONE, checks.round_trip, rng):
            invariants.check_clone(state)

    def _check_finished(self) -> Optional[Finding]:
        broken = {}
        for engine, state in self.states.items():
            try:
                invariants.check_finished(state, self.table.players, self.played.actions)
            except invariants.Broken as e:
                broken[engine] = e
        if not broken:
            return None
        first = next(iter(broken.values()))
        return Finding(INVARIANT, first.name, len(self.played.actions),
                       detail="; ".join(f"{e}: {b.detail}" for e, b in broken.items()),
                       engines=tuple(broken))

    def _compare_points(self) -> Optional[Finding]:
        """The rule points each step fired: the reference counted them as it
        played; a counting Rust state replays the actions."""
        if len(self.engines) < 2:
            return None
        table = self.table
        outcome = _outcome(lambda: self.games["rust"].rule_points(table.seed,
                                                                   self.played.actions))
        if outcome[0] != "ok":
            return Finding(DISAGREEMENT, "rule points", len(self.played.actions),
                           outcome[1], "replayed")
        for step, (rust, ref) in enumerate(zip(outcome[1], self.points_by_step)):
            if rust != dict(ref):
                return Finding(DISAGREEMENT, "rule points", step, dict(sorted(rust.items())),
                               dict(sorted(ref.items())))
        return None


class _Refused:
    """Stands for a state loaded from JSON that refused an action the game played."""

    def __init__(self, action: str) -> None:
        self.action = action

    def to_json(self) -> str:
        return f"(a state loaded from JSON refused {self.action!r})"

    def apply(self, action: str) -> None:
        """It stays refused."""


def replay(table: Table, choices: list[int], checks: Optional[Checks] = None) -> Played:
    """Plays ``choices`` (indices into each step's legal actions, taken modulo
    their number) in lockstep, stopping when they run out."""

    def pick(step: int, state: Any, legal: list) -> Optional[int]:
        return choices[step] % len(legal) if step < len(choices) else None

    return Lockstep(table, checks).play(pick)


def rule_points_of(game_id: str) -> dict[str, str]:
    """The rule points of a game (its rule book's §11): id → the clause."""
    from .. import registry

    return dict(getattr(registry.module(game_id), "RULE_POINTS", {}))


def engines_available(game_id: str) -> bool:
    return game_id in cardref.games()
