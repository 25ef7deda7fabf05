"""ingest.asl.json's Screen Metadata, with the real handlers and the real detector: where it runs, how it fails
closed, and how a redacted doc_key keeps one document's versions together."""

from __future__ import annotations

import json
from typing import Any

from voiceassist_local.handlers import invoke
from voiceassist_local.pipelines import PIPELINES
from voiceassist_local.server import to_api_gateway_event

from voiceassist import service
from voiceassist.composition import Dependencies
from voiceassist.ingest.screening import PhiDetectorBusy
from voiceassist.ingest.triggers import object_created_event
from voiceassist.models import DocumentStatus, JobState, PhiEntity, PhiResult, SearchMode, SearchQuery
from voiceassist.phi.detection import BUSY, FailClosedDetector, failed_result

PHI_NAME = "Zebulon_Quartermaine_MRN_84736251_DOB_1961-04-17_sepsis.md"
PHI_VALUES = ("zebulon", "quartermaine", "84736251", "1961-04-17")
GUIDE = b"# Sepsis bundle\n\nMeasure the serum lactate within one hour of recognising sepsis.\n"


def _states() -> dict[str, Any]:
    states: dict[str, Any] = json.loads(PIPELINES["ingest"].read_text())["States"]
    return states


def _api_get(path: str) -> Any:
    reply = invoke("api", to_api_gateway_event("GET", path, {}, b"", groups="admin"))
    assert reply["statusCode"] == 200, reply
    return json.loads(reply["body"])


class _Crashing:
    def detect(self, text: str) -> PhiResult:
        raise RuntimeError(f"model missing while reading {text}")  # a message quoting its input


def test_screen_metadata_runs_after_register_and_before_anything_reads_the_metadata() -> None:
    states = _states()
    assert states["Already Indexed?"]["Default"] == "Screen Metadata"
    screen = states["Screen Metadata"]
    assert (screen["Resource"], screen["Next"]) == ("${IngestScreenFunctionArn}", "Extract Text")
    assert [c["Next"] for c in screen["Catch"]] == ["Mark Job Failed"]
    assert screen["ResultPath"] == "$.screening"  # the state keeps doc_id and job_id for Extract
    # a detection that failed (a time-out under load) is tried again before the job fails closed
    assert any("MetadataNotScreened" in retry["ErrorEquals"] for retry in screen["Retry"])


def _busy_retrier() -> dict[str, Any]:
    [retrier] = [r for r in _states()["Screen Metadata"]["Retry"] if PhiDetectorBusy.__name__ in r["ErrorEquals"]]
    return retrier


def test_every_screening_step_retries_a_busy_detector_longer_than_a_failed_one() -> None:
    # Step Functions sees a Lambda's exception by its class name: the Retry must name the class screening raises
    screens = [state for state in _states().values() if state.get("Resource") == "${IngestScreenFunctionArn}"]
    assert screens and all(
        any(r["ErrorEquals"] == [PhiDetectorBusy.__name__] for r in state["Retry"]) for state in screens)
    busy = _busy_retrier()
    [failed] = [r for r in _states()["Screen Metadata"]["Retry"] if "MetadataNotScreened" in r["ErrorEquals"]]
    # back-pressure waits its turn: more attempts, growing waits, spread apart so a crowd does not return at once
    assert busy["MaxAttempts"] > failed["MaxAttempts"] and busy["BackoffRate"] > 1
    assert busy["JitterStrategy"] == "FULL" and busy["MaxDelaySeconds"] >= busy["IntervalSeconds"]


class _BusyFor:
    """A detector too busy to start `times` detections (FailClosedDetector's queue wait ran out), then working;
    it records how many chunks the index held at each busy answer."""

    def __init__(self, inner: Any, times: int, index: Any) -> None:
        self.inner, self.left, self.index = inner, times, index
        self.busy_calls = 0
        self.indexed_while_busy: list[int] = []

    def detect(self, text: str) -> PhiResult:
        if self.left > 0:
            self.left -= 1
            self.busy_calls += 1
            self.indexed_while_busy.append(self.index.count())
            return failed_result(f"{BUSY}: no detection could start within 8 s")
        result: PhiResult = self.inner.detect(text)
        return result


def test_a_detector_busy_for_a_while_is_waited_for_and_the_document_is_screened_then_indexed(
        ingest_deps: Dependencies, ingest: Any, keyword_search: Any) -> None:
    # Given a detector busy for more attempts than a failed detection gets (MetadataNotScreened: 1 + 2)
    busy = _BusyFor(ingest_deps.phi_detector, times=5, index=ingest_deps.index)
    ingest_deps.phi_detector = busy  # type: ignore[misc]

    # When a document named after a patient is uploaded
    job = ingest(PHI_NAME, GUIDE)

    # Then it was retried until the detector answered: screened, redacted, and only then indexed
    assert (job.state, job.reason) == (JobState.COMPLETED, None)
    assert busy.busy_calls == 5 and busy.indexed_while_busy == [0] * 5
    document = ingest_deps.documents.get(job.doc_id)
    assert document.status is DocumentStatus.ACTIVE and document.metadata_screened is True
    assert "PERSON" in job.metadata_phi_redacted and document.metadata.title.startswith("<PERSON>")
    assert keyword_search("lactate") == [(document.doc_key, 1)]


def test_a_detector_that_stays_busy_fails_the_job_closed_as_back_pressure_to_ingest_again(
        ingest_deps: Dependencies, ingest: Any, keyword_search: Any) -> None:
    working = ingest_deps.phi_detector
    busy = _BusyFor(working, times=10_000, index=ingest_deps.index)
    ingest_deps.phi_detector = busy  # type: ignore[misc]

    job = ingest(PHI_NAME, GUIDE)

    # Then every attempt the Retry allows was made, and the job FAILED saying it was back-pressure, quoting nothing
    assert busy.busy_calls == 1 + _busy_retrier()["MaxAttempts"]
    assert job.state is JobState.FAILED and job.reason is not None
    assert "busy" in job.reason and "back-pressure" in job.reason and "ingest it again" in job.reason
    assert not any(value in job.reason.lower() for value in PHI_VALUES)
    # and nothing was indexed or screened
    assert set(busy.indexed_while_busy) == {0} and keyword_search("lactate") == []
    document = ingest_deps.documents.get(job.doc_id)
    assert document.status is DocumentStatus.FAILED and document.metadata_screened is False

    # When the detector is free again and the document is uploaded again (what a re-run of ingest-jsonl does)
    ingest_deps.phi_detector = working  # type: ignore[misc]
    again = ingest(PHI_NAME, GUIDE)

    # Then that upload is screened and indexed (the failed version is not taken for the same content, live)
    assert again.state is JobState.COMPLETED and not again.unchanged
    assert keyword_search("lactate") == [(ingest_deps.documents.get(again.doc_id).doc_key, 2)]


class _FailsOnce:
    """A detector that fails its first detection (a time-out under load), then works."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.failed = False

    def detect(self, text: str) -> PhiResult:
        if not self.failed:
            self.failed = True
            return failed_result("PHI detector timed out after 2 s")
        result: PhiResult = self.inner.detect(text)
        return result


def test_a_detection_that_fails_once_is_retried_and_the_job_completes(
        ingest_deps: Dependencies, ingest: Any, keyword_search: Any) -> None:
    ingest_deps.phi_detector = _FailsOnce(ingest_deps.phi_detector)  # type: ignore[misc]

    job = ingest(PHI_NAME, GUIDE)

    assert (job.state, job.reason) == (JobState.COMPLETED, None)
    assert "PERSON" in job.metadata_phi_redacted and ingest_deps.phi_detector.failed  # type: ignore[attr-defined]
    document = ingest_deps.documents.get(job.doc_id)
    assert document.status is DocumentStatus.ACTIVE and document.metadata_screened is True
    assert keyword_search("lactate") == [(document.doc_key, 1)]


def test_a_detector_that_crashes_fails_the_job_closed_and_a_retry_screens_again(
        ingest_deps: Dependencies, ingest: Any, keyword_search: Any) -> None:
    # Given a detector that crashes
    working = ingest_deps.phi_detector
    ingest_deps.phi_detector = FailClosedDetector(_Crashing())  # type: ignore[misc]

    # When a document named after a patient is uploaded
    job = ingest(PHI_NAME, GUIDE)

    # Then the job FAILED with a reason that says why and quotes nothing, and nothing was indexed
    assert job.state is JobState.FAILED
    assert job.reason and "could not be screened for PHI" in job.reason and "retry the job" in job.reason
    assert not any(value in job.reason.lower() for value in PHI_VALUES)
    assert keyword_search("lactate") == []
    document = ingest_deps.documents.get(job.doc_id)
    assert document.status is DocumentStatus.FAILED and document.metadata_screened is False
    # and the API withholds the unscreened metadata, on the document and on the job
    shown = "".join(json.dumps(_api_get(path)) for path in (f"/v1/documents/{job.doc_id}", "/v1/documents",
                                                             f"/v1/jobs/{job.job_id}", "/v1/jobs"))
    assert not any(value in shown.lower() for value in PHI_VALUES), shown

    # When the detector works again and the job is retried
    ingest_deps.phi_detector = working  # type: ignore[misc]
    service.retry_job(ingest_deps, job.job_id)
    ingest_deps.pipelines.join(timeout=120)  # type: ignore[attr-defined]

    # Then it is screened, redacted and indexed
    retried = ingest_deps.jobs.get(job.job_id)
    assert retried.state is JobState.COMPLETED and "PERSON" in retried.metadata_phi_redacted
    document = ingest_deps.documents.get(job.doc_id)
    assert document.status is DocumentStatus.ACTIVE and document.metadata.title.startswith("<PERSON>")
    assert keyword_search("lactate") == [(document.doc_key, 1)]


def test_a_redacted_doc_key_keeps_the_versions_of_one_document_together(ingest_deps: Dependencies,
                                                                        ingest: Any) -> None:
    first = ingest(PHI_NAME, GUIDE)
    second = ingest(PHI_NAME, GUIDE + b"\nRepeat the lactate within two to four hours if it was raised.\n")
    again = ingest(PHI_NAME, GUIDE + b"\nRepeat the lactate within two to four hours if it was raised.\n")

    first = ingest_deps.jobs.get(first.job_id)  # as it is now
    assert (first.state, second.state) == (JobState.SUPERSEDED, JobState.COMPLETED)
    assert first.doc_key == second.doc_key and "~" in first.doc_key
    assert (second.version, again.unchanged, again.version) == (2, True, 2)
    versions = ingest_deps.documents.versions(first.doc_key)
    assert [(v.version, v.status) for v in versions] == [(1, DocumentStatus.SUPERSEDED), (2, DocumentStatus.ACTIVE)]
    hits = ingest_deps.index.search(SearchQuery(text="lactate", mode=SearchMode.BM25, top_k=10))
    assert {(hit.chunk.doc_key, hit.chunk.version) for hit in hits} == {(first.doc_key, 2)}


def test_a_phi_free_upload_keeps_its_name_and_metadata(ingest_deps: Dependencies, ingest: Any) -> None:
    job = ingest("KDIGO 2024 CKD.md", GUIDE, authors="Paul Stevens; Adeera Levin", year=2024)

    document = ingest_deps.documents.get(job.doc_id)
    assert (job.state, job.metadata_phi_redacted, job.doc_key) == (JobState.COMPLETED, [], "KDIGO 2024 CKD")
    assert (document.metadata.title, document.metadata.authors) == ("KDIGO 2024 CKD", ("Paul Stevens", "Adeera Levin"))
    assert document.redacted_blob_key is None and document.metadata_screened is True


class _AlsoFlagsSepsis:
    """The detector after an upgrade that also redacts "sepsis": it redacts the same key differently."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def detect(self, text: str) -> PhiResult:
        result = self.inner.detect(text)
        start = text.lower().find("sepsis")
        extra = [PhiEntity(entity_type="PERSON", start=start, end=start + 6, score=0.9)] if start >= 0 else []
        return result.model_copy(update={"entities": [*result.entities, *extra], "contains_phi": True})


def test_a_detector_that_redacts_the_key_differently_later_keeps_the_versions_together(
        ingest_deps: Dependencies, ingest: Any) -> None:
    first = ingest(PHI_NAME, GUIDE)
    ingest_deps.phi_detector = _AlsoFlagsSepsis(ingest_deps.phi_detector)  # type: ignore[misc]

    second = ingest(PHI_NAME, GUIDE + b"\nRepeat the lactate within two to four hours if it was raised.\n")

    assert second.doc_key == first.doc_key and second.version == 2
    live = [d for d in ingest_deps.documents.list(limit=10) if d.status is DocumentStatus.ACTIVE]
    assert [(d.doc_key, d.version) for d in live] == [(first.doc_key, 2)]


def test_a_file_refused_before_its_screen_fails_without_naming_it(ingest_deps: Dependencies,
                                                                 caplog: Any) -> None:
    # Given a file under incoming/ named after a patient, of a type ingestion refuses at registration
    key = f"incoming/{PHI_NAME.removesuffix('.md')}.exe"
    ingest_deps.blobs.put(key, b"MZ\x90\x00" + b"\x00" * 64)

    invoke("ingest_trigger", object_created_event("documents", key, "etag-exe", 68))
    ingest_deps.pipelines.join(timeout=120)  # type: ignore[attr-defined]

    # Then its job FAILED with a reason (and log lines) that name no part of the file name
    [job] = ingest_deps.jobs.list(limit=10)
    assert job.state is JobState.FAILED and job.reason and "document.exe" in job.reason
    assert not any(value in (job.reason + caplog.text).lower() for value in PHI_VALUES)
