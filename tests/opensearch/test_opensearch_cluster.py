"""Opt-in checks against a real OpenSearch cluster (OPENSEARCH_URL, e.g. http://localhost:9200).

The contract suite (tests/contract/test_search_index_contract.py) runs its behaviours on the cluster too;
these cover what only a cluster can show: index creation behind the alias, the alias cut-over, and the
temporary search pipeline a query with its own fusion weights carries.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator

import numpy as np
import pytest
from opensearchpy import OpenSearch

from voiceassist.adapters.aws.opensearch_index import OpenSearchIndex
from voiceassist.models import Chunk, DocumentMetadata, SearchQuery

pytestmark = [
    pytest.mark.opensearch,
    pytest.mark.skipif(not os.environ.get("OPENSEARCH_URL"), reason="set OPENSEARCH_URL to run these"),
]


@pytest.fixture
def cluster() -> Iterator[tuple[OpenSearch, OpenSearchIndex]]:
    client = OpenSearch(hosts=[os.environ.get("OPENSEARCH_URL", "")], verify_certs=False, ssl_show_warn=False)
    alias = f"live-{uuid.uuid4().hex[:8]}"
    index = OpenSearchIndex(client, index_alias=alias, pipeline=f"{alias}-hybrid", dimension=2)
    index.bootstrap()
    yield client, index
    client.indices.delete(index=f"{alias}-v*", ignore=404)
    client.search_pipeline.delete(id=f"{alias}-hybrid", ignore=404)


def test_bootstrap_puts_the_alias_over_a_versioned_index(cluster: tuple[OpenSearch, OpenSearchIndex]) -> None:
    client, index = cluster
    assert list(client.indices.get_alias(name=index.index_alias)) == [f"{index.index_alias}-v1"]
    index.bootstrap()  # a second bootstrap leaves the alias where it is
    assert list(client.indices.get_alias(name=index.index_alias)) == [f"{index.index_alias}-v1"]


def test_switch_alias_moves_readers_to_a_new_index(cluster: tuple[OpenSearch, OpenSearchIndex]) -> None:
    client, index = cluster
    index.switch_alias(index.create_physical_index(2))
    assert list(client.indices.get_alias(name=index.index_alias)) == [f"{index.index_alias}-v2"]


def test_query_weights_reach_the_cluster(cluster: tuple[OpenSearch, OpenSearchIndex]) -> None:
    _, index = cluster
    chunks = [
        Chunk(chunk_id=key, doc_id=key, doc_key=key, version=1, ordinal=0, text=text, token_count=3,
              metadata=DocumentMetadata(doc_key=key, title=key))
        for key, text in (("words", "warfarin bleeding risk"), ("meaning", "vitamin K antagonist monitoring"))
    ]
    index.index(chunks, np.asarray([[0.0, 1.0], [1.0, 0.0]], dtype=np.float32))
    for chunk in chunks:
        index.activate(chunk.doc_key, 1)
    lexical = index.search(SearchQuery(text="warfarin bleeding", vector=[1.0, 0.0], bm25_weight=1.0))
    semantic = index.search(SearchQuery(text="warfarin bleeding", vector=[1.0, 0.0], bm25_weight=0.0))
    assert (lexical[0].chunk.doc_key, semantic[0].chunk.doc_key) == ("words", "meaning")
