"""The replay page: one self-contained HTML file that draws a game step by step.

``replay_page(Replay(...))`` replays the stored actions through the engine
and records, after every action, the referee's full view (the state's
``to_json``) and each seat's view (``observation(seat)``: only what that seat
may know). Consecutive views mostly differ a little, so each is stored as a
patch on the one before (``diff``; the page's script applies them with
``patch``). The page (``page.html`` with ``viewer.css`` and ``viewer.js``
inlined) draws the table of each game in its own layout; it loads nothing
from anywhere. Everything a bot controls (its name, its messages and
traceback) reaches the page only as JSON data, shown as text.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

import cardref

HERE = Path(__file__).parent

#: The legal actions recorded per step (a Hundred ace alone has 101).
LEGAL_SHOWN = 60
#: The most items a list patch drops from the front (see ``diff``).
SHIFTS = 4


class ReplayError(Exception):
    """The actions do not replay on this engine (the message says where)."""


@dataclass
class Replay:
    """One game to draw: how to deal it, who sat where and what each seat did.

    ``actions`` are ``(seat, actor, action, seconds)`` with ``actor`` "bot",
    "fallback" or "human"; ``statuses``, ``messages`` and ``tracebacks`` are
    per seat (empty: every seat ``ok``), and ``placements`` the final ones
    (empty: the engine's, which do not count forfeits).
    """

    game: str
    players: int
    params: dict[str, Any]
    seed: int
    names: list[str]
    actions: list[tuple[int, str, str, float]]
    title: str
    engine: str = "rust"
    statuses: list[str] = field(default_factory=list)
    messages: list[Optional[str]] = field(default_factory=list)
    tracebacks: list[Optional[str]] = field(default_factory=list)
    placements: list[int] = field(default_factory=list)


def diff(old: Any, new: Any) -> Any:
    """A patch that turns ``old`` into ``new`` (``old`` None: all of ``new``).

    ``{"=": value}`` replaces; ``{"k": {key: patch}, "r": [keys]}`` patches an
    object's keys and removes some; ``{"+": items}`` appends to a list, and
    ``{"s": n, "+": items}`` drops its first n items first (a sliding window
    such as Hundred's ``recent``); ``{"i": {index: patch}}`` patches a list of
    the same length. Unchanged parts are left out.
    """
    if isinstance(old, dict) and isinstance(new, dict):
        keys = {k: diff(old[k], v) for k, v in new.items() if k in old and old[k] != v}
        keys.update({k: {"=": v} for k, v in new.items() if k not in old})
        gone = [k for k in old if k not in new]
        return {"k": keys, **({"r": gone} if gone else {})}
    if isinstance(old, list) and isinstance(new, list):
        for shift in range(min(len(old), SHIFTS) + 1):
            kept = len(old) - shift
            if len(new) > kept and new[:kept] == old[shift:] and (kept or not old):
                return {"+": new[kept:], **({"s": shift} if shift else {})}
        if len(new) == len(old):
            return {"i": {str(i): diff(a, b) for i, (a, b) in enumerate(zip(old, new))
                          if a != b}}
    return {"=": new}


def patch(old: Any, change: Any) -> Any:
    """``old`` with a ``diff`` applied (the page's script does the same)."""
    if "=" in change:
        return change["="]
    if "+" in change:
        return [*old[change.get("s", 0):], *change["+"]]
    if "i" in change:
        out = list(old)
        for index, part in change["i"].items():
            out[int(index)] = patch(out[int(index)], part)
        return out
    out = {k: v for k, v in old.items() if k not in change.get("r", [])}
    for key, part in change["k"].items():
        out[key] = patch(out.get(key), part)
    return out


def page_data(replay: Replay) -> dict[str, Any]:
    """Everything the page shows: per step the seat to act, its legal actions
    and its answer, and the patches of the full and per-seat views."""
    engine = cardref.load(replay.game, replay.players, engine=replay.engine, **replay.params)
    state = engine.new_state(seed=replay.seed)
    views: list[Any] = [None] * (replay.players + 1)  # the full view, then each seat's
    patches: list[list[Any]] = [[] for _ in views]
    steps = []
    for k in range(len(replay.actions) + 1):
        current = [json.loads(state.to_json()),
                   *(json.loads(state.observation_json(s)) for s in range(replay.players))]
        for i, view in enumerate(current):
            patches[i].append(diff(views[i], view))
            views[i] = view
        step: dict[str, Any] = {"to_act": state.current_player()}
        if k < len(replay.actions):
            step.update(_apply(state, k, replay.actions[k]))
        steps.append(step)
    n = replay.players
    return {
        "title": replay.title, "game": replay.game, "players": n, "params": engine.params,
        "variant": _variant(replay.game, n, replay.engine, engine.params),
        "seed": str(replay.seed), "engine": replay.engine, "names": list(replay.names),
        "statuses": replay.statuses or ["ok"] * n,
        "messages": replay.messages or [None] * n,
        "tracebacks": replay.tracebacks or [None] * n,
        "over": state.is_terminal(),
        "scores": list(state.scores()),
        "placements": (replay.placements or list(state.placements())) if state.is_terminal()
        else None,
        "steps": steps, "full": patches[0], "seats": patches[1:],
    }


def _variant(game: str, players: int, engine: str, params: dict[str, Any]) -> dict[str, Any]:
    """The variant keys that differ from the game's defaults."""
    try:
        defaults = cardref.load(game, players, engine=engine).params
    except cardref.InvalidParamsError:  # this table size needs a variant key
        return dict(params)
    return {k: v for k, v in params.items() if defaults.get(k) != v}


def _apply(state: Any, k: int, entry: tuple[int, str, str, float]) -> dict[str, Any]:
    """Apply step ``k``'s action; what the page says of it."""
    seat, actor, action, seconds = entry
    if state.current_player() != seat:
        raise ReplayError(f"step {k}: the action is recorded for seat {seat}, but seat "
                          f"{state.current_player()} is to act")
    legal = state.legal_actions()
    try:
        state.apply(action)
    except cardref.IllegalActionError as e:
        raise ReplayError(f"step {k}: the engine refuses {action!r}: {e}") from None
    return {"seat": seat, "actor": actor, "action": action, "seconds": seconds,
            "legal": legal[:LEGAL_SHOWN], "legal_count": len(legal)}


def replay_page(replay: Replay) -> str:
    """The self-contained HTML page of one game."""
    data = json.dumps(page_data(replay), separators=(",", ":"))
    # Inside <script>, "</script>" or "<!--" in a bot's name would end the data.
    data = data.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    page = (HERE / "page.html").read_text(encoding="utf-8")
    parts = {"/*CSS*/": (HERE / "viewer.css").read_text(encoding="utf-8"),
             "/*JS*/": (HERE / "viewer.js").read_text(encoding="utf-8"), "/*DATA*/": data}
    for marker, text in parts.items():
        before, _, after = page.partition(marker)
        page = before + text + after
    return page


def write_page(replay: Replay, path: Path | str) -> Path:
    """Write the page of ``replay`` to ``path``; returns the path."""
    path = Path(path)
    path.write_text(replay_page(replay), encoding="utf-8")
    return path
