"""The query pipeline's search stages as plain functions: plan, search each source, merge (no sockets)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from voiceassist.adapters.local.hybrid_index import LocalHybridIndex
from voiceassist.errors import PhiBoundaryViolation
from voiceassist.models import (
    Chunk,
    DocumentMetadata,
    Intent,
    PhiEntity,
    PhiResult,
    QueryRequest,
    RoutingMode,
    SearchHit,
    SearchMode,
    SearchQuery,
    SourceKind,
    SourcePreferences,
    SourceType,
)
from voiceassist.phi import failed_result
from voiceassist.query.planning import NOT_CONFIGURED, OFF_LOCAL_ONLY, SKIPPED_PHI, SKIPPED_UNCHECKED, plan_sources
from voiceassist.query.rerank import IdentityReranker
from voiceassist.query.retrieval import (
    MAX_CHUNKS_PER_DOCUMENT,
    merge_search_results,
    search_source,
)
from voiceassist.query.state import QueryState
from voiceassist.settings import Settings

DIMENSION = 8


class ConstantEmbedder:
    """Every text gets the same vector: the dense sub-query cannot tell chunks apart."""

    model_id, dimension, max_tokens, in_boundary = "constant", DIMENSION, 512, True

    def __init__(self) -> None:
        self.texts: list[str] = []

    def embed(self, texts: Sequence[str]) -> Any:
        self.texts.extend(texts)
        vector = np.ones((len(texts), DIMENSION), dtype=np.float32)
        return vector / np.linalg.norm(vector[0])

    def count_tokens(self, text: str) -> int:
        return len(text.split())


class KeywordOnly:
    """The index searched by BM25 alone, recording each query."""

    def __init__(self, inner: LocalHybridIndex) -> None:
        self.inner = inner
        self.queries: list[SearchQuery] = []

    def search(self, query: SearchQuery) -> list[SearchHit]:
        self.queries.append(query)
        return self.inner.search(query.model_copy(update={"mode": SearchMode.BM25}))

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


class RecordingReranker:
    name, in_boundary, depth = "recording", True, 0

    def __init__(self) -> None:
        self.calls: list[tuple[str, int, int]] = []

    def rerank(self, query: str, hits: Sequence[SearchHit], *, top_k: int) -> list[SearchHit]:
        self.calls.append((query, len(hits), top_k))
        return list(reversed(hits))[:top_k]


class FakeLiterature:
    name, in_boundary, budget_seconds = "pubmed", False, Settings().pubmed_budget_seconds

    def __init__(self) -> None:
        self.queries: list[tuple[str, int, float | None]] = []

    def search(self, query: str, *, top_k: int = 5, deadline_s: float | None = None) -> list[SearchHit]:
        self.queries.append((query, top_k, deadline_s))
        return [hit("pmid:1", "Metformin in CKD: a cohort study.", 1.0, source="pubmed")]


def hit(doc_key: str, text: str, score: float, *, chunk: int = 0, source: str = "knowledge_base") -> SearchHit:
    metadata = DocumentMetadata(doc_key=doc_key, title=doc_key)
    return SearchHit(chunk=Chunk(chunk_id=f"{doc_key}-{chunk}", doc_id=f"{doc_key}#v1", doc_key=doc_key,
                                 version=1, ordinal=chunk, text=text, token_count=len(text.split()),
                                 metadata=metadata), score=score, source=source)


@pytest.fixture
def index(tmp_path: Path) -> Iterator[LocalHybridIndex]:
    local = LocalHybridIndex(None, dimension=DIMENSION)
    passages = {
        ("arrhythmia", SourceType.TEXTBOOK): "Stroke prevention in atrial fibrillation rests on the CHA2DS2-VASc "
                                             "score.",
        ("pregnancy", SourceType.GUIDELINE): "Anticoagulation in pregnancy: low-molecular-weight heparin is "
                                             "preferred.",
    }
    for (doc_key, source_type), text in passages.items():
        chunk = Chunk(chunk_id=doc_key, doc_id=f"{doc_key}#v1", doc_key=doc_key, version=1, ordinal=0, text=text,
                      token_count=12, metadata=DocumentMetadata(doc_key=doc_key, title=doc_key,
                                                                source_type=source_type))
        local.index([chunk], ConstantEmbedder().embed([text]))
        local.activate(doc_key, 1)
    yield local
    local.close()


@dataclass
class Context:
    """The QueryContext the search steps use: an index, an embedder, a reranker and the outside sources."""

    index: Any
    settings: Settings = field(default_factory=Settings)
    embedder: Any = field(default_factory=lambda: ConstantEmbedder())
    reranker: Any = field(default_factory=IdentityReranker)
    external_sources: dict[str, Any] = field(default_factory=dict)


ANY_EVIDENCE = Settings(evidence_threshold=0.0)


def context(index: Any, *, literature: Any = None, **options: Any) -> Any:
    return Context(index=index, external_sources={"pubmed": literature} if literature else {}, **options)


def state_for(question: str, *, phi: PhiResult | None = None, intent: Intent = Intent.GENERAL,
              **request: Any) -> QueryState:
    state = QueryState(user_id="clinician-1", request=QueryRequest(query=question, **request), intent=intent)
    state.phi = phi if phi is not None else PhiResult(contains_phi=False, redacted_text=state.request.query)
    return state


def test_search_expands_clinical_abbreviations_so_keywords_find_the_long_form(index: LocalHybridIndex) -> None:
    # Given a passage that says "atrial fibrillation" only, and a keyword-only search
    ctx = context(KeywordOnly(index))

    # When the clinician writes "AF"
    hits = search_source(ctx, state_for("AF anticoagulation"), "knowledge_base")

    # Then the passage is found, and both sub-queries got the expanded text
    assert "arrhythmia" in [h.chunk.doc_key for h in hits]
    assert ctx.index.queries[0].text == "AF (atrial fibrillation) anticoagulation"
    assert ctx.embedder.texts == ["AF (atrial fibrillation) anticoagulation"]  # type: ignore[attr-defined]


def test_search_hands_the_fused_hits_to_the_reranker(index: LocalHybridIndex) -> None:
    reranker = RecordingReranker()
    ctx = context(KeywordOnly(index), reranker=reranker)

    hits = search_source(ctx, state_for("AF anticoagulation"), "knowledge_base")

    assert reranker.calls == [("AF (atrial fibrillation) anticoagulation", 2, 10)]
    assert [h.chunk.doc_key for h in hits] == ["pregnancy", "arrhythmia"]  # the reranker's order


def test_a_knowledge_base_branch_searches_only_its_partitions(index: LocalHybridIndex) -> None:
    ctx = context(KeywordOnly(index))
    state = plan_sources(ctx, state_for("anticoagulation for atrial fibrillation", intent=Intent.GENERAL,
                                        sources={"exclude": ["textbooks", "drug_references"]}))

    hits = search_source(ctx, state, state.search_plan[0])

    assert state.search_plan[0].sources == ["guidelines"]
    assert ctx.index.queries[0].filters.source_types == [SourceType.GUIDELINE]
    assert [h.chunk.doc_key for h in hits] == ["pregnancy"]


def test_merge_ranks_a_documents_further_chunks_after_the_others_and_drops_near_duplicates() -> None:
    shared = "Metformin is contraindicated when eGFR is below 30 mL/min per 1.73 m2."
    metformin = ["Start metformin at 500 mg daily.", "The usual maximum is 2,000 mg daily.",
                 "Take it with meals to reduce stomach upset.", "Check vitamin B12 yearly on long-term use."]
    branch = {"source": "knowledge_base", "hits": [
        *(hit("metformin", text, 0.9 - 0.01 * n, chunk=n).model_dump(mode="json") for n, text in enumerate(metformin)),
        hit("renal-dosing", shared, 0.7).model_dump(mode="json"),
        hit("kdigo", shared + " Review yearly.", 0.6).model_dump(mode="json"),
        hit("sulfonylurea", "Gliclazide is an alternative.", 0.5).model_dump(mode="json"),
    ]}

    # (the evidence threshold is off here: test_evidence.py tests what it drops)
    state = merge_search_results(context(None, settings=ANY_EVIDENCE), state_for("metformin dose"), [branch])

    assert MAX_CHUNKS_PER_DOCUMENT == 3
    assert [(h.chunk.doc_key, h.chunk.ordinal) for h in state.hits] == [
        ("metformin", 0), ("metformin", 1), ("metformin", 2), ("renal-dosing", 0), ("sulfonylurea", 0),
        ("metformin", 3)]  # deferred, not dropped: it fills a slot no other document needs


def test_merge_interleaves_the_sources_and_warns_about_a_failed_one() -> None:
    knowledge_base = {"kind": "knowledge_base", "sources": ["guidelines", "textbooks"]}
    branches = [
        {"source": {"kind": "pubmed", "sources": ["pubmed"]}, "error": "SourceUnavailable"},
        {"source": knowledge_base, "hits": [hit("kb", "A guideline passage.", 0.9).model_dump(mode="json")]},
    ]

    state = merge_search_results(context(None, settings=ANY_EVIDENCE), state_for("metformin dose"), branches)

    assert state.sources_searched == ["pubmed", "guidelines", "textbooks"]
    assert state.warnings == ["source pubmed was unavailable (SourceUnavailable); answered without them"]
    assert ([h.chunk.doc_key for h in state.hits], state.answer, state.degraded) == (["kb"], None, False)


def test_plan_sends_a_phi_free_question_to_pubmed_and_searches_it_within_its_budget() -> None:
    literature = FakeLiterature()
    ctx = context(None, literature=literature)

    state = plan_sources(ctx, state_for("metformin in CKD", intent=Intent.CASE_CONSULTATION))
    pubmed = next(b for b in state.search_plan if b.kind is SourceKind.EXTERNAL)
    hits = search_source(ctx, state, pubmed)

    assert [b.sources for b in state.search_plan] == [["guidelines", "textbooks"], ["pubmed"]]
    assert literature.queries == [("metformin in CKD", 5, Settings().pubmed_budget_seconds)]
    assert (hits[0].source, state.warnings) == ("pubmed", [])


PHI = PhiResult(contains_phi=True, entities=[PhiEntity(entity_type="PERSON", start=11, end=21)],
                redacted_text="My patient <PERSON> has CKD: metformin?")


@pytest.mark.parametrize(("phi", "warning"), [
    (PHI, SKIPPED_PHI.format(name="PubMed")),
    (failed_result("detector timed out"), SKIPPED_UNCHECKED.format(name="PubMed"))])
def test_plan_never_selects_pubmed_for_a_question_with_phi_or_an_unchecked_one_and_says_so(
        phi: PhiResult, warning: str) -> None:
    ctx = context(None, literature=FakeLiterature())

    state = plan_sources(ctx, state_for("My patient John Smith has CKD: metformin?", phi=phi,
                                        intent=Intent.CASE_CONSULTATION))

    assert [b.sources for b in state.search_plan] == [["guidelines", "textbooks", "drug_references"]]
    assert state.warnings == [warning]


def test_plan_does_not_warn_about_pubmed_when_the_intent_would_not_search_it() -> None:
    state = plan_sources(context(None, literature=FakeLiterature()),
                         state_for("My patient John Smith: metformin dose?", phi=PHI, intent=Intent.DRUG_INFO))

    assert state.warnings == []


def test_searching_pubmed_with_a_phi_question_is_refused_even_if_a_plan_asked_for_it() -> None:
    literature = FakeLiterature()
    ctx = context(None, literature=literature)
    branch = plan_sources(ctx, state_for("metformin in CKD", intent=Intent.CASE_CONSULTATION)).search_plan[1]

    for phi in (PHI, failed_result("crashed"), PhiResult(contains_phi=False, redacted_text="another text")):
        with pytest.raises(PhiBoundaryViolation):
            search_source(ctx, state_for("My patient John Smith has CKD: metformin?", phi=phi), branch)

    assert literature.queries == []


def test_plan_warns_when_pubmed_is_asked_for_but_not_configured() -> None:
    state = plan_sources(context(None), state_for("metformin in CKD",
                                                  sources=SourcePreferences.model_validate({"prioritize": ["pubmed"]})))

    assert state.warnings == [NOT_CONFIGURED.format(name="PubMed")]
    assert [b.sources for b in state.search_plan] == [["textbooks", "guidelines", "drug_references"]]


def test_local_only_mode_never_searches_pubmed_and_says_so_when_it_was_asked_for() -> None:
    literature = FakeLiterature()
    ctx = context(None, literature=literature)
    ctx.settings = Settings(routing_mode=RoutingMode.LOCAL_ONLY)
    asked = SourcePreferences.model_validate({"prioritize": ["pubmed"]})

    state = plan_sources(ctx, state_for("metformin in CKD", intent=Intent.CASE_CONSULTATION, sources=asked))

    assert state.warnings == [OFF_LOCAL_ONLY.format(name="PubMed")]
    assert all(branch.kind is not SourceKind.EXTERNAL for branch in state.search_plan)
    pubmed_branch = plan_sources(context(None, literature=literature),
                                 state_for("metformin in CKD", intent=Intent.CASE_CONSULTATION)).search_plan[1]
    with pytest.raises(PhiBoundaryViolation):  # even a plan made elsewhere is refused at the last step
        search_source(ctx, state_for("metformin in CKD"), pubmed_branch)
    assert literature.queries == []
