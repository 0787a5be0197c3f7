"""Scenario files (format: ``docs/scenarios.md``): reading one, replaying it
against an engine, and reporting every expectation that does not hold.

The Rust integration test ``rust/tests/scenarios.rs`` reads the same files; the
two runners are kept deliberately simple so that a file means the same to both.
A file is *undecided* while it holds a top-level ``undecided`` note or a
``[step.undecided]`` table (what ``cardref verify`` found, or values that
``cardref scenario new`` filled in from the engines): such a file always fails,
until a person has written the right values from the rule book.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

import cardref

from ..reference.base import counting
from .table import reference_canonical_deck

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

TOP_KEYS = {"title", "covers", "game", "players", "variant", "seed", "deck", "deal", "patch",
            "step", "error", "undecided"}
STEP_KEYS = {"do", "expect", "observe", "undecided"}
EXPECT_KEYS = {"current_player", "legal", "illegal", "scores", "placements", "terminal",
               "history", "fired"}
ERRORS = ("InvalidParamsError", "InvalidDeckError", "UnknownGameError", "InvalidSeedError",
          "InvalidStateError")


class ScenarioError(Exception):
    """A file that is not a scenario: bad TOML, unknown keys, missing fields."""


@dataclass
class Failure:
    """One expectation of a file that does not hold on one engine."""

    path: str
    engine: str
    #: The step (0-based) and its field, or "setup".
    step: Optional[int]
    field: str
    expected: Any = None
    got: Any = None
    #: Set when this is no comparison (an undecided record, an action refused).
    message: str = ""

    def __str__(self) -> str:
        where = f"{self.path} [{self.engine}]" + ("" if self.step is None else f" step {self.step}")
        if self.message:
            return f"{where}: {self.field}: {self.message}"
        return f"{where}: {self.field}: expected {_show(self.expected)}, got {_show(self.got)}"


def _show(value: Any) -> str:
    text = json.dumps(value, sort_keys=True)
    return text if len(text) <= 300 else text[:297] + "..."


def scenario_paths(targets: list[Path]) -> list[Path]:
    """The ``.toml`` files the given files and folders hold (folders searched
    recursively), sorted within each folder; a missing path is a ScenarioError."""
    found: list[Path] = []
    for target in targets:
        if target.is_dir():
            found += sorted(target.rglob("*.toml"))
        elif target.is_file():
            found.append(target)
        else:
            raise ScenarioError(f"{target}: no such file or folder")
    return found


def load(path: Path) -> dict[str, Any]:
    """The TOML of a scenario file, with its keys checked."""
    try:
        doc = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as e:
        raise ScenarioError(f"{path}: cannot read it: {e}") from None
    except tomllib.TOMLDecodeError as e:
        raise ScenarioError(f"{path}: not valid TOML: {e}") from None
    check_keys(doc, str(path))
    return doc


def check_keys(doc: dict[str, Any], where: str) -> None:
    """Unknown keys and missing required ones are errors that name them."""
    unknown = set(doc) - TOP_KEYS
    if unknown:
        raise ScenarioError(f"{where}: unknown keys {sorted(unknown)} (docs/scenarios.md)")
    for key in ("title", "game", "players"):
        if key not in doc:
            raise ScenarioError(f"{where}: the key {key!r} is required")
    for i, step in enumerate(doc.get("step", [])):
        unknown = set(step) - STEP_KEYS
        if unknown:
            raise ScenarioError(f"{where}: step {i}: unknown keys {sorted(unknown)}")
        bad = set(step.get("expect", {})) - EXPECT_KEYS
        if bad:
            raise ScenarioError(f"{where}: step {i}: unknown expect keys {sorted(bad)}")
    if "error" in doc and doc["error"] not in ERRORS:
        raise ScenarioError(f"{where}: error must be one of {', '.join(ERRORS)}")


def is_undecided(doc: dict[str, Any]) -> bool:
    return "undecided" in doc or any("undecided" in s for s in doc.get("step", []))


def _cards(items: list[Any]) -> list[str]:
    return [str(c) for c in items]


def stacked_deck(deal: dict[str, Any], canonical: list[str]) -> list[str]:
    """Hands dealt one card at a time from seat ``first``, then ``then``, then the
    remaining cards in canonical order."""
    hands = [_cards(h) for h in deal["hands"]]
    first = deal.get("first", 0)
    n = len(hands)
    deck = []
    for k in range(max(len(h) for h in hands)):
        for j in range(n):
            hand = hands[(first + j) % n]
            if k < len(hand):
                deck.append(hand[k])
    deck += _cards(deal.get("then", []))
    rest = list(canonical)
    for card in deck:
        if card in rest:
            rest.remove(card)
    return deck + rest


def first_deck(doc: dict[str, Any]) -> Optional[list[str]]:
    """The explicit first deck a file gives (``deck`` or ``[deal]``), if any."""
    if "deck" in doc:
        return _cards(doc["deck"])
    if "deal" in doc:
        canonical = reference_canonical_deck(doc["game"], doc["players"], doc.get("variant", {}))
        return stacked_deck(doc["deal"], canonical)
    return None


def setup(doc: dict[str, Any], engine: str) -> Any:
    """The file's starting state on ``engine`` (the deal, then the ``[patch]``)."""
    game = cardref.load(doc["game"], doc["players"], engine=engine, **doc.get("variant", {}))
    state = game.new_state(seed=doc.get("seed", 0), deck=first_deck(doc))
    if "patch" in doc:
        data = json.loads(state.to_json())
        data.update(doc["patch"])
        state = game.state_from_json(json.dumps(data))
    return state


def _fired_by_step(doc: dict[str, Any], engine: str) -> list[Counter]:
    """The rule points each step's actions fire, on ``engine``: counted by the
    reference as it replays; replayed on a counting Rust state for the core."""
    steps = [list(step.get("do", [])) for step in doc.get("step", [])]
    if engine == "reference":
        state = setup(doc, engine)
        out = []
        for actions in steps:
            counts: Counter = Counter()
            with counting(counts):
                for action in actions:
                    state.apply(action)
            out.append(counts)
        return out
    game = cardref.load(doc["game"], doc["players"], engine=engine, **doc.get("variant", {}))
    start = setup(doc, engine).to_json() if "patch" in doc else None
    per_action = game.rule_points(doc.get("seed", 0), [a for s in steps for a in s],
                                  deck=first_deck(doc), state=start)[1:]
    out, i = [], 0
    for actions in steps:
        counts = Counter()
        for fired in per_action[i:i + len(actions)]:
            counts.update(fired)
        out.append(counts)
        i += len(actions)
    return out


def run(doc: dict[str, Any], engine: str, path: str = "",
        undecided: bool = True) -> list[Failure]:
    """Replays one scenario on ``engine``; every expectation that does not hold
    (and, unless ``undecided`` is false, every undecided record)."""
    fails: list[Failure] = []
    if "undecided" in doc and undecided:
        fails.append(Failure(path, engine, None, "undecided",
                             message=f"not yet worked out by hand: {doc['undecided']}"))
    if "error" in doc:
        error = getattr(cardref, doc["error"])
        try:
            setup(doc, engine)
        except error:
            return fails
        except ValueError as e:
            return [*fails, Failure(path, engine, None, "setup", doc["error"],
                                    f"{type(e).__name__}: {e}")]
        return [*fails, Failure(path, engine, None, "setup", doc["error"], "no error")]
    try:
        state = setup(doc, engine)
    except ValueError as e:
        return [*fails, Failure(path, engine, None, "setup",
                                message=f"{type(e).__name__}: {e}")]
    fired = None
    if any("fired" in s.get("expect", {}) for s in doc.get("step", [])):
        fired = _fired_by_step(doc, engine)
    for i, step in enumerate(doc.get("step", [])):
        if "undecided" in step and undecided:
            fails.append(Failure(path, engine, i, "undecided",
                                 message=describe_undecided(step["undecided"])))
        for action in step.get("do", []):
            try:
                state.apply(action)
            except ValueError as e:
                fails.append(Failure(path, engine, i, "do", message=f"{action!r} refused: {e}"))
                return fails
        fails += check_expect(state, step.get("expect", {}), path, engine, i,
                              fired[i] if fired is not None else None)
        for obs in step.get("observe", []):
            fails += check_observe(state, obs, path, engine, i)
    return fails


def describe_undecided(record: dict[str, Any]) -> str:
    """One line for an undecided record: the field and both values, or the invariant."""
    if "invariant" in record:
        return f"invariant broken, {record['invariant']}: {record.get('detail', '')}"
    field = record.get("field", "?")
    rust = record.get("rust", record.get("rust_json"))
    ref = record.get("reference", record.get("reference_json"))
    return f"the engines differ on {field}: rust {_show(rust)}, reference {_show(ref)}"


def check_expect(state: Any, expect: dict[str, Any], path: str, engine: str, step: int,
                 fired: Optional[Counter]) -> list[Failure]:
    """Every ``[step.expect]`` value against the state."""
    fails = []

    def same(field: str, got: Any) -> None:
        if field in expect and got != expect[field]:
            fails.append(Failure(path, engine, step, field, expect[field], got))

    current = state.current_player()
    same("current_player", "none" if current is None else current)
    if "legal" in expect:
        same("legal", state.legal_actions())
    same("scores", state.scores())
    same("placements", state.placements())
    same("terminal", state.is_terminal())
    if "history" in expect:
        same("history", state.history())
    if fired is not None and "fired" in expect:
        missing = [p for p in expect["fired"] if fired[p] == 0]
        if missing:
            fails.append(Failure(path, engine, step, "fired", expect["fired"],
                                 sorted(fired)))
    for action in expect.get("illegal", []):
        before = state.to_json()
        try:
            state.apply(action)
        except cardref.IllegalActionError:
            if state.to_json() != before:
                fails.append(Failure(path, engine, step, "illegal",
                                     message=f"illegal {action!r} changed the state"))
        else:
            fails.append(Failure(path, engine, step, "illegal",
                                 message=f"{action!r} should be illegal, and was applied"))
            break
    return fails


def check_observe(state: Any, obs: dict[str, Any], path: str, engine: str,
                  step: int) -> list[Failure]:
    """The fields of one ``[[step.observe]]`` table against ``observation(seat)``."""
    fails = []
    seat = obs["seat"]
    seen = state.observation(seat)
    for field in obs.get("null", []):
        if seen.get(field) is not None:
            fails.append(Failure(path, engine, step, f"observation({seat}).{field}", None,
                                 seen.get(field)))
    for field, want in obs.items():
        if field not in ("seat", "null") and seen.get(field) != want:
            fails.append(Failure(path, engine, step, f"observation({seat}).{field}", want,
                                 seen.get(field)))
    return fails
