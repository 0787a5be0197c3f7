"""What ``cardref replay`` shows besides re-playing a stored game: what one
seat saw, why seats failed, and the game as a page (``cardref.viewer``); and
the refusal to show a deal that is still to be played.

Every game of a deal group is dealt the same cards. While a tournament is
unfinished, replaying a game whose group still has seatings to play shows
the deal those seatings will get: ``reveal_problem`` says so, and the
command refuses unless the organiser forces it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Optional

from .viewer import Replay, write_page


def reveal_problem(store: Any, key: str) -> Optional[str]:
    """Why replaying game ``key`` now would reveal a deal still to be played,
    or None."""
    schedule = store.schedule()
    group = next((g.group for g in schedule if g.key == key), None)
    finished = store.finished_keys()
    waiting = [g.key for g in schedule if g.group == group and g.key not in finished]
    if not waiting:
        return None
    shown = ", ".join(waiting[:3]) + (", ..." if len(waiting) > 3 else "")
    return (f"game {key} is dealt the same cards as {len(waiting)} game(s) of its deal group "
            f"not yet played ({shown}); replaying it now would reveal their deal. Finish "
            "the tournament first, or pass --force if you are the organiser and mean to see it")


def seat_lines(step: int, state: Any, seat: int, name: str, actor: str, action: str,
               seconds: float) -> list[str]:
    """One decision of ``seat`` as the seat saw it: the observation it was sent
    (the engine's canonical JSON), its legal actions and its answer."""
    legal = state.legal_actions()
    how = "chosen by the fallback: the bot had failed" if actor == "fallback" else \
        f"{actor}, {seconds * 1000:.2f} ms"
    return [f"step {step}: seat {seat} ({name}) to act",
            f"  observation: {state.observation_json(seat)}",
            f"  legal ({len(legal)}): {', '.join(legal)}",
            f"  answer: {action} ({how})"]


def failure_lines(game: dict[str, Any]) -> list[str]:
    """Each failed seat's status, message and traceback, and the last part of
    every seat's standard error, as stored (bot text, already escaped)."""
    lines = []
    names = game["seating"]
    tracebacks = game.get("tracebacks") or [None] * len(names)
    errors = game.get("stderr") or [None] * len(names)
    for seat, status in enumerate(game["statuses"]):
        if status != "ok":
            lines.append(f"seat {seat} ({names[seat]}) failed: {status}: "
                         f"{game['messages'][seat] or ''}")
            if tracebacks[seat]:
                lines += ["  " + line for line in tracebacks[seat].splitlines()]
    for seat, text in enumerate(errors):
        if text:
            lines.append(f"seat {seat} ({names[seat]}) standard error, its last part:")
            lines += ["  | " + line for line in text.splitlines()]
    return lines


def write_replay_page(meta: dict[str, str], game: dict[str, Any],
                      actions: list[tuple[int, str, str, float]], path: Path) -> Path:
    """The page of a stored game (see ``cardref.viewer``)."""
    replay = Replay(
        game=meta["game"], players=int(meta["players"]), params=json.loads(meta["params"]),
        seed=game["seed"], names=list(game["seating"]), actions=list(actions),
        title=f"{meta['game']} game {game['key']}", engine=meta["engine"],
        statuses=list(game["statuses"]), messages=list(game["messages"]),
        tracebacks=list(game.get("tracebacks") or []), placements=list(game["placements"]))
    return write_page(replay, path)
