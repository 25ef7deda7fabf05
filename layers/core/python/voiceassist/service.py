"""Application services: what the API routes and the CLI do, in one place, on the dependencies the caller passes."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from voiceassist.errors import (
    DependencyError,
    DependencyTimeout,
    InvalidInput,
    InvalidTransition,
    NotFound,
    Overloaded,
    PayloadTooLarge,
    StoreUnavailable,
)
from voiceassist.ingest import extraction, recovery, registration
from voiceassist.ingest import stages as ingestion
from voiceassist.ingest.document_metadata import metadata_for
from voiceassist.models import DocumentMetadata, QueryRequest, QueryResponse
from voiceassist.observability import logger
from voiceassist.query.state import EventTarget, QueryState, response_of

if TYPE_CHECKING:
    from voiceassist.admin.config import AdminConfig
    from voiceassist.ingest.stages import IngestionContext
    from voiceassist.ports import BlobStore, JobStore, PipelineRunner, SessionStore
    from voiceassist.settings import Settings

__all__ = ["ServiceDependencies", "accept_upload", "answer", "ensure_ingestion_capacity", "execution_liveness",
           "job_liveness", "metadata_for", "reconcile_jobs", "retry_job"]


class ServiceDependencies(Protocol):
    """What the services use, passed in by the caller (the composition root's Dependencies is one): the
    services never import the composition root, so neither depends on the other both ways."""

    @property
    def settings(self) -> Settings: ...
    @property
    def blobs(self) -> BlobStore: ...
    @property
    def jobs(self) -> JobStore: ...
    @property
    def sessions(self) -> SessionStore: ...
    @property
    def pipelines(self) -> PipelineRunner: ...
    @property
    def ingestion(self) -> IngestionContext: ...
    @property
    def admin_config(self) -> AdminConfig: ...


def accept_upload(deps: ServiceDependencies, *, filename: str, data: bytes, metadata: DocumentMetadata,
                  start_pipeline: bool = True) -> registration.Registration:
    """Store an upload, register it, and start its ingestion unless the content is unchanged."""
    if not data:
        raise InvalidInput(f"{filename} is empty: upload a document with content")
    if len(data) > deps.settings.max_upload_bytes:
        raise PayloadTooLarge(
            f"{filename} is {len(data)} bytes; the limit is {deps.settings.max_upload_bytes} bytes"
        )
    content_type = extraction.detect_content_type(filename, data)
    key = registration.upload_key(metadata.doc_key, ingestion.content_hash(data), filename)
    deps.blobs.put(key, data, content_type=content_type)  # no doc_key beside it: it may hold PHI, nothing reads it
    registered = registration.register(deps.ingestion, blob_key=key, metadata=metadata,
                                       content_type=content_type, filename=filename)
    if start_pipeline and not registered.unchanged:
        _start_ingestion(deps, registered.job.job_id, registered.document.doc_id, name=registered.job.job_id)
    return registered


def ensure_ingestion_capacity(deps: ServiceDependencies) -> None:
    """Backpressure: the API accepts no new ingestion work while the backlog (PENDING and RUNNING jobs) is full;
    the caller gets a 429 with the seconds to wait. Bulk ingestion paces itself and does not come through here."""
    limit = deps.settings.max_ingestion_backlog
    backlog = 0
    for state in recovery.IN_FLIGHT:
        backlog += len(deps.jobs.list(state=state, limit=limit + 1))
        if backlog >= limit:
            raise Overloaded(f"the ingestion backlog is full ({limit} documents waiting or being indexed); "
                             "upload again after the Retry-After seconds", retry_after=BACKLOG_RETRY_AFTER_S)


BACKLOG_RETRY_AFTER_S = 30


def retry_job(deps: ServiceDependencies, job_id: str) -> Any:
    """Retry a FAILED job, or a stuck one (PENDING or RUNNING with its worker gone: recovery.is_stuck)."""
    job = deps.jobs.get(job_id)
    if job.state in recovery.IN_FLIGHT and not job.unchanged:
        lease = deps.settings.job_lease_seconds
        if not recovery.is_stuck(job, lease_seconds=lease, liveness=job_liveness(deps)):
            raise InvalidTransition(f"job {job_id} is {job.state.value} and its worker is alive; it can be retried "
                                    f"once it has been silent for {lease:.0f} s, or after it fails")
        ingestion.fail_job(deps.ingestion, job.job_id, job.doc_id,
                           {"Error": "Interrupted", "Cause": recovery.interrupted(job)})
    job = ingestion.retry_job(deps.ingestion, job_id)
    _start_ingestion(deps, job.job_id, job.doc_id, name=job.execution_name)
    return job


def job_liveness(deps: ServiceDependencies) -> recovery.Liveness | None:
    """What this process's pipeline runner knows about a job's execution (the local runner knows its own;
    on AWS there is nothing in-process to ask, and the lease decides)."""
    return getattr(deps.pipelines, "job_liveness", None)


def reconcile_jobs(deps: ServiceDependencies, *, limit: int = 1000, liveness: recovery.Liveness | None = None,
                   any_worker: bool = False) -> list[recovery.Recovery]:
    """Fail every stuck PENDING or RUNNING job with a reason and re-drive it while it has attempts left.
    `liveness` (with `any_worker`) replaces the runner's own: the AWS reconciler's execution_liveness."""
    in_flight = [job for state in recovery.IN_FLIGHT for job in deps.jobs.list(state=state, limit=limit)]

    def fail(job: Any, reason: str) -> None:
        ingestion.fail_job(deps.ingestion, job.job_id, job.doc_id, {"Error": "Interrupted", "Cause": reason})

    def redrive(job: Any, counted: bool) -> None:
        retried = ingestion.retry_job(deps.ingestion, job.job_id, counted=counted)
        _start_ingestion(deps, retried.job_id, retried.doc_id, name=retried.execution_name)

    return recovery.reconcile(in_flight, lease_seconds=deps.settings.job_lease_seconds,
                              liveness=liveness or job_liveness(deps), fail=fail, redrive=redrive,
                              registered=lambda job: _has_document(deps, job.doc_id), any_worker=any_worker)


def _has_document(deps: ServiceDependencies, doc_id: str) -> bool:
    try:
        deps.ingestion.documents.get(doc_id)
    except NotFound:
        return False
    return True


def execution_liveness(deps: ServiceDependencies) -> recovery.Liveness:
    """A job's execution as the runner describes it (DescribeExecution on AWS): RUNNING is alive; ended, or
    gone (expired from the history, never started) is dead; a job without an execution id is left to the lease."""
    from voiceassist.errors import NotFound

    runner: Any = deps.pipelines  # StepFunctionsPipelineRunner.describe

    def alive(job: Any) -> bool | None:
        if not job.execution_id:
            return None
        try:
            return not runner.describe(job.execution_id).finished
        except NotFound:
            return False

    return alive


def _start_ingestion(deps: ServiceDependencies, job_id: str, doc_id: str, *, name: str) -> None:
    """Start the pipeline for a PENDING job. If the start fails, the job is marked FAILED (and can be retried):
    left PENDING, no execution would ever move it, and an upload of the same content would be answered
    `unchanged: being indexed` for ever."""
    _record_execution(deps, job_id, name)
    try:
        deps.pipelines.start("ingest", {"job_id": job_id, "doc_id": doc_id}, name=name)
    except Exception as exc:
        cause = f"the ingestion pipeline could not be started ({exc}); retry the job"
        try:
            ingestion.fail_job(deps.ingestion, job_id, doc_id, {"Error": type(exc).__name__, "Cause": cause})
        except Exception:  # the start's error is the one to report; this one only leaves the job PENDING
            logger.exception("could not mark the job of an unstarted pipeline FAILED", extra={"job_id": job_id})
        raise


def _record_execution(deps: ServiceDependencies, job_id: str, name: str) -> None:
    """The job carries its execution's id before the execution starts (so no step races this write), where
    the runner can tell it in advance (Step Functions: the ARN follows from the state machine and the name)."""
    execution_id_for = getattr(deps.pipelines, "execution_id_for", None)
    if execution_id_for is None:
        return
    job = deps.jobs.get(job_id)
    deps.jobs.save(job.model_copy(update={"execution_id": execution_id_for("ingest", name)}),
                   expected_state=job.state)


PHI_DETECTION_TIMEOUT = "PhiDetectionTimeout"  # query.asl.json's "PHI Detection Timed Out" Fail state


def answer(deps: ServiceDependencies, request: QueryRequest, *, user_id: str, trace_id: str | None = None,
           stream: EventTarget | None = None, history: list[str] | None = None,
           earlier: list[str] | None = None, earlier_unchecked: bool = False,
           memory: str | None = None) -> QueryResponse:
    """Run the query pipeline (Step Functions Express on AWS, the same ASL in-process locally); with `stream`,
    its steps publish their events there as they finish (conversation.orchestrator). `history`: the chat's
    window of earlier turns; `earlier`: its older turns, for the PHI check only (`earlier_unchecked`: too long to
    check, so the run stays inside the boundary). `memory`: the conversation's facts and summary, for the
    answering model's prompt."""
    if request.session_id:
        session = deps.sessions.get(request.session_id)
        if session.user_id != user_id:
            from voiceassist.errors import NotFound, quoted_id

            raise NotFound(f"session {quoted_id(request.session_id)} not found")
    state = QueryState(user_id=user_id, request=request, trace_id=trace_id, stream=stream,
                       history=history or [], earlier_history=earlier or [], earlier_unchecked=earlier_unchecked,
                       memory=memory or None, config=deps.admin_config)
    try:
        output = deps.pipelines.run("query", state.model_dump(mode="json"))
    except DependencyError as exc:  # the execution failed: a step's error is named in exc.error
        error = getattr(exc, "error", None)
        if error == StoreUnavailable.__name__:  # the audit log (no answer goes unaudited)
            raise StoreUnavailable("a store the query needs is unavailable, so the question was not answered; "
                                   "try again") from exc
        if error == PHI_DETECTION_TIMEOUT:  # the Fail state of query.asl.json: fail closed, say so
            raise DependencyTimeout("PHI detection did not answer in time, so the question was not processed and "
                                    "nothing left the boundary; try again") from exc
        raise
    return response_of(QueryState.model_validate(output))
