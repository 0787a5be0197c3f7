"""The tournament config file: a strict TOML schema, checked before any game.

The bots it enters are resolved and checked by ``entries.py``.

Every problem names the file, the key path (``bots[2].path``,
``variant.end_score``), the value found and what is allowed, so an organiser
can fix the file without reading code; all the problems of a file are
reported together, in one ``ConfigError``. The schema is documented key by
key in ``docs/tournaments.md``.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Optional

import cardref

from ..api import games as available_games
from ..bots import BotLoadError
from ..errors import InvalidParamsError
from . import confine
from .botserver import close_servers
from .confine import INSTALL, WEAKER, ConfinementError, Sandbox, distribution_paths
from .entries import SOURCES, BotSpec, command_target, content_hash, resolve
from .entries import check as check_entry
from .sandbox import Limits

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
    """Config file problems; each line of the message is one complete problem."""

    def __init__(self, problems: list[str] | str) -> None:
        self.problems = [problems] if isinstance(problems, str) else list(problems)
        super().__init__("\n".join(self.problems))


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
    sandbox: Sandbox = field(default_factory=Sandbox)
    sprt: Optional[dict[str, float]] = None  # [stop] sprt: elo0, elo1, alpha, beta

    def meaning(self) -> dict[str, Any]:
        """Everything that decides the games and their results, key by key.

        ``workers``, ``output`` and ``report`` are left out: they may change
        between a run and its resumption without changing any result. A path
        bot counts by its file's content (SHA-256), so an edited bot is a
        changed config. The results file keeps this, so a changed config can
        be told apart key by key (``changes``).
        """
        bots = []
        for bot in self.bots:
            entry = {"name": bot.name, "kind": bot.kind, "target": bot.target}
            if bot.kind == "path":
                entry["sha256"] = content_hash(bot.target)
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
        if self.sandbox.packages:
            meaning["packages"] = list(self.sandbox.packages)
        if self.sprt:
            meaning["stop"] = {"sprt": self.sprt}
        return meaning

    def submitted(self) -> bool:
        """Whether any bot runs in a confined process of its own."""
        return any(bot.isolation == "process" for bot in self.bots)

    def fingerprint(self) -> str:
        """A hash of ``meaning()``."""
        return fingerprint_of(self.meaning())

    def bot_names(self) -> list[str]:
        return [bot.name for bot in self.bots]


def fingerprint_of(meaning: dict[str, Any]) -> str:
    text = json.dumps(meaning, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def changes(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """What differs between two ``Config.meaning()`` dicts, one line per key or bot."""
    out = []
    for key in sorted((set(old) | set(new)) - {"bots"}):
        was, now = old.get(key), new.get(key)
        if isinstance(was, dict) and isinstance(now, dict):  # params, limits: key by key
            out += [f"{key}.{k}: {_short(was.get(k))} -> {_short(now.get(k))}"
                    for k in sorted(set(was) | set(now)) if was.get(k) != now.get(k)]
        elif was != now:
            out.append(f"{key}: {_short(was)} -> {_short(now)}")
    before = {b["name"]: b for b in old.get("bots", [])}
    after = {b["name"]: b for b in new.get("bots", [])}
    out += [f"bot {name!r} was removed" for name in before if name not in after]
    out += [f"bot {name!r} was added" for name in after if name not in before]
    for name in (n for n in after if n in before and before[n] != after[n]):
        was, now = before[name], after[name]
        if was.get("target") == now.get("target") and was.get("sha256") != now.get("sha256"):
            out.append(f"bot {name!r}: its submission {now['target']} has changed")
            continue
        for field_ in sorted(set(was) | set(now)):
            if was.get(field_) != now.get(field_):
                out.append(f"bot {name!r}: {field_} {_short(was.get(field_))} -> "
                           f"{_short(now.get(field_))}")
    if [b["name"] for b in old.get("bots", [])] != [b["name"] for b in new.get("bots", [])] \
            and set(before) == set(after):
        out.append("the bots are listed in another order")
    return out


def _short(value: Any) -> str:
    text = "(not set)" if value is None else json.dumps(value, sort_keys=True)
    return text if len(text) <= 80 else text[:77] + "..."


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


class _Invalid(Exception):
    """A value already reported; the key is treated as missing from here on."""


class _Checker:
    """Reads typed values out of the parsed TOML, collecting every problem
    (each naming the file) instead of stopping at the first."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.problems: list[str] = []

    def fail(self, key: str, value: Any, allowed: str) -> _Invalid:
        self.problems.append(f"{self.path}: {key} = {_describe(value)}: {allowed}")
        return _Invalid()

    def missing(self, key: str, allowed: str) -> _Invalid:
        self.problems.append(f"{self.path}: {key} is missing: {allowed}")
        return _Invalid()

    def table(self, data: dict[str, Any], prefix: str, allowed: dict[str, str],
              hint: Optional[Callable[[str], str]] = None) -> None:
        """Report keys not in ``allowed`` (key -> description), with the
        closest allowed key as a suggestion, or ``hint(key)`` if it says more."""
        for key, value in data.items():
            if key in allowed:
                continue
            where = f"{prefix}.{key}" if prefix else key
            extra = hint(key) if hint is not None else ""
            if not extra:
                close = difflib.get_close_matches(key, list(allowed), n=1, cutoff=0.6)
                extra = f"; did you mean {close[0]}?" if close else ""
            self.fail(where, value, f"unknown key{extra}; allowed keys here: "
                      + ", ".join(allowed))

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

    def number(self, data: dict, key: str, where: str, default: Any, low: float = 0.0,
               strict: bool = True) -> Any:
        """A number of seconds: > low (``strict``) or >= low, and finite."""
        if key not in data:
            return default
        value = data[key]
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        if not ok or not (value > low if strict else value >= low) or value == float("inf"):
            bound = "a positive number of seconds" if strict else \
                f"a number of seconds >= {low:g}"
            raise self.fail(where, value, f"must be {bound}")
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

    def get(self, read: Callable[..., Any], *args: Any, fallback: Any = None,
            **kwargs: Any) -> Any:
        """``read(*args)``, or ``fallback`` once its problem is recorded."""
        try:
            return read(*args, **kwargs)
        except _Invalid:
            return fallback


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
    "sandbox": "how submitted bots are confined",
    "stop": "early stopping (gauntlet)",
    "bots": "the field",
}


def _read(path: Path) -> tuple[str, dict[str, Any]]:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise ConfigError(f"{path}: cannot read the config file: {e.strerror or e}") from None
    try:
        return text, tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{path}: not valid TOML: {e}") from None


def load_config(path: Path | str, deal_groups: Optional[int] = None,
                output: Optional[Path] = None) -> Config:
    """Read and check ``path``; ``deal_groups`` and ``output`` override the file.

    Raises ConfigError listing everything wrong, including bots that cannot
    play (each checked the way it will run, see entries.py).
    """
    path = Path(path)
    text, data = _read(path)
    check = _Checker(path)
    _hoist_misplaced_keys(check, data)
    check.table(data, "", TOP_KEYS)
    game, players, engine, variant, params = _game(check, data)
    seed = check.get(check.integer, data, "seed", "seed", 0, MAX_SEED)
    groups = check.get(check.integer, data, "deal_groups", "deal_groups", 1)
    if deal_groups is not None:
        groups = deal_groups
    output_name = check.get(check.string, data, "output", "output")
    output_path = output.resolve() if output is not None else (
        (path.parent / output_name).resolve() if output_name else None)
    fmt = check.get(check.string, data, "format", "format", FORMATS, default="round_robin")
    rotation = check.get(check.string, data, "rotation", "rotation", ROTATIONS, default="auto")
    workers = check.get(check.integer, data, "workers", "workers", 1, default=None)
    limits = _limits(check, data)
    sandbox = _sandbox(check, data)
    policy, disqualify = _failure(check, data)
    report = _subtable(check, data, "report", {"bootstrap": "bootstrap resamples"})
    bootstrap = check.get(check.integer, report, "bootstrap", "report.bootstrap", 100, 100000,
                          default=1000, fallback=1000)
    sandbox = _confinement(check, data, sandbox)
    try:
        bots = _bots(check, data, game, path.parent, limits, sandbox)
    finally:
        close_servers()  # the checks' sandboxes: the games start their own
    candidate = _candidate(check, data, fmt, [b.name for b in bots])
    sprt = _stop(check, data, fmt)
    if check.problems:
        raise ConfigError(check.problems)
    return Config(
        path=path, text=text, game=game, players=players, variant=dict(variant),
        params=params, seed=seed, deal_groups=groups, output=output_path, bots=bots, format=fmt,
        candidate=candidate, rotation=rotation, engine=engine,
        decision_seconds=limits.decision_seconds, failure_policy=policy, limits=limits,
        disqualify_after=disqualify, workers=workers, bootstrap=bootstrap,
        teams=TEAM_GAMES.get(game), sandbox=sandbox, sprt=sprt,
    )


SANDBOX_KEYS = {"packages": "distributions bots may import",
                "weaker": 'the weaker isolation allowed without bubblewrap: "rlimits"'}


def _sandbox(check: _Checker, data: dict) -> Sandbox:
    """The [sandbox] table: packages bots may import (each installed here)."""
    table = _subtable(check, data, "sandbox", SANDBOX_KEYS)
    packages = table.get("packages", [])
    if not isinstance(packages, list) or not all(isinstance(p, str) and p for p in packages):
        check.fail("sandbox.packages", packages, "must be an array of distribution names")
        packages = []
    for name in packages:
        try:
            distribution_paths(name)
        except ConfinementError:
            check.fail("sandbox.packages", name, "not installed for this Python "
                       f"({sys.executable}); install it, or take it out of the list")
    check.get(check.string, table, "weaker", "sandbox.weaker", (WEAKER,), default=None)
    return Sandbox(packages=tuple(packages))


def _confinement(check: _Checker, data: dict, sandbox: Sandbox) -> Sandbox:
    """Bubblewrap if it runs here; else the weaker isolation if the config
    names it; else a problem, when any bot is submitted."""
    entries = data.get("bots")
    submitted = isinstance(entries, list) and any(
        isinstance(e, dict) and ("command" in e or ("builtin" not in e
                                                    and e.get("isolation") != "inprocess"))
        for e in entries)
    if not submitted:
        return sandbox
    reason = confine.unusable()
    if reason is None:
        return sandbox
    if data.get("sandbox", {}).get("weaker") == WEAKER:
        return replace(sandbox, mode=WEAKER, why_weaker=reason)
    check.problems.append(
        f"{check.path}: submitted bots run under bubblewrap, which cannot run here: {reason}. "
        f"To fix it, {INSTALL}. To run them with resource limits only, set "
        f'[sandbox] weaker = "{WEAKER}" (the results will say so).')
    return sandbox


def _hoist_misplaced_keys(check: _Checker, data: dict) -> None:
    """Report top-level keys written after ``[[bots]]``: TOML puts them in the
    last bot's table. They are then treated as given where they belong, so the
    rest of the file is checked as meant."""
    entries = data.get("bots")
    if not isinstance(entries, list):
        return
    for i, entry in enumerate(entries):
        if not isinstance(entry, dict):
            continue
        for key in [k for k in entry if k in TOP_KEYS and k not in BOT_KEYS]:
            value = entry.pop(key)
            check.fail(f"bots[{i}].{key}", value,
                       f"{key} is a top-level key, but it is written after a [[bots]] "
                       "header, so TOML reads it as part of that bot; move it above the "
                       "first [[bots]]")
            data.setdefault(key, value)


def _game(check: _Checker, data: dict) -> tuple[Any, Any, Any, dict, dict]:
    """The game, players, engine, variant and the game's effective params."""
    game = check.get(check.string, data, "game", "game")
    if game is not None and game not in available_games():
        check.fail("game", game, "unknown game; games: " + ", ".join(available_games()))
        game = None
    players = data.get("players", ...)
    if players is ...:
        check.missing("players", "must be the number of players per table")
    engine = check.get(check.string, data, "engine", "engine", ENGINES, default="rust",
                       fallback="rust")
    variant = data.get("variant", {})
    if not isinstance(variant, dict):
        check.fail("variant", variant, "must be a table of the game's variant keys")
        variant = {}
    if game is None or players is ...:
        return game, None, engine, variant, {}
    try:
        params = dict(cardref.load(game, players, engine=engine, **variant).params)
    except InvalidParamsError as e:
        key, _, problem = str(e).partition(": ")
        if key == "players":
            check.fail("players", players, problem)
        elif key in variant:
            check.fail(f"variant.{key}", variant[key], problem)
        else:
            check.problems.append(f"{check.path}: variant: {e}")
        return game, None, engine, variant, {}
    return game, players, engine, variant, params


def _candidate(check: _Checker, data: dict, fmt: Any, names: list[str]) -> Optional[str]:
    if fmt == "gauntlet":
        return check.get(check.string, data, "candidate", "candidate", tuple(names))
    if "candidate" in data:
        check.fail("candidate", data["candidate"], 'only allowed with format = "gauntlet"')
    return None


SPRT_KEYS = {"elo0": "Elo difference of H0", "elo1": "Elo difference of H1",
             "alpha": "false positive rate", "beta": "false negative rate"}


def _stop(check: _Checker, data: dict, fmt: Any) -> Optional[dict[str, float]]:
    """``[stop] sprt = { elo0 = 0, elo1 = 5, alpha = 0.05, beta = 0.05 }`` (sprt.py)."""
    spec = _subtable(check, data, "stop", {"sprt": "a sequential probability ratio test"})
    if "sprt" not in spec:
        return None
    spec = spec["sprt"]
    if fmt != "gauntlet":
        check.fail("stop.sprt", spec, 'only allowed with format = "gauntlet"')
        return None
    if not isinstance(spec, dict):
        check.fail("stop.sprt", spec, "must be a table, e.g. "
                   "{ elo0 = 0, elo1 = 5, alpha = 0.05, beta = 0.05 }")
        return None
    check.table(spec, "stop.sprt", SPRT_KEYS)
    out: dict[str, float] = {}
    for key in SPRT_KEYS:
        value = spec.get(key, 0.05 if key in ("alpha", "beta") else ...)
        if value is ...:
            check.missing(f"stop.sprt.{key}", "must be a number of Elo points")
            continue
        is_number = isinstance(value, (int, float)) and not isinstance(value, bool)
        if key in ("alpha", "beta") and not (is_number and 0 < value < 0.5):
            check.fail(f"stop.sprt.{key}", value, "must be a number between 0 and 0.5")
        elif not is_number or not -2000 <= value <= 2000:
            check.fail(f"stop.sprt.{key}", value, "must be a number of Elo points "
                       "from -2000 to 2000")
        else:
            out[key] = float(value)
    if len(out) < len(SPRT_KEYS):
        return None
    if out["elo0"] >= out["elo1"]:
        check.fail("stop.sprt.elo1", spec["elo1"], f"must be greater than elo0 ({spec['elo0']})")
    return out


def _subtable(check: _Checker, data: dict, key: str, allowed: dict[str, str]) -> dict:
    table = data.get(key, {})
    if not isinstance(table, dict):
        check.fail(key, table, "must be a table ([" + key + "])")
        return {}
    check.table(table, key, allowed)
    return table


def _failure(check: _Checker, data: dict) -> tuple[str, int]:
    failure = _subtable(check, data, "failure", {
        "policy": "forfeit or stop",
        "disqualify_after": "failed games before a bot is disqualified"})
    policy = check.get(check.string, failure, "policy", "failure.policy", POLICIES,
                       default="forfeit", fallback="forfeit")
    disqualify = check.get(check.integer, failure, "disqualify_after",
                           "failure.disqualify_after", 0, default=0, fallback=0)
    return policy, disqualify


LIMIT_KEYS = {
    "decision_seconds": "seconds per decision",
    "startup_seconds": "seconds to start a bot",
    "bank_seconds": "a time bank per game",
    "memory_mb": "address space, MiB",
    "cpu_seconds": "CPU seconds per game",
    "processes": "extra processes",
    "open_files": "open files",
    "output_bytes": "output size",
    "disk_mb": "a bot's writable space, MiB",
}


def _limits(check: _Checker, data: dict) -> Limits:
    table = _subtable(check, data, "limits", LIMIT_KEYS)
    default = Limits()

    def integer(key: str, low: int) -> int:
        return check.get(check.integer, table, key, f"limits.{key}", low,
                         default=getattr(default, key), fallback=getattr(default, key))

    def seconds(key: str, strict: bool = True) -> Any:
        return check.get(check.number, table, key, f"limits.{key}", getattr(default, key),
                         strict=strict, fallback=getattr(default, key))

    return Limits(
        decision_seconds=seconds("decision_seconds"),
        startup_seconds=seconds("startup_seconds"),
        bank_seconds=seconds("bank_seconds", strict=False),
        memory_mb=integer("memory_mb", 64),
        cpu_seconds=integer("cpu_seconds", 1),
        processes=integer("processes", 0),
        open_files=integer("open_files", 16),
        output_bytes=integer("output_bytes", 4096),
        disk_mb=integer("disk_mb", 1),
    )


BOT_KEYS = {"name": "unique name", "builtin": "built-in bot", "path": "a file",
            "module": "an importable module", "command": "an executable speaking the protocol",
            "isolation": "process or inprocess"}


def _bots(check: _Checker, data: dict, game: Optional[str], base: Path,
          limits: Limits, sandbox: Sandbox) -> list[BotSpec]:
    entries = data.get("bots", ...)
    if entries is ...:
        check.missing("bots", "needs [[bots]] entries, each with a name and one of "
                      "builtin, path, module or command")
        return []
    if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
        check.fail("bots", entries, "must be an array of tables ([[bots]])")
        return []
    bots: list[BotSpec] = []
    names: list[str] = []
    for i, entry in enumerate(entries):
        bot = check.get(_bot, check, entry, f"bots[{i}]", names, game, base, limits, sandbox)
        if bot is not None:
            bots.append(bot)
    if len(entries) < 2:
        check.fail("bots", names, "the field needs at least 2 bots")
    return bots


def _bot(check: _Checker, entry: dict, where: str, names: list[str], game: Optional[str],
         base: Path, limits: Limits, sandbox: Sandbox) -> BotSpec:
    """One ``[[bots]]`` entry, resolved and checked (see entries.py); its name
    is added to ``names`` as soon as it is known to be unique."""
    check.table(entry, where, BOT_KEYS)
    name = check.string(entry, "name", f"{where}.name")
    if name in names:
        raise check.fail(f"{where}.name", name, "must be unique; another bot has this name")
    names.append(name)
    sources = [k for k in SOURCES if k in entry]
    if len(sources) != 1:
        raise check.fail(where, entry, "needs exactly one of builtin, path, module or "
                         f"command, found {len(sources)}")
    key = sources[0]
    if key == "command":
        return _command_bot(check, entry, where, name, base)
    value = check.string(entry, key, f"{where}.{key}")
    default = "inprocess" if key == "builtin" else "process"
    isolation = check.string(entry, "isolation", f"{where}.isolation", ISOLATIONS,
                             default=default)
    if game is None:  # nothing to resolve a built-in against; the game is reported
        raise _Invalid()
    try:
        kind, target = resolve(key, value, game, base)
        check_entry(kind, target, isolation, limits, sandbox)
    except BotLoadError as e:
        raise check.fail(f"{where}.{key}", value, f"not a usable bot: {e}") from None
    return BotSpec(name=name, kind=kind, target=target, source=f"{key} = {value!r}",
                   isolation=isolation)


def _command_bot(check: _Checker, entry: dict, where: str, name: str, base: Path) -> BotSpec:
    """A bot given as ``command = ["prog", "arg", ...]``: always its own process."""
    command = entry["command"]
    if (not isinstance(command, list) or not command
            or not all(isinstance(part, str) and part for part in command)):
        raise check.fail(f"{where}.command", command, "must be a non-empty array of strings")
    if entry.get("isolation", "process") != "process":
        raise check.fail(f"{where}.isolation", entry["isolation"],
                         'a command always runs in its own process: only "process"')
    target = command_target(command, base)
    return BotSpec(name=name, kind="command", target=target,
                   source=f"command = {target}", isolation="process")
