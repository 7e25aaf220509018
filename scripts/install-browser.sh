#!/bin/sh
# Installs Chromium and its WebDriver (chromedriver) from the system's packages, for the
# browser test of `tailback report`:
#
#   scripts/install-browser.sh
#   TAILBACK_BROWSER_TEST=1 cargo test --release -p tailback-cli --test browser
#
# Does nothing when both are already on the PATH. Debian and Ubuntu (apt-get) only; run as
# root or with sudo available. On Ubuntu the packages may install through snap instead.
set -eu

if command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1; then
    echo "chromium and chromedriver are installed:"
    chromium --version 2>/dev/null || true
    chromedriver --version
    exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
    echo "error: apt-get not found; install Chromium and chromedriver with your system's" \
        "package manager (both must be on the PATH)" >&2
    exit 1
fi

if [ "$(id -u)" -eq 0 ]; then
    as_root=""
elif command -v sudo >/dev/null 2>&1; then
    as_root="sudo"
else
    echo "error: installing packages needs root (or sudo)" >&2
    exit 1
fi

export DEBIAN_FRONTEND=noninteractive
$as_root apt-get update -q
$as_root apt-get install -y -q --no-install-recommends chromium chromium-driver fonts-dejavu-core
chromium --version 2>/dev/null || true
chromedriver --version
