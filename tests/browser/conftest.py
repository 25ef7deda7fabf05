"""The browser tests' fixtures: the real local server (sample corpus ingested) and headless Chromium.

Both are module-scoped: a module copies the corpus ingested once per run and starts one browser; each test gets a
fresh tab.
Screenshots go to $VOICEASSIST_ARTIFACTS/browser (default .artifacts/browser), kept as CI artefacts.
"""

from __future__ import annotations

import os
import shutil
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from voiceassist_local.server import ADMIN_GROUPS, make_server

from tests.browser.chromium import Chromium, Tab
from tests.conftest import REPO_ROOT
from voiceassist.composition import Dependencies, use_dependencies
from voiceassist.conversation import orchestrator
from voiceassist.models import QueryRequest
from voiceassist.settings import Settings

ARTIFACTS = Path(os.environ.get("VOICEASSIST_ARTIFACTS", REPO_ROOT / ".artifacts")) / "browser"


@pytest.fixture(scope="module")
def server_deps(tmp_path_factory: pytest.TempPathFactory, kb_seed_dir: Path, shared_embedder,  # type: ignore[no-untyped-def]
                shared_phi_detector) -> Iterator[Dependencies]:
    data_dir = tmp_path_factory.mktemp("web") / "data"
    shutil.copytree(kb_seed_dir, data_dir)  # the sample corpus, ingested once per run (tests/conftest.py)
    deps = Dependencies(Settings(data_dir=data_dir))
    deps.embedder = shared_embedder  # type: ignore[misc]
    deps.phi_detector = shared_phi_detector  # type: ignore[misc]
    use_dependencies(deps)
    yield deps
    use_dependencies(None)
    runner = deps.__dict__.get("pipelines")
    if runner is not None and hasattr(runner, "close"):
        runner.close()


@pytest.fixture(scope="module")
def base_url(server_deps: Dependencies) -> Iterator[str]:
    """The local server with admin rights (VOICEASSIST_LOCAL_GROUPS=admin,clinician): the admin panel's tests."""
    server = make_server("127.0.0.1", 0, groups=ADMIN_GROUPS)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Chromium]:
    chromium = Chromium()
    yield chromium
    chromium.close()


@pytest.fixture(scope="module")
def streams(base_url: str) -> bool:
    """Whether this server has POST /v1/query/stream (the client falls back to POST /v1/query without it)."""
    probe = urllib.request.Request(f"{base_url}/v1/query/stream", data=b"{}", method="POST",
                                   headers={"content-type": "application/json"})
    try:
        with urllib.request.urlopen(probe, timeout=30):
            return True
    except urllib.error.HTTPError as err:
        return err.code not in (404, 405)


@pytest.fixture
def page(browser: Chromium, request: pytest.FixtureRequest) -> Iterator[Tab]:
    """A fresh tab (any server); its screenshot is kept when the test ends."""
    opened = browser.new_tab()
    yield opened
    try:
        opened.screenshot(ARTIFACTS / f"{request.node.name}.png")
    finally:
        opened.close()


@pytest.fixture
def tab(page: Tab, streams: bool) -> Tab:
    """A fresh tab for the local server."""
    if not streams:
        page.expected_failures.add("/v1/query/stream")  # the page's probe before it falls back
    return page


@pytest.fixture
def asked(monkeypatch: pytest.MonkeyPatch) -> list[QueryRequest]:
    """Every question the server's pipeline was asked (streamed or not), as it arrived."""
    requests: list[QueryRequest] = []
    run, respond = orchestrator.run, orchestrator.respond

    def recorded_run(deps: Any, request: QueryRequest, **kwargs: Any) -> Any:
        requests.append(request)
        return run(deps, request, **kwargs)

    def recorded_respond(deps: Any, request: QueryRequest, **kwargs: Any) -> Any:
        requests.append(request)
        return respond(deps, request, **kwargs)

    monkeypatch.setattr(orchestrator, "run", recorded_run)
    monkeypatch.setattr(orchestrator, "respond", recorded_respond)
    return requests
