"""GET /v1/documents/{doc_id}/chunks/{chunk_id} (the passage behind a citation) and
GET /v1/sessions/{session_id}/messages (a session's history): events only, no sockets."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest
from voiceassist_local.handlers import invoke
from voiceassist_local.server import to_api_gateway_event

from voiceassist.composition import Dependencies
from voiceassist.models import Chunk, DocumentMetadata, Message, Session, SourceType

PASSAGE = Chunk(chunk_id="doc-metformin-v1:00001", doc_id="doc-metformin-v1", doc_key="metformin", version=1, ordinal=1,
                text="The usual maximum is 2,000 mg per day in divided doses.", token_count=12, page=3,
                section="Dosing", metadata=DocumentMetadata(doc_key="metformin", title="Metformin reference",
                                                            source_type=SourceType.DRUG_REFERENCE))


def call(method: str, path: str) -> tuple[int, Any]:
    reply = invoke("api", to_api_gateway_event(method, path, {}, b""))
    return reply["statusCode"], json.loads(reply["body"])


@pytest.fixture
def deps(local_deps: Dependencies) -> Dependencies:
    local_deps.index.index([PASSAGE], np.ones((1, local_deps.index.dimension), dtype=np.float32))  # type: ignore[attr-defined]
    return local_deps


def test_passage_returns_the_cited_chunk_with_where_it_is(deps: Dependencies) -> None:
    status, body = call("GET", "/v1/documents/doc-metformin-v1/chunks/doc-metformin-v1%3A00001")

    assert status == 200, body
    assert body["text"] == PASSAGE.text
    assert (body["title"], body["page"], body["section"], body["source_type"]) == (
        "Metformin reference", 3, "Dosing", "drug_reference")


def test_passage_of_another_document_is_not_found(deps: Dependencies) -> None:
    status, body = call("GET", "/v1/documents/doc-other/chunks/doc-metformin-v1%3A00001")

    assert status == 404 and body["error"]["code"] == "not_found"
    assert PASSAGE.text not in json.dumps(body)


def test_unknown_passage_is_not_found(deps: Dependencies) -> None:
    status, body = call("GET", "/v1/documents/doc-metformin-v1/chunks/chk-missing")

    assert status == 404 and "chk-missing" in body["error"]["message"]


def test_session_messages_are_the_callers_history_oldest_first(local_deps: Dependencies) -> None:
    session = Session(user_id="local-user", clinical_context="Adult outpatient clinic")
    local_deps.sessions.create(session)
    for role, content in (("user", "What is the dose for <PERSON>?"), ("assistant", "2,000 mg per day [1].")):
        local_deps.sessions.add_message(Message(session_id=session.session_id, role=role, content=content))

    status, body = call("GET", f"/v1/sessions/{session.session_id}/messages")

    assert status == 200, body
    assert [m["role"] for m in body["messages"]] == ["user", "assistant"]
    assert body["clinical_context"] == "Adult outpatient clinic"


def test_another_users_session_history_is_not_found(local_deps: Dependencies) -> None:
    session = Session(user_id="someone-else")
    local_deps.sessions.create(session)
    local_deps.sessions.add_message(Message(session_id=session.session_id, role="user", content="private"))

    status, body = call("GET", f"/v1/sessions/{session.session_id}/messages")

    assert status == 404 and "private" not in json.dumps(body)
