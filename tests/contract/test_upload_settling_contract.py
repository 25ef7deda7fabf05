"""PHI-free at rest after the screen, for an object uploaded straight under incoming/: on S3 and DynamoDB (moto)
and on the folder and SQLite stores, Screen Metadata moves the upload to a key without its name, and a failure at
any step (the screen, the copy, the delete, the document write) loses nothing and is settled by the retry."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.contract.conftest import BUCKET, Stores
from voiceassist.adapters.aws.s3_blobs import S3BlobStore
from voiceassist.adapters.local.folder_blobs import FolderBlobStore
from voiceassist.errors import NotFound
from voiceassist.ingest import registration, screening
from voiceassist.ingest.settling import SIDECAR_SUFFIX
from voiceassist.ingest.triggers import metadata_for_object
from voiceassist.models import PhiResult
from voiceassist.phi.detection import failed_result
from voiceassist.ports import BlobStore

RAW_KEY = "incoming/ward 7/Zebulon_Quartermaine_MRN_84736251_DOB_1961-04-17_sepsis.md"
PHI_VALUES = ("zebulon", "quartermaine", "84736251", "1961-04-17")
GUIDE = b"# Sepsis bundle\n\nMeasure the serum lactate within one hour.\n"


@dataclass
class Context:
    """The part of IngestionContext that Register and Screen Metadata use."""

    blobs: Any
    documents: Any
    jobs: Any
    job_lease_seconds: float = 900.0


class Flaky:
    """A store whose named operation fails once (S3 throttled, a lost connection), then works."""

    def __init__(self, inner: Any, operation: str) -> None:
        self.inner, self.operation, self.failed = inner, operation, False

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self.inner, name)
        if name != self.operation or self.failed:
            return attribute

        def fail(*args: Any, **kwargs: Any) -> Any:
            self.failed = True
            raise ConnectionError(f"{name} failed")

        return fail


class BrokenDetector:
    def detect(self, text: str) -> PhiResult:
        return failed_result("PHI detector timed out after 2 s")


@pytest.fixture(params=["local", "aws"])
def ctx(request: pytest.FixtureRequest, tmp_path: Path) -> Context:
    """Folder blobs + SQLite, or S3 + DynamoDB on moto; an upload with its sidecar under incoming/."""
    blobs: BlobStore = (FolderBlobStore(tmp_path / "blobs") if request.param == "local"
                        else S3BlobStore(BUCKET, client=request.getfixturevalue("s3_client")))
    stores: Stores = request.getfixturevalue(f"{'sqlite' if request.param == 'local' else 'dynamodb'}_stores")
    blobs.put(RAW_KEY, GUIDE, content_type="text/markdown", metadata={"filename": RAW_KEY.rsplit("/", 1)[1]})
    blobs.put(RAW_KEY + SIDECAR_SUFFIX, json.dumps({"specialty": "critical care"}).encode())
    return Context(blobs=blobs, documents=stores.documents, jobs=stores.jobs)


def _register(ctx: Context) -> registration.Registration:
    metadata = metadata_for_object(ctx, RAW_KEY)  # type: ignore[arg-type]
    return registration.register(ctx, blob_key=RAW_KEY, metadata=metadata,  # type: ignore[arg-type]
                                 filename=RAW_KEY.rsplit("/", 1)[1], execution_id="exec-1")


def _raw_at_rest(ctx: Context, doc_id: str, job_id: str) -> list[str]:
    """Every stored trace of the document: its record, its job, its blob key and the blob's user metadata."""
    document = ctx.documents.get(doc_id)
    stored = (document.model_dump_json() + ctx.jobs.get(job_id).model_dump_json()
              + json.dumps(ctx.blobs.head(document.blob_key))).lower()
    return [value for value in PHI_VALUES if value in stored]


def _assert_settled(ctx: Context, registered: registration.Registration) -> None:
    document = ctx.documents.get(registered.document.doc_id)
    assert document.metadata_screened is True and document.blob_key.startswith("documents/")
    assert ctx.blobs.get(document.blob_key) == GUIDE and ctx.blobs.head(document.blob_key) == {}
    assert not ctx.blobs.exists(RAW_KEY) and not ctx.blobs.exists(RAW_KEY + SIDECAR_SUFFIX)
    assert _raw_at_rest(ctx, document.doc_id, registered.job.job_id) == []


def test_settling_moves_a_phi_named_upload_to_a_key_without_its_name(ctx: Context, shared_phi_detector: Any) -> None:
    registered = _register(ctx)

    screening.screen_document(ctx, shared_phi_detector, registered.document.doc_id,  # type: ignore[arg-type]
                              registered.job.job_id)

    _assert_settled(ctx, registered)
    assert ctx.documents.get(registered.document.doc_id).metadata.specialty == "critical care"  # sidecar read


@pytest.mark.parametrize("failing", ["put", "delete"])
def test_settling_a_failed_copy_or_delete_loses_nothing_and_the_retry_settles(
        ctx: Context, shared_phi_detector: Any, failing: str) -> None:
    registered = _register(ctx)
    healthy, ctx.blobs = ctx.blobs, Flaky(ctx.blobs, failing)

    with pytest.raises(ConnectionError):
        screening.screen_document(ctx, shared_phi_detector, registered.document.doc_id,  # type: ignore[arg-type]
                                  registered.job.job_id)

    # the upload is still there and the document still points at it: nothing lost
    assert healthy.get(RAW_KEY) == GUIDE
    assert ctx.documents.get(registered.document.doc_id).blob_key == RAW_KEY
    screening.screen_document(ctx, shared_phi_detector, registered.document.doc_id,  # type: ignore[arg-type]
                              registered.job.job_id)
    _assert_settled(ctx, registered)


def test_settling_a_document_write_lost_after_the_delete_is_found_again_by_the_retry(
        ctx: Context, shared_phi_detector: Any) -> None:
    registered = _register(ctx)
    ctx.documents = Flaky(ctx.documents, "put")

    with pytest.raises(ConnectionError):
        screening.screen_document(ctx, shared_phi_detector, registered.document.doc_id,  # type: ignore[arg-type]
                                  registered.job.job_id)
    assert not ctx.blobs.exists(RAW_KEY)  # moved already: the copy is named by the document, not the upload

    screening.screen_document(ctx, shared_phi_detector, registered.document.doc_id,  # type: ignore[arg-type]
                              registered.job.job_id)
    _assert_settled(ctx, registered)


def test_settling_waits_for_a_screen_that_failed_and_keeps_the_upload(ctx: Context) -> None:
    registered = _register(ctx)

    with pytest.raises(screening.MetadataNotScreened):
        screening.screen_document(ctx, BrokenDetector(), registered.document.doc_id,  # type: ignore[arg-type]
                                  registered.job.job_id)

    assert ctx.blobs.get(RAW_KEY) == GUIDE and ctx.blobs.exists(RAW_KEY + SIDECAR_SUFFIX)
    assert ctx.documents.get(registered.document.doc_id).metadata_screened is False


def test_settling_a_repeated_upload_of_live_content_deletes_the_upload(ctx: Context, shared_phi_detector: Any) -> None:
    first = _register(ctx)
    screening.screen_document(ctx, shared_phi_detector, first.document.doc_id,  # type: ignore[arg-type]
                              first.job.job_id)
    ctx.blobs.put(RAW_KEY, GUIDE, metadata={"filename": RAW_KEY.rsplit("/", 1)[1]})  # the same bytes again

    again = registration.register(ctx, blob_key=RAW_KEY,  # type: ignore[arg-type]
                                  metadata=metadata_for_object(ctx, RAW_KEY),  # type: ignore[arg-type]
                                  filename="again.md", execution_id="exec-2")

    assert again.unchanged and not ctx.blobs.exists(RAW_KEY)
    assert ctx.blobs.get(ctx.documents.get(first.document.doc_id).blob_key) == GUIDE


def test_settling_an_upload_deleted_before_its_screen_fails_without_naming_it(ctx: Context,
                                                                              shared_phi_detector: Any) -> None:
    registered = _register(ctx)
    ctx.blobs.delete(RAW_KEY)

    with pytest.raises(NotFound) as raised:
        screening.screen_document(ctx, shared_phi_detector, registered.document.doc_id,  # type: ignore[arg-type]
                                  registered.job.job_id)
    assert not any(value in str(raised.value).lower() for value in PHI_VALUES)
