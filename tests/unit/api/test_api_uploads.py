"""Presigned uploads (POST /v1/documents/uploads) against S3 in moto's server: the form puts the file under
incoming/ with its metadata, which the upload trigger reads back; the direct route refuses what API Gateway
and Lambda cannot carry with a 413 that names the presigned route."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
import requests
from voiceassist_local.handlers import invoke
from voiceassist_local.server import to_api_gateway_event

from voiceassist.adapters.aws.s3_blobs import S3BlobStore
from voiceassist.adapters.aws.s3_upload_signer import S3UploadSigner
from voiceassist.ingest.triggers import metadata_for_object
from voiceassist.ingest.uploads import DIRECT_UPLOAD_LIMIT_BYTES

BUCKET = "uploads-documents"


@pytest.fixture(scope="module")
def s3_endpoint() -> Iterator[str]:
    from moto.server import ThreadedMotoServer

    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    endpoint = f"http://{host}:{port}"
    _client(endpoint).create_bucket(Bucket=BUCKET)
    yield endpoint
    server.stop()


def _client(endpoint: str) -> Any:
    return boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1",
                        aws_access_key_id="testing", aws_secret_access_key="testing")


@pytest.fixture
def signed_deps(local_deps, s3_endpoint: str):  # type: ignore[no-untyped-def]
    local_deps.upload_signer = S3UploadSigner(BUCKET, client=_client(s3_endpoint))
    return local_deps


def call(method: str, path: str, body: bytes, content_type: str = "application/json",
         groups: str = "admin") -> tuple[int, Any]:
    event = to_api_gateway_event(method, path, {"content-type": content_type}, body)
    event["requestContext"]["authorizer"] = {"claims": {"sub": "admin-7", "cognito:groups": groups}}
    reply = invoke("api", event)
    return reply["statusCode"], json.loads(reply["body"])


def test_presigned_form_lands_the_file_under_incoming_with_its_metadata(signed_deps, s3_endpoint: str) -> None:  # type: ignore[no-untyped-def]
    # Given a presigned form for a guideline with its metadata
    request = {"filename": "sepsis guideline.pdf", "content_type": "application/pdf",
               "metadata": {"title": "Sepsis bundle", "specialty": "critical care", "year": 2024}}
    status, form = call("POST", "/v1/documents/uploads", json.dumps(request).encode())
    assert status == 201, form
    # (the key names no file: the name, which may hold PHI, travels as user metadata and is screened later)
    assert form["key"].startswith("incoming/") and form["key"].endswith("/document.pdf")
    assert form["fields"]["x-amz-meta-filename"] == "sepsis guideline.pdf"
    assert form["max_bytes"] == signed_deps.max_upload_bytes

    # When the client POSTs the form with the file, as a browser would
    pdf = b"%PDF-1.7\n" + b"0" * 2048
    posted = requests.post(form["url"], data=form["fields"], files={"file": ("guide.pdf", pdf)}, timeout=10)

    # Then the object is in S3 under incoming/, and the trigger reads its metadata back
    assert posted.status_code in (200, 201, 204), posted.text
    blobs = S3BlobStore(BUCKET, client=_client(s3_endpoint))
    assert blobs.get(form["key"]) == pdf
    signed_deps.blobs = blobs
    metadata = metadata_for_object(signed_deps, form["key"])
    assert (metadata.title, metadata.specialty, metadata.year) == ("Sepsis bundle", "critical care", 2024)
    assert metadata.doc_key == "sepsis guideline"  # from the file name the form carried as user metadata
    assert blobs.head(form["key"])["uploaded-by"] == "admin-7"


def test_the_policy_enforces_the_size_and_key(signed_deps) -> None:  # type: ignore[no-untyped-def]
    status, form = call("POST", "/v1/documents/uploads", json.dumps({"filename": "notes.txt"}).encode())
    assert status == 201
    policy = json.loads(__import__("base64").b64decode(form["fields"]["policy"]))
    assert ["content-length-range", 1, signed_deps.max_upload_bytes] in policy["conditions"]
    assert {"key": form["key"]} in policy["conditions"]


@pytest.mark.parametrize(("request_body", "fragment"), [
    ({"filename": "../etc/passwd"}, "filename"),
    ({"filename": "a.pdf", "metadata": {"patient": "x"}}, "unknown metadata"),
    ({"filename": "a.pdf", "metadata": {"title": "Prise en charge précoce"}}, "printable ASCII"),
])
def test_bad_upload_requests_are_a_400(signed_deps, request_body: dict[str, Any], fragment: str) -> None:  # type: ignore[no-untyped-def]
    status, body = call("POST", "/v1/documents/uploads", json.dumps(request_body).encode())
    assert status == 400 and fragment in body["error"]["message"]


def test_a_direct_upload_too_large_for_api_gateway_is_a_413_naming_the_presigned_route(signed_deps) -> None:  # type: ignore[no-untyped-def]
    text = b"metformin " * (DIRECT_UPLOAD_LIMIT_BYTES // 10 + 1)
    status, body = call("POST", "/v1/documents?filename=big.txt", text, "text/plain")
    assert status == 413 and "POST /v1/documents/uploads" in body["error"]["message"]


def test_locally_the_presigned_route_says_to_upload_directly(local_deps) -> None:  # type: ignore[no-untyped-def]
    status, body = call("POST", "/v1/documents/uploads", json.dumps({"filename": "a.pdf"}).encode())
    assert status == 400 and "POST /v1/documents" in body["error"]["message"]


def test_a_clinician_gets_no_upload_form(signed_deps) -> None:  # type: ignore[no-untyped-def]
    request = {"filename": "guide.pdf", "content_type": "application/pdf"}
    status, body = call("POST", "/v1/documents/uploads", json.dumps(request).encode(), groups="clinician")
    assert status == 403 and body["error"]["code"] == "forbidden"
