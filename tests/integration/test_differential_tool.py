"""generate_differential_diagnosis through the executor, with the in-boundary model an OpenAI-compatible stub
server, a cloud model stub that must never be called, the PubMed stub, the real PHI detector and a small
knowledge base. The presentation may carry PHI: then only the in-boundary model reads it, and PubMed and the
cloud model receive nothing (a failed PHI check counts as PHI)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.stubs.openai_stub import OpenAIStub, StubReply
from tests.stubs.query_stack import CrashingDetector, close
from tests.support.clock import clear_of_month_end
from tests.support.pubmed_stub import PubMedStub
from voiceassist.access import Caller as AdminCaller
from voiceassist.access import Role
from voiceassist.adapters.openai.chat import OpenAIChatModel
from voiceassist.admin.ledger import month_of
from voiceassist.composition import Dependencies
from voiceassist.models import Chunk, DocumentMetadata, SourceType, ToolCall, ToolResult, utc_now
from voiceassist.phi import FailClosedDetector
from voiceassist.settings import Settings
from voiceassist.tools.catalogue import default_registry
from voiceassist.tools.differential import parse_differential
from voiceassist.tools.executor import Caller

USER = "clinician-1"
PASSAGES = {
    "cap": ("Community-acquired pneumonia", "Community-acquired pneumonia presents with fever, productive "
            "cough, pleuritic chest pain and focal crackles; confirm with a chest radiograph."),
    "pe": ("Pulmonary embolism", "Pulmonary embolism presents with pleuritic chest pain, breathlessness, "
           "tachycardia and hypoxia; assess with the Wells score and CT pulmonary angiography."),
    "hf": ("Acute heart failure", "Acute heart failure presents with breathlessness, orthopnoea, bilateral "
           "crackles and raised jugular venous pressure."),
}
DIFFERENTIAL = ("1. Community-acquired pneumonia - fever, productive cough and focal crackles [1]\n"
                "2. Pulmonary embolism - pleuritic pain with tachycardia [2, 9]\n"
                "Some words the model added.\n"
                "3. Acute heart failure - breathlessness [3]\n")
CLEAN = "Fever, productive cough, pleuritic chest pain and tachycardia for three days in a 67-year-old man"
WITH_PHI = ("Mr. John Smith, MRN 4417823, phone 617-555-0199: fever, productive cough, pleuritic chest pain and "
            "tachycardia for three days")
PHI_VALUES = ("John Smith", "4417823", "617-555-0199")


@dataclass
class Stack:
    deps: Dependencies
    local: OpenAIStub
    cloud: OpenAIStub
    pubmed: PubMedStub

    def call(self, **arguments: Any) -> ToolResult:
        return self.deps.tool_executor.execute(ToolCall(name="generate_differential_diagnosis",
                                                        arguments=arguments), Caller(user_id=USER, channel="api"))


@pytest.fixture
def stack(tmp_path: Path, shared_embedder: Any, shared_phi_detector: Any) -> Iterator[Stack]:
    with OpenAIStub([StubReply(text=DIFFERENTIAL)], model="llama-3.1-8b") as local, \
            OpenAIStub([StubReply(text="cloud")], model="gpt-4o-mini") as cloud, PubMedStub() as pubmed:
        deps = Dependencies(Settings(data_dir=tmp_path / "data", pubmed_base_url=pubmed.base_url,
                                     pubmed_budget_seconds=2.0, pubmed_requests_per_second=10))
        deps.settings.data_dir.mkdir(parents=True)
        deps.embedder, deps.phi_detector = shared_embedder, shared_phi_detector  # type: ignore[misc]
        deps.local_chat = OpenAIChatModel("llama-3.1-8b", in_boundary=True, base_url=local.base_url)  # type: ignore[misc]
        deps.cloud_chat = OpenAIChatModel("gpt-4o-mini", in_boundary=False, base_url=cloud.base_url)  # type: ignore[misc]
        for key, (title, text) in PASSAGES.items():
            metadata = DocumentMetadata(doc_key=key, title=title, source_type=SourceType.GUIDELINE)
            chunk = Chunk(chunk_id=f"{key}-0", doc_id=f"{key}#v1", doc_key=key, version=1, ordinal=0, text=text,
                          token_count=30, metadata=metadata)
            deps.index.index([chunk], deps.embedder.embed([text]))
            deps.index.activate(key, 1)
        yield Stack(deps, local, cloud, pubmed)
        close(deps)


def _sent(stub: OpenAIStub) -> str:
    return "\n".join(str(body) for body in stub.requests)


def test_a_clean_presentation_gets_a_ranked_cited_differential_from_the_knowledge_base_and_pubmed(
        stack: Stack) -> None:
    result = stack.call(presentation=CLEAN)

    assert result.status == 200, result.content
    assert [(d["rank"], d["diagnosis"], d["citations"]) for d in result.data["diagnoses"]] == [
        (1, "Community-acquired pneumonia", [1]), (2, "Pulmonary embolism", [2]), (3, "Acute heart failure", [3])]
    assert result.content.splitlines()[0] == ("1. Community-acquired pneumonia - fever, productive cough and focal "
                                              "crackles [1]")
    assert result.data["pubmed"] == "searched" and stack.pubmed.requests_to("esearch")
    assert any(hit.source == "pubmed" for hit in result.sources)  # PubMed's articles are citable too
    assert {hit.chunk.doc_key for hit in result.sources} >= {"cap", "pe", "hf"}
    assert CLEAN in _sent(stack.local) and stack.cloud.requests == []
    assert not result.carries_phi


def test_a_presentation_with_phi_stays_inside_the_boundary(stack: Stack) -> None:
    result = stack.call(presentation=WITH_PHI)

    assert result.status == 200 and result.carries_phi
    assert result.data["pubmed"].startswith("skipped")
    assert stack.pubmed.requests == [] and stack.cloud.requests == []  # nothing left the boundary
    assert "John Smith" in _sent(stack.local)  # the in-boundary model may read it
    [record] = stack.deps.audit.list(user_id=USER)
    assert record.phi_detected and not any(value in record.model_dump_json() for value in PHI_VALUES)


def test_a_failed_phi_check_keeps_pubmed_out(stack: Stack) -> None:
    stack.deps.phi_detector = FailClosedDetector(CrashingDetector())  # type: ignore[misc]

    result = stack.call(presentation=CLEAN)

    assert result.status == 200 and result.carries_phi  # unchecked counts as PHI
    assert stack.pubmed.requests == [] and stack.cloud.requests == []


def test_pubmed_can_be_left_out(stack: Stack) -> None:
    result = stack.call(presentation=CLEAN, include_pubmed=False)

    assert (result.status, result.data["pubmed"]) == (200, "not asked") and stack.pubmed.requests == []


@pytest.mark.parametrize("cloud_only", [True, False])
def test_without_an_in_boundary_model_it_refuses_in_our_words(stack: Stack, cloud_only: bool) -> None:
    stack.deps.local_chat = None  # type: ignore[misc]
    if not cloud_only:
        stack.deps.cloud_chat = None  # type: ignore[misc]

    result = stack.call(presentation=WITH_PHI)

    assert (result.status, result.error) == (503, "not_configured")
    assert "needs the in-boundary model" in result.content and "John" not in result.content
    assert stack.cloud.requests == [] and stack.pubmed.requests == []


def test_a_failing_in_boundary_model_is_a_502_that_names_no_input(stack: Stack) -> None:
    stack.deps.local_chat = OpenAIChatModel("llama-3.1-8b", in_boundary=True,  # type: ignore[misc]
                                            base_url="http://127.0.0.1:9/v1", timeout_s=1)

    result = stack.call(presentation=WITH_PHI)

    assert (result.status, result.error) == (502, "model_unavailable")
    assert result.content.startswith("the in-boundary model failed to answer (")
    assert not any(value in result.content for value in PHI_VALUES) and stack.cloud.requests == []


def test_the_catalogue_lists_it_as_an_in_boundary_medical_tool() -> None:
    definition = next(d for d in default_registry().definitions() if d.name == "generate_differential_diagnosis")

    assert (definition.category, definition.requires_phi, definition.risk_level) == ("medical", True, "medium")
    assert not definition.requires_confirmation and definition.allowed_roles == ["clinician", "admin"]
    assert definition.parameters["required"] == ["presentation"]


def test_parse_keeps_the_ranked_lines_and_only_citations_of_real_excerpts() -> None:
    parsed = parse_differential("1) Sepsis: hypotension [1][4]\n- a bullet\n2. Viral illness\n3. Drug fever [2]",
                                excerpts=2, limit=2)

    assert [(d.rank, d.diagnosis, d.reason, d.citations) for d in parsed] == [
        (1, "Sepsis", "hypotension", [1]), (2, "Viral illness", "", [])]


def test_the_differential_model_call_is_billed_to_the_caller_without_the_presentation(
        stack: Stack, monkeypatch: pytest.MonkeyPatch) -> None:
    clear_of_month_end(monkeypatch)
    result = stack.call(presentation=CLEAN)

    assert result.status == 200
    users = stack.deps.billing.users(month_of(utc_now()))
    spend = users[USER]
    assert (spend.calls, spend.prompt_tokens, spend.completion_tokens) == (1, 100, 20)  # the stub's token counts
    rows = stack.deps._sqlite.query("SELECT * FROM billing_events")  # type: ignore[attr-defined]
    assert [(row[1], row[6], row[7]) for row in rows] == [(USER, "llama-3.1-8b", 1)]  # user, model, in boundary
    assert "cough" not in json.dumps(rows).lower()  # the principal and the model, never the presentation


def test_the_differential_uses_the_admin_configurations_in_boundary_model(stack: Stack) -> None:
    admin = AdminCaller(user_id="admin-1", roles=frozenset({Role.ADMIN}))
    stack.deps.config_store.patch({"models": {"in_boundary": {"model": "llama-3.3-70b"}}}, admin, stack.deps.audit)

    result = stack.call(presentation=CLEAN)

    assert result.status == 200 and stack.local.requests[-1]["model"] == "llama-3.3-70b"
    assert stack.cloud.requests == []
