"""One behaviour suite for every SearchIndex: the embedded engine, the OpenSearch adapter replaying recorded
cluster responses, and a real cluster when OPENSEARCH_URL is set (marker `opensearch`).

The replay transport checks each _search and _count request against the recorded one (so a changed query
body fails here) and answers with the recorded response; writes get the cluster's usual acknowledgement.
Recorded interactions live in tests/fixtures/opensearch/contract_cassettes.json, one list per test.
"""

from __future__ import annotations

import json
import os
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from opensearchpy import OpenSearch, Transport
from opensearchpy.serializer import JSONSerializer

from voiceassist.adapters.aws.opensearch_index import OpenSearchIndex
from voiceassist.adapters.local.hybrid_index import LocalHybridIndex
from voiceassist.errors import InvalidInput, NotFound
from voiceassist.models import (
    Chunk,
    DocumentMetadata,
    FusionMethod,
    SearchFilters,
    SearchMode,
    SearchQuery,
    SourceType,
)
from voiceassist.ports import SearchIndex

CASSETTES = Path(__file__).resolve().parents[1] / "fixtures" / "opensearch" / "contract_cassettes.json"
DIMENSION = 4
ALIAS = "contract-chunks"


def make_chunk(doc_key: str, version: int, text: str, *, source_type: SourceType, specialty: str, year: int,
               ordinal: int = 0) -> Chunk:
    metadata = DocumentMetadata(doc_key=doc_key, title=f"{doc_key} reference", source_type=source_type,
                                specialty=specialty, year=year)
    return Chunk(chunk_id=f"{doc_key}-v{version}-{ordinal}", doc_id=f"{doc_key}#v{version}", doc_key=doc_key,
                 version=version, ordinal=ordinal, text=text, token_count=len(text.split()),
                 metadata=metadata)


ASPIRIN_V1 = make_chunk("aspirin", 1, "Low-dose aspirin 75 mg daily is advised after myocardial infarction.",
                        source_type=SourceType.GUIDELINE, specialty="Cardiology", year=2018)
ASPIRIN_V2 = make_chunk("aspirin", 2, "Low-dose aspirin 100 mg daily is advised after myocardial infarction.",
                        source_type=SourceType.GUIDELINE, specialty="Cardiology", year=2024)
METFORMIN = make_chunk("metformin", 1, "Metformin is the first-line drug for type 2 diabetes mellitus.",
                       source_type=SourceType.DRUG_REFERENCE, specialty="Endocrinology", year=2021)
ASTHMA = make_chunk("asthma", 1, "Inhaled corticosteroids control persistent asthma in children.",
                    source_type=SourceType.TEXTBOOK, specialty="Pulmonology", year=2015)
WARFARIN = make_chunk("warfarin", 1, "Warfarin bleeding risk rises with interacting antibiotics.",
                      source_type=SourceType.DRUG_REFERENCE, specialty="Cardiology", year=2020)
VKA = make_chunk("vka", 1, "Vitamin K antagonists need regular INR monitoring.",
                 source_type=SourceType.GUIDELINE, specialty="Haematology", year=2019)
VECTORS = {
    ASPIRIN_V1.chunk_id: [1.0, 0.0, 0.0, 0.0],
    ASPIRIN_V2.chunk_id: [1.0, 0.0, 0.0, 0.0],
    METFORMIN.chunk_id: [0.0, 1.0, 0.0, 0.0],
    ASTHMA.chunk_id: [0.0, 0.0, 1.0, 0.0],
    WARFARIN.chunk_id: [0.0, 0.0, 0.0, 1.0],
    VKA.chunk_id: [0.6, 0.0, 0.0, 0.8],
}
# Close to VKA in meaning (cosine 1.0), close to WARFARIN (0.8), but only WARFARIN shares its words.
WARFARIN_QUERY_VECTOR = [0.6, 0.0, 0.0, 0.8]


def add(index: SearchIndex, *chunks: Chunk, activate: bool = True) -> None:
    index.index(list(chunks), np.asarray([VECTORS[c.chunk_id] for c in chunks], dtype=np.float32))
    if activate:
        for doc_key, version in sorted({(c.doc_key, c.version) for c in chunks}):
            index.activate(doc_key, version)


def add_corpus(index: SearchIndex) -> None:
    add(index, ASPIRIN_V2, METFORMIN, ASTHMA, WARFARIN, VKA)


def query(text: str, **fields: Any) -> SearchQuery:
    fields.setdefault("vector", WARFARIN_QUERY_VECTOR)
    return SearchQuery(text=text, **fields)


def doc_keys(index: SearchIndex, search: SearchQuery) -> list[str]:
    return [hit.chunk.doc_key for hit in index.search(search)]


# ----------------------------------------------------------------------------------------------- backends


class ReplayTransport(Transport):
    """Answers _search/_count from a cassette (checking the request), acknowledges writes like a cluster."""

    def __init__(self, hosts: Any, *, cassette: list[dict[str, Any]], **_: Any) -> None:
        self.serializer = JSONSerializer()
        self.cassette = list(cassette)
        self.requests: list[dict[str, Any]] = []

    def perform_request(self, method: str, url: str, params: Any = None, body: Any = None,
                        timeout: Any = None, ignore: Any = (), headers: Any = None) -> Any:
        request = {"method": method, "path": url, "params": dict(params or {}), "body": _json_body(body)}
        self.requests.append(request)
        if url.endswith(("/_search", "/_count")):
            assert self.cassette, f"no recorded response left for {method} {url}"
            recorded = self.cassette.pop(0)
            compared = ("method", "path", "params", "body")
            assert {k: request[k] for k in compared} == {k: recorded[k] for k in compared}, "request changed"
            return recorded["response"]
        if url.endswith("/_bulk"):
            actions = [line for line in request["body"] if "index" in line]
            return {"took": 3, "errors": False, "items": [
                {"index": {"_index": f"{ALIAS}-v1", "_id": a["index"]["_id"], "status": 201,
                           "result": "created"}} for a in actions]}
        if url.endswith(("/_update_by_query", "/_delete_by_query")):
            return {"took": 12, "timed_out": False, "total": 0, "updated": 0, "deleted": 0, "failures": []}
        return {"_shards": {"total": 2, "successful": 2, "failed": 0}}


def _json_body(body: Any) -> Any:
    if isinstance(body, str | bytes):
        text = body.decode() if isinstance(body, bytes) else body
        return [json.loads(line) for line in text.splitlines() if line.strip()]
    return body


def cassette_key(item: pytest.Item) -> str:
    """'test_name' or 'test_name[case]': the test's own parameters, without the backend's."""
    case = item.callspec.id.replace("opensearch-replay", "").strip("-") if hasattr(item, "callspec") else ""
    name = getattr(item, "originalname", item.name)
    return f"{name}[{case}]" if case else name


def load_cassette(key: str) -> list[dict[str, Any]]:
    cassettes: dict[str, list[dict[str, Any]]] = json.loads(CASSETTES.read_text())
    return cassettes[key]


def replay_index(cassette: list[dict[str, Any]]) -> tuple[OpenSearchIndex, ReplayTransport]:
    client = OpenSearch(hosts=["https://search.example.invalid:443"], transport_class=ReplayTransport,
                        cassette=cassette)
    return OpenSearchIndex(client, index_alias=ALIAS, dimension=DIMENSION), client.transport


def live_index() -> Iterator[OpenSearchIndex]:
    client = OpenSearch(hosts=[os.environ["OPENSEARCH_URL"]], verify_certs=False, ssl_show_warn=False)
    alias = f"contract-{uuid.uuid4().hex[:8]}"
    index = OpenSearchIndex(client, index_alias=alias, pipeline=f"{alias}-hybrid", dimension=DIMENSION)
    index.bootstrap()
    yield index
    client.indices.delete(index=f"{alias}-v1", ignore=404)
    client.search_pipeline.delete(id=f"{alias}-hybrid", ignore=404)


BACKENDS = [
    "local",
    "opensearch-replay",
    pytest.param("opensearch-live", marks=[pytest.mark.opensearch, pytest.mark.skipif(
        not os.environ.get("OPENSEARCH_URL"), reason="set OPENSEARCH_URL to run against a real cluster")]),
]


@pytest.fixture(params=BACKENDS)
def search_index(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[SearchIndex]:
    if request.param == "local":
        local = LocalHybridIndex(tmp_path / "index.sqlite3", dimension=DIMENSION)
        yield local
        local.close()
    elif request.param == "opensearch-replay":
        key = cassette_key(request.node)
        index, transport = replay_index(load_cassette(key))
        yield index
        assert not transport.cassette, f"{key} left recorded requests unsent"
    else:
        yield from live_index()


# ----------------------------------------------------------------------------------------------- behaviours


def test_search_index_activate_makes_only_that_version_searchable(search_index: SearchIndex) -> None:
    add(search_index, ASPIRIN_V1)
    add(search_index, ASPIRIN_V2, activate=False)
    before = search_index.search(query("aspirin myocardial infarction", mode=SearchMode.BM25))
    search_index.activate("aspirin", 2)
    after = search_index.search(query("aspirin myocardial infarction", mode=SearchMode.HYBRID))

    assert [hit.chunk.version for hit in before] == [1]
    assert [(hit.chunk.doc_key, hit.chunk.version) for hit in after] == [("aspirin", 2)]
    assert search_index.count("aspirin") == 1
    assert search_index.count("aspirin", searchable_only=False) == 2


def test_search_index_delete_document_removes_every_version(search_index: SearchIndex) -> None:
    add_corpus(search_index)
    add(search_index, ASPIRIN_V1, activate=False)
    search_index.delete_document("aspirin")

    assert search_index.count("aspirin", searchable_only=False) == 0
    assert "aspirin" not in doc_keys(search_index, query("aspirin", mode=SearchMode.HYBRID))


def test_search_index_delete_one_version_keeps_the_other(search_index: SearchIndex) -> None:
    add_corpus(search_index)
    add(search_index, ASPIRIN_V1, activate=False)
    search_index.delete_document("aspirin", version=1)

    assert search_index.count("aspirin", searchable_only=False) == 1
    assert doc_keys(search_index, query("aspirin", mode=SearchMode.BM25)) == ["aspirin"]


@pytest.mark.parametrize(("filters", "expected"), [
    (SearchFilters(source_types=[SourceType.DRUG_REFERENCE]), {"warfarin", "metformin"}),
    (SearchFilters(specialties=["cardiology"]), {"warfarin", "aspirin"}),
    (SearchFilters(year_min=2021), {"aspirin", "metformin"}),
    (SearchFilters(doc_keys=["asthma"]), {"asthma"}),
], ids=["source_type", "specialty_any_case", "year_min", "doc_key"])
def test_search_index_filters_restrict_every_mode(search_index: SearchIndex, filters: SearchFilters,
                                                  expected: set[str]) -> None:
    add_corpus(search_index)
    text = "aspirin warfarin metformin asthma vitamin"
    for mode in SearchMode:
        assert set(doc_keys(search_index, query(text, mode=mode, filters=filters))) == expected, mode


@pytest.mark.parametrize(("mode", "best"), [
    (SearchMode.BM25, "warfarin"), (SearchMode.DENSE, "vka"), (SearchMode.HYBRID, "warfarin"),
])
def test_search_index_mode_decides_the_best_document(search_index: SearchIndex, mode: SearchMode,
                                                     best: str) -> None:
    add_corpus(search_index)
    assert doc_keys(search_index, query("warfarin bleeding", mode=mode))[0] == best


def test_search_index_hits_carry_their_document_openings_cosine(search_index: SearchIndex) -> None:
    # warfarin's opening vector is stored at ingestion (once per document version); vka was indexed before
    # openings were (no opening): its hits still come, without the cosine (the reranker reads NaN).
    search_index.index([WARFARIN], np.asarray([VECTORS[WARFARIN.chunk_id]], dtype=np.float32),
                       np.asarray([[0.0, 0.0, 0.6, 0.8]], dtype=np.float32))
    search_index.activate("warfarin", 1)
    add(search_index, VKA)

    hits = {hit.chunk.doc_key: hit for hit in search_index.search(query("warfarin bleeding"))}

    assert hits["warfarin"].opening_cosine == 0.64  # [0.6, 0, 0, 0.8] . [0, 0, 0.6, 0.8], to 6 decimals
    assert hits["vka"].opening_cosine is None
    assert hits["warfarin"].model_dump().keys() == hits["vka"].model_dump().keys()


def test_search_index_bm25_weight_zero_ranks_by_meaning_alone(search_index: SearchIndex) -> None:
    add_corpus(search_index)
    hits = search_index.search(query("warfarin bleeding", bm25_weight=0.0))
    assert [hit.chunk.doc_key for hit in hits[:2]] == ["vka", "warfarin"]


def test_search_index_hybrid_min_max_scores_lie_between_zero_and_one(search_index: SearchIndex) -> None:
    add_corpus(search_index)
    hits = search_index.search(query("warfarin bleeding", mode=SearchMode.HYBRID))
    assert len(hits) == 5
    assert all(0.0 <= hit.score <= 1.0 for hit in hits)
    assert [hit.score for hit in hits] == sorted((hit.score for hit in hits), reverse=True)


def test_search_index_rrf_prefers_documents_both_sub_queries_found(search_index: SearchIndex) -> None:
    add_corpus(search_index)
    hits = search_index.search(query("warfarin bleeding", fusion=FusionMethod.RRF))
    assert hits[0].chunk.doc_key == "warfarin"
    assert hits[0].score == pytest.approx(1 / 61 + 1 / 62, rel=1e-4)


def test_search_index_top_k_is_honoured(search_index: SearchIndex) -> None:
    add_corpus(search_index)
    for mode in SearchMode:
        assert len(search_index.search(query("aspirin warfarin asthma", mode=mode, top_k=2))) == 2, mode


def test_search_index_query_syntax_is_plain_text(search_index: SearchIndex) -> None:
    add_corpus(search_index)
    hostile = 'aspirin" AND (NEAR(title:metformin* OR -) ^2 "'
    assert set(doc_keys(search_index, query(hostile, mode=SearchMode.BM25))) == {"aspirin", "metformin"}


def test_search_index_dense_search_without_a_vector_is_refused(search_index: SearchIndex) -> None:
    with pytest.raises(InvalidInput, match="vector"):
        search_index.search(SearchQuery(text="aspirin", mode=SearchMode.DENSE))


def test_local_index_serves_searches_while_documents_change(tmp_path: Path) -> None:
    index = LocalHybridIndex(tmp_path / "index.sqlite3", dimension=DIMENSION)
    add_corpus(index)
    errors: list[BaseException] = []

    def search_repeatedly() -> None:
        try:
            for _ in range(30):
                assert doc_keys(index, query("aspirin warfarin", top_k=3))
        except BaseException as exc:  # collected: an exception in a thread would otherwise vanish
            errors.append(exc)

    threads = [threading.Thread(target=search_repeatedly) for _ in range(4)]
    for thread in threads:
        thread.start()
    for version in (1, 2, 1, 2):
        index.activate("aspirin", version)
    add(index, ASPIRIN_V1, activate=False)
    for thread in threads:
        thread.join()
    index.close()
    assert errors == []


def test_local_index_keeps_its_contents_across_reopening(tmp_path: Path) -> None:
    first = LocalHybridIndex(tmp_path / "index.sqlite3", dimension=DIMENSION)
    add_corpus(first)
    first.close()
    reopened = LocalHybridIndex(tmp_path / "index.sqlite3", dimension=DIMENSION)
    assert doc_keys(reopened, query("warfarin bleeding", mode=SearchMode.DENSE))[0] == "vka"
    assert reopened.count() == 5
    reopened.close()


def test_search_index_chunk_returns_the_indexed_passage_searchable_or_not(search_index: SearchIndex) -> None:
    add(search_index, METFORMIN, ASPIRIN_V1, activate=False)

    chunk = search_index.chunk(METFORMIN.chunk_id)

    assert chunk.text == METFORMIN.text and chunk.doc_id == METFORMIN.doc_id
    assert chunk.metadata.title == "metformin reference"


def test_search_index_chunk_unknown_is_not_found(search_index: SearchIndex) -> None:
    add(search_index, METFORMIN)

    with pytest.raises(NotFound, match="no-such-chunk"):
        search_index.chunk("no-such-chunk")
