#!/usr/bin/env bash
# The repository stands alone, checked from outside the checkout (`make check-standalone`):
#  1. the wheel in dist/ installs with pip into a new virtual environment, from an
#     empty folder (so the checkout's python/ is not on sys.path) and with no Rust
#     toolchain on PATH; `cardref --version` and the quick-start tournament run from it;
#  2. the rule-book and docs tests run from a `git archive` copy of HEAD in an empty
#     temporary folder, against that installed wheel: nothing beside the repository
#     is there to be read.
# Usage: scripts/check-standalone.sh [PYTHON]   (default python3)
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
python=$(command -v "${1:-python3}")
shopt -s nullglob
wheels=("$repo"/dist/cardref-*.whl)
if [ ${#wheels[@]} -ne 1 ]; then
    echo "check-standalone: expected one wheel in dist/, found ${#wheels[@]}; run make wheel" >&2
    exit 1
fi
wheel=${wheels[0]}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cardref-standalone.XXXXXX")
outside=$(mktemp -d "${TMPDIR:-/tmp}/cardref-archive.XXXXXX")  # holds the archive alone
trap 'rm -rf "$tmp" "$outside"' EXIT
fail() { echo "check-standalone: $*" >&2; exit 1; }
mkdir "$outside/cardref"
git -C "$repo" archive HEAD | tar -x -C "$outside/cardref"

# 1. A user's install: pip and the wheel only; no cargo or rustc to be found.
"$python" -m venv "$tmp/venv"
export PATH="$tmp/venv/bin:/usr/bin:/bin"
unset PYTHONPATH CARGO_HOME RUSTUP_HOME
if command -v cargo >/dev/null || command -v rustc >/dev/null; then
    echo "check-standalone: note: a Rust toolchain is on /usr/bin; the wheel does not use it"
fi
mkdir "$tmp/user"
cd "$tmp/user"
pip install -q --disable-pip-version-check "$wheel"
python - <<'EOF' || fail "cardref is imported from outside the new virtual environment"
import sys, cardref
assert cardref.__file__.startswith(sys.prefix), cardref.__file__
EOF
version=$(cardref --version)
echo "$version"
shape='^cardref [0-9][^ ]* \(engine build [0-9a-f]{32}; '
[[ $version =~ $shape ]] || fail "cardref --version printed: $version"
# The quick start as a user would copy it: the config and any file its bots name.
python - "$repo/tournaments/quickstart.toml" . <<'EOF'
import shutil, sys
from pathlib import Path
try:
    import tomllib
except ImportError:  # Python < 3.11: cardref depends on tomli there
    import tomli as tomllib
config, dest = Path(sys.argv[1]), Path(sys.argv[2])
shutil.copy(config, dest / config.name)
for bot in tomllib.loads(config.read_text())["bots"]:
    for name in ([bot["path"]] if "path" in bot else []):
        (dest / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(config.parent / name, dest / name)
EOF
cardref tournament quickstart.toml --quiet > standings.txt || fail "the quick start failed"
grep -q heuristic standings.txt || fail "no standings printed: $(cat standings.txt)"
cardref report quickstart.sqlite --format md | grep -q "heuristic" \
    || fail "cardref report shows no standings"
echo "wheel: $(basename "$wheel") installs and plays the quick start"

# 2. The rule-book and docs tests from an archive of HEAD, with nothing beside it.
pip install -q --disable-pip-version-check "$wheel[test]"
cd "$outside/cardref"
python -m pytest -q -p no:cacheprovider \
    tests/test_rulebook_coverage.py \
    tests/test_docs.py \
    tests/tournament/test_tournament_docs.py \
    "tests/tournament/test_tournament_reports.py::test_every_shipped_config_runs"
