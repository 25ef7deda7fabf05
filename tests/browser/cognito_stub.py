"""A stand-in for AWS on 127.0.0.1: CloudFront's files (the real web folder, an AWS-mode config.json), the
Cognito hosted UI's /oauth2/authorize and /oauth2/token (checking PKCE: S256 of the verifier must equal
the challenge), and an API that answers only with the issued ID token."""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib.resources import files
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

from voiceassist.constants.web import content_security_policy

WEB = files("voiceassist_local") / "web"
CLIENT_ID = "web-client-id"


CALCULATOR_RESULT = {
    "phase": "result", "call_id": "c1", "name": "calculate_egfr_ckd_epi_2021", "ok": True, "status": 200,
    "content": "eGFR 58 mL/min/1.73m2", "pending_action": None,
    "data": {"calculator": "eGFR (CKD-EPI 2021)", "score": 58, "unit": "mL/min/1.73m²",
             "interpretation": "Mildly to moderately decreased kidney function (G3a).", "risk_category": "G3a",
             "recommendations": ["Metformin: review the dose"], "source": "Inker et al., NEJM 2021",
             "parameters_used": {"creatinine_mg_dl": 1.2, "age_years": 64, "sex": "female",
                                 "defaults_applied": ["sex"]}},
}
PENDING_RESULT = {
    "phase": "result", "call_id": "c2", "name": "send_reminder", "ok": True, "status": 202, "content": "",
    "data": {}, "pending_action": {"action_id": "act_1", "tool": "send_reminder",
                                   "summary": "Send a reminder to recheck eGFR in 3 months.",
                                   "expires_at": "2099-01-01T00:00:00Z"},
}


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def id_token(claims: dict[str, Any]) -> str:
    header = b64url(json.dumps({"alg": "none"}).encode())
    return f"{header}.{b64url(json.dumps(claims).encode())}.signature"


class CognitoStub:
    def __init__(self, *, groups: list[str], streams: bool = False) -> None:
        self.streams = streams
        self.websocket_url: str | None = None  # config.json's, and the CSP's connect-src, when a test sets it
        self.posted: list[str] = []  # the API paths posted to
        self.session_id = "ses_stub"  # what POST /v1/sessions answers
        self.release = threading.Event()  # a stream pauses mid-answer until the test releases it
        self.confirmed: list[str] = []
        self.authorize_params: dict[str, str] = {}
        self.token_form: dict[str, str] = {}
        self.pkce_verified = False
        self.api_authorizations: list[str | None] = []
        self.issued = id_token({"sub": "u-1", "email": "dr.grey@example.org", "cognito:groups": groups,
                                "exp": int(time.time()) + 3600})
        self.codes: dict[str, str] = {}  # code -> code_challenge
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
                return

            def reply(self, status: int, body: bytes, content_type: str, **headers: str) -> None:
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                sockets = [stub.websocket_url] if stub.websocket_url else []
                self.send_header("Content-Security-Policy", content_security_policy(sockets))
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def json(self, status: int, body: object) -> None:
                self.reply(status, json.dumps(body).encode(), "application/json")

            def do_GET(self) -> None:  # noqa: N802
                url = urlsplit(self.path)
                if url.path == "/config.json":
                    self.json(200, stub.config())
                elif url.path == "/oauth2/authorize":
                    params = {k: v[-1] for k, v in parse_qs(url.query).items()}
                    stub.authorize_params = params
                    code = secrets.token_urlsafe(8)
                    stub.codes[code] = params.get("code_challenge", "")
                    target = f"{params['redirect_uri']}?{urlencode({'code': code, 'state': params['state']})}"
                    self.reply(302, b"", "text/plain", Location=target)
                elif url.path == "/":
                    self.reply(200, (WEB / "index.html").read_bytes(), "text/html; charset=utf-8")
                elif (WEB / url.path.lstrip("/")).is_file():
                    kind = "text/css" if url.path.endswith(".css") else "text/javascript"
                    self.reply(200, (WEB / url.path.lstrip("/")).read_bytes(), kind)
                else:
                    self.json(404, {"error": {"code": "not_found", "message": "no such path"}})

            def do_POST(self) -> None:  # noqa: N802
                body = self.rfile.read(int(self.headers.get("content-length") or 0))
                path = urlsplit(self.path).path
                if path == "/oauth2/token":
                    form = {k: v[-1] for k, v in parse_qs(body.decode()).items()}
                    stub.token_form = form
                    challenge = stub.codes.pop(form.get("code", ""), None)
                    verifier = form.get("code_verifier", "")
                    stub.pkce_verified = challenge == b64url(hashlib.sha256(verifier.encode()).digest())
                    if not stub.pkce_verified:
                        self.json(400, {"error": "invalid_grant"})
                        return
                    self.json(200, {"id_token": stub.issued, "access_token": "a", "expires_in": 3600,
                                    "token_type": "Bearer"})
                    return
                stub.api_authorizations.append(self.headers.get("authorization"))
                stub.posted.append(path)
                if self.headers.get("authorization") != stub.issued:
                    self.json(401, {"message": "Unauthorized"})
                elif path == "/v1/sessions":
                    self.json(200, {"session_id": stub.session_id, "created_at": "2026-01-01T00:00:00Z"})
                elif path == "/v1/query":
                    self.json(200, stub.answer(json.loads(body)["query"]))
                elif path == "/v1/query/stream" and stub.streams:
                    self.stream(json.loads(body)["query"])
                elif path.startswith("/v1/actions/") and path.endswith("/confirm"):
                    stub.confirmed.append(path.split("/")[3])
                    self.json(200, {"name": "send_reminder", "ok": True, "content": "Reminder sent."})
                else:
                    self.json(404, {"error": {"code": "not_found", "message": "no such route"}})

            def stream(self, question: str) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream; charset=utf-8")
                self.send_header("Connection", "close")
                self.end_headers()
                answer = stub.answer(question)
                first, rest = answer["answer"][:20], answer["answer"][20:]
                for kind, data in (("route", {"stage": "phi", "reason": "no PHI detected: the cloud model "
                                              "and external sources are allowed"}),
                                   ("tool", CALCULATOR_RESULT), ("tool", PENDING_RESULT),
                                   ("token", {"text": first})):
                    self.wfile.write(f"event: {kind}\ndata: {json.dumps(data)}\n\n".encode())
                    self.wfile.flush()
                stub.release.wait(timeout=60)
                for kind, data in (("token", {"text": rest}), ("citations", {"citations": answer["citations"]}),
                                   ("done", answer)):
                    self.wfile.write(f"event: {kind}\ndata: {json.dumps(data)}\n\n".encode())
                self.wfile.flush()
                self.close_connection = True

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def config(self) -> dict[str, Any]:
        return {"mode": "aws", "api_base": f"{self.url}/", "websocket_url": self.websocket_url,
                "auth": {"domain": self.url, "client_id": CLIENT_ID, "redirect_uri": f"{self.url}/",
                         "scopes": "openid email profile"}}

    @staticmethod
    def answer(question: str) -> dict[str, Any]:
        return {"answer": f"Signed-in answer to: {question} [1]", "clarifying_question": None,
                "citations": [{"number": 1, "doc_id": "d", "doc_key": "k", "title": "Stub reference",
                               "source_type": "guideline", "excerpt": "Stub excerpt.", "score": 1.0}],
                "metadata": {"query_id": "q", "phi_detected": False, "model": "stub-model",
                             "sources_searched": ["guidelines"], "warnings": []}}

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
