"""Source selection, the parallel searches it becomes, and the merge of their rankings."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from voiceassist.errors import InvalidInput
from voiceassist.models import (
    Chunk,
    DocumentMetadata,
    Intent,
    QueryRequest,
    SearchHit,
    SourceKind,
    SourceName,
    SourcePreferences,
    SourceType,
)
from voiceassist.query.sources import (
    KNOWLEDGE_BASE_BUDGET_S,
    PARTITIONS,
    interleave,
    search_branches,
    select_sources,
)

EVERYTHING = {name.value for name in SourceName}
KNOWLEDGE_BASE_ONLY = EVERYTHING - {"pubmed"}


def names(intent: Intent, available: set[str] = EVERYTHING, **preferences: list[str]) -> list[str]:
    return [s.name for s in select_sources(intent, SourcePreferences.model_validate(preferences), available)]


def hit(doc_key: str, score: float, source: str = "knowledge_base") -> SearchHit:
    chunk = Chunk(chunk_id=doc_key, doc_id=doc_key, doc_key=doc_key, version=1, ordinal=0, text=doc_key,
                  token_count=1, metadata=DocumentMetadata(doc_key=doc_key, title=doc_key))
    return SearchHit(chunk=chunk, score=score, source=source)


def test_every_document_type_belongs_to_exactly_one_knowledge_base_partition() -> None:
    types = [t for partition in PARTITIONS.values() for t in partition]

    assert sorted(types) == sorted(SourceType)  # journal, web, other (and ingested PubMed) stay findable


@pytest.mark.parametrize(("intent", "expected"), [
    (Intent.DRUG_INFO, ["drug_references", "guidelines", "textbooks"]),
    (Intent.TREATMENT, ["guidelines", "drug_references", "textbooks"]),
    (Intent.GUIDELINE, ["guidelines", "textbooks", "drug_references"]),
    (Intent.DIAGNOSIS, ["textbooks", "guidelines", "pubmed"]),
    (Intent.CASE_CONSULTATION, ["guidelines", "textbooks", "pubmed"]),
    (Intent.GENERAL, ["textbooks", "guidelines", "drug_references"]),
])
def test_select_sources_follows_the_intent_and_keeps_at_most_three(intent: Intent, expected: list[str]) -> None:
    assert names(intent) == expected


def test_select_sources_gives_an_unavailable_sources_slot_to_the_next_one() -> None:
    # Without PubMed a case consultation searches the whole knowledge base, as before sources existed.
    assert names(Intent.CASE_CONSULTATION, KNOWLEDGE_BASE_ONLY) == ["guidelines", "textbooks", "drug_references"]


def test_select_sources_puts_prioritized_sources_first_and_never_searches_excluded_ones() -> None:
    assert names(Intent.DRUG_INFO, prioritize=["pubmed", "textbooks"], exclude=["guidelines"]) == [
        "pubmed", "textbooks", "drug_references"]
    assert names(Intent.GENERAL, exclude=["textbooks", "drug_references"]) == ["guidelines", "pubmed"]


def test_select_sources_refuses_a_name_that_is_no_source() -> None:
    preferences = SourcePreferences.model_construct(prioritize=["cochrane"], exclude=[])

    with pytest.raises(InvalidInput, match="unknown source cochrane; known sources: textbooks, guidelines, "
                                           "drug_references, pubmed"):
        select_sources(Intent.GENERAL, preferences, EVERYTHING)


@pytest.mark.parametrize(("preferences", "message"), [
    ({"prioritize": ["cochrane"]}, "'textbooks', 'guidelines', 'drug_references' or 'pubmed'"),
    ({"prioritize": ["pubmed"], "exclude": ["pubmed"]}, "pubmed cannot be both prioritized and excluded"),
    ({"exclude": ["textbooks", "guidelines", "drug_references", "pubmed"]}, "every source is excluded"),
    ({"prioritize": ["textbooks", "guidelines", "drug_references", "pubmed"]}, "at most 3 items"),
])
def test_query_request_rejects_source_preferences_with_a_message_that_says_how_to_fix_them(
        preferences: dict[str, list[str]], message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        QueryRequest.model_validate({"query": "metformin dose", "sources": preferences})


def test_search_branches_search_the_selected_partitions_together_and_pubmed_apart() -> None:
    selected = select_sources(Intent.CASE_CONSULTATION, SourcePreferences(prioritize=[SourceName.PUBMED]),
                              EVERYTHING)

    branches = search_branches(selected)

    assert [(b.kind, b.sources) for b in branches] == [(SourceKind.EXTERNAL, ["pubmed"]),
                                                       (SourceKind.KNOWLEDGE_BASE, ["guidelines", "textbooks"])]
    knowledge_base = branches[1]
    assert set(knowledge_base.source_types) == {SourceType.GUIDELINE, *PARTITIONS[SourceName.TEXTBOOKS]}
    assert knowledge_base.timeout_seconds > knowledge_base.budget_seconds == KNOWLEDGE_BASE_BUDGET_S
    assert isinstance(branches[0].timeout_seconds, int)  # TimeoutSecondsPath takes whole seconds


def test_search_branches_search_the_whole_knowledge_base_unfiltered_when_every_partition_is_selected() -> None:
    branches = search_branches(select_sources(Intent.GENERAL, SourcePreferences(), KNOWLEDGE_BASE_ONLY))

    assert [(b.sources, b.source_types) for b in branches] == [
        (["textbooks", "guidelines", "drug_references"], [])]


def test_search_branches_narrow_the_partitions_to_the_callers_type_filter_or_drop_them() -> None:
    selected = select_sources(Intent.DRUG_INFO, SourcePreferences(), EVERYTHING)

    narrowed = search_branches(selected, source_types=[SourceType.GUIDELINE, SourceType.JOURNAL])

    assert narrowed[0].source_types == [SourceType.GUIDELINE, SourceType.JOURNAL]
    guidelines_only = select_sources(Intent.GENERAL, SourcePreferences(prioritize=[SourceName.GUIDELINES],
                                                                       exclude=[SourceName.TEXTBOOKS,
                                                                                SourceName.DRUG_REFERENCES]),
                                     KNOWLEDGE_BASE_ONLY)
    assert search_branches(guidelines_only, source_types=[SourceType.DRUG_REFERENCE]) == []


def test_interleave_alternates_the_sources_in_priority_order_each_keeping_its_own_ranking() -> None:
    knowledge_base = [hit("kb1", 1.0), hit("kb2", 0.4), hit("kb3", 0.1)]
    pubmed = [hit("pm1", 1.0, "pubmed"), hit("pm2", 0.9, "pubmed")]

    assert [h.chunk.doc_key for h in interleave([knowledge_base, pubmed])] == ["kb1", "pm1", "kb2", "pm2", "kb3"]
    assert [h.chunk.doc_key for h in interleave([pubmed, [], knowledge_base[:1]])] == ["pm1", "kb1", "pm2"]
