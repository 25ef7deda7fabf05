"""One person's files over WebDAV with `requests`: name search by walking folders with PROPFIND (Depth 1, so
servers that refuse Depth infinity work too), downloads streamed with a size cap. On a Nextcloud account the
name search is one DAV SEARCH request and content search goes to the full-text search provider of its
unified search (OCS); both parsers live in nextcloud.py and are contract-tested on recorded responses.

Errors: WorkspaceUnavailable in our own words for the server or the network, NotFound for a missing file,
PayloadTooLarge past the cap, InvalidInput for a path that tries to leave the account's root or names a folder,
Forbidden for a path the server refuses to serve (a symlink, WsgiDAV's and Nextcloud's default): a GET the server
refuses (403, 405, 501) is followed by one PROPFIND (Depth 0) to tell a folder from the rest.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from urllib.parse import quote, unquote, urlsplit

import requests

from voiceassist.adapters.webdav import nextcloud
from voiceassist.adapters.webdav.propfind import PROPFIND_BODY, Entry, parse_multistatus
from voiceassist.errors import Forbidden, InvalidInput, NotFound, PayloadTooLarge
from voiceassist.ports import RemoteFile
from voiceassist.tools.workspace import DavAccount, WorkspaceUnavailable

REFUSED_GET = (403, 405, 501)  # a folder (WsgiDAV 403, Sabre/Nextcloud 501) or a path the server will not serve
MAX_FOLDERS = 200  # a name search walks at most this many folders (and stops at the deadline)
CHUNK = 64 * 1024


class WebDavFiles:
    def __init__(self, account: DavAccount, *, timeout_s: float = 8.0,
                 session: requests.Session | None = None) -> None:
        self._root = account.url.rstrip("/") + "/"
        self._root_path = urlsplit(self._root).path
        self._nextcloud = account.nextcloud
        self._timeout = timeout_s
        self._session = session or requests.Session()
        if account.username:
            password = account.password.get_secret_value() if account.password else ""
            self._session.auth = (account.username, password)

    # ---- the port ------------------------------------------------------------------------------------------
    def search(self, text: str, *, limit: int = 20, content: bool = False) -> list[RemoteFile]:
        if self._nextcloud:
            found = self._nextcloud_content(text, limit) if content else self._nextcloud_names(text, limit)
            return found[:limit]
        if content:
            raise InvalidInput("this file server has no content search; search by name instead")
        return self._walk_names(text.lower(), limit)

    def read(self, path: str, *, max_bytes: int) -> bytes:
        url = self._url(path)
        with _server_errors("read the file"):
            response = self._session.get(url, stream=True, timeout=self._timeout)
            with response:
                if response.status_code == 404:
                    raise NotFound(f"no file {path!r} in your files")
                if response.status_code in REFUSED_GET:
                    raise self._refusal(url)
                response.raise_for_status()
                declared = int(response.headers.get("Content-Length") or 0)
                if declared > max_bytes:
                    raise PayloadTooLarge(f"{path} is {declared} bytes; the limit is {max_bytes}")
                data = bytearray()
                for chunk in response.iter_content(CHUNK):
                    data += chunk
                    if len(data) > max_bytes:
                        raise PayloadTooLarge(f"{path} is larger than the limit of {max_bytes} bytes")
                return bytes(data)

    def _refusal(self, url: str) -> InvalidInput | Forbidden:
        """Why the server would not send `url`: a folder (InvalidInput), else a path it will not serve (Forbidden).
        Neither quotes the path."""
        response = self._session.request("PROPFIND", url, data=PROPFIND_BODY, timeout=self._timeout,
                                         headers={"Depth": "0", "Content-Type": "application/xml"})
        entries = parse_multistatus(response.content) if response.status_code == 207 else []
        if entries and entries[0].is_folder:
            return InvalidInput("that path is a folder, not a file: give the path of a file inside it "
                                "(search_nextcloud_files lists them)")
        return Forbidden("the file server refuses to serve that path: a link (symlink) or a file it keeps "
                         "private is not served; give the path of a regular file, as search_nextcloud_files "
                         "lists them")

    # ---- generic WebDAV --------------------------------------------------------------------------------------
    def _walk_names(self, needle: str, limit: int) -> list[RemoteFile]:
        deadline = time.monotonic() + self._timeout
        found: list[RemoteFile] = []
        folders: deque[str] = deque([self._root])
        visited = 0
        while folders and len(found) < limit and visited < MAX_FOLDERS and time.monotonic() < deadline:
            folder = folders.popleft()
            visited += 1
            for entry in self._list(folder):
                if entry.is_folder:
                    folders.append(entry.href)
                elif needle in entry.name.lower():
                    found.append(self._file(entry))
        return found[:limit]

    def _list(self, folder_url: str) -> list[Entry]:
        with _server_errors("list your files"):
            response = self._session.request("PROPFIND", folder_url, data=PROPFIND_BODY, timeout=self._timeout,
                                             headers={"Depth": "1", "Content-Type": "application/xml"})
            response.raise_for_status()
            entries = parse_multistatus(response.content)
        own = urlsplit(folder_url).path.rstrip("/")
        return [e.absolute(folder_url) for e in entries if unquote(e.path).rstrip("/") != unquote(own)]

    # ---- Nextcloud ----------------------------------------------------------------------------------------------
    def _nextcloud_names(self, text: str, limit: int) -> list[RemoteFile]:
        dav_root, scope = nextcloud.search_scope(self._root)
        with _server_errors("search your files"):
            response = self._session.request("SEARCH", dav_root, data=nextcloud.name_search_body(scope, text, limit),
                                             headers={"Content-Type": "text/xml"}, timeout=self._timeout)
            response.raise_for_status()
            entries = parse_multistatus(response.content)
        return [self._file(e.absolute(dav_root)) for e in entries if not e.is_folder]

    def _nextcloud_content(self, text: str, limit: int) -> list[RemoteFile]:
        url = nextcloud.content_search_url(self._root)
        with _server_errors("search the content of your files"):
            response = self._session.get(url, params={"term": text, "limit": str(limit), "format": "json"},
                                         headers={"OCS-APIRequest": "true", "Accept": "application/json"},
                                         timeout=self._timeout)
            if response.status_code == 404:
                raise InvalidInput("this Nextcloud has no full-text search app; search by name instead")
            response.raise_for_status()
            return nextcloud.parse_content_results(response.json())

    # ---- paths ------------------------------------------------------------------------------------------------
    def _url(self, path: str) -> str:
        parts = [p for p in path.strip().split("/") if p]
        if not parts or any(p in (".", "..") for p in parts) or "://" in path:
            raise InvalidInput("the path leaves the root of your files ('..' or a URL), or is empty: give the "
                               "file's path inside your files, e.g. Documents/protocol.pdf")
        return self._root + "/".join(quote(p) for p in parts)

    def _file(self, entry: Entry) -> RemoteFile:
        path = unquote(entry.path)
        root = unquote(self._root_path)
        relative = path[len(root):] if path.startswith(root) else path.lstrip("/")
        return RemoteFile(path=relative.strip("/"), name=entry.name, size=entry.size,
                          content_type=entry.content_type, modified=entry.modified)


@contextmanager
def _server_errors(doing: str) -> Iterator[None]:
    try:
        yield
    except (NotFound, InvalidInput, Forbidden):
        raise
    except Exception as exc:  # noqa: BLE001 - the server's failure, in our words (its text may quote a file)
        raise WorkspaceUnavailable(f"could not {doing}: the file server failed or is unreachable "
                                   f"({type(exc).__name__})") from exc


