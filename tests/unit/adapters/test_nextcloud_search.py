"""Nextcloud's own search, contract-tested on recorded replies (no Nextcloud runs here): the DAV SEARCH request
we send and its multistatus reply; the unified search (OCS) full-text provider's request and JSON reply."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import requests
from lxml import etree
from pydantic import SecretStr
from requests.adapters import BaseAdapter

from voiceassist.adapters.webdav.client import WebDavFiles
from voiceassist.errors import InvalidInput
from voiceassist.tools.workspace import DavAccount, WorkspaceUnavailable

RECORDED = Path(__file__).resolve().parent.parent.parent / "fixtures" / "nextcloud"
ROOT = "https://cloud.example/remote.php/dav/files/alice/"


class Recorded(BaseAdapter):
    """Answers every request with one recorded reply and keeps the requests."""

    def __init__(self, status: int, body: bytes, content_type: str) -> None:
        super().__init__()
        self.reply = (status, body, content_type)
        self.requests: list[requests.PreparedRequest] = []

    def send(self, request: requests.PreparedRequest, **_kwargs: Any) -> requests.Response:  # type: ignore[override]
        self.requests.append(request)
        response = requests.Response()
        response.status_code, body, content_type = self.reply
        response._content = body
        response.headers["Content-Type"] = content_type
        response.request = request
        response.url = request.url or ""
        return response

    def close(self) -> None:
        pass


def _files(adapter: Recorded) -> WebDavFiles:
    session = requests.Session()
    session.mount("https://", adapter)
    account = DavAccount(url=ROOT, username="alice", password=SecretStr("app-password"), nextcloud=True)
    return WebDavFiles(account, session=session)


def test_a_name_search_is_one_dav_search_scoped_to_the_users_files() -> None:
    adapter = Recorded(207, (RECORDED / "search_reply.xml").read_bytes(), "application/xml; charset=utf-8")

    found = _files(adapter).search("sepsis", limit=5)

    [request] = adapter.requests
    assert (request.method, request.url) == ("SEARCH", "https://cloud.example/remote.php/dav/")
    body = etree.fromstring(request.body)  # type: ignore[arg-type]
    ns = {"d": "DAV:"}
    assert body.findtext(".//d:scope/d:href", namespaces=ns) == "/files/alice"
    assert body.findtext(".//d:scope/d:depth", namespaces=ns) == "infinity"
    assert body.findtext(".//d:like/d:literal", namespaces=ns) == "%sepsis%"
    assert body.findtext(".//d:limit/d:nresults", namespaces=ns) == "5"
    assert request.headers["Authorization"].startswith("Basic ")
    assert [(f.path, f.name, f.size, f.content_type, f.modified) for f in found] == [
        ("Protocols/Sepsis bundle.pdf", "Sepsis bundle.pdf", 48213, "application/pdf", "2026-03-03T10:15:00+00:00")]


def test_search_text_cannot_inject_xml_or_wildcards() -> None:
    adapter = Recorded(207, (RECORDED / "search_reply.xml").read_bytes(), "application/xml")

    _files(adapter).search("</d:literal>%_x", limit=5)

    body = etree.fromstring(adapter.requests[0].body)  # type: ignore[arg-type]
    assert body.findtext(".//{DAV:}like/{DAV:}literal") == "%</d:literal>\\_x%"


def test_a_content_search_asks_the_full_text_provider_of_unified_search() -> None:
    adapter = Recorded(200, (RECORDED / "fulltext_reply.json").read_bytes(), "application/json")

    found = _files(adapter).search("antibiotics", limit=3, content=True)

    [request] = adapter.requests
    assert request.url == ("https://cloud.example/ocs/v2.php/search/providers/fulltextsearch/search?"
                           "term=antibiotics&limit=3&format=json")
    assert request.headers["OCS-APIRequest"] == "true"
    assert [(f.path, f.name, f.content_type) for f in found] == [
        ("Protocols/Sepsis bundle.pdf", "Sepsis bundle.pdf", "application/pdf")]


def test_a_nextcloud_without_full_text_search_is_told_to_search_by_name() -> None:
    adapter = Recorded(404, json.dumps({"ocs": {"meta": {"statuscode": 404}}}).encode(), "application/json")

    with pytest.raises(InvalidInput, match="no full-text search"):
        _files(adapter).search("antibiotics", content=True)


def test_a_server_error_is_reported_in_our_words_not_the_servers() -> None:
    adapter = Recorded(500, b"<error>Sabre exception about Sepsis bundle.pdf</error>", "application/xml")

    with pytest.raises(WorkspaceUnavailable) as raised:
        _files(adapter).search("sepsis")

    assert "Sepsis" not in str(raised.value) and "file server failed" in str(raised.value)


def test_a_files_url_outside_nextclouds_dav_is_refused_for_search() -> None:
    session = requests.Session()
    account = DavAccount(url="https://cloud.example/webdav/", nextcloud=True)

    with pytest.raises(InvalidInput, match="remote.php/dav/files"):
        WebDavFiles(account, session=session).search("x")
