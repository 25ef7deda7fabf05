"""Register Document: a stored upload becomes a document version and its IndexingJob, once per execution.

Same doc_key and same content as a live or in-flight version -> an `unchanged` job, already COMPLETED, and
no work. Changed content -> version n+1 (the old version stays searchable until the new one is indexed).

Step Functions retries Register, in the same execution, when Lambda's response is lost. The workflow passes
its execution id, and the job id is derived from it: the retry finds the job the lost attempt created and
returns that job and document. Registering the upload again would instead find the lost attempt's PENDING
version, answer `unchanged`, and leave that version and its job PENDING for ever.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from voiceassist.errors import Conflict, InvalidInput, NotFound
from voiceassist.ingest import extraction
from voiceassist.ingest.document_metadata import inherited_metadata
from voiceassist.ingest.recovery import IN_FLIGHT, WORKER, interrupted, is_stuck, stamp
from voiceassist.ingest.settling import discard_upload, name_free
from voiceassist.ingest.stages import UPLOAD_PREFIX, IngestionContext, content_hash, fail_job, failure_reason
from voiceassist.models import (
    DocumentMetadata,
    DocumentStatus,
    IndexingJob,
    JobState,
    KnowledgeDocument,
    new_id,
    utc_now,
)
from voiceassist.observability import logger


@dataclass(frozen=True)
class Registration:
    document: KnowledgeDocument
    job: IndexingJob

    @property
    def unchanged(self) -> bool:
        return self.job.unchanged

    def pipeline_input(self) -> dict[str, Any]:
        return {"job_id": self.job.job_id, "doc_id": self.document.doc_id}


def document_id(doc_key: str, version: int) -> str:
    return f"doc_{hashlib.sha1(doc_key.encode('utf-8')).hexdigest()[:16]}_v{version}"


def upload_key(doc_key: str, digest: str, filename: str) -> str:
    """Where an API upload is stored: named by hashes and the file's extension only, since the file name may
    hold PHI (it is screened after registration, and a blob key is neither screened nor redacted)."""
    key_hash = hashlib.sha1(doc_key.encode("utf-8")).hexdigest()[:16]
    return f"{UPLOAD_PREFIX}{key_hash}/{digest[:16]}/{name_free(filename)}"




def registration_job_id(execution_id: str) -> str:
    """The id of the job a workflow execution registers: the same on every attempt of that execution."""
    return "job_" + hashlib.sha256(execution_id.encode("utf-8")).hexdigest()[:32]


def register(ctx: IngestionContext, *, blob_key: str, metadata: DocumentMetadata, content_type: str | None = None,
             filename: str | None = None, execution_id: str | None = None) -> Registration:
    """Record a stored upload as a document version and create its IndexingJob.

    With an `execution_id`, a repeated call (the same execution's retry) returns what the first one
    registered. The job is written before its document, so an attempt that stopped in between leaves a job
    the retry finds and completes, never an orphaned PENDING version.
    """
    job_id = registration_job_id(execution_id) if execution_id else new_id("job")
    job = _registered_job(ctx, job_id, metadata.doc_key) if execution_id else None
    if job is not None:
        try:
            document = ctx.documents.get(job.doc_id)
        except NotFound:  # the earlier attempt stopped between writing the job and its document: write the
            # document, and take the job over (its worker is dead: the reconciler would take it for stuck)
            if job.state is JobState.PENDING:
                taken_over = stamp(job)
                ctx.jobs.save(taken_over, expected_state=JobState.PENDING)
                job = taken_over
        else:
            logger.info("ingest registration repeated", extra={"doc_id": document.doc_id, "job_id": job_id})
            return Registration(document, job)
    data = ctx.blobs.get(blob_key)
    if not data:  # the reason names no file: file names are screened for PHI only after registration
        raise InvalidInput("the uploaded file is empty: upload a document with content")
    digest = content_hash(data)
    versions = _versions(ctx, metadata.doc_key)
    metadata, inherited = inherited_metadata(metadata, _active_metadata(versions))
    if job is None:
        unchanged = _unchanged(ctx, job_id, versions, digest)
        if unchanged is not None:
            if unchanged.document.blob_key != blob_key:  # the live version has its own copy: the upload goes
                discard_upload(ctx, blob_key)
            return unchanged
        version = max((d.version for d in versions), default=0) + 1
        job = _create_job(ctx, IndexingJob(job_id=job_id, doc_id=document_id(metadata.doc_key, version),
                                           doc_key=metadata.doc_key, version=version, worker=WORKER,
                                           execution_id=execution_id, metadata_screened=False,
                                           metadata_inherited=list(inherited)))
    document = KnowledgeDocument(
        doc_id=job.doc_id, doc_key=metadata.doc_key, version=job.version, content_hash=digest,
        content_type=content_type or extraction.detect_content_type(name_free(filename or blob_key), data),
        blob_key=blob_key, metadata=metadata, size_bytes=len(data), metadata_screened=False,
    )
    ctx.documents.put(document)
    logger.info("ingest registered", extra={"doc_id": document.doc_id, "job_id": job_id,
                                            "version": document.version, "metadata_inherited": list(inherited)})
    return Registration(document, job)


def fail_registration(ctx: IngestionContext, execution_id: str, error: dict[str, Any] | None) -> dict[str, Any]:
    """The workflow's Catch for a failed Register: the job this execution registered, if it got that far, is
    FAILED with the reason (so it can be retried) instead of PENDING for ever, and so is its new version."""
    job_id = registration_job_id(execution_id)
    reason = failure_reason(error)
    try:
        job = ctx.jobs.get(job_id)
    except NotFound:
        logger.warning("ingest registration failed", extra={"execution_id": execution_id, "reason": reason})
        return {"status": "NOT_REGISTERED", "reason": reason}
    if not job.can_transition(JobState.FAILED):  # an `unchanged` job, or one that ran on: leave it
        return {"status": job.state.value, "reason": job.reason}
    try:
        document = ctx.documents.get(job.doc_id)
    except NotFound:
        document = None
    if document is not None and document.status is DocumentStatus.PENDING:
        ctx.documents.put(document.model_copy(update={"status": DocumentStatus.FAILED, "updated_at": utc_now()}))
    ctx.jobs.save(job.transition(JobState.FAILED, reason=reason), expected_state=job.state)
    logger.warning("ingest registration failed", extra={"job_id": job_id, "reason": reason})
    return {"status": "FAILED", "reason": reason}


def _unchanged(ctx: IngestionContext, job_id: str, versions: list[KnowledgeDocument], digest: str
               ) -> Registration | None:
    """An `unchanged` job if this content is already live, or being indexed by a job that is still alive, as
    one of the doc_key's versions. A PENDING version whose job is stuck (its worker died) is failed here, and
    the upload becomes a new version: answering `unchanged` would leave that content unindexed for ever."""
    for existing in reversed(versions):
        if existing.content_hash != digest:
            continue
        if existing.status is DocumentStatus.PENDING and not _being_indexed(ctx, existing):
            continue
        if existing.status in (DocumentStatus.ACTIVE, DocumentStatus.PENDING):
            where = "indexed" if existing.status is DocumentStatus.ACTIVE else "being indexed"
            job = _create_job(ctx, IndexingJob(
                job_id=job_id, doc_id=existing.doc_id, doc_key=existing.doc_key, version=existing.version,
                state=JobState.COMPLETED, unchanged=True,
                reason=f"unchanged: this content is already {where} as version {existing.version}",
                chunks_total=existing.chunk_count, chunks_done=existing.chunk_count, finished_at=utc_now(),
            ))
            logger.info("ingest unchanged", extra={"doc_id": existing.doc_id, "job_id": job.job_id})
            # a twin attempt's job may name another version: only then read its document
            document = existing if job.doc_id == existing.doc_id else ctx.documents.get(job.doc_id)
            return Registration(document, job)
    return None


def _active_metadata(versions: list[KnowledgeDocument]) -> DocumentMetadata | None:
    """The metadata a new version inherits what its upload does not state from: the newest ACTIVE version's,
    once screened for PHI (an unscreened one is never copied)."""
    active = [d for d in versions if d.status is DocumentStatus.ACTIVE and d.metadata_screened is not False]
    return active[-1].metadata if active else None


def _versions(ctx: IngestionContext, doc_key: str) -> list[KnowledgeDocument]:
    """The doc_key's versions. Screen Metadata stores a doc_key that held PHI under a pseudonym (ingest/screening.py),
    but a version whose screen failed keeps the raw key: each version's doc_id (derived from the raw key) finds it
    under either key, so a live re-keyed version is found beside a failed raw one (else every re-upload of it was
    ingested again, as the same version)."""
    found = {d.doc_id: d for d in ctx.documents.versions(doc_key)}
    version = 1
    while True:
        doc_id = document_id(doc_key, version)
        if doc_id not in found:
            try:
                document = ctx.documents.get(doc_id)
            except NotFound:
                break
            found.update((d.doc_id, d) for d in ctx.documents.versions(document.doc_key))
            found.setdefault(doc_id, document)
        version += 1
    return sorted(found.values(), key=lambda d: d.version)


def _being_indexed(ctx: IngestionContext, document: KnowledgeDocument) -> bool:
    alive = False
    for job in ctx.jobs.for_document(document.doc_id):
        if job.state not in IN_FLIGHT or job.unchanged:
            continue
        if not is_stuck(job, lease_seconds=ctx.job_lease_seconds):
            alive = True
            continue
        fail_job(ctx, job.job_id, job.doc_id, {"Error": "Interrupted", "Cause": f"{interrupted(job)}; "
                                                "the same content was uploaded again as a new version"})
    return alive


def _registered_job(ctx: IngestionContext, job_id: str, doc_key: str) -> IndexingJob | None:
    try:
        job = ctx.jobs.get(job_id)
    except NotFound:
        return None
    if job.doc_key != doc_key:
        raise Conflict(f"job {job_id} registered another doc_key: an execution registers one document")
    return job


def _create_job(ctx: IngestionContext, job: IndexingJob) -> IndexingJob:
    """Create the job; if a twin attempt of the same execution created it first, continue with that one."""
    try:
        ctx.jobs.create(job)
    except Conflict:
        return ctx.jobs.get(job.job_id)
    return job
