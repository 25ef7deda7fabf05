"""web_search: current information from the web through a provider (adapters/websearch/), outside the PHI
boundary (`requires_phi: false`). The executor refuses PHI arguments and any turn that carries PHI; the tool
asks the egress policy (phi.ensure_may_leave) once more right before the query leaves, with the detector of
this deployment, so a failed check keeps the query in. Each result becomes a citable source with its URL and
the date it was retrieved.

OpenEvidence has no public API: there is no adapter for it (docs/tools.md).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field

from voiceassist import phi
from voiceassist.errors import PhiBoundaryViolation
from voiceassist.models import Chunk, DocumentMetadata, SearchHit, SourceType, ToolCategory, utc_now
from voiceassist.phi.detection import failed_result
from voiceassist.ports import PhiDetector, WebResult, WebSearchProvider
from voiceassist.tools.errors import PhiRefused
from voiceassist.tools.registry import Tool, ToolEnvironment, ToolOutput, define

RATE_LIMIT = 10  # calls per user per minute (the design's limit for web search)
TIMEOUT_S = 8.0
SOURCE = "web"


class WebSearchParams(BaseModel):
    model_config = ConfigDict(extra="forbid")

    query: str = Field(min_length=2, max_length=400, description="What to look up, with no patient details")
    count: int = Field(default=5, ge=1, le=10, description="How many results")


def web_hit(result: WebResult, rank: int, retrieved: datetime) -> SearchHit:
    digest = hashlib.sha256(result.url.encode()).hexdigest()[:16]
    text = result.snippet or result.title
    metadata = DocumentMetadata(doc_key=result.url[:512], title=result.title[:1000] or result.url[:1000],
                                source_type=SourceType.WEB, url=result.url, year=retrieved.year)
    chunk = Chunk(chunk_id=f"web:{digest}:00000", doc_id=f"web:{digest}", doc_key=result.url[:512], version=1,
                  ordinal=0, text=text, token_count=max(1, len(text) // 4), metadata=metadata,
                  section=f"retrieved {retrieved.date().isoformat()}")
    return SearchHit(chunk=chunk, score=1.0 / rank, source=SOURCE)


def web_search_tools(provider: WebSearchProvider, *, detector: Callable[[], PhiDetector],
                     clock: Callable[[], datetime] = utc_now) -> list[Tool]:
    def web_search(params: WebSearchParams, env: ToolEnvironment) -> ToolOutput:
        if env.turn_has_phi:
            raise PhiRefused("web_search runs outside the PHI boundary and this turn carries patient details")
        try:
            checked = detector().detect(params.query)
        except Exception as exc:  # noqa: BLE001 - a detector that fails counts as PHI (fail closed)
            checked = failed_result(f"PHI detector failed ({type(exc).__name__})")
        try:
            phi.ensure_may_leave(params.query, checked=checked)
        except PhiBoundaryViolation as exc:
            raise PhiRefused(f"web_search may not send this query: {exc}") from exc
        retrieved = clock()
        results = provider.search(params.query, count=params.count, deadline_s=TIMEOUT_S - 1)
        hits = [web_hit(r, n, retrieved) for n, r in enumerate(results, start=1)]
        lines = [f"({n}) {h.chunk.metadata.title} <{h.chunk.metadata.url}>: {h.chunk.text}"
                 for n, h in enumerate(hits, start=1)]
        data = {"provider": provider.name, "retrieved_at": retrieved.isoformat(), "count": len(hits),
                "results": [{"title": r.title, "url": r.url, "snippet": r.snippet} for r in results]}
        return ToolOutput(content="\n".join(lines) if lines else "No web result.", data=data, sources=hits)

    return [define("web_search", "Search the web for current, public information (drug shortages, new "
                   "approvals, society news). Never send patient details: the query leaves the PHI boundary. "
                   "Results are cited with their URL and retrieval date.", WebSearchParams, web_search,
                   category=ToolCategory.SEARCH, requires_phi=False, rate_limit=RATE_LIMIT,
                   timeout_seconds=TIMEOUT_S)]
