"""Superseded chunks are kept, flagged for audit, and never searchable: the embedded index end to end, the
OpenSearch adapter's _update_by_query bodies applied to chunk sources (term/bool filters and its two
scripts, evaluated here), and Finalize retiring the older version instead of deleting it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from voiceassist.adapters.aws import opensearch_bodies as bodies
from voiceassist.adapters.aws.opensearch_index import OpenSearchIndex
from voiceassist.adapters.local.hybrid_index import LocalHybridIndex
from voiceassist.models import Chunk, DocumentMetadata, SearchMode, SearchQuery, SourceType

DIMENSION = 4


def _chunk(version: int, text: str) -> Chunk:
    metadata = DocumentMetadata(doc_key="aspirin", title="aspirin reference", source_type=SourceType.GUIDELINE)
    return Chunk(chunk_id=f"aspirin-v{version}-0", doc_id=f"aspirin#v{version}", doc_key="aspirin",
                 version=version, ordinal=0, text=text, token_count=len(text.split()), metadata=metadata)


V1 = _chunk(1, "Low-dose aspirin 75 mg daily after myocardial infarction.")
V2 = _chunk(2, "Low-dose aspirin 100 mg daily after myocardial infarction.")


def _search(index: LocalHybridIndex, text: str) -> list[str]:
    query = SearchQuery(text=text, vector=[1.0, 0.0, 0.0, 0.0], top_k=10, mode=SearchMode.HYBRID)
    return [hit.chunk.chunk_id for hit in index.search(query)]


def test_the_embedded_index_keeps_a_retired_version_flagged_and_unsearchable(tmp_path: Path) -> None:
    index = LocalHybridIndex(tmp_path / "index.sqlite3", dimension=DIMENSION)
    vectors = np.eye(DIMENSION, dtype=np.float32)[:1]
    index.index([V1], vectors)
    index.activate("aspirin", 1)
    index.index([V2], vectors)
    index.activate("aspirin", 2)
    index.retire("aspirin", 1)
    assert _search(index, "aspirin 75 mg") == [V2.chunk_id]
    assert index.count("aspirin", searchable_only=False) == 2 and index.count("aspirin") == 1
    assert index.superseded_count("aspirin") == 1
    assert index.chunk(V1.chunk_id).text == V1.text  # kept, for audit
    index.activate("aspirin", 1)  # even an explicit activation never shows a superseded version
    assert _search(index, "aspirin 75 mg") == []
    reopened = LocalHybridIndex(tmp_path / "index.sqlite3", dimension=DIMENSION)  # the flag is stored
    assert _search(reopened, "aspirin") == [] and reopened.superseded_count("aspirin") == 1
    reopened.delete_document("aspirin")
    assert reopened.count("aspirin", searchable_only=False) == 0 and reopened.superseded_count("aspirin") == 0


def _matches(query: dict[str, Any], source: dict[str, Any]) -> bool:
    if "term" in query:
        ((name, value),) = query["term"].items()
        return source.get(name) == value
    clauses = query["bool"]
    return (all(_matches(c, source) for c in clauses.get("filter", []))
            and not any(_matches(c, source) for c in clauses.get("must_not", [])))


def _apply(body: dict[str, Any], sources: list[dict[str, Any]]) -> None:
    """An _update_by_query of the adapter's scripts (each a sequence of `ctx._source.<field> = <bool>`)."""
    for source in sources:
        if _matches(body["query"], source):
            for statement in filter(None, (s.strip() for s in body["script"]["source"].split(";"))):
                field, value = statement.removeprefix("ctx._source.").split(" = ")
                source[field] = value == "true"


def test_opensearch_bodies_keep_a_retired_version_hidden_through_any_activation() -> None:
    sources = [{"doc_key": "aspirin", "version": v, "searchable": False} for v in (1, 2)]
    for body in bodies.activation_bodies("aspirin", 1):
        _apply(body, sources)
    for body in bodies.activation_bodies("aspirin", 2):
        _apply(body, sources)
    _apply(bodies.retire_body("aspirin", 1), sources)
    assert sources == [{"doc_key": "aspirin", "version": 1, "searchable": False, "superseded": True},
                       {"doc_key": "aspirin", "version": 2, "searchable": True}]
    for body in bodies.activation_bodies("aspirin", 1):
        _apply(body, sources)
    assert [s["version"] for s in sources if s["searchable"]] == []  # the search filter is searchable: true
    assert {"term": {"searchable": True}} in bodies.filter_clauses(SearchQuery(text="x").filters)
    assert bodies.index_body(DIMENSION)["mappings"]["properties"]["superseded"] == {"type": "boolean"}


class RecordingClient:
    def __init__(self) -> None:
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.indices = self

    def put_mapping(self, **arguments: Any) -> dict[str, Any]:
        self.calls.append(("put_mapping", arguments))
        return {"acknowledged": True}

    def update_by_query(self, **arguments: Any) -> dict[str, Any]:
        self.calls.append(("update_by_query", arguments))
        return {"updated": 1}


def test_the_opensearch_adapter_adds_the_flag_to_older_mappings_then_retires() -> None:
    client = RecordingClient()
    OpenSearchIndex(client, index_alias="chunks").retire("aspirin", 1)
    assert client.calls == [
        ("put_mapping", {"index": "chunks", "body": bodies.SUPERSEDED_MAPPING}),
        ("update_by_query", {"index": "chunks", "body": bodies.retire_body("aspirin", 1),
                             "params": {"refresh": "true", "conflicts": "proceed"}}),
    ]
