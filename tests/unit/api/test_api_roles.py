"""Roles from Cognito groups: a clinician cannot change the knowledge base or see the jobs; an admin can, and
every administrative action and every refusal leaves an audit record (events only, no sockets)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from voiceassist_local.handlers import invoke
from voiceassist_local.server import to_api_gateway_event

from voiceassist.access import Role, roles_from_groups
from voiceassist.models import AuditOutcome

TEXT = json.dumps({"filename": "note.md", "text": "# Zorbafen\nZorbafen is dosed 37 mg twice daily."}).encode()


def call(method: str, path: str, body: bytes = b"", *, groups: str) -> tuple[int, Any]:
    headers = {"content-type": "application/json"} if body else {}
    reply = invoke("api", to_api_gateway_event(method, path, headers, body, groups=groups))
    return reply["statusCode"], json.loads(reply["body"])


@pytest.fixture(autouse=True)
def _stack(local_deps):  # type: ignore[no-untyped-def]
    return local_deps


@pytest.mark.parametrize(("groups", "roles"), [
    ("admin", {Role.ADMIN}), ("admin,clinician", {Role.ADMIN, Role.CLINICIAN}),
    ("[clinician admin]", {Role.ADMIN, Role.CLINICIAN}), (["Admin"], {Role.ADMIN}),
    ("", {Role.CLINICIAN}), (None, {Role.CLINICIAN}), ("superuser", {Role.CLINICIAN}),
])
def test_roles_from_cognito_groups(groups: Any, roles: set[Role]) -> None:
    assert roles_from_groups(groups) == roles


def test_a_clinician_cannot_upload_delete_retry_or_list_jobs(local_deps) -> None:  # type: ignore[no-untyped-def]
    status, accepted = call("POST", "/v1/documents", TEXT, groups="admin")
    assert status == 202
    doc_id, job_id = accepted["doc_id"], accepted["job_id"]
    refused = [
        call("POST", "/v1/documents", TEXT, groups="clinician"),
        call("DELETE", f"/v1/documents/{doc_id}", groups="clinician"),
        call("POST", f"/v1/jobs/{job_id}/retry", groups="clinician"),
        call("GET", "/v1/jobs", groups="clinician"),
        call("GET", f"/v1/jobs/{job_id}", groups="clinician"),
    ]
    assert [status for status, _ in refused] == [403] * 5
    assert all(body["error"]["code"] == "forbidden" and "admin" in body["error"]["message"] for _, body in refused)
    assert local_deps.documents.get(doc_id).status.value != "DELETED"
    denied = [r for r in local_deps.audit.list(limit=50) if r.outcome is AuditOutcome.DENIED]
    assert sorted(r.action for r in denied) == ["document.delete", "document.upload", "job.list", "job.read",
                                               "job.retry"]
    assert all(r.user_id == "local-user" and r.roles == ["clinician"] for r in denied)


def test_a_clinician_still_reads_documents_and_asks() -> None:
    assert call("GET", "/v1/documents", groups="clinician")[0] == 200
    status, _ = call("POST", "/v1/query", json.dumps({"query": "zorbafen dose?"}).encode(), groups="clinician")
    assert status == 200


def test_admin_upload_and_delete_are_audited(local_deps) -> None:  # type: ignore[no-untyped-def]
    _, accepted = call("POST", "/v1/documents", TEXT, groups="admin,clinician")
    status, _ = call("DELETE", f"/v1/documents/{accepted['doc_id']}", groups="admin")
    assert status == 200
    accepted_actions = {(r.action, r.target) for r in local_deps.audit.list(limit=50)
                        if r.outcome is AuditOutcome.ACCEPTED}
    assert {("document.upload", accepted["doc_id"]), ("document.delete", accepted["doc_id"])} <= accepted_actions
