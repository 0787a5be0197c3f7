"""``cardref replay``: a stored game re-played through the engine from its
seed and stored actions, each checked to be legal and made by the stored
seat, and its stored result checked (scores, the engine's placements and the
final placements with forfeits); besides, what one seat saw, why seats
failed, and the game as a page (``cardref.viewer``); and the refusal to show
a deal that is still to be played.

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


class ReplayError(Exception):
    """A game that cannot be replayed as asked; the message says why."""


def run(args: Any) -> int:
    """The command: 0 if the engine reproduces the stored game, 1 if not."""
    import cardref

    game, meta, actions, cpu = _stored(args)
    engine = cardref.load(meta["game"], int(meta["players"]), engine=meta["engine"],
                          **json.loads(meta["params"]))
    state = engine.new_state(seed=game["seed"])
    seating = game["seating"]
    if args.seat is not None and not 0 <= args.seat < len(seating):
        raise ReplayError(f"--seat must be a seat of this game, 0 to {len(seating) - 1}; "
                          f"got {args.seat}")
    print(f"game {game['key']}: {meta['game']}, seed {game['seed']}, seating "
          + ", ".join(f"{seat}={name}" for seat, name in enumerate(seating)))
    problem = _step_through(state, game, actions, cpu, args)
    if problem is not None:
        print(problem)
        return 1
    same = _report_result(state, game, meta)
    if args.html is not None:
        print(f"page: {write_replay_page(meta, game, actions, args.html)}")
    if not same:
        print(f"MISMATCH: stored scores {game['scores']}, engine placements "
              f"{game['engine_placements']}, final placements {game['placements']}")
        return 1
    print("reproduced: the engine gives the stored result")
    return 0


def _stored(args: Any) -> tuple[dict[str, Any], dict[str, str], list, list]:
    """The stored game, the tournament's meta, its actions and their CPU times."""
    from .tournament.store import open_existing

    with open_existing(args.file) as store:
        game = store.game(args.game)
        if game is None:
            keys = sorted(store.finished_keys())
            sample = ", ".join(keys[:5]) + (", ..." if len(keys) > 5 else "")
            raise ReplayError(f"{args.file}: no finished game {args.game!r}; "
                              f"{len(keys)} finished games: {sample or 'none'}")
        problem = None if args.force else reveal_problem(store, args.game)
        if problem:
            raise ReplayError(problem)
        return game, store.meta(), store.actions(args.game), store.cpu_seconds(args.game)


def _step_through(state: Any, game: dict[str, Any], actions: list, cpu: list,
                  args: Any) -> Optional[str]:
    """Apply the stored actions, printing what was asked; why they do not
    replay, or None."""
    import cardref

    seating = game["seating"]
    for step, (seat, actor, action, seconds) in enumerate(actions):
        if state.current_player() != seat:
            return (f"step {step}: stored seat {seat} is not the player to act "
                    f"({state.current_player()})")
        if seat == args.seat:
            print("\n".join(seat_lines(step, state, seat, seating[seat], actor, action,
                                       seconds)))
        try:
            state.apply(action)
        except cardref.IllegalActionError as e:
            return f"step {step}: the engine refuses the stored action: {e}"
        if args.steps:
            who = seating[seat] + (" (fallback)" if actor == "fallback" else "")
            used = "" if cpu[step] is None else f"  {cpu[step] * 1000:8.2f} ms CPU"
            print(f"{step:5d}  seat {seat} {who:<20} {action:<16} {seconds * 1000:8.2f} ms"
                  f"{used}")
    if not state.is_terminal():
        return f"the stored actions end before the game does (step {len(actions)})"
    return None


def _report_result(state: Any, game: dict[str, Any], meta: dict[str, str]) -> bool:
    """Print the result and the failures; whether it is the stored one."""
    from .tournament.referee import final_placements

    forfeited = {seat for seat, status in enumerate(game["statuses"]) if status != "ok"}
    final = final_placements(list(state.placements()), forfeited, json.loads(meta["teams"]))
    print(f"scores {list(state.scores())}, engine placements {list(state.placements())}, "
          f"final placements {final}, statuses {game['statuses']}")
    for line in failure_lines(game):
        print(line)
    return (list(state.placements()) == game["engine_placements"]
            and list(state.scores()) == game["scores"] and final == game["placements"])


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
