"""POST /v1/query source preferences: a wrong one is a 400 that says which sources exist (events only)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from voiceassist_local.handlers import invoke
from voiceassist_local.server import to_api_gateway_event


@pytest.fixture(autouse=True)
def _stack(local_deps):  # type: ignore[no-untyped-def]
    return local_deps


def ask(body: dict[str, Any]) -> tuple[int, Any]:
    event = to_api_gateway_event("POST", "/v1/query", {"content-type": "application/json"},
                                 json.dumps(body).encode())
    reply = invoke("api", event)
    return reply["statusCode"], json.loads(reply["body"])


def test_an_unknown_source_is_a_400_naming_the_known_sources() -> None:
    status, body = ask({"query": "metformin dose in CKD", "sources": {"prioritize": ["cochrane"]}})

    assert (status, body["error"]["code"]) == (400, "invalid_request")
    text = json.dumps(body["error"])
    assert "sources" in text and all(name in text for name in ("textbooks", "guidelines", "drug_references",
                                                                 "pubmed"))


def test_a_source_both_prioritized_and_excluded_is_a_400_that_says_to_pick_one() -> None:
    status, body = ask({"query": "metformin dose in CKD",
                        "sources": {"prioritize": ["guidelines"], "exclude": ["guidelines"]}})

    assert status == 400
    assert "guidelines cannot be both prioritized and excluded; pick one" in json.dumps(body["error"])
