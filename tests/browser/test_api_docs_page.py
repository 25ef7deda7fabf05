"""The API's documentation page (/v1/docs, Swagger UI with its script and styles inlined) in headless Chromium:
it rendered nothing but "Loading...", since every reply's policy (default-src 'none') blocked its inline script
and styles (found by a browser probe of the served API)."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest
from voiceassist_local.server import make_server

from tests.browser.chromium import Tab


@pytest.fixture
def docs_url(local_deps) -> Iterator[str]:  # type: ignore[no-untyped-def]
    server = make_server("127.0.0.1", 0)
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1/docs"
    server.shutdown()
    server.server_close()


def test_the_api_docs_page_renders_every_operation_under_its_own_policy(page: Tab, docs_url: str) -> None:
    page.open(docs_url)
    operations = page.wait_for("document.querySelectorAll('.opblock').length", seconds=30)

    assert operations >= 30 and "/v1/query" in page.text(".swagger-ui")
    assert page.errors() == []  # no policy violation
