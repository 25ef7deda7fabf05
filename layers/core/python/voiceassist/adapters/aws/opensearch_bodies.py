"""OpenSearch request bodies and response parsing for the chunk index, as pure functions.

Forms follow the OpenSearch documentation: knn_vector mapping (lucene HNSW, cosinesimil), hybrid query,
search pipelines with the normalization-processor (min_max + arithmetic_mean) or the
score-ranker-processor (rrf), _update_by_query / _delete_by_query, _aliases. Filters and the searchable
flag go inside EACH sub-query of a hybrid query (not the 3.0+ top-level `filter`), so every sub-query takes
its top candidates from the allowed documents only, on any 2.x cluster.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from voiceassist.models import (
    Chunk,
    DocumentMetadata,
    FusionMethod,
    SearchFilters,
    SearchHit,
    SearchMode,
    SearchQuery,
)
from voiceassist.query.search import opening_cosine

EMBEDDING_FIELD = "embedding"
# The chunk's document opening's vector (ingest/stages.opening_text), repeated in each of its chunks: kept in
# _source only (not indexed, no doc values), returned with each hit so the adapter gives the question's cosine
# with it (SearchHit.opening_cosine) as the embedded index does. Chunks indexed before it have none.
OPENING_FIELD = "opening"
BM25_FIELDS = ["text", "title^0.5"]  # most_fields: per-field BM25 summed, like FTS5's column weights
# HNSW graph: m=16 links per node and ef_construction=128 give recall@100 well above 0.95 for 384-d sentence
# embeddings at up to a few million vectors, at ~1.1 * (4 * 384 + 8 * 16) bytes per vector; the lucene
# engine searches with ef = k (= the query's candidates) and filters during graph traversal.
HNSW_M = 16
HNSW_EF_CONSTRUCTION = 128
KEYWORD_NORMALIZER = "casefold"


def physical_index_name(alias: str, generation: int) -> str:
    """The versioned index behind the alias; a re-index builds generation n+1, then swaps the alias."""
    return f"{alias}-v{generation}"


def index_body(dimension: int, *, shards: int = 1, replicas: int = 1, serverless: bool = False,
               embedding_model: str | None = None) -> dict[str, Any]:
    """Settings and strict mapping of a chunk index (serverless collections refuse shard settings).

    The mapping's `_meta` records the embedding model whose vectors the index holds, so an operator (and a
    re-index) can tell which embedder the queries must use."""
    index_settings: dict[str, Any] = {"knn": True}
    if not serverless:
        index_settings |= {"number_of_shards": shards, "number_of_replicas": replicas}
    keyword = {"type": "keyword"}
    return {
        "settings": {
            "index": index_settings,
            "analysis": {"normalizer": {KEYWORD_NORMALIZER: {"type": "custom", "filter": ["lowercase"]}}},
        },
        "mappings": {
            **({"_meta": {"embedding_model": embedding_model}} if embedding_model else {}),
            "dynamic": "strict",
            "properties": {
                "chunk_id": keyword,
                "doc_id": keyword,
                "doc_key": keyword,
                "version": {"type": "integer"},
                "ordinal": {"type": "integer"},
                "searchable": {"type": "boolean"},
                "superseded": {"type": "boolean"},  # kept for audit, never searchable (activation skips it)
                "text": {"type": "text", "analyzer": "english"},
                "title": {"type": "text", "analyzer": "english", "fields": {"raw": {"type": "keyword"}}},
                "section": {"type": "keyword", "ignore_above": 1024},
                "page": {"type": "integer"},
                "ocr_confidence": {"type": "float", "index": False},  # chunks of OCR pages only
                "low_confidence": {"type": "boolean"},
                "token_count": {"type": "integer", "index": False},
                "source_type": keyword,
                "specialty": {"type": "keyword", "normalizer": KEYWORD_NORMALIZER},
                "year": {"type": "integer"},
                "metadata": {"type": "object", "enabled": False},  # kept in _source to rebuild the Chunk
                "injection_flags": keyword,
                OPENING_FIELD: {"type": "float", "index": False, "doc_values": False},
                EMBEDDING_FIELD: {
                    "type": "knn_vector",
                    "dimension": dimension,
                    "method": {
                        "name": "hnsw",
                        "engine": "lucene",
                        "space_type": "cosinesimil",
                        "parameters": {"m": HNSW_M, "ef_construction": HNSW_EF_CONSTRUCTION},
                    },
                },
            },
        },
    }


def alias_swap_body(alias: str, new_index: str, old_indices: Sequence[str]) -> dict[str, Any]:
    """One atomic _aliases call: the alias leaves every old index and points at the new one."""
    actions: list[dict[str, Any]] = [{"remove": {"index": old, "alias": alias}} for old in old_indices]
    actions.append({"add": {"index": new_index, "alias": alias, "is_write_index": True}})
    return {"actions": actions}


def pipeline_body(fusion: FusionMethod, *, bm25_weight: float, rrf_k: int) -> dict[str, Any]:
    """A search pipeline fusing [BM25, k-NN] sub-queries exactly as voiceassist.query.search does locally."""
    if fusion is FusionMethod.RRF:
        processor = {"score-ranker-processor": {"combination": {"technique": "rrf", "rank_constant": rrf_k}}}
    else:
        processor = {
            "normalization-processor": {
                "normalization": {"technique": "min_max"},
                "combination": {
                    "technique": "arithmetic_mean",
                    "parameters": {"weights": [round(bm25_weight, 6), round(1.0 - bm25_weight, 6)]},
                },
            }
        }
    return {"description": "VoiceAssist hybrid fusion (BM25, k-NN)", "phase_results_processors": [processor]}


def filter_clauses(filters: SearchFilters) -> list[dict[str, Any]]:
    """Searchable-version and user filters, as bool filter clauses (no scoring)."""
    clauses: list[dict[str, Any]] = [{"term": {"searchable": True}}]
    if filters.source_types:
        clauses.append({"terms": {"source_type": [s.value for s in filters.source_types]}})
    if filters.specialties:
        clauses.append({"terms": {"specialty": list(filters.specialties)}})
    if filters.doc_keys:
        clauses.append({"terms": {"doc_key": list(filters.doc_keys)}})
    if filters.year_min is not None:
        clauses.append({"range": {"year": {"gte": filters.year_min}}})
    return clauses


def bm25_clause(text: str, filters: SearchFilters) -> dict[str, Any]:
    """match semantics (OR between terms); the analyzer, not us, handles the user's text."""
    match = {"multi_match": {"query": text, "fields": BM25_FIELDS, "type": "most_fields"}}
    return {"bool": {"must": [match], "filter": filter_clauses(filters)}}


def knn_clause(vector: Sequence[float], k: int, filters: SearchFilters) -> dict[str, Any]:
    """Efficient k-NN filtering: the filter restricts the graph search, so k results still come back."""
    return {
        "knn": {
            EMBEDDING_FIELD: {
                "vector": [float(v) for v in vector],
                "k": k,
                "filter": {"bool": {"filter": filter_clauses(filters)}},
            }
        }
    }


def search_body(query: SearchQuery, *, size: int) -> dict[str, Any]:
    """The _search body for a query's mode; hybrid sub-queries each return `size` candidates."""
    if query.mode is SearchMode.BM25:
        clause = bm25_clause(query.text, query.filters)
    elif query.vector is None:
        raise ValueError(f"a {query.mode.value} search needs query.vector")
    elif query.mode is SearchMode.DENSE:
        clause = knn_clause(query.vector, size, query.filters)
    else:
        clause = {"hybrid": {"queries": [bm25_clause(query.text, query.filters),
                                         knn_clause(query.vector, size, query.filters)]}}
    return {"size": size, "_source": {"excludes": [EMBEDDING_FIELD]}, "query": clause}


def document_query(doc_key: str, version: int | None = None, *, searchable: bool | None = None
                   ) -> dict[str, Any]:
    clauses: list[dict[str, Any]] = [{"term": {"doc_key": doc_key}}]
    if version is not None:
        clauses.append({"term": {"version": version}})
    if searchable is not None:
        clauses.append({"term": {"searchable": searchable}})
    return {"bool": {"filter": clauses}}


def activation_bodies(doc_key: str, version: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """Two _update_by_query bodies: first show `version`, then hide every other searchable version."""
    show_query = document_query(doc_key, version, searchable=False)
    show_query["bool"]["must_not"] = [{"term": {"superseded": True}}]
    show = {
        "query": show_query,
        "script": {"lang": "painless", "source": "ctx._source.searchable = true"},
    }
    hide_query = document_query(doc_key, searchable=True)
    hide_query["bool"]["must_not"] = [{"term": {"version": version}}]
    hide = {"query": hide_query, "script": {"lang": "painless", "source": "ctx._source.searchable = false"}}
    return show, hide


SUPERSEDED_MAPPING = {"properties": {"superseded": {"type": "boolean"}}}  # added to indices created before it


def retire_body(doc_key: str, version: int) -> dict[str, Any]:
    """_update_by_query: a superseded version's chunks hidden and flagged (kept for audit)."""
    return {"query": document_query(doc_key, version),
            "script": {"lang": "painless",
                       "source": "ctx._source.searchable = false; ctx._source.superseded = true"}}


def count_body(doc_key: str | None, *, searchable_only: bool) -> dict[str, Any]:
    clauses: list[dict[str, Any]] = []
    if doc_key is not None:
        clauses.append({"term": {"doc_key": doc_key}})
    if searchable_only:
        clauses.append({"term": {"searchable": True}})
    return {"query": {"bool": {"filter": clauses}}}


def chunk_source(chunk: Chunk, vector: Sequence[float], opening: Sequence[float] | None = None) -> dict[str, Any]:
    """The indexed document of one chunk: filter fields flattened, full metadata kept for the reply; `opening`:
    its document's opening vector (float32 values, exact in JSON)."""
    meta = chunk.metadata
    flags = {"injection_flags": chunk.injection_flags} if chunk.injection_flags else {}
    return {
        **flags,
        "chunk_id": chunk.chunk_id,
        "doc_id": chunk.doc_id,
        "doc_key": chunk.doc_key,
        "version": chunk.version,
        "ordinal": chunk.ordinal,
        "searchable": False,
        "text": chunk.text,
        "title": meta.title,
        "section": chunk.section,
        "page": chunk.page,
        "token_count": chunk.token_count,
        "source_type": meta.source_type.value,
        "specialty": meta.specialty,
        "year": meta.year,
        "metadata": meta.model_dump(mode="json"),
        EMBEDDING_FIELD: [float(v) for v in vector],
        **({OPENING_FIELD: [float(v) for v in opening]} if opening is not None else {}),
        **({"ocr_confidence": chunk.ocr_confidence, "low_confidence": chunk.low_confidence}
           if chunk.ocr_confidence is not None else {}),
    }


def bulk_actions(index: str, chunks: Sequence[Chunk], vectors: np.ndarray, opening: np.ndarray | None = None
                 ) -> list[dict[str, Any]]:
    """_bulk lines (action, source, action, source, ...); _id = chunk_id makes a retry overwrite, not add.
    `opening`: the chunks' document opening vector (unit float32), in every chunk's source."""
    lines: list[dict[str, Any]] = []
    shared = None if opening is None else np.asarray(opening, dtype=np.float32).tolist()
    for chunk, vector in zip(chunks, vectors, strict=True):
        lines.append({"index": {"_index": index, "_id": chunk.chunk_id}})
        lines.append(chunk_source(chunk, vector.tolist(), shared))
    return lines


def bulk_failures(response: dict[str, Any]) -> list[str]:
    """'<_id>: <error type>' per failed bulk item (reasons may quote document text: left out)."""
    if not response.get("errors"):
        return []
    failures = []
    for item in response.get("items", []):
        result = next(iter(item.values()))
        if "error" in result:
            failures.append(f"{result.get('_id')}: {result['error'].get('type', 'unknown_error')}")
    return failures


def chunk_from_source(source: dict[str, Any]) -> Chunk:
    return Chunk(
        chunk_id=source["chunk_id"],
        doc_id=source["doc_id"],
        doc_key=source["doc_key"],
        version=source["version"],
        ordinal=source["ordinal"],
        text=source["text"],
        token_count=source["token_count"],
        page=source.get("page"),
        section=source.get("section"),
        metadata=DocumentMetadata.model_validate(source["metadata"]),
        injection_flags=source.get("injection_flags", ()),
        ocr_confidence=source.get("ocr_confidence"),
        low_confidence=bool(source.get("low_confidence", False)),
    )


def chunk_body(chunk_id: str) -> dict[str, Any]:
    """One chunk by its _id (= chunk_id), searchable or not, without its vector: a search, since a GET
    through an alias is refused once the alias spans two physical indices (during a reindex)."""
    return {"size": 1, "_source": {"excludes": ["embedding"]}, "query": {"ids": {"values": [chunk_id]}}}


def hits_from_response(response: dict[str, Any], mode: SearchMode, vector: Sequence[float] | None = None
                       ) -> list[SearchHit]:
    """SearchHits as OpenSearch ranked them; sub-query scores are known only for single-mode searches. With the
    query's `vector`, each hit whose source holds its document's opening gets their cosine (as the embedded
    index gives it: query.search.opening_cosine)."""
    hits = []
    for raw in response["hits"]["hits"]:
        score = float(raw["_score"])
        source = raw["_source"]
        hits.append(SearchHit(
            chunk=chunk_from_source(source),
            score=score,
            bm25_score=score if mode is SearchMode.BM25 else None,
            vector_score=score if mode is SearchMode.DENSE else None,
            opening_cosine=None if vector is None else opening_cosine(source.get(OPENING_FIELD), vector),
        ))
    return hits
