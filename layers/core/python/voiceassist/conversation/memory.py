"""A session's memory: its salient clinical facts and the rolling summary of its older turns.

The facts are read from each question as the user asked it, by closed rules (conversation/facts.py: no name, no
record number, no date can become a fact; an age over 89 is "over 89"), and from the session's clinical context;
the summary from the session's STORED turns, which are redacted (raw PHI never reaches a store, and the API
function that runs the orchestrator has no PHI detector). Both are kept ENCRYPTED: the whole memory is one
FieldCipher value bound to the session id (KMS envelope on AWS, the 0600 key file locally), in the shared state
next to the session, with the session's 12 h lifetime. Facts describe a patient even without a name, so they are
not kept in the clear; a value copied onto another session does not decrypt.

`update` runs after each answer: the question adds its facts, and the turns that left the history window join the
summary. Best effort: a failed or conflicting write loses that turn's facts (the summary reads the turns again,
up to SPAN messages back). A memory that does not decrypt is empty (fail closed: nothing of it is returned in any
form).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from voiceassist import invocation
from voiceassist.admin.billing import Metering
from voiceassist.conversation import context, summary
from voiceassist.conversation.facts import Facts, extract, merge
from voiceassist.models import Message, Session
from voiceassist.observability import log_failure, logger
from voiceassist.query.model_plan import configured_model
from voiceassist.settings import RoutingMode, Runtime

if TYPE_CHECKING:
    from voiceassist.composition import Dependencies

MEMORY_KEY = "conversation-memory:{session_id}"
MEMORY_TTL_SECONDS = 12 * 3600  # a session's lifetime (routes/sessions.py)
SPAN = 8  # messages read beyond the history window, to catch up after a lost write
# After the summary's model call, the memory is sealed and written and the answer returned: kept in hand.
SUMMARY_RESERVE_S = 2.0
Window = Callable[[list[context.Turn]], list[context.Turn]]


@dataclass
class Memory:
    facts: Facts = field(default_factory=Facts)
    summary: str = ""
    summary_by: str = ""  # "extractive" or the model's name
    phi: bool = False  # a turn of the session had PHI or could not be checked: only in-boundary models summarize
    summary_through: str = ""  # when the last message folded into the summary was written
    # the cost limit's warning when it kept the cloud model from this turn's summary: the next answer, which reads
    # the summary, carries it (conversation/orchestrator.py); cleared by the next update
    summary_capped: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"facts": self.facts.to_dict(), "summary": self.summary, "summary_by": self.summary_by,
                "phi": self.phi, "summary_through": self.summary_through, "summary_capped": self.summary_capped}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Memory:
        return cls(facts=Facts.from_dict(data.get("facts")), summary=str(data.get("summary", "")),
                   summary_by=str(data.get("summary_by", "")), phi=bool(data.get("phi", False)),
                   summary_through=str(data.get("summary_through", "")),
                   summary_capped=str(data.get("summary_capped", "")))


def load(deps: Dependencies, session_id: str) -> Memory:
    """The session's memory, decrypted; empty when there is none, it does not decrypt for this session, or the
    state cannot be read (fail closed: the question is answered without it)."""
    try:
        return _load(deps, session_id)[0]
    except Exception as exc:
        log_failure("could not read the session's memory; answering without it", exc)
        return Memory()


def known_facts(session: Session, kept: Memory) -> Facts:
    """The facts the session's clinical context states (decrypted by the session store, read here and never
    stored apart from it), then those of its turns: a later turn's value wins."""
    stated = extract(session.clinical_context, about_patient=True) if session.clinical_context else Facts()
    return merge(stated, kept.facts)


def _load(deps: Dependencies, session_id: str) -> tuple[Memory, int]:
    stored, version = deps.state.get(MEMORY_KEY.format(session_id=session_id))
    if not stored or "sealed" not in stored:
        return Memory(), version
    try:
        plain = deps.field_cipher.decrypt(stored["sealed"], context=session_id)
        return Memory.from_dict(json.loads(plain)), version
    except Exception as exc:
        log_failure("a session's memory did not decrypt; it is not used", exc)
        return Memory(), version


def update(deps: Dependencies, session_id: str, *, user_id: str, question: str, phi: bool, window: Window,
           recent: int) -> Memory | None:
    """Add the facts `question` states (as the user asked it, before any rewrite, so that a topic inherited
    from the history never becomes a fact of the patient), fold the turns that left the window into the
    summary (a model's call billed to `user_id`, the asking principal, under the cost limits), and store the
    memory sealed."""
    try:
        memory, version = _load(deps, session_id)
        messages = deps.sessions.messages(session_id, limit=recent + SPAN)
        memory.phi = memory.phi or phi
        memory.facts = merge(memory.facts, extract(question))
        memory.summary_capped = ""
        _roll_summary(deps, memory, messages, window=window, recent=recent, user_id=user_id)
        sealed = deps.field_cipher.encrypt(json.dumps(memory.to_dict()), context=session_id)
        deps.state.put(MEMORY_KEY.format(session_id=session_id), {"sealed": sealed}, expected_version=version,
                       ttl_seconds=MEMORY_TTL_SECONDS)
        return memory
    except Exception as exc:  # the answer stands; this turn's facts are read again next time
        log_failure("could not update the session's memory", exc)
        return None


def forget(deps: Dependencies, session_id: str) -> None:
    """Drop the memory with its session (the state has no delete: an empty value that expires at once)."""
    key = MEMORY_KEY.format(session_id=session_id)
    try:
        _, version = deps.state.get(key)
        if version:
            deps.state.put(key, {}, expected_version=version, ttl_seconds=1)
    except Exception as exc:
        log_failure("could not drop a deleted session's memory", exc)


def _roll_summary(deps: Dependencies, memory: Memory, messages: Sequence[Message], *, window: Window,
                  recent: int, user_id: str) -> None:
    """The turns older than the window (the last `recent` messages cut to the window's tokens) that the summary
    has not folded in yet join it."""
    turns = [context.Turn(m.role, m.content) for m in messages[-recent:]]
    kept = len(window(turns)) if turns else 0
    older = list(messages[: len(messages) - kept])
    fresh = _after(older, memory.summary_through)
    if not fresh:
        return
    config = deps.admin_config
    written = summary.summarize(memory.summary, [context.Turn(m.role, m.content) for m in fresh],
                                models=_models(deps), session_phi=memory.phi,
                                detector=lambda: deps.phi_detector_for(config.phi_mode),
                                local_only=config.routing_mode is RoutingMode.LOCAL_ONLY,
                                time_bound=_time_bound(deps), metering=Metering(deps.cost_gate(config), user_id))
    if written.by == summary.EXTRACTIVE:
        logger.info("the session summary is extractive", extra={"summary_reason": written.reason})
    memory.summary, memory.summary_by, memory.summary_capped = written.text, written.by, written.capped
    memory.summary_through = _stamp(fresh[-1])


def _models(deps: Dependencies) -> list[Any]:
    """Locally the in-boundary model first (it may see anything), then the cloud model, each under the admin
    configuration's model id; one that cannot be built (not configured, or not shipped with this function) is
    skipped. On AWS the in-boundary model only, its own instance with the summary's short time-out
    (Dependencies.summary_chat): the functions that run the orchestrator (api, stream) may invoke it and hold no
    cloud model key (constants/functions.py)."""
    names = ("local_chat", "cloud_chat") if deps.settings.runtime is Runtime.LOCAL else ("summary_chat",)
    routes = deps.admin_config.models
    models = []
    for name in names:
        try:  # under the admin configuration's model id, as the answer's (query/model_plan.py)
            route = routes.cloud if name == "cloud_chat" else routes.in_boundary
            models.append(configured_model(getattr(deps, name), route.model))
        except Exception as exc:
            log_failure(f"no {name} for the summary", exc)
    if deps.settings.runtime is not Runtime.LOCAL:
        models = [m for m in models if m is not None and m.in_boundary]
    return models


def _time_bound(deps: Dependencies) -> summary.TimeBound | None:
    """On AWS the model is called only when the invocation has time left for the call (a connection, then a
    read, each up to the summary's time-out) and for sealing and writing the memory; locally no bound."""
    if deps.settings.runtime is Runtime.LOCAL:
        return None
    return summary.TimeBound(invocation.seconds_left, 2 * deps.settings.summary_timeout_s + SUMMARY_RESERVE_S)


def _after(messages: Sequence[Message], through: str) -> list[Message]:
    """The messages written after `through` (a message's created_at, ISO 8601; all of them when empty)."""
    if not through:
        return list(messages)
    moment = datetime.fromisoformat(through)
    return [m for m in messages if m.created_at > moment]


def _stamp(message: Message) -> str:
    return message.created_at.isoformat()
