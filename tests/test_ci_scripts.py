"""scripts/ci-system-deps.sh installs exactly the missing system packages,
checked with stand-ins for dpkg-query, apt-get and sudo on PATH."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "ci-system-deps.sh"
NEEDED = {"chromium", "bubblewrap", "python3-venv", "openssl"}


def _run(tmp_path: Path, installed: set[str], dpkg: bool = True) -> tuple[int, list[str], str]:
    """Run the script with ``installed`` reported by the stand-in dpkg-query; return
    its exit code, the stand-in apt-get's calls and its standard error."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "apt.log"
    stubs = {
        "apt-get": f'echo "$*" >> {log}\n',
        "sudo": 'exec "$@"\n',
        "id": 'echo 1000\n',  # not root: the script must go through sudo
    }
    if dpkg:
        stubs["dpkg-query"] = (
            'for p; do :; done\n'  # the last argument is the package
            f'case " {" ".join(sorted(installed))} " in\n'
            '  *" $p "*) printf installed ;;\n'
            '  *) echo "dpkg-query: no packages found matching $p" >&2; exit 1 ;;\n'
            'esac\n')
    for name, body in stubs.items():
        (bin_dir / name).write_text("#!/bin/sh\n" + body)
        (bin_dir / name).chmod(0o755)
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "HOME": str(tmp_path)}
    if not dpkg:
        env["PATH"] = str(bin_dir)
        for tool in ("sh", "echo", "printf"):
            real = next((Path(d) / tool for d in ("/bin", "/usr/bin")
                         if (Path(d) / tool).exists()), None)
            if real is not None:
                os.symlink(real, bin_dir / tool)
    done = subprocess.run(["/bin/sh", str(SCRIPT)], env=env, capture_output=True, text=True,
                          timeout=60, check=False)
    calls = log.read_text().splitlines() if log.exists() else []
    return done.returncode, calls, done.stderr


def test_nothing_is_installed_when_everything_is_there(tmp_path: Path) -> None:
    code, calls, _ = _run(tmp_path, NEEDED)
    assert code == 0
    assert calls == []


@pytest.mark.parametrize("missing", [{"bubblewrap"}, {"chromium", "python3-venv"}, NEEDED],
                         ids=lambda m: "+".join(sorted(m)))
def test_only_the_missing_packages_are_installed(tmp_path: Path, missing: set[str]) -> None:
    code, calls, _ = _run(tmp_path, NEEDED - missing)
    assert code == 0
    assert calls[0] == "update -q"
    assert len(calls) == 2
    install = calls[1].split()
    assert install[:4] == ["install", "-y", "-q", "--no-install-recommends"]
    assert set(install[4:]) == missing


def test_without_dpkg_it_names_the_packages(tmp_path: Path) -> None:
    code, calls, err = _run(tmp_path, set(), dpkg=False)
    assert code == 1
    assert calls == []
    assert all(package in err for package in NEEDED)
