"""WebDAV multistatus (RFC 4918): the PROPFIND body we send and the entries of a reply (PROPFIND or SEARCH)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from email.utils import parsedate_to_datetime
from urllib.parse import unquote, urljoin, urlsplit

from lxml import etree

DAV = "{DAV:}"
PROPFIND_BODY = (b'<?xml version="1.0" encoding="utf-8"?><d:propfind xmlns:d="DAV:"><d:prop><d:displayname/>'
                 b"<d:getcontentlength/><d:getcontenttype/><d:getlastmodified/><d:resourcetype/></d:prop>"
                 b"</d:propfind>")
_PARSER = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False)


@dataclass(frozen=True)
class Entry:
    href: str  # as the server wrote it (a path or an absolute URL)
    name: str
    is_folder: bool
    size: int | None = None
    content_type: str | None = None
    modified: str | None = None  # ISO 8601

    @property
    def path(self) -> str:
        return urlsplit(self.href).path

    def absolute(self, base: str) -> Entry:
        return replace(self, href=urljoin(base, self.href))


def parse_multistatus(body: bytes) -> list[Entry]:
    root = etree.fromstring(body, parser=_PARSER)
    entries = []
    for response in root.iter(f"{DAV}response"):
        href = (response.findtext(f"{DAV}href") or "").strip()
        if not href:
            continue
        prop = _ok_prop(response)
        is_folder = prop is not None and prop.find(f"{DAV}resourcetype/{DAV}collection") is not None
        name = (_text(prop, "displayname") or unquote(href.rstrip("/").rsplit("/", 1)[-1])).strip()
        size = _text(prop, "getcontentlength")
        entries.append(Entry(href=href, name=name, is_folder=is_folder or href.endswith("/"),
                             size=int(size) if size and size.isdigit() else None,
                             content_type=_text(prop, "getcontenttype"),
                             modified=_iso(_text(prop, "getlastmodified"))))
    return entries


def _ok_prop(response: etree._Element) -> etree._Element | None:
    for propstat in response.iter(f"{DAV}propstat"):
        status = propstat.findtext(f"{DAV}status") or ""
        if " 200 " in f"{status} ":
            return propstat.find(f"{DAV}prop")
    return None


def _text(prop: etree._Element | None, name: str) -> str | None:
    if prop is None:
        return None
    value = prop.findtext(f"{DAV}{name}")
    return value.strip() if value and value.strip() else None


def _iso(http_date: str | None) -> str | None:
    if not http_date:
        return None
    try:
        return parsedate_to_datetime(http_date).isoformat()
    except (TypeError, ValueError):
        return None
