#!/usr/bin/env bash
# The browser of the terminal's end-to-end tests (test/e2e/): Debian's chromium, driven
# by playwright-core. Installs it with apt-get when it is missing and apt-get can run
# (CI's machine: Debian, root); otherwise says why and leaves the tests to skip.
# Idempotent: does nothing when a browser is there. MDS_CHROMIUM names another binary.
set -uo pipefail
browser="${MDS_CHROMIUM:-/usr/bin/chromium}"
if [ -x "$browser" ]; then
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "ensure-browser: no $browser and no apt-get: the browser tests will be skipped" >&2
  exit 0
fi
if [ "$(id -u)" != "0" ]; then
  echo "ensure-browser: no $browser and not root (apt-get install needs root): the browser tests will be skipped" >&2
  exit 0
fi
echo "ensure-browser: installing Debian's chromium with apt-get" >&2
export DEBIAN_FRONTEND=noninteractive
if ! apt-get install -y --no-install-recommends chromium >/dev/null 2>&1; then
  # The package lists may be missing or stale on a fresh machine: update once and retry.
  apt-get update -qq >/dev/null 2>&1 || true
  if ! apt-get install -y --no-install-recommends chromium >/dev/null 2>&1; then
    echo "ensure-browser: apt-get install chromium failed: the browser tests will be skipped" >&2
    exit 0
  fi
fi
echo "ensure-browser: $("$browser" --version 2>/dev/null || echo chromium installed)" >&2
