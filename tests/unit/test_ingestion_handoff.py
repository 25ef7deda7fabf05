"""How stages hand artefacts on (inline when small, by blob key when large) and how failures read."""

from __future__ import annotations

import json

import pytest

from voiceassist.composition import Dependencies
from voiceassist.ingest import artifacts
from voiceassist.ingest import stages as ingestion


def test_hand_off_keeps_a_small_artefact_inline_without_storing_it(local_deps: Dependencies) -> None:
    blobs = local_deps.blobs

    ref = artifacts.hand_off(blobs, "doc_1", "chunks.jsonl", b'{"text": "Metformin 500 mg"}')

    assert set(ref) == {"inline"}
    assert artifacts.received(blobs, ref) == b'{"text": "Metformin 500 mg"}'
    assert not blobs.exists(artifacts.artifact_key("doc_1", "chunks.jsonl"))


def test_hand_off_stores_a_large_artefact_under_the_documents_artifact_folder(local_deps: Dependencies) -> None:
    blobs = local_deps.blobs
    data = b"x" * artifacts.INLINE_ARTIFACT_BYTES  # base64 makes it a third larger than the limit

    ref = artifacts.hand_off(blobs, "doc_1", "cleaned.json", data)

    assert ref == {"key": "artifacts/doc_1/cleaned.json"}
    assert artifacts.received(blobs, ref) == data


def test_hand_off_by_reference_stores_even_a_small_artefact(local_deps: Dependencies) -> None:
    ref = artifacts.hand_off(local_deps.blobs, "doc_1", "vectors.npy", b"\x93NUMPY", by_reference=True)

    assert ref == {"key": "artifacts/doc_1/vectors.npy"}


@pytest.mark.parametrize(
    ("error", "reason"),
    [
        ({"Error": "ExtractionError",
          "Cause": json.dumps({"errorMessage": "encrypted: password-protected PDFs are not supported"})},
         "encrypted: password-protected PDFs are not supported"),
        ({"Error": "States.Timeout", "Cause": ""}, "timed out: the stage took longer than its limit; retry the job"),
        ({"Error": "RuntimeError", "Cause": json.dumps({"errorMessage": "the model crashed"})},
         "RuntimeError: the model crashed"),
        ({"Error": "Lambda.Unknown", "Cause": "The cause could not be determined"},
         "Lambda.Unknown: The cause could not be determined"),
        (None, "failed for an unknown reason"),
    ],
    ids=["extraction", "timeout", "crash", "lambda", "none"],
)
def test_failure_reason_is_the_sentence_an_operator_reads(error: dict[str, str] | None, reason: str) -> None:
    assert ingestion.failure_reason(error) == reason
