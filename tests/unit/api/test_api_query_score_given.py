"""POST /v1/query with a score the clinician gives (issue 27, session 14): read as given, never recomputed in its
place, and findings in the same question that score otherwise are stated first (events only)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from voiceassist_local.handlers import invoke
from voiceassist_local.server import to_api_gateway_event


@pytest.fixture(autouse=True)
def _stack(local_deps):  # type: ignore[no-untyped-def]
    return local_deps


def ask(query: str) -> tuple[int, Any]:
    event = to_api_gateway_event("POST", "/v1/query", {"content-type": "application/json"},
                                 json.dumps({"query": query}).encode())
    reply = invoke("api", event)
    return reply["statusCode"], json.loads(reply["body"])


def test_a_score_given_with_findings_that_score_otherwise_is_answered_with_the_disagreement_first() -> None:
    status, body = ask("52 year old man, not confused, urea 5 mmol/L, RR 20, BP 125/80. I calculated CURB-65 as 3: "
                       "where should he be managed?")

    assert status == 200  # searched (this test's knowledge base is empty: the reply says it found nothing)
    assert body["metadata"]["answer_status"] != "tool_result"  # the score given is not replaced by a computed one
    assert body["answer"].startswith("You gave CURB-65 as 3, but the findings in the question score 0 points")
    assert any(w.startswith("You gave CURB-65 as 3") for w in body["metadata"]["warnings"])


def test_a_score_given_with_findings_that_agree_is_not_recomputed() -> None:
    status, body = ask("Sir, 70 years old patient with new confusion, urea 9, resp rate 24, BP 110/70. I calculated "
                       "CURB-65 as 3. What does this score mean for where he should be managed?")

    assert status == 200  # searched (this test's knowledge base is empty: the reply says it found nothing)
    assert body["metadata"]["answer_status"] != "tool_result"
    assert not any(text in body["answer"] for text in ("You gave", "CURB-65: ", "To calculate CURB-65"))
