#!/bin/sh
# System packages the test suite needs beyond Python: Debian's chromium, which
# the HTML report test drives headless. Run as root (CI images) or with sudo.
set -eu
if command -v chromium >/dev/null 2>&1; then
    exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    SUDO="sudo"
fi
$SUDO apt-get update -q
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends chromium
