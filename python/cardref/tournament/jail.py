"""The launcher that confines one bot process, then executes the bot.

    python -S -E jail.py SPEC_JSON COMMAND ...

Run by the referee (``sandbox.BotProcess``) as a separate program, so that
nothing here runs between ``fork`` and ``exec`` of the referee itself. It
applies, in this order, whatever the machine allows, and writes what it
enforced to standard error only on failure:

1. a new network namespace (no interfaces but a downed loopback) and, when
   running as root, a new mount namespace with fresh, size-capped tmpfs over
   ``/tmp``, ``/var/tmp`` and ``/dev/shm``, into which only the directories
   of the Python installation and its import path are bound back;
2. the private working directory (created inside that tmpfs as root, else the
   directory the referee made), and a copy of the bot's file when asked;
3. resource limits (``setrlimit``): address space, CPU time, file size,
   open files, core dumps; as root also a separate, unused user and group id,
   and then the process limit for that user;
4. ``exec`` of the bot's command, in the working directory, with the scrubbed
   environment the referee passed.

This file imports nothing from cardref: ``-S -E`` keeps its start fast.
"""

import ctypes
import json
import os
import resource
import sys

CLONE_NEWNS = 0x00020000
CLONE_NEWUSER = 0x10000000
CLONE_NEWNET = 0x40000000
MS_NOSUID = 2
MS_NODEV = 4
MS_BIND = 4096
MS_REC = 16384
MS_PRIVATE = 1 << 18
PR_SET_PDEATHSIG = 1


REPLACED = ("/tmp", "/var/tmp", "/dev/shm")  # each gets a fresh tmpfs


def _closed_ancestor(path: str) -> "str | None":
    """The first directory above ``path`` that other users cannot enter."""
    parts = path.strip("/").split("/")
    for i in range(len(parts)):
        parent = "/" + "/".join(parts[:i])
        if not os.stat(parent).st_mode & 0o001:
            return parent
    return None


def _cover(path: str) -> "str | None":
    """The directory the jail will lay a tmpfs over that hides ``path``: a
    replaced temporary directory (a virtualenv or checkout may live in /tmp),
    else a directory closed to other users (an interpreter under /root)."""
    for place in REPLACED:
        if path.startswith(place + "/"):
            return place
    return _closed_ancestor(path)


def _needs(paths: list) -> dict:
    """Directories the bot needs (the Python installation and its import path)
    that a tmpfs would hide: grouped by the covering directory, each with a
    handle opened before anything is mounted. A replaced directory itself is
    never exposed whole."""
    hidden: dict = {}
    for path in paths:
        path = os.path.realpath(path)
        if path in REPLACED or not os.path.isdir(path):
            continue
        cover = _cover(path)
        if cover is not None:
            hidden.setdefault(cover, []).append((path, os.open(path, os.O_PATH)))
    return hidden


def _expose(libc: ctypes.CDLL, hidden: dict) -> None:
    """Show only the needed directories inside each covering tmpfs, bound from
    their handles; a closed directory first gets an empty tmpfs of its own, so
    the rest of it stays hidden."""
    for cover, needs in hidden.items():
        if cover not in REPLACED:
            libc.mount(b"tmpfs", cover.encode(), b"tmpfs", MS_NOSUID | MS_NODEV,
                       b"size=1m,mode=0755")
        for path, handle in sorted(needs):
            os.makedirs(path, mode=0o755, exist_ok=True)
            libc.mount(f"/proc/self/fd/{handle}".encode(), path.encode(), None,
                       MS_BIND | MS_REC, None)
            os.close(handle)


def main() -> None:
    spec = json.loads(sys.argv[1])
    command = sys.argv[2:]
    libc = ctypes.CDLL(None, use_errno=True)
    root = os.geteuid() == 0
    mounts = False
    copied = None
    if spec.get("copy"):  # read before /tmp is replaced, where the file may live
        source, target = spec["copy"]
        with open(source, "rb") as f:
            copied = (target, f.read())
    if root:
        if libc.unshare(CLONE_NEWNS | CLONE_NEWNET) == 0:
            mounts = libc.mount(b"none", b"/", None, MS_REC | MS_PRIVATE, None) == 0
            hidden = _needs(spec.get("expose", []))
            options = f"size={spec['tmpfs_bytes']},mode=1777".encode()
            for place in REPLACED:
                if mounts and os.path.isdir(place):
                    libc.mount(b"tmpfs", place.encode(), b"tmpfs", MS_NOSUID | MS_NODEV,
                               options)
            if mounts:
                _expose(libc, hidden)
    elif spec.get("network_namespace", True):
        libc.unshare(CLONE_NEWUSER | CLONE_NEWNET)  # best effort; see docs/protocol.md

    workdir = spec["workdir"]
    if root and not mounts:  # no private /tmp: a directory of its own in the shared one
        import tempfile

        workdir = tempfile.mkdtemp(prefix="cardref-bot-", dir="/tmp")
        os.environ["HOME"] = os.environ["TMPDIR"] = workdir
        command = [part.replace(spec["workdir"], workdir, 1) for part in command]
    os.makedirs(workdir, mode=0o700, exist_ok=True)
    if copied is not None:
        with open(copied[0].replace(spec["workdir"], workdir, 1), "wb") as f:
            f.write(copied[1])
    uid = spec.get("uid")
    if root and uid is not None:
        for folder, _, files in os.walk(workdir):
            os.chown(folder, uid, uid)
            for name in files:
                os.chown(os.path.join(folder, name), uid, uid)
    os.chdir(workdir)

    limits = spec["limits"]
    mib = 1 << 20
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_AS, (limits["memory_mb"] * mib,) * 2)
    cpu = limits["cpu_seconds"]
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    resource.setrlimit(resource.RLIMIT_FSIZE, (limits["output_bytes"],) * 2)
    resource.setrlimit(resource.RLIMIT_NOFILE, (limits["open_files"],) * 2)
    if root and uid is not None:
        os.setgroups([])
        os.setgid(uid)
        os.setuid(uid)
    # The bot itself is one process; RLIMIT_NPROC counts the processes (and
    # threads) of its user, so as root (a fresh user per bot) this allows
    # exactly `processes` more; as another user it forbids any when 0.
    nproc = 1 + limits["processes"]
    resource.setrlimit(resource.RLIMIT_NPROC, (nproc, nproc))
    libc.prctl(PR_SET_PDEATHSIG, 9)  # SIGKILL when the referee dies (kept across exec)
    os.execvpe(command[0], command, os.environ)


if __name__ == "__main__":
    try:
        main()
    except BaseException as e:  # reported by the referee as a crash at start-up
        sys.stderr.write(f"cardref jail: {type(e).__name__}: {e}\n")
        sys.stderr.flush()
        os._exit(127)
