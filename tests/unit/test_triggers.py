"""S3 -> EventBridge -> ingest_trigger: which uploads start ingestion, with what metadata, and where the records
that make it once per object version live (the idempotency behaviour itself: tests/contract)."""

from __future__ import annotations

from typing import Any

import pytest

from voiceassist.composition import Dependencies
from voiceassist.errors import InvalidInput
from voiceassist.ingest import triggers
from voiceassist.models import DocumentStatus


class RecordingRunner:
    def __init__(self, fail: bool = False) -> None:
        self.started: list[dict[str, Any]] = []
        self.fail = fail

    def start(self, pipeline: str, payload: dict[str, Any], *, name: str | None = None) -> str:
        if self.fail:
            raise RuntimeError("Step Functions throttled")
        self.started.append(payload)
        return f"exec-{len(self.started)}"

    def run(self, pipeline: str, payload: dict[str, Any]) -> dict[str, Any]:
        raise AssertionError("not used")


def event(key: str, etag: str = "abc") -> dict[str, Any]:
    return triggers.object_created_event("docs", key, etag)


@pytest.fixture
def deps(local_deps: Dependencies) -> Dependencies:
    local_deps.pipelines = RecordingRunner()  # type: ignore[misc]
    local_deps.blobs.put("incoming/guide.md", b"# Guide\n\nText.", metadata={"title": "Stroke%20guide",
                                                                              "source_type": "guideline"})
    return local_deps


def test_trigger_starts_once_for_replayed_events(deps: Dependencies) -> None:
    first = triggers.handle_object_created(deps, event("incoming/guide.md"))
    again = triggers.handle_object_created(deps, event("incoming/guide.md"))
    assert first["status"] == "started" and again["status"] == "duplicate"
    assert len(deps.pipelines.started) == 1  # type: ignore[attr-defined]
    payload = deps.pipelines.started[0]  # type: ignore[attr-defined]
    metadata = deps.documents.get(payload["doc_id"]).metadata
    assert metadata.title == "Stroke guide" and metadata.source_type == "guideline"
    assert deps.jobs.get(payload["job_id"]).doc_id == payload["doc_id"]


def test_trigger_new_etag_is_new_work(deps: Dependencies) -> None:
    triggers.handle_object_created(deps, event("incoming/guide.md", "v1"))
    deps.blobs.put("incoming/guide.md", b"# Guide\n\nNew text.")
    triggers.handle_object_created(deps, event("incoming/guide.md", "v2"))
    assert len(deps.pipelines.started) == 2  # type: ignore[attr-defined]


def test_trigger_execution_input_names_no_key_file_name_or_metadata(deps: Dependencies) -> None:
    """A Standard workflow keeps every execution's input in its history for 90 days (decision 0028)."""
    key = "incoming/Zebulon_Quartermaine_MRN84736251_discharge.md"
    deps.blobs.put(key, b"# Discharge\n\nText.", metadata={"title": "Letter%20about%20Zebulon%20Quartermaine"})
    reply = triggers.handle_object_created(deps, event(key))
    payload = deps.pipelines.started[0]  # type: ignore[attr-defined]
    assert set(payload) == {"job_id", "doc_id"}
    written = str(payload) + str(reply)
    assert not any(value in written for value in ("Zebulon", "Quartermaine", "84736251", "discharge"))
    assert deps.documents.get(payload["doc_id"]).blob_key == key  # the registered version reads the upload


def test_trigger_same_content_already_live_starts_nothing(deps: Dependencies) -> None:
    first = triggers.handle_object_created(deps, event("incoming/guide.md", "v1"))
    document = deps.documents.get(first["doc_id"])
    deps.documents.put(document.model_copy(update={"status": DocumentStatus.ACTIVE}))
    deps.blobs.put("incoming/guide.md", b"# Guide\n\nText.", metadata={"title": "Stroke%20guide"})
    again = triggers.handle_object_created(deps, event("incoming/guide.md", "v1-again"))
    assert again["status"] == "unchanged" and again["execution"] is None
    assert len(deps.pipelines.started) == 1  # type: ignore[attr-defined]


def test_trigger_new_version_without_metadata_inherits_the_active_versions(deps: Dependencies) -> None:
    """An S3 drop of a new version (no x-amz-meta, no sidecar) keeps the live version's source type, as an API or
    CLI upload does (one domain function, registration.register)."""
    first = triggers.handle_object_created(deps, event("incoming/guide.md", "v1"))
    live = deps.documents.get(first["doc_id"])
    deps.documents.put(live.model_copy(update={"status": DocumentStatus.ACTIVE, "metadata_screened": True}))
    deps.blobs.put("incoming/guide.md", b"# Guide\n\nNew text.")  # S3 replaces the object and its metadata

    second = triggers.handle_object_created(deps, event("incoming/guide.md", "v2"))

    document = deps.documents.get(second["doc_id"])
    assert document.version == 2 and document.metadata.source_type == "guideline"
    assert document.metadata.title == "Guide"  # the new file's own heading states its title
    assert deps.jobs.get(second["job_id"]).metadata_inherited == ["source_type"]


def test_trigger_empty_upload_is_refused_without_a_retry(deps: Dependencies) -> None:
    deps.blobs.put("incoming/empty.pdf", b"")
    reply = triggers.handle_object_created(deps, event("incoming/empty.pdf"))
    assert reply["status"] == "refused" and "empty" in reply["reason"] and "empty.pdf" not in str(reply)
    assert deps.pipelines.started == []  # type: ignore[attr-defined]


def test_trigger_upload_named_only_by_an_extension_fails_with_the_rule_and_registers_nothing(
        deps: Dependencies) -> None:
    """As a bad sidecar does: the error names the rule (the local watcher reports it as `failed`, once)."""
    deps.blobs.put("incoming/.md", b"# Gout\n\nColchicine.")
    with pytest.raises(InvalidInput, match="needs a name before its extension"):
        triggers.handle_object_created(deps, event("incoming/.md"))
    assert deps.pipelines.started == [] and deps.jobs.list() == []  # type: ignore[attr-defined]


def test_trigger_sidecar_metadata_wins_and_is_not_ingested_itself(deps: Dependencies) -> None:
    deps.blobs.put("incoming/guide.md.meta.json", b'{"doc_key": "stroke-2026", "specialty": "neurology"}')
    assert triggers.handle_object_created(deps, event("incoming/guide.md.meta.json"))["status"] == "ignored"
    triggers.handle_object_created(deps, event("incoming/guide.md"))
    metadata = deps.documents.get(deps.pipelines.started[0]["doc_id"]).metadata  # type: ignore[attr-defined]
    assert metadata.doc_key == "stroke-2026" and metadata.specialty == "neurology"


def test_trigger_ignores_api_uploads_and_artifacts(deps: Dependencies) -> None:
    for key in ("documents/abc/guide.pdf", "artifacts/doc_1/chunks.jsonl"):
        assert triggers.handle_object_created(deps, event(key))["status"] == "ignored"
    assert deps.pipelines.started == []  # type: ignore[attr-defined]


def test_trigger_failed_start_can_be_retried(deps: Dependencies) -> None:
    deps.pipelines.fail = True  # type: ignore[attr-defined]
    with pytest.raises(RuntimeError):
        triggers.handle_object_created(deps, event("incoming/guide.md"))
    deps.pipelines.fail = False  # type: ignore[attr-defined]
    assert triggers.handle_object_created(deps, event("incoming/guide.md"))["status"] == "started"


def test_trigger_rejects_a_malformed_event(deps: Dependencies) -> None:
    from voiceassist.errors import InvalidInput

    with pytest.raises(InvalidInput, match="Object Created"):
        triggers.handle_object_created(deps, {"detail": {}})


def test_trigger_idempotency_records_live_in_sqlite_locally(local_deps: Dependencies) -> None:
    from voiceassist.adapters.local.sqlite_idempotency import SqlitePersistenceLayer

    assert isinstance(local_deps.idempotency, SqlitePersistenceLayer)


def test_trigger_idempotency_records_live_in_the_configured_table_on_aws() -> None:
    from aws_lambda_powertools.utilities.idempotency import DynamoDBPersistenceLayer

    from voiceassist.settings import Runtime, Settings

    layer = Dependencies(Settings(runtime=Runtime.AWS, idempotency_table="voiceassist-dev-idempotency")).idempotency

    assert isinstance(layer, DynamoDBPersistenceLayer) and layer.table_name == "voiceassist-dev-idempotency"
    assert (layer.key_attr, layer.expiry_attr) == ("id", "expiration")  # the schema infra creates


def test_trigger_idempotency_without_a_table_on_aws_names_the_missing_variable() -> None:
    from voiceassist.errors import InvalidInput
    from voiceassist.settings import ENV_IDEMPOTENCY_TABLE, Runtime, Settings

    with pytest.raises(InvalidInput, match=ENV_IDEMPOTENCY_TABLE):
        Dependencies(Settings(runtime=Runtime.AWS)).idempotency  # noqa: B018 - building it is the point
