#!/usr/bin/env bash
# Build the Lambda dependency layers for python3.12 on arm64, without Docker: pip installs the
# manylinux2014_aarch64 wheels of the pinned requirements into layers/deps/build/<layer>/python.
# Run before `cdk deploy` (synth works without it and warns that the layers are placeholders).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
pip="${PIP:-python3 -m pip}"
limit_mb=250  # Lambda's unzipped limit for a function and all its layers together

build_layer() {
  local name="$1" requirements="$2"
  local target="$here/build/$name/python"
  rm -rf "$here/build/$name"
  mkdir -p "$target"
  $pip install --quiet --no-compile --platform manylinux2014_aarch64 --implementation cp \
    --python-version 3.12 --only-binary=:all: --target "$target" -r "$requirements"
  # Tests, caches and boto3 (the runtime ships it) only add size.
  find "$target" -depth \( -name __pycache__ -o -name tests -o -name '*.pyc' \) -exec rm -rf {} +
  rm -rf "$target"/boto3 "$target"/botocore "$target"/s3transfer
  du -sm "$here/build/$name" | awk -v n="$name" '{print n": "$1" MB"}'
}

build_layer deps "$here/requirements-deps.txt"
build_layer ml "$here/requirements-ml.txt"

total=$(du -smc "$here/build/deps" "$here/build/ml" "$here/../core/python" | tail -1 | cut -f1)
echo "deps + ml + core: ${total} MB (limit ${limit_mb} MB)"
if [ "$total" -ge "$limit_mb" ]; then
  echo "the embedding functions would exceed Lambda's ${limit_mb} MB limit" >&2
  exit 1
fi
