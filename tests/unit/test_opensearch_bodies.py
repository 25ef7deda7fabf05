"""OpenSearch bodies against the documented forms, response parsing, and the adapter's calls (no sockets)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from opensearchpy import AWSV4SignerAuth, OpenSearch
from opensearchpy.exceptions import ConnectionError as OpenSearchConnectionError

from voiceassist.adapters.aws import opensearch_bodies as bodies
from voiceassist.adapters.aws.opensearch_index import OpenSearchIndex
from voiceassist.errors import DependencyError, InvalidInput
from voiceassist.models import (
    Chunk,
    DocumentMetadata,
    FusionMethod,
    SearchFilters,
    SearchMode,
    SearchQuery,
    SourceType,
)

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "opensearch"
FILTERS = SearchFilters(source_types=[SourceType.GUIDELINE], specialties=["Cardiology"], doc_keys=["aspirin"],
                        year_min=2020)


def fixture(name: str) -> Any:
    return json.loads((FIXTURES / name).read_text())


def chunk(ordinal: int = 0) -> Chunk:
    metadata = DocumentMetadata(doc_key="aspirin", title="Aspirin after MI", source_type=SourceType.GUIDELINE,
                                specialty="Cardiology", year=2024, pmid="123")
    return Chunk(chunk_id=f"aspirin-v2-{ordinal}", doc_id="aspirin#v2", doc_key="aspirin", version=2,
                 ordinal=ordinal, text="Aspirin 75 mg daily.", token_count=5, page=3, section="Dosing",
                 metadata=metadata)


# ----------------------------------------------------------------------------------------------- bodies


def test_index_body_maps_a_cosine_hnsw_knn_vector_and_keyword_filters() -> None:
    body = bodies.index_body(384)
    properties = body["mappings"]["properties"]
    vector = properties["embedding"]

    assert body == fixture("index_body_384.json")
    assert body["settings"]["index"]["knn"] is True
    assert vector["type"] == "knn_vector" and vector["dimension"] == 384
    assert vector["method"] | {"parameters": None} == {"name": "hnsw", "engine": "lucene",
                                                       "space_type": "cosinesimil", "parameters": None}
    assert set(vector["method"]["parameters"]) == {"m", "ef_construction"}
    assert properties["text"] == {"type": "text", "analyzer": "english"}
    assert {name for name, field in properties.items() if field.get("type") == "keyword"} >= {
        "doc_key", "doc_id", "source_type", "specialty", "section"}
    assert properties["searchable"]["type"] == "boolean"
    assert properties["version"]["type"] == properties["year"]["type"] == "integer"


def test_index_body_for_serverless_leaves_out_shard_settings() -> None:
    assert bodies.index_body(384, serverless=True)["settings"]["index"] == {"knn": True}


def test_pipeline_body_has_the_documented_processor_forms() -> None:
    min_max = bodies.pipeline_body(FusionMethod.MIN_MAX, bm25_weight=0.3, rrf_k=60)
    assert min_max == fixture("pipeline_min_max.json")
    assert bodies.pipeline_body(FusionMethod.RRF, bm25_weight=0.3, rrf_k=60) == fixture("pipeline_rrf.json")
    weights = bodies.pipeline_body(FusionMethod.MIN_MAX, bm25_weight=0.15, rrf_k=60)[
        "phase_results_processors"][0]["normalization-processor"]["combination"]["parameters"]["weights"]
    assert sum(weights) == pytest.approx(1.0)  # OpenSearch refuses weights that do not sum to 1


def test_hybrid_search_body_filters_inside_each_sub_query() -> None:
    query = SearchQuery(text="aspirin dose", vector=[0.1] * 4, candidates=150, filters=FILTERS)
    body = bodies.search_body(query, size=150)
    match, knn = body["query"]["hybrid"]["queries"]
    expected_filters = [
        {"term": {"searchable": True}},
        {"terms": {"source_type": ["guideline"]}},
        {"terms": {"specialty": ["Cardiology"]}},
        {"terms": {"doc_key": ["aspirin"]}},
        {"range": {"year": {"gte": 2020}}},
    ]

    assert body["size"] == 150 and body["_source"] == {"excludes": ["embedding"]}
    assert match["bool"]["filter"] == expected_filters
    assert match["bool"]["must"] == [
        {"multi_match": {"query": "aspirin dose", "fields": ["text", "title^0.5"], "type": "most_fields"}}]
    assert knn["knn"]["embedding"]["k"] == 150
    assert knn["knn"]["embedding"]["filter"] == {"bool": {"filter": expected_filters}}


def test_single_mode_search_bodies_are_plain_queries() -> None:
    bm25 = bodies.search_body(SearchQuery(text="aspirin", mode=SearchMode.BM25), size=20)
    dense = bodies.search_body(SearchQuery(text="aspirin", vector=[1.0, 0.0], mode=SearchMode.DENSE), size=20)
    assert set(bm25["query"]) == {"bool"}
    assert set(dense["query"]) == {"knn"} and dense["query"]["knn"]["embedding"]["vector"] == [1.0, 0.0]


def test_activation_bodies_show_the_version_then_hide_the_others() -> None:
    show, hide = bodies.activation_bodies("aspirin", 2)
    assert show["query"]["bool"]["filter"] == [{"term": {"doc_key": "aspirin"}}, {"term": {"version": 2}},
                                               {"term": {"searchable": False}}]
    assert show["script"]["source"] == "ctx._source.searchable = true"
    assert hide["query"]["bool"]["must_not"] == [{"term": {"version": 2}}]
    assert hide["script"]["source"] == "ctx._source.searchable = false"


def test_alias_swap_body_moves_the_alias_in_one_call() -> None:
    assert bodies.alias_swap_body("chunks", "chunks-v2", ["chunks-v1"]) == {"actions": [
        {"remove": {"index": "chunks-v1", "alias": "chunks"}},
        {"add": {"index": "chunks-v2", "alias": "chunks", "is_write_index": True}},
    ]}


def test_bulk_actions_pair_an_index_action_with_a_hidden_source() -> None:
    lines = bodies.bulk_actions("chunks", [chunk(0), chunk(1)], np.ones((2, 3), dtype=np.float32))
    assert [line.get("index") for line in lines[::2]] == [{"_index": "chunks", "_id": "aspirin-v2-0"},
                                                          {"_index": "chunks", "_id": "aspirin-v2-1"}]
    source = lines[1]
    assert source["searchable"] is False and source["embedding"] == [1.0, 1.0, 1.0]
    assert bodies.chunk_from_source(source) == chunk(0)


def test_bulk_actions_put_the_documents_opening_in_every_chunk_and_only_when_given() -> None:
    opening = np.array([0.6, 0.0, 0.8], dtype=np.float32)
    with_opening = bodies.bulk_actions("chunks", [chunk(0), chunk(1)], np.ones((2, 3), dtype=np.float32), opening)
    without = bodies.bulk_actions("chunks", [chunk(0)], np.ones((1, 3), dtype=np.float32))

    # float32 values, as JSON carries them exactly: the adapter reads back the embedded index's numbers
    assert [line["opening"] for line in with_opening[1::2]] == [opening.tolist()] * 2
    assert "opening" not in without[1]
    assert bodies.chunk_from_source(with_opening[1]) == chunk(0)


def test_hits_from_response_give_the_openings_cosine_only_with_a_query_vector() -> None:
    response = fixture("contract_cassettes.json")["test_search_index_hits_carry_their_document_openings_cosine"][0][
        "response"]

    hits = bodies.hits_from_response(response, SearchMode.HYBRID, [0.6, 0.0, 0.0, 0.8])
    bm25 = bodies.hits_from_response(response, SearchMode.BM25)

    assert [(h.chunk.doc_key, h.opening_cosine) for h in hits] == [("warfarin", 0.64), ("vka", None)]
    assert [h.opening_cosine for h in bm25] == [None, None]
    assert bodies.hits_from_response(response, SearchMode.HYBRID, [1.0, 0.0])[0].opening_cosine is None  # sizes


def test_bulk_failures_name_each_refused_item_without_its_reason() -> None:
    assert bodies.bulk_failures(fixture("bulk_response_with_errors.json")) == [
        "aspirin-v2-1: mapper_parsing_exception", "aspirin-v2-2: es_rejected_execution_exception"]


def test_hits_from_response_rebuilds_chunks_from_a_recorded_response() -> None:
    recorded = fixture("contract_cassettes.json")["test_search_index_filters_restrict_every_mode[doc_key]"]
    response = recorded[0]["response"]  # the BM25 search of that test
    hits = bodies.hits_from_response(response, SearchMode.BM25)
    assert [h.chunk.doc_key for h in hits] == ["asthma"]
    assert hits[0].bm25_score == hits[0].score == response["hits"]["hits"][0]["_score"]
    assert hits[0].chunk.metadata.source_type is SourceType.TEXTBOOK


# ----------------------------------------------------------------------------------------------- adapter


class StubClient:
    """Records calls made through the opensearch-py API the adapter uses; answers like a cluster."""

    def __init__(self, responses: dict[str, Any] | None = None, error: Exception | None = None) -> None:
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.responses = responses or {}
        self.error = error
        self.indices = _Namespace(self, "indices")
        self.search_pipeline = _Namespace(self, "search_pipeline")

    def __getattr__(self, name: str) -> Any:
        return _Namespace(self, "").__getattr__(name)


class _Namespace:
    def __init__(self, stub: StubClient, prefix: str) -> None:
        self.stub, self.prefix = stub, prefix

    def __getattr__(self, name: str) -> Any:
        operation = f"{self.prefix}.{name}".strip(".")

        def call(**arguments: Any) -> Any:
            self.stub.calls.append((operation, arguments))
            if self.stub.error is not None:
                raise self.stub.error
            return self.stub.responses.get(operation, {"errors": False, "items": []})

        return call


def test_opensearch_index_activation_refreshes_shows_then_hides() -> None:
    stub = StubClient()
    OpenSearchIndex(stub, index_alias="chunks").activate("aspirin", 2)
    operations = [operation for operation, _ in stub.calls]
    assert operations == ["indices.refresh", "update_by_query", "update_by_query"]
    show, hide = bodies.activation_bodies("aspirin", 2)
    assert [args.get("body") for _, args in stub.calls[1:]] == [show, hide]


def test_bootstrap_creates_the_index_once_then_adds_new_fields_to_its_mapping() -> None:
    fresh = StubClient({"indices.exists_alias": False})
    OpenSearchIndex(fresh, index_alias="chunks", dimension=3).bootstrap()
    assert [operation for operation, _ in fresh.calls] == [
        "search_pipeline.put", "indices.exists_alias", "indices.create", "indices.get_alias", "indices.update_aliases"]

    existing = StubClient({"indices.exists_alias": True})
    OpenSearchIndex(existing, index_alias="chunks", dimension=3).bootstrap()
    operation, arguments = existing.calls[-1]
    assert operation == "indices.put_mapping" and arguments["index"] == "chunks"
    added = arguments["body"]["properties"]
    assert {"injection_flags", "ocr_confidence", "low_confidence", "superseded"} <= set(added)
    assert added == bodies.index_body(3)["mappings"]["properties"] and "dynamic" not in arguments["body"]


def test_the_mapping_digest_infra_deploys_is_the_mappings() -> None:
    import hashlib
    import json

    from voiceassist.constants.models import DIMENSION
    from voiceassist.constants.search import CHUNK_MAPPING_DIGEST

    fields = bodies.index_body(DIMENSION)["mappings"]["properties"]
    digest = hashlib.sha256(json.dumps(fields, sort_keys=True).encode()).hexdigest()[:16]
    assert digest == CHUNK_MAPPING_DIGEST, f"the chunk mapping changed: set CHUNK_MAPPING_DIGEST = {digest!r}"


def test_opensearch_index_bulk_failure_is_a_dependency_error() -> None:
    stub = StubClient({"bulk": fixture("bulk_response_with_errors.json")})
    index = OpenSearchIndex(stub, dimension=3)
    with pytest.raises(DependencyError, match="refused 2 chunk"):
        index.index([chunk(0), chunk(1), chunk(2)], np.ones((3, 3), dtype=np.float32))


def test_opensearch_index_unreachable_cluster_is_a_dependency_error() -> None:
    stub = StubClient(error=OpenSearchConnectionError("N/A", "connection refused", Exception()))
    with pytest.raises(DependencyError, match="count failed"):
        OpenSearchIndex(stub).count()


def test_opensearch_index_uses_the_named_pipeline_only_for_its_own_settings() -> None:
    empty = {"hits": {"hits": []}}
    stub = StubClient({"search": empty})
    index = OpenSearchIndex(stub, dimension=2, pipeline="hybrid", bm25_weight=0.3)
    index.search(SearchQuery(text="aspirin", vector=[1.0, 0.0], bm25_weight=0.3))
    index.search(SearchQuery(text="aspirin", vector=[1.0, 0.0], bm25_weight=0.5))
    named, temporary = (args for _, args in stub.calls)

    assert named["params"] == {"search_pipeline": "hybrid"} and "search_pipeline" not in named["body"]
    assert temporary["params"] == {}
    assert temporary["body"]["search_pipeline"] == bodies.pipeline_body(FusionMethod.MIN_MAX, bm25_weight=0.5,
                                                                         rrf_k=60)


def test_opensearch_index_refuses_a_vector_of_the_wrong_dimension() -> None:
    with pytest.raises(InvalidInput, match="dimensions"):
        OpenSearchIndex(StubClient(), dimension=384).search(SearchQuery(text="x", vector=[1.0, 0.0]))


def test_opensearch_index_signs_with_sigv4_on_first_use(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    index = OpenSearchIndex(endpoint="https://search-kb.eu-west-1.es.amazonaws.com", region="eu-west-1")
    client = index.client

    assert isinstance(client, OpenSearch) and index.client is client
    auth = client.transport.kwargs["http_auth"]
    assert isinstance(auth, AWSV4SignerAuth)
    assert (auth.signer.region, auth.signer.service) == ("eu-west-1", "es")


def test_index_body_records_the_embedding_model_in_the_mapping_meta() -> None:
    model = "sentence-transformers/all-MiniLM-L6-v2+int8"
    assert bodies.index_body(384, embedding_model=model)["mappings"]["_meta"] == {"embedding_model": model}
    assert "_meta" not in bodies.index_body(384)["mappings"]
