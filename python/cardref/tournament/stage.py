"""Run bubblewrap as an unprivileged user when the referee is root.

    python -S -E stage.py SPEC_JSON bwrap ARGS...

A sandbox started by root runs under a fresh unprivileged uid, never one
that maps to root. But that user cannot enter folders closed to others (a
Python installed under ``/root``, say), so bubblewrap, running as it, could
not show them in the sandbox. This launcher, still root, gives itself a
private mount namespace in which each closed folder on the way to a path the
sandbox needs is covered by a small read-only-content tmpfs that is open to
all and holds only the needed paths, bound back; then it becomes the
unprivileged user and executes bubblewrap, which builds the sandbox from
nothing as usual. Nothing here is seen by the bot: only what bubblewrap then
binds. This file imports nothing from cardref, to start fast.
"""

import ctypes
import json
import os
import sys

CLONE_NEWNS = 0x00020000
MS_NOSUID, MS_NODEV, MS_BIND, MS_REC, MS_PRIVATE = 2, 4, 4096, 16384, 1 << 18


def _closed_ancestor(path: str) -> "str | None":
    """The first folder above or at ``path`` that other users cannot enter."""
    parts = path.strip("/").split("/")
    for i in range(1, len(parts) + 1):
        folder = "/" + "/".join(parts[:i])
        if not os.stat(folder).st_mode & 0o001:
            return folder
    return None


def _expose(libc: ctypes.CDLL, paths: list) -> None:
    """Cover each closed ancestor with an open tmpfs holding only ``paths``."""
    covers: dict = {}
    real = sorted({os.path.realpath(p) for p in paths})
    for path in real:
        if any(path.startswith(other + "/") for other in real):
            continue  # shown with a folder above it
        cover = _closed_ancestor(os.path.dirname(path))
        if cover is not None:
            covers.setdefault(cover, []).append((path, os.open(path, os.O_PATH)))
    for cover in sorted(covers, key=len):
        if libc.mount(b"tmpfs", cover.encode(), b"tmpfs", MS_NOSUID | MS_NODEV,
                      b"size=1m,mode=0755") != 0:
            raise OSError(ctypes.get_errno(), f"cannot cover {cover}")
        for path, handle in sorted(covers[cover]):
            if os.path.isdir(f"/proc/self/fd/{handle}"):
                os.makedirs(path, mode=0o755, exist_ok=True)
            else:
                os.makedirs(os.path.dirname(path), mode=0o755, exist_ok=True)
                open(path, "a").close()
            if libc.mount(f"/proc/self/fd/{handle}".encode(), path.encode(), None,
                          MS_BIND | MS_REC, None) != 0:
                raise OSError(ctypes.get_errno(), f"cannot show {path}")
            os.close(handle)


def main() -> None:
    spec = json.loads(sys.argv[1])
    command = sys.argv[2:]
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(CLONE_NEWNS) != 0 or libc.mount(b"none", b"/", None,
                                                   MS_REC | MS_PRIVATE, None) != 0:
        raise OSError(ctypes.get_errno(), "no private mount namespace")
    _expose(libc, spec["expose"])
    os.setgroups([])
    os.setgid(spec["gid"])
    os.setuid(spec["uid"])
    os.execvp(command[0], command)


if __name__ == "__main__":
    try:
        main()
    except BaseException as e:  # the referee reads it from the server's log
        sys.stderr.write(f"cardref stage: {type(e).__name__}: {e}\n")
        sys.stderr.flush()
        os._exit(127)
