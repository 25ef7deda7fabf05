"""ports.SearchIndex on Amazon OpenSearch (opensearch-py, SigV4), fusion done by a search pipeline.

Readers and writers use an alias over a versioned physical index (see bootstrap/switch_alias). A hybrid
search names the pipeline created by ensure_pipeline; a query whose fusion settings differ from it carries
a temporary pipeline in its body instead. Activation is two _update_by_query calls (show the new version,
then hide the others): OpenSearch cannot do that atomically, so search drops any hit whose document has a
newer version among the hits (voiceassist.query.search.keep_latest_versions). See docs/search.md.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlsplit

import numpy as np

from voiceassist.adapters.aws import opensearch_bodies as bodies
from voiceassist.errors import DependencyError, InvalidInput, NotFound, quoted_id
from voiceassist.models import Chunk, FusionMethod, SearchHit, SearchMode, SearchQuery
from voiceassist.observability import logger
from voiceassist.ports import Vectors
from voiceassist.query.search import in_stable_order, keep_latest_versions

DEFAULT_TIMEOUT_SECONDS = 10.0
BULK_BATCH_SIZE = 200  # ~200 x 9 KB (384 floats as JSON + text) keeps each _bulk request near 2 MB


class OpenSearchIndex:
    """Chunks in an OpenSearch index alias; `client` is injected in tests, else built lazily with SigV4."""

    def __init__(
        self,
        client: Any | None = None,
        *,
        endpoint: str | None = None,
        index_alias: str = "voiceassist-chunks",
        pipeline: str = "voiceassist-hybrid",
        region: str = "us-east-1",
        dimension: int = 384,
        embedding_model: str | None = None,
        service: str = "es",
        fusion: FusionMethod = FusionMethod.MIN_MAX,
        bm25_weight: float = 0.5,
        rrf_k: int = 60,
        timeout_seconds: float = DEFAULT_TIMEOUT_SECONDS,
    ) -> None:
        if client is None and not endpoint:
            raise InvalidInput("OpenSearchIndex needs an endpoint (or a client)")
        self._client = client
        self.endpoint = endpoint
        self.index_alias = index_alias
        self.pipeline = pipeline
        self.region = region
        self.dimension = dimension
        self.embedding_model = embedding_model
        self.service = service  # "es" for a managed domain, "aoss" for a serverless collection
        self.fusion, self.bm25_weight, self.rrf_k = fusion, bm25_weight, rrf_k
        self.timeout_seconds = timeout_seconds
        self._client_lock = threading.Lock()

    # ------------------------------------------------------------------------------------------ setup

    def ensure_pipeline(self) -> None:
        body = bodies.pipeline_body(self.fusion, bm25_weight=self.bm25_weight, rrf_k=self.rrf_k)
        self._call("search_pipeline.put", id=self.pipeline, body=body)

    def create_physical_index(self, generation: int) -> str:
        name = bodies.physical_index_name(self.index_alias, generation)
        body = bodies.index_body(self.dimension, serverless=self.service == "aoss",
                                 embedding_model=self.embedding_model)
        self._call("indices.create", index=name, body=body)
        return name

    def switch_alias(self, new_index: str) -> None:
        """Point the alias at `new_index` in one atomic _aliases call (the re-index cut-over)."""
        current = self._call("indices.get_alias", name=self.index_alias, ignore=404)
        old = [] if current.get("status") == 404 else [name for name in current if name != new_index]
        body = bodies.alias_swap_body(self.index_alias, new_index, old)
        self._call("indices.update_aliases", body=body)

    def bootstrap(self, generation: int = 1) -> None:
        """Create the pipeline, and the first physical index behind the alias unless the alias exists; an
        existing index gains the fields added to the mapping since it was created (injection_flags,
        ocr_confidence, low_confidence, superseded): its strict mapping would refuse such chunks otherwise.
        Adding a field is allowed on a live index; a field already mapped the same way is left as it is."""
        self.ensure_pipeline()
        if not self._call("indices.exists_alias", name=self.index_alias):
            self.switch_alias(self.create_physical_index(generation))
            return
        self._call("indices.put_mapping", index=self.index_alias, body=self.mapping_update())

    def mapping_update(self) -> dict[str, Any]:
        mappings = bodies.index_body(self.dimension, embedding_model=self.embedding_model)["mappings"]
        return {"properties": mappings["properties"]}

    # ------------------------------------------------------------------------------------------ writes

    def index(self, chunks: Sequence[Chunk], vectors: Vectors, opening: Vectors | None = None) -> None:
        matrix = np.asarray(vectors, dtype=np.float32)
        if matrix.shape != (len(chunks), self.dimension):
            raise InvalidInput(
                f"expected vectors of shape ({len(chunks)}, {self.dimension}), got {matrix.shape}"
            )
        unit_opening = None if opening is None else _unit_opening(chunks, opening, self.dimension)
        for start in range(0, len(chunks), BULK_BATCH_SIZE):
            lines = bodies.bulk_actions(self.index_alias, chunks[start : start + BULK_BATCH_SIZE],
                                        matrix[start : start + BULK_BATCH_SIZE], unit_opening)
            response = self._call("bulk", body=lines)
            failures = bodies.bulk_failures(response)
            if failures:
                raise DependencyError(f"OpenSearch refused {len(failures)} chunk(s), first: {failures[0]}")

    def activate(self, doc_key: str, version: int) -> None:
        show, hide = bodies.activation_bodies(doc_key, version)
        # The freshly bulk-indexed chunks must be visible to _update_by_query's own search first.
        self._call("indices.refresh", index=self.index_alias)
        for body in (show, hide):
            self._call("update_by_query", index=self.index_alias, body=body,
                       params={"refresh": "true", "conflicts": "proceed"})

    def retire(self, doc_key: str, version: int) -> None:
        # The strict mapping of an index created before the flag existed gains it first (idempotent).
        self._call("indices.put_mapping", index=self.index_alias, body=bodies.SUPERSEDED_MAPPING)
        self._call("update_by_query", index=self.index_alias, body=bodies.retire_body(doc_key, version),
                   params={"refresh": "true", "conflicts": "proceed"})

    def delete_document(self, doc_key: str, version: int | None = None) -> None:
        body = {"query": bodies.document_query(doc_key, version)}
        self._call("delete_by_query", index=self.index_alias, body=body,
                   params={"refresh": "true", "conflicts": "proceed"})

    # ------------------------------------------------------------------------------------------ reads

    def count(self, doc_key: str | None = None, *, searchable_only: bool = True) -> int:
        body = bodies.count_body(doc_key, searchable_only=searchable_only)
        return int(self._call("count", index=self.index_alias, body=body)["count"])

    def chunk(self, chunk_id: str) -> Chunk:
        response = self._call("search", index=self.index_alias, body=bodies.chunk_body(chunk_id))
        sources = [hit["_source"] for hit in response["hits"]["hits"] if hit["_source"]["chunk_id"] == chunk_id]
        if not sources:
            raise NotFound(f"chunk {quoted_id(chunk_id)} is not in the index")
        return bodies.chunk_from_source(sources[0])

    def search(self, query: SearchQuery) -> list[SearchHit]:
        if query.mode is not SearchMode.BM25:
            if query.vector is None:
                raise InvalidInput(f"a {query.mode.value} search needs query.vector: embed the text first")
            if len(query.vector) != self.dimension:
                raise InvalidInput(
                    f"query.vector has {len(query.vector)} dimensions, the index {self.dimension}"
                )
        # Hybrid: each sub-query must return `candidates` documents for the normalisation to see them all.
        # Single mode: a margin over top_k, so hits dropped as stale versions can be replaced.
        size = query.candidates if query.mode is SearchMode.HYBRID else min(2 * query.top_k, 10_000)
        body = bodies.search_body(query, size=size)
        params: dict[str, Any] = {}
        if query.mode is SearchMode.HYBRID:
            if self._named_pipeline_matches(query):
                params["search_pipeline"] = self.pipeline
            else:
                body["search_pipeline"] = bodies.pipeline_body(
                    query.fusion, bm25_weight=query.bm25_weight, rrf_k=query.rrf_k)
        response = self._call("search", index=self.index_alias, body=body, params=params)
        # Equal scores by chunk_order_key, as the embedded index orders them: the cluster breaks them by its
        # internal doc ids (the order chunks were indexed). Its cut at `size` still does (a `sort` tie-break would
        # change the recorded requests, and a hybrid query sorted by a field returns no scores: neural-search).
        return keep_latest_versions(in_stable_order(bodies.hits_from_response(
            response, query.mode, None if query.mode is SearchMode.BM25 else query.vector)))[: query.top_k]

    # ------------------------------------------------------------------------------------------ helpers

    def _named_pipeline_matches(self, query: SearchQuery) -> bool:
        if query.fusion is not self.fusion:
            return False
        if query.fusion is FusionMethod.RRF:
            return query.rrf_k == self.rrf_k
        return abs(query.bm25_weight - self.bm25_weight) < 1e-9

    def _call(self, operation: str, **arguments: Any) -> Any:
        """client.<operation>(**arguments), e.g. "indices.refresh"; any failure becomes a DependencyError."""
        from opensearchpy.exceptions import OpenSearchException, TransportError

        method = self.client
        for name in operation.split("."):
            method = getattr(method, name)
        try:
            return method(**arguments)
        except TransportError as exc:
            logger.warning("opensearch request failed",
                           extra={"operation": operation, "status": exc.status_code, "error": exc.error})
            raise DependencyError(f"OpenSearch {operation} failed: {exc.status_code} {exc.error}") from exc
        except OpenSearchException as exc:
            logger.warning("opensearch unreachable",
                           extra={"operation": operation, "error": type(exc).__name__})
            raise DependencyError(f"OpenSearch {operation} failed: {type(exc).__name__}") from exc

    @property
    def client(self) -> Any:
        """The injected client, or one signed with SigV4 (default AWS credentials), made on first use."""
        with self._client_lock:
            if self._client is None:
                self._client = self._signed_client()
            return self._client

    def _signed_client(self) -> Any:
        import boto3
        from opensearchpy import AWSV4SignerAuth, OpenSearch, RequestsHttpConnection

        endpoint = str(self.endpoint)
        url = urlsplit(endpoint if "://" in endpoint else f"https://{endpoint}")
        credentials = boto3.Session().get_credentials()
        if credentials is None:
            raise DependencyError("no AWS credentials found to sign OpenSearch requests")
        return OpenSearch(
            hosts=[{"host": url.hostname, "port": url.port or (80 if url.scheme == "http" else 443)}],
            http_auth=AWSV4SignerAuth(credentials, self.region, self.service),
            # An Amazon OpenSearch domain is always https; plain http only for a cluster on this machine
            # (a development cluster, the packaging test's stub).
            use_ssl=url.scheme != "http",
            verify_certs=url.scheme != "http",
            connection_class=RequestsHttpConnection,
            timeout=self.timeout_seconds,
            max_retries=2,
            retry_on_timeout=True,
            pool_maxsize=16,
        )


def _unit_opening(chunks: Sequence[Chunk], opening: Vectors, dimension: int) -> np.ndarray:
    """One document version's opening vector as a unit float32 row (as the embedded index stores it)."""
    row = np.asarray(opening, dtype=np.float32).reshape(1, -1)
    norm = np.linalg.norm(row, axis=1, keepdims=True)  # as adapters/local/index_tables.unit_rows
    if row.shape != (1, dimension) or not np.all(np.isfinite(norm)) or np.any(norm == 0):
        raise InvalidInput(f"an opening vector must be one finite non-zero row of {dimension} values")
    if len({(c.doc_key, c.version) for c in chunks}) != 1:
        raise InvalidInput("an opening vector is one document version's; these chunks are of several")
    return np.ascontiguousarray(row / norm)[0]
