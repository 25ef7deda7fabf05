"""The planner: what the run does with a question, and how sure it is (metadata.plan).

The action is one of "answer" (from the knowledge base, or PubMed), "tool" (a calculator the question names),
"clarify" (a question back) or "no_evidence" (an abstention). Classify makes the first plan, Rank revises it
once the evidence is known (query/ladder.py), and the critic (query/critic.py) once the answer's grounding is.

The confidence is derived from the signals the run has, without a model (docs/conversation.md, "Planner"):

- answer: the evidence's margin over the threshold, 0.5 at the threshold and 1.0 at evidence 1.0; an answer
  from the relaxed step scores 0.25 at the relaxed threshold up to 0.5 at the main one. The intent's confidence
  scales it between 0.75 and 1 (the intent only orders the sources), and the grounding share multiplies it.
  Before any evidence (Classify, or a step searching again) it is the intent's confidence.
- tool: the share of the calculator's findings the question gives (found / found + missing required).
- no_evidence: the evidence's margin under the threshold, 0.5 at the threshold and 1.0 at evidence 0; after the
  critic withheld an answer, the unsupported share of its sentences; 0 when no source could be searched.
- clarify: 1 - the intent's confidence for an ambiguous question; after a search that found no good result,
  1.0 without any hit and 0.5 with only weak ones.
"""

from __future__ import annotations

from voiceassist.models import AnswerStatus, QueryPlan
from voiceassist.query import intent as intents
from voiceassist.query.state import QueryState
from voiceassist.settings import Settings
from voiceassist.tools.calculators.question import extract_parameters

RELAXED = "relaxed"


def plan_of(settings: Settings, state: QueryState) -> QueryPlan:
    action, confidence, reason = _decide(settings, state)
    return QueryPlan(action=action, confidence=round(min(max(confidence, 0.0), 1.0), 3), reason=reason,
                     retrieval=state.ladder.model_copy(deep=True), critiques=list(state.critiques))


def _decide(settings: Settings, state: QueryState) -> tuple[str, float, str]:
    if state.tool_route:
        return _tool(state)
    if state.answer_status is AnswerStatus.NO_EVIDENCE:
        return _no_evidence(settings, state)
    if state.clarifying_question and not state.answer:
        if state.clarifying_question == intents.NO_GOOD_RESULTS_QUESTION:
            return "clarify", 0.5 if state.hits else 1.0, "the search found no result worth answering from"
        return "clarify", 1.0 - state.intent_confidence, "the question is too ambiguous to search"
    if state.evidence_score is None or state.search_again:
        reason = (f"no evidence yet: searching again ({state.ladder.step} step)" if state.search_again
                  else "search " + ", ".join(s for b in state.search_plan for s in b.sources) + "; evidence decides")
        return "answer", state.intent_confidence, reason
    return _answer(settings, state)


def _answer(settings: Settings, state: QueryState) -> tuple[str, float, str]:
    evidence, threshold = state.evidence_score or 0.0, settings.evidence_threshold
    relaxed = settings.relaxed_evidence_threshold
    if state.ladder.step == RELAXED and threshold > relaxed:
        confidence = 0.25 + 0.25 * (evidence - relaxed) / (threshold - relaxed)
        reason = f"weak evidence {evidence:.2f}: below the threshold {threshold}, at or above the relaxed {relaxed}"
    else:
        confidence = 0.5 + 0.5 * (evidence - threshold) / max(1.0 - threshold, 1e-6)
        reason = f"evidence {evidence:.2f} reaches the threshold {threshold} ({state.ladder.step} search)"
    confidence *= 0.75 + 0.25 * state.intent_confidence
    if state.grounding is not None:
        confidence *= state.grounding
        reason += f"; {state.grounding:.0%} of the answer's sentences are supported"
    return "answer", confidence, reason


def _no_evidence(settings: Settings, state: QueryState) -> tuple[str, float, str]:
    if state.degraded and state.model is None:
        return "no_evidence", 0.0, "no source could be searched, so nothing is known either way"
    if state.critiques and state.critiques[-1].action == "abstained":
        critique = state.critiques[-1]
        return "no_evidence", 1.0 - (critique.grounding or 0.0), critique.reason
    evidence, threshold = state.evidence_score or 0.0, settings.evidence_threshold
    if evidence >= threshold:
        return "no_evidence", 0.5, "the passages reach the evidence threshold but no sentence of them answers"
    steps = [attempt.step for attempt in state.ladder.tried if attempt.evidence is not None]
    reason = (f"no passage reached the threshold {threshold} (best {evidence:.2f}; steps tried: "
              f"{', '.join(dict.fromkeys(steps)) or 'none'})")
    return "no_evidence", 0.5 + 0.5 * (threshold - evidence) / max(threshold, 1e-6), reason


def _tool(state: QueryState) -> tuple[str, float, str]:
    name = state.tool_route or ""
    found, missing = extract_parameters(name, state.request.query)
    share = len(found) / (len(found) + len(missing)) if found or missing else 0.0
    return "tool", share, (f"the question names the {name} calculator and gives {len(found)} of its findings "
                           f"({len(missing)} required ones missing)")
