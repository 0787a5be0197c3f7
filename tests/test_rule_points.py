"""Rule points (``XX-Pn``, §11 of every rule book): the same list in the rule
book and in the reference, each one marked where it fires in both engines'
code, every one reached by the scenario suite, and every one a scenario
cites in ``covers`` really fired by it, on both engines."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

import cardref
from cardref import _core, registry
from cardref.reference.base import counting
from cardref.verify import scenarios
from scenario_runner import SCENARIO_ROOT, scenario_files

ROOT = Path(__file__).resolve().parent.parent
ROW = re.compile(r"^\| (\w+-P\d+) \| (§[\d.]+) \| (.+) \|$", re.M)


def rule_book(game_id: str) -> Path:
    book = ROOT / "docs" / "rules" / f"{game_id}.md"
    return book if book.exists() else ROOT / "tests" / "testgame" / "rules.md"


def points(game_id: str) -> dict[str, str]:
    return registry.module(game_id).RULE_POINTS


@pytest.mark.parametrize("game_id", registry.ids())
def test_the_rule_book_and_the_reference_list_the_same_points(game_id: str) -> None:
    text = rule_book(game_id).read_text(encoding="utf-8")
    section = text[text.index("## 11. Rule points"):]
    book = {pid: f"{where} {clause}" for pid, where, clause in ROW.findall(section)}
    assert book == points(game_id)
    prefix = registry.spec(game_id).rule_prefix
    assert list(points(game_id)) == [f"{prefix}-P{i}" for i in range(1, len(book) + 1)]
    assert len(book) <= _core.MAX_RULE_POINTS


@pytest.mark.parametrize("game_id", registry.ids())
def test_both_engines_mark_every_point_where_it_fires(game_id: str) -> None:
    prefix = registry.spec(game_id).rule_prefix
    rust = "".join(p.read_text(encoding="utf-8")
                   for p in (ROOT / "rust" / "src" / "games" / game_id).glob("*.rs"))
    rust_fired = set(re.findall(rf'fired!\([^,]+, "({prefix}-P\d+)"\)', rust))
    source = Path(registry.module(game_id).__file__).read_text(encoding="utf-8")
    code = source[source.index("RULE_POINTS = {"):]
    code = code[code.index("\n}\n"):]  # the module after its list of points
    python_fired = set(re.findall(rf'"({prefix}-P\d+)"', code))
    assert rust_fired == set(points(game_id)), "Rust"
    assert python_fired == set(points(game_id)), "Python"


def fired_by(doc: dict, engine: str) -> Counter:
    """The rule points a scenario file fires, on one engine: its deal's, unless
    a ``[patch]`` replaces the dealt state, and its actions'."""
    actions = [a for step in doc.get("step", []) for a in step.get("do", [])]
    counts: Counter = Counter()
    if engine == "reference":
        dealt = Counter()
        with counting(dealt):
            state = scenarios.setup(doc, engine)
        if "patch" not in doc:
            counts.update(dealt)
        with counting(counts):
            for action in actions:
                state.apply(action)
        return counts
    game = cardref.load(doc["game"], doc["players"], **doc.get("variant", {}))
    start = scenarios.setup(doc, engine).to_json() if "patch" in doc else None
    for step in game.rule_points(doc.get("seed", 0), actions, deck=scenarios.first_deck(doc),
                                 state=start):
        counts.update(step)
    return counts


FILES = [p for p in scenario_files() if "error" not in scenarios.load(p)]


@pytest.fixture(scope="module")
def fired() -> dict[tuple[Path, str], Counter]:
    out = {}
    for path in FILES:
        doc = scenarios.load(path)
        for engine in ("rust", "reference"):
            if engine == "reference" or doc["game"] in cardref.games():
                out[path, engine] = fired_by(doc, engine)
    return out


@pytest.mark.parametrize("game_id", registry.ids())
def test_the_scenario_suite_reaches_every_point(game_id: str, fired) -> None:
    reached: Counter = Counter()
    for (path, engine), counts in fired.items():
        if engine == "reference" and path.parent.name == game_id:
            reached.update(counts)
    missing = [p for p in points(game_id) if not reached[p]]
    assert not missing, f"no scenario of {game_id} reaches {missing}"


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(SCENARIO_ROOT)))
def test_a_scenario_fires_every_point_it_covers(path: Path, fired) -> None:
    doc = scenarios.load(path)
    cited = [c for c in doc["covers"] if re.fullmatch(r"\w+-P\d+", c)]
    for engine in ("rust", "reference"):
        if (path, engine) in fired:
            silent = [p for p in cited if not fired[path, engine][p]]
            assert not silent, f"{engine}: covers {silent} but does not fire them"
