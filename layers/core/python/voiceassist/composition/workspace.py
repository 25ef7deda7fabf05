"""The workspace tools this deployment offers, from Settings: the calendar and file tools when per-user accounts
are configured (a 0600 file locally, one secret per user on AWS), web search when a provider's endpoint and
key are. Unconfigured, they are not in the registry (GET /v1/tools does not list them)."""

from __future__ import annotations

from importlib.util import find_spec
from typing import TYPE_CHECKING, Any

from voiceassist.settings import Runtime

if TYPE_CHECKING:
    from voiceassist.composition.base import Dependencies
    from voiceassist.models import DocumentMetadata
    from voiceassist.ports import Calendar, FileShare, WebSearchProvider
    from voiceassist.tools.registry import Tool
    from voiceassist.tools.workspace import AccountReader, DavAccount, Workspace


def workspace_tools(deps: Dependencies) -> list[Tool]:
    tools: list[Tool] = []
    workspace = build_workspace(deps)
    if workspace is not None and find_spec("caldav") is not None:  # the client ships with this function
        from voiceassist.tools.calendar import calendar_tools

        tools += calendar_tools(workspace)
    if workspace is not None and find_spec("lxml") is not None:  # the WebDAV replies' parser ships here
        from voiceassist.tools.files import file_tools

        tools += file_tools(workspace, ingest=lambda name, data, meta: _ingest(deps, name, data, meta),
                            detector=deps.configured_phi_detector)
    provider = build_web_search(deps)
    if provider is not None:
        from voiceassist.tools.web_search import web_search_tools

        tools += web_search_tools(provider, detector=deps.configured_phi_detector)
    return tools


def build_web_search(deps: Dependencies) -> WebSearchProvider | None:
    """The Brave Search API when an endpoint and a key (or the key's secret) are configured."""
    settings = deps.settings
    if not settings.web_search_base_url:
        return None
    key = settings.web_search_api_key
    if not key and settings.web_search_secret_arn:
        key = deps.read_secret(settings.web_search_secret_arn)
    if not key:
        return None
    from voiceassist.adapters.websearch.brave import BraveSearch

    return BraveSearch(key, base_url=settings.web_search_base_url)


def build_workspace(deps: Dependencies) -> Workspace | None:
    from voiceassist.tools.workspace import Workspace

    accounts = _accounts(deps)
    if accounts is None:
        return None
    return Workspace(accounts, calendar=_caldav, files=_webdav)


def _accounts(deps: Dependencies) -> AccountReader | None:
    from voiceassist.tools.workspace import file_accounts, secret_accounts

    settings = deps.settings
    if settings.runtime is Runtime.AWS and settings.workspace_secret_prefix:
        from voiceassist.adapters.aws.workspace_secrets import read_secret_string

        return secret_accounts(settings.workspace_secret_prefix,
                               lambda name: read_secret_string(name, settings.region))
    if settings.workspace_accounts_file:
        return file_accounts(settings.workspace_accounts_file)
    return None


def _caldav(account: DavAccount) -> Calendar:
    from voiceassist.adapters.caldav.calendar import CalDavCalendar
    from voiceassist.tools.calendar import TIMEOUT_S

    return CalDavCalendar(account, timeout_s=TIMEOUT_S - 1)


def _webdav(account: DavAccount) -> FileShare:
    from voiceassist.adapters.webdav.client import WebDavFiles
    from voiceassist.tools.files import TIMEOUT_S

    return WebDavFiles(account, timeout_s=TIMEOUT_S - 1)


def _ingest(deps: Dependencies, name: str, data: bytes, metadata: DocumentMetadata) -> dict[str, Any]:
    """The upload route's path: backpressure, then accept_upload (stored, registered, ingestion started)."""
    from voiceassist import service

    service.ensure_ingestion_capacity(deps)
    registered = service.accept_upload(deps, filename=name, data=data, metadata=metadata)
    return {"doc_id": registered.document.doc_id, "job_id": registered.job.job_id,
            "unchanged": registered.unchanged}
