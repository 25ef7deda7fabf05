"""One path scheme (infra/constructs/api.py REST_STAGE): a client's URL is the stage URL (RestApiUrl) + the route
(/v1/...). Checked against the synthesized API (its stage and resources, routed as API Gateway routes them), the
web client's calls, and the local server served behind the same stage prefix (the smoke test's own checks)."""

from __future__ import annotations

import json
import re
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from conftest import REPO_ROOT, Synthesized, resources

from infra.ops.smoke import ASK, BAD_REQUEST, LIST_DOCUMENTS, check_api, route_url, urllib_http

E2E_ROUTES = {("GET", "/v1/health"), ("OPTIONS", "/v1/query"), ("POST", "/v1/documents/uploads")}
CLIENT_ROUTES = {BAD_REQUEST, LIST_DOCUMENTS, ASK, *E2E_ROUTES}


def _rest_api_url(template: dict[str, Any]) -> tuple[str, str]:
    """RestApiUrl as CloudFormation resolves it (a made-up API id), and the stage name."""
    (stage,) = resources(template, "AWS::ApiGateway::Stage").values()
    known = {"AWS::Region": "us-east-1", "AWS::URLSuffix": "amazonaws.com"}

    def resolve(part: Any) -> str:
        if isinstance(part, str):
            return part
        ref = part["Ref"]
        return known.get(ref) or (stage["StageName"] if template["Resources"][ref]["Type"] == "AWS::ApiGateway::Stage"
                                  else "abc123")

    parts = template["Outputs"]["RestApiUrl"]["Value"]["Fn::Join"][1]
    return "".join(resolve(part) for part in parts), stage["StageName"]


def _resource_paths(template: dict[str, Any]) -> dict[str, set[str]]:
    """Every resource path of the REST API -> its methods, from the template's parent chain."""
    api_resources = template["Resources"]
    (api_id,) = resources(template, "AWS::ApiGateway::RestApi")

    def path(logical_id: str) -> str:
        properties = api_resources[logical_id]["Properties"]
        parent = properties["ParentId"]
        prefix = "" if "Fn::GetAtt" in parent else path(parent["Ref"])
        return f"{prefix}/{properties['PathPart']}"

    found: dict[str, set[str]] = {}
    for properties in resources(template, "AWS::ApiGateway::Method").values():
        resource = properties["ResourceId"]
        key = "/" if "Fn::GetAtt" in resource else path(resource["Ref"])
        assert "Fn::GetAtt" not in resource or resource["Fn::GetAtt"][0] == api_id
        found.setdefault(key, set()).add(properties["HttpMethod"])
    return found


def _routed(paths: dict[str, set[str]], method: str, path: str) -> str | None:
    """The resource API Gateway picks: an exact path first, else the deepest {proxy+} above it."""
    if method in paths.get(path, set()) or "ANY" in paths.get(path, set()):
        return path
    for resource in sorted(paths, key=len, reverse=True):
        base = resource.removesuffix("/{proxy+}")
        if resource.endswith("/{proxy+}") and path.startswith(base + "/") and paths[resource] & {method, "ANY"}:
            return resource
    return None


@pytest.mark.parametrize("env", ["dev", "prod"])
def test_paths_every_client_route_reaches_the_api_function_once_versioned(synthesized: Synthesized,
                                                                          env: str) -> None:
    template = synthesized.main(env)
    url, stage = _rest_api_url(template)
    assert url == f"https://abc123.execute-api.us-east-1.amazonaws.com/{stage}/" and stage != "v1"
    paths = _resource_paths(template)
    for method, route in sorted(CLIENT_ROUTES):
        full = urlsplit(route_url(url, route)).path
        assert full.startswith(f"/{stage}/"), full
        seen = full.removeprefix(f"/{stage}")  # API Gateway strips the stage: the function sees this path
        assert seen == route and not seen.startswith("/v1/v1")
        assert _routed(paths, method, seen) is not None, f"{method} {seen}: API Gateway answers 403"


def test_paths_web_client_calls_routes_on_the_stage_url(synthesized: Synthesized) -> None:
    web = REPO_ROOT / "local" / "voiceassist_local" / "web"
    config = next(synthesized.outdir.glob("asset.*/config.json")).read_text()
    assert '"api_base":' in config  # RestApiUrl at deploy time; app.js trims its trailing slash
    assert 'replace(/\\/+$/, "")' in (web / "app.js").read_text()
    calls = re.findall(r'(?:api\.call|this\.call)\("[A-Z]+", [`"]([^`"]+)[`"]', "\n".join(
        path.read_text() for path in web.glob("*.js")))
    calls += re.findall(r'this\.base \+ "([^"]+)"', (web / "api.js").read_text())
    # app.js builds a session's paths from `const path = `/v1/sessions/...``
    assert "const path = `/v1/sessions/" in (web / "app.js").read_text()
    assert calls and all(path.startswith(("/v1/", "${path}/")) for path in calls), calls


class StageGateway(ThreadingHTTPServer):
    """API Gateway's stage routing in front of the local server: /<stage>/<route> reaches the API as <route>;
    any other path gets the gateway's 403 'Missing Authentication Token'."""

    def __init__(self, stage: str, backend: str) -> None:
        self.stage, self.backend = stage, backend
        super().__init__(("127.0.0.1", 0), _GatewayHandler)


class _GatewayHandler(BaseHTTPRequestHandler):
    server: StageGateway

    def log_message(self, *args: Any) -> None:  # quiet
        pass

    def _forward(self) -> None:
        prefix = f"/{self.server.stage}/"
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0)) or None
        if not self.path.startswith(prefix):
            status, data = 403, json.dumps({"message": "Missing Authentication Token"}).encode()
        else:
            headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "authorization")}
            request = urllib.request.Request(self.server.backend + self.path[len(prefix) - 1:], data=body,
                                             method=self.command, headers=headers)
            try:
                with urllib.request.urlopen(request, timeout=60) as reply:  # noqa: S310 - the local server
                    status, data = reply.status, reply.read()
            except urllib.error.HTTPError as error:
                status, data = error.code, error.read()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_POST = do_DELETE = _forward


@pytest.fixture
def staged_local_api(local_deps: Any) -> Iterator[str]:
    from voiceassist_local.server import make_server

    from infra.constructs.api import REST_STAGE

    api = make_server("127.0.0.1", 0, groups="admin,clinician")  # the smoke test uploads: an operator, an admin
    gateway = StageGateway(REST_STAGE, f"http://127.0.0.1:{api.server_address[1]}")
    threads = [threading.Thread(target=s.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
               for s in (api, gateway)]
    for thread in threads:
        thread.start()
    yield f"http://127.0.0.1:{gateway.server_address[1]}/{REST_STAGE}/"  # as RestApiUrl: the stage, then a slash
    for server in (gateway, api):
        server.shutdown()
        server.server_close()


def test_paths_the_smoke_checks_pass_on_the_local_api_behind_the_stage(staged_local_api: str) -> None:
    sample = Path(REPO_ROOT / "samples" / "corpus" / "metformin-drug-reference.md").read_bytes()
    status, accepted = urllib_http("POST", route_url(staged_local_api, "/v1/documents?filename=metformin-drug-"
                                                     "reference.md&title=Metformin&source_type=drug_reference"),
                                   {"Content-Type": "text/markdown"}, sample)
    assert status == 202, accepted
    deadline = time.monotonic() + 120
    job: dict[str, Any] = {}
    while job.get("state") not in ("COMPLETED", "FAILED") and time.monotonic() < deadline:
        job = urllib_http("GET", route_url(staged_local_api, accepted["links"]["job"]), {}, None)[1]
        time.sleep(0.2)
    assert job.get("state") == "COMPLETED", job
    result = check_api(urllib_http, staged_local_api, "local", openai_model="gpt-4o", wait_seconds=30,
                       sleep=time.sleep)
    assert result["answer_citations"] >= 1
    # the old scheme (the route without its /v1, or /v1 twice) does not reach the API
    assert urllib_http("POST", staged_local_api + "query", {"Content-Type": "application/json"}, b"{}")[0] == 404
    assert urllib_http("GET", staged_local_api.rstrip("/") + "/v1/v1/documents", {}, None)[0] == 404
