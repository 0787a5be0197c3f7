#!/bin/sh
# System packages the test suite needs beyond Rust and Python (Debian names):
#   chromium      the HTML report test drives it headless
#   bubblewrap    confines submitted bots (bwrap)
#   python3-venv  `python3 -m venv` for .venv/ and the wheel check
#   openssl       certificates for the TLS cluster test
# Every package is checked each time and only the missing ones are installed,
# so a second run takes well under a second. Run as root (CI images) or with sudo.
set -eu
PACKAGES="chromium bubblewrap python3-venv openssl"

if ! command -v dpkg-query >/dev/null 2>&1; then
    echo "ci-system-deps: not a Debian-like system; install the equivalents of: $PACKAGES" >&2
    exit 1
fi
missing=""
for package in $PACKAGES; do
    status=$(dpkg-query -W -f='${db:Status-Status}' "$package" 2>/dev/null || true)
    if [ "$status" != "installed" ]; then
        missing="$missing $package"
    fi
done
if [ -z "$missing" ]; then
    exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    SUDO="sudo"
fi
echo "ci-system-deps: installing$missing"
$SUDO apt-get update -q
# shellcheck disable=SC2086  # one word per package
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends $missing
