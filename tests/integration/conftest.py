"""Fixtures for tests against the sample corpus: its seeded data folder (once per run), the real query
pipeline, Dependencies without a language model (the extractive default), and the local server on it."""

from __future__ import annotations

import shutil
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from voiceassist_local.asl_runner import LocalPipelineRunner
from voiceassist_local.server import make_server

from tests.stubs.query_stack import close, query_runner, seed_corpus
from voiceassist.composition import Dependencies, use_dependencies
from voiceassist.settings import Settings


@pytest.fixture(scope="session")
def kb_seed_dir(tmp_path_factory: pytest.TempPathFactory, shared_embedder: Any, shared_phi_detector: Any) -> Path:
    return seed_corpus(tmp_path_factory.mktemp("seed") / "data", embedder=shared_embedder,
                       detector=shared_phi_detector)


@pytest.fixture(scope="session")
def kb_runner() -> Iterator[LocalPipelineRunner]:
    with query_runner() as pipeline_runner:
        yield pipeline_runner


@pytest.fixture
def kb_deps(kb_seed_dir: Path, kb_runner: LocalPipelineRunner, tmp_path: Path, shared_embedder: Any,
            shared_phi_detector: Any) -> Iterator[Dependencies]:
    """The sample corpus, no language model (the extractive default), installed process-wide."""
    shutil.copytree(kb_seed_dir, tmp_path / "data")
    deps = Dependencies(Settings(data_dir=tmp_path / "data"))
    deps.embedder, deps.phi_detector, deps.pipelines = shared_embedder, shared_phi_detector, kb_runner  # type: ignore[misc]
    use_dependencies(deps)
    yield deps
    use_dependencies(None)
    close(deps)


@pytest.fixture
def kb_server_url(kb_deps: Dependencies) -> Iterator[str]:
    server = make_server("127.0.0.1", 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()
