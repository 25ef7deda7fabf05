"""`voiceassist audit verify` on the local store: a chain of real API actions verifies; an edited, removed or
forged record is reported at the first break, and the command exits 1."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from voiceassist_local.cli import main
from voiceassist_local.handlers import invoke
from voiceassist_local.server import to_api_gateway_event

from voiceassist.composition import Dependencies

TEXT = json.dumps({"filename": "note.md", "text": "# Zorbafen\nZorbafen is dosed 37 mg twice daily."}).encode()


@pytest.fixture
def audited(local_deps: Dependencies, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Four audit records from the API (two refusals, an upload, a delete) in the local store."""
    monkeypatch.setenv("VOICEASSIST_DATA_DIR", str(local_deps.settings.data_dir))

    def call(method: str, path: str, body: bytes = b"", groups: str = "admin") -> dict[str, object]:
        headers = {"content-type": "application/json"} if body else {}
        reply = invoke("api", to_api_gateway_event(method, path, headers, body, groups=groups))
        return json.loads(reply["body"])

    call("POST", "/v1/documents", TEXT, groups="clinician")
    accepted = call("POST", "/v1/documents", TEXT)
    call("GET", "/v1/jobs", groups="clinician")
    call("DELETE", f"/v1/documents/{accepted['doc_id']}")
    return local_deps.settings.db_path


def verify_report(capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, object]]:
    code = main(["audit", "verify", "--json"])
    return code, json.loads(capsys.readouterr().out)


def tamper(db: Path, sql: str, *parameters: object) -> None:
    connection = sqlite3.connect(db)
    connection.execute("DROP TRIGGER IF EXISTS audit_no_update")
    connection.execute("DROP TRIGGER IF EXISTS audit_no_delete")
    connection.execute(sql, parameters)
    connection.commit()
    connection.close()


def test_the_chain_of_real_actions_verifies(audited: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, report = verify_report(capsys)
    assert code == 0 and report["ok"] is True and report["records"] == 4


def test_the_log_refuses_updates_and_deletes(audited: Path) -> None:
    connection = sqlite3.connect(audited)
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        connection.execute("UPDATE audit SET user_id = 'someone-else'")
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        connection.execute("DELETE FROM audit")
    connection.close()


def test_an_edited_record_is_the_first_break(audited: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tamper(audited, "UPDATE audit SET body = replace(body, '\"outcome\":\"denied\"', '\"outcome\":\"accepted\"') "
                    "WHERE body LIKE '%\"sequence\":1,%'")
    code, report = verify_report(capsys)
    assert code == 1
    [found] = report["breaks"]  # type: ignore[misc]
    assert found["sequence"] == 1 and "altered" in found["problem"]


def test_a_removed_record_and_a_removed_last_record_are_found(audited: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    tamper(audited, "DELETE FROM audit WHERE body LIKE '%\"sequence\":4,%'")
    code, report = verify_report(capsys)
    assert code == 1 and "removed" in report["breaks"][0]["problem"]  # type: ignore[index]
    tamper(audited, "DELETE FROM audit WHERE body LIKE '%\"sequence\":2,%'")
    code, report = verify_report(capsys)
    assert code == 1 and report["breaks"][0]["sequence"] == 3  # type: ignore[index]


def test_the_plain_report_names_the_break(audited: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tamper(audited, "UPDATE audit SET body = replace(body, 'document.delete', 'document.upload')")
    assert main(["audit", "verify"]) == 1
    assert "BROKEN  partition local-user, sequence 4" in capsys.readouterr().out
