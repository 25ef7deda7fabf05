#!/usr/bin/env bash
# What the tests need beyond the virtualenv, each installed only when missing (`make test` runs this first, and
# .ci/run runs `make test`): Debian's tesseract-ocr and tesseract-ocr-eng (local OCR of scanned PDFs), Debian's
# chromium (tests/browser), Debian's espeak-ng (speech synthesis, /v1/voice), Debian's wordnet, wamerican-large and
# wbritish-large (the scripts that write the shipped WordNet and word-list tables, whose tests rerun them), and axe-core
# from npm (tests/browser/package.json).
#
# The rule (CONTRIBUTING.md): a tool a test needs is installed here, never skipped. Debian packages go in with
# apt-get as root, or through sudo otherwise (`sudo -n` without a terminal); where neither works this stops
# `make test` and prints the command to run.
#
#   tests/setup.sh           install what is missing (one apt-get update, then one apt-get install)
#   tests/setup.sh --check   print what is missing and the commands that would install it; install nothing;
#                            exit 1 when something is missing
set -euo pipefail
cd "$(dirname "$0")"
CHECK=false
if [ "${1:-}" = "--check" ]; then CHECK=true; fi

has() { command -v "$1" >/dev/null 2>&1; }
tesseract_has_english() {
  local langs
  langs=$(tesseract --list-langs 2>&1 || true)
  grep -qx eng <<<"$langs"
}

missing=()
has tesseract || missing+=(tesseract-ocr)
if ! has tesseract || ! tesseract_has_english; then missing+=(tesseract-ocr-eng); fi
has chromium || has chromium-browser || missing+=(chromium)
has espeak-ng || missing+=(espeak-ng)
wordnet_ok() { has wn && [ -f /usr/share/wordnet/data.verb ]; }
word_lists_ok() { [ -f /usr/share/dict/american-english-large ] && [ -f /usr/share/dict/british-english-large ]; }
wordnet_ok || missing+=(wordnet)
[ -f /usr/share/dict/american-english-large ] || missing+=(wamerican-large)
[ -f /usr/share/dict/british-english-large ] || missing+=(wbritish-large)

if [ ${#missing[@]} -gt 0 ]; then
  echo "==> Debian packages the tests need: ${missing[*]} (apt-get update and install: about 1 to 3 minutes)"
  if [ "$(id -u)" -eq 0 ]; then
    as_root=()
  elif has sudo; then
    if [ -t 0 ]; then as_root=(sudo); else as_root=(sudo -n); fi
  else
    as_root=(none)
  fi
  install=(env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}")
  update=(apt-get update -q)
  if [ "${as_root[*]}" = none ] || ! has apt-get; then
    echo "cannot install ${missing[*]} here (needs apt-get as root, or sudo): run as root" >&2
    echo "  apt-get update && apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
  if $CHECK; then
    echo "would run: ${as_root[*]:+${as_root[*]} }${update[*]}"
    echo "would run: ${as_root[*]:+${as_root[*]} }${install[*]}"
  else
    "${as_root[@]}" "${update[@]}"
    "${as_root[@]}" "${install[@]}"
    has tesseract && tesseract_has_english && { has chromium || has chromium-browser; } && has espeak-ng \
      && wordnet_ok && word_lists_ok || {
      echo "apt-get finished but tesseract (with eng), chromium, espeak-ng, WordNet or the large word lists is still missing" >&2
      exit 1
    }
  fi
fi

if [ ! -f browser/node_modules/axe-core/axe.min.js ]; then
  echo "==> axe-core for tests/browser (npm ci in tests/browser: a few seconds)"
  if ! has npm; then
    echo "npm is missing: tests/browser need axe-core; install Node.js and npm (apt-get install -y npm)," >&2
    echo "then run: (cd tests/browser && npm ci)" >&2
    exit 1
  fi
  if $CHECK; then
    echo "would run: (cd tests/browser && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error)"
  else
    (cd browser && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error)
  fi
fi

if $CHECK && { [ ${#missing[@]} -gt 0 ] || [ ! -f browser/node_modules/axe-core/axe.min.js ]; }; then
  exit 1
fi
