"""Lambda layers: the domain package (layers/core) and the third-party dependencies built for arm64.

The dependency layers are built by layers/deps/build.sh (pip with --platform, no Docker) before a deploy.
Synth never runs pip. A missing build directory is an error: a deployed placeholder layer would leave every
function (the search bootstrap custom resource included) failing on import. For review only (tests, CI,
`make synth`), `-c allow_unbuilt_layers=true` stages an empty placeholder and synth carries a warning.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from aws_cdk import Annotations
from aws_cdk import aws_lambda as lambda_
from constructs import Construct

from infra.config import SourcePaths

RUNTIME = lambda_.Runtime.PYTHON_3_12
ARCHITECTURE = lambda_.Architecture.ARM_64
BUILD_SCRIPT = "layers/deps/build.sh"
ALLOW_UNBUILT_LAYERS = "allow_unbuilt_layers"  # context key: review-only synth without built layers
ASSET_EXCLUDES = ["**/__pycache__", "**/*.pyc", "*.egg-info", "**/.pytest_cache", "**/.mypy_cache"]


class LayerNotBuiltError(RuntimeError):
    """A dependency layer's build directory is missing: `make layers` before a deploy."""


class Layers(Construct):
    def __init__(self, scope: Construct, construct_id: str, *, paths: SourcePaths) -> None:
        super().__init__(scope, construct_id)
        self.core = self._layer("Core", paths.core_layer_dir, "voiceassist domain package")
        self.deps = self._built_layer("Deps", paths.deps_layer_dir, "third-party dependencies (arm64, cp312)")
        self.ml = self._built_layer("Ml", paths.ml_layer_dir, "onnxruntime, tokenizers, embedding model")
        self.auth = self._built_layer("Auth", paths.auth_layer_dir, "PyJWT, cryptography (tokens, encrypted PDFs)")
        self.mcp = self._built_layer("Mcp", paths.mcp_layer_dir, "the Model Context Protocol SDK (POST /v1/mcp)")
        self.documents = self._built_layer("Documents", paths.documents_layer_dir, "python-docx, lxml, pdfplumber")
        self.workspace = self._built_layer("Workspace", paths.workspace_layer_dir,
                                           "caldav and lxml (the calendar and file tools)")
        self.voice = self._built_layer("Voice", paths.voice_layer_dir, "text2num (a transcript as typed)")

    def by_name(self, name: str) -> lambda_.LayerVersion:
        """A layer by its catalogue name (constants/functions.py layers_of): deps, ml, auth, ..., core."""
        layer = getattr(self, name)
        assert isinstance(layer, lambda_.LayerVersion), name
        return layer

    def _layer(self, construct_id: str, directory: Path, description: str) -> lambda_.LayerVersion:
        return lambda_.LayerVersion(
            self,
            construct_id,
            code=lambda_.Code.from_asset(str(directory), exclude=ASSET_EXCLUDES),
            compatible_runtimes=[RUNTIME],
            compatible_architectures=[ARCHITECTURE],
            description=description,
        )

    def _built_layer(self, construct_id: str, directory: Path, description: str) -> lambda_.LayerVersion:
        if (directory / "python").is_dir():
            return self._layer(construct_id, directory, description)
        if str(self.node.try_get_context(ALLOW_UNBUILT_LAYERS)).lower() != "true":
            raise LayerNotBuiltError(
                f"the {construct_id} layer is not built ({directory} is missing): run `make layers` "
                f"({BUILD_SCRIPT}) before deploying, or synth with -c {ALLOW_UNBUILT_LAYERS}=true to review only"
            )
        layer = self._layer(construct_id, _placeholder_dir(), f"{description} [NOT BUILT]")
        Annotations.of(layer).add_warning_v2(
            "voiceassist:layer-not-built",
            f"{directory} does not exist: the {construct_id} layer is an empty placeholder. "
            f"Run {BUILD_SCRIPT} before deploying.",
        )
        return layer


def _placeholder_dir() -> Path:
    """A layer directory with only a marker file (same content every run, so the same asset hash)."""
    directory = Path(tempfile.gettempdir()) / "voiceassist-layer-placeholder"
    marker = directory / "python" / "VOICEASSIST_LAYER_NOT_BUILT"
    marker.parent.mkdir(parents=True, exist_ok=True)
    marker.write_text(f"Run {BUILD_SCRIPT} before deploying.\n")
    return directory
