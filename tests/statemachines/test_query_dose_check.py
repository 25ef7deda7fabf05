"""A scripted model that changes a dose ("5 mg" -> "10 mg", "twice daily" -> "four times daily") on the real
query.asl.json: the grounding check removes the sentence, the critic sends the answer back one ladder step
down, and the changed dose is never returned as supported; the warning says why."""

from __future__ import annotations

from tests.statemachines import test_query_tool_loop as tool_loop
from tests.statemachines.test_query_tool_loop import ToolScriptModel, ask, text
from voiceassist.composition import Dependencies
from voiceassist.models import Chunk, DocumentMetadata, SourceType

deps = tool_loop.deps  # the tool loop's stack: the real state machine and handlers on the embedded stack

APIXABAN = ("For stroke prevention in atrial fibrillation, the usual apixaban dose is 5 mg orally twice daily; "
            "reduce to 2.5 mg twice daily when two of age 80 or over, weight 60 kg or less, creatinine 1.5 mg/dL "
            "or more apply.")
QUESTION = "What is the usual apixaban dose for stroke prevention in atrial fibrillation?"


def seed(deps: Dependencies) -> None:
    metadata = DocumentMetadata(doc_key="apixaban", title="Apixaban dosing", source_type=SourceType.GUIDELINE)
    chunk = Chunk(chunk_id="apx-0", doc_id="apixaban#v1", doc_key="apixaban", version=1, ordinal=0, text=APIXABAN,
                  token_count=40, metadata=metadata)
    deps.index.index([chunk], deps.embedder.embed([APIXABAN]))
    deps.index.activate("apixaban", 1)


def test_a_changed_frequency_is_sent_back_and_never_returned(deps: Dependencies) -> None:
    seed(deps)
    cloud = ToolScriptModel("gpt-4o-mini", in_boundary=False, script=[
        text("Apixaban is used for stroke prevention in atrial fibrillation [1]. The usual apixaban dose is 5 mg "
             "orally four times daily [1]."),
        text("The usual apixaban dose is 5 mg orally twice daily [1].")])

    response = ask(deps, QUESTION, cloud=cloud)

    assert "four times daily" not in response.answer and "twice daily" in response.answer
    plan = response.metadata.plan
    assert plan is not None and plan.critiques[0].action == "retried"
    assert "dose, frequency or route" in plan.critiques[0].reason
    assert any("dose, frequency or route" in warning for warning in response.metadata.warnings)


def test_a_changed_amount_is_never_returned_even_when_the_retry_repeats_it(deps: Dependencies) -> None:
    seed(deps)
    cloud = ToolScriptModel("gpt-4o-mini", in_boundary=False, script=[
        text("Apixaban is used for stroke prevention in atrial fibrillation [1]. The usual dose is 10 mg orally "
             "twice daily [1].")])

    response = ask(deps, QUESTION, cloud=cloud)

    assert "10 mg" not in response.answer
    assert any("10 mg is not in the excerpt it cites" in warning for warning in response.metadata.warnings)
