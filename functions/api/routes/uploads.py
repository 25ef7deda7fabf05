"""POST /v1/documents/uploads: a presigned S3 form for a document too large for the API (up to 50 MiB)."""

from __future__ import annotations

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.api_gateway import Router
from pydantic import BaseModel, Field

from routes.identity import admin, audit_accepted
from voiceassist.composition import dependencies
from voiceassist.errors import InvalidInput
from voiceassist.ingest.uploads import presign_upload

router = Router()


class UploadRequest(BaseModel):
    filename: str = Field(min_length=1, max_length=200)
    content_type: str | None = Field(default=None, max_length=100)
    metadata: dict[str, str | int | list[str] | None] = Field(default_factory=dict)


class PresignedForm(BaseModel):
    url: str
    fields: dict[str, str]
    key: str
    max_bytes: int
    expires_in: int


@router.post("/documents/uploads", summary="Get a presigned S3 form to upload a document (up to 50 MiB)",
             responses={201: {"description": "POST the fields, then the file as `file`, to url"}})
def create_upload(request: UploadRequest) -> Response[PresignedForm]:
    who = admin(router, "document.upload_form")  # the form changes the knowledge base: admins only
    deps = dependencies()
    if deps.upload_signer is None:
        raise InvalidInput("presigned uploads need S3 (the AWS runtime); locally, POST /v1/documents takes any size")
    upload = presign_upload(deps.upload_signer, filename=request.filename, content_type=request.content_type,
                            metadata=dict(request.metadata), max_bytes=deps.max_upload_bytes,
                            user_id=who.user_id)
    audit_accepted(who, "document.upload_form", upload.key)
    body = PresignedForm(url=upload.url, fields=upload.fields, key=upload.key, max_bytes=upload.max_bytes,
                         expires_in=upload.expires_in)
    return Response(status_code=201, body=body, content_type="application/json")
