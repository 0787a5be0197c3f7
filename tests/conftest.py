"""Test setup: Hypothesis profiles and the tests/ directory on sys.path.

Also registers High Card, the game for the tests only (``testgame``).

Profiles: ``ci`` (the default, sized for the 20-minute CI budget), ``dev``
(quick local runs) and ``thorough`` (long runs by hand). Pick one with
``CARDREF_PROFILE=thorough pytest`` or ``pytest --hypothesis-profile thorough``.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, settings

sys.path.insert(0, str(Path(__file__).parent))

_common = dict(
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    print_blob=True,
)
settings.register_profile("dev", max_examples=20, **_common)
settings.register_profile("ci", max_examples=120, derandomize=False, **_common)
settings.register_profile(
    "thorough",
    max_examples=2000,
    phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.target, Phase.shrink],
    **_common,
)
settings.load_profile(os.environ.get("CARDREF_PROFILE", "ci"))

# The game for the tests only, registered like every game (tests/testgame/).
import testgame  # noqa: E402  (found through the path set above)

testgame.register()


@pytest.fixture(autouse=True)
def _no_bot_sandbox_outlives_its_test() -> Iterator[None]:
    """Tests that play games in this process (``play_game``, ``main([...])``)
    leave bot servers warm for the next game, as a worker does; a test ends
    them, so that no sandbox outlives it (the confinement tests count them)."""
    yield
    from cardref.tournament.botserver import close_servers

    close_servers()


@pytest.fixture(scope="session")
def chromium() -> str:
    """The headless browser the page tests open pages in (tests/browser.py)."""
    from browser import find_chromium

    return find_chromium()
