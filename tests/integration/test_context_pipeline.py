"""The context pipeline over real HTTP, with the extractive default: a session's facts and rolling summary
(derived from the redacted turns, kept encrypted), the per-stage token budget in `metadata.context` of every
query, and the PHI rules (no raw PHI in any table, file or log; the detector down fails closed)."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from tests.integration.test_follow_ups import get, post
from voiceassist.composition import dependencies
from voiceassist.conversation import memory
from voiceassist.conversation.budget import limits
from voiceassist.phi.detection import FailClosedDetector

PATIENT = ("My patient John Smith, MRN 4417823, has chronic kidney disease with an eGFR of 25 and takes metformin; "
           "she is allergic to penicillin. Can she stay on metformin?")
LATER = ["Which antibiotic is the first choice for outpatient community-acquired pneumonia?",
         "What is the first-line treatment for uncomplicated hypertension?",
         "What is the starting dose of amlodipine?"]
RAW = ("Smith", "4417823", "John")


def _raw_at_rest(folder: Path, values: tuple[str, ...] = RAW) -> list[str]:
    """Where the bytes of a raw value (RAW by default) are in the data folder the fixture made (the SQLite file
    and its WAL, the blobs: every byte the local runtime wrote), as "file@offset: context". The folder is the
    test's own (tmp_path), not the process-wide dependencies' setting, which another test's thread could have
    replaced by the time it is read."""
    found = []
    for path in sorted(folder.rglob("*")):
        if path.is_file() and path.suffix != ".key":
            data = path.read_bytes()
            for value in values:
                at = data.find(value.encode())
                if at >= 0:
                    found.append(f"{path.relative_to(folder)}@{at}: {data[max(0, at - 60):at + 60]!r}")
    return found


def _conversation(url: str) -> tuple[str, list[dict[str, Any]]]:
    session = post(f"{url}/v1/sessions", {})["session_id"]
    answers = [post(f"{url}/v1/query", {"query": q, "session_id": session}) for q in [PATIENT, *LATER]]
    return session, answers


def test_the_session_keeps_its_facts_and_the_summary_of_its_older_turns(conversation_server_url: str) -> None:
    url = conversation_server_url
    session, answers = _conversation(url)
    assert answers[0]["citations"][0]["doc_key"] == "metformin"  # an answered turn is stored (redacted)
    status, history = get(f"{url}/v1/sessions/{session}/messages")
    assert status == 200
    assert history["facts"] == {"age": None, "sex": None, "conditions": ["chronic kidney disease"],
                                "medications": ["metformin"], "allergies": ["penicillin"], "labs": {"eGFR": "25"}}
    # Four exchanges: the first left the 6-message window and is summarized (redacted, as it was stored).
    assert history["summary"].startswith("Asked: My patient <PERSON>, MRN <MEDICAL_RECORD_NUMBER>, has chronic")
    assert "Smith" not in history["summary"] and "hypertension" not in history["summary"]

    follow_up = post(f"{url}/v1/query", {"query": "Should she stop metformin?", "session_id": session})
    described = follow_up["metadata"]["context"]
    assert described["rewritten"] is True
    assert "eGFR 25" in described["standalone_query"] and "penicillin allergy" in described["standalone_query"]
    assert "eGFR 25" in described["from_facts"] and described["summary_by"] == "extractive"
    assert follow_up["citations"][0]["doc_key"] == "metformin"  # the facts found the right document

    status, other = get(f"{url}/v1/sessions/ses_nobody/messages")
    assert status == 404 and "facts" not in other


def test_no_raw_phi_in_any_file_response_or_log_and_the_facts_are_sealed(conversation_server_url: str,
                                                                          capfd: pytest.CaptureFixture[str],
                                                                          tmp_path: Path) -> None:
    url = conversation_server_url
    session, answers = _conversation(url)
    _, history = get(f"{url}/v1/sessions/{session}/messages")
    stored, _ = dependencies().state.get(memory.MEMORY_KEY.format(session_id=session))
    assert stored is not None and set(stored) == {"sealed"} and stored["sealed"].startswith("enc1.")
    assert "penicillin" not in stored["sealed"] and "eGFR" not in stored["sealed"]
    assert _raw_at_rest(tmp_path / "data") == []  # tmp_path is the fixture's: it copied the data folder there
    logs = capfd.readouterr()
    for value in RAW:
        assert value not in json.dumps(history) and value not in json.dumps(answers[1:])
        assert value not in logs.out + logs.err
    # bound to its session: the same sealed value under another session's id does not decrypt, and reads empty
    other = post(f"{url}/v1/sessions", {})["session_id"]
    dependencies().state.put(memory.MEMORY_KEY.format(session_id=other), stored, expected_version=0)
    assert not memory.load(dependencies(), other).facts


def test_every_query_records_the_budget_of_each_stage(conversation_server_url: str) -> None:
    url = conversation_server_url
    alone = post(f"{url}/v1/query", {"query": "What is the starting dose of amlodipine?"})
    chat = post(f"{url}/v1/chat/completions", {"messages": [
        {"role": "user", "content": "What is the starting dose of amlodipine?"},
        {"role": "assistant", "content": "5 mg once daily [1]."},
        {"role": "user", "content": "And the side effects?"}]})
    for described in (alone["metadata"]["context"], chat["query_metadata"]["context"]):
        budget = described["budget"]
        assert set(limits()) <= set(budget)
        for stage in ("history", "summary", "facts", "question", "answer"):
            assert 0 <= budget[stage]["used"] <= budget[stage]["limit"], stage
        assert budget["question"]["used"] > 0 and budget["answer"]["used"] > 0
    assert alone["metadata"]["context"]["rewritten"] is False and alone["metadata"]["context"]["budget"][
        "history"]["used"] == 0
    assert chat["query_metadata"]["context"]["rewritten"] is True
    assert chat["query_metadata"]["context"]["budget"]["history"]["used"] > 0


class _Down:
    def detect(self, text: str) -> Any:
        raise RuntimeError("detector down")


def test_with_the_detector_down_nothing_raw_is_kept(conversation_server_url: str, tmp_path: Path) -> None:
    """A turn the detector could not check is stored withheld (no summary line from it); its facts are read by
    the closed rules, which take no name or number, and sealed: nothing raw at rest."""
    url = conversation_server_url
    dependencies().phi_detector = FailClosedDetector(_Down())  # type: ignore[misc]
    session = post(f"{url}/v1/sessions", {})["session_id"]
    answered = post(f"{url}/v1/query", {"query": PATIENT, "session_id": session})
    assert answered["metadata"]["phi_detected"] is True
    _, history = get(f"{url}/v1/sessions/{session}/messages")
    assert history["facts"]["labs"] == {"eGFR": "25"} and history["summary"] == ""
    assert "smith" not in json.dumps(history["facts"]).lower() and "4417823" not in json.dumps(history["facts"])
    assert all(m["content"] == "<WITHHELD>" for m in history["messages"] if m["role"] == "user")
    assert _raw_at_rest(tmp_path / "data") == []


def test_the_clinical_context_states_facts_for_the_first_question(conversation_server_url: str, tmp_path: Path) -> None:
    """The session's clinical context (encrypted with the session) gives facts as it is read; they are not
    stored apart from it. "Can she keep taking it?" as the first question knows the drug and the eGFR."""
    url = conversation_server_url
    clinical = "Jane Doe, MRN 4417823: 72-year-old woman, chronic kidney disease stage 4, eGFR 25, on metformin."
    session = post(f"{url}/v1/sessions", {"clinical_context": clinical})["session_id"]
    answered = post(f"{url}/v1/query", {"query": "Can she keep taking it?", "session_id": session})
    standalone = answered["metadata"]["context"]["standalone_query"]
    assert standalone == "Can she keep taking metformin? (chronic kidney disease stage 4, eGFR 25)"
    assert answered["citations"][0]["doc_key"] == "metformin"
    _, history = get(f"{url}/v1/sessions/{session}/messages")
    assert history["facts"]["labs"] == {"eGFR": "25"} and history["facts"]["age"] == "72"
    assert "jane" not in json.dumps(history["facts"]).lower() and "4417823" not in json.dumps(history["facts"])
    stored, _ = dependencies().state.get(memory.MEMORY_KEY.format(session_id=session))
    assert stored is not None and set(stored) == {"sealed"}
    assert _raw_at_rest(tmp_path / "data", ("Jane", "Doe", "4417823")) == []


def test_deleting_the_session_drops_its_memory(conversation_server_url: str) -> None:
    url = conversation_server_url
    session, _ = _conversation(url)
    request = urllib.request.Request(f"{url}/v1/sessions/{session}", method="DELETE")
    with urllib.request.urlopen(request, timeout=30) as reply:
        assert reply.status == 200
    stored, _ = dependencies().state.get(memory.MEMORY_KEY.format(session_id=session))
    assert not stored
    status, _ = get(f"{url}/v1/sessions/{session}/messages")
    assert status == 404


def test_a_long_chat_keeps_the_facts_its_window_cut(conversation_server_url: str) -> None:
    """Chat completions send the whole conversation; the window keeps 2,000 tokens of it, and the facts of the
    user turns it cut still reach a question about the patient (read as they come, never stored)."""
    long_answer = "Amoxicillin is the usual choice for outpatient pneumonia in adults [1]. " * 60  # ~900 tokens
    messages = [{"role": "user", "content": "My patient John Smith has chronic kidney disease with an eGFR of 25 "
                                            "and takes metformin."},
                {"role": "assistant", "content": "Metformin should be reviewed below an eGFR of 45 [1]."}]
    for question in LATER:
        messages += [{"role": "user", "content": question}, {"role": "assistant", "content": long_answer}]
    messages.append({"role": "user", "content": "Should she stop metformin?"})
    chat = post(f"{conversation_server_url}/v1/chat/completions", {"messages": messages})
    described = chat["query_metadata"]["context"]
    assert described["history_turns"] < len(messages) - 1  # the window cut the first turns
    assert "eGFR 25" in described["from_facts"] and "eGFR 25" in described["standalone_query"]
    assert "Smith" not in described["standalone_query"]
    assert chat["citations"][0]["doc_key"] == "metformin"


def test_a_chat_of_thousands_of_short_turns_is_answered_from_its_last_six(conversation_server_url: str) -> None:
    """2,000 one-word turns fit the 2,000-token window whole: the screen and the PHI check read them all and the run
    failed (502 after 16 s; found by a client probe). The window is a session's: the last 6 messages."""
    messages = [{"role": "user", "content": "x"}, {"role": "assistant", "content": "y"}] * 1000
    messages.append({"role": "user", "content": "What is the first-line treatment for uncomplicated hypertension?"})
    chat = post(f"{conversation_server_url}/v1/chat/completions", {"messages": messages})
    assert chat["query_metadata"]["context"]["history_turns"] == 6 and chat["citations"]


def test_facts_come_from_the_question_as_asked(conversation_server_url: str) -> None:
    """A statement the pipeline does not answer (and so does not store) still gives its facts; a topic the
    follow-up rules inherit from an earlier question never becomes a fact of the patient."""
    url = conversation_server_url
    session = post(f"{url}/v1/sessions", {})["session_id"]
    # gout: no document of the sample corpus covers it, so the statement finds no evidence and is not stored
    stated = post(f"{url}/v1/query", {"query": "My patient is a 60-year-old man with gout, on lisinopril.",
                                      "session_id": session})
    post(f"{url}/v1/query", {"query": "What is the first-line treatment for early Lyme disease?",
                             "session_id": session})
    follow_up = post(f"{url}/v1/query", {"query": "Can he keep taking lisinopril?", "session_id": session})
    assert "Lyme disease" in follow_up["metadata"]["context"]["standalone_query"]  # inherited by the rules
    _, history = get(f"{url}/v1/sessions/{session}/messages")
    assert history["facts"] == {"age": "60", "sex": "male", "conditions": ["gout"],
                                "medications": ["lisinopril"], "allergies": [], "labs": {}}
    assert stated["metadata"]["answer_status"] == "no_evidence"  # not stored, and yet its facts are kept
    assert not any("60-year-old" in m["content"] for m in history["messages"])


def test_the_answering_model_sees_the_facts_and_the_summary_and_the_cloud_model_no_raw_phi(
        conversation_server_url: str) -> None:
    from tests.stubs.streaming_model import Streamed, StreamingModel

    # Given both models (the in-boundary one also writes the summary: the session has had PHI)
    local = StreamingModel("local-model", in_boundary=True, script=[Streamed("The cited excerpt applies [1].")])
    cloud = StreamingModel("cloud-model", in_boundary=False, script=[Streamed("See the cited excerpt [1].")])
    deps = dependencies()
    deps.local_chat, deps.cloud_chat = local, cloud  # type: ignore[misc]
    url = conversation_server_url
    session, _ = _conversation(url)
    _, history = get(f"{url}/v1/sessions/{session}/messages")
    assert history["summary"]  # the first exchange left the window and was summarized

    # When a PHI-free follow-up is asked (it goes to the cloud model)
    cloud.calls.clear()
    answer = post(f"{url}/v1/query", {"query": "Should she stop metformin?", "session_id": session})

    # Then its prompt carries what the conversation established beyond the window, and no raw PHI
    assert answer["metadata"]["model"] == "cloud-model" and cloud.calls
    system = cloud.calls[-1][0]
    assert system.role == "system"
    assert ("Patient facts stated: conditions: chronic kidney disease; eGFR 25; medications: metformin; "
            "allergies: penicillin.") in system.content
    assert f"Earlier turns, summarized:\n{history['summary']}" in system.content
    sent = json.dumps([m.content for call in cloud.calls for m in call])
    assert [value for value in RAW if value in sent] == []
