"""Naming bots on the command line: one way for every command that takes them.

A BOT argument is, tried in this order:

- ``NAME=BOT``: the bot BOT, shown as NAME;
- a built-in bot: ``random``, ``heuristic`` or ``search``;
- a path to a bot: a ``.py`` file defining ``class Bot``, or a folder whose
  ``bot.py`` does;
- a command: a program speaking the protocol of ``docs/protocol.md``, given
  as one argument with spaces (``"python3 mybot.py"``, split as a shell
  would) or as the path of an executable file.

Anything else is refused with a message naming the argument. ``make`` turns
a named bot into a factory of bot objects (one per game): a Python bot's
class, imported into this process, or a ``CommandBot`` running the program.
"""

from __future__ import annotations

import difflib
import json
import os
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from . import BUILTINS, BotLoadError, builtin_module, load_bot_class
from .sdk import ENTRY

#: How the help of every command that takes bots says it.
HELP = ("a built-in bot (random, heuristic, search), a path to a bot file or folder, or a "
        "command in quotes (\"python3 mybot.py\"); NAME=BOT names it")


class BotSpecError(ValueError):
    """A BOT argument that names no bot; the message says why."""


@dataclass(frozen=True)
class NamedBot:
    """A bot named on the command line: ``kind`` "module" (``target`` an
    importable name, as built-ins are), "path" (an absolute file or folder) or
    "command" (``target`` the command as a JSON array)."""

    name: str
    kind: str
    target: str
    given: str  # the argument as written


def parse_bot(text: str, game: str, base: Path | None = None) -> NamedBot:
    """The bot ``text`` names, for ``game``; paths are relative to ``base``
    (the working directory)."""
    base = base or Path.cwd()
    name, spec = _split_name(text, base)
    if not spec.strip():
        raise BotSpecError(f"{text!r}: names no bot; a BOT is {HELP}")
    if spec in BUILTINS:
        try:
            return NamedBot(name or spec, "module", builtin_module(spec, game), text)
        except BotLoadError as e:
            raise BotSpecError(f"{text!r}: {e}") from None
    path = (base / spec).expanduser()
    if path.is_dir():
        if not (path / ENTRY).is_file():
            raise BotSpecError(f"{text!r}: the folder {path} has no {ENTRY}, the module a "
                               "bot given as a folder starts from")
        return NamedBot(name or path.resolve().name, "path", str(path.resolve()), text)
    if path.is_file():
        if path.suffix == ".py":
            return NamedBot(name or path.stem, "path", str(path.resolve()), text)
        if os.access(path, os.X_OK):
            return NamedBot(name or path.stem, "command", json.dumps([str(path.resolve())]),
                            text)
        raise BotSpecError(f"{text!r}: {path} is neither a .py bot nor an executable program")
    if any(c.isspace() for c in spec):
        return _command(name, spec, text, base)
    close = difflib.get_close_matches(spec, BUILTINS, n=1)
    hint = f" Did you mean {close[0]!r}?" if close else ""
    raise BotSpecError(f"{text!r}: not a built-in bot ({', '.join(BUILTINS)}), no such file "
                       "or folder, and not a command (a command is given in quotes, with its "
                       f"arguments: \"python3 mybot.py\").{hint}")


def _split_name(text: str, base: Path) -> tuple[str, str]:
    """``NAME=BOT`` into its two parts; a path holding "=" stays whole."""
    name, sep, spec = text.partition("=")
    if not sep or (base / text).exists() or " " in name or not name:
        return "", text
    return name, spec


def _command(name: str, spec: str, text: str, base: Path) -> NamedBot:
    try:
        argv = shlex.split(spec)
    except ValueError as e:
        raise BotSpecError(f"{text!r}: cannot split the command: {e}") from None
    # Files named on the command line are found from here, whatever the bot's directory.
    argv = [os.path.abspath(base / a) if (base / a).is_file() else a for a in argv]
    shown = name or Path(next((a for a in argv[1:] if (base / a).is_file()), argv[0])).stem
    return NamedBot(shown, "command", json.dumps(argv), text)


def parse_bots(texts: list[str], game: str, base: Path | None = None) -> list[NamedBot]:
    """Several BOT arguments; the same bot given twice is one bot, and two
    different bots may not share a name."""
    out: list[NamedBot] = []
    for text in texts:
        bot = parse_bot(text, game, base)
        same = next((b for b in out if b.name == bot.name), None)
        if same is None:
            out.append(bot)
        elif (same.kind, same.target) != (bot.kind, bot.target):
            raise BotSpecError(f"{same.given!r} and {bot.given!r} are different bots both "
                               f"called {bot.name!r}; name them with NAME=BOT")
    return out


def make(bot: NamedBot) -> Callable[[], Any]:
    """A factory of fresh bot objects for ``bot``: its class (imported here:
    no sandbox), or a ``CommandBot`` per game. Raises BotLoadError."""
    if bot.kind == "command":
        from .command import CommandBot

        argv = json.loads(bot.target)
        return lambda: CommandBot(argv)
    return load_bot_class(bot.kind, bot.target)
