"""The Python reference engine's shared frame: a game's declaration, a game
object and the parts of the state API that are the same for every game.

A reference game module (``cardref/reference/<game>.py``) declares its game
(``GAME``, a ``GameSpec``) and holds its rules: ``VARIANTS`` (the specs of
its section 8), ``check_config(players, params)``,
``canonical_deck(players, params)`` and a ``State`` subclass of
``ReferenceState``. Loading a state from JSON, with its consistency checks,
lives in the module the declaration names (``cardref/reference/loading/``).
"""

from __future__ import annotations

import copy
import importlib
import json
from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Optional

from ..cards import check_deck
from ..errors import IllegalActionError, InvalidSeedError, InvalidStateError
from ..params import check_players, check_variant


@dataclass(frozen=True)
class GameSpec:
    """What the generic code needs to know of a game, declared once, in its
    reference module (``GAME``). The Rust core declares the same in its
    game's folder (``rust/src/games/<id>/mod.rs``); a test checks they agree."""

    #: The game id, as in ``cardref.games()``.
    id: str
    #: The fewest and the most seats (some variants may need more than the fewest).
    min_players: int
    max_players: int
    #: A typical table, used by ``cardref bench`` and the tests.
    default_players: int
    #: The prefix of the rule book's ids (``T5`` in ``T5-3``).
    rule_prefix: str
    #: The module with ``from_dict(players, params, data)``: loading a state.
    loader: str
    #: Fixed partnerships, seats by team (empty if everyone plays alone).
    teams: tuple[tuple[int, ...], ...] = ()
    #: A heuristic bot, native and ``cardref.bots.heuristic.<id>``.
    heuristic: bool = False
    #: Determinization on the Rust core, and so the search bot.
    search: bool = False


#: Where the rule points fired now are counted (``counting``), if anywhere.
_RULE_POINTS: ContextVar[Optional[Counter]] = ContextVar("rule_points", default=None)


@contextmanager
def counting(counts: Counter) -> Iterator[Counter]:
    """Counts into ``counts`` the rule points (``XX-Pn``, the rule book's
    §11) that the reference states fire inside the ``with`` block: the
    states' own code marks each clause as it fires (``fired``), and does
    nothing more while nobody counts."""
    token = _RULE_POINTS.set(counts)
    try:
        yield counts
    finally:
        _RULE_POINTS.reset(token)


def fired(point: str) -> None:
    """Rule point ``point`` fired (counted only inside ``counting``)."""
    counts = _RULE_POINTS.get()
    if counts is not None:
        counts[point] += 1


def counting_now() -> bool:
    """Whether rule points are being counted: lets a rule skip work done only
    to decide which point fired."""
    return _RULE_POINTS.get() is not None


def check_seed(seed: Any) -> int:
    """The seed, if it is an integer with 0 <= seed < 2**64 (never reduced)."""
    if isinstance(seed, int) and not isinstance(seed, bool) and 0 <= seed < 1 << 64:
        return seed
    raise InvalidSeedError(f"seed must be an integer from 0 to 2**64 - 1, got {seed!r}")


def canonical_json(data: Any) -> str:
    """The one JSON spelling both engines produce: sorted keys, no spaces."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"))


class ReferenceState(ABC):
    """What every reference state shares: checked ``apply``, JSON, cloning."""

    GAME_ID = ""

    @abstractmethod
    def current_player(self) -> Optional[int]:
        """Seat to act; None once the game is over."""

    @abstractmethod
    def legal_actions(self) -> list[str]:
        """Every legal action of the player to act, in the documented order."""

    @abstractmethod
    def _apply_unchecked(self, action: str) -> None:
        """Carry out an action already known to be legal."""

    @abstractmethod
    def scores(self) -> list[int]:
        """The game's own tally per seat, completed rounds only."""

    @abstractmethod
    def final_placements(self) -> list[int]:
        """Placements of a finished game."""

    @abstractmethod
    def observation(self, seat: int) -> dict[str, Any]:
        """Everything ``seat`` may know."""

    def observation_json(self, seat: int) -> str:
        """The observation as canonical JSON text, as a bot process is sent it."""
        return canonical_json(self.observation(seat))

    @abstractmethod
    def to_dict(self) -> dict[str, Any]:
        """The whole state as JSON-shaped data (see the game's docs)."""

    def illegal_reason(self, action: str) -> str:
        """Why ``action`` (not in legal_actions) is illegal; games refine this."""
        return "not a legal action now"

    def canonical_action(self, action: str) -> str:
        """The canonical spelling of ``action`` (games whose actions name several
        cards sort them here); anything else is returned unchanged."""
        return action

    def is_terminal(self) -> bool:
        return self.current_player() is None

    def apply(self, action: str) -> None:
        """Apply ``action`` for the player to act, or raise IllegalActionError and
        leave the state exactly as it was."""
        seat = self.current_player()
        if seat is None:
            reason = "the game is over"
        elif not isinstance(action, str):
            reason = "an action must be a string"
        elif self.canonical_action(action) in self.legal_actions():
            self._apply_unchecked(self.canonical_action(action))
            return
        else:
            reason = self.illegal_reason(action)
        raise self._illegal(action, reason)

    def _illegal(self, action: object, reason: str) -> IllegalActionError:
        """The error for ``action`` refused for ``reason``: names game, seat and action."""
        seat = self.current_player()
        who = f"seat {seat} cannot play" if seat is not None else "cannot play"
        return IllegalActionError(f"{self.GAME_ID}: {who} {action!r}: {reason}")

    def legal_count(self) -> int:
        """``len(legal_actions())``; with ``apply_legal`` a loop can choose actions
        by position, which the Rust core serves without writing any text."""
        return len(self.legal_actions())

    def apply_legal(self, index: int) -> None:
        """Apply ``legal_actions()[index]`` (from 0); an index that names no legal
        action is an IllegalActionError and leaves the state as it was."""
        if isinstance(index, bool) or not isinstance(index, int):
            raise IllegalActionError(
                f"an action index must be an integer, not {type(index).__name__}")
        legal = self.legal_actions()
        if 0 <= index < len(legal):
            self._apply_unchecked(legal[index])
            return
        if self.is_terminal():
            reason = "the game is over"
        else:
            reason = f"there are {len(legal)} legal actions, numbered 0 to {len(legal) - 1}"
        raise self._illegal(f"legal action {index}", reason)

    def placements(self) -> Optional[list[int]]:
        """Placements (1 = best, ties share) once the game is over, else None."""
        return self.final_placements() if self.is_terminal() else None

    def history(self) -> list[str]:
        """The actions applied so far."""
        return list(self._history)

    def clone(self) -> ReferenceState:
        return copy.deepcopy(self)

    def to_json(self) -> str:
        return canonical_json(self.to_dict())


class ReferenceGame:
    """A checked game configuration on the reference engine."""

    engine = "reference"

    def __init__(self, module: ModuleType, players: Any, variant: dict[str, Any]) -> None:
        self._module = module
        spec: GameSpec = module.GAME
        self.id: str = spec.id
        self.players = check_players(players, spec.min_players, spec.max_players)
        self.params = check_variant(module.VARIANTS, variant)
        module.check_config(self.players, self.params)
        self._loader = spec.loader

    def new_state(self, seed: Any = None, deck: Any = None) -> ReferenceState:
        """A new game from ``seed``; ``deck`` (top card first) fixes the first deal."""
        seed = 0 if seed is None else check_seed(seed)
        if deck is not None:
            deck = check_deck(deck, self._module.canonical_deck(self.players, self.params))
        return self._module.State(self.players, dict(self.params), seed, deck)

    def state_from_json(self, text: str) -> ReferenceState:
        """Load a state written by ``to_json`` (by either engine), checking it."""
        try:
            data = json.loads(text)
        except (TypeError, ValueError) as e:
            raise InvalidStateError(f"invalid state: not JSON: {e}") from None
        if not isinstance(data, dict) or data.get("game") != self.id:
            raise InvalidStateError(f"invalid state: not a {self.id} state")
        if data.get("players") != self.players:
            raise InvalidStateError(
                f"invalid state: the state is for {data.get('players')} players, "
                f"the game for {self.players}"
            )
        if canonical_json(data.get("params")) != canonical_json(self.params):  # 1 is not true
            raise InvalidStateError(
                f"invalid state: the state's params {data.get('params')} differ from "
                f"the game's {self.params}"
            )
        try:
            loader = importlib.import_module(self._loader)
            return loader.from_dict(self.players, dict(self.params), data)
        except (KeyError, TypeError, ValueError, IndexError, AttributeError) as e:
            if isinstance(e, InvalidStateError):
                raise
            raise InvalidStateError(f"invalid state: {type(e).__name__}: {e}") from None

    def __repr__(self) -> str:
        return f"<Game {self.id} players={self.players} engine=reference params={self.params}>"
