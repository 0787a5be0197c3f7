"""What a submitted bot's sandbox shows, and whether this machine can build it.

Submitted bots run under bubblewrap (``bwrap``, the sandbox Flatpak uses): a
*bot server* per bot and referee worker (``cardref.bots.seatserver``) in new
user, PID, IPC, network, UTS and mount namespaces, which forks a fresh seat
process, with namespaces of its own, for every seat of every game. The
sandbox's filesystem is built from nothing; everything in it is read-only:

- the system's ``/usr`` (and ``/bin``, ``/lib``… or their symlinks) and
  ``/etc/ld.so.cache``: what the interpreter and its libraries need;
- the Python installation that runs the referee (its base prefix, never a
  virtual environment's packages);
- the SDK, as two files under ``/cardref/sdk``;
- the packages the organiser lists in ``sandbox.packages``, under
  ``/cardref/site``, and a ``module`` bot's own top-level package;
- the bot's submission (a file, or a folder), under ``/cardref/submission``;
- files named in a ``command`` bot's command line, at their own paths.
- ``/dev``, with only ``null``, ``zero``, ``full``, ``random`` and ``urandom``.

Nothing of the organiser's (the config, the results, other submissions, the
tournament folder, the import path, ``$HOME``) and no world-writable host
folder is there. Writable are only each seat's own tmpfs (``/tmp`` and
``/dev/shm``, one size cap). When the referee runs as root the sandbox runs
under a fresh unprivileged host uid; otherwise under the organiser's own,
which the namespaces leave nothing to reach with.
"""

from __future__ import annotations

import ast
import functools
import importlib.metadata
import importlib.util
import itertools
import json
import os
import shutil
import stat
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO, Optional

from . import seccomp

BOTS = Path(__file__).parents[1] / "bots"
STAGE = Path(__file__).with_name("stage.py")
SDK_FILES = ("sdk.py", "seatserver.py")
SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
SYSTEM_FILES = ("/etc/ld.so.cache",)
#: The devices a bot may open: each a sink or a source, none a channel.
DEVICES = ("null", "zero", "full", "random", "urandom")
ENVIRONMENT = {
    "PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": "/tmp", "TMPDIR": "/tmp",
    "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "PYTHONHASHSEED": "0",
    "PYTHONDONTWRITEBYTECODE": "1", "PYTHONUNBUFFERED": "1", "OMP_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
}
INSTALL = ("install bubblewrap (Debian and Ubuntu: `apt install bubblewrap`; Fedora: "
           "`dnf install bubblewrap`) and allow user namespaces (`sysctl "
           "user.max_user_namespaces` must be above 0; on Debian and Ubuntu also "
           "`kernel.unprivileged_userns_clone = 1` and, on Ubuntu 24.04, an AppArmor "
           "profile for bwrap)")
WEAKER = "rlimits"  # the one weaker isolation an organiser may opt in to

_UIDS = itertools.count()


class ConfinementError(Exception):
    """The sandbox could not be built: a fault of this machine, not of a bot."""


@dataclass(frozen=True)
class Sandbox:
    """How this run confines submitted bots: ``mode`` is "bubblewrap" or, when
    the organiser opted in by name (``sandbox.weaker = "rlimits"``) and
    bubblewrap cannot run here, "rlimits"; ``packages`` are the distributions
    bots may import."""

    mode: str = "bubblewrap"
    packages: tuple[str, ...] = ()
    why_weaker: str = ""

    def describe(self) -> str:
        """One line for the results and reports."""
        if self.mode == "bubblewrap":
            return f"bubblewrap {bwrap_version()}, namespaces per seat, system-call filter"
        return ("WEAKER ISOLATION (sandbox.weaker = \"rlimits\"): resource limits only, "
                f"because {self.why_weaker}")


@functools.lru_cache(maxsize=1)
def bwrap_version() -> str:
    try:
        out = subprocess.run(["bwrap", "--version"], capture_output=True, text=True,
                             timeout=10).stdout
    except OSError:
        return "?"
    return out.split()[-1] if out.split() else "?"


def sandbox_uid() -> Optional[tuple[int, int]]:
    """A fresh unprivileged (uid, gid) for a sandbox when running as root,
    else None (the sandbox runs as the organiser)."""
    if os.geteuid() != 0:
        return None
    uid = 100_000_000 + (os.getpid() * 4096 + next(_UIDS)) % 1_000_000_000
    return uid, uid


@dataclass
class Mounts:
    """The read-only binds of a sandbox: bwrap arguments, and the host paths
    they show (which a root referee's ``stage.py`` makes reachable)."""

    args: list[str] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)
    shown: set[str] = field(default_factory=set)

    def bind(self, source: str, dest: str) -> None:
        if dest in self.shown:
            return
        if not os.path.exists(source):
            raise ConfinementError(f"{source} does not exist")
        parent = os.path.dirname(dest)
        if parent not in ("", "/"):
            self.args += ["--dir", parent]
        self.args += ["--ro-bind", source, dest]
        self.sources.append(source)
        self.shown.add(dest)

    def covers(self, path: str) -> bool:
        return any(path == p or path.startswith(p.rstrip("/") + "/") for p in self.shown)


def _system(mounts: Mounts) -> None:
    for path in SYSTEM:
        if os.path.islink(path):
            mounts.args += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            mounts.bind(path, path)
    for path in SYSTEM_FILES:
        if os.path.isfile(path):
            mounts.bind(path, path)


def _devices() -> list[str]:
    """A read-only ``/dev`` of harmless devices, and ``/dev/shm`` for each seat
    to mount its tmpfs on. Not bubblewrap's ``--dev``: its ``/dev`` is a
    writable tmpfs, and its pseudo-terminals a shared instance, which every
    seat of a server would see (notes from one game for the next, a line
    between two seats of one table)."""
    args = ["--tmpfs", "/dev"]
    for name in DEVICES:
        args += ["--dev-bind", f"/dev/{name}", f"/dev/{name}"]
    for i, name in enumerate(("stdin", "stdout", "stderr")):
        args += ["--symlink", f"/proc/self/fd/{i}", f"/dev/{name}"]
    return [*args, "--symlink", "/proc/self/fd", "/dev/fd", "--dir", "/dev/shm",
            "--remount-ro", "/dev"]


def interpreter() -> str:
    """The real interpreter behind the referee's (never a venv's symlink)."""
    return os.path.realpath(getattr(sys, "_base_executable", None) or sys.executable)


def _python(mounts: Mounts) -> None:
    for prefix in {os.path.realpath(sys.base_prefix), os.path.realpath(sys.base_exec_prefix)}:
        if not mounts.covers(prefix):
            mounts.bind(prefix, prefix)
    exe = interpreter()
    if not mounts.covers(exe):
        mounts.bind(exe, exe)


def distribution_paths(name: str) -> list[Path]:
    """The top-level files and folders a distribution installs (e.g. numpy and
    numpy.libs for "numpy"); raises ConfinementError for one not installed."""
    try:
        dist = importlib.metadata.distribution(name)
    except importlib.metadata.PackageNotFoundError:
        raise ConfinementError(f"sandbox.packages: {name!r} is not installed") from None
    tops = {Path(str(f)).parts[0] for f in dist.files or []}
    root = Path(str(dist.locate_file("")))
    return sorted(root / top for top in tops
                  if not top.endswith((".dist-info", ".egg-info", ".pth")) and top != ".."
                  and (root / top).exists())


def module_path(name: str) -> Path:
    """The file or folder of a module bot's top-level package."""
    top = name.split(".")[0]
    spec = importlib.util.find_spec(top)
    if spec is None or (spec.origin is None and not spec.submodule_search_locations):
        raise ConfinementError(f"no module named {top!r}")
    if spec.submodule_search_locations:
        return Path(next(iter(spec.submodule_search_locations)))
    return Path(str(spec.origin))


#: Standard-library modules most bots import: loaded once by each bot server.
PRELOAD = ("random", "math", "collections", "itertools", "functools", "heapq", "bisect",
           "dataclasses", "typing", "copy", "time", "re")


#: Standard-library modules that act when imported (print, open a browser,
#: start a program): never imported by a bot server, like any ``__main__``.
ACTS_ON_IMPORT = frozenset({"antigravity", "this", "idlelib.idle"})
#: The largest source file of a submission read for its imports.
SOURCE_BYTES = 1 << 20


def open_regular(path: Path) -> Optional[BinaryIO]:
    """``path`` opened for reading if it is a regular file and not a symbolic
    link, else None. A submission is a stranger's folder: what looks like a
    source file may be a FIFO (a read that never ends), a link to
    ``/dev/zero`` (one that never stops) or to a file of the host."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        return None
    return os.fdopen(fd, "rb")


def _imports(source: bytes) -> set[str]:
    """The absolute imports of a source file (none if it does not parse)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return set()  # the bot's own load will report it
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
    return names


def preload(kind: str, target: str) -> list[str]:
    """The standard-library modules a bot server loads before any seat: the
    usual ones and those a path bot's files import, less any module the
    submission has a file of its own for (its own ``random.py`` must win)
    and any that acts when imported (the server runs no program of a bot's
    choosing)."""
    names = set(PRELOAD)
    if kind == "path":
        root = Path(target)
        files = sorted(root.rglob("*.py")) if root.is_dir() else [root]
        for file in files[:200]:
            f = open_regular(file)
            if f is not None:
                with f:
                    source = f.read(SOURCE_BYTES + 1)
                if len(source) <= SOURCE_BYTES:
                    names |= _imports(source)
        own = {p.stem for p in files} | ({p.name for p in root.iterdir() if p.is_dir()}
                                         if root.is_dir() else set())
        names = {n for n in names if n.split(".")[0] not in own}
    stdlib = getattr(sys, "stdlib_module_names", frozenset(PRELOAD))
    return sorted(n for n in names if n.split(".")[0] in stdlib and n not in ACTS_ON_IMPORT
                  and not any(part.startswith("_") for part in n.split(".")))


def server_command(kind: str, target: str, limits: dict[str, Any], packages: tuple[str, ...],
                   control_fd: int, startup: float) -> list[str]:
    """The command line that starts a bot's server under bwrap, as the
    sandbox's user (see ``sandbox_uid``)."""
    mounts = Mounts()
    try:
        _system(mounts)
        _python(mounts)
        for name in SDK_FILES:
            mounts.bind(str(BOTS / name), f"/cardref/sdk/{name}")
        for package in packages:
            for path in distribution_paths(package):
                mounts.bind(str(path), f"/cardref/site/{path.name}")
        bot: dict[str, Any] = {"kind": kind}
        if kind == "path":
            source = f"/cardref/submission/{Path(target).name}"
            mounts.bind(target, source)
            bot["source"] = source
        elif kind == "module":
            top = module_path(target)
            mounts.bind(str(top), f"/cardref/site/{top.name}")
            bot["module"] = target
        else:
            argv = json.loads(target)
            for part in argv:
                if os.path.isabs(part) and os.path.isfile(part) and not mounts.covers(part):
                    mounts.bind(part, part)
            bot["argv"] = argv
    except (OSError, ConfinementError) as e:
        raise ConfinementError(f"cannot build the sandbox: {e}") from None
    program = seccomp.program()
    assert program is not None  # usable() refuses machines without a filter
    spec = {"control_fd": control_fd, "bot": bot, "limits": limits,
            "disk_bytes": limits["disk_mb"] << 20, "seccomp": program.hex(),
            "startup_seconds": startup, "site": ["/cardref/site"],
            "preload": preload(kind, target)}
    command = ["bwrap", "--unshare-user", "--unshare-pid", "--unshare-ipc", "--unshare-net",
               "--unshare-uts", "--unshare-cgroup-try", "--die-with-parent", "--new-session",
               "--as-pid-1",
               "--hostname", "bot", *mounts.args, "--proc", "/proc", *_devices(),
               "--dir", "/tmp", "--remount-ro", "/", "--clearenv"]
    for key, value in ENVIRONMENT.items():
        command += ["--setenv", key, value]
    command += ["--chdir", "/", "--", interpreter(), "-I", "-S", "-B",
                "/cardref/sdk/seatserver.py", json.dumps(spec)]
    user = sandbox_uid()
    if user is None:
        return command
    stage = {"uid": user[0], "gid": user[1], "expose": mounts.sources}
    return [sys.executable, "-S", "-E", str(STAGE), json.dumps(stage), *command]


@functools.lru_cache(maxsize=1)
def unusable() -> Optional[str]:
    """Why bubblewrap confinement cannot run on this machine, or None."""
    if sys.platform != "linux":
        return "bubblewrap confinement needs Linux"
    if shutil.which("bwrap") is None:
        return "bubblewrap (bwrap) is not installed"
    if seccomp.program() is None:
        return "the system-call filter knows only x86-64 system calls"
    from .botserver import probe_sandbox  # a real server and seat, once per process

    return probe_sandbox()
