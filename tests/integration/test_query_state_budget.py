"""What an ordinary question costs the state machine, counted, not timed: the states it passes through and the
bytes of state each one receives (on AWS each Task is a Lambda invocation, and every state's input is copied,
serialized and size-checked by the interpreter). A feature that adds states or state to every question has to
raise these budgets here, and say why (docs/benchmarks.md, "Query pipeline: states and state bytes").

The question is asked through query.asl.json with the real handlers on the sample corpus, with a cloud model
that answers at once: no tool, no clarification, no retry.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from voiceassist_local.asl_runner import ExecutionTrace, LocalPipelineRunner

from voiceassist.composition import Dependencies
from voiceassist.models import AnswerStatus, ChatCompletion, ChatMessage, QueryRequest
from voiceassist.query.state import QueryState, response_of

QUESTION = "What is the maximum daily dose of metformin?"
ORDINARY_PATH = [
    "Detect PHI", "Classify Intent", "Needs Clarification?", "Search Sources", "Search One Source",
    "Rank Results", "Good Results?", "Generate With Primary Model", "Tool Calls?", "Assemble Answer",
    "Grounded?", "Write Audit Record",
]
# Measured on this question: 12 states, 48,792 bytes of state in all. 43,383 at first; 34,250 once the steps left
# out the fields still at their defaults; then 48,792 when the evidence step began to keep 5 supported passages
# for this question instead of 2 (the concept layer, 2026-11-28; not the reranker: the same with
# VOICEASSIST_RERANKER=identity), each kept passage riding on every later state. bench/query.py prints the same
# for its question ("states").
STATE_BUDGET = 12
STATE_BYTES_BUDGET = 50_000
# No state of the tool loop, the fallback tiers, the ladder's second search or the critic's retry does work.
NOT_FOR_AN_ORDINARY_QUESTION = {"Run Tools", "Run One Tool", "Back To The Tier", "Generate With Fallback Model",
                                "Compose Extractive Answer"}


class AnsweringModel:
    """A cloud chat model that answers at once, citing the first excerpt."""

    name, in_boundary = "gpt-4o-mini", False

    def complete(self, messages: Sequence[ChatMessage], *, max_tokens: int = 700,
                 temperature: float = 0.1) -> ChatCompletion:
        return ChatCompletion(text="The usual maximum is 2,000 mg per day in divided doses [1].", model=self.name)


def ordinary_question(deps: Dependencies, runner: LocalPipelineRunner) -> ExecutionTrace:
    deps.cloud_chat = AnsweringModel()  # type: ignore[assignment]
    start: dict[str, Any] = QueryState(user_id="clinician-1", request=QueryRequest(query=QUESTION)).model_dump(
        mode="json")
    trace = runner.trace("query", start)
    response = response_of(QueryState.model_validate(trace.output))
    assert response.metadata.answer_status is AnswerStatus.ANSWERED and response.metadata.model == "gpt-4o-mini"
    return trace


def test_query_state_budget_ordinary_question_passes_only_the_states_it_uses(
        kb_deps: Dependencies, kb_runner: LocalPipelineRunner) -> None:
    trace = ordinary_question(kb_deps, kb_runner)

    names = [visit.name for visit in trace.states]
    assert names == ORDINARY_PATH
    assert not NOT_FOR_AN_ORDINARY_QUESTION & set(names)
    assert len(names) <= STATE_BUDGET


def test_query_state_budget_ordinary_question_carries_state_within_its_budget(
        kb_deps: Dependencies, kb_runner: LocalPipelineRunner) -> None:
    trace = ordinary_question(kb_deps, kb_runner)

    assert all(visit.input_bytes > 0 for visit in trace.states)
    assert trace.state_bytes <= STATE_BYTES_BUDGET, [(v.name, v.input_bytes) for v in trace.states]
