"""The local server's web faces over real HTTP: the page at `/`, its files at `/<file>` with the security
headers, `/config.json` for a local page, and nothing else of the folder (anything else is the API's 404)."""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator

import pytest
from voiceassist_local import voice_stream
from voiceassist_local.server import make_server

from voiceassist.speech import MAX_AUDIO_SECONDS


@pytest.fixture
def server_url(local_deps) -> Iterator[str]:  # type: ignore[no-untyped-def]
    server = make_server("127.0.0.1", 0)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def fetch(url: str) -> tuple[int, dict[str, str], bytes]:
    try:
        with urllib.request.urlopen(url, timeout=30) as reply:
            return reply.status, {k.lower(): v for k, v in reply.headers.items()}, reply.read()
    except urllib.error.HTTPError as err:
        return err.code, {k.lower(): v for k, v in err.headers.items()}, err.read()


def test_the_page_and_its_modules_are_served_with_the_security_headers(server_url: str) -> None:
    status, headers, page = fetch(f"{server_url}/?q=metformin")
    assert status == 200 and headers["content-type"].startswith("text/html")
    assert b'<script type="module" src="/app.js">' in page
    for name in ("app.js", "api.js", "auth.js", "render.js", "admin.js", "socket.js", "voice.js", "voice_socket.js"):
        status, headers, _ = fetch(f"{server_url}/{name}")
        assert status == 200 and headers["content-type"].startswith("text/javascript"), name
        assert "script-src 'self'" in headers["content-security-policy"]
        assert headers["x-frame-options"] == "DENY" and headers["x-content-type-options"] == "nosniff"


def test_config_tells_the_page_it_is_local(server_url: str) -> None:
    status, _, body = fetch(f"{server_url}/config.json")
    assert status == 200 and json.loads(body) == {"mode": "local", "api_base": "", "auth": None,
                                                  "websocket_url": None, "groups": ["clinician"],
                                                  "voice_max_seconds": int(MAX_AUDIO_SECONDS),
                                                  "voice_stream": voice_stream.PATH}


@pytest.mark.parametrize("path", ["/web_face.py", "/..%2Fserver.py", "/missing.js", "/web/app.js"])
def test_nothing_but_the_clients_files_is_served(server_url: str, path: str) -> None:
    status, headers, body = fetch(f"{server_url}{path}")
    assert status == 404 and headers["content-type"].startswith("application/json")
    assert json.loads(body)["error"]["code"] == "not_found"


def test_the_api_still_answers_beside_the_page(server_url: str) -> None:
    status, _, body = fetch(f"{server_url}/v1/health")
    assert status == 200 and json.loads(body)["status"] == "ok"
