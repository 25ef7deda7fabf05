"""The S3 trigger's idempotency behaves the same on both Powertools persistence layers: DynamoDB (moto) and SQLite.

Each test delivers EventBridge "Object Created" events to `triggers.handle_object_created` with the layer
under test; the pipeline runner records starts and, like Step Functions, refuses a second execution name.
"""

from __future__ import annotations

import hashlib
import sqlite3
import time
from pathlib import Path
from typing import Any

import boto3
import pytest
from aws_lambda_powertools.utilities.idempotency import BasePersistenceLayer, DynamoDBPersistenceLayer
from aws_lambda_powertools.utilities.idempotency.exceptions import (
    IdempotencyAlreadyInProgressError,
    IdempotencyItemAlreadyExistsError,
    IdempotencyItemNotFoundError,
)
from aws_lambda_powertools.utilities.idempotency.persistence.datarecord import DataRecord

from voiceassist.adapters.local.sqlite_idempotency import SqlitePersistenceLayer
from voiceassist.composition import Dependencies
from voiceassist.errors import Conflict
from voiceassist.ingest import triggers

IDEMPOTENCY_TABLE = "contract-idempotency"
GUIDE_KEY = "incoming/guide.md"


class NamedRunner:
    """Starts nothing; records each start and, like StartExecution, refuses an execution name used before."""

    def __init__(self) -> None:
        self.started: list[str] = []
        self.attempts = 0
        self.fail_next = False
        self.during_start: Any = None  # called inside start(), while the trigger's record is in progress

    def start(self, pipeline: str, payload: dict[str, Any], *, name: str | None = None) -> str:
        self.attempts += 1
        if self.during_start is not None:
            hook, self.during_start = self.during_start, None
            hook()
        if self.fail_next:
            self.fail_next = False
            raise RuntimeError("Step Functions throttled")
        if name in self.started:
            raise Conflict(f"An execution named {name!r} of {pipeline} already exists")
        self.started.append(str(name))
        return f"arn:aws:states:us-east-1:123456789012:execution:ingest:{name}"

    def run(self, pipeline: str, payload: dict[str, Any]) -> dict[str, Any]:
        raise AssertionError("not used")


class Context:
    """The Lambda context Powertools reads: how long the invocation has left."""

    def __init__(self, remaining_ms: int) -> None:
        self.remaining_ms = remaining_ms

    def get_remaining_time_in_millis(self) -> int:
        return self.remaining_ms


def object_created(key: str = GUIDE_KEY, etag: str = "9b2cf535f27731c974343645a3985328") -> dict[str, Any]:
    return {"version": "0", "detail-type": "Object Created", "source": "aws.s3",
            "detail": {"version": "0", "bucket": {"name": "voiceassist-documents"},
                       "object": {"key": key, "size": 15, "etag": etag, "sequencer": "0064D3901D00059242"},
                       "reason": "PutObject"}}


@pytest.fixture
def sqlite_idempotency(tmp_path: Path) -> BasePersistenceLayer:
    return SqlitePersistenceLayer(tmp_path / "idempotency.sqlite3")


@pytest.fixture
def dynamodb_idempotency(aws: None, boto_session: boto3.Session) -> BasePersistenceLayer:
    client = boto_session.client("dynamodb")
    client.create_table(  # the table infra creates: `id` partition key, TTL on `expiration`
        TableName=IDEMPOTENCY_TABLE, BillingMode="PAY_PER_REQUEST",
        KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
    )
    return DynamoDBPersistenceLayer(table_name=IDEMPOTENCY_TABLE, boto3_client=client)


@pytest.fixture(params=["sqlite", "dynamodb"])
def idempotency(request: pytest.FixtureRequest) -> BasePersistenceLayer:
    layer: BasePersistenceLayer = request.getfixturevalue(f"{request.param}_idempotency")
    return layer


@pytest.fixture
def deps(local_deps: Dependencies, idempotency: BasePersistenceLayer) -> Dependencies:
    local_deps.idempotency = idempotency  # type: ignore[misc]
    local_deps.pipelines = NamedRunner()  # type: ignore[misc]
    local_deps.blobs.put(GUIDE_KEY, b"# Guide\n\nText.", metadata={"title": "Stroke%20guide"})
    return local_deps


def runner(deps: Dependencies) -> NamedRunner:
    named: NamedRunner = deps.pipelines  # type: ignore[assignment]
    return named


def deliver(deps: Dependencies, event: dict[str, Any] | None = None, remaining_ms: int = 30_000) -> dict[str, Any]:
    return triggers.handle_object_created(deps, event or object_created(), lambda_context=Context(remaining_ms))


# --------------------------------------------------------------------------- through the trigger


def test_idempotency_duplicate_event_starts_one_execution_and_replays_its_reply(deps: Dependencies) -> None:
    first = deliver(deps)
    again = deliver(deps)

    assert first["status"] == "started" and again["status"] == "duplicate"
    assert again["execution"] == first["execution"]
    assert runner(deps).attempts == 1 and len(runner(deps).started) == 1


def test_idempotency_new_etag_of_the_same_key_is_new_work(deps: Dependencies) -> None:
    deliver(deps, object_created(etag="v1"))
    deps.blobs.put(GUIDE_KEY, b"# Guide\n\nRevised text.")  # a new ETag is new content
    deliver(deps, object_created(etag="v2"))

    assert len(runner(deps).started) == 2


def test_idempotency_replay_after_the_record_expired_runs_again_but_starts_no_second_execution(
        deps: Dependencies, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(triggers, "IDEMPOTENCY_TTL_SECONDS", -1)  # every record is written already expired
    deliver(deps)

    replay = deliver(deps)

    assert runner(deps).attempts == 2  # the expired record did not stop the trigger ...
    first_job = deps.jobs.list()[0]
    assert replay == {"status": "duplicate", "key_sha256": hashlib.sha256(GUIDE_KEY.encode()).hexdigest(),
                      "job_id": first_job.job_id, "doc_id": first_job.doc_id, "execution": None}
    assert len(runner(deps).started) == 1  # ... the execution name did
    assert len(deps.jobs.list()) == 1  # and the registration found the job the first delivery registered


def test_idempotency_event_delivered_while_the_first_is_in_progress_is_refused_then_replayed(
        deps: Dependencies) -> None:
    refused: list[Exception] = []

    def redeliver() -> None:
        try:
            deliver(deps)
        except IdempotencyAlreadyInProgressError as exc:
            refused.append(exc)

    runner(deps).during_start = redeliver
    first = deliver(deps)

    assert first["status"] == "started" and len(refused) == 1
    assert deliver(deps)["status"] == "duplicate"  # the redelivery (EventBridge's retry) after the first ended
    assert len(runner(deps).started) == 1


def test_idempotency_in_progress_record_of_a_timed_out_invocation_does_not_block_a_redelivery(
        deps: Dependencies) -> None:
    taken_over: list[dict[str, Any]] = []

    def redeliver() -> None:
        time.sleep(0.01)  # past the first invocation's in-progress expiry (it had 0 ms left)
        taken_over.append(deliver(deps))

    runner(deps).during_start = redeliver
    deliver(deps, remaining_ms=0)

    assert [r["status"] for r in taken_over] == ["started"]
    assert len(runner(deps).started) == 1


def test_idempotency_failed_start_deletes_the_record_so_the_redelivery_starts_it(deps: Dependencies) -> None:
    runner(deps).fail_next = True
    with pytest.raises(RuntimeError, match="throttled"):
        deliver(deps)

    assert deliver(deps)["status"] == "started"
    assert len(runner(deps).started) == 1


# --------------------------------------------------------------------------- the layer's own contract


def record(status: str, *, expires_in: int = 3600, in_progress_ms: int | None = None) -> DataRecord:
    now = time.time()
    return DataRecord(idempotency_key="contract#key", status=status, expiry_timestamp=int(now + expires_in),
                      in_progress_expiry_timestamp=None if in_progress_ms is None else int(now * 1000 + in_progress_ms))


def test_idempotency_layer_put_over_a_live_record_fails_with_that_record(idempotency: BasePersistenceLayer) -> None:
    idempotency._put_record(record("INPROGRESS", in_progress_ms=30_000))

    with pytest.raises(IdempotencyItemAlreadyExistsError) as raised:
        idempotency._put_record(record("INPROGRESS", in_progress_ms=30_000))

    assert raised.value.old_data_record is not None and raised.value.old_data_record.status == "INPROGRESS"


@pytest.mark.parametrize("stale", [record("COMPLETED", expires_in=-5), record("INPROGRESS", in_progress_ms=-5)],
                         ids=["expired", "in-progress-timed-out"])
def test_idempotency_layer_put_replaces_a_stale_record(idempotency: BasePersistenceLayer, stale: DataRecord) -> None:
    idempotency._put_record(stale)

    idempotency._put_record(record("INPROGRESS", in_progress_ms=30_000))

    assert idempotency._get_record("contract#key").status == "INPROGRESS"


def test_idempotency_layer_update_then_get_returns_the_completed_reply_and_delete_forgets_it(
        idempotency: BasePersistenceLayer) -> None:
    idempotency._put_record(record("INPROGRESS", in_progress_ms=30_000))
    completed = record("COMPLETED")
    completed.response_data = '{"status": "started"}'

    idempotency._update_record(completed)
    stored = idempotency._get_record("contract#key")
    idempotency._delete_record(completed)

    assert (stored.status, stored.response_json_as_dict()) == ("COMPLETED", {"status": "started"})
    with pytest.raises(IdempotencyItemNotFoundError):
        idempotency._get_record("contract#key")


def test_idempotency_record_names_the_object_by_a_hash_not_its_file_name(
        deps: Dependencies, idempotency: BasePersistenceLayer, tmp_path: Path, boto_session: boto3.Session) -> None:
    phi_key = "incoming/Zebulon_Quartermaine_MRN_84736251.md"
    deps.blobs.put(phi_key, b"# Guide\n\nText.")

    reply = deliver(deps, object_created(key=phi_key))
    replayed = deliver(deps, object_created(key=phi_key))

    assert reply["status"] == "started" and replayed["execution"] == reply["execution"]
    if isinstance(idempotency, DynamoDBPersistenceLayer):
        stored = str(boto_session.client("dynamodb").scan(TableName=IDEMPOTENCY_TABLE)["Items"])
    else:
        with sqlite3.connect(tmp_path / "idempotency.sqlite3") as database:
            stored = str(database.execute("SELECT * FROM idempotency_records").fetchall())
    assert "Quartermaine" not in stored and "84736251" not in stored and reply["execution"] in stored
