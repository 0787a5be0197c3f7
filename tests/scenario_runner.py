"""The scenario files of the suite (``tests/scenarios/<game>/``), replayed by
the package's runner (``cardref.verify.scenarios``, which ``cardref scenario
check`` uses too); the Rust integration test ``rust/tests/scenarios.rs`` reads
the same files."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cardref.verify import scenarios

SCENARIO_ROOT = Path(__file__).parent / "scenarios"


def scenario_files() -> list[Path]:
    return sorted(SCENARIO_ROOT.rglob("*.toml"))


def load_scenario(path: Path) -> dict[str, Any]:
    return scenarios.load(path)


def run(doc: dict[str, Any], engine: str) -> None:
    """Replays one scenario; AssertionError lists every expectation that fails."""
    failures = scenarios.run(doc, engine)
    assert not failures, "\n".join(map(str, failures))
