"""Sessions: a conversation with its clinical context; users see only their own."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from aws_lambda_powertools.event_handler.api_gateway import Router
from pydantic import BaseModel, ConfigDict, Field

from routes.identity import caller_id
from voiceassist.composition import dependencies
from voiceassist.conversation import context, memory
from voiceassist.errors import NotFound, quoted_id
from voiceassist.models import Message, Session, utc_now

router = Router()
SESSION_TTL = timedelta(hours=12)


class SessionHistory(BaseModel):
    session_id: str
    clinical_context: str | None = None
    messages: list[Message]
    clarification_pending: str | None = None  # the question a short reply will be joined to
    facts: dict[str, Any] = Field(default_factory=dict)  # the salient clinical facts (conversation/facts.py)
    summary: str = ""  # the rolling summary of the turns older than the history window


class NewSession(BaseModel):
    model_config = ConfigDict(extra="forbid")  # one rule on every route: an unknown field is a 400
    clinical_context: str | None = Field(default=None, max_length=4000)


def _own_session(session_id: str) -> Session:
    session = dependencies().sessions.get(session_id)
    if session.user_id != caller_id(router):
        raise NotFound(f"session {quoted_id(session_id)} not found")  # never reveal that another user's session exists
    return session


@router.post("/sessions", summary="Create a session with optional clinical context")
def create_session(body: NewSession) -> Session:
    session = Session(user_id=caller_id(router), clinical_context=body.clinical_context,
                      expires_at=utc_now() + SESSION_TTL)
    dependencies().sessions.create(session)
    return session


@router.get("/sessions/<session_id>", summary="Get one of your sessions")
def get_session(session_id: str) -> Session:
    return _own_session(session_id)


@router.delete("/sessions/<session_id>", summary="Delete one of your sessions and its messages")
def delete_session(session_id: str) -> dict[str, str]:
    _own_session(session_id)
    dependencies().sessions.delete(session_id)
    memory.forget(dependencies(), session_id)
    return {"deleted": session_id}


MESSAGES_LIMIT = 50


@router.get("/sessions/<session_id>/messages", summary="Your session's recent messages (stored redacted), oldest first")
def session_messages(session_id: str) -> SessionHistory:
    """As stored (redacted), with the session's clinical context, `clarification_pending` (the question a short
    reply would be joined to), and the session's memory: its facts and the summary of its older turns."""
    session = _own_session(session_id)
    messages = dependencies().sessions.messages(session_id, limit=MESSAGES_LIMIT)
    turns = [context.Turn(m.role, m.content) for m in messages]
    kept = memory.load(dependencies(), session_id)
    return SessionHistory(session_id=session_id, clinical_context=session.clinical_context, messages=messages,
                          clarification_pending=context.pending_question(turns),
                          facts=known.to_dict() if (known := memory.known_facts(session, kept)) else {},
                          summary=kept.summary)
