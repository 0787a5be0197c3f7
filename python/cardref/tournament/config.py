"""The tournament config file: a strict TOML schema, checked before any game.

Every problem is a ``ConfigError`` whose message names the file, the key path
(``bots[2].path``, ``variant.end_score``), the value found and what is allowed,
so an organiser can fix the file without reading code. The schema is
documented key by key in ``docs/tournaments.md``.
"""

from __future__ import annotations

import hashlib
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

import cardref

from ..api import games as available_games
from ..bots import BotLoadError, builtin_module, load_bot_class
from ..errors import InvalidParamsError
from .sandbox import Limits, check_bot

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised only on older Pythons
    import tomli as tomllib

FORMATS = ("round_robin", "gauntlet")
ROTATIONS = ("auto", "all", "cyclic")
ENGINES = ("rust", "reference")
POLICIES = ("forfeit", "stop")
ISOLATIONS = ("process", "inprocess")
MAX_SEED = (1 << 64) - 1

#: Seats that play as a team, per game id (its declared teams); placements are per team there.
TEAM_GAMES: dict[str, list[list[int]]] = {
    g: [list(team) for team in cardref.registry.spec(g).teams]
    for g in cardref.registry.ids() if cardref.registry.spec(g).teams}


class ConfigError(Exception):
    """A config file problem; the message is complete and meant for the user."""


@dataclass(frozen=True)
class BotSpec:
    """One entry of the field: a unique name and where its module comes from.

    ``kind`` is "module" (``target`` an importable name, also used for
    built-ins), "path" (``target`` an absolute file path) or "command"
    (``target`` the command as a JSON array). ``isolation`` is "process" (its
    own confined process, the default for submitted bots) or "inprocess"
    (inside the referee's worker: built-ins, or bots marked as trusted).
    """

    name: str
    kind: str
    target: str
    source: str  # how the config spelled it, e.g. 'builtin = "random"'
    isolation: str = "inprocess"


@dataclass(frozen=True)
class Config:
    """A checked tournament config; ``fingerprint`` identifies its meaning."""

    path: Path
    text: str
    game: str
    players: int
    variant: dict[str, Any]
    params: dict[str, Any]
    seed: int
    deal_groups: int
    output: Path
    bots: list[BotSpec]
    format: str = "round_robin"
    candidate: Optional[str] = None
    rotation: str = "auto"
    engine: str = "rust"
    decision_seconds: float = 1.0
    failure_policy: str = "forfeit"
    limits: Limits = field(default_factory=Limits)
    disqualify_after: int = 0
    workers: Optional[int] = None
    bootstrap: int = 1000
    teams: Optional[list[list[int]]] = field(default=None)

    def fingerprint(self) -> str:
        """A hash of everything that decides the games and their results.

        ``workers`` and ``output`` are left out: they may change between a run
        and its resumption without changing any result.
        """
        bots = []
        for bot in self.bots:
            entry = {"name": bot.name, "kind": bot.kind, "target": bot.target}
            if bot.kind == "path":
                entry["sha256"] = hashlib.sha256(Path(bot.target).read_bytes()).hexdigest()
            if bot.isolation == "process":
                entry["isolation"] = "process"
            bots.append(entry)
        meaning = {
            "game": self.game,
            "players": self.players,
            "params": self.params,
            "seed": self.seed,
            "deal_groups": self.deal_groups,
            "format": self.format,
            "candidate": self.candidate,
            "rotation": self.rotation,
            "engine": self.engine,
            "decision_seconds": self.decision_seconds,
            "failure_policy": self.failure_policy,
            "bots": bots,
        }
        # Keys added later enter only when set, so older results files still match.
        if self.limits.non_default():
            meaning["limits"] = self.limits.non_default()
        if self.disqualify_after:
            meaning["disqualify_after"] = self.disqualify_after
        text = json.dumps(meaning, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()

    def bot_names(self) -> list[str]:
        return [bot.name for bot in self.bots]


def _describe(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list):
        return "an array"
    return repr(value)


class _Checker:
    """Reads typed values out of the parsed TOML, naming the file in errors."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def fail(self, key: str, value: Any, allowed: str) -> ConfigError:
        return ConfigError(f"{self.path}: {key} = {_describe(value)}: {allowed}")

    def missing(self, key: str, allowed: str) -> ConfigError:
        return ConfigError(f"{self.path}: {key} is missing: {allowed}")

    def table(self, data: dict[str, Any], prefix: str, allowed: dict[str, str]) -> None:
        """Reject keys not in ``allowed`` (key -> description)."""
        for key, value in data.items():
            if key not in allowed:
                where = f"{prefix}.{key}" if prefix else key
                keys = ", ".join(allowed)
                raise self.fail(where, value, f"unknown key; allowed keys here: {keys}")

    def integer(self, data: dict, key: str, where: str, low: int, high: Optional[int] = None,
                default: Any = ...) -> Any:
        span = f"an integer >= {low}" if high is None else f"an integer from {low} to {high}"
        if key not in data:
            if default is ...:
                raise self.missing(where, f"must be {span}")
            return default
        value = data[key]
        ok = isinstance(value, int) and not isinstance(value, bool)
        if not ok or value < low or (high is not None and value > high):
            raise self.fail(where, value, f"must be {span}")
        return value

    def number(self, data: dict, key: str, where: str, default: float) -> float:
        if key not in data:
            return default
        value = data[key]
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        if not ok or not value > 0 or value == float("inf"):
            raise self.fail(where, value, "must be a positive number of seconds")
        return float(value)

    def string(self, data: dict, key: str, where: str, choices: Optional[tuple] = None,
               default: Any = ...) -> Any:
        allowed = (
            "must be one of " + ", ".join(f'"{c}"' for c in choices)
            if choices else "must be a non-empty string"
        )
        if key not in data:
            if default is ...:
                raise self.missing(where, allowed)
            return default
        value = data[key]
        if not isinstance(value, str) or not value or (choices and value not in choices):
            raise self.fail(where, value, allowed)
        return value


TOP_KEYS = {
    "game": "the game id",
    "players": "players per table",
    "seed": "the master seed",
    "deal_groups": "number of deal groups",
    "output": "the results file",
    "format": "round_robin or gauntlet",
    "candidate": "the gauntlet's candidate bot",
    "rotation": "auto, all or cyclic",
    "engine": "rust or reference",
    "workers": "worker processes",
    "variant": "the game's variant keys",
    "limits": "time and resource limits",
    "failure": "the failure policy",
    "report": "report settings",
    "bots": "the field",
}


def load_config(path: Path | str, deal_groups: Optional[int] = None,
                output: Optional[Path] = None) -> Config:
    """Read and check ``path``; ``deal_groups`` and ``output`` override the file.

    Raises ConfigError for anything wrong, including bots that do not import.
    """
    path = Path(path)
    check = _Checker(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise ConfigError(f"{path}: cannot read the config file: {e.strerror or e}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{path}: not valid TOML: {e}") from None
    check.table(data, "", TOP_KEYS)

    game = check.string(data, "game", "game", default=...)
    if game not in available_games():
        raise check.fail("game", game, "unknown game; games: " + ", ".join(available_games()))
    players = data.get("players", ...)
    if players is ...:
        raise check.missing("players", "must be the number of players per table")
    engine = check.string(data, "engine", "engine", ENGINES, default="rust")
    variant = data.get("variant", {})
    if not isinstance(variant, dict):
        raise check.fail("variant", variant, "must be a table of the game's variant keys")
    try:
        params = dict(cardref.load(game, players, engine=engine, **variant).params)
    except InvalidParamsError as e:
        key, _, problem = str(e).partition(": ")
        if key == "players":
            raise check.fail("players", players, problem) from None
        if key in variant:
            raise check.fail(f"variant.{key}", variant[key], problem) from None
        raise ConfigError(f"{path}: variant: {e}") from None

    seed = check.integer(data, "seed", "seed", 0, MAX_SEED)
    groups = check.integer(data, "deal_groups", "deal_groups", 1)
    if deal_groups is not None:
        groups = deal_groups
    output_name = check.string(data, "output", "output")
    output_path = (path.parent / output_name).resolve() if output is None else output.resolve()
    fmt = check.string(data, "format", "format", FORMATS, default="round_robin")
    rotation = check.string(data, "rotation", "rotation", ROTATIONS, default="auto")
    workers = check.integer(data, "workers", "workers", 1, default=None)

    limits = _limits(check, data)
    failure = _subtable(check, data, "failure", {
        "policy": "forfeit or stop",
        "disqualify_after": "failed games before a bot is disqualified"})
    policy = check.string(failure, "policy", "failure.policy", POLICIES, default="forfeit")
    disqualify = check.integer(failure, "disqualify_after", "failure.disqualify_after", 0,
                               default=0)
    report = _subtable(check, data, "report", {"bootstrap": "bootstrap resamples"})
    bootstrap = check.integer(report, "bootstrap", "report.bootstrap", 100, 100000, default=1000)

    bots = _bots(check, data, game, path.parent, limits)
    names = [bot.name for bot in bots]
    candidate = None
    if fmt == "gauntlet":
        candidate = check.string(data, "candidate", "candidate", tuple(names))
    elif "candidate" in data:
        raise check.fail("candidate", data["candidate"], 'only allowed with format = "gauntlet"')
    minimum = 2
    if len(bots) < minimum:
        raise check.fail("bots", [b.name for b in bots], "the field needs at least 2 bots")
    return Config(
        path=path, text=text, game=game, players=players, variant=dict(variant),
        params=params, seed=seed, deal_groups=groups, output=output_path, bots=bots, format=fmt,
        candidate=candidate, rotation=rotation, engine=engine,
        decision_seconds=limits.decision_seconds, failure_policy=policy, limits=limits,
        disqualify_after=disqualify, workers=workers, bootstrap=bootstrap,
        teams=TEAM_GAMES.get(game),
    )


def _subtable(check: _Checker, data: dict, key: str, allowed: dict[str, str]) -> dict:
    table = data.get(key, {})
    if not isinstance(table, dict):
        raise check.fail(key, table, "must be a table ([" + key + "])")
    check.table(table, key, allowed)
    return table


LIMIT_KEYS = {
    "decision_seconds": "seconds per decision",
    "startup_seconds": "seconds to start a bot",
    "bank_seconds": "a time bank per game",
    "memory_mb": "address space, MiB",
    "cpu_seconds": "CPU seconds per game",
    "processes": "extra processes",
    "open_files": "open files",
    "output_bytes": "output size",
}


def _limits(check: _Checker, data: dict) -> Limits:
    table = _subtable(check, data, "limits", LIMIT_KEYS)
    default = Limits()
    bank = table.get("bank_seconds", 0.0)
    if not (isinstance(bank, (int, float)) and not isinstance(bank, bool)
            and 0 <= bank < float("inf")):
        raise check.fail("limits.bank_seconds", bank, "must be a number of seconds >= 0")
    return Limits(
        decision_seconds=check.number(table, "decision_seconds", "limits.decision_seconds",
                                      default.decision_seconds),
        startup_seconds=check.number(table, "startup_seconds", "limits.startup_seconds",
                                     None),  # type: ignore[arg-type]
        bank_seconds=float(bank),
        memory_mb=check.integer(table, "memory_mb", "limits.memory_mb", 64,
                                default=default.memory_mb),
        cpu_seconds=check.integer(table, "cpu_seconds", "limits.cpu_seconds", 1,
                                  default=default.cpu_seconds),
        processes=check.integer(table, "processes", "limits.processes", 0,
                                default=default.processes),
        open_files=check.integer(table, "open_files", "limits.open_files", 16,
                                 default=default.open_files),
        output_bytes=check.integer(table, "output_bytes", "limits.output_bytes", 4096,
                                   default=default.output_bytes),
    )


BOT_KEYS = {"name": "unique name", "builtin": "built-in bot", "path": "a file",
            "module": "an importable module", "command": "an executable speaking the protocol",
            "isolation": "process or inprocess"}


def _bots(check: _Checker, data: dict, game: str, base: Path,
          limits: Limits) -> list[BotSpec]:
    entries = data.get("bots", ...)
    if entries is ...:
        raise check.missing("bots", "needs [[bots]] entries, each with a name and one of "
                            "builtin, path, module or command")
    if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
        raise check.fail("bots", entries, "must be an array of tables ([[bots]])")
    bots: list[BotSpec] = []
    for i, entry in enumerate(entries):
        where = f"bots[{i}]"
        check.table(entry, where, BOT_KEYS)
        name = check.string(entry, "name", f"{where}.name")
        if name in [b.name for b in bots]:
            raise check.fail(f"{where}.name", name, "must be unique; another bot has this name")
        sources = [k for k in ("builtin", "path", "module", "command") if k in entry]
        if len(sources) != 1:
            raise check.fail(where, entry, "needs exactly one of builtin, path, module or "
                             f"command, found {len(sources)}")
        key = sources[0]
        if key == "command":
            bots.append(_command_bot(check, entry, where, name, base))
            continue
        value = check.string(entry, key, f"{where}.{key}")
        default = "inprocess" if key == "builtin" else "process"
        isolation = check.string(entry, "isolation", f"{where}.isolation", ISOLATIONS,
                                 default=default)
        try:
            if key == "builtin":
                kind, target = "module", builtin_module(value, game)
            elif key == "path":
                kind, target = "path", str((base / value).resolve())
                if not Path(target).is_file():
                    raise BotLoadError(f"no such file: {target}")
            else:
                kind, target = "module", value
            if isolation == "inprocess":
                load_bot_class(kind, target)
            else:  # never import a submitted bot into the referee
                problem = check_bot(kind, target, limits)
                if problem is not None:
                    raise BotLoadError(problem)
        except BotLoadError as e:
            raise check.fail(f"{where}.{key}", value, f"not a usable bot: {e}") from None
        bots.append(BotSpec(name=name, kind=kind, target=target, source=f"{key} = {value!r}",
                            isolation=isolation))
    return bots


def _command_bot(check: _Checker, entry: dict, where: str, name: str, base: Path) -> BotSpec:
    """A bot given as ``command = ["prog", "arg", ...]``: always its own process.
    Elements naming an existing file relative to the config become absolute
    paths (the bot runs in a private directory); a first element that is not
    a file is looked up on the bot's PATH."""
    command = entry["command"]
    if (not isinstance(command, list) or not command
            or not all(isinstance(part, str) and part for part in command)):
        raise check.fail(f"{where}.command", command, "must be a non-empty array of strings")
    if entry.get("isolation", "process") != "process":
        raise check.fail(f"{where}.isolation", entry["isolation"],
                         'a command always runs in its own process: only "process"')
    command = [str((base / part).resolve()) if _is_file(base / part) else part
               for part in command]
    target = json.dumps(command)
    return BotSpec(name=name, kind="command", target=target,
                   source=f"command = {target}", isolation="process")


def _is_file(path: Path) -> bool:
    try:
        return path.is_file()
    except (OSError, ValueError):  # e.g. inline code given as an argument: a name too long
        return False
