#!/usr/bin/env bash
# What tests/browser need beyond the virtualenv, installed only when missing (make test and .ci/run call it):
# Debian's chromium (as root; otherwise the tests fail saying how to install it) and axe-core from npm.
set -euo pipefail
cd "$(dirname "$0")"
if ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
    apt-get update -q && apt-get install -y -q chromium
  elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null && command -v apt-get >/dev/null 2>&1; then
    sudo apt-get update -q && sudo apt-get install -y -q chromium
  else
    echo "chromium is missing and cannot be installed here: apt-get install -y chromium (as root)" >&2
  fi
fi
if [ ! -f node_modules/axe-core/axe.min.js ]; then
  if command -v npm >/dev/null 2>&1; then
    npm ci --no-audit --no-fund --ignore-scripts --loglevel=error
  else
    echo "npm is missing: tests/browser need axe-core (npm ci in tests/browser)" >&2
  fi
fi
