"""The query-time sources outside the knowledge base (SearchSource adapters), built from Settings.

Adding a source: one adapter class with the SearchSource port, one entry here, and its place in the
intents' order (voiceassist.query.sources). Planning and searching need no other change.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from voiceassist.models import SearchHit
from voiceassist.ports import SearchSource
from voiceassist.settings import Settings

SecretReader = Callable[[str], "str | None"]


class BuiltOnFirstSearch:
    """A SearchSource whose client is built on its first search: every query step can see that the source is
    configured (and whether it is in the boundary), but only the step that searches imports the client and
    reads its secret."""

    def __init__(self, name: str, *, in_boundary: bool, budget_seconds: float,
                 build: Callable[[], SearchSource]) -> None:
        self.name = name
        self.in_boundary = in_boundary
        self.budget_seconds = budget_seconds
        self._build = build
        self._client: SearchSource | None = None
        self._lock = threading.Lock()

    def search(self, query: str, *, top_k: int = 5, deadline_s: float | None = None) -> list[SearchHit]:
        with self._lock:
            if self._client is None:
                self._client = self._build()
        return self._client.search(query, top_k=top_k, deadline_s=deadline_s)


def build_external_sources(settings: Settings, *, secret_reader: SecretReader) -> dict[str, SearchSource]:
    sources: dict[str, SearchSource] = {}
    if settings.pubmed_base_url:
        sources["pubmed"] = BuiltOnFirstSearch("pubmed", in_boundary=False,
                                               budget_seconds=settings.pubmed_budget_seconds,
                                               build=lambda: _pubmed(settings, secret_reader))
    return sources


def _pubmed(settings: Settings, secret_reader: SecretReader) -> SearchSource:
    from voiceassist.adapters.pubmed.client import PubMedClient

    api_key = settings.pubmed_api_key
    if settings.pubmed_secret_arn:
        api_key = secret_reader(settings.pubmed_secret_arn)
    return PubMedClient(str(settings.pubmed_base_url), api_key=api_key, email=settings.pubmed_email,
                        requests_per_second=settings.pubmed_requests_per_second,
                        budget_seconds=settings.pubmed_budget_seconds)
