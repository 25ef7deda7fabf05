"""What the local server checks in a request's line and headers before it reads a byte of the body.

Each check returns a refusal (status, code, message: what was wrong and how to fix it) or None. http_guard.py
runs them in order; they are plain functions of the request's method, path and headers.

- **Header lines.** Each header is one line, a name without spaces, a colon, a value without CR, LF or NUL (RFC
  9112 5.1 and 5.2, RFC 9110 5.5: a 400). Python's parser stopped at the first line it could not read and took the
  rest for body: 'Transfer-Encoding : chunked' beside a Content-Length went unseen (a proxy reading it smuggles a
  request) and an Origin after a bad line was dropped.
- **Framing.** Exactly one Content-Length, a number of bytes; Transfer-Encoding with a Content-Length is a 400
  (a proxy and this server could read two different bodies: request smuggling); Transfer-Encoding alone a
  411 (send a Content-Length).
- **Host.** An HTTP/1.1 request names exactly one Host (RFC 9112 section 3.2: none, or several, is a 400).
- **Path.** A NUL character (raw or %00) is a 400: no route holds one, and a 405 naming methods would be a lie.
- **Websites.** The Host (an absolute-form target's own host, RFC 9112 3.2.2) must name the bound address or a
  loopback name (DNS rebinding sends the attacker's name: 421); a state-changing request (POST, PUT, PATCH, DELETE)
  whose Origin is not the server's own nor a configured dev origin is a 403, and so is one without Origin whose
  Sec-Fetch-Site is cross-site or same-site; its body may not be of a type a browser sends cross-site without a CORS
  preflight (text/plain, a form, or untyped: 415). multipart/form-data, the one such type an API might take, passes
  the origin checks.
- **Uncompressed.** A body with a Content-Encoding other than identity is a 415 (no route decodes one).
- **JSON is UTF-8.** A JSON body that is not valid UTF-8 is a 400 once read (RFC 8259), not decoded with
  replacement characters into a different question.
- **Size per route.** A body over its route's limit is a 413 before it is read: a question is small, an
  upload is not (http_guard.body_limit).
"""

from __future__ import annotations

from email.message import Message
from urllib.parse import unquote, urlsplit

LOOPBACK = ("127.0.0.1", "::1", "localhost")
WILDCARD = ("0.0.0.0", "::", "")  # noqa: S104 - names of "every interface", not a binding made here
STATE_CHANGING = frozenset({"POST", "PUT", "PATCH", "DELETE"})
# Bodies a browser sends cross-site without asking first (CORS "simple" requests), besides multipart/form-data
SIMPLE_BODY_TYPES = ("text/plain", "application/x-www-form-urlencoded")
SAME_SITE = ("same-origin", "none")  # Sec-Fetch-Site of the server's own page, and of a typed URL or a tool
CROSS_ORIGIN = "a request that changes data must come from this server's own page (or a configured dev origin)"

Refusal = tuple[int, str, str]


def host_name(header: str) -> str:
    """The name of a Host header without its port, lower case ("[::1]:8080" -> "[::1]")."""
    header = header.strip().lower()
    if header.startswith("["):
        return header[:header.find("]") + 1] if "]" in header else header
    return header.rsplit(":", 1)[0] if header.count(":") == 1 else header


def allowed_hosts(host: str) -> frozenset[str] | None:
    """The Host names a server bound to `host` answers: the loopback names and the bound address; any name
    when bound to every interface (then a token is required, and it is what keeps websites out)."""
    if host in WILDCARD:
        return None
    bound = f"[{host}]" if ":" in host else host
    return frozenset({"localhost", "127.0.0.1", "[::1]", bound.lower()})


def header_refusal(headers: Message) -> Refusal | None:
    """A header line HTTP does not allow: a name with a space or no colon (the parser's defects, the lines it left
    unread), a value folded onto the next line (obs-fold) or holding a CR, LF or NUL."""
    unread = headers.get_payload()
    if headers.defects or unread or any(set(str(value)) & {"\r", "\n", "\x00"} for value in headers.values()):
        return 400, "bad_request", ("a header line is malformed: send each header on one line as a name without "
                                    "spaces, a colon and a value without control characters (RFC 9112)")
    return None


def content_length(headers: Message) -> int | Refusal:
    """The body's length, or why the framing is refused."""
    lengths = headers.get_all("content-length") or []
    if headers.get("transfer-encoding"):
        if lengths:
            return 400, "bad_request", "send either Transfer-Encoding or Content-Length, not both"
        return 411, "length_required", "send the body with a Content-Length (not chunked)"
    if len(lengths) > 1:
        return 400, "bad_request", "send one Content-Length header, not several"
    raw = (lengths[0] if lengths else "0").strip()
    if not raw.isdigit():
        return 400, "bad_request", "the Content-Length header is not a number of bytes"
    return int(raw)


def host_refusal(headers: Message, version: str) -> Refusal | None:
    """An HTTP/1.1 request without a Host header, or any request with several (which one would a proxy route?)."""
    sent = headers.get_all("host") or []
    if len(sent) > 1:
        return 400, "bad_request", "send one Host header, not several"
    if not sent and version == "HTTP/1.1":
        return 400, "bad_request", "an HTTP/1.1 request needs a Host header (RFC 9112)"
    return None


def path_refusal(target: str) -> Refusal | None:
    path = urlsplit(target).path
    if "\x00" in path or "\x00" in unquote(path):
        return 400, "bad_request", "the path holds a NUL character; no route has one"
    return None


def cross_site_refusal(command: str, headers: Message, *, hosts: frozenset[str] | None,
                       origins: tuple[str, ...], target: str = "") -> Refusal | None:
    """Why a website could be driving this request, or None. The host is an absolute-form target's own (`GET
    http://name/path`, RFC 9112 3.2.2: the Host header is then ignored), else the Host header's."""
    target_parts = urlsplit(target)
    host = target_parts.netloc if target_parts.scheme and target_parts.netloc else headers.get("host")
    if hosts is not None and host is not None and host_name(host) not in hosts:
        names = " or ".join(sorted(hosts))
        return 421, "misdirected_request", f"the Host header does not name this server; use {names}"
    if command not in STATE_CHANGING:
        return None
    origin = headers.get("origin")
    if origin is not None and origin != (f"http://{host}" if host else None) and origin not in origins:
        return 403, "cross_origin", CROSS_ORIGIN
    if origin is None and (headers.get("sec-fetch-site") or "none").lower() not in SAME_SITE:
        return 403, "cross_origin", CROSS_ORIGIN
    return None


def simple_body_refusal(command: str, headers: Message, length: int) -> Refusal | None:
    """A state-changing body of a type a browser sends cross-site without a preflight (or of no type)."""
    content_type = (headers.get("content-type") or "").split(";", 1)[0].strip().lower()
    if command in STATE_CHANGING and length and (not content_type or content_type in SIMPLE_BODY_TYPES):
        return 415, "unsupported_media_type", ("send the body as application/json (or the file's own type for a "
                                               "raw upload); text/plain and form bodies are refused")
    return None


def content_coding_refusal(headers: Message, length: int) -> Refusal | None:
    """A body sent compressed (Content-Encoding other than identity): no route decodes one (RFC 9110 section
    8.4.1: 415), and read as it is, a gzipped question would be refused as if it were malformed JSON."""
    codings = [c.strip().lower() for c in ",".join(headers.get_all("content-encoding") or []).split(",")]
    if length and any(c not in ("", "identity") for c in codings):
        return 415, "unsupported_media_type", "send the body uncompressed: no Content-Encoding is accepted"
    return None


def json_text(headers: Message, body: bytes) -> bool:
    """False for a JSON body that is not UTF-8 (decoding it with replacement characters would change it)."""
    content_type = (headers.get("content-type") or "").split(";", 1)[0].strip().lower()
    if not body or not (content_type == "application/json" or content_type.endswith("+json")):
        return True
    try:
        body.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True
