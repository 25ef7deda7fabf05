"""The critic: after Assemble's grounding check (query/grounding.py), keep the answer, retry once one step down
the retrieval ladder (query/ladder.py), or abstain.

An answer fails when less than `Settings.critic_min_grounding` of its sentences are supported by the excerpts
they cite, or when the check removed every sentence. The first failure withdraws the answer and sends the run
back to "Search Sources" with the ladder's next searching step (dense only, then PubMed when the PHI rules
allow); a second failure, or a failure with no step left, withholds it: `answer_status` "no_evidence", no
citations. A model's answer with a sentence whose dose, frequency or route differs from its excerpt (removed by
the grounding check, `dose_mismatches`) is withdrawn and retried the same way however well the rest is
grounded: a model that misstates one dose is not trusted with the others; with no step left the checked answer
stands, that sentence removed and the warning saying why. An answer that read tool results is not judged on
the excerpts ("skipped"). Each verdict is a Critique in metadata.plan and in the `critique` event.
"""

from __future__ import annotations

from voiceassist.models import AnswerStatus, Critique, TokenUsage
from voiceassist.query import ladder, planner
from voiceassist.query.state import QueryState
from voiceassist.settings import Settings

WITHHELD_REPLY = ("Too little of the drafted answer is supported by the knowledge base's passages it cites, so "
                  "it is withheld and no cited answer can be given. Try rephrasing the question.")
RETRIED_WARNING = "a first answer was withdrawn by the grounding check ({reason}); searched again ({step} step)"


def review(settings: Settings, state: QueryState) -> bool:
    """Judge the checked answer. True: it was withdrawn and the run searches again (query.asl.json's
    "Grounded?" Choice); False: the state holds the final answer (or the abstention)."""
    if state.grounding is None:  # nothing was checked: a clarification, an abstention, a tool's result
        return _final(settings, state)
    step, share, minimum = state.ladder.step, state.grounding, settings.critic_min_grounding
    if state.tool_history:  # the model read tool results: the excerpts are not what it answers from
        state.critiques.append(Critique(grounding=share, passed=share >= minimum, action="skipped", step=step,
                                        reason="the answer uses tool results, which the excerpt check does not cover"))
        return _final(settings, state)
    emptied = state.answer_status is AnswerStatus.NO_EVIDENCE
    retried = any(c.action == "retried" for c in state.critiques)
    if state.dose_mismatches and not state.extractive and not emptied and not retried and state.hits \
            and ladder.descend(state):
        return _retry(settings, state, share, step, "a sentence's dose, frequency or route is not what its "
                                                    "excerpt says")
    if not emptied and share >= minimum:
        state.critiques.append(Critique(grounding=share, passed=True, action="accepted", step=step,
                                        reason=f"{share:.0%} of the sentences are supported (at least {minimum:.0%})"))
        return _final(settings, state)
    reason = ("no sentence is supported by the excerpts it cites" if emptied
              else f"only {share:.0%} of the sentences are supported (at least {minimum:.0%} needed)")
    if not retried and state.hits and ladder.descend(state):
        return _retry(settings, state, share, step, reason)
    state.critiques.append(Critique(grounding=share, passed=False, action="abstained", step=step,
                                    reason=reason + ("; the retry failed too" if retried else
                                                     "; no ladder step is left to retry")))
    if not emptied:  # an emptied answer already says it was withheld (answering.UNGROUNDED_REPLY)
        state.answer = WITHHELD_REPLY
    state.citations, state.answer_status = [], AnswerStatus.NO_EVIDENCE
    return _final(settings, state)


def _retry(settings: Settings, state: QueryState, share: float, step: str, reason: str) -> bool:
    """Withdraw the answer; the run searches again at the ladder's next step (already descended)."""
    state.critiques.append(Critique(grounding=share, passed=False, action="retried", step=step, reason=reason))
    _withdraw(state)
    state.warnings.append(RETRIED_WARNING.format(reason=reason, step=state.ladder.step))
    state.plan = planner.plan_of(settings, state)
    return True


def _final(settings: Settings, state: QueryState) -> bool:
    """The plan as it ends; a withdrawn answer's tokens count in the run's usage (they were paid for)."""
    withdrawn = state.withdrawn_usage
    state.usage = state.usage.model_copy(update={
        "prompt_tokens": state.usage.prompt_tokens + withdrawn.prompt_tokens,
        "completion_tokens": state.usage.completion_tokens + withdrawn.completion_tokens,
        "cost_usd": state.usage.cost_usd + withdrawn.cost_usd})
    state.withdrawn_usage = TokenUsage()
    state.plan = planner.plan_of(settings, state)
    return False


def _withdraw(state: QueryState) -> None:
    """Forget the withdrawn answer and what its generation added; Rank and Generate run again."""
    del state.warnings[state.warnings_after_rank:]
    state.withdrawn_usage, state.usage = state.usage, TokenUsage()
    state.answer = state.clarifying_question = state.model = state.generation_tier = None
    state.answer_status, state.grounding, state.failure, state.dose_mismatches = None, None, None, 0
    state.citations, state.extractive, state.tool_calls_pending = [], False, False
