"""generate_differential_diagnosis: a ranked differential for a clinical presentation, written by the
IN-BOUNDARY model from the knowledge base (and PubMed when the PHI rules let the question leave), each
diagnosis citing the excerpts it rests on.

The presentation may describe a patient, so only the in-boundary model ever reads it (`requires_phi: true`);
without one this tool refuses (503 `not_configured`), it never falls back to the cloud model. PubMed is
searched only when the executor found no PHI in the turn (a failed check counts as PHI) and the egress policy,
asked once more with this deployment's detector, lets the text go; otherwise the knowledge base alone is used
and the result says so. This is decision support for a clinician, not a diagnosis.

The model and the PHI detector are the admin configuration's (the in-boundary route's model id, the PHI mode), as
the answer's; the call is billed to the caller (admin.billing.Metering). It is never capped: only models outside
the boundary are, and this tool calls none.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, Field

from voiceassist import phi
from voiceassist.admin.billing import Metering
from voiceassist.errors import DependencyError, PhiBoundaryViolation, VoiceAssistError
from voiceassist.models import ChatMessage, RiskLevel, SearchFilters, SearchHit, ToolCategory
from voiceassist.phi.detection import failed_result
from voiceassist.ports import ChatModel
from voiceassist.query.citations import citation_snippet
from voiceassist.query.model_plan import configured_model
from voiceassist.tools.registry import ToolEnvironment, ToolOutput, define

PUBMED = "pubmed"
KNOWLEDGE_BASE_TOP_K = 6
PUBMED_TOP_K = 3
RATE_LIMIT = 10  # calls per user per minute: each one is a model generation
TIMEOUT_S = 20.0
ANSWER_TOKENS = 700
UNKNOWN_CALLER = "unknown"  # the billing event's principal when a caller has none (the executor always gives one)
INSTRUCTIONS = (
    "You assist a clinician. From the numbered excerpts only, list the differential diagnosis for the "
    "presentation, most likely first, at most {n} lines, each exactly as: '<rank>. <diagnosis> - <one-sentence "
    "reason> [<excerpt numbers>]'. Cite every line with the excerpts it rests on. Add nothing else. If the "
    "excerpts support no diagnosis, answer 'No differential can be supported by the sources.'"
)
_LINE = re.compile(r"^\s*\d+[.)]\s*(.+?)\s*((?:\[\d+(?:\s*,\s*\d+)*\]\s*)*)$")  # rank. text [n, m][k]
_REASON = re.compile(r"\s+[-\u2013\u2014]\s+|:\s+")  # "Diagnosis - reason" (a hyphen inside a name is kept)


class InBoundaryModelNotConfigured(VoiceAssistError):
    """No in-boundary model is configured: the differential is never written by a model outside the boundary."""

    status_code = 503
    code = "not_configured"
    readable = True


class DifferentialFailed(DependencyError):
    """The in-boundary model failed; the message is ours (names the exception type only)."""

    code = "model_unavailable"
    readable = True


class DifferentialParams(BaseModel):
    model_config = ConfigDict(extra="forbid")

    presentation: str = Field(min_length=10, max_length=4000,
                              description="The clinical presentation: age, sex, symptoms, findings, tests")
    max_diagnoses: int = Field(default=5, ge=1, le=10, description="How many diagnoses to rank")
    include_pubmed: bool = Field(default=True, description="Also search PubMed when no patient details are given")


@dataclass(frozen=True)
class Diagnosis:
    rank: int
    diagnosis: str
    reason: str
    citations: list[int]


def parse_differential(text: str, *, excerpts: int, limit: int) -> list[Diagnosis]:
    """The model's ranked lines; citations outside the excerpts are dropped, uncited lines are kept uncited."""
    found: list[Diagnosis] = []
    for line in text.splitlines():
        match = _LINE.match(line)
        if not match:
            continue
        numbers = [int(n) for n in re.findall(r"\d+", match.group(2))]
        cited = [n for n in dict.fromkeys(numbers) if 1 <= n <= excerpts]
        diagnosis, _, reason = (part.strip() for part in _split_reason(match.group(1)))
        found.append(Diagnosis(rank=len(found) + 1, diagnosis=diagnosis, reason=reason, citations=cited))
    return found[:limit]


def _split_reason(text: str) -> tuple[str, str, str]:
    parts = _REASON.split(text, maxsplit=1)
    return (parts[0], "-", parts[1]) if len(parts) == 2 else (text, "", "")


def _in_boundary_model(env: ToolEnvironment) -> ChatModel:
    model = configured_model(env.ctx.local_chat, env.ctx.admin_config.models.in_boundary.model)
    if model is None or not model.in_boundary:
        raise InBoundaryModelNotConfigured(
            "generate_differential_diagnosis needs the in-boundary model, and none is configured in this "
            "deployment (docs/tools.md); it never sends a presentation to a model outside the boundary")
    return model


def _knowledge_base(env: ToolEnvironment, presentation: str) -> list[SearchHit]:
    from voiceassist.query.retrieval import knowledge_base_query, run_knowledge_base_query

    query = knowledge_base_query(env.ctx, presentation, top_k=KNOWLEDGE_BASE_TOP_K, filters=SearchFilters())
    return run_knowledge_base_query(env.ctx, query, phi_detected=env.turn_has_phi)[:KNOWLEDGE_BASE_TOP_K]


def _pubmed(env: ToolEnvironment, params: DifferentialParams) -> tuple[list[SearchHit], str]:
    """PubMed's hits and why it was (not) searched: never with PHI in the turn or a failed check."""
    source = env.ctx.external_sources.get(PUBMED)
    if not params.include_pubmed:
        return [], "not asked"
    if source is None:
        return [], "not configured"
    if env.turn_has_phi:
        return [], "skipped: the presentation carries patient details (or could not be checked)"
    try:
        checked = env.ctx.phi_detector_for(env.ctx.admin_config.phi_mode).detect(params.presentation)
    except Exception as exc:  # noqa: BLE001 - a detector that fails counts as PHI (fail closed)
        checked = failed_result(f"PHI detector failed ({type(exc).__name__})")
    try:
        phi.ensure_may_leave(params.presentation, checked=checked)
    except PhiBoundaryViolation:
        return [], "skipped: the presentation carries patient details (or could not be checked)"
    try:
        return source.search(params.presentation, top_k=PUBMED_TOP_K, deadline_s=source.budget_seconds), "searched"
    except Exception as exc:  # noqa: BLE001 - PubMed down: the knowledge base alone answers
        return [], f"unavailable ({type(exc).__name__})"


def _messages(params: DifferentialParams, hits: list[SearchHit]) -> list[ChatMessage]:
    excerpts = "\n".join(f"[{n}] {h.chunk.metadata.title}: {citation_snippet(h.chunk.text, max_chars=600)}"
                         for n, h in enumerate(hits, start=1))
    return [ChatMessage(role="system", content=INSTRUCTIONS.format(n=params.max_diagnoses)),
            ChatMessage(role="user", content=f"Excerpts:\n{excerpts}\n\nPresentation: {params.presentation}")]


def generate_differential_diagnosis(params: DifferentialParams, env: ToolEnvironment) -> ToolOutput:
    model = _in_boundary_model(env)
    hits = _knowledge_base(env, params.presentation)
    pubmed_hits, pubmed = _pubmed(env, params)
    hits = [*hits, *pubmed_hits]
    if not hits:
        return ToolOutput(content="No source in the knowledge base matches this presentation; no differential "
                                  "was generated.", data={"diagnoses": [], "pubmed": pubmed},
                          carries_phi=env.turn_has_phi)
    try:
        completion = model.complete(_messages(params, hits), max_tokens=ANSWER_TOKENS, temperature=0.0)
    except Exception as exc:  # noqa: BLE001 - the model's own text may echo the presentation: ours only
        raise DifferentialFailed(f"the in-boundary model failed to answer ({type(exc).__name__})") from exc
    Metering(env.ctx.cost_gate(env.ctx.admin_config), env.user_id or UNKNOWN_CALLER).record(model, completion)
    diagnoses = parse_differential(completion.text, excerpts=len(hits), limit=params.max_diagnoses)
    lines = [f"{d.rank}. {d.diagnosis}" + (f" - {d.reason}" if d.reason else "")
             + "".join(f" [{n}]" for n in d.citations) for d in diagnoses]
    content = "\n".join(lines) if lines else "No differential can be supported by the sources."
    data = {"diagnoses": [d.__dict__ for d in diagnoses], "model": completion.model or model.name,
            "pubmed": pubmed, "excerpts": len(hits)}
    return ToolOutput(content=content, data=data, sources=hits, carries_phi=env.turn_has_phi)


GENERATE_DIFFERENTIAL_DIAGNOSIS = define(
    "generate_differential_diagnosis",
    "Rank a differential diagnosis for a clinical presentation from the knowledge base (and PubMed when the "
    "presentation names no patient), written by the in-boundary model; each diagnosis cites its sources. "
    "Decision support for a clinician, not a diagnosis.",
    DifferentialParams, generate_differential_diagnosis,
    category=ToolCategory.MEDICAL, requires_phi=True,  # the in-boundary model only; PubMed only without PHI
    risk_level=RiskLevel.MEDIUM,  # clinical decision support: read-only, but a wrong list misleads
    rate_limit=RATE_LIMIT, timeout_seconds=TIMEOUT_S,
)
