"""ingest.asl.json, run end to end with the real handlers in-process: its routes, its failure path, its shape.

Every test's job writes are checked against the IndexingJob lifecycle by the `ingest_deps` fixture.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from voiceassist_local.asl_runner import LocalPipelineRunner
from voiceassist_local.pipelines import PIPELINES

from tests.support.pdfgen import build_pdf
from voiceassist import service
from voiceassist.adapters.aws.stepfunctions_pipeline import ExecutionRecord
from voiceassist.composition import Dependencies
from voiceassist.ingest import artifacts, triggers
from voiceassist.ingest import stages as ingestion
from voiceassist.models import DocumentStatus, JobState, SearchMode, SearchQuery
from voiceassist.query.search import opening_cosine

DOCUMENTS = Path(__file__).resolve().parents[1] / "fixtures" / "documents"
ASL: dict[str, Any] = json.loads(PIPELINES["ingest"].read_text(encoding="utf-8"))
STATES: dict[str, Any] = ASL["States"]
TRANSIENT_LAMBDA_ERRORS = {"Lambda.ServiceException", "Lambda.AWSLambdaException", "Lambda.SdkClientException",
                           "Lambda.TooManyRequestsException"}
# The Catch targets that record a failure, and the Fail state each ends in.
FAILURE_RECORDERS = {"Mark Job Failed": "Ingestion Failed", "Mark Registration Failed": "Registration Failed"}
GUIDE = build_pdf([
    ("Anticoagulation", ["Warfarin dosing starts at 5 mg daily; check the INR after three doses.",
                         "Apixaban 5 mg twice daily is an alternative for nonvalvular atrial fibrillation."]),
    ("Monitoring", ["Keep the INR between 2.0 and 3.0 for most indications of warfarin therapy."]),
])


def _targets(state: dict[str, Any]) -> Iterator[str]:
    yield from (state[key] for key in ("Next", "Default") if key in state)
    yield from (choice["Next"] for choice in state.get("Choices", []))
    yield from (catcher["Next"] for catcher in state.get("Catch", []))


def _reachable(start: str) -> set[str]:
    seen, pending = set(), [start]
    while pending:
        name = pending.pop()
        if name not in seen:
            seen.add(name)
            pending.extend(_targets(STATES[name]))
    return seen


def _runner(deps: Dependencies) -> LocalPipelineRunner:
    runner: LocalPipelineRunner = deps.pipelines
    return runner


def _run(deps: Dependencies, payload: dict[str, Any], name: str) -> ExecutionRecord:
    runner = _runner(deps)
    return runner.wait(runner.start("ingest", payload, name=name), timeout=120)


def _stored_artifacts(deps: Dependencies, doc_id: str) -> list[str]:
    return [name for name in artifacts.ARTIFACT_NAMES if deps.blobs.exists(artifacts.artifact_key(doc_id, name))]


# --------------------------------------------------------------------------- the definition


def test_ingest_asl_every_transition_names_a_state_and_every_state_is_reachable() -> None:
    targets = {target for state in STATES.values() for target in _targets(state)}

    assert targets <= set(STATES)
    assert _reachable(ASL["StartAt"]) == set(STATES)


NO_STORE_STEPS = {"Clean Text"}  # it reads and writes blobs only


def test_ingest_asl_every_stage_retries_lambda_faults_and_catches_everything_into_mark_job_failed() -> None:
    tasks = {name: state for name, state in STATES.items() if state["Type"] == "Task"}

    for name, state in tasks.items():
        retried = {error for retrier in state["Retry"] for error in retrier["ErrorEquals"]}
        assert retried >= TRANSIENT_LAMBDA_ERRORS, name
        # a store outage (DynamoDB throttled, SQLite locked) is retried by every step
        assert "StoreUnavailable" in retried or name in NO_STORE_STEPS, name
        if name in FAILURE_RECORDERS:
            assert "Catch" not in state and state["Next"] == FAILURE_RECORDERS[name]
            continue
        (catcher,) = state["Catch"]
        assert catcher["ErrorEquals"] == ["States.ALL"], name
        assert "Mark Job Failed" in _reachable(catcher["Next"]), name


# --------------------------------------------------------------------------- routes, run for real


def test_ingest_pipeline_indexes_an_upload_and_makes_it_searchable(
        ingest_deps: Dependencies, ingest: Callable[..., Any],
        keyword_search: Callable[[str], list[tuple[str, int]]]) -> None:
    job = ingest("anticoagulation.pdf", GUIDE, title="Anticoagulation guide", source_type="guideline")

    document = ingest_deps.documents.get(job.doc_id)
    assert job.state is JobState.COMPLETED and job.reason is None
    assert ingest_deps.jobs.states_of(job.job_id) == [JobState.RUNNING, JobState.COMPLETED]
    assert job.chunks_total > 0 and job.chunks_done == job.chunks_total
    assert (document.status, document.page_count, document.chunk_count) == (DocumentStatus.ACTIVE, 2,
                                                                           job.chunks_total)
    assert ingest_deps.index.count("anticoagulation") == job.chunks_total
    assert ("anticoagulation", 1) in keyword_search("apixaban atrial fibrillation")
    (execution,) = _runner(ingest_deps).list_executions("ingest")
    assert execution.status == "SUCCEEDED" and execution.output["outcome"]["status"] == "COMPLETED"


def test_ingest_pipeline_stores_the_documents_opening_once_and_its_hits_carry_the_questions_cosine(
        ingest_deps: Dependencies, ingest: Callable[..., Any]) -> None:
    job = ingest("anticoagulation.pdf", GUIDE, title="Anticoagulation guide", source_type="guideline")
    question = ingest_deps.embedder.embed(["apixaban dose in atrial fibrillation"])[0]

    hits = ingest_deps.index.search(SearchQuery(text="apixaban atrial fibrillation", vector=question.tolist(),
                                                mode=SearchMode.HYBRID, top_k=50))

    assert job.state is JobState.COMPLETED and len(hits) == job.chunks_total > 1
    opening = ingest_deps.embedder.embed([ingestion.opening_text([hit.chunk for hit in hits])])[0]
    assert ingestion.opening_text([hit.chunk for hit in hits]).startswith("Anticoagulation")
    (stored,) = {hit.opening_cosine for hit in hits}  # one opening per version, in every chunk's hit
    assert stored == pytest.approx(opening_cosine(opening, question), abs=2e-6)  # stored as a unit float32 row


def test_ingest_pipeline_hands_a_large_document_between_stages_by_reference_and_cleans_up(
        ingest_deps: Dependencies, ingest: Callable[..., Any], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(artifacts, "INLINE_ARTIFACT_BYTES", 0)  # every artefact counts as too large to inline

    job = ingest("anticoagulation.pdf", GUIDE)

    assert job.state is JobState.COMPLETED
    assert ingest_deps.index.count("anticoagulation") == job.chunks_total > 0
    assert _stored_artifacts(ingest_deps, job.doc_id) == []


def test_ingest_pipeline_failure_after_storing_artefacts_deletes_them(
        ingest_deps: Dependencies, ingest: Callable[..., Any], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(artifacts, "INLINE_ARTIFACT_BYTES", 0)

    def crash(*args: object) -> None:
        raise RuntimeError("the embedding model crashed")

    monkeypatch.setattr(ingestion, "embed_document", crash)
    job = ingest("anticoagulation.pdf", GUIDE)

    assert job.state is JobState.FAILED
    assert _stored_artifacts(ingest_deps, job.doc_id) == []


def test_ingest_pipeline_failure_path_marks_the_job_failed_and_fails_the_execution(
        ingest_deps: Dependencies, ingest: Callable[..., Any]) -> None:
    job = ingest("truncated.pdf", (DOCUMENTS / "truncated.pdf").read_bytes())

    assert job.state is JobState.FAILED and job.reason is not None and job.reason.startswith("broken PDF:")
    assert ingest_deps.jobs.states_of(job.job_id) == [JobState.RUNNING, JobState.FAILED]
    assert ingest_deps.documents.get(job.doc_id).status is DocumentStatus.FAILED
    (execution,) = _runner(ingest_deps).list_executions("ingest")
    assert (execution.status, execution.error) == ("FAILED", "IngestionFailed")


def test_ingest_pipeline_started_by_the_trigger_registers_then_skips_unchanged_content(
        ingest_deps: Dependencies) -> None:
    key = f"{ingestion.INCOMING_PREFIX}guides/anticoagulation.pdf"
    ingest_deps.blobs.put(key, GUIDE, content_type="application/pdf")

    def upload_event(etag: str) -> dict[str, Any]:  # what the trigger does: register, start with the ids
        return triggers.start_ingestion(ingest_deps, uploaded=triggers.ObjectVersion("documents", key, etag))

    started = upload_event("etag-1")
    first = _runner(ingest_deps).wait(started["execution"], timeout=120)
    settled = ingest_deps.documents.get(first.output["doc_id"]).blob_key
    ingest_deps.blobs.put(key, GUIDE, content_type="application/pdf")  # the same bytes uploaded again
    replay = upload_event("etag-2")

    assert first.status == "SUCCEEDED" and first.input == {"job_id": started["job_id"], "doc_id": started["doc_id"]}
    assert ingest_deps.jobs.get(first.output["job_id"]).state is JobState.COMPLETED
    assert replay["status"] == "unchanged" and replay["execution"] is None
    assert ingest_deps.jobs.get(replay["job_id"]).unchanged
    # decision 0028: the screen moved the first upload under documents/; the unchanged one is deleted unread
    assert not settled.startswith(ingestion.INCOMING_PREFIX) and ingest_deps.blobs.exists(settled)
    assert not ingest_deps.blobs.exists(key)
    assert ingest_deps.index.count("anticoagulation", searchable_only=False) == ingest_deps.jobs.get(
        first.output["job_id"]).chunks_total


def test_ingest_pipeline_register_failure_of_an_uploaded_job_marks_it_failed(
        ingest_deps: Dependencies, monkeypatch: pytest.MonkeyPatch) -> None:
    registration = service.accept_upload(ingest_deps, filename="guide.pdf", data=GUIDE, start_pipeline=False,
                                         metadata=service.metadata_for("guide.pdf", {}))

    def crash(*args: object) -> None:
        raise RuntimeError("jobs table unavailable")

    monkeypatch.setattr(ingestion, "start_job", crash)
    execution = _run(ingest_deps, registration.pipeline_input(), name=registration.job.job_id)

    job = ingest_deps.jobs.get(registration.job.job_id)
    assert (job.state, job.reason) == (JobState.FAILED, "RuntimeError: jobs table unavailable")
    assert execution.status == "FAILED"


def test_ingest_pipeline_replayed_for_a_completed_job_leaves_it_and_its_chunks_alone(
        ingest_deps: Dependencies, ingest: Callable[..., Any],
        keyword_search: Callable[[str], list[tuple[str, int]]]) -> None:
    job = ingest("anticoagulation.pdf", GUIDE)

    replay = _run(ingest_deps, {"job_id": job.job_id, "doc_id": job.doc_id}, name="replayed-by-hand")

    assert replay.status == "FAILED"
    assert ingest_deps.jobs.get(job.job_id).state is JobState.COMPLETED
    assert ("anticoagulation", 1) in keyword_search("warfarin INR")
