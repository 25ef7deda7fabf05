"""BlobStore contract: the same calls give the same results on a folder and on S3."""

from __future__ import annotations

from typing import Any

import pytest

from voiceassist.adapters.aws.s3_blobs import S3BlobStore
from voiceassist.errors import InvalidInput, NotFound
from voiceassist.ports import BlobStore

PDF_BYTES = b"%PDF-1.7\n\x00\xff\xfe binary \xe2\x80\x94 body\n%%EOF"
UNICODE_KEY = "leitlinien/Überblick Tuberkulose 結核.pdf"


def test_blobs_put_then_get_returns_the_same_bytes(blobs: BlobStore) -> None:
    blobs.put(UNICODE_KEY, PDF_BYTES, content_type="application/pdf")

    assert blobs.get(UNICODE_KEY) == PDF_BYTES
    assert blobs.exists(UNICODE_KEY)


def test_blobs_empty_object_round_trips(blobs: BlobStore) -> None:
    blobs.put("empty.txt", b"")

    assert blobs.get("empty.txt") == b""


def test_blobs_missing_key_is_not_found_everywhere(blobs: BlobStore) -> None:
    with pytest.raises(NotFound):
        blobs.get("documents/missing.pdf")
    with pytest.raises(NotFound):
        blobs.head("documents/missing.pdf")
    assert not blobs.exists("documents/missing.pdf")


def test_blobs_a_prefix_of_stored_keys_is_not_an_object(blobs: BlobStore) -> None:
    blobs.put("documents/a/b.pdf", PDF_BYTES)

    assert not blobs.exists("documents/a")
    with pytest.raises(NotFound):
        blobs.get("documents/a")


def test_blobs_head_returns_the_metadata_with_lower_case_names(blobs: BlobStore) -> None:
    blobs.put("documents/sepsis.pdf", PDF_BYTES, metadata={"Doc-Key": "sepsis", "version": "3"})

    assert blobs.head("documents/sepsis.pdf") == {"doc-key": "sepsis", "version": "3"}


def test_blobs_head_without_metadata_is_empty(blobs: BlobStore) -> None:
    blobs.put("documents/sepsis.pdf", PDF_BYTES)

    assert blobs.head("documents/sepsis.pdf") == {}


def test_blobs_put_replaces_the_bytes_and_the_metadata(blobs: BlobStore) -> None:
    blobs.put("documents/sepsis.pdf", b"old", metadata={"version": "1"})

    blobs.put("documents/sepsis.pdf", b"new", metadata={"reviewed": "yes"})

    assert blobs.get("documents/sepsis.pdf") == b"new"
    assert blobs.head("documents/sepsis.pdf") == {"reviewed": "yes"}


def test_blobs_delete_removes_the_object_and_is_idempotent(blobs: BlobStore) -> None:
    blobs.put("documents/sepsis.pdf", PDF_BYTES, metadata={"version": "1"})

    blobs.delete("documents/sepsis.pdf")
    blobs.delete("documents/sepsis.pdf")

    assert not blobs.exists("documents/sepsis.pdf")
    with pytest.raises(NotFound):
        blobs.head("documents/sepsis.pdf")


@pytest.mark.parametrize("key", ["../outside.pdf", "documents/../../etc/passwd", "/etc/passwd", "a//b.pdf",
                                 "documents/./a.pdf", "", "documents/", ".meta/documents/a.pdf"])
def test_blobs_reject_keys_that_are_not_plain_relative_paths(blobs: BlobStore, key: str) -> None:
    with pytest.raises(InvalidInput):
        blobs.put(key, PDF_BYTES)
    with pytest.raises(InvalidInput):
        blobs.get(key)


@pytest.mark.parametrize("metadata", [{"title": "Überblick"}, {"bad name": "x"}, {"title": "line\nbreak"},
                                      {"big": "x" * 3000}])
def test_blobs_reject_metadata_s3_cannot_carry(blobs: BlobStore, metadata: dict[str, str]) -> None:
    with pytest.raises(InvalidInput):
        blobs.put("documents/sepsis.pdf", PDF_BYTES, metadata=metadata)

    assert not blobs.exists("documents/sepsis.pdf")


def test_s3_blobs_encrypt_with_the_given_kms_key(s3_client: Any, bucket_name: str) -> None:
    blobs = S3BlobStore(bucket_name, client=s3_client, kms_key_id="alias/voiceassist-documents")

    blobs.put("documents/sepsis.pdf", PDF_BYTES, content_type="application/pdf", metadata={"version": "1"})

    head = s3_client.head_object(Bucket=bucket_name, Key="documents/sepsis.pdf")
    assert head["ServerSideEncryption"] == "aws:kms"
    assert head["SSEKMSKeyId"].endswith("alias/voiceassist-documents")
    assert head["ContentType"] == "application/pdf"
    assert blobs.get("documents/sepsis.pdf") == PDF_BYTES
