"""The retrieval fallback ladder: hybrid -> relaxed threshold -> dense only -> PubMed (when the PHI rules allow).

Runs in Rank Results, after the evidence check (query/abstention.py), and in the critic (query/critic.py) after
a failed grounding check. No model is involved:

- hybrid: the planned search; its evidence must reach `Settings.evidence_threshold`.
- relaxed: the same hits judged at `Settings.relaxed_evidence_threshold`. An answer from it is "answered" but
  carries a "weak evidence" warning and a lower confidence (query/planner.py).
- dense: the knowledge base again, vector search only (a passage that says it in other words than the question,
  which BM25 pulled down in the fusion), judged at the main threshold.
- pubmed: PubMed alone, only when Classify found it configured and allowed (`fallback_pubmed`: checked, PHI-free,
  not local-only, not excluded by the request, not searched already); a question with PHI, or one the detector
  could not check, never goes there.

A step that searches again sets `search_again`: the "Good Results?" (or "Grounded?") Choice of query.asl.json
sends the run back to "Search Sources" with the step's `search_plan`, and `query_retrieve` (which holds the
embedder) runs it. Steps only go down, each at most once, so a run makes at most one pass down the ladder.
Every step taken or skipped is recorded in `ladder.tried` with its evidence and reason (metadata.plan).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping

from voiceassist.models import AnswerStatus, RetrievalAttempt, SearchBranch, SourceKind, SourceName
from voiceassist.ports import SearchSource
from voiceassist.query import abstention, evidence, sources
from voiceassist.query.state import QueryState
from voiceassist.settings import Settings

HYBRID, RELAXED, DENSE, PUBMED = "hybrid", "relaxed", "dense", "pubmed"
STEPS = (HYBRID, RELAXED, DENSE, PUBMED)
WEAK_EVIDENCE_WARNING = ("weak evidence: no passage reached the evidence threshold ({threshold}); the best scores "
                         "{evidence} (relaxed threshold {relaxed}), so verify this answer against the cited passages")
LOWER_STEP_WARNING = "the hybrid search found no passage that answers; this answer comes from the {step} search"
MIN_RELAXED_TOPICS = 2
Rejudge = Callable[[QueryState, float], QueryState]


def pubmed_fallback(state: QueryState, available: Collection[str], configured: Mapping[str, SearchSource]
                    ) -> SearchBranch | None:
    """Classify: the PubMed search the ladder may run last, when planning allowed it (`available`) and the
    plan does not search it already."""
    name = SourceName.PUBMED.value
    if (name not in available or name not in configured or name in state.request.sources.exclude
            or any(name in branch.sources for branch in state.search_plan)):
        return None
    config = sources.SOURCES[SourceName.PUBMED].model_copy(
        update={"timeout_seconds": configured[name].budget_seconds})
    return sources.search_branches([config])[0]


def after_evidence(settings: Settings, state: QueryState, rejudge: Rejudge) -> QueryState:
    """Record this step's evidence; below the threshold, take the next step (relaxed judges again here, dense
    and PubMed search again). `rejudge(state, threshold)` is Rank's evidence check."""
    step, evidence, threshold = state.ladder.step, state.evidence_score, settings.evidence_threshold
    if state.answer_status is not AnswerStatus.NO_EVIDENCE:
        record(state, step, evidence, f"evidence {_f(evidence)} reaches the threshold {threshold}")
        if step in (DENSE, PUBMED) and not state.critiques:  # after a withdrawn answer, the critic says why
            state.warnings.append(LOWER_STEP_WARNING.format(step="dense-only" if step == DENSE else "PubMed"))
        return state
    record(state, step, evidence, f"evidence {_f(evidence)} is below the threshold {threshold}")
    if step == HYBRID and settings.relaxed_evidence_threshold < threshold:
        relaxed = settings.relaxed_evidence_threshold
        if evidence is not None and evidence >= relaxed:
            weak = rejudge(_reopened(state), relaxed)
            if weak.answer_status is not AnswerStatus.NO_EVIDENCE and _names_every_topic(weak, relaxed):
                weak.ladder.step = RELAXED
                record(weak, RELAXED, weak.evidence_score,
                       f"evidence {_f(weak.evidence_score)} reaches the relaxed threshold {relaxed}")
                weak.warnings.append(WEAK_EVIDENCE_WARNING.format(
                    threshold=threshold, evidence=_f(weak.evidence_score), relaxed=relaxed))
                return weak
        record(state, RELAXED, evidence,
               f"evidence {_f(evidence)} is below the relaxed threshold {relaxed}" if evidence is None
               or evidence < relaxed else f"evidence {_f(evidence)} reaches the relaxed threshold {relaxed}, but "
               f"no passage names every topic of the question (at least {MIN_RELAXED_TOPICS} needed)")
    if descend(state):
        return _reopened(state)
    return state


def descend(state: QueryState) -> bool:
    """Set up the next step that searches again (True), or record why none is left (False)."""
    for step in STEPS[STEPS.index(state.ladder.step) + 1:]:
        if step == RELAXED:  # judges the same hits again: only right after hybrid (after_evidence)
            continue
        branches, skipped = _branches_for(state, step)
        if branches:
            state.ladder.step, state.search_plan, state.search_again = step, branches, True
            return True
        record(state, step, None, skipped)
    return False


def record(state: QueryState, step: str, evidence: float | None, reason: str) -> None:
    state.ladder.tried.append(RetrievalAttempt(step=step, evidence=evidence, reason=reason))


def _branches_for(state: QueryState, step: str) -> tuple[list[SearchBranch], str]:
    if step == DENSE:
        knowledge_base = [b for b in state.search_plan if b.kind is SourceKind.KNOWLEDGE_BASE]
        if any(name in state.unavailable_sources for branch in knowledge_base for name in branch.sources):
            return [], "not searched: the knowledge base was unavailable"
        return knowledge_base, "not searched: the plan searches no knowledge-base source"
    if state.phi is None or state.phi.error is not None:
        return [], ("not searched: the question could not be checked for PHI, so it counts as PHI, and PubMed is "
                    "outside the PHI boundary")
    if state.phi.contains_phi:
        return [], "not searched: the question contains PHI, and PubMed is outside the PHI boundary"
    if SourceName.PUBMED.value in state.sources_searched:
        return [], "not searched again: PubMed was searched with the knowledge base"
    if state.fallback_pubmed is None:
        return [], ("not searched: PubMed is not configured, the request excludes it, or the deployment is "
                    "local-only")
    return [state.fallback_pubmed], ""


def _names_every_topic(state: QueryState, threshold: float) -> bool:
    """Whether the question names at least MIN_RELAXED_TOPICS topics and a passage at the relaxed threshold holds
    every one: weak evidence is a passage that says it in other words, not one about a neighbouring topic
    ("metformin" without "pregnancy"), nor one sharing the single word of a question without a topic of its own
    ("How many readings are needed?")."""
    question = abstention.evidence_question(state)
    if sum(c.topic for c in evidence.question_concepts(question)) < MIN_RELAXED_TOPICS:
        return False
    found = evidence.assess(question, state.hits)
    return any(p.score >= threshold and not p.missing for p in found.passages)


def _reopened(state: QueryState) -> QueryState:
    """The state without the abstention, for the next step to judge (its own copy of every list)."""
    return state.model_copy(deep=True, update={"answer": None, "clarifying_question": None, "answer_status": None})


def _f(value: float | None) -> str:
    return "none" if value is None else f"{value:.2f}"
