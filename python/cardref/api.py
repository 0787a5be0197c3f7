"""``cardref.games()`` and ``cardref.load()``: the two entry points to the engines."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Optional

from . import registry
from .errors import InvalidParamsError, UnknownGameError
from .reference import ReferenceGame

ENGINES = ("rust", "reference")


def games() -> list[str]:
    """Ids of the available games (both engines play them), sorted."""
    from . import _core

    return [g for g in registry.ids() if g in _core.GAME_IDS]


def load(game_id: str, players: int, engine: str = "rust", **variant: Any) -> Any:
    """A game configuration: ``players`` seats and the game's variant keys.

    ``engine="rust"`` (the default) runs on the native core; ``engine="reference"``
    on the readable Python reference. Both expose ``new_state(seed, deck=None)``
    and ``state_from_json(text)`` and behave identically.
    """
    if game_id not in registry.ids():
        raise UnknownGameError(f"unknown game {game_id!r}; available games: {', '.join(games())}")
    if engine == "rust":
        from . import _core

        return _core.Game(game_id, players, variant)
    if engine == "reference":
        return ReferenceGame(registry.module(game_id), players, variant)
    raise InvalidParamsError(f"engine: must be one of {', '.join(ENGINES)}, got {engine!r}")


def simulate(
    game_id: str,
    *,
    players: int,
    games: int,
    bots: Sequence[str],
    seed: int = 0,
    threads: Optional[int] = None,
    records: bool = False,
    scheduler: Optional[str] = None,
    **variant: Any,
) -> dict[str, Any]:
    """Play ``games`` complete games inside the Rust core with native bots.

    ``bots`` names one native bot per seat: ``"random"``, ``"heuristic"`` or
    ``"search"``. Game ``i`` is dealt from a seed derived from ``seed`` and ``i``
    (``records`` gives it), so the results are the same for any ``threads``
    (``None``: every core). The GIL is released while the games run.

    Returns a dict with ``games``, ``actions``, ``seconds``, ``threads`` and
    ``seats`` (per seat: ``bot``, ``mean_placement``, ``wins``, ``mean_score``);
    with ``records=True`` also ``records``: per game its ``seed``, ``actions``,
    ``scores`` and ``placements`` (``load(...).new_state(seed)`` replays it).

    ``scheduler`` (a Dask scheduler's address, ``cardref[dask]``) splits the
    games over that cluster's workers, with the same results as here for the
    same seed (docs/scaling.md); ``threads`` is then the cluster's.
    """
    if scheduler is not None:
        from . import cluster

        return cluster.simulate(scheduler, game_id, players, games, list(bots), seed,
                                records, variant)
    game = load(game_id, players, engine="rust", **variant)
    return game.simulate(list(bots), games, seed, threads, records)
