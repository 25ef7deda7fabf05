"""Re-ingestion, versions, faults and retries, deletion: what a reader of the knowledge base sees each time."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pytest
from voiceassist_local.asl_runner import LocalPipelineRunner

from voiceassist import service
from voiceassist.composition import Dependencies
from voiceassist.errors import InvalidTransition
from voiceassist.ingest import stages as ingestion
from voiceassist.models import MAX_JOB_ATTEMPTS, DocumentStatus, JobState
from voiceassist.ports import Embedder, Vectors

Search = Callable[[str], list[tuple[str, int]]]
FIRST_EDITION = (b"Metformin is the first-line drug for type 2 diabetes. Start with 500 mg once daily with meals. "
                 b"Older advice recommended chlorpropamide for elderly patients.")
SECOND_EDITION = (b"Metformin is the first-line drug for type 2 diabetes. Start with 500 mg once daily with meals. "
                  b"Add an SGLT2 inhibitor such as empagliflozin when heart failure is present.")


class BrokenEmbedder:
    """An Embedder whose model crashes: the fault injected into the Embed stage."""

    def __init__(self, real: Embedder) -> None:
        self.model_id, self.dimension, self.max_tokens, self.in_boundary = (
            real.model_id, real.dimension, real.max_tokens, real.in_boundary)
        self.count_tokens = real.count_tokens

    def embed(self, texts: Sequence[str]) -> Vectors:
        raise RuntimeError("the embedding model crashed")


def _use_embedder(deps: Dependencies, embedder: Embedder) -> None:
    deps.embedder = embedder  # type: ignore[misc]


def _retry(deps: Dependencies, job_id: str) -> Any:
    service.retry_job(deps, job_id)
    runner: LocalPipelineRunner = deps.pipelines
    runner.join(timeout=120)
    return deps.jobs.get(job_id)


def test_ingest_unchanged_document_creates_no_work_and_no_chunks(
        ingest_deps: Dependencies, ingest: Callable[..., Any]) -> None:
    first = ingest("metformin.txt", FIRST_EDITION)
    chunks = ingest_deps.index.count("metformin", searchable_only=False)

    again = ingest("metformin.txt", FIRST_EDITION)

    assert again.unchanged and again.state is JobState.COMPLETED and again.doc_id == first.doc_id
    assert again.reason == "unchanged: this content is already indexed as version 1"
    assert ingest_deps.index.count("metformin", searchable_only=False) == chunks
    assert len(ingest_deps.pipelines.list_executions("ingest")) == 1


def test_ingest_changed_document_becomes_version_2_and_only_its_chunks_are_found(
        ingest_deps: Dependencies, ingest: Callable[..., Any], keyword_search: Search) -> None:
    first = ingest("metformin.txt", FIRST_EDITION)

    second = ingest("metformin.txt", SECOND_EDITION)

    assert (second.state, second.version) == (JobState.COMPLETED, 2)
    assert ingest_deps.jobs.get(first.job_id).state is JobState.SUPERSEDED
    assert ingest_deps.documents.get(first.doc_id).status is DocumentStatus.SUPERSEDED
    assert ingest_deps.documents.get(second.doc_id).status is DocumentStatus.ACTIVE
    assert keyword_search("chlorpropamide") == []
    assert set(keyword_search("metformin diabetes empagliflozin")) == {("metformin", 2)}
    # version 1's chunks are kept for audit, flagged superseded, and never found (above)
    assert ingest_deps.index.count("metformin", searchable_only=False) == second.chunks_total + first.chunks_total
    assert ingest_deps.index.superseded_count("metformin") == first.chunks_total  # type: ignore[attr-defined]


def test_ingest_older_version_finishing_after_a_newer_one_is_superseded_at_once(
        ingest_deps: Dependencies, keyword_search: Search) -> None:
    uploads = [service.accept_upload(ingest_deps, filename="metformin.txt", data=data, start_pipeline=False,
                                     metadata=service.metadata_for("metformin.txt", {}))
               for data in (FIRST_EDITION, SECOND_EDITION)]
    runner: LocalPipelineRunner = ingest_deps.pipelines

    for registration in reversed(uploads):  # version 2 finishes first
        runner.wait(runner.start("ingest", registration.pipeline_input()), timeout=120)

    older, newer = (ingest_deps.jobs.get(r.job.job_id) for r in uploads)
    assert (older.state, older.reason) == (JobState.SUPERSEDED, "superseded by version 2")
    assert newer.state is JobState.COMPLETED
    assert set(keyword_search("metformin")) == {("metformin", 2)}


def test_ingest_fault_in_embed_fails_the_job_and_retry_completes_it_without_duplicates(
        ingest_deps: Dependencies, ingest: Callable[..., Any], keyword_search: Search) -> None:
    real = ingest_deps.ingestion.embedder
    _use_embedder(ingest_deps, BrokenEmbedder(real))

    failed = ingest("metformin.txt", FIRST_EDITION)

    assert (failed.state, failed.reason) == (JobState.FAILED, "RuntimeError: the embedding model crashed")
    assert ingest_deps.index.count("metformin", searchable_only=False) == 0
    assert ingest_deps.documents.get(failed.doc_id).status is DocumentStatus.FAILED

    _use_embedder(ingest_deps, real)
    retried = _retry(ingest_deps, failed.job_id)

    assert (retried.state, retried.attempts, retried.reason) == (JobState.COMPLETED, 2, None)
    assert ingest_deps.index.count("metformin", searchable_only=False) == retried.chunks_total > 0
    assert set(keyword_search("chlorpropamide")) == {("metformin", 1)}
    assert ingest_deps.documents.get(failed.doc_id).status is DocumentStatus.ACTIVE


def test_ingest_fault_after_indexing_leaves_nothing_searchable_and_retry_indexes_once(
        ingest_deps: Dependencies, ingest: Callable[..., Any], monkeypatch: pytest.MonkeyPatch) -> None:
    finalize = ingestion.finalize_document

    def crash(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("finalize lost its connection")

    monkeypatch.setattr(ingestion, "finalize_document", crash)
    failed = ingest("metformin.txt", FIRST_EDITION)
    assert failed.state is JobState.FAILED
    assert ingest_deps.index.count("metformin", searchable_only=False) == 0

    monkeypatch.setattr(ingestion, "finalize_document", finalize)
    retried = _retry(ingest_deps, failed.job_id)

    assert retried.state is JobState.COMPLETED
    assert ingest_deps.index.count("metformin", searchable_only=False) == retried.chunks_total


def test_ingest_retry_is_refused_after_three_attempts(ingest_deps: Dependencies, ingest: Callable[..., Any]) -> None:
    _use_embedder(ingest_deps, BrokenEmbedder(ingest_deps.ingestion.embedder))
    job = ingest("metformin.txt", FIRST_EDITION)
    for _ in range(MAX_JOB_ATTEMPTS - 1):
        job = _retry(ingest_deps, job.job_id)
        assert job.state is JobState.FAILED

    with pytest.raises(InvalidTransition, match="already ran 3 times"):
        service.retry_job(ingest_deps, job.job_id)
    assert ingest_deps.jobs.get(job.job_id).state is JobState.FAILED


def test_ingest_deleted_document_disappears_from_search(
        ingest_deps: Dependencies, ingest: Callable[..., Any], keyword_search: Search) -> None:
    job = ingest("metformin.txt", FIRST_EDITION)

    deleted = ingestion.delete_document(ingest_deps.ingestion, job.doc_id)

    assert deleted.status is DocumentStatus.DELETED
    assert keyword_search("metformin chlorpropamide") == []
    assert ingest_deps.index.count("metformin", searchable_only=False) == 0
