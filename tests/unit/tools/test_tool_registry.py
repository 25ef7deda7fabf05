"""The registry's definitions, and the search tools through the composition root's executor (real Presidio,
the embedded index)."""

from __future__ import annotations

from voiceassist.composition import Dependencies
from voiceassist.models import Chunk, DocumentMetadata, SourceType, ToolCall
from voiceassist.tools.calculators import CALCULATORS
from voiceassist.tools.catalogue import default_registry
from voiceassist.tools.executor import Caller

CLINICIAN = Caller(user_id="clinician-1")


def test_registry_lists_the_tools_with_json_schemas_from_their_params() -> None:
    definitions = {d.name: d for d in default_registry().definitions()}

    assert set(definitions) == {"calculate_medical_score", "search_knowledge_base", "search_guidelines",
                                "search_pubmed", "generate_differential_diagnosis"}
    calculator = definitions["calculate_medical_score"]
    assert calculator.parameters["properties"]["calculator"]["enum"] == sorted(CALCULATORS)
    assert calculator.parameters["required"] == ["calculator"]
    assert (calculator.category, calculator.requires_phi) == ("calculation", True)
    assert definitions["search_pubmed"].requires_phi is False  # it leaves the boundary
    assert definitions["search_guidelines"].parameters["properties"]["top_k"]["maximum"] == 10


def _index(deps: Dependencies) -> None:
    texts = {"guideline": ("Anticoagulate atrial fibrillation when CHA2DS2-VASc is 2 or more in men.",
                           SourceType.GUIDELINE),
             "textbook": ("Atrial fibrillation is an irregular narrow-complex tachycardia.", SourceType.TEXTBOOK)}
    for key, (text, source_type) in texts.items():
        metadata = DocumentMetadata(doc_key=key, title=f"The {key}", source_type=source_type)
        chunk = Chunk(chunk_id=f"{key}-0", doc_id=f"{key}#v1", doc_key=key, version=1, ordinal=0, text=text,
                      token_count=12, metadata=metadata)
        deps.index.index([chunk], deps.embedder.embed([text]))
        deps.index.activate(key, 1)


def test_search_tools_return_citable_passages_and_guidelines_only_guidelines(local_deps: Dependencies) -> None:
    _index(local_deps)
    executor = local_deps.tool_executor

    everything = executor.execute(ToolCall(name="search_knowledge_base",
                                           arguments={"query": "atrial fibrillation"}), CLINICIAN)
    guidelines = executor.execute(ToolCall(name="search_guidelines", arguments={"query": "atrial fibrillation"}),
                                  CLINICIAN)

    assert {h.chunk.doc_key for h in everything.sources} == {"guideline", "textbook"}
    assert [h.chunk.doc_key for h in guidelines.sources] == ["guideline"]
    assert guidelines.content.startswith("(1) The guideline: Anticoagulate")


def test_search_pubmed_refuses_a_patients_details_before_anything_leaves(local_deps: Dependencies) -> None:
    result = local_deps.tool_executor.execute(
        ToolCall(name="search_pubmed", arguments={"query": "apixaban for John Smith, born 03/04/1950"}), CLINICIAN)

    assert (result.status, result.error) == (422, "phi_refused")


def test_search_pubmed_without_pubmed_configured_is_a_dependency_error(local_deps: Dependencies) -> None:
    result = local_deps.tool_executor.execute(
        ToolCall(name="search_pubmed", arguments={"query": "metformin dosing in renal impairment"}), CLINICIAN)

    assert (result.ok, result.status, result.error) == (False, 502, "dependency_failed")
