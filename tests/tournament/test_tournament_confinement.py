"""The threat model of docs/protocol.md, attack by attack, each as a hostile
submitted bot in a real tournament against honest ones.

After every run: the tournament exits 0; the hostile bot has the status the
attack deserves; every honest seat is scored normally; no process of the run
is left; no IPC object is left; and nothing changed in the folders checked
(``WATCHED``: the shared temporary and lock folders, and the tournament's own
folder apart from its results file).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import pytest

from cardref.cli import main
from cardref.tournament.store import Store

ROOT = Path(__file__).resolve().parents[2]
STAGE = ROOT / "python" / "cardref" / "tournament" / "stage.py"
WATCHED = [Path(p) for p in ("/tmp", "/var/tmp", "/dev/shm", "/run/lock", "/var/lock")
           if os.path.isdir(p)]
SANDBOX_UIDS = range(100_000_000, 1_100_000_000)  # confine.sandbox_uid() as root

CONFIG = """
game = "take5"
players = 3
seed = 11
deal_groups = {groups}
rotation = "cyclic"
output = "results.sqlite"

[limits]
decision_seconds = {decision}
{limits}

[[bots]]
name = "heuristic"
builtin = "heuristic"
{field}
"""


def _bot_entry(name: str, path: str) -> str:
    return f'[[bots]]\nname = "{name}"\npath = "{path}"\n'


def _listing(folder: Path) -> set[str]:
    try:
        return {p.name for p in folder.iterdir()}
    except OSError:
        return set()


def _made_by(folder: Path, names: set[str], uid: int | None) -> set[str]:
    """Those of ``names`` in ``folder`` owned by a sandbox's user (other
    programs on a shared machine may make files there meanwhile)."""
    made = set()
    for name in names:
        try:
            owner = (folder / name).lstat().st_uid
        except OSError:
            continue
        if (owner in SANDBOX_UIDS) if uid is None else owner == uid:
            made.add(name)
    return made


def _ipc() -> list[str]:
    """Every System V IPC object of the machine, by kind, key and id."""
    rows = []
    for kind in ("shm", "sem", "msg"):
        path = Path(f"/proc/sysvipc/{kind}")
        if path.exists():
            rows += [f"{kind} {' '.join(line.split()[:2])}"
                     for line in path.read_text().splitlines()[1:]]
    return sorted(rows)


def _left_behind() -> list[str]:
    """Live processes descended from this one. The test process is a child
    subreaper (``_reaper``), so any process a run leaves behind, however it
    was orphaned, is re-parented to it and found here, and nothing else
    running on the machine is."""
    time.sleep(0.2)  # what was killed as the run ended has time to die
    while True:  # orphans that have already died: reap them (a subreaper's duty)
        try:
            if os.waitpid(-1, os.WNOHANG)[0] == 0:
                break
        except ChildProcessError:
            break
    parents = {}
    for entry in os.listdir("/proc"):
        try:
            status = Path(f"/proc/{entry}/status").read_text() if entry.isdigit() else ""
        except OSError:
            continue
        if status and not re.search(r"^State:\s+Z", status, re.M):
            parents[int(entry)] = int(re.search(r"^PPid:\s+(\d+)", status, re.M).group(1))
    mine = os.getpid()

    def descends(pid: int) -> bool:
        while pid > 1:
            pid = parents.get(pid, 0)
            if pid == mine:
                return True
        return False

    return [f"{pid}: {Path(f'/proc/{pid}/cmdline').read_bytes()[:80]!r}"
            for pid in parents if descends(pid)]


@pytest.fixture(scope="module", autouse=True)
def _reaper() -> None:
    import ctypes

    PR_SET_CHILD_SUBREAPER = 36
    assert ctypes.CDLL(None).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0


class Run:
    """A tournament folder with bots; ``play`` runs `cardref tournament` in a
    subprocess (as another user when asked) and checks what every run must."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        (folder / "bots").mkdir(exist_ok=True)

    def bot(self, name: str, source: str) -> str:
        path = self.folder / "bots" / f"{name}.py"
        path.write_text(textwrap.dedent(source))
        return f"bots/{name}.py"

    def play(self, field: str, limits: str = "", decision: float = 1.0, groups: int = 1,
             user: int | None = None, taskset: str = "", workers: int = 1) -> dict:
        config = self.folder / "t.toml"
        config.write_text(CONFIG.format(field=field, limits=limits, decision=decision,
                                        groups=groups))
        before = {folder: _listing(folder) for folder in WATCHED}
        own = _listing(self.folder)
        ipc = _ipc()
        command = [sys.executable, "-m", "cardref.cli", "tournament", str(config),
                   "--workers", str(workers)]
        if taskset:
            command = ["taskset", "-c", taskset, *command]
        if user is not None:
            command = _as_user(user, [sys.executable, *command[1:]], self.folder)
        done = subprocess.run(command, capture_output=True, text=True, timeout=600,
                              cwd=self.folder, env={**os.environ, "COLUMNS": "160"})
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
        assert _left_behind() == [], "processes of the run are left"
        assert _ipc() == ipc, "an IPC object is left"
        for folder in WATCHED:
            fresh = _listing(folder) - before[folder]
            assert _made_by(folder, fresh, user) == set(), f"a bot wrote into {folder}"
            assert not {n for n in fresh if n.startswith("cardref-notes")}, folder
        assert _listing(self.folder) - own <= {"results.sqlite", "results.sqlite-wal",
                                               "results.sqlite-shm"}
        with Store(self.folder / "results.sqlite") as store:
            games = store.games()
            assert games and len(games) == len(store.schedule())
        return {"games": games, "out": done.stdout + done.stderr}


def _as_user(uid: int, command: list[str], folder: Path) -> list[str]:
    """``command`` run by an unprivileged organiser, who can reach the Python
    installation, the checkout and the tournament folder (stage.py covers any
    folder closed to them, such as /root)."""
    expose = sorted({os.path.realpath(sys.base_prefix), os.path.realpath(sys.prefix),
                     str(ROOT), str(folder)})
    for path in (folder, *folder.rglob("*")):
        os.chown(path, uid, uid)
    spec = {"uid": uid, "gid": uid, "expose": expose}
    return [sys.executable, "-S", "-E", str(STAGE), json.dumps(spec), *command]


@pytest.fixture
def run(tmp_path: Path) -> Run:
    return Run(tmp_path)


def _statuses(games: list[dict], name: str) -> list[str]:
    return [g["statuses"][g["seating"].index(name)] for g in games if name in g["seating"]]


def _honest_ok(games: list[dict], *hostile: str) -> None:
    for game in games:
        for seat, name in enumerate(game["seating"]):
            if name not in hostile:
                assert game["statuses"][seat] == "ok", (name, game["messages"][seat])


# Memory of earlier games, and channels to the other seats ---------------------------------

NOTES = """
    import ctypes, os

    PLACES = ["/run/lock/cardref-notes", "/var/lock/cardref-notes", "/tmp/cardref-notes",
              "/var/tmp/cardref-notes", "/dev/shm/cardref-notes", os.path.expanduser("~/notes")]
    libc = ctypes.CDLL(None, use_errno=True)
    KEY = 0xCA4D

    class Bot:
        def start(self, info):
            found = [p for p in PLACES if os.path.exists(p)]
            segment = libc.shmget(KEY, 4096, 0)
            if segment >= 0:
                found.append("a System V segment")
            if found:
                raise RuntimeError("notes from an earlier game: " + ", ".join(found))

        def act(self, observation, legal_actions):
            for place in PLACES:
                try:
                    with open(place, "w") as f:
                        f.write(str(observation["hand"]))
                except OSError:
                    pass
            libc.shmget(KEY, 4096, 0o1666)  # IPC_CREAT
            return legal_actions[0]
"""


@pytest.mark.parametrize("workers", [1, 2])
def test_no_notes_survive_from_one_game_to_the_next(run, workers):
    field = _bot_entry("notes", run.bot("notes", NOTES))
    field += _bot_entry("random", run.bot("random", RANDOM))
    games = run.play(field, groups=2, workers=workers)["games"]
    assert len(games) == 6 and set(_statuses(games, "notes")) == {"ok"}
    _honest_ok(games)


ANYWHERE = """
    import os

    OWN = ("/proc", "/tmp", "/dev/shm")  # process entries, and the seat's own tmpfs

    def writable():
        \"\"\"Every folder outside the seat's own where a file can be made: on
        the mounts that are not read-only (nothing can be made on the others).\"\"\"
        mounts = [line.split() for line in open("/proc/self/mountinfo")]
        tops = [m[4] for m in mounts if "rw" in m[5].split(",") and os.path.isdir(m[4])]
        found = []
        for mount in tops:
            for top, folders, _ in os.walk(mount):
                if top in OWN or top.startswith(tuple(own + "/" for own in OWN)):
                    folders[:] = []
                    continue
                try:
                    os.close(os.open(os.path.join(top, ".cardref-notes"),
                                     os.O_CREAT | os.O_WRONLY))
                    found.append(top)
                except OSError:
                    pass
        return found

    class Bot:
        def start(self, info):
            found = writable()
            for terminal in ("/dev/ptmx", "/dev/pts/ptmx"):
                try:
                    os.close(os.open(terminal, os.O_RDWR | os.O_NOCTTY))
                    found.append(terminal + " (a pseudo-terminal every seat shares)")
                except OSError:
                    pass
            if found:
                raise RuntimeError("could write into " + ", ".join(found))

        def act(self, observation, legal_actions):
            return legal_actions[0]
"""


def test_a_seat_can_write_nowhere_but_its_own_tmpfs(run):
    # Anywhere else would hold notes for the next game (a bot server's seats
    # share its whole filesystem) or be a line between two seats of a table.
    field = _bot_entry("anywhere", run.bot("anywhere", ANYWHERE))
    field += _bot_entry("random", run.bot("random", RANDOM))
    games = run.play(field)["games"]
    assert set(_statuses(games, "anywhere")) == {"ok"}, [g["messages"] for g in games]


RANDOM = """
    import random

    class Bot:
        def start(self, info):
            self.rng = random.Random(info["seed"])

        def act(self, observation, legal_actions):
            return self.rng.choice(legal_actions)
"""

TWINS = """
    import ctypes, os

    libc = ctypes.CDLL(None)

    class Bot:
        def act(self, observation, legal_actions):
            libc.prctl(15, ("card " + str(observation["hand"][0])).encode(), 0, 0, 0)
            others = []
            for entry in os.listdir("/proc"):
                if entry.isdigit() and int(entry) != os.getpid():
                    try:
                        others.append(open(f"/proc/{entry}/comm").read().strip())
                    except OSError:
                        pass
            for path in ("/proc/loadavg", "/proc/stat", "/proc/meminfo", "/sys/fs/cgroup"):
                if os.path.exists(path):
                    others.append(path)
            try:
                os.sysconf("SC_AVPHYS_PAGES") and os.getloadavg()
                others.append("the load average")
            except OSError:
                pass
            if others:
                raise RuntimeError("saw " + ", ".join(others))
            return legal_actions[0]
"""


def test_two_copies_at_one_table_cannot_see_each_other(run):
    path = run.bot("twin", TWINS)
    field = _bot_entry("twin-a", path) + _bot_entry("twin-b", path)
    games = run.play(field)["games"]
    assert set(_statuses(games, "twin-a")) == set(_statuses(games, "twin-b")) == {"ok"}, \
        [g["messages"] for g in games]


SPY = """
    import os, socket, sys

    SECRETS = {secrets!r}

    class Bot:
        def act(self, observation, legal_actions):
            found = [p for p in SECRETS if os.path.exists(p)]
            found += [p for p in sys.path if "site-packages" in p or p.endswith("/python")]
            try:
                socket.create_connection(("1.1.1.1", 53), timeout=0.2).close()
                found.append("the network")
            except OSError:
                pass
            if found:
                raise RuntimeError("found " + ", ".join(found))
            return legal_actions[0]
"""


def _secrets(folder: Path) -> list[str]:
    """Files of the organiser's a bot must not see: the config, the results,
    the tournament folder, the checkout and the import path, the organiser's
    home (whatever is in it but the path to the interpreter)."""
    import cardref

    home = Path(os.path.expanduser("~"))
    interpreter = Path(os.path.realpath(sys.base_prefix))
    in_home = [str(p) for p in sorted(home.iterdir())[:20] if p not in interpreter.parents
               and p != interpreter] if home.is_dir() else []
    return [str(folder / "t.toml"), str(folder / "results.sqlite"), str(folder),
            str(Path(cardref.__file__).parent), os.path.realpath(sys.prefix) + "/pyvenv.cfg",
            str(ROOT), "/etc/passwd", "/etc/shadow", *in_home]


def test_a_bot_cannot_read_the_config_or_the_organisers_files(run):
    # The tournament folder inside the checkout: not under /tmp, on the import path.
    folder = Path(tempfile.mkdtemp(prefix=".tournament-", dir=ROOT))
    try:
        inside = Run(folder)
        field = _bot_entry("spy", inside.bot("spy", SPY.format(secrets=_secrets(folder))))
        field += _bot_entry("random", inside.bot("random", RANDOM))
        games = inside.play(field)["games"]
        assert set(_statuses(games, "spy")) == {"ok"}, [g["messages"] for g in games]
    finally:
        shutil.rmtree(folder)


def test_an_organiser_who_is_not_root_gets_the_same_sandbox(run):
    if os.geteuid() != 0:
        user = os.geteuid()  # already unprivileged: run as ourselves
    else:
        user = 65534  # nobody
        run.folder.chmod(0o755)
    field = _bot_entry("spy", run.bot("spy", SPY.format(secrets=_secrets(run.folder))))
    field += _bot_entry("notes", run.bot("notes", NOTES))
    games = run.play(field, user=user if os.geteuid() == 0 else None)["games"]
    assert set(_statuses(games, "spy")) == {"ok"}, [g["messages"] for g in games]
    assert set(_statuses(games, "notes")) == {"ok"}, [g["messages"] for g in games]


# Outliving the game, and other seats' time ------------------------------------------------

DAEMON = """
    import os, time

    class Bot:
        def start(self, info):
            if os.fork() == 0:
                os.setsid()
                if os.fork() == 0:
                    while True:  # a daemon that would spy on the next games
                        time.sleep(0.01)
                os._exit(0)
            os.wait()

        def act(self, observation, legal_actions):
            return legal_actions[0]
"""


def test_a_daemon_dies_with_its_game(run):
    field = _bot_entry("daemon", run.bot("daemon", DAEMON))
    field += _bot_entry("random", run.bot("random", RANDOM))
    games = run.play(field, limits="processes = 2")["games"]
    assert set(_statuses(games, "daemon")) == {"ok"}, [g["messages"] for g in games]


THIEF = """
    import json, select, sys, time

    def answer(reply):
        sys.stdout.write(json.dumps(reply) + "\\n")
        sys.stdout.flush()

    turns, base = 0, 0.0
    while True:
        while not select.select([sys.stdin], [], [], 0)[0]:
            pass  # between its turns: burn whatever CPU it is let have
        request = json.loads(sys.stdin.readline())
        if request["type"] == "hello":
            answer({"type": "ready"})
        elif request["type"] == "act":
            turns += 1
            if turns == 1:
                base = time.process_time()
            if turns == 4:
                answer({"type": "error", "error": "Report",
                        "message": f"cpu {time.process_time() - base:.4f}"})
                break
            answer({"type": "action", "action": request["legal"][0]})
        else:
            answer({"type": "done"})
"""

WORKER = """
    import time

    class Bot:
        def act(self, observation, legal_actions):
            end = time.process_time() + 0.1  # honest work: 0.1 s of CPU a decision
            while time.process_time() < end:
                pass
            return legal_actions[-1]
"""


def test_a_cpu_thief_runs_only_on_its_own_turns(run):
    field = _command_bot("thief", THIEF)
    field += _bot_entry("worker", run.bot("worker", WORKER))
    result = run.play(field, decision=1.0)
    games = result["games"]
    assert set(_statuses(games, "worker")) == {"ok"}, [g["messages"] for g in games]
    with Store(run.folder / "results.sqlite") as store:
        for game in games:
            seat = game["seating"].index("thief")
            turns = [s for s, actor, _, _ in store.actions(game["key"]) if s == seat]
            walls = [sec for s, actor, _, sec in store.actions(game["key"])
                     if s == seat and actor == "bot"]
            assert len(walls) == 3 and len(turns) > 3  # then it forfeited
            used = float(game["messages"][seat].split("cpu ")[1])
            # Between its turns it was stopped: all the CPU it used fits in the
            # three turns it was given (one process can use no more than the
            # time it runs). Let run meanwhile, it would have burned through
            # the others' turns too (the worker alone thinks for 0.2 s a round).
            assert used <= sum(walls) + 0.02, (used, walls)


SLEEPER = """
    import json, os, select, socket, struct, sys, time

    # A read that ends by itself: a socket nobody writes to, with a timeout.
    alarm = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    alarm.setsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO, struct.pack("ll", 0, 1000))

    def answer(reply):
        sys.stdout.write(json.dumps(reply) + "\\n")
        sys.stdout.flush()

    turns, base = 0, 0.0
    for line in sys.stdin:
        request = json.loads(line)
        if request["type"] == "act":
            turns += 1
            if turns == 1:
                base = time.process_time()
            if turns == 10:
                answer({"type": "error", "error": "Report",
                        "message": f"cpu {time.process_time() - base:.4f}"})
                break
        if request["type"] == "act":
            answer({"type": "action", "action": request["legal"][0]})
        else:
            answer({"type": "ready" if request["type"] == "hello" else "done"})
        try:
            os.read(alarm.fileno(), 1)  # looks blocked reading its next request
        except OSError:
            pass
        while not select.select([sys.stdin], [], [], 0)[0]:
            pass  # then awake while the others think
"""

THINKER = """
    import time

    class Bot:
        def act(self, observation, legal_actions):
            end = time.process_time() + 0.02
            while time.process_time() < end:
                pass
            return legal_actions[-1]
"""


def test_a_seat_that_only_looks_idle_is_stopped_too(run):
    # A seat blocked reading its next request is left running (it cannot wake
    # up before the referee writes it); one blocked reading anything else can.
    field = _command_bot("sleeper", SLEEPER)
    field += _bot_entry("thinker", run.bot("thinker", THINKER))
    games = run.play(field)["games"]
    _honest_ok(games, "sleeper")
    with Store(run.folder / "results.sqlite") as store:
        for game in games:
            seat = game["seating"].index("sleeper")
            walls = [sec for s, actor, _, sec in store.actions(game["key"])
                     if s == seat and actor == "bot"]
            assert "cpu " in game["messages"][seat], game["messages"][seat]
            used = float(game["messages"][seat].split("cpu ")[1])
            # The thinker alone thinks 0.02 s of CPU a round.
            assert len(walls) == 9 and used <= sum(walls) + 0.02, (used, walls)


EARLY = """
    import json, select, sys, time

    base = time.process_time()
    while not select.select([sys.stdin], [], [], 0)[0]:
        pass  # before its first request: burn whatever CPU it is let have
    early = time.process_time() - base
    for line in sys.stdin:
        request = json.loads(line)
        if request["type"] == "hello":
            reply = {"type": "ready"}
        else:
            reply = {"type": "error", "error": "Report", "message": f"cpu {early:.4f}"}
        sys.stdout.write(json.dumps(reply) + "\\n")
        sys.stdout.flush()
"""


def test_a_program_runs_nothing_before_its_first_request(run):
    # Each seat is made while the game before it plays: a program started
    # then would think, unmetered, through the other bots' turns.
    field = _command_bot("early", EARLY) + _bot_entry("random", run.bot("random", RANDOM))
    games = run.play(field)["games"]
    _honest_ok(games, "early")
    assert set(_statuses(games, "early")) == {"error"}
    used = [float(g["messages"][g["seating"].index("early")].split("cpu ")[1]) for g in games]
    # Started at its first request, it finds the request already waiting.
    assert max(used) < 0.02, used


# Holding more than the limits ---------------------------------------------------------------

HOARDER = """
    import ctypes, os

    libc = ctypes.CDLL(None, use_errno=True)

    class Bot:
        def act(self, observation, legal_actions):
            got = []
            segment = libc.shmget(0, 1 << 30, 0o1600)  # IPC_PRIVATE, IPC_CREAT, 1 GiB
            if segment >= 0:
                got.append("a System V segment")
            for folder in ("/dev/shm", "/tmp", "."):
                try:
                    with open(os.path.join(folder, "fill"), "wb") as f:
                        for _ in range(64):
                            f.write(b"x" * (1 << 20))
                    got.append(f"64 MiB in {folder}")
                except OSError:
                    pass
                try:
                    os.remove(os.path.join(folder, "fill"))
                except OSError:
                    pass
            if got:
                raise RuntimeError("held " + ", ".join(got))
            return legal_actions[0]
"""


def test_shared_memory_and_disk_are_capped(run):
    field = _bot_entry("hoarder", run.bot("hoarder", HOARDER))
    field += _bot_entry("random", run.bot("random", RANDOM))
    games = run.play(field, limits="disk_mb = 16\noutput_bytes = 134217728")["games"]
    assert set(_statuses(games, "hoarder")) == {"ok"}, [g["messages"] for g in games]


KERNEL_HOARDER = """
    import fcntl, os

    MIB = 1 << 20

    class Bot:
        def act(self, observation, legal_actions):
            got, held = [], []
            try:  # anonymous files: memory no process maps and no tmpfs counts
                for _ in range(3):
                    memory = os.memfd_create("notes")
                    held.append(memory)
                    for _ in range(100):
                        os.write(memory, b"x" * MIB)
                got.append("300 MiB in anonymous files")
            except OSError:
                pass
            try:  # pipe buffers, grown to the largest size allowed
                read, write = os.pipe()
                held += [read, write]
                fcntl.fcntl(write, 1031, MIB)  # F_SETPIPE_SZ: 16 times the usual
                got.append("a pipe of 1 MiB")
            except OSError:
                pass
            for fd in held:
                os.close(fd)
            with open("/proc/self/limits") as f:  # kernel memory no other limit counts
                limits = {line[:26].strip(): line[26:].split()[:2] for line in f}
            for name in ("Max msgqueue size", "Max realtime priority"):
                if limits[name] != ["0", "0"]:
                    got.append(f"{name} {limits[name]}")
            if int(limits["Max pending signals"][1]) > 64:
                got.append(f"Max pending signals {limits['Max pending signals']}")
            if got:
                raise RuntimeError("held " + ", ".join(got))
            return legal_actions[0]
"""


def test_memory_outside_the_limits_is_refused(run):
    # Neither RLIMIT_AS nor the tmpfs counts an anonymous file's pages or a
    # pipe's buffer: up to open_files of them would hold that much each.
    field = _bot_entry("hoarder", run.bot("hoarder", KERNEL_HOARDER))
    field += _bot_entry("random", run.bot("random", RANDOM))
    limits = "memory_mb = 256\ndisk_mb = 16\noutput_bytes = 134217728"
    games = run.play(field, limits=limits)["games"]
    assert set(_statuses(games, "hoarder")) == {"ok"}, [g["messages"] for g in games]


# Stopping the referee ----------------------------------------------------------------------

def _command_bot(name: str, code: str) -> str:
    return (f'[[bots]]\nname = "{name}"\ncommand = '
            + json.dumps([sys.executable, "-I", "-S", "-c", textwrap.dedent(code)]) + "\n")


DEEP_HELLO = """
    import sys
    sys.stdin.readline()
    sys.stdout.write("[" * 200000 + "\\n")
    sys.stdout.flush()
    sys.stdin.readline()
"""

DEEP_END = """
    import json, sys
    for line in sys.stdin:
        kind = json.loads(line)["type"]
        if kind == "hello":
            print(json.dumps({"type": "ready"}), flush=True)
        elif kind == "act":
            print(json.dumps({"type": "action", "action": json.loads(line)["legal"][0]}),
                  flush=True)
        else:
            print("{\\"a\\":" * 100000 + "1" + "}" * 100000, flush=True)
"""


@pytest.mark.parametrize(("code", "status"), [(DEEP_HELLO, "malformed"), (DEEP_END, "ok")])
def test_a_deeply_nested_reply_is_the_bots_failure(run, code, status):
    field = _command_bot("deep", code) + _bot_entry("random", run.bot("random", RANDOM))
    games = run.play(field)["games"]
    assert set(_statuses(games, "deep")) == {status}, [g["messages"] for g in games]
    _honest_ok(games, "deep")
    again = run.play(field)  # a resume over the stored games works too
    assert len(again["games"]) == len(games)


SHOUTS = """
    class Bot:
        def act(self, observation, legal_actions):
            raise RuntimeError("[/] [bold red]boom \\x1b[2J\\x1b]0;owned\\x07 \\r done"
                               " \\u202eraeh ti yas\\u200b")  # right to left, zero width
"""


def test_markup_and_terminal_escapes_in_a_message_stay_text(run):
    field = _bot_entry("shouts", run.bot("shouts", SHOUTS))
    field += _bot_entry("random", run.bot("random", RANDOM))
    result = run.play(field)
    assert set(_statuses(result["games"], "shouts")) == {"error"}
    for hidden in ("\x1b", "\x07", "\u202e", "\u200b"):  # none reaches a terminal or page
        assert hidden not in result["out"], repr(hidden)
    message = result["games"][0]["messages"][result["games"][0]["seating"].index("shouts")]
    assert "[/] [bold red]boom \\x1b[2J\\x1b]0;owned\\x07 \\r done \\u202eraeh" in message
    assert "[/] [bold red]boom" in result["out"]  # shown as it was written, not as markup
    again = run.play(field)  # and a resume prints the same table again
    assert "[/] [bold red]boom" in again["out"]


def test_a_submissions_own_files_cannot_stop_the_referee(run):
    # The referee reads a submission folder (its hash, the imports its bot
    # server preloads) before any seat is confined: whatever a file there is,
    # the referee neither hangs, nor fills its memory, nor lets a module of
    # the bot's choosing run in the server.
    folder = run.folder / "bots" / "tricky"
    folder.mkdir()
    (folder / "bot.py").write_text(textwrap.dedent(RANDOM))
    os.mkfifo(folder / "fifo.py")  # a read that never ends
    (folder / "zero.py").symlink_to("/dev/zero")  # one that never stops
    (folder / "loop").symlink_to(".")
    (folder / "deep.py").write_text("x = " + "-" * 100_000 + "1\n")  # too deep to parse
    # Never imported by the bot; a server preloading them would exit or start programs.
    (folder / "unused.py").write_text("import lib2to3.__main__, unittest.__main__, antigravity\n")
    field = _bot_entry("tricky", "bots/tricky") + _bot_entry("random", run.bot("random", RANDOM))
    games = run.play(field)["games"]
    assert set(_statuses(games, "tricky")) == {"ok"}, [g["messages"] for g in games]


def test_a_submission_too_big_for_its_seat_is_refused_by_name(run, capsys):
    # Its copy lives in the seat's capped tmpfs: say so before any game,
    # rather than fail every seat with a sandbox error.
    folder = run.folder / "bots" / "heavy"
    folder.mkdir()
    (folder / "bot.py").write_text(textwrap.dedent(RANDOM))
    (folder / "weights.bin").write_bytes(b"\0" * (3 << 20))
    config = run.folder / "t.toml"
    config.write_text(CONFIG.format(field=_bot_entry("heavy", "bots/heavy"), groups=1,
                                    decision=1.0, limits="disk_mb = 2"))
    assert main(["tournament", str(config), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "heavy" in err and "3.0 MiB, more than the 2 MiB" in err and "disk_mb" in err, err
    assert not (run.folder / "results.sqlite").exists()


SURROGATES = """
    import sys
    for line in sys.stdin:
        # Valid JSON, but no UTF-8 can hold a lone surrogate.
        sys.stdout.write('{"type": "error", "error": "\\\\udc80", "message": "\\\\ud800",'
                         ' "traceback": "\\\\udfff"}\\n')
        sys.stdout.flush()
"""


def test_a_reply_that_no_utf8_can_hold_is_the_bots_failure(run):
    field = _command_bot("surrogates", SURROGATES)
    field += _bot_entry("random", run.bot("random", RANDOM))
    games = run.play(field)["games"]
    assert set(_statuses(games, "surrogates")) == {"error"}, [g["messages"] for g in games]
    _honest_ok(games, "surrogates")
    game = games[0]
    seat = game["seating"].index("surrogates")
    assert game["messages"][seat] == "start: raised \\udc80: \\ud800", game["messages"][seat]
    assert game["tracebacks"][seat] == "\\udfff"


# Faults of the referee, and the weaker isolation ------------------------------------------

def test_a_fault_of_the_referee_is_not_stored_and_a_resume_plays_the_game(run, monkeypatch,
                                                                          capsys):
    from cardref.tournament import referee

    field = _bot_entry("random", run.bot("random", RANDOM))
    config = run.folder / "t.toml"
    config.write_text(CONFIG.format(field=field, limits="", decision=1.0, groups=1))
    from cardref.tournament.config import load_config
    from cardref.tournament.schedule import build_schedule

    real = referee._engine
    broken = {build_schedule(load_config(config))[1].key}
    key = next(iter(broken))

    class Faulty:
        """The engine, failing on one game's observations (no bot's doing)."""

        def __init__(self, state, key):
            self.state, self.key = state, key

        def __getattr__(self, name):
            if name.startswith("observation") and self.key in broken:
                raise RuntimeError("the engine broke")
            return getattr(self.state, name)

    def engine_for(setup, key):
        game = real(setup)

        class Game:
            def new_state(self, seed):
                return Faulty(game.new_state(seed=seed), key)

        return Game()

    def play_game(setup, game, disqualified=frozenset()):
        monkeypatch.setattr(referee, "_engine", lambda s: engine_for(s, game.key))
        return original(setup, game, disqualified)

    original = referee.play_game
    monkeypatch.setattr(referee, "play_game", play_game)
    assert main(["tournament", str(config), "--workers", "1", "--quiet"]) == 1
    err = capsys.readouterr().err
    assert f"REFEREE FAULT in game {key}" in err and "not blamed on any bot" in err
    assert "run the same command again" in err
    with Store(run.folder / "results.sqlite") as store:
        every = {g.key for g in store.schedule()}
        assert store.finished_keys() == every - broken
        assert all(set(g["statuses"]) == {"ok"} for g in store.games())
    broken.clear()
    assert main(["tournament", str(config), "--workers", "1", "--quiet"]) == 0
    with Store(run.folder / "results.sqlite") as store:
        assert store.finished_keys() == every


def test_replay_checks_the_final_placements_too(run, capsys):
    import sqlite3


    field = _bot_entry("illegal", run.bot("illegal", ILLEGAL))
    field += _bot_entry("random", run.bot("random", RANDOM))
    games = run.play(field)["games"]
    results = run.folder / "results.sqlite"
    key = games[0]["key"]
    assert main(["replay", str(results), key]) == 0
    db = sqlite3.connect(results)  # final placements no forfeit would give
    db.execute("UPDATE games SET placements = '[1, 1, 1]' WHERE key = ?", (key,))
    db.commit()
    db.close()
    capsys.readouterr()
    assert main(["replay", str(results), key]) == 1
    assert "MISMATCH" in capsys.readouterr().out


ILLEGAL = """
    class Bot:
        def act(self, observation, legal_actions):
            return "play 1000"
"""


def test_without_bubblewrap_submitted_bots_are_refused_unless_weaker_is_named(run,
                                                                             monkeypatch):
    from cardref.tournament import confine
    from cardref.tournament.config import ConfigError, load_config

    monkeypatch.setattr(confine, "unusable", lambda: "bubblewrap (bwrap) is not installed")
    field = _bot_entry("random", run.bot("random", RANDOM))
    config = run.folder / "t.toml"
    config.write_text(CONFIG.format(field=field, limits="", decision=1.0, groups=1))
    with pytest.raises(ConfigError) as info:
        load_config(config)
    assert "apt install bubblewrap" in str(info.value)
    assert 'weaker = "rlimits"' in str(info.value)
    config.write_text(config.read_text().replace("[limits]", '[sandbox]\nweaker = "rlimits"\n'
                                                 "[limits]"))
    loaded = load_config(config)
    assert loaded.sandbox.mode == "rlimits"
    assert "WEAKER ISOLATION" in loaded.sandbox.describe()
    assert "not installed" in loaded.sandbox.describe()
    from cardref.tournament.report import render
    from cardref.tournament.stats import results

    assert main(["tournament", str(config), "--workers", "1", "--quiet"]) == 0
    with Store(run.folder / "results.sqlite") as store:
        assert all(set(g["statuses"]) == {"ok"} for g in store.games())
        shown = render(results(store), "md")
    assert "WEAKER ISOLATION" in shown  # every report says how bots were confined
