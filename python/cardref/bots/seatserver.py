"""The warm bot server: one per submitted bot and referee worker, inside the
bubblewrap sandbox, making a fresh confined process for every seat.

    python -I -S seatserver.py SPEC_JSON

The referee starts this program under ``bwrap`` (see
``cardref.tournament.confine``), which already hides everything of the
organiser's: the server sees only the interpreter, this folder (the SDK), the
packages the organiser allows and the bot's submission, all read-only. The
server holds no game information and never imports the bot. On each request
on its control socket it forks a seat process that:

1. enters namespaces of its own (user, mount, PID, IPC, network, UTS), so no
   two seats can see or signal each other, share IPC objects, sockets, or
   files; it is process 1 of its PID namespace, so every process it starts
   dies with it;
2. mounts a private ``/proc`` (process entries only: the machine's load,
   memory and uptime are not shown), a size-capped tmpfs on ``/tmp`` (its
   working directory, with a private copy of the submission) and on
   ``/dev/shm`` (the same tmpfs: one cap), and forbids further user
   namespaces;
3. sets its resource limits, drops every capability, sets ``no_new_privs``
   and installs the system-call filter (``cardref.tournament.seccomp``);
4. waits until the referee takes it: the server makes each seat ahead of
   its game, and a bot's code must not run (nor use CPU while another bot
   thinks) before its first request. The server stops the seat, tells it to
   go on, and hands it over; it goes on when the referee resumes it;
5. then, and only then, loads the bot and answers the protocol of
   ``docs/protocol.md`` on its standard input and output (or executes the
   bot's command).

The referee gets the seat's pipes, a pidfd (to stop, resume and kill it) and
a status pipe on which the seat's parent reports how it ended. This file
imports only the standard library and the SDK beside it.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import resource
import select
import shutil
import signal
import socket
import stat
import struct
import sys
from typing import Any, Callable, NoReturn

if __package__:
    from . import sdk
else:  # run as a file inside the sandbox, where only the SDK lies beside it
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import sdk

CLONE_NEWNS = 0x00020000
CLONE_NEWUTS = 0x04000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
NAMESPACES = (CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWNET
              | CLONE_NEWUTS)
MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_BIND, MS_REC, MS_PRIVATE = 2, 4, 8, 4096, 16384, 1 << 18
PR_CAPBSET_DROP, PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 24, 38, 22, 2
CAPABILITY_VERSION_3 = 0x20080522
INSIDE_UID = 1000  # the seat's user inside its namespace: never 0
GO = b"go"  # the server to a seat it hands over: run the bot once resumed
SIGNALS_QUEUED = 64  # signals a seat may have pending at once (the default is thousands)

libc = ctypes.CDLL(None, use_errno=True)


class SetupError(Exception):
    """A step of confinement failed; the seat is not started."""


def _check(result: int, what: str) -> None:
    if result != 0:
        err = ctypes.get_errno()
        raise SetupError(f"{what}: {os.strerror(err)}")


def _write(path: str, text: str) -> None:
    with open(path, "w") as f:
        f.write(text)


# The seat's confinement, step by step ---------------------------------------------


def _enter_namespaces(uid: int, gid: int) -> None:
    """New namespaces of every kind; the host user becomes INSIDE_UID."""
    _check(libc.unshare(NAMESPACES), "unshare")
    _write("/proc/self/setgroups", "deny")
    _write("/proc/self/uid_map", f"{INSIDE_UID} {uid} 1")
    _write("/proc/self/gid_map", f"{INSIDE_UID} {gid} 1")


def _mount_private(spec: dict[str, Any]) -> None:
    """/proc of this namespace only, one capped tmpfs for /tmp and /dev/shm."""
    _check(libc.mount(b"none", b"/", None, MS_REC | MS_PRIVATE, None), "private mounts")
    # Before /proc is replaced: no user namespaces below this one, ever.
    _write("/proc/sys/user/max_user_namespaces", "0")
    _check(libc.mount(b"proc", b"/proc", b"proc", MS_NOSUID | MS_NODEV | MS_NOEXEC,
                      b"subset=pid,hidepid=invisible"), "mount /proc")
    options = f"size={spec['disk_bytes']},mode=0700,uid={INSIDE_UID},gid={INSIDE_UID}"
    _check(libc.mount(b"tmpfs", b"/tmp", b"tmpfs", MS_NOSUID | MS_NODEV, options.encode()),
           "mount /tmp")
    os.mkdir("/tmp/.shm", 0o700)
    os.chown("/tmp/.shm", INSIDE_UID, INSIDE_UID)
    _check(libc.mount(b"/tmp/.shm", b"/dev/shm", None, MS_BIND, None), "mount /dev/shm")
    name = b"bot"
    _check(libc.sethostname(name, len(name)), "hostname")


def _copy_submission(spec: dict[str, Any]) -> str:
    """The bot's private copy of its submission (a file, or a folder with
    ``bot.py``) under /tmp/bot: the path to load, or "" for other bots."""
    bot = spec["bot"]
    if bot["kind"] != "path":
        return ""
    source, work = bot["source"], "/tmp/bot"
    if os.path.isdir(source):
        shutil.copytree(source, work, symlinks=True, ignore=_special_files)
        return work
    os.mkdir(work)
    target = os.path.join(work, os.path.basename(source))
    shutil.copyfile(source, target)
    return target


def _special_files(folder: str, names: list[str]) -> list[str]:
    """The entries of a submission's folder left out of its copy: all but
    files, folders and links (a FIFO would block the copy)."""
    plain = (stat.S_ISREG, stat.S_ISDIR, stat.S_ISLNK)
    return [name for name in names
            if not any(kind(os.lstat(os.path.join(folder, name)).st_mode) for kind in plain)]


def _limit(limits: dict[str, Any]) -> None:
    mib = 1 << 20
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_AS, (limits["memory_mb"] * mib,) * 2)
    cpu = limits["cpu_seconds"]
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    resource.setrlimit(resource.RLIMIT_FSIZE, (limits["output_bytes"],) * 2)
    resource.setrlimit(resource.RLIMIT_NOFILE, (limits["open_files"],) * 2)
    # Kernel memory no other limit counts (POSIX message queues, queued
    # signals) and a real-time priority that would starve the referee.
    resource.setrlimit(resource.RLIMIT_MSGQUEUE, (0, 0))
    resource.setrlimit(resource.RLIMIT_SIGPENDING, (SIGNALS_QUEUED,) * 2)
    resource.setrlimit(resource.RLIMIT_RTPRIO, (0, 0))
    # Counted per user namespace (Linux 5.14+): this seat's processes alone,
    # its parent outside the PID namespace and process 1 included.
    nproc = 2 + limits["processes"]
    resource.setrlimit(resource.RLIMIT_NPROC, (nproc, nproc))


def _drop_privileges(program: bytes) -> None:
    """No capability, no way to gain one, and the system-call filter."""
    for cap in range(64):
        if libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0:
            break  # past the last capability this kernel knows
    header = struct.pack("=Ii", CAPABILITY_VERSION_3, 0)
    data = bytes(24)  # effective, permitted, inheritable: all empty, twice
    _check(libc.capset(header, data), "drop capabilities")
    _check(libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
    buffer = ctypes.create_string_buffer(program)
    fprog = struct.pack("=HxxxxxxQ", len(program) // 8, ctypes.addressof(buffer))
    _check(libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, fprog, 0, 0), "seccomp")


def _confine(spec: dict[str, Any], fds: dict[str, int], keep: tuple[int, ...]) -> str:
    """Every step of confinement, in order; returns the submission's copy."""
    _mount_private(spec)
    target = _copy_submission(spec)
    os.chdir("/tmp/bot" if target else "/tmp")
    os.environ.update({"HOME": os.getcwd(), "TMPDIR": "/tmp"})
    for fd, std in ((fds["stdin"], 0), (fds["stdout"], 1), (fds["stderr"], 2)):
        os.dup2(fd, std)
    _close_all_but(keep)
    _limit(spec["limits"])
    _drop_privileges(bytes.fromhex(spec["seccomp"]))
    return target


def _close_all_but(keep: tuple[int, ...]) -> None:
    """Close every descriptor from 3 up except those in ``keep`` (those that
    are open: trying all 65536 numbers costs a system call each)."""
    for name in os.listdir("/proc/self/fd"):
        fd = int(name)
        if fd > 2 and fd not in keep:
            with contextlib.suppress(OSError):
                os.close(fd)


def _run_bot(spec: dict[str, Any], target: str) -> NoReturn:
    """Execute the bot's command, or load its class and serve the protocol."""
    bot = spec["bot"]
    if bot["kind"] == "command":
        try:
            os.execvpe(bot["argv"][0], bot["argv"], os.environ)
        except OSError as e:
            os.write(2, f"cannot run {bot['argv'][0]}: {e.strerror}\n".encode())
            os._exit(127)
    sys.path.extend(spec.get("site", []))
    inp, out = sdk._private_channels()
    load = sdk.loader("path", target) if target else sdk.loader("module", bot["module"])
    os._exit(sdk.serve(load, inp, out))


def _become_the_seat(spec: dict[str, Any], fds: dict[str, int], status_w: int,
                     report: socket.socket) -> NoReturn:
    """Process 1 of the seat's namespaces: confine, wait to be taken, then run
    the bot. A failure before the bot runs is written to ``status_w``: it is
    the referee's, not the bot's."""
    try:
        report.sendmsg([b"ok"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS,
                                  struct.pack("i", os.pidfd_open(os.getpid())))])
        target = _confine(spec, fds, (status_w, report.fileno()))
        os.close(status_w)
    except BaseException as e:
        _report(status_w, {"setup": f"{type(e).__name__}: {e}"})
        os._exit(127)
    if report.recv(16) != GO:  # the server ended before handing the seat over
        os._exit(0)
    report.close()
    _run_bot(spec, target)


def _only(run: Callable[[], Any]) -> NoReturn:
    """Run ``run`` in a forked process and end the process there, whatever
    happens: an exception must never carry a child back into its parent's
    code (the server's loop), nor into a costly interpreter shutdown."""
    try:
        run()
    finally:
        os._exit(127)


def _report(status_w: int, record: dict[str, Any]) -> None:
    with contextlib.suppress(OSError):  # the referee may have gone
        os.write(status_w, _line(record))


def _seat(spec: dict[str, Any], fds: dict[str, int], status_w: int,
          report: socket.socket) -> None:
    """The seat's parent: makes the namespaces, forks process 1 into them and
    reports on ``status_w`` how it ended (the bot never holds that pipe)."""
    try:
        _enter_namespaces(os.getuid(), os.getgid())
        child = os.fork()
        if child == 0:
            _only(lambda: _become_the_seat(spec, fds, status_w, report))
        report.close()
        for fd in fds.values():
            os.close(fd)
        _, status, usage = os.wait4(child, 0)
        _report(status_w, {**_ending(status), "cpu": usage.ru_utime + usage.ru_stime})
    except BaseException as e:
        _report(status_w, {"setup": f"{type(e).__name__}: {e}"})


def _line(record: dict[str, Any]) -> bytes:
    return json.dumps(record).encode() + b"\n"


def _ending(status: int) -> dict[str, Any]:
    if os.WIFSIGNALED(status):
        return {"signal": os.WTERMSIG(status)}
    return {"exit": os.waitstatus_to_exitcode(status)}


# The server --------------------------------------------------------------------------


class Pending:
    """A seat being made: its parent forked, its descriptors waiting."""

    def __init__(self, spec: dict[str, Any], control: socket.socket) -> None:
        stdin_r, stdin_w = os.pipe()
        stdout_r, stdout_w = os.pipe()
        stderr_r, stderr_w = os.pipe()
        status_r, status_w = os.pipe()
        self.mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
        child = os.fork()
        if child == 0:
            control.close()
            self.mine.close()
            for fd in (stdin_w, stdout_r, stderr_r, status_r):
                os.close(fd)
            _only(lambda: _seat(spec, {"stdin": stdin_r, "stdout": stdout_w,
                                       "stderr": stderr_w}, status_w, theirs))
        theirs.close()
        for fd in (stdin_r, stdout_w, stderr_w, status_w):
            os.close(fd)
        self.handed = [stdin_w, stdout_r, stderr_r, status_r]
        self.seconds = spec["startup_seconds"]

    def hand_over(self, control: socket.socket) -> None:
        """Wait until the seat has started, stop it, let it go on to the bot
        once resumed, and send the referee its pidfd and pipes. The seat has
        run no code of the bot's yet, and runs none until the referee resumes
        it for its first request."""
        status_r = self.handed[3]
        try:
            ready, _, _ = select.select([self.mine, status_r], [], [], self.seconds)
            if self.mine not in ready:
                raise SetupError(_failed_setup(status_r))
            _, ancillary, _, _ = self.mine.recvmsg(16, socket.CMSG_SPACE(4))
            if not ancillary:
                raise SetupError(_failed_setup(status_r))
            pidfd = struct.unpack("i", ancillary[0][2][:4])[0]
            with contextlib.suppress(OSError):  # if it died setting up, the referee hears
                signal.pidfd_send_signal(pidfd, signal.SIGSTOP)
            self.mine.send(GO)
            socket.send_fds(control, [b'{"type":"seat"}'], [pidfd, *self.handed])
            os.close(pidfd)
        finally:
            self.mine.close()
            for fd in self.handed:
                os.close(fd)


def _preload(modules: list[str]) -> None:
    """Import standard-library modules the bot will import, once, here: every
    seat then starts with them loaded. Only the standard library: the bot's
    own code never runs in the server."""
    for name in modules:
        try:
            __import__(name)
        except Exception:
            continue


def _failed_setup(status_r: int) -> str:
    if select.select([status_r], [], [], 1.0)[0]:
        said = os.read(status_r, 4096).decode(errors="replace").strip()
        return f"the seat could not be set up: {said}"
    return "the seat did not start in time"


def _reap() -> None:
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def main() -> int:
    spec = json.loads(sys.argv[1])
    control = socket.socket(fileno=spec["control_fd"])
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the referee ends the server
    _preload(spec.get("preload", []))
    # Process 1 of the sandbox: the referee ends the whole sandbox through this.
    socket.send_fds(control, [b'{"type":"ready"}'], [os.pidfd_open(os.getpid())])
    pending = Pending(spec, control)  # one seat made ahead, while the referee plays
    while True:
        request = control.recv(4096)
        if not request:
            return 0
        _reap()
        try:
            pending.hand_over(control)
        except Exception as e:  # the referee hears why, and the server goes on
            control.send(json.dumps({"type": "error", "message": str(e)[:1000]}).encode())
        pending = Pending(spec, control)


if __name__ == "__main__":
    sys.exit(main())
