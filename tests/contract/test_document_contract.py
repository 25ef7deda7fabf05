"""DocumentStore contract: the same calls give the same results on SQLite and on DynamoDB."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

import pytest

from voiceassist.errors import Conflict, InvalidInput, NotFound
from voiceassist.models import DocumentMetadata, DocumentStatus, KnowledgeDocument, SourceType

if TYPE_CHECKING:
    from tests.contract.conftest import Stores

T0 = datetime(2025, 3, 1, 9, 0, tzinfo=UTC)


def make_document(doc_key: str, version: int, *, status: DocumentStatus = DocumentStatus.ACTIVE,
                  at: datetime = T0, title: str = "Sepsis guideline") -> KnowledgeDocument:
    return KnowledgeDocument(
        doc_id=f"{doc_key}-v{version}",
        doc_key=doc_key,
        version=version,
        content_hash=f"sha256-{doc_key}-{version}",
        content_type="application/pdf",
        blob_key=f"documents/{doc_key}/v{version}.pdf",
        metadata=DocumentMetadata(doc_key=doc_key, title=title, source_type=SourceType.GUIDELINE,
                                  authors=["A. Ärztin", "B. 医者"], year=2024),
        status=status,
        created_at=at,
        updated_at=at,
    )


def test_documents_get_missing_raises_not_found(stores: Stores) -> None:
    with pytest.raises(NotFound):
        stores.documents.get("doc-missing")


def test_documents_put_then_get_returns_the_same_document_with_unicode(stores: Stores) -> None:
    document = make_document("sepsis", 1, title="Sepsis — Leitlinie für Ärzte 敗血症 🩺")

    stores.documents.put(document)

    assert stores.documents.get("sepsis-v1") == document


def test_documents_put_replaces_the_stored_version(stores: Stores) -> None:
    stores.documents.put(make_document("sepsis", 1, status=DocumentStatus.PENDING))

    stores.documents.put(make_document("sepsis", 1, status=DocumentStatus.ACTIVE).model_copy(
        update={"chunk_count": 42}))

    stored = stores.documents.get("sepsis-v1")
    assert (stored.status, stored.chunk_count) == (DocumentStatus.ACTIVE, 42)


def test_documents_versions_are_every_version_of_the_key_oldest_first(stores: Stores) -> None:
    for version in (3, 1, 2):
        stores.documents.put(make_document("sepsis", version))
    stores.documents.put(make_document("asthma", 1))

    assert [d.version for d in stores.documents.versions("sepsis")] == [1, 2, 3]
    assert stores.documents.versions("unknown") == []


def test_documents_versions_order_numerically_past_nine(stores: Stores) -> None:
    for version in (10, 9, 2):
        stores.documents.put(make_document("sepsis", version))

    assert [d.version for d in stores.documents.versions("sepsis")] == [2, 9, 10]


def test_documents_list_by_status_filters_and_is_newest_first(stores: Stores) -> None:
    stores.documents.put(make_document("a", 1, status=DocumentStatus.ACTIVE, at=T0))
    stores.documents.put(make_document("b", 1, status=DocumentStatus.FAILED, at=T0 + timedelta(minutes=1)))
    stores.documents.put(make_document("c", 1, status=DocumentStatus.ACTIVE, at=T0 + timedelta(minutes=2)))

    assert [d.doc_id for d in stores.documents.list(status=DocumentStatus.ACTIVE)] == ["c-v1", "a-v1"]
    assert [d.doc_id for d in stores.documents.list(status=DocumentStatus.FAILED)] == ["b-v1"]
    assert stores.documents.list(status=DocumentStatus.DELETED) == []


def test_documents_list_without_status_merges_every_status_newest_first(stores: Stores) -> None:
    statuses = [DocumentStatus.SUPERSEDED, DocumentStatus.ACTIVE, DocumentStatus.PENDING,
                DocumentStatus.FAILED]
    for minute, status in enumerate(statuses):
        at = T0 + timedelta(minutes=minute)
        stores.documents.put(make_document(f"doc{minute}", 1, status=status, at=at))

    assert [d.doc_id for d in stores.documents.list()] == ["doc3-v1", "doc2-v1", "doc1-v1", "doc0-v1"]
    assert [d.doc_id for d in stores.documents.list(limit=2)] == ["doc3-v1", "doc2-v1"]


def test_documents_list_orders_sub_second_updates_by_time(stores: Stores) -> None:
    stores.documents.put(make_document("whole", 1, at=T0))
    stores.documents.put(make_document("later", 1, at=T0 + timedelta(microseconds=250_000)))

    assert [d.doc_id for d in stores.documents.list()] == ["later-v1", "whole-v1"]
    assert [d.doc_id for d in stores.documents.list(status=DocumentStatus.ACTIVE, limit=1)] == ["later-v1"]


def test_documents_list_rejects_a_limit_below_one(stores: Stores) -> None:
    with pytest.raises(InvalidInput):
        stores.documents.list(status=DocumentStatus.ACTIVE, limit=0)


def test_documents_delete_removes_only_that_version(stores: Stores) -> None:
    stores.documents.put(make_document("sepsis", 1))
    stores.documents.put(make_document("sepsis", 2))

    stores.documents.delete("sepsis-v1")

    with pytest.raises(NotFound):
        stores.documents.get("sepsis-v1")
    assert [d.version for d in stores.documents.versions("sepsis")] == [2]


def test_documents_delete_of_a_missing_document_is_a_no_op(stores: Stores) -> None:
    stores.documents.delete("doc-missing")

    assert stores.documents.list() == []


def test_documents_conditional_put_refuses_a_version_whose_status_moved(stores: Stores) -> None:
    stores.documents.put(make_document("sepsis", 1, status=DocumentStatus.PENDING))
    stores.documents.put(make_document("sepsis", 1, status=DocumentStatus.DELETED))  # a delete won the race

    with pytest.raises(Conflict):
        stores.documents.put(make_document("sepsis", 1, status=DocumentStatus.ACTIVE),
                             expected_status=DocumentStatus.PENDING)

    assert stores.documents.get("sepsis-v1").status is DocumentStatus.DELETED


def test_documents_conditional_put_writes_when_the_status_is_still_expected(stores: Stores) -> None:
    stores.documents.put(make_document("sepsis", 1, status=DocumentStatus.PENDING))

    stores.documents.put(make_document("sepsis", 1, status=DocumentStatus.ACTIVE),
                         expected_status=DocumentStatus.PENDING)

    assert stores.documents.get("sepsis-v1").status is DocumentStatus.ACTIVE
    with pytest.raises(Conflict):
        stores.documents.put(make_document("other", 1), expected_status=DocumentStatus.PENDING)
