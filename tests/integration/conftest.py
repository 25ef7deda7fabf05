"""Fixtures for tests against the sample corpus: a copy of its seeded data folder (kb_seed_dir, tests/conftest.py:
once per run, shared by the xdist workers), the real query pipeline, Dependencies
without a language model (the extractive default), and the local server on it."""

from __future__ import annotations

import shutil
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from voiceassist_local.asl_runner import LocalPipelineRunner
from voiceassist_local.server import make_server

from tests.stubs.query_stack import close, query_runner
from tests.support.shared_build import built_once
from tests.support.voiceassist_server import serving
from voiceassist import service
from voiceassist.composition import Dependencies, use_dependencies
from voiceassist.settings import Settings


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
    with serving() as origin:
        yield origin


CONVERSATION_DOCUMENTS = Path(__file__).resolve().parents[1] / "fixtures" / "conversation"


@pytest.fixture(scope="session")
def conversation_seed_dir(tmp_path_factory: pytest.TempPathFactory, shared_embedder: Any,
                          shared_phi_detector: Any) -> Path:
    """tests/fixtures/conversation ingested once (doc_key: the file's stem)."""
    return built_once(tmp_path_factory, "conversation",
                      lambda folder: _ingest_conversation(folder / "data", shared_embedder, shared_phi_detector)
                      ) / "data"


def _ingest_conversation(data_dir: Path, embedder: Any, detector: Any) -> None:
    data_dir.mkdir(parents=True)
    deps = Dependencies(Settings(data_dir=data_dir))
    deps.embedder, deps.phi_detector = embedder, detector  # type: ignore[misc]
    use_dependencies(deps)
    try:
        for path in sorted(CONVERSATION_DOCUMENTS.glob("*.md")):
            if path.name != "README.md":
                service.accept_upload(deps, filename=path.name, data=path.read_bytes(),
                                      metadata=service.metadata_for(path.name, {"doc_key": path.stem}))
        deps.pipelines.join(timeout=300)  # type: ignore[attr-defined]
        assert len(deps.documents.list(limit=100)) == 8
    finally:
        use_dependencies(None)
        deps.pipelines.close()  # type: ignore[attr-defined]
        close(deps)


@pytest.fixture
def conversation_server_url(conversation_seed_dir: Path, kb_runner: LocalPipelineRunner, tmp_path: Path,
                            shared_embedder: Any, shared_phi_detector: Any) -> Iterator[str]:
    """The local server on a copy of the conversation documents, without a language model."""
    shutil.copytree(conversation_seed_dir, tmp_path / "data")
    deps = Dependencies(Settings(data_dir=tmp_path / "data"))
    deps.embedder, deps.phi_detector, deps.pipelines = shared_embedder, shared_phi_detector, kb_runner  # type: ignore[misc]
    use_dependencies(deps)
    server = make_server("127.0.0.1", 0)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()
    use_dependencies(None)
    close(deps)
