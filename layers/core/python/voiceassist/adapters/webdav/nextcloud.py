"""Nextcloud's own search: a DAV SEARCH (RFC 5323 basicsearch) over the user's files by name, and content search
through the full-text search provider of its unified search (OCS, needs the fulltextsearch apps). The shapes
follow Nextcloud's documentation; tests/unit/adapters/test_nextcloud_search.py checks them on recorded replies."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit
from xml.sax.saxutils import escape

from voiceassist.errors import InvalidInput
from voiceassist.ports import RemoteFile

DAV_MARK = "/remote.php/dav/"
CONTENT_PROVIDER = "fulltextsearch"


def search_scope(files_root: str) -> tuple[str, str]:
    """(the DAV endpoint SEARCH goes to, the scope inside it) for a root like .../remote.php/dav/files/alice/."""
    if DAV_MARK not in files_root:
        raise InvalidInput("a Nextcloud files URL looks like https://host/remote.php/dav/files/<user>/")
    base, inside = files_root.split(DAV_MARK, 1)
    return base + DAV_MARK, "/" + inside.strip("/")


def name_search_body(scope: str, text: str, limit: int) -> bytes:
    like = escape(text.replace("%", "").replace("_", r"\_"))
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<d:searchrequest xmlns:d="DAV:" xmlns:oc="http://owncloud.org/ns">
  <d:basicsearch>
    <d:select><d:prop><d:displayname/><d:getcontentlength/><d:getcontenttype/><d:getlastmodified/>
      <d:resourcetype/></d:prop></d:select>
    <d:from><d:scope><d:href>{escape(scope)}</d:href><d:depth>infinity</d:depth></d:scope></d:from>
    <d:where><d:like><d:prop><d:displayname/></d:prop><d:literal>%{like}%</d:literal></d:like></d:where>
    <d:orderby/>
    <d:limit><d:nresults>{int(limit)}</d:nresults></d:limit>
  </d:basicsearch>
</d:searchrequest>""".encode()


def content_search_url(files_root: str) -> str:
    parts = urlsplit(files_root)
    base = files_root.split(DAV_MARK, 1)[0] if DAV_MARK in files_root else f"{parts.scheme}://{parts.netloc}"
    return f"{base}/ocs/v2.php/search/providers/{CONTENT_PROVIDER}/search"


def parse_content_results(reply: dict[str, Any]) -> list[RemoteFile]:
    """The unified search reply ({"ocs": {"data": {"entries": [...]}}}) as files; each entry's
    `attributes.path` (or its resource URL's `dir`/`scrollto`) names the file."""
    entries = ((reply.get("ocs") or {}).get("data") or {}).get("entries") or []
    files = []
    for entry in entries:
        attributes = entry.get("attributes") or {}
        path = str(attributes.get("path") or "").strip("/")
        if not path:
            continue
        files.append(RemoteFile(path=path, name=path.rsplit("/", 1)[-1], content_type=attributes.get("mime")))
    return files
