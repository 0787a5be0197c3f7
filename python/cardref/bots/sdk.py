"""Run a bot class in its own process under the referee's line protocol.

    python -m cardref.bots.sdk --path bots/mine.py
    python -m cardref.bots.sdk --module mypkg.mybot
    python -m cardref.bots.sdk --path bots/mine.py --check

The author writes only the class ``Bot`` of ``docs/bots.md``; this module
reads the referee's requests (one JSON object per line on standard input) and
answers each with one line on standard output, as ``docs/protocol.md``
describes. Anything the bot itself prints goes to standard error: the
protocol channel is kept on a private file descriptor, so a stray ``print``
cannot corrupt it. ``--check`` only loads the class and reports whether it is
usable (the config check runs it before any game).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import IO, Any, Callable, Optional

PROTOCOL = 1


def _private_channels() -> tuple[IO[bytes], IO[bytes]]:
    """Move the protocol to private descriptors: fd 0 reads /dev/null and fd 1
    writes to standard error afterwards, for the bot's own reads and prints."""
    inp = os.fdopen(os.dup(0), "rb", buffering=0)
    out = os.fdopen(os.dup(1), "wb", buffering=0)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    return inp, out


def _failure(e: BaseException) -> dict[str, Any]:
    """A report of an exception raised by the bot, built without keeping it alive."""
    report: dict[str, Any] = {"type": "error", "error": type(e).__name__,
                              "message": str(e)[:300]}
    if isinstance(e, OSError) and e.errno is not None:
        report["errno"] = e.errno
    return report


def serve(make_bot: Callable[[], Any], inp: IO[bytes], out: IO[bytes]) -> int:
    """The protocol loop: hello -> ready, act -> action, end -> done; EOF ends it."""

    def send(message: dict[str, Any]) -> None:
        out.write(json.dumps(message, separators=(",", ":")).encode() + b"\n")

    bot: Optional[Any] = None
    for line in inp:
        message = json.loads(line)
        kind = message.get("type")
        reply: Optional[dict[str, Any]] = None
        try:
            if kind == "hello":
                bot = make_bot()
                hook = getattr(bot, "start", None)
                if callable(hook):
                    info = {k: message[k] for k in
                            ("game", "seat", "players", "params", "seed", "name", "key")}
                    hook(info)
                reply = {"type": "ready"}
            elif kind == "act":
                action = bot.act(message["observation"], message["legal"])  # type: ignore
                if isinstance(action, str):
                    reply = {"type": "action", "action": action}
                else:
                    reply = {"type": "invalid", "message": f"act returned "
                             f"{type(action).__name__} {action!r:.80}, not a string"}
            elif kind == "end":
                hook = getattr(bot, "end", None)
                if callable(hook):
                    hook({k: message[k] for k in ("placements", "scores", "seat")})
                reply = {"type": "done"}
            else:
                reply = {"type": "error", "error": "ProtocolError",
                         "message": f"unknown request type {kind!r}"}
        except (Exception, SystemExit) as e:  # the bot's failure, reported to the referee
            reply = _failure(e)
        send(reply)
    return 0


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m cardref.bots.sdk",
                                     description=__doc__.split("\n")[0])
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--path", help="a .py file defining class Bot")
    where.add_argument("--module", help="an importable module defining class Bot")
    parser.add_argument("--check", action="store_true",
                        help="only load the class and report whether it is usable")
    args = parser.parse_args(argv)
    inp, out = _private_channels()
    from . import BotLoadError, load_bot_class

    try:
        bot_class = load_bot_class("path" if args.path else "module", args.path or args.module)
    except BotLoadError as e:
        out.write(json.dumps({"type": "unusable", "message": str(e)}).encode() + b"\n")
        return 3
    if args.check:
        out.write(b'{"type":"usable"}\n')
        return 0
    return serve(bot_class, inp, out)


if __name__ == "__main__":
    sys.exit(main())
