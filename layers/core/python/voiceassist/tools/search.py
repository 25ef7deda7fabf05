"""The searches as tools: the knowledge base (hybrid), its guideline partition, and PubMed (never with PHI)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from voiceassist.errors import DependencyError
from voiceassist.models import SearchFilters, SearchHit, SourceType, ToolCategory
from voiceassist.query.citations import citation_snippet
from voiceassist.tools.registry import ToolEnvironment, ToolOutput, define

PUBMED = "pubmed"


class SearchParams(BaseModel):
    model_config = ConfigDict(extra="forbid")

    query: str = Field(min_length=2, max_length=1000, description="What to look for, in plain words")
    top_k: int = Field(default=5, ge=1, le=10, description="How many passages to return")


def listing(hits: list[SearchHit]) -> str:
    """The passages as the model reads them: numbered, titled, each a short snippet."""
    if not hits:
        return "No passage matched."
    lines = []
    for n, hit in enumerate(hits, start=1):
        page = f", p. {hit.chunk.page}" if hit.chunk.page else ""
        lines.append(f"({n}) {hit.chunk.metadata.title}{page}: {citation_snippet(hit.chunk.text)}")
    return "\n".join(lines)


def _knowledge_base(params: SearchParams, env: ToolEnvironment, source_types: list[SourceType]) -> ToolOutput:
    from voiceassist.query.retrieval import knowledge_base_query, run_knowledge_base_query

    query = knowledge_base_query(env.ctx, params.query, top_k=params.top_k,
                                 filters=SearchFilters(source_types=source_types))
    hits = run_knowledge_base_query(env.ctx, query, phi_detected=env.turn_has_phi)[: params.top_k]
    return ToolOutput(content=listing(hits), data={"count": len(hits)}, sources=hits)


def search_knowledge_base(params: SearchParams, env: ToolEnvironment) -> ToolOutput:
    return _knowledge_base(params, env, [])


def search_guidelines(params: SearchParams, env: ToolEnvironment) -> ToolOutput:
    return _knowledge_base(params, env, [SourceType.GUIDELINE])


def search_pubmed(params: SearchParams, env: ToolEnvironment) -> ToolOutput:
    source = env.ctx.external_sources.get(PUBMED)
    if source is None:
        raise DependencyError("PubMed is not configured in this deployment")
    hits = source.search(params.query, top_k=params.top_k, deadline_s=source.budget_seconds)
    return ToolOutput(content=listing(hits), data={"count": len(hits)}, sources=hits)


SEARCH_TOOLS = [
    define("search_knowledge_base", "Search the curated medical knowledge base (guidelines, drug references, "
           "textbooks) with hybrid keyword and semantic search; returns citable passages.",
           SearchParams, search_knowledge_base, category=ToolCategory.SEARCH, requires_phi=True,
           rate_limit=60, timeout_seconds=8.0),
    define("search_guidelines", "Search only the clinical guidelines of the knowledge base; returns citable "
           "passages.", SearchParams, search_guidelines, category=ToolCategory.SEARCH, requires_phi=True,
           rate_limit=60, timeout_seconds=8.0),
    define("search_pubmed", "Search PubMed for published literature. Never send patient details: the query "
           "leaves the PHI boundary.", SearchParams, search_pubmed, category=ToolCategory.SEARCH,
           requires_phi=False, rate_limit=30, timeout_seconds=8.0),
]
