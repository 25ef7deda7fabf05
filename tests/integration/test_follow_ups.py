"""Follow-up conversations resolve to the right document, with the extractive default (no language model), over
real HTTP: through a session (POST /v1/query with session_id) and through chat completions (messages[])."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

import pytest

from voiceassist.composition import dependencies
from voiceassist.conversation.orchestrator import EVIDENCE_KEY

CLARIFY = "clarify"  # the expected outcome of a turn that should get a clarifying question
# (name, [(question, the doc_key of the first citation, or CLARIFY)]): every turn of a conversation is checked.
CONVERSATIONS: list[tuple[str, list[tuple[str, str]]]] = [
    ("the alternative", [("What is the first-line treatment for early Lyme disease?", "lyme-disease"),
                         ("What is the dose of the alternative?", "amoxicillin")]),
    ("its dose", [("Which drug is first-line for early Lyme disease?", "lyme-disease"),
                  ("What is its dose?", "doxycycline")]),
    ("chained follow-ups", [("What is the first-line treatment for early Lyme disease?", "lyme-disease"),
                            ("What is the dose of the alternative?", "amoxicillin"),
                            ("And its cautions?", "amoxicillin")]),
    ("and in penicillin allergy", [
        ("Which antibiotic is the first choice for outpatient community-acquired pneumonia?", "pneumonia-outpatient"),
        ("And in penicillin allergy?", "pneumonia-outpatient")]),
    ("how long", [
        ("Which antibiotic is the first choice for outpatient community-acquired pneumonia?", "pneumonia-outpatient"),
        ("How long?", "pneumonia-outpatient")]),
    ("he", [("My patient has chronic kidney disease with an eGFR of 25.", "metformin"),
            ("Can he keep taking metformin?", "metformin")]),
    ("they", [("My patient with chronic kidney disease has an eGFR of 38 and takes metformin.", "metformin"),
              ("Should they stop it?", "metformin")]),
    ("a reply to a clarifying question", [("What is the first-line treatment for diabetes?", CLARIFY),
                                          ("type 2", "type-2-diabetes")]),
    ("the calcium channel blocker", [
        ("What is the first-line treatment for uncomplicated hypertension?", "hypertension"),
        ("What about the calcium channel blocker?", "hypertension")]),
    ("a standalone question stays itself", [
        ("What is the first-line treatment for uncomplicated hypertension?", "hypertension"),
        ("What is the usual dose of the calcium channel blocker amlodipine?", "amlodipine")]),
    ("and the side effects", [("What is the starting dose of amlodipine?", "amlodipine"),
                              ("And the side effects?", "amlodipine")]),
]

# The extractive answer to "first-line for early Lyme disease?" names only doxycycline; the alternative is in its
# cited excerpt, which a session keeps and a chat client does not send back.
NEEDS_THE_EXCERPTS = {"the alternative", "chained follow-ups"}


def post(url: str, body: dict[str, Any]) -> dict[str, Any]:
    req = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                 headers={"content-type": "application/json"})
    with urllib.request.urlopen(req, timeout=120) as reply:
        return json.loads(reply.read())  # type: ignore[no-any-return]


def get(url: str) -> tuple[int, dict[str, Any]]:
    try:
        with urllib.request.urlopen(url, timeout=30) as reply:
            return reply.status, json.loads(reply.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


def outcome(response: dict[str, Any]) -> str:
    if response.get("clarifying_question"):
        return CLARIFY
    return response["citations"][0]["doc_key"] if response["citations"] else "no citation"


def ask_in_session(url: str, turns: list[tuple[str, str]]) -> tuple[str, list[str]]:
    session = post(f"{url}/v1/sessions", {})["session_id"]
    return session, [outcome(post(f"{url}/v1/query", {"query": q, "session_id": session})) for q, _ in turns]


@pytest.mark.parametrize("name", [name for name, _ in CONVERSATIONS])
def test_a_follow_up_in_a_session_resolves_to_the_right_document(name: str, conversation_server_url: str) -> None:
    turns = dict(CONVERSATIONS)[name]
    _, got = ask_in_session(conversation_server_url, turns)
    assert got == [expected for _, expected in turns]


@pytest.mark.parametrize("name", [name for name, _ in CONVERSATIONS if name not in NEEDS_THE_EXCERPTS])
def test_a_follow_up_in_chat_messages_resolves_to_the_right_document(name: str,
                                                                   conversation_server_url: str) -> None:
    """The same conversations as an OpenAI client sends them: each turn with the answers given before it."""
    messages: list[dict[str, str]] = []
    got = []
    for question, _ in dict(CONVERSATIONS)[name]:
        messages.append({"role": "user", "content": question})
        completion = post(f"{conversation_server_url}/v1/chat/completions",
                          {"model": "voiceassist", "messages": messages})
        content = completion["choices"][0]["message"]["content"]
        citations = completion["citations"]
        got.append(citations[0]["doc_key"] if citations else CLARIFY if content.endswith("?") else "no citation")
        messages.append({"role": "assistant", "content": content})
    assert got == [expected for _, expected in dict(CONVERSATIONS)[name]]


def test_without_their_history_the_follow_ups_go_wrong(conversation_server_url: str) -> None:
    """The baseline the context pipeline fixes: the same follow-ups asked alone, each in a fresh session."""
    follow_ups = [turn for _, turns in CONVERSATIONS for turn in turns[1:]]
    alone = [outcome(post(f"{conversation_server_url}/v1/query", {"query": q})) == expected
             for q, expected in follow_ups]
    assert len(follow_ups) - sum(alone) >= 5, alone  # with their history, every one is right (the tests above)


def test_the_session_messages_show_the_history_and_the_pending_clarification(conversation_server_url: str) -> None:
    url = conversation_server_url
    session = post(f"{url}/v1/sessions", {})["session_id"]
    asked = post(f"{url}/v1/query", {"query": "What is the first-line treatment for diabetes?", "session_id": session})
    assert asked["clarifying_question"]
    status, history = get(f"{url}/v1/sessions/{session}/messages")
    assert status == 200
    assert [m["role"] for m in history["messages"]] == ["user", "assistant"]
    assert history["clarification_pending"] == "What is the first-line treatment for diabetes?"

    answered = post(f"{url}/v1/query", {"query": "type 2", "session_id": session})
    assert answered["metadata"]["context"]["joined_clarification"] is True
    standalone = answered["metadata"]["context"]["standalone_query"]
    assert standalone == "What is the first-line treatment for diabetes? type 2"
    status, history = get(f"{url}/v1/sessions/{session}/messages")
    assert len(history["messages"]) == 4 and history["clarification_pending"] is None
    assert history["messages"][2]["content"].endswith("type 2")  # the question as it was understood

    status, missing = get(f"{url}/v1/sessions/ses_nobody/messages")
    assert status == 404 and missing["error"]["code"] == "not_found"


def test_phi_in_a_follow_up_is_stored_redacted_and_never_leaves_in_the_rewrite(conversation_server_url: str) -> None:
    url = conversation_server_url
    session = post(f"{url}/v1/sessions", {})["session_id"]
    post(f"{url}/v1/query", {"query": "My patient John Smith, MRN 4417823, has chronic kidney disease with an eGFR "
                                      "of 25.", "session_id": session})
    follow_up = post(f"{url}/v1/query", {"query": "Can he keep taking metformin?", "session_id": session})
    assert "4417823" not in follow_up["metadata"]["context"]["standalone_query"]  # the history is stored redacted
    _, history = get(f"{url}/v1/sessions/{session}/messages")
    assert "4417823" not in json.dumps(history) and "Smith" not in json.dumps(history)
    kept, _ = dependencies().state.get(EVIDENCE_KEY.format(session_id=session))  # the follow-ups' evidence
    assert kept is not None and "4417823" not in json.dumps(kept) and "smith" not in json.dumps(kept).lower()


def test_a_clarifying_exchange_about_a_patient_is_not_kept(conversation_server_url: str) -> None:
    """Raw PHI never reaches a store: a question with PHI that gets a clarifying question is not kept."""
    url = conversation_server_url
    session = post(f"{url}/v1/sessions", {})["session_id"]
    asked = post(f"{url}/v1/query", {"query": "My patient John Smith (MRN 4417823) has diabetes: first-line "
                                              "treatment?", "session_id": session})
    assert asked["clarifying_question"] and asked["metadata"]["phi_detected"] is True
    _, history = get(f"{url}/v1/sessions/{session}/messages")
    assert history["messages"] == [] and history["clarification_pending"] is None
