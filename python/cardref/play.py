"""Play against bots yourself: one seat is yours, in the terminal.

    cardref play GAME [--players N] [--bots BOT,BOT,...] [--seat N] [--seed S]

At each of your turns the game shows what your seat may see (its
observation, the same a bot is given) and numbers your legal actions; answer
with a number or an action's text. Anything else is refused with the reason,
and asked again. The other seats' actions are shown as they happen (another
seat's secret, such as a Take 5 card committed face down, only as what you
may know of it), and the result at the end. Ctrl-D or Ctrl-C leaves the game.

The bots are named as for ``cardref match`` (``cardref.bots.naming``) and
fill the other seats in turn; you are a bot like any other to the game loop
(``localmatch.GameInPlay``), one that asks the terminal.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections import defaultdict
from typing import Any, Optional

import cardref

from .bots import BotLoadError
from .bots.naming import HELP, BotSpecError, make, parse_bot
from .localmatch import (
    BotError,
    GameInPlay,
    MatchError,
    MatchGame,
    print_failure,
    table_size,
    variant_of,
)

YOU = "you"

#: Observation fields with one value per seat, shown with the seats' names.
PER_SEAT = {"scores", "lives", "chips", "hand_sizes", "tricks_won", "round_heads", "committed",
            "piles", "active", "out_hand", "discard_counts", "score_piles"}
#: Observation fields whose value is a seat, shown with its name.
SEAT_VALUED = {"to_act", "current", "dealer", "trick_leader", "bomber"}
#: Fields shown elsewhere (the hand, last) or not worth a line.
SKIPPED = {"game", "players", "params", "seat", "hand", "history", "actions"}


class LeftTheGame(BaseException):
    """The person ended input (Ctrl-D): not a bot's failure, so no Exception."""


def shown_action(game: str, action: str) -> str:
    """Another seat's action as this seat may know it: a Take 5 card is
    committed face down, a Twenty-Two discard shows only how many cards."""
    if game == "take5" and action.startswith("play "):
        return "commits a card, face down"
    if game == "twenty_two" and action.startswith("discard"):
        n = len(action.split()) - 1
        return f"discards {n} card{'s' if n != 1 else ''}" if n else "keeps every card"
    return action


def _value(value: Any) -> str:
    if value is None:
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list) and all(not isinstance(v, (list, dict)) for v in value):
        return " ".join(_value(v) for v in value) or "none"
    if isinstance(value, list) and all(isinstance(v, list) for v in value):
        return " | ".join(_value(v) for v in value) or "none"
    if isinstance(value, (dict, list)):
        return json.dumps(value, separators=(", ", ": "))
    return str(value)


def _seat_pair(value: Any, names: list[str]) -> str:
    """``[seat, x]`` or ``[x, seat]`` as ``name: x``; "" for anything else."""
    if not isinstance(value, list) or len(value) != 2:
        return ""
    for seat, other in (value, value[::-1]):
        if isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < len(names) \
                and not isinstance(other, (int, dict)):
            return f"{names[seat]}: {_value(other)}"
    return ""


def labels(names: list[str]) -> list[str]:
    """Names that tell seats apart: a name seated twice gets its seat (``random#2``)."""
    return [f"{n}#{i}" if names.count(n) > 1 else n for i, n in enumerate(names)]


def describe(observation: dict[str, Any], names: list[str]) -> list[tuple[str, str]]:
    """The observation as (field, text) lines for a person: per-seat fields
    with the seats' names, the hand last."""
    lines = []
    for key, value in observation.items():
        if key in SKIPPED:
            continue
        if key in PER_SEAT and isinstance(value, list) and len(value) == len(names):
            text = " · ".join(f"{names[i]} {_value(v)}" for i, v in enumerate(value))
        elif key in SEAT_VALUED and isinstance(value, int) and 0 <= value < len(names):
            text = f"seat {value} ({names[value]})"
        elif isinstance(value, list) and value and all(_seat_pair(v, names) for v in value):
            text = "\n".join(_seat_pair(v, names) for v in value)  # bids, tricks, reveals
        elif isinstance(value, list) and value and all(isinstance(v, list) for v in value):
            text = "\n".join(f"{i}: {_value(v)}" for i, v in enumerate(value))
        else:
            text = _value(value)
        lines.append((key.replace("_", " "), text))
    if "hand" in observation:
        lines.append(("your hand", _value(observation["hand"])))
    return lines


def choose(answer: str, legal: list[str]) -> tuple[Optional[str], str]:
    """The action an answer picks, or None and why not: a number from 1, or an
    action's text (case, spacing and the order of its cards do not matter)."""
    text = " ".join(answer.split())
    if not text:
        return None, f"type a number from 1 to {len(legal)}, or an action as written"
    if text.isdigit():
        k = int(text)
        if 1 <= k <= len(legal):
            return legal[k - 1], ""
        return None, f"{k} is not one of the choices: type a number from 1 to {len(legal)}"
    words = sorted(text.lower().split())
    for action in legal:
        if sorted(action.lower().split()) == words:
            return action, ""
    return None, (f"{text!r} is not one of your legal actions: type a number from 1 to "
                  f"{len(legal)}, or an action as written")


class Human:
    """The person's seat, as a bot: ``act`` asks the terminal."""

    def __init__(self, console: Any, names: list[str]) -> None:
        self.console = console
        self.names = names

    def act(self, observation: dict[str, Any], legal_actions: list[str]) -> str:
        from rich.table import Table
        from rich.text import Text

        table = Table(title=Text("Your turn: what you see"), show_header=False)
        table.add_column(style="bold")
        table.add_column(overflow="fold")
        for field, text in describe(observation, self.names):
            table.add_row(Text(field), Text(text))
        self.console.print(table)
        for k, action in enumerate(legal_actions, 1):
            self.console.print(Text(f"  {k:>3}. {action}"))
        while True:
            try:
                answer = self.console.input(f"Your action (1-{len(legal_actions)} or its text): ")
            except EOFError:
                raise LeftTheGame() from None
            action, why = choose(answer, legal_actions)
            if action is not None:
                return action
            self.console.print(Text(f"Refused: {why}.", style="red"))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``cardref play``."""
    parser.add_argument("game", help="the game: " + ", ".join(cardref.games()))
    parser.add_argument("--players", type=int, metavar="N",
                        help="seats at the table, yours included (default: you and each bot, "
                        "or the nearest size the game allows)")
    parser.add_argument("--bots", action="append", metavar="BOT,BOT,...",
                        help=f"the bots in the other seats, in turn, repeated to fill the "
                        f"table (default heuristic); each bot: {HELP}")
    parser.add_argument("--seat", type=int, default=0, metavar="N", help="your seat (default 0)")
    parser.add_argument("--seed", type=int, metavar="S",
                        help="the deal's seed (default: a new one each time)")
    parser.add_argument("--variant", action="append", default=[], metavar="KEY=VALUE",
                        help="a variant key of the game (repeatable), e.g. end_score=74")
    parser.add_argument("--delay", type=float, default=0.4, metavar="SECONDS",
                        help="pause after each other seat's action (default 0.4)")


def _specs(args: argparse.Namespace) -> list[str]:
    return [s for group in (args.bots or ["heuristic"]) for s in group.split(",") if s.strip()]


def _seating(args: argparse.Namespace, players: int) -> tuple[list[str], dict[str, Any]]:
    """Names per seat and a factory per name: you in your seat, the bots in turn."""
    specs = _specs(args)
    factories: dict[str, Any] = {}
    order = []
    try:
        for spec in specs:
            bot = parse_bot(spec.strip(), args.game)
            name = bot.name if bot.name != YOU else f"{YOU}-bot"
            if name not in factories:
                factories[name] = make(bot)
            order.append(name)
    except (BotSpecError, BotLoadError) as e:
        raise MatchError(str(e)) from None
    if not 0 <= args.seat < players:
        raise MatchError(f"--seat must be a seat of the table, 0 to {players - 1}; got "
                         f"{args.seat}")
    others = iter(order[i % len(order)] for i in range(players - 1))
    return [YOU if seat == args.seat else next(others) for seat in range(players)], factories


def run(args: argparse.Namespace) -> int:
    """``cardref play``."""
    from rich.console import Console
    from rich.text import Text

    if args.game not in cardref.games():
        raise MatchError(f"unknown game {args.game!r}; games: {', '.join(cardref.games())}")
    variant = variant_of(args.variant)
    players = table_size(args.game, len(_specs(args)) + 1, args.players, variant)
    names, factories = _seating(args, players)
    console = Console(highlight=False)
    factories[YOU] = lambda: Human(console, labels(names))
    seed = args.seed if args.seed is not None else random.SystemRandom().getrandbits(64)
    engine = cardref.load(args.game, players, **variant)
    record = MatchGame(1, 0, seed, names)
    console.print(Text(f"{args.game}, {players} players, seed {seed}: " + ", ".join(
        f"seat {s} {n}" for s, n in enumerate(names)) + ". Ctrl-D leaves the game."))
    table = GameInPlay(engine, record)
    committed: list[str] = []  # Take 5: the cards of this turn, shown once all are in
    try:
        table.open(factories, "play")
        while not table.state.is_terminal():
            seat = table.state.current_player()
            table.step(defaultdict(list))
            action = record.actions[-1][2]
            if seat == args.seat:
                console.print(Text(f"You: {action}", style="bold"))
            else:
                console.print(Text(f"seat {seat} {labels(names)[seat]}: "
                                   f"{shown_action(args.game, action)}"))
                time.sleep(max(0.0, args.delay))
            if args.game == "take5" and action.startswith("play "):
                committed.append(f"{labels(names)[seat]} {action.split()[1]}")
                if len(committed) == players:
                    console.print(Text("Revealed: " + ", ".join(committed)))
                    committed = []
        table.finish()
    except LeftTheGame:
        console.print(Text("You left the game."))
        return 1
    except BotError as e:
        print_failure(e, None)
        return 1
    finally:
        table.close()
    _print_result(console, record, args.seat)
    return 0


def _print_result(console: Any, record: MatchGame, seat: int) -> None:
    from rich.table import Table
    from rich.text import Text

    table = Table(title=Text("Result"))
    for label in ("Seat", "Player", "Score", "Placement"):
        table.add_column(label, justify="left" if label == "Player" else "right")
    for s, (name, score, place) in enumerate(zip(record.seating, record.scores,
                                                record.placements)):
        table.add_row(str(s), Text(name), str(score), str(place))
    console.print(table)
    console.print(Text(f"You placed {record.placements[seat]} of {len(record.seating)}.",
                       style="bold"))

