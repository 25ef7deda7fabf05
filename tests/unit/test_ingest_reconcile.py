"""The scheduled AWS reconciler (functions/ingest_reconcile) against moto's Step Functions: each PENDING or
RUNNING job is compared with its execution (DescribeExecution); a job whose execution ended or is gone is
FAILED with a reason and re-driven while it has attempts left; a live execution's job is left alone."""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest
from moto import mock_aws

from voiceassist import service
from voiceassist.adapters.aws.stepfunctions_pipeline import StepFunctionsPipelineRunner
from voiceassist.composition import Dependencies
from voiceassist.models import MAX_JOB_ATTEMPTS, DocumentMetadata, JobState

HANDLER = Path(__file__).resolve().parents[2] / "functions" / "ingest_reconcile" / "handler.py"
ROLE = "arn:aws:iam::123456789012:role/sfn"
WAIT = {"StartAt": "Wait", "States": {"Wait": {"Type": "Wait", "Seconds": 3600, "End": True}}}


@pytest.fixture
def sfn(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    for name in ("AWS_PROFILE", "AWS_SESSION_TOKEN", "AWS_ENDPOINT_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    with mock_aws():
        yield boto3.client("stepfunctions", region_name="us-east-1")


@pytest.fixture
def deps(local_deps: Dependencies, sfn: Any) -> Dependencies:
    arn = sfn.create_state_machine(name="ingest", roleArn=ROLE, definition=json.dumps(WAIT))["stateMachineArn"]
    local_deps.pipelines = StepFunctionsPipelineRunner({"ingest": arn}, client=sfn)  # type: ignore[misc]
    return local_deps


def _upload(deps: Dependencies, name: str) -> str:
    registered = service.accept_upload(deps, filename=f"{name}.txt", data=f"{name}: 5 mg daily".encode(),
                                       metadata=DocumentMetadata(doc_key=name, title=name))
    return registered.job.job_id


def _reconcile(deps: Dependencies) -> list[tuple[str, str]]:
    recovered = service.reconcile_jobs(deps, liveness=service.execution_liveness(deps), any_worker=True)
    return [(r.job_id, r.action) for r in recovered]


def test_a_job_carries_its_execution_arn_and_a_running_one_is_left_alone(deps: Dependencies, sfn: Any) -> None:
    job_id = _upload(deps, "alive")
    job = deps.jobs.get(job_id)
    assert job.execution_id and ":execution:ingest:" in job.execution_id
    assert sfn.describe_execution(executionArn=job.execution_id)["status"] == "RUNNING"
    assert _reconcile(deps) == []
    assert deps.jobs.get(job_id).state is JobState.PENDING


def _running(deps: Dependencies, job_id: str) -> None:
    """As Register Document leaves it: the execution took it (RUNNING)."""
    job = deps.jobs.get(job_id)
    deps.jobs.save(job.transition(JobState.RUNNING), expected_state=JobState.PENDING)


@pytest.mark.parametrize(("ran", "action", "name"), [(True, "redriven", "attempt2"),
                                                     (False, "requeued", "attempt1-requeue1")])
def test_a_job_whose_execution_ended_is_failed_then_redriven(deps: Dependencies, sfn: Any, ran: bool, action: str,
                                                             name: str) -> None:
    """A RUNNING job spends an attempt; a PENDING one never ran and is put back under a new execution name."""
    job_id = _upload(deps, "aborted")
    if ran:
        _running(deps, job_id)
    first = deps.jobs.get(job_id).execution_id
    sfn.stop_execution(executionArn=first, cause="operator")
    assert _reconcile(deps) == [(job_id, action)]
    job = deps.jobs.get(job_id)
    assert (job.state, job.attempts) == (JobState.PENDING, 2 if ran else 1)
    assert job.execution_id and job.execution_id != first and job.execution_id.endswith(f"{job_id}-{name}")
    assert sfn.describe_execution(executionArn=job.execution_id)["status"] == "RUNNING"
    assert _reconcile(deps) == []  # the new attempt is alive


def test_a_job_whose_execution_is_gone_is_redriven(deps: Dependencies) -> None:
    job_id = _upload(deps, "gone")
    _running(deps, job_id)
    job = deps.jobs.get(job_id)
    gone = job.execution_id.rsplit(":", 1)[0] + ":never-started"  # type: ignore[union-attr]
    # moved last by another Lambda container: DescribeExecution speaks for it all the same (any_worker)
    deps.jobs.save(job.model_copy(update={"execution_id": gone, "worker": "169.254.0.1/8/abc"}),
                   expected_state=JobState.RUNNING)
    assert _reconcile(deps) == [(job_id, "redriven")]


def test_a_job_out_of_attempts_is_failed_with_a_reason(deps: Dependencies, sfn: Any) -> None:
    job_id = _upload(deps, "tired")
    _running(deps, job_id)
    job = deps.jobs.get(job_id)
    deps.jobs.save(job.model_copy(update={"attempts": MAX_JOB_ATTEMPTS}), expected_state=JobState.RUNNING)
    sfn.stop_execution(executionArn=job.execution_id)
    assert _reconcile(deps) == [(job_id, "failed")]
    failed = deps.jobs.get(job_id)
    assert failed.state is JobState.FAILED and failed.reason and "interrupted" in failed.reason
    assert deps.documents.get(job.doc_id).status.value == "FAILED"


def test_a_job_without_an_execution_id_is_left_to_its_lease(deps: Dependencies) -> None:
    job_id = _upload(deps, "legacy")
    job = deps.jobs.get(job_id)
    deps.jobs.save(job.model_copy(update={"execution_id": None, "worker": "elsewhere/1/x"}),
                   expected_state=JobState.PENDING)
    assert _reconcile(deps) == []  # fresh heartbeat: the lease has not run out


def test_the_handler_reconciles_with_the_composition_roots_dependencies(deps: Dependencies, sfn: Any,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    job_id = _upload(deps, "handler")
    sfn.stop_execution(executionArn=deps.jobs.get(job_id).execution_id)
    spec = importlib.util.spec_from_file_location("ingest_reconcile_handler", HANDLER)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    monkeypatch.setattr(module, "dependencies", lambda: deps)

    class Context:
        function_name, memory_limit_in_mb, aws_request_id = "ingest_reconcile", 256, "r1"
        invoked_function_arn = "arn:aws:lambda:us-east-1:123456789012:function:ingest_reconcile"

    reply = module.lambda_handler({"detail-type": "Scheduled Event", "source": "aws.events"}, Context())
    assert [(r["job_id"], r["action"]) for r in reply["recovered"]] == [(job_id, "requeued")]  # it never ran
