"""A local match for the edit-run loop: bots against each other, in this process.

    cardref match GAME BOT BOT ... [--players N] [--games N] [--seed S]
                  [--variant KEY=VALUE ...] [--html OUT.html]

    >>> import cardref
    >>> result = cardref.match("take5", ["heuristic", "bots/mine.py"], games=4)

Seats are filled and rotated as a tournament does (``tournament.schedule``):
the lineups of a round robin (with fewer bots than seats, bots are repeated,
lineup k taking bots k, k+1, ... in turn), each in all its seatings; the
games go deal by deal, each deal played in every seating before the next, so
every bot meets the same cards from every seat. Game ``i`` uses deal
``i // seatings``; deal seeds and the bots' seeds are a tournament's, so a
game here can be reproduced exactly.

Bots play in this process with no sandbox and no time limit (a command bot
in a process of its own): the bot's own exception comes out whole, with its
traceback, and the match stops at the first failure (``BotError``).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import traceback
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Optional

import cardref

from .bots import BotLoadError
from .bots.command import CommandBot, CommandBotFailed
from .bots.naming import HELP, BotSpecError, make, parse_bots

# The tournament's modules (its schedule, its statistics) are imported where
# they are used: the command line builds this module's options at every start.

Factory = Callable[[], Any]


class MatchError(ValueError):
    """A match that cannot start: an unknown game, bad bots, a bad table size."""


@dataclass
class MatchGame:
    """One finished (or, in a ``BotError``, stopped) game of a match."""

    number: int
    deal: int
    seed: int
    seating: list[str]
    scores: list[Any] = field(default_factory=list)
    placements: list[int] = field(default_factory=list)
    actions: list[tuple[int, str, str, float]] = field(default_factory=list)


class BotError(Exception):
    """A bot failed: it raised (the exception is ``__cause__``, traceback and
    all), or answered something that is not one of its legal actions. ``game``
    is the game so far."""

    def __init__(self, message: str, bot: str, seat: int, game: MatchGame,
                 failure: Optional[CommandBotFailed] = None) -> None:
        super().__init__(message)
        self.bot, self.seat, self.game, self.failure = bot, seat, game, failure


@dataclass
class MatchResult:
    """Every game of a match, and the standings (``stats.standings``: mean
    placement, win share, mean score and rating, with bootstrap intervals
    over deals)."""

    game: str
    players: int
    params: dict[str, Any]
    seed: int
    bots: list[str]
    games: list[MatchGame]
    standings: list[dict[str, Any]]
    seconds: dict[str, list[float]]  # per bot, the time of each of its decisions


# Who plays ---------------------------------------------------------------------------


def _label(bot: Any) -> str:
    """A bot object's name: its module's (a file's stem), else its class's."""
    cls = bot if isinstance(bot, type) else type(bot)
    module = sys.modules.get(cls.__module__)
    file = getattr(module, "__file__", None)
    if file and cls.__module__ != "__main__":
        return Path(file).stem if Path(file).stem != "bot" else Path(file).parent.name
    return cls.__name__


def field_of(game: str, bots: Any) -> dict[str, Factory]:
    """Name -> factory of fresh bot objects, from a list of BOT strings, bot
    classes (one instance per game), bot objects (used in every game), or a
    mapping of names to any of these."""
    if isinstance(bots, (str, bytes)):
        raise MatchError(f"bots must be a list of bots, not the one string {bots!r}")
    items = list(bots.items()) if isinstance(bots, Mapping) else [(None, b) for b in bots]
    out: dict[str, Factory] = {}
    given: dict[str, tuple[str, str]] = {}  # label -> (kind, target) of BOT strings
    for name, bot in items:
        if isinstance(bot, str):
            try:
                named = parse_bots([f"{name}={bot}" if name else bot], game)[0]
                if given.get(named.name) == (named.kind, named.target):
                    continue  # the same bot named twice is one bot
                factory = make(named)
            except (BotSpecError, BotLoadError) as e:
                raise MatchError(str(e)) from None
            label = named.name
            given[_unique(label, out) if label in out else label] = (named.kind, named.target)
        elif isinstance(bot, type):
            factory, label = bot, name or _label(bot)
        elif callable(getattr(bot, "act", None)):
            factory, label = (lambda b=bot: b), name or _label(bot)
        else:
            raise MatchError(f"{bot!r} is not a bot: give a BOT string, a class with an "
                             "act(observation, legal_actions) method, or such an object")
        out[_unique(label, out) if label in out else label] = factory
    if not out:
        raise MatchError("a match needs at least one bot")
    return out


def _unique(label: str, taken: Mapping[str, Any]) -> str:
    n = 2
    while f"{label}-{n}" in taken:
        n += 1
    return f"{label}-{n}"


def table_size(game: str, bots: int, players: Optional[int], variant: dict[str, Any]) -> int:
    """``players``, else the number of bots if the game allows it, else the
    nearest size it allows (the smallest above, then the largest below)."""
    sizes = [players] if players is not None else [
        *range(bots, 13), *range(bots - 1, 0, -1)]
    problem = None
    for n in sizes:
        try:
            cardref.load(game, n, **variant)
            return n
        except cardref.InvalidParamsError as e:
            if not str(e).startswith("players"):  # a variant key: no size helps
                raise MatchError(str(e)) from None
            problem = problem or e
    raise MatchError(str(problem))


def schedule(names: list[str], players: int, games: Optional[int],
             teams: Optional[list[list[int]]]) -> list[tuple[int, tuple[str, ...]]]:
    """(deal, seating) of every game: a tournament's lineups and seatings,
    deal by deal; by default one deal in every seating."""
    from .tournament.schedule import lineups, seatings

    per_deal = [s for lineup in lineups(names, players) for s in seatings(lineup, "auto", teams)]
    count = len(per_deal) if games is None else games
    return [(i // len(per_deal), per_deal[i % len(per_deal)]) for i in range(count)]


# Playing ---------------------------------------------------------------------------------


class GameInPlay:
    """One game in play: the state, the bots of its seats, what they did."""

    def __init__(self, engine: Any, record: MatchGame) -> None:
        self.engine, self.record = engine, record
        self.state = engine.new_state(seed=record.seed)
        self.bots: list[Any] = []

    def open(self, factories: dict[str, Factory], key: str) -> None:
        """Make each seat's bot and start it, as the referee does."""
        from .tournament.schedule import bot_seed

        engine, record = self.engine, self.record
        for seat, name in enumerate(record.seating):
            self.bots.append(self._call(seat, "Bot()", factories[name]))
            hook = getattr(self.bots[seat], "start", None)
            if callable(hook):
                info = {"game": engine.id, "seat": seat, "players": engine.players,
                        "params": dict(engine.params), "seed": bot_seed(record.seed, seat),
                        "name": name, "key": key}
                self._call(seat, "start", hook, info)

    def _call(self, seat: int, what: str, call: Callable[..., Any], *args: Any) -> Any:
        """Call the bot of ``seat``; anything it raises becomes a BotError."""
        try:
            return call(*args)
        except CommandBotFailed as e:
            raise self._error(seat, f"its program failed in {what}: {e}", e) from None
        except (Exception, SystemExit) as e:  # a bot's sys.exit() too
            raise self._error(seat, f"{what} raised {type(e).__name__}: {e}") from e

    def _error(self, seat: int, message: str,
               failure: Optional[CommandBotFailed] = None) -> BotError:
        name = self.record.seating[seat]
        where = (f"game {self.record.number} (deal {self.record.deal}, seed "
                 f"{self.record.seed}), step {len(self.record.actions)}")
        return BotError(f"bot {name!r} in seat {seat}: {message} [{where}]", name, seat,
                        self.record, failure)

    def step(self, times: dict[str, list[float]]) -> None:
        state, seat = self.state, self.state.current_player()
        legal = state.legal_actions()
        started = time.perf_counter()
        action = self._call(seat, "act", self.bots[seat].act, state.observation(seat),
                            list(legal))
        seconds = time.perf_counter() - started
        if not isinstance(action, str):
            raise self._error(seat, f"act returned {type(action).__name__} {action!r:.80}, "
                              "not a string")
        try:
            state.apply(action)
        except cardref.IllegalActionError as e:
            shown = ", ".join(legal[:20]) + (", ..." if len(legal) > 20 else "")
            raise self._error(seat, f"act returned {action!r}, which is not legal here: {e}. "
                              f"Its legal actions were: {shown}") from None
        self.record.actions.append((seat, "bot", state.history()[-1], seconds))
        times[self.record.seating[seat]].append(seconds)

    def finish(self) -> None:
        state = self.state
        self.record.scores = list(state.scores())
        self.record.placements = list(state.placements())
        for seat, bot in enumerate(self.bots):
            hook = getattr(bot, "end", None)
            if callable(hook):
                info = {"placements": self.record.placements, "scores": self.record.scores,
                        "seat": seat}
                self._call(seat, "end", hook, info)

    def close(self) -> None:
        """End the programs of command bots (a no-op after their ``end``)."""
        for bot in self.bots:
            if isinstance(bot, CommandBot):
                bot.close()


def play(game: str, factories: dict[str, Factory], *, players: int, games: Optional[int],
         seed: int, engine: str, variant: dict[str, Any],
         on_game: Optional[Callable[[MatchGame], None]] = None) -> MatchResult:
    """Play the match; ``on_game`` hears each finished game. Raises BotError."""
    from .tournament.config import TEAM_GAMES
    from .tournament.schedule import deal_seed

    loaded = cardref.load(game, players, engine=engine, **variant)
    teams = TEAM_GAMES.get(game)
    names = list(factories)
    times: dict[str, list[float]] = defaultdict(list)
    played: list[MatchGame] = []
    for number, (deal, seating) in enumerate(schedule(names, players, games, teams), 1):
        record = MatchGame(number, deal, deal_seed(seed, deal), list(seating))
        table = GameInPlay(loaded, record)
        try:
            table.open(factories, f"match-{number}")
            while not table.state.is_terminal():
                table.step(times)
            table.finish()
        finally:
            table.close()
        played.append(record)
        if on_game is not None:
            on_game(record)
    return MatchResult(game, players, dict(loaded.params), seed, names, played,
                       standings_of(played, names, teams, seed), dict(times))


def standings_of(games: list[MatchGame], names: list[str], teams: Optional[list[list[int]]],
                 seed: int) -> list[dict[str, Any]]:
    """The tournament's standings, computed on the match's games."""
    from .tournament.stats import standings

    rows = [{"key": f"match-{g.number}", "group": g.deal, "seating": g.seating,
             "placements": g.placements, "scores": g.scores,
             "statuses": ["ok"] * len(g.seating)} for g in games]
    return standings(rows, names, teams, resamples=200, seed=seed) if rows else []


def match(game: str, bots: Any, *, players: Optional[int] = None, games: Optional[int] = None,
          seed: int = 0, engine: str = "rust", html: Optional[str | Path] = None,
          **variant: Any) -> MatchResult:
    """Play ``bots`` against each other at ``game``, in this process, as a
    tournament seats them; return every game and the standings.

    ``bots``: BOT strings (a built-in name, a path to a bot file or folder, a
    command), bot classes (a fresh instance per game), bot objects (the same
    object every game: ``start`` is where it should reset), or a mapping of
    names to any of these. ``players`` defaults to the number of bots, or the
    nearest table size the game allows; ``games`` to one deal in every
    seating. ``html`` writes the last game's page (``cardref.viewer``), or the
    stopped game's when a bot fails. A failing bot raises ``BotError`` with
    its own exception as the cause.
    """
    if game not in cardref.games():
        raise MatchError(f"unknown game {game!r}; games: {', '.join(cardref.games())}")
    if games is not None and games < 1:
        raise MatchError(f"games must be at least 1, got {games}")
    factories = field_of(game, bots)
    size = table_size(game, len(factories), players, variant)
    try:
        result = play(game, factories, players=size, games=games, seed=seed, engine=engine,
                      variant=variant)
    except BotError as e:
        if html is not None:
            write_html(game, size, variant, engine, e.game, html, failed=e)
        raise
    if html is not None and result.games:
        write_html(game, size, variant, engine, result.games[-1], html)
    return result


def write_html(game: str, players: int, variant: dict[str, Any], engine: str,
               record: MatchGame, path: str | Path, failed: Optional[BotError] = None) -> Path:
    """The page of one game of a match (a stopped one shows why it stopped)."""
    from .viewer import Replay, write_page

    statuses, messages = ["ok"] * players, [None] * players
    tracebacks: list[Optional[str]] = [None] * players
    if failed is not None:
        statuses[failed.seat] = "error"
        messages[failed.seat] = str(failed)
        tracebacks[failed.seat] = _traceback_text(failed)
    replay = Replay(game=game, players=players, params=variant, seed=record.seed,
                    names=record.seating, actions=record.actions, engine=engine,
                    title=f"{game}: match game {record.number}", statuses=statuses,
                    messages=messages, tracebacks=tracebacks)
    return write_page(replay, path)


# The command ------------------------------------------------------------------------


def _traceback_text(error: BotError) -> str:
    """The bot's traceback, from its own frames on (the match's are left out)."""
    if error.failure is not None:
        return error.failure.traceback
    cause = error.__cause__
    if cause is None:
        return ""
    tb = cause.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename == __file__:
        tb = tb.tb_next
    return "".join(traceback.format_exception(type(cause), cause, tb))


def variant_of(pairs: Iterable[str]) -> dict[str, Any]:
    """``KEY=VALUE`` options as variant keys; a VALUE is read as JSON (numbers,
    true/false, null, lists) or else taken as text."""
    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise MatchError(f"--variant {pair!r}: expected KEY=VALUE, e.g. end_score=74")
        try:
            out[key] = json.loads(value)
        except ValueError:
            out[key] = value
    return out


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``cardref match``."""
    parser.add_argument("game", help="the game: " + ", ".join(cardref.games()))
    parser.add_argument("bots", nargs="+", metavar="BOT", help=f"each bot: {HELP}")
    parser.add_argument("--players", type=int, metavar="N",
                        help="seats per table (default: the number of bots, or the nearest "
                        "the game allows; fewer bots than seats are repeated)")
    parser.add_argument("--games", type=int, metavar="N",
                        help="games to play (default: one deal in every seating)")
    parser.add_argument("--seed", type=int, default=0, metavar="S",
                        help="the master seed of the deals (default 0)")
    parser.add_argument("--variant", action="append", default=[], metavar="KEY=VALUE",
                        help="a variant key of the game (repeatable), e.g. end_score=74")
    parser.add_argument("--engine", choices=("rust", "reference"), default="rust",
                        help="the engine (default rust)")
    parser.add_argument("--html", type=Path, metavar="OUT.html",
                        help="write the last game (or the game a bot failed in) as a page")


def run(args: argparse.Namespace) -> int:
    """``cardref match``: each game's result as it ends, then the standings."""
    from rich.console import Console

    console = Console()
    try:
        result = match(args.game, args.bots, players=args.players, games=args.games,
                       seed=args.seed, engine=args.engine, html=args.html,
                       **variant_of(args.variant))
    except BotError as e:
        print_failure(e, args.html)
        return 1
    _print_summary(result, console)
    if args.html is not None:
        print(f"page of game {result.games[-1].number}: {args.html}")
    return 0


def print_failure(error: BotError, html: Optional[Path]) -> None:
    sys.stdout.flush()
    if error.failure is not None and error.failure.stderr:
        print("its standard error ended with:\n" + error.failure.stderr, file=sys.stderr)
    text = _traceback_text(error)
    if text:
        print(text.rstrip(), file=sys.stderr)
    print(f"cardref match: stopped: {error}", file=sys.stderr)
    if html is not None:
        print(f"cardref match: the game up to here: {html}", file=sys.stderr)


def _print_summary(result: MatchResult, console: Any) -> None:
    from rich.text import Text

    from .tournament import tables
    from .tournament.report import print_fitting

    for g in result.games:
        console.print(Text(
            f"game {g.number} (deal {g.deal}): " + ", ".join(
                f"{name} {score} ({place})" for name, score, place
                in zip(g.seating, g.scores, g.placements))))
    console.print(Text("Each game: every seat's bot, its score and (placement)."))
    table = tables.standings({"standings": result.standings})
    table = replace(table, columns=table.columns[:-1], rows=[r[:-1] for r in table.rows])
    print_fitting(console, table, f"{result.game}, {result.players} players: "
                  f"{len(result.games)} games", keep=2)
    deals = len({g.deal for g in result.games})
    console.print(Text(f"95% intervals from resampling the {deals} deal(s) played: with "
                       "fewer than 20 they mean little (--games plays more)."))
    for name in result.bots:
        times = result.seconds.get(name, [])
        if times:
            console.print(Text(f"{name}: {len(times)} decisions, mean "
                               f"{1000 * sum(times) / len(times):.2f} ms, slowest "
                               f"{1000 * max(times):.2f} ms"))
