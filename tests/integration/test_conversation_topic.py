"""A question that finds no evidence on its own is read in its conversation's topic (query/abstention.py,
`in_conversation_topic`), on the bundled sample corpus with the extractive default: in a session, in chat
messages, never from history that holds PHI, and never to answer a question about something else."""

from __future__ import annotations

from voiceassist_local.cli.local import ensure_sample_corpus

from voiceassist.composition import Dependencies
from voiceassist.conversation import context, orchestrator
from voiceassist.models import AnswerStatus, QueryRequest, QueryResponse, Session
from voiceassist.query.abstention import FOLLOW_UP_NOTE

READINGS = "How many readings are needed?"  # no topic of its own, and not worded as a follow-up
DIAGNOSIS = "How do I diagnose hypertension?"


def in_session(deps: Dependencies, questions: list[str]) -> list[QueryResponse]:
    session = Session(user_id="clinician")
    deps.sessions.create(session)
    return [orchestrator.respond(deps, QueryRequest(query=q, session_id=session.session_id), user_id="clinician",
                                 trace_id=None) for q in questions]


def in_chat(deps: Dependencies, history: list[context.Turn], question: str) -> QueryResponse:
    return orchestrator.run(deps, QueryRequest(query=question), user_id="clinician", trace_id=None,
                            emit=lambda event: None, history=history)


def test_alone_the_question_finds_no_evidence(local_deps: Dependencies) -> None:
    ensure_sample_corpus(local_deps)
    (alone,) = in_session(local_deps, [READINGS])
    assert (alone.metadata.answer_status, alone.citations) == (AnswerStatus.NO_EVIDENCE, [])


def test_in_a_session_it_is_answered_in_the_previous_questions_topic(local_deps: Dependencies) -> None:
    ensure_sample_corpus(local_deps)
    _, readings, unrelated = in_session(local_deps, [DIAGNOSIS, READINGS, "What is the dose of glipizide?"])

    assert readings.metadata.answer_status is AnswerStatus.ANSWERED
    assert {c.doc_key for c in readings.citations} == {"sample-hypertension-primary-care"}
    assert "two readings" in readings.answer and FOLLOW_UP_NOTE in readings.metadata.warnings
    # the topic never answers a question about something the knowledge base does not cover
    assert (unrelated.metadata.answer_status, unrelated.citations) == (AnswerStatus.NO_EVIDENCE, [])


def test_in_chat_messages_the_last_user_message_is_the_topic(local_deps: Dependencies) -> None:
    ensure_sample_corpus(local_deps)
    reply = in_chat(local_deps, [context.Turn("user", DIAGNOSIS), context.Turn("assistant", "See [1].")], READINGS)
    assert {c.doc_key for c in reply.citations} == {"sample-hypertension-primary-care"}


def test_history_with_phi_is_never_the_topic_and_never_echoed(local_deps: Dependencies) -> None:
    ensure_sample_corpus(local_deps)
    history = [context.Turn("user", "How do I diagnose hypertension in Zebulon Quartermaine, MRN 84736251?"),
               context.Turn("assistant", "See [1].")]

    reply = in_chat(local_deps, history, READINGS)

    assert reply.metadata.phi_detected and FOLLOW_UP_NOTE not in reply.metadata.warnings
    assert reply.metadata.answer_status is AnswerStatus.NO_EVIDENCE
    shown = reply.model_dump_json()
    assert "Quartermaine" not in shown and "84736251" not in shown
