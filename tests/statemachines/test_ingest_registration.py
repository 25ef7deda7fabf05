"""Uploads dropped in S3 reach ingest.asl.json once, and Register Document survives retries and failures.

Run end to end with the real handlers in-process; the `ingest_deps` fixture checks every job state change.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from voiceassist_local.asl_runner import LocalPipelineRunner
from voiceassist_local.handlers import function_names, load_handler, placeholder_for
from voiceassist_local.pipelines import PIPELINES

from tests.support.pdfgen import build_pdf
from voiceassist import service
from voiceassist.composition import Dependencies
from voiceassist.ingest import stages as ingestion
from voiceassist.ingest import triggers
from voiceassist.models import DocumentStatus, JobState

KEY = f"{ingestion.INCOMING_PREFIX}guides/anticoagulation.pdf"
GUIDE = build_pdf([("Anticoagulation", ["Warfarin dosing starts at 5 mg daily; check the INR after three doses."])])
# Lambda's own fault for an invocation whose result never reached Step Functions: the stage's Retry covers it.
LambdaServiceException = type("Lambda.ServiceException", (Exception,), {})
Handler = Callable[[dict[str, Any], Any], Any]


def start_uploaded(deps: Dependencies) -> str:
    """What the S3 trigger does for the upload: register it, start the workflow with the job's ids."""
    reply = triggers.start_ingestion(deps, uploaded=triggers.ObjectVersion("voiceassist-documents", KEY, "etag-1"))
    return str(reply["execution"])


def object_created(etag: str = "5d41402abc4b2a76b9719d911017c592") -> dict[str, Any]:
    return triggers.object_created_event("voiceassist-documents", KEY, etag)


def use_register_handler(deps: Dependencies, wrap: Callable[[Handler], Handler]) -> LocalPipelineRunner:
    """Replace the fixture's runner by one whose Register Document Lambda is wrapped."""
    tasks = {placeholder_for(name): load_handler(name) for name in function_names() if name.startswith("ingest_")}
    register = placeholder_for("ingest_register")
    tasks[register] = wrap(tasks[register])
    deps.pipelines.close()  # type: ignore[attr-defined]
    runner = LocalPipelineRunner({"ingest": PIPELINES["ingest"]}, tasks, retry_interval_scale=0)
    deps.pipelines = runner  # type: ignore[misc]
    return runner


@pytest.fixture
def uploaded(ingest_deps: Dependencies) -> Dependencies:
    ingest_deps.blobs.put(KEY, GUIDE, content_type="application/pdf")
    return ingest_deps


def test_register_whose_response_was_lost_is_retried_into_the_same_job(uploaded: Dependencies) -> None:
    def lose_first_response(handler: Handler) -> Handler:
        calls: list[dict[str, Any]] = []

        def invoke(event: dict[str, Any], context: Any) -> Any:
            result = handler(event, context)
            calls.append(event)
            if len(calls) == 1:
                raise LambdaServiceException("the invocation succeeded but its response was lost")
            return result

        return invoke

    runner = use_register_handler(uploaded, lose_first_response)

    execution = runner.wait(start_uploaded(uploaded), timeout=120)

    (version,) = uploaded.documents.versions("anticoagulation")
    job = uploaded.jobs.get(execution.output["job_id"])
    assert execution.status == "SUCCEEDED" and execution.output.get("unchanged") is False
    assert (job.state, job.unchanged, job.doc_id) == (JobState.COMPLETED, False, version.doc_id)
    assert version.status is DocumentStatus.ACTIVE
    assert [j.job_id for j in uploaded.jobs.list()] == [job.job_id]  # no second, "unchanged" job


def test_register_failure_after_the_job_was_written_leaves_it_failed_and_retryable(
        uploaded: Dependencies, monkeypatch: pytest.MonkeyPatch) -> None:
    start_job = ingestion.start_job

    def crash(*args: object) -> None:
        raise RuntimeError("jobs table unavailable")

    monkeypatch.setattr(ingestion, "start_job", crash)
    runner: LocalPipelineRunner = uploaded.pipelines  # type: ignore[assignment]
    execution = runner.wait(start_uploaded(uploaded), timeout=120)
    (job,) = uploaded.jobs.list()

    assert (execution.status, execution.error) == ("FAILED", "IngestionFailed")
    assert (job.state, job.reason) == (JobState.FAILED, "RuntimeError: jobs table unavailable")
    assert uploaded.documents.get(job.doc_id).status is DocumentStatus.FAILED

    monkeypatch.setattr(ingestion, "start_job", start_job)
    service.retry_job(uploaded, job.job_id)
    runner.join(timeout=120)

    assert uploaded.jobs.get(job.job_id).state is JobState.COMPLETED
    assert uploaded.documents.get(job.doc_id).status is DocumentStatus.ACTIVE


def test_trigger_event_delivered_twice_indexes_the_upload_once(uploaded: Dependencies) -> None:
    first = triggers.handle_object_created(uploaded, object_created())
    again = triggers.handle_object_created(uploaded, object_created())
    runner: LocalPipelineRunner = uploaded.pipelines  # type: ignore[assignment]
    runner.join(timeout=120)

    assert (first["status"], again["status"]) == ("started", "duplicate")
    (execution,) = runner.list_executions("ingest")
    assert execution.status == "SUCCEEDED"
    (version,) = uploaded.documents.versions("anticoagulation")
    assert version.status is DocumentStatus.ACTIVE and len(uploaded.jobs.list()) == 1
