"""A question as it is typed or pasted: invisible characters (a soft hyphen or a zero-width space from a PDF or a
chat) and full-width letters inside its words are read as the words they show, by the search as by the PHI
detector (phi/detection.readable_form), against the real local server."""

from __future__ import annotations

import httpx
import pytest


@pytest.mark.parametrize("typed", ["metfor\u00admin", "met\u200bformin", "metformin\u202c",
                                   "\uff4d\uff45\uff54\uff46\uff4f\uff52\uff4d\uff49\uff4e"])
def test_a_drug_name_pasted_with_invisible_or_full_width_characters_is_found(kb_server_url: str, typed: str) -> None:
    """A soft hyphen or a zero-width space pasted from a PDF or a chat, or full-width letters, inside the drug's name:
    'I found no passage' before (the search read 'metfor\u00admin' as another word)."""
    reply = httpx.post(f"{kb_server_url}/v1/query", timeout=120,
                       json={"query": f"What is the starting dose of {typed}?"}).json()
    assert [c["doc_key"] for c in reply["citations"]][:1] == ["sample-metformin"]
    assert reply["metadata"]["phi_detected"] is False


@pytest.mark.parametrize("query", ["\u200b\u200b\u200b", "\u00ad \u202c"])
def test_a_question_of_only_invisible_characters_is_refused(kb_server_url: str, query: str) -> None:
    reply = httpx.post(f"{kb_server_url}/v1/query", timeout=120, json={"query": query})
    assert reply.status_code == 400 and "only white space" in reply.json()["error"]["message"]


def test_a_number_and_its_unit_keep_their_meaning() -> None:
    from voiceassist.models import QueryRequest

    full_width = "\uff4d\uff45\uff54\uff46\uff4f\uff52\uff4d\uff49\uff4e"
    asked = QueryRequest(query=f"platelets 150\u00d710\u2079/L, dose of 1\u00bd tablets of {full_width}?").query
    assert asked == "platelets 150\u00d710\u2079/L, dose of 1\u00bd tablets of metformin?"
