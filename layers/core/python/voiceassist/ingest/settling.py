"""A screened upload keeps no file name at rest: Screen Metadata moves it out of incoming/.

An object uploaded straight to S3 (or dropped into the local incoming folder) sits under `incoming/` with the
name it was given (`incoming/Smith_John_MRN84736251.pdf`), or under a presigned upload's name-free key carrying
its file name and metadata as x-amz-meta-* fields, with an operator's sidecar `<key>.meta.json` beside it. Once
the screen has the redacted values, the document's bytes are copied to a key named by hashes and the extension
only (`documents/<doc_id>/<content hash>/document.<ext>`, without user metadata), the upload and its sidecar are
deleted, and only then does the document point at the new key (decision 0028):

- a failed copy or delete raises before the document changes: the upload is still where it was, the job fails
  with a reason naming no key, and a retry settles it (nothing lost);
- a document write that fails after the delete leaves the document pointing at the gone upload: its retry finds
  the copy under the derived key and points there (the copy is named by the document, not by the upload);
- the same content uploaded again (an `unchanged` registration) is deleted by Register: the live version has
  its own copy.

The trigger's idempotency record and its reply carry a hash of the key (ingest/triggers.py), the job only the
screened doc_key. What stays raw: the execution's input in Step Functions' history (inside the account, 90 days)
and the bucket's noncurrent versions of the upload, which the stack expires after one day (infra storage).
"""

from __future__ import annotations

from pathlib import PurePosixPath

from voiceassist.errors import NotFound
from voiceassist.ingest.stages import INCOMING_PREFIX, UPLOAD_PREFIX, IngestionContext
from voiceassist.models import KnowledgeDocument

SIDECAR_SUFFIX = ".meta.json"  # an operator's metadata beside an object under incoming/ (ingest/triggers.py)


def settled_key(document: KnowledgeDocument, extension_of: str) -> str:
    """Where a screened upload is kept: named by the document and its content, with the extension only."""
    return f"{UPLOAD_PREFIX}{document.doc_id}/{document.content_hash[:16]}/{name_free(extension_of)}"


def settle_upload(ctx: IngestionContext, document: KnowledgeDocument) -> str:
    """The key the document keeps after its screen: its own when it names no file (an API upload), else a copy
    under settled_key, the upload and its sidecar deleted. Raises before anything is lost (see the module)."""
    source = document.blob_key
    if not source.startswith(INCOMING_PREFIX):
        return source
    target = settled_key(document, source)
    if ctx.blobs.exists(source):
        ctx.blobs.put(target, ctx.blobs.get(source), content_type=document.content_type)  # no user metadata
    elif not ctx.blobs.exists(target):
        raise NotFound("the uploaded document is no longer stored (deleted before it was screened): upload it "
                       "again")
    discard_upload(ctx, source)
    return target


def discard_upload(ctx: IngestionContext, key: str) -> None:
    """Delete an upload under incoming/ and its sidecar (deleting a missing object is no error)."""
    if key.startswith(INCOMING_PREFIX):
        ctx.blobs.delete(key + SIDECAR_SUFFIX)
        ctx.blobs.delete(key)


def name_free(filename: str) -> str:
    """What the type check may quote in a failure reason (logged, and on the job): the extension, not the name."""
    return "document" + "".join(c for c in PurePosixPath(filename).suffix.lower() if c.isalnum() or c == ".")[:10]
