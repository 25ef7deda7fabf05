"""Documents: upload (raw bytes or a JSON envelope), list, get, delete."""

from __future__ import annotations

import base64
import binascii
import hashlib
import unicodedata
from typing import Annotated, Any

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.api_gateway import Router
from aws_lambda_powertools.event_handler.openapi.params import Query
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from routes import input_policy
from routes.identity import admin, audit_accepted
from voiceassist import service
from voiceassist.composition import dependencies
from voiceassist.errors import InvalidInput, PayloadTooLarge
from voiceassist.ingest import stages as ingestion
from voiceassist.ingest.uploads import DIRECT_UPLOAD_LIMIT_BYTES, UPLOAD_ROUTE
from voiceassist.models import DocumentMetadata, DocumentStatus, KnowledgeDocument

router = Router()

METADATA_FIELDS = ("doc_key", "title", "source_type", "specialty", "authors", "year", "doi", "pmid", "url")


class UploadAccepted(BaseModel):
    doc_id: str
    doc_key: str
    version: int
    job_id: str
    job_state: str
    unchanged: bool
    # metadata fields the upload did not state, taken from the doc_key's active version (docs/api.md)
    metadata_inherited: list[str]
    links: dict[str, str]


class DocumentList(BaseModel):
    documents: list[KnowledgeDocument]


class UploadEnvelope(BaseModel):
    """The JSON form of an upload (the raw form sends the file's bytes with ?filename=...)."""

    model_config = ConfigDict(extra="forbid")

    filename: str = Field(min_length=1, max_length=255)
    content_base64: str | None = None
    text: str | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)


ENVELOPE_SHAPE = '{"filename": ..., "content_base64" or "text": ..., "metadata": {}}'


def _envelope(text: str) -> UploadEnvelope:
    try:
        return UploadEnvelope.model_validate(input_policy.parse_json_object(text, shape=ENVELOPE_SHAPE))
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'body'}: {e['msg']}" for e in exc.errors())
        raise InvalidInput(f"invalid upload envelope ({problems}); send {ENVELOPE_SHAPE}") from exc


RAW_SUFFIXES = {"application/pdf": ".pdf", "text/plain": ".txt", "text/markdown": ".md", "text/html": ".html"}


def _name_for(content_type: str, data: bytes) -> str:
    """A raw upload without ?filename= is named by its content (so each is its own document) and its type."""
    suffix = RAW_SUFFIXES.get(content_type, "")
    return f"upload-{hashlib.sha256(data).hexdigest()[:12]}{suffix}" if suffix and data else ""


def _upload_from_event() -> tuple[str, bytes, dict[str, Any]]:
    event = router.current_event
    params = event.query_string_parameters or {}
    content_type = input_policy.content_type_of(event.headers)
    raw = event.body or ""
    if content_type.startswith("application/json"):
        envelope = _envelope(input_policy.decoded_body(raw, event.is_base64_encoded))
        filename = envelope.filename
        if envelope.content_base64 is not None and envelope.text is not None:  # neither wins silently
            raise InvalidInput('the JSON envelope has both "content_base64" and "text": send one of them, '
                               '"content_base64" for any file or "text" for plain text or Markdown')
        if envelope.content_base64 is not None:
            try:
                data = base64.b64decode(envelope.content_base64, validate=True)
            except binascii.Error as exc:
                raise InvalidInput("content_base64 is not valid base64") from exc
        elif envelope.text is not None:
            data = envelope.text.encode("utf-8")
        else:
            raise InvalidInput('the JSON envelope needs "content_base64" (any file) or "text" (plain text or Markdown)')
        metadata = dict(envelope.metadata)
    else:
        data = base64.b64decode(raw) if event.is_base64_encoded else raw.encode("utf-8")
        filename = params.get("filename") or _name_for(content_type, data)
        metadata = {k: params[k] for k in METADATA_FIELDS if k in params}
    if not filename:
        raise InvalidInput("name the file: ?filename=guide.pdf (raw upload) or \"filename\" in the JSON envelope")
    hidden = next((c for c in filename if unicodedata.category(c) in ("Cc", "Cf")), None)
    if hidden is not None:  # a NUL, a newline or a right-to-left override would live on in the document's key
        raise InvalidInput(f"the file name holds a control or formatting character (U+{ord(hidden):04X}): rename "
                           "the file with visible characters only")
    return filename, data, metadata


@router.post("/documents", summary="Upload a document (PDF, text, Markdown, HTML) and start its ingestion",
             responses={202: {"description": "Accepted: ingestion started (or unchanged)"}})
def upload_document() -> Response[UploadAccepted]:
    who = admin(router, "document.upload")
    filename, data, values = _upload_from_event()
    deps = dependencies()
    if deps.upload_signer is not None and len(data) > DIRECT_UPLOAD_LIMIT_BYTES:
        raise PayloadTooLarge(f"{filename} is {len(data)} bytes; this route takes up to {DIRECT_UPLOAD_LIMIT_BYTES} "
                              f"(API Gateway and Lambda limits): use {UPLOAD_ROUTE} for a presigned S3 upload")
    service.ensure_ingestion_capacity(deps)
    registration = service.accept_upload(deps, filename=filename, data=data,
                                         metadata=service.metadata_for(filename, values, data))
    audit_accepted(who, "document.upload", registration.document.doc_id)
    body = UploadAccepted(
        doc_id=registration.document.doc_id, doc_key=registration.document.doc_key,
        version=registration.document.version, job_id=registration.job.job_id,
        job_state=registration.job.state.value, unchanged=registration.unchanged,
        metadata_inherited=registration.job.metadata_inherited,
        links={"job": f"/v1/jobs/{registration.job.job_id}",
               "document": f"/v1/documents/{registration.document.doc_id}"},
    )
    return Response(status_code=200 if registration.unchanged else 202, body=body,
                    content_type="application/json")


@router.get("/documents", summary="List documents")
def list_documents(status: Annotated[DocumentStatus | None, Query()] = None,
                   limit: Annotated[int, Query(ge=1, le=500)] = 100) -> DocumentList:
    return DocumentList(documents=[shown(d) for d in dependencies().documents.list(status=status, limit=limit)])


@router.get("/documents/<doc_id>", summary="Get one document version")
def get_document(doc_id: str) -> KnowledgeDocument:
    return shown(dependencies().documents.get(doc_id))


def shown(document: KnowledgeDocument) -> KnowledgeDocument:
    """A document as every user may see it (the knowledge base is shared): metadata not yet screened for PHI
    (ingest/screening.py) is withheld, and a blob key whose file name held PHI shows the redacted name."""
    if document.metadata_screened is False:
        return document.model_copy(update={
            "doc_key": document.doc_id, "blob_key": "<WITHHELD>",
            "metadata": DocumentMetadata(doc_key=document.doc_id, title=UNSCREENED_TITLE,
                                         source_type=document.metadata.source_type)})
    if document.redacted_blob_key:
        return document.model_copy(update={"blob_key": document.redacted_blob_key})
    return document


UNSCREENED_TITLE = "(withheld until the PHI screen of its metadata has run)"


@router.delete("/documents/<doc_id>", summary="Delete a document version from search")
def delete_document(doc_id: str) -> KnowledgeDocument:
    who = admin(router, "document.delete", doc_id)
    deleted = ingestion.delete_document(dependencies().ingestion, doc_id)
    audit_accepted(who, "document.delete", doc_id)
    return shown(deleted)
