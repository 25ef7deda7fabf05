"""Register Document: once per execution, however often Step Functions runs the stage; and no registered job
is left PENDING when what should run it fails to start."""

from __future__ import annotations

from typing import Any

import pytest

from voiceassist.composition import Dependencies
from voiceassist.errors import Conflict, DependencyError, ExtractionError
from voiceassist.ingest import registration
from voiceassist.ingest import stages as ingestion
from voiceassist.models import DocumentMetadata, DocumentStatus, JobState
from voiceassist.ports import DocumentStore

KEY = "incoming/guide.md"
EXECUTION = "arn:aws:states:us-east-1:123456789012:execution:ingest:4f1c"
METADATA = DocumentMetadata(doc_key="stroke-guide", title="Stroke guide")


@pytest.fixture
def deps(local_deps: Dependencies) -> Dependencies:
    local_deps.blobs.put(KEY, b"# Stroke\n\nAlteplase within 4.5 hours.")
    return local_deps


def register(deps: Dependencies, execution_id: str | None = EXECUTION) -> registration.Registration:
    return registration.register(deps.ingestion, blob_key=KEY, metadata=METADATA, filename="guide.md",
                                 execution_id=execution_id)


def test_register_repeated_in_the_same_execution_returns_the_same_job_and_document(deps: Dependencies) -> None:
    first = register(deps)

    again = register(deps)  # Step Functions' retry after the first response was lost

    assert again.job == first.job and again.document == first.document
    assert not again.unchanged and again.job.state is JobState.PENDING
    assert [v.version for v in deps.documents.versions("stroke-guide")] == [1]
    assert [j.job_id for j in deps.jobs.for_document(first.document.doc_id)] == [first.job.job_id]


def test_register_of_the_same_content_by_another_execution_is_unchanged(deps: Dependencies) -> None:
    first = register(deps)

    other = register(deps, execution_id=EXECUTION + "-replayed")

    assert other.unchanged and other.job.job_id != first.job.job_id
    assert other.document.doc_id == first.document.doc_id
    assert deps.jobs.get(first.job.job_id).state is JobState.PENDING


class DocumentPutFailsOnce:
    """A DocumentStore whose first put fails, as if the Lambda died between writing the job and the document."""

    def __init__(self, inner: DocumentStore) -> None:
        self.inner = inner
        self.failed = False

    def put(self, document: Any) -> None:
        if not self.failed:
            self.failed = True
            raise DependencyError("documents table throttled")
        self.inner.put(document)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def test_register_retried_after_an_attempt_stopped_before_its_document_completes_that_registration(
        deps: Dependencies) -> None:
    deps.documents = DocumentPutFailsOnce(deps.documents)  # type: ignore[misc,assignment]
    with pytest.raises(DependencyError):
        register(deps)

    retried = register(deps)

    assert not retried.unchanged and retried.job.state is JobState.PENDING
    assert [j.job_id for j in deps.jobs.list()] == [retried.job.job_id]  # no orphaned job of the first attempt
    assert deps.documents.get(retried.job.doc_id).status is DocumentStatus.PENDING
    assert [v.version for v in deps.documents.versions("stroke-guide")] == [1]


def test_register_refuses_an_execution_that_registered_another_doc_key(deps: Dependencies) -> None:
    register(deps)

    with pytest.raises(Conflict, match="registers one document"):
        registration.register(deps.ingestion, blob_key=KEY, metadata=DocumentMetadata(doc_key="other", title="x"),
                              execution_id=EXECUTION)


def test_fail_registration_fails_the_job_and_new_version_the_execution_left_pending(deps: Dependencies) -> None:
    registered = register(deps)

    outcome = registration.fail_registration(deps.ingestion, EXECUTION,
                                             {"Error": "DependencyError", "Cause": "jobs table throttled"})

    job = deps.jobs.get(registered.job.job_id)
    assert outcome["status"] == "FAILED" and job.state is JobState.FAILED
    assert job.reason == "DependencyError: jobs table throttled"
    assert deps.documents.get(registered.document.doc_id).status is DocumentStatus.FAILED


def test_fail_registration_of_an_execution_that_registered_nothing_changes_nothing(deps: Dependencies) -> None:
    outcome = registration.fail_registration(deps.ingestion, EXECUTION, {"Error": "InvalidInput",
                                                                         "Cause": "guide.md is empty"})

    assert outcome == {"status": "NOT_REGISTERED", "reason": "guide.md is empty"}
    assert deps.jobs.list() == []


def test_fail_registration_leaves_an_unchanged_job_and_its_live_document_alone(deps: Dependencies) -> None:
    register(deps, execution_id="first")
    unchanged = register(deps)

    registration.fail_registration(deps.ingestion, EXECUTION, {"Error": "RuntimeError", "Cause": "boom"})

    assert deps.jobs.get(unchanged.job.job_id).state is JobState.COMPLETED
    assert deps.documents.get(unchanged.document.doc_id).status is DocumentStatus.PENDING


class RefusingRunner:
    def start(self, pipeline: str, payload: dict[str, Any], *, name: str | None = None) -> str:
        raise DependencyError("Could not start the ingest pipeline: ThrottlingException")

    def run(self, pipeline: str, payload: dict[str, Any]) -> dict[str, Any]:
        raise AssertionError("not used")


def test_upload_whose_pipeline_could_not_start_is_failed_and_retryable_not_pending(local_deps: Dependencies) -> None:
    from voiceassist import service

    local_deps.pipelines = RefusingRunner()  # type: ignore[misc]
    with pytest.raises(DependencyError):
        service.accept_upload(local_deps, filename="guide.md", data=b"# Stroke\n\nAlteplase.",
                              metadata=service.metadata_for("guide.md", {}))

    (job,) = local_deps.jobs.list()
    assert job.state is JobState.FAILED and job.reason is not None and "retry the job" in job.reason
    assert job.retry().state is JobState.PENDING  # the API's retry is open to it
    again = service.accept_upload(local_deps, filename="guide.md", data=b"# Stroke\n\nAlteplase.",
                                  metadata=service.metadata_for("guide.md", {}), start_pipeline=False)
    assert not again.unchanged  # a failed version does not make the same upload "unchanged: being indexed"


def test_a_file_overwritten_after_registration_is_not_indexed_under_the_old_version(deps: Dependencies) -> None:
    registered = register(deps)
    deps.blobs.put(KEY, b"# Stroke\n\nTenecteplase within 4.5 hours.")  # a new upload to the same key

    with pytest.raises(ExtractionError, match="changed after it was registered"):
        ingestion.extract_document(deps.ingestion, registered.document.doc_id)


def test_register_of_a_new_version_inherits_only_from_a_screened_active_version(deps: Dependencies) -> None:
    first = register(deps)
    stated = METADATA.model_copy(update={"specialty": "neurology"})
    deps.documents.put(first.document.model_copy(update={"metadata": stated}))  # PENDING, unscreened
    deps.blobs.put(KEY, b"# Stroke\n\nTenecteplase within 4.5 hours.")

    second = registration.register(deps.ingestion, blob_key=KEY, filename="guide.md", execution_id=None,
                                   metadata=DocumentMetadata(doc_key="stroke-guide", title="Stroke guide"))

    assert second.job.metadata_inherited == [] and second.document.metadata.specialty is None
    deps.documents.put(first.document.model_copy(update={"metadata": stated, "status": DocumentStatus.ACTIVE,
                                                         "metadata_screened": True}))
    deps.blobs.put(KEY, b"# Stroke\n\nTenecteplase 0.25 mg/kg within 4.5 hours.")
    third = registration.register(deps.ingestion, blob_key=KEY, filename="guide.md", execution_id=None,
                                  metadata=DocumentMetadata(doc_key="stroke-guide", title="Stroke guide"))
    assert third.job.metadata_inherited == ["specialty"] and third.document.metadata.specialty == "neurology"
    assert deps.jobs.get(third.job.job_id).metadata_inherited == ["specialty"]  # on the stored job too
