"""An impossible patient through the query's tool loop on the real query.asl.json: the model's calculator call is
refused with a 400 naming the field, the value and the plausible range, the clinician is told so (never a score),
and the audit records the 400; a child on an adult score gets its result with the warning before the advice."""

from __future__ import annotations

from tests.statemachines import test_query_tool_loop as tool_loop
from tests.statemachines.test_query_tool_loop import QUESTION, ToolScriptModel, ask, calls, text, tool_audit
from voiceassist.composition import Dependencies
from voiceassist.models import ToolCall

deps = tool_loop.deps  # the tool loop's stack: a seeded knowledge base, the test tools, the real state machine

IMPOSSIBLE = ToolCall(name="calculate_medical_score", arguments={
    "calculator": "ckd_epi", "parameters": {"sex": "male", "age": 0, "creatinine_mg_dl": 1e-300}})
CHILD = ToolCall(name="calculate_medical_score", arguments={
    "calculator": "chadsvasc", "parameters": {"age": 12, "sex": "female", "hypertension": True}})


def test_an_impossible_patient_is_refused_naming_the_field_and_range_never_scored(deps: Dependencies) -> None:
    cloud = ToolScriptModel("gpt-4o-mini", in_boundary=False,
                            script=[calls(IMPOSSIBLE), text("eGFR 2.6e74, stage G1 [1].")])

    response = ask(deps, QUESTION, cloud=cloud)

    assert "creatinine_mg_dl: 1e-300 mg/dL is outside the plausible range 0.1-40 mg/dL" in response.answer
    assert "eGFR" not in response.answer and response.metadata.answer_status == "tool_error"
    assert len(cloud.seen) == 1 and tool_audit(deps) == [("calculate_medical_score", 400)]


def test_the_model_reads_an_adult_scores_warning_for_a_child_before_the_advice(deps: Dependencies) -> None:
    cloud = ToolScriptModel("gpt-4o-mini", in_boundary=False, script=[calls(CHILD), text("Score 2 [1].")])

    ask(deps, QUESTION, cloud=cloud)

    reply = cloud.tool_replies(1)[0]
    warning = "Warning: chadsvasc: age 12 is outside the validated population"
    assert warning in reply and reply.index(warning) < reply.index("Consider")  # before the advice
    assert tool_audit(deps) == [("calculate_medical_score", 200)]
