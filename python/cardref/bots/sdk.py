"""Run a bot class in its own process under the referee's line protocol.

    python -m cardref.bots.sdk --path bots/mine.py
    python -m cardref.bots.sdk --module mypkg.mybot
    python -m cardref.bots.sdk --path bots/mine.py --check
    python path/to/cardref/bots/sdk.py --path bots/mine.py   # faster: no cardref import

The author writes only the class ``Bot`` of ``docs/bots.md``; this module
reads the referee's requests (one JSON object per line on standard input) and
answers each with one line on standard output, as ``docs/protocol.md``
describes. Anything the bot itself prints goes to standard error: the
protocol channel is kept on a private file descriptor, so a stray ``print``
cannot corrupt it. ``--check`` only loads the class, makes one ``Bot()`` and
reports whether it is usable (the config check runs it before any game). This
file imports nothing from cardref, so a bot process starts without loading the
engines.
"""

from __future__ import annotations

import sys

if __name__ == "__main__" and sys.path:
    # Run as a file, this folder leads sys.path, and its random.py would shadow
    # the standard library's. Run with -m, it is the working directory.
    del sys.path[0]

import argparse
import hashlib
import importlib
import importlib.util
import json
import os
import traceback
from pathlib import Path
from types import ModuleType
from typing import IO, Any, Callable, Optional

PROTOCOL = 1

#: The module a bot given as a folder starts from.
ENTRY = "bot.py"

#: One protocol line's JSON, without spaces. A reused encoder: ``json.dumps``
#: with ``separators`` builds a new one at every call.
compact_json = json.JSONEncoder(separators=(",", ":")).encode


# Loading a bot (also used by the referee for trusted, in-process bots) -------

class BotLoadError(Exception):
    """A bot module cannot be imported or does not define a usable ``Bot``."""


def _import_file(path: Path) -> ModuleType:
    """Import a bot from a file under a private module name derived from its path,
    so two submitted files called ``bot.py`` never shadow each other."""
    digest = hashlib.sha256(str(path).encode()).hexdigest()[:16]
    name = f"_cardref_bot_{digest}"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise BotLoadError(f"{path} is not a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


def load_bot_class(kind: str, target: str) -> Any:
    """The ``Bot`` class of a bot given as ``kind`` "module" (an importable name)
    or "path" (a file, or a folder holding ``bot.py`` and whatever else it
    imports). Import failures become BotLoadError with the cause."""
    try:
        if kind == "path":
            path = Path(target)
            if path.is_dir():  # a bot of several files: its folder is importable
                if str(path) not in sys.path:
                    sys.path.insert(0, str(path))
                path = path / ENTRY
            if not path.is_file():
                raise BotLoadError(f"no such file: {path}")
            module = _import_file(path)
        else:
            module = importlib.import_module(target)
    except BotLoadError:
        raise
    except BaseException as e:  # a bot's import may raise anything, even SystemExit
        raise BotLoadError(f"importing it failed: {type(e).__name__}: {e}") from None
    bot = getattr(module, "Bot", None)
    if not isinstance(bot, type):
        raise BotLoadError("the module does not define a class named Bot")
    if not callable(getattr(bot, "act", None)):
        raise BotLoadError("its class Bot has no act(observation, legal_actions) method")
    return bot


def construction_problem(bot_class: Any) -> Optional[str]:
    """Why ``Bot()`` cannot be made (the referee makes one per game with no
    arguments), or None. Checked before any game, so that a bot that cannot
    even be created is refused rather than forfeiting every game."""
    try:
        bot_class()
    except BaseException as e:  # a bot's constructor may raise anything, even SystemExit
        return f"Bot() failed: {type(e).__name__}: {e}"
    return None


# The protocol -----------------------------------------------------------------


def _private_channels() -> tuple[IO[bytes], IO[bytes]]:
    """Move the protocol to private descriptors: fd 0 reads /dev/null and fd 1
    writes to standard error afterwards, for the bot's own reads and prints."""
    inp = os.fdopen(os.dup(0), "rb")  # buffered: a raw readline reads byte by byte
    out = os.fdopen(os.dup(1), "wb", buffering=0)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    return inp, out


# Tracebacks -------------------------------------------------------------------

#: The most frames of the bot's own a traceback shows (the innermost), and
#: the most characters it takes in all: a runaway recursion stays readable.
TRACEBACK_FRAMES = 20
TRACEBACK_CHARS = 4000


def submission_root(kind: str, target: str) -> str:
    """The folder a bot's files are shown relative to in its tracebacks: the
    bot's folder, the folder of a one-file bot, or the folder holding a module
    bot's top-level package (looked up once the module is imported)."""
    if kind == "path":
        path = Path(target)
        return str(path if path.is_dir() else path.parent)
    top = sys.modules.get(target.split(".")[0])
    file = getattr(top, "__file__", None)
    if not file:
        return ""
    folder = Path(file).parent
    return str(folder.parent if Path(file).name == "__init__.py" else folder)


def bot_traceback(error: BaseException, root: str) -> str:
    """The traceback of an exception raised by a bot, as its author wants to
    read it: only the frames of the bot's own files (under ``root``), with
    paths relative to ``root`` and their source lines, the innermost
    TRACEBACK_FRAMES of them, at most TRACEBACK_CHARS characters. Frames
    elsewhere (the SDK, the standard library) are each run shown as one line."""
    if isinstance(error, BotLoadError) and error.__context__ is not None:
        error = error.__context__  # the bot's module raised while it was imported
    outside = "  (frames outside the bot's files)"
    lines: list[str] = []
    prefix = os.path.join(root, "") if root else None
    last_frame, repeats = None, 0
    for frame in [*traceback.extract_tb(error.__traceback__), None]:
        same = frame is not None and (frame.filename, frame.lineno) == last_frame
        if repeats and not same:  # a recursion: shown once, with its count
            lines.append(f"  [the frame above repeated {repeats} more times]")
            repeats = 0
        if frame is None:
            break
        if prefix is None or not frame.filename.startswith(prefix):
            if lines and lines[-1] != outside:
                lines.append(outside)
            last_frame = None
            continue
        if same:
            repeats += 1
            continue
        last_frame = (frame.filename, frame.lineno)
        lines.append(f'  File "{frame.filename[len(prefix):]}", line {frame.lineno}, '
                     f"in {frame.name}")
        if frame.line:
            lines.append(f"    {frame.line.strip()[:200]}")
    frames = [i for i, line in enumerate(lines) if line.startswith("  File ")]
    if len(frames) > TRACEBACK_FRAMES:
        cut = frames[-TRACEBACK_FRAMES]
        lines = [f"  ... {len(frames) - TRACEBACK_FRAMES} earlier frames left out",
                 *lines[cut:]]
    last = "".join(traceback.format_exception_only(type(error), error)).strip()
    if prefix is not None:  # a SyntaxError names its file
        last = last.replace(prefix, "")
    text = "\n".join(["Traceback (most recent call last):", *lines, last[:1000]])
    return text if len(text) <= TRACEBACK_CHARS else "...\n" + text[-TRACEBACK_CHARS:]


def _failure(e: BaseException, root: str = "") -> dict[str, Any]:
    """A report of an exception raised by the bot, built without keeping it
    alive: its type, message and traceback (``bot_traceback``)."""
    report: dict[str, Any] = {"type": "error", "error": type(e).__name__,
                              "message": str(e)[:300], "traceback": bot_traceback(e, root)}
    if isinstance(e, OSError) and e.errno is not None:
        report["errno"] = e.errno
    return report


Loader = Callable[[], Any]  # returns the Bot class, or raises BotLoadError


def _check(load: Loader) -> dict[str, Any]:
    """The answer to ``check``: can the class be loaded and one ``Bot()`` made?"""
    try:
        problem = construction_problem(load())
    except BotLoadError as e:
        problem = str(e)
    if problem is None:
        return {"type": "usable"}
    return {"type": "unusable", "message": problem[:2000]}


def _answer(message: dict[str, Any], load: Loader, bot: Any) -> tuple[dict[str, Any], Any]:
    """The reply to one request, and the bot from then on."""
    kind = message.get("type")
    if kind == "hello":
        bot = load()()
        hook = getattr(bot, "start", None)
        if callable(hook):
            hook({k: message[k] for k in
                  ("game", "seat", "players", "params", "seed", "name", "key")})
        return {"type": "ready"}, bot
    if kind == "act":
        action = bot.act(message["observation"], message["legal"])
        if isinstance(action, str):
            return {"type": "action", "action": action}, bot
        return {"type": "invalid", "message": f"act returned {type(action).__name__} "
                f"{action!r:.80}, not a string"}, bot
    if kind == "end":
        hook = getattr(bot, "end", None)
        if callable(hook):
            hook({k: message[k] for k in ("placements", "scores", "seat")})
        return {"type": "done"}, bot
    if kind == "check":
        return _check(load), bot
    return {"type": "error", "error": "ProtocolError",
            "message": f"unknown request type {kind!r}"}, bot


def serve(load: Loader, inp: IO[bytes], out: IO[bytes]) -> int:
    """The protocol loop: hello -> ready, act -> action, end -> done, check ->
    usable or unusable; EOF ends it. ``load`` gives the Bot class (it is
    called when first needed, so a bot that cannot load still answers)."""
    bot: Optional[Any] = None
    for line in inp:
        try:
            reply, bot = _answer(json.loads(line), load, bot)
        except (Exception, SystemExit) as e:  # the bot's failure, reported to the referee
            reply = _failure(e, getattr(load, "root", lambda: "")())
        out.write(compact_json(reply).encode() + b"\n")
    return 0


def loader(kind: str, target: str) -> Loader:
    """A loader that imports the bot once, remembering a failure too. Its
    ``root()`` is the folder the bot's tracebacks are shown relative to."""
    loaded: list[Any] = []

    def load() -> Any:
        if not loaded:
            try:
                loaded.append(load_bot_class(kind, target))
            except BotLoadError as e:
                loaded.append(e)
        if isinstance(loaded[0], BotLoadError):
            raise loaded[0]
        return loaded[0]

    load.root = lambda: submission_root(kind, target)  # type: ignore[attr-defined]
    return load


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m cardref.bots.sdk",
                                     description=__doc__.split("\n")[0])
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--path", help="a .py file defining class Bot, or a folder with bot.py")
    where.add_argument("--module", help="an importable module defining class Bot")
    parser.add_argument("--check", action="store_true",
                        help="only load the class, make one Bot() and report whether it "
                        "is usable")
    args = parser.parse_args(argv)
    inp, out = _private_channels()
    load = loader("path" if args.path else "module", args.path or args.module)
    if args.check:
        reply = _check(load)
        out.write(compact_json(reply).encode() + b"\n")
        return 0 if reply["type"] == "usable" else 3
    return serve(load, inp, out)


if __name__ == "__main__":
    sys.exit(main())
