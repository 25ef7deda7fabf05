"""The sweep of incoming/ (ingest/upload_sweep.py, run by functions/ingest_reconcile) against moto's S3 and Step
Functions: an upload whose "Object Created" event never reached the trigger is registered and started once, an
upload the trigger handled is left alone, and nothing names the upload's key (a file name that may be PHI)."""

from __future__ import annotations

import importlib.util
import json
import logging
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import boto3
import pytest
from moto import mock_aws

from voiceassist.adapters.aws.s3_blobs import S3BlobStore
from voiceassist.adapters.aws.stepfunctions_pipeline import StepFunctionsPipelineRunner
from voiceassist.composition import Dependencies
from voiceassist.ingest import triggers, upload_sweep
from voiceassist.ingest.upload_sweep import sweep_uploads

HANDLER = Path(__file__).resolve().parents[2] / "functions" / "ingest_reconcile" / "handler.py"
BUCKET = "documents"
ROLE = "arn:aws:iam::123456789012:role/sfn"
WAIT = {"StartAt": "Wait", "States": {"Wait": {"Type": "Wait", "Seconds": 3600, "End": True}}}
PHI_KEY = "incoming/Smith_John_MRN84736251_discharge.md"
GUIDE = b"# Sepsis bundle\n\nGive 30 mL/kg of crystalloid within 3 hours for hypotension.\n"
LATER = timedelta(minutes=11)  # past the sweep's settling time


@pytest.fixture
def aws(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Any, Any]]:
    for name in ("AWS_PROFILE", "AWS_SESSION_TOKEN", "AWS_ENDPOINT_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    with mock_aws():
        s3 = boto3.client("s3", region_name="us-east-1")
        s3.create_bucket(Bucket=BUCKET)
        yield s3, boto3.client("stepfunctions", region_name="us-east-1")


@pytest.fixture
def deps(local_deps: Dependencies, aws: tuple[Any, Any]) -> Dependencies:
    s3, sfn = aws
    arn = sfn.create_state_machine(name="ingest", roleArn=ROLE, definition=json.dumps(WAIT))["stateMachineArn"]
    local_deps.pipelines = StepFunctionsPipelineRunner({"ingest": arn}, client=sfn)  # type: ignore[misc]
    local_deps.blobs = S3BlobStore(BUCKET, client=s3)  # type: ignore[misc]
    return local_deps


def executions(aws: tuple[Any, Any]) -> list[dict[str, Any]]:
    _, sfn = aws
    (machine,) = sfn.list_state_machines()["stateMachines"]
    listed = sfn.list_executions(stateMachineArn=machine["stateMachineArn"])["executions"]
    return [json.loads(sfn.describe_execution(executionArn=e["executionArn"])["input"]) for e in listed]


def upload(aws: tuple[Any, Any], key: str, data: bytes = GUIDE) -> str:
    """An upload as S3 stores it; returns the ETag its "Object Created" event carries (without quotes)."""
    s3, _ = aws
    return str(s3.put_object(Bucket=BUCKET, Key=key, Body=data)["ETag"]).strip('"')


def sweep(deps: Dependencies, after: timedelta = LATER, **options: Any) -> list[upload_sweep.Swept]:
    return sweep_uploads(deps, deps.blobs, now=datetime.now(UTC) + after, **options)  # type: ignore[arg-type]


def test_upload_sweep_starts_an_upload_whose_event_was_lost_once(deps: Dependencies, aws: tuple[Any, Any]) -> None:
    upload(aws, PHI_KEY)
    (first,) = sweep(deps)
    assert first.status == "started" and first.job_id
    assert deps.jobs.get(first.job_id).doc_id
    assert [set(payload) for payload in executions(aws)] == [{"job_id", "doc_id"}]
    (again,) = sweep(deps)
    assert again.status == "duplicate" and len(executions(aws)) == 1


def test_upload_sweep_leaves_an_upload_the_trigger_started(deps: Dependencies, aws: tuple[Any, Any]) -> None:
    """The sweep's event is the one S3 sends (the listing's quoted ETag unquoted), so both find one record."""
    etag = upload(aws, PHI_KEY)
    delivered = triggers.handle_object_created(deps, triggers.object_created_event(BUCKET, PHI_KEY, etag,
                                                                                   len(GUIDE)))
    assert delivered["status"] == "started"
    assert [s.status for s in sweep(deps)] == ["duplicate"]
    assert len(executions(aws)) == 1


def test_upload_sweep_waits_for_the_event_and_skips_sidecars_and_expired_records(
        deps: Dependencies, aws: tuple[Any, Any]) -> None:
    upload(aws, "incoming/guide.md")
    upload(aws, "incoming/guide.md.meta.json", b'{"title": "Sepsis bundle"}')
    upload(aws, "incoming/", b"")  # a console "folder"
    assert sweep(deps, after=timedelta(minutes=2)) == []  # its event is on its way, or being retried
    assert sweep(deps, after=timedelta(days=29, hours=1)) == []  # its idempotency record may have expired
    assert executions(aws) == []
    assert [s.status for s in sweep(deps)] == ["started"]  # the document, with its sidecar's title
    (payload,) = executions(aws)
    assert deps.documents.get(payload["doc_id"]).metadata.title == "Sepsis bundle"


def test_upload_sweep_starts_a_bounded_number_per_run(deps: Dependencies, aws: tuple[Any, Any]) -> None:
    for n in range(3):
        upload(aws, f"incoming/guide-{n}.md", GUIDE + f"Version {n}.\n".encode())
    assert [s.status for s in sweep(deps, max_starts=2)] == ["started", "started"]
    assert [s.status for s in sweep(deps, max_starts=2)] == ["duplicate", "duplicate", "started"]
    assert len(executions(aws)) == 3


def test_upload_sweep_stops_while_its_function_has_a_triggers_time_left(deps: Dependencies,
                                                                          aws: tuple[Any, Any]) -> None:
    upload(aws, "incoming/guide.md")
    assert sweep(deps, seconds_left=lambda: upload_sweep.TRIGGER_SECONDS - 1) == []
    assert [s.status for s in sweep(deps, seconds_left=lambda: 120.0)] == ["started"]


def test_upload_sweep_retries_a_failed_upload_at_the_next_run(deps: Dependencies, aws: tuple[Any, Any],
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    upload(aws, PHI_KEY)
    upload(aws, "incoming/other.md", GUIDE + b"Other.\n")
    runner = deps.pipelines
    start = runner.start

    def throttled(pipeline: str, payload: dict[str, Any], *, name: str | None = None) -> str:
        raise RuntimeError("Step Functions throttled")

    monkeypatch.setattr(runner, "start", throttled)
    assert [s.status for s in sweep(deps)] == ["failed", "failed"]  # one failure does not stop the others
    monkeypatch.setattr(runner, "start", start)
    assert sorted(s.status for s in sweep(deps)) == ["started", "started"]  # the failed start's record was deleted


def test_upload_sweep_names_uploads_by_a_hash_only(deps: Dependencies, aws: tuple[Any, Any],
                                                   caplog: pytest.LogCaptureFixture) -> None:
    upload(aws, PHI_KEY)
    caplog.set_level(logging.INFO)
    swept = sweep(deps)
    said = json.dumps([s.__dict__ for s in swept]) + caplog.text
    assert swept and "Smith" not in said and "84736251" not in said
    import hashlib

    assert swept[0].key_sha256 == hashlib.sha256(PHI_KEY.encode()).hexdigest()


def test_the_reconciler_handler_sweeps_incoming_on_s3(deps: Dependencies, aws: tuple[Any, Any],
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    s3, _ = aws
    upload(aws, PHI_KEY)
    spec = importlib.util.spec_from_file_location("ingest_reconcile_sweep_handler", HANDLER)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    monkeypatch.setattr(module, "dependencies", lambda: deps)
    monkeypatch.setattr(module, "datetime", type("Clock", (), {"now": staticmethod(
        lambda tz=None: datetime.now(UTC) + LATER)}))

    class Context:
        function_name, memory_limit_in_mb, aws_request_id = "ingest_reconcile", 256, "r1"
        invoked_function_arn = "arn:aws:lambda:us-east-1:123456789012:function:ingest_reconcile"

        def get_remaining_time_in_millis(self) -> int:
            return 300_000

    reply = module.lambda_handler({"detail-type": "Scheduled Event", "source": "aws.events"}, Context())
    assert [s["status"] for s in reply["swept"]] == ["started"] and reply["recovered"] == []
    assert "Smith" not in json.dumps(reply)
    assert len(executions(aws)) == 1
