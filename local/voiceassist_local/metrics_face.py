"""`GET /metrics`: the operator's metrics in the Prometheus text format, for a scraper on this machine.

A local face (server.py): only the local server has it, behind the same guard as every route (loopback, or
the token when the server listens beyond it). It shows every point the local store keeps (40 days) as
counters and summaries under the names of constants.metrics; per-user figures are not in it (they are in the
admin-only `GET /v1/admin/telemetry`).
"""

from __future__ import annotations

from datetime import timedelta
from http.server import BaseHTTPRequestHandler

from voiceassist.composition import dependencies
from voiceassist.models import utc_now
from voiceassist.telemetry.report import prometheus_text
from voiceassist_local.http_api import local_face

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
SHOWN = timedelta(days=40)  # what the local store keeps (adapters/local/sqlite_metrics.py)


@local_face("GET", "/metrics")
def metrics(handler: BaseHTTPRequestHandler, _body: bytes) -> None:
    data = prometheus_text(dependencies().metric_reader.aggregate(since=utc_now() - SHOWN)).encode("utf-8")
    handler.send_response(200)
    handler.send_header("Content-Type", CONTENT_TYPE)
    handler.send_header("Cache-Control", "no-store")
    handler.send_header("X-Content-Type-Options", "nosniff")
    handler.send_header("Content-Length", str(len(data)))
    handler.end_headers()
    handler.wfile.write(data)
