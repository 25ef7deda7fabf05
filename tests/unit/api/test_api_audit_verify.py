"""GET /v1/admin/audit/verify: an admin checks one user's audit hash chain through the API (on AWS the CLI's
`voiceassist audit verify --aws` checks every user's: it reads the whole table). Events only, no sockets."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from voiceassist_local.handlers import invoke
from voiceassist_local.server import to_api_gateway_event

from voiceassist.composition import Dependencies


def call(path: str, *, groups: str = "admin,clinician") -> tuple[int, Any]:
    reply = invoke("api", to_api_gateway_event("GET", path, {}, b"", groups=groups))
    return reply["statusCode"], json.loads(reply["body"])


def test_audit_verify_reports_an_intact_chain_then_the_altered_record(local_deps: Dependencies) -> None:
    assert call("/v1/jobs", groups="clinician")[0] == 403  # a refusal: the local user's first audit record

    status, report = call("/v1/admin/audit/verify?user_id=local-user")
    assert status == 200
    assert (report["ok"], report["records"], report["breaks"]) == (True, 1, [])

    connection = sqlite3.connect(local_deps.settings.db_path)
    connection.execute("DROP TRIGGER IF EXISTS audit_no_update")
    connection.execute("UPDATE audit SET body = replace(body, '\"job.list\"', '\"job.read\"')")
    connection.commit()
    connection.close()

    status, report = call("/v1/admin/audit/verify?user_id=local-user")
    assert status == 200 and report["ok"] is False
    assert "altered" in report["breaks"][0]["problem"] and report["breaks"][0]["sequence"] == 1
    assert call("/v1/admin/audit/verify?user_id=nobody")[1]["ok"] is True  # another partition: nothing to break


def test_audit_verify_is_for_admins_and_needs_a_user(local_deps: Dependencies) -> None:
    assert call("/v1/admin/audit/verify?user_id=local-user", groups="clinician")[0] == 403
    assert call("/v1/admin/audit/verify")[0] == 400
