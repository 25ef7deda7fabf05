"""The synthesis every infra test reads: every environment, function folders from a fixture directory with one
handler per catalogue entry (so these tests do not depend on which functions/ folders exist yet), the real ASL
files, and the unbuilt placeholder layers whether or not layers/deps/build.sh has run.

`python -m tests.infra.synth RUN_FOLDER` builds it in the background for a test run (tests/infra/conftest.py starts
it when the collected tests need it; tests/support/shared_build.py).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from tests.support.shared_build import built_once_in

os.environ.setdefault("JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION", "20")


def write_fixture_functions(root: Path) -> None:
    from voiceassist.constants.functions import FUNCTIONS

    root.mkdir()
    for spec in FUNCTIONS:
        (root / spec.name).mkdir()
        (root / spec.name / "handler.py").write_text(
            "def lambda_handler(event, context):\n    return event\n"
        )


def synthesize(folder: Path, functions_dir: Path) -> None:
    from infra.app import build_app

    # Built layers (layers/deps/build) would be copied into cdk.out on every run: tests use the placeholders.
    unbuilt = folder / "unbuilt-layer"
    unbuilt.mkdir(parents=True)
    layers = {f"{name}_layer_dir": str(unbuilt) for name in ("deps", "ml", "auth")}
    app = build_app(
        context={"env": "all", "functions_dir": str(functions_dir), "allow_unbuilt_layers": "true", **layers},
        outdir=str(folder / "cdk.out"),
    )
    app.synth()  # raises if any cdk-nag finding is unacknowledged


def build_in(run_folder: Path) -> Path:
    """The synthesized folder of the run (its cdk.out), built once for all workers."""
    functions_dir = built_once_in(run_folder, "functions", write_fixture_functions)
    return built_once_in(run_folder, "synthesized", lambda folder: synthesize(folder, functions_dir))


if __name__ == "__main__":
    build_in(Path(sys.argv[1]))
