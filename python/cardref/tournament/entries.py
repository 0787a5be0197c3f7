"""The bots entered: what each ``[[bots]]`` entry names, and whether it plays.

An entry names its bot one of four ways: ``builtin`` (resolved to the
built-in module for the game), ``module`` (an importable name), ``path`` (a
file, relative to the config) or ``command`` (a program speaking the
protocol). Before any game, every bot is checked the way it will run: a
trusted bot is imported into the referee, a submitted one is loaded in a
confined process of its own, as its games will run it (never imported into
the referee); either way one ``Bot()`` is made. So a bot that cannot import
or cannot even be created is a config error, not a tournament of forfeits.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from ..bots import BotLoadError, builtin_module, load_bot_class
from ..bots.sdk import ENTRY, construction_problem
from .confine import open_regular
from .sandbox import Limits, Sandbox, check_bot

SOURCES = ("builtin", "path", "module", "command")


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


def resolve(key: str, value: str, game: str, base: Path) -> tuple[str, str]:
    """``(kind, target)`` of a ``builtin``, ``path`` or ``module`` entry.

    Raises BotLoadError for an unknown built-in or a missing file.
    """
    if key == "builtin":
        return "module", builtin_module(value, game)
    if key == "path":
        target = str((base / value).resolve())
        if Path(target).is_dir() and not (Path(target) / ENTRY).is_file():
            raise BotLoadError(f"the folder {target} has no {ENTRY}, the module a bot "
                               "given as a folder starts from")
        if not Path(target).exists():
            raise BotLoadError(f"no such file or folder: {target}")
        return "path", target
    return "module", value


def content_hash(target: str) -> str:
    """The SHA-256 of a submission: of the file, or of a folder's every file
    (its path within the folder, then its bytes, in path order). A symbolic
    link in a folder counts by where it points, never by what it reaches (a
    stranger's link may name a device or a host file of any size), and
    anything but a regular file or a link (a FIFO, say) is left out."""
    path = Path(target)
    if path.is_file():
        return hashlib.sha256(path.read_bytes()).hexdigest()
    digest = hashlib.sha256()
    for file in sorted(path.rglob("*")):
        name = file.relative_to(path).as_posix().encode()
        if file.is_symlink():
            link = name + b" ->"
            data = os.fsencode(os.readlink(file))
            digest.update(len(link).to_bytes(4, "big") + link)
            digest.update(len(data).to_bytes(8, "big") + data)
            continue
        f = open_regular(file)
        if f is None:
            continue
        with f:
            digest.update(len(name).to_bytes(4, "big") + name)
            digest.update(os.fstat(f.fileno()).st_size.to_bytes(8, "big"))
            while chunk := f.read(1 << 20):
                digest.update(chunk)
    return digest.hexdigest()


def check(kind: str, target: str, isolation: str, limits: Limits, sandbox: Sandbox) -> None:
    """Load the bot as it will run; raises BotLoadError if it cannot play."""
    if isolation == "inprocess":
        problem = construction_problem(load_bot_class(kind, target))
        if problem is not None:
            raise BotLoadError(problem)
        return
    if kind == "path":
        size = submission_bytes(target)
        if size > limits.disk_mb << 20:
            raise BotLoadError(
                f"the submission is {size / (1 << 20):.1f} MiB, more than the {limits.disk_mb} "
                "MiB each seat's writable space holds (its copy of the submission lives "
                "there): raise [limits] disk_mb or make the submission smaller")
    problem = check_bot(kind, target, limits, sandbox)  # never import a submitted bot here
    if problem is not None:
        raise BotLoadError(problem)


def submission_bytes(target: str) -> int:
    """The bytes of a submission's regular files, as its seat's copy holds
    them (links are copied as links, anything else is left out)."""
    path = Path(target)
    files = [path] if not path.is_dir() else path.rglob("*")
    total = 0
    for file in files:
        info = file.lstat()
        if stat.S_ISREG(info.st_mode):
            total += info.st_size
    return total


def command_target(command: list[str], base: Path) -> str:
    """The JSON target of a ``command`` entry. Elements naming an existing file
    relative to the config become absolute paths (the bot runs in a private
    directory); a first element that is not a file is looked up on the bot's
    PATH."""
    parts = [str((base / part).resolve()) if _is_file(base / part) else part
             for part in command]
    return json.dumps(parts)


def _is_file(path: Path) -> bool:
    try:
        return path.is_file()
    except (OSError, ValueError):  # e.g. inline code given as an argument: a name too long
        return False
