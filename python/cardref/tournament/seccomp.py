"""The system-call filter every confined bot process runs under.

A classic-BPF seccomp program (the format both ``bwrap --seccomp`` and
``prctl(PR_SET_SECCOMP)`` take) that refuses, with ``EPERM``, the calls a bot
could use to hold memory outside its limits or to pass information to
another bot through state the kernel shares across namespaces:

- System V IPC (shared memory, semaphores, message queues), anonymous files
  (``memfd_create``, ``memfd_secret``) and pipes grown past their usual
  64 KiB (``F_SETPIPE_SZ``): memory that no per-process limit or tmpfs
  counts;
- ``flock`` and the ``fcntl`` locks, leases and directory notifications: lock
  state of the read-only files every bot sees (the interpreter's own) is one
  and the same object for all of them;
- ``inotify`` and ``fanotify``: another process's reads of those shared files;
- ``sysinfo``: the machine's load and free memory;
- timers (``alarm``, ``setitimer``, POSIX timers, ``timerfd``): a bot runs
  only while it is asked to act, so it needs no wake-up; without them a bot
  blocked reading its next request cannot run before it gets one, which
  spares the referee stopping it (``botserver.PidfdControl``);
- kernel keyrings, ``ptrace``, ``process_vm_*``, ``kcmp``, ``setns``,
  ``perf_event_open``, ``bpf``, ``userfaultfd`` and ``io_uring``: calls a bot
  never needs, each a way around the other rules or into the kernel's less
  trodden paths.

Anything else is allowed. A call made through another architecture's entry
(the 32-bit ``int 0x80`` on x86-64, or x32) kills the process: the filter
knows only the native numbers. Only x86-64 is supported; elsewhere
``program()`` returns None and confinement reports itself unavailable.
"""

from __future__ import annotations

import errno
import platform
import struct
from typing import Optional

AUDIT_ARCH_X86_64 = 0xC000003E
X32_BIT = 0x40000000

#: x86-64 system-call numbers refused outright.
DENIED_X86_64 = {
    "shmget": 29, "shmat": 30, "shmctl": 31, "semget": 64, "semop": 65, "semctl": 66,
    "shmdt": 67, "msgget": 68, "msgsnd": 69, "msgrcv": 70, "msgctl": 71, "semtimedop": 220,
    "flock": 73, "sysinfo": 99, "ptrace": 101,
    "add_key": 248, "request_key": 249, "keyctl": 250,
    "inotify_init": 253, "inotify_add_watch": 254, "inotify_init1": 294,
    "perf_event_open": 298, "fanotify_init": 300, "setns": 308,
    "process_vm_readv": 310, "process_vm_writev": 311, "kcmp": 312,
    "bpf": 321, "userfaultfd": 323, "memfd_create": 319, "memfd_secret": 447,
    "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427,
    "alarm": 37, "setitimer": 38, "timer_create": 222, "timer_settime": 223,
    "timerfd_create": 283, "timerfd_settime": 286,
}
FCNTL_X86_64 = 72

#: fcntl commands refused: record locks (classic and open-file-description),
#: leases, directory notification and growing a pipe's buffer.
DENIED_FCNTL = {"F_SETLK": 6, "F_SETLKW": 7, "F_OFD_SETLK": 37, "F_OFD_SETLKW": 38,
                "F_SETLEASE": 1024, "F_NOTIFY": 1026, "F_SETPIPE_SZ": 1031}

# Classic BPF opcodes and seccomp return values.
LD_W_ABS = 0x20  # BPF_LD | BPF_W | BPF_ABS
JEQ_K = 0x15  # BPF_JMP | BPF_JEQ | BPF_K
JGE_K = 0x35  # BPF_JMP | BPF_JGE | BPF_K
RET_K = 0x06  # BPF_RET | BPF_K
RET_ALLOW = 0x7FFF0000
RET_KILL_PROCESS = 0x80000000
RET_EPERM = 0x00050000 | errno.EPERM

# Offsets in struct seccomp_data: nr, arch, then ip and args[6] (64-bit each).
NR, ARCH, ARG1_LOW = 0, 4, 24


def _insn(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("=HBBI", code, jt, jf, k)


def _refuse_each(numbers: list[int]) -> list[bytes]:
    """For the value loaded: return EPERM if it is one of ``numbers``."""
    out = []
    for number in numbers:
        out += [_insn(JEQ_K, number, jt=0, jf=1), _insn(RET_K, RET_EPERM)]
    return out


def program() -> Optional[bytes]:
    """The filter as an array of ``struct sock_filter``, or None on an
    architecture it does not know."""
    if platform.machine() not in ("x86_64", "AMD64"):
        return None
    fcntl_rules = [_insn(LD_W_ABS, ARG1_LOW), *_refuse_each(sorted(DENIED_FCNTL.values())),
                   _insn(RET_K, RET_ALLOW)]
    body = [
        _insn(LD_W_ABS, ARCH),
        _insn(JEQ_K, AUDIT_ARCH_X86_64, jt=1, jf=0),
        _insn(RET_K, RET_KILL_PROCESS),
        _insn(LD_W_ABS, NR),
        _insn(JGE_K, X32_BIT, jt=0, jf=1),
        _insn(RET_K, RET_KILL_PROCESS),
        *_refuse_each(sorted(DENIED_X86_64.values())),
        _insn(JEQ_K, FCNTL_X86_64, jt=0, jf=len(fcntl_rules)),
        *fcntl_rules,
        _insn(RET_K, RET_ALLOW),
    ]
    return b"".join(body)
