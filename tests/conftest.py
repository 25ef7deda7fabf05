"""Fixtures shared by every test folder: a fresh embedded stack per test, heavy models loaded once."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import voiceassist_local  # noqa: F401 - registers the in-process pipeline runner

from tests.support.first_collection import pytest_collection  # noqa: F401 - the hook
from tests.support.xdist_order import pytest_collection_modifyitems, pytest_configure  # noqa: F401 - the hooks
from voiceassist.composition import Dependencies, use_dependencies
from voiceassist.settings import Settings

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED_EVAL = REPO_ROOT.parent / "shared" / "eval"


@pytest.fixture(autouse=True)
def restore_log_level() -> Iterator[None]:
    """The CLI quiets our logger for its run (cli.main); a test that runs it must not quiet the next test."""
    from voiceassist.observability import logger

    level = logger.log_level
    yield
    logger.setLevel(level)


@pytest.fixture(scope="session", autouse=True)
def whisper_decodes_a_recording_once() -> Iterator[None]:
    """Whisper's decoding of the same recording with the same options, once per test process
    (tests/support/whisper_memo.py): several voice tests transcribe the same spoken question."""
    from tests.support.whisper_memo import remembering
    from voiceassist.adapters.local import whisper_stt

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(whisper_stt, "shared_model", remembering(whisper_stt.shared_model))
        yield


@pytest.fixture(scope="session", autouse=True)
def retries_without_waiting() -> Iterator[None]:
    """Every in-process pipeline runner retries a failed step at once instead of waiting out its ASL Retry
    interval (5 s then 10 s for a DependencyError): retry_interval_scale=0 by default, as the query and
    state-machine tests' runners pass it. The retries themselves (how many, on which errors) still run; a test
    that needs the waits passes retry_interval_scale itself. Servers started as subprocesses keep the real waits."""
    from voiceassist_local.asl_runner import LocalPipelineRunner

    with pytest.MonkeyPatch.context() as patch:
        patch.setitem(LocalPipelineRunner.__init__.__kwdefaults__, "retry_interval_scale", 0.0)
        yield


@pytest.fixture(scope="session")
def shared_embedder():  # type: ignore[no-untyped-def]
    from voiceassist.adapters.onnx.embedder import OnnxEmbedder

    return OnnxEmbedder()


# The tests' shared detector waits longer than production's 2 s: on a loaded CI machine a detection of a long
# egress payload can pass 2 s, fail closed (correctly) and turn a test about something else into a flake. The
# time-out itself is tested with its own detectors (tests/unit/test_phi.py, test_phi_matrix_faults.py).
SHARED_DETECTOR_TIMEOUT_S = 15.0


@pytest.fixture(scope="session")
def shared_phi_detector():  # type: ignore[no-untyped-def]
    from voiceassist.composition.phi_detectors import build_detector

    return build_detector(Settings(), timeout_s=SHARED_DETECTOR_TIMEOUT_S)


@pytest.fixture(scope="session")
def kb_seed_dir(tmp_path_factory: pytest.TempPathFactory, shared_embedder, shared_phi_detector) -> Path:  # type: ignore[no-untyped-def]
    """The bundled sample corpus ingested once per run into a data folder shared by the xdist workers
    (tests/support/shared_build.py); a test or module copies it instead of ingesting the corpus again."""
    from tests.stubs.query_stack import seed_corpus
    from tests.support.shared_build import built_once

    def seed(folder: Path) -> None:
        seed_corpus(folder / "data", embedder=shared_embedder, detector=shared_phi_detector)

    return built_once(tmp_path_factory, "kb-seed", seed) / "data"


@pytest.fixture
def local_deps(tmp_path: Path, shared_embedder, shared_phi_detector) -> Iterator[Dependencies]:  # type: ignore[no-untyped-def]
    """Dependencies on the embedded stack in a temporary data folder, installed process-wide."""
    deps = Dependencies(Settings(data_dir=tmp_path / "data"))
    deps.settings.data_dir.mkdir(parents=True)
    deps.embedder = shared_embedder  # type: ignore[misc]
    deps.phi_detector = shared_phi_detector  # type: ignore[misc]
    use_dependencies(deps)
    yield deps
    use_dependencies(None)
    runner = deps.__dict__.get("pipelines")
    if runner is not None and hasattr(runner, "close"):
        runner.close()
