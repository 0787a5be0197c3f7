"""The launcher of the weaker isolation an organiser may opt in to.

    python -S -E jail.py SPEC_JSON COMMAND ...

Used only with ``sandbox.weaker = "rlimits"`` on a machine where bubblewrap
cannot run (see ``confine.py``): it sets the resource limits and executes
the bot's command in its working directory. As root it runs after
``stage.py`` has made it a separate unprivileged user. There are no
namespaces: such a bot can read what its user can read and see the
machine's other processes, which the results record.
This file imports nothing from cardref: ``-S -E`` keeps its start fast.
"""

import json
import os
import resource
import sys

PR_SET_PDEATHSIG = 1
SIGNALS_QUEUED = 64  # signals a bot may have pending at once (the default is thousands)


def main() -> None:
    spec = json.loads(sys.argv[1])
    command = sys.argv[2:]
    limits = spec["limits"]
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
    if spec["own_user"]:  # a user of its own (stage.py): the process limit counts it alone
        nproc = 1 + limits["processes"]
        resource.setrlimit(resource.RLIMIT_NPROC, (nproc, nproc))
    import ctypes

    ctypes.CDLL(None).prctl(PR_SET_PDEATHSIG, 9)  # SIGKILL when the referee dies
    os.chdir(spec["workdir"])
    os.execvpe(command[0], command, os.environ)


if __name__ == "__main__":
    try:
        main()
    except BaseException as e:  # reported by the referee as a crash at start-up
        sys.stderr.write(f"cardref jail: {type(e).__name__}: {e}\n")
        sys.stderr.flush()
        os._exit(127)
