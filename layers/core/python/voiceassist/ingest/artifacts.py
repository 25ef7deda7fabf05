"""Artefacts the ingestion stages hand each other: inline in the execution state when small, else by blob key.

Most documents (an abstract, a guideline page) then cost no storage round trip between stages, and a
500-page book still passes Step Functions' 256 KB state limit by reference. A reference is
`{"inline": base64}` or `{"key": "artifacts/<doc_id>/<name>"}`.
"""

from __future__ import annotations

import base64

from voiceassist.errors import NotFound
from voiceassist.models import Chunk
from voiceassist.ports import BlobStore

# An inline artefact is at most this big (base64 included); the state holds two at most (Embed hands on
# chunks and vectors), far below Step Functions' 256 KB.
INLINE_ARTIFACT_BYTES = 64 * 1024
ARTIFACT_NAMES = ("extracted.json", "cleaned.json", "chunks.jsonl", "vectors.npy")

ArtifactRef = dict[str, str]  # {"inline": base64} or {"key": blob key}


def artifact_key(doc_id: str, name: str) -> str:
    return f"artifacts/{doc_id}/{name}"


def hand_off(blobs: BlobStore, doc_id: str, name: str, data: bytes, *, by_reference: bool = False
             ) -> ArtifactRef:
    """A stage's output for the next stage: inline when small, else stored under artifacts/<doc_id>/.

    Once one artefact of a document goes by reference, the later ones do too (`by_reference`), so the
    last stage knows from its own inputs whether anything was stored that it must delete.
    """
    encoded = base64.b64encode(data).decode("ascii")
    if not by_reference and len(encoded) <= INLINE_ARTIFACT_BYTES:
        return {"inline": encoded}
    key = artifact_key(doc_id, name)
    blobs.put(key, data)
    return {"key": key}


def is_stored(ref: ArtifactRef) -> bool:
    """Whether this artefact was stored (so the ones after it are stored too, and must be deleted)."""
    return "key" in ref


def received(blobs: BlobStore, ref: ArtifactRef) -> bytes:
    if "inline" in ref:
        return base64.b64decode(ref["inline"])
    return blobs.get(ref["key"])


def received_chunks(blobs: BlobStore, ref: ArtifactRef) -> list[Chunk]:
    lines = received(blobs, ref).decode("utf-8").splitlines()
    return [Chunk.model_validate_json(line) for line in lines if line.strip()]


def delete_artifacts(blobs: BlobStore, doc_id: str) -> None:
    """Delete whatever a document's stages stored; an artefact that was never stored is skipped."""
    for name in ARTIFACT_NAMES:
        try:
            blobs.delete(artifact_key(doc_id, name))
        except NotFound:
            continue
