"""The Brave Search API (`GET {base}/res/v1/web/search?q=...&count=...`, key in `X-Subscription-Token`), the
web search provider. It sits outside the PHI boundary: tools/web_search.py calls it only with text the egress
policy let go. Errors are WorkspaceUnavailable in our own words (never the provider's text or the query)."""

from __future__ import annotations

import requests

from voiceassist.ports import WebResult
from voiceassist.tools.workspace import WorkspaceUnavailable

DEFAULT_BASE_URL = "https://api.search.brave.com"
PATH = "/res/v1/web/search"


class BraveSearch:
    name = "brave"

    def __init__(self, api_key: str, *, base_url: str = DEFAULT_BASE_URL,
                 session: requests.Session | None = None) -> None:
        self._url = base_url.rstrip("/") + PATH
        self._key = api_key
        self._session = session or requests.Session()

    def search(self, query: str, *, count: int = 5, deadline_s: float = 8.0) -> list[WebResult]:
        try:
            response = self._session.get(self._url, params={"q": query, "count": str(count)}, timeout=deadline_s,
                                         headers={"X-Subscription-Token": self._key, "Accept": "application/json"})
            response.raise_for_status()
            results = (response.json().get("web") or {}).get("results") or []
        except Exception as exc:  # noqa: BLE001 - the provider's failure, in our words
            status = getattr(getattr(exc, "response", None), "status_code", None)
            detail = f"HTTP {status}" if status else type(exc).__name__
            raise WorkspaceUnavailable(f"web search failed or is unreachable ({detail})") from exc
        return [WebResult(title=str(r.get("title") or r.get("url")), url=str(r["url"]),
                          snippet=str(r.get("description") or ""))
                for r in results[:count] if isinstance(r, dict) and r.get("url")]
