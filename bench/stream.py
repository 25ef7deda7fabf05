"""Streaming overhead over real HTTP on the local server: SSE and chat-completion streams against the REST call.

    .venv/bin/python bench/stream.py [--rounds 20]

The sample corpus in a temporary folder, no language model (the extractive default), the local server in a
thread. Each round asks each question by POST /v1/query, POST /v1/query/stream and POST /v1/chat/completions
with stream: true (one HTTP connection each, urllib). Reported, in ms (median and p95): `rest` the REST call;
for the SSE stream `first_event` (the `route` event of Detect PHI), `first_token`, `total`; for the chat stream
`first_content` (the first chunk with text) and `total`; `sse_overhead` = SSE total - REST total of the same
round and question (the in-process channel, the worker thread and the event writes). Events per stream too.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

import voiceassist_local  # noqa: F401 - registers the in-process pipeline runner
from voiceassist_local.cli.local import ensure_sample_corpus
from voiceassist_local.server import make_server

from voiceassist.composition import Dependencies, use_dependencies
from voiceassist.observability import logger
from voiceassist.settings import Settings

QUESTIONS = [
    "What is the metformin dose for eGFR 40?",
    "What is the first-line treatment for uncomplicated hypertension?",
    "Which antibiotic is recommended for outpatient community-acquired pneumonia?",
    "What is the intramuscular epinephrine dose for anaphylaxis in adults?",
]
WARM_UP_ROUNDS = 1


def post(url: str, body: dict[str, Any]) -> urllib.request.Request:
    return urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                  headers={"content-type": "application/json"})


def rest(base: str, question: str) -> float:
    start = time.perf_counter()
    with urllib.request.urlopen(post(f"{base}/v1/query", {"query": question}), timeout=120) as reply:
        reply.read()
    return (time.perf_counter() - start) * 1000


def sse(base: str, question: str) -> dict[str, float]:
    start = time.perf_counter()
    marks: dict[str, float] = {}
    events = 0
    with urllib.request.urlopen(post(f"{base}/v1/query/stream", {"query": question}), timeout=120) as reply:
        for raw in reply:
            line = raw.decode().rstrip("\n")
            if not line.startswith("event: "):
                continue
            events += 1
            kind = line[len("event: "):]
            elapsed = (time.perf_counter() - start) * 1000
            marks.setdefault("first_event", elapsed)
            if kind == "token":
                marks.setdefault("first_token", elapsed)
    marks["total"] = (time.perf_counter() - start) * 1000
    marks["events"] = events
    return marks


def chat_stream(base: str, question: str) -> dict[str, float]:
    start = time.perf_counter()
    marks: dict[str, float] = {}
    chunks = 0
    body = {"model": "voiceassist", "stream": True, "messages": [{"role": "user", "content": question}]}
    with urllib.request.urlopen(post(f"{base}/v1/chat/completions", body), timeout=120) as reply:
        for raw in reply:
            line = raw.decode().strip()
            if not line.startswith("data: {"):
                continue
            chunks += 1
            if json.loads(line[6:])["choices"][0]["delta"].get("content"):
                marks.setdefault("first_content", (time.perf_counter() - start) * 1000)
    marks["total"] = (time.perf_counter() - start) * 1000
    marks["chunks"] = chunks
    return marks


def summary(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return {"median": round(statistics.median(ordered), 1), "p95": round(p95, 1)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args(argv)
    logger.setLevel("WARNING")
    with tempfile.TemporaryDirectory() as folder:
        deps = Dependencies(Settings(data_dir=Path(folder) / "data"))
        deps.settings.data_dir.mkdir(parents=True)
        use_dependencies(deps)
        ensure_sample_corpus(deps)
        server = make_server("127.0.0.1", 0)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        base = f"http://127.0.0.1:{server.server_address[1]}"
        results: dict[str, list[float]] = {}
        for round_number in range(WARM_UP_ROUNDS + args.rounds):
            for question in QUESTIONS:
                rest_ms, streamed, chat = rest(base, question), sse(base, question), chat_stream(base, question)
                if round_number < WARM_UP_ROUNDS:
                    continue
                for name, value in {"rest": rest_ms, "sse_first_event": streamed["first_event"],
                                    "sse_first_token": streamed["first_token"], "sse_total": streamed["total"],
                                    "sse_overhead": streamed["total"] - rest_ms, "sse_events": streamed["events"],
                                    "chat_first_content": chat["first_content"], "chat_total": chat["total"],
                                    "chat_chunks": chat["chunks"]}.items():
                    results.setdefault(name, []).append(value)
        server.shutdown()
        server.server_close()
        deps.pipelines.close()  # type: ignore[attr-defined]
        use_dependencies(None)
    report = {"questions": len(QUESTIONS), "rounds": args.rounds, "model": "extractive",
              "ms": {name: summary(values) for name, values in results.items()
                     if name not in ("sse_events", "chat_chunks")},
              "sse_events_per_stream": summary(results["sse_events"]),
              "chat_chunks_per_stream": summary(results["chat_chunks"])}
    json.dump(report, sys.stdout, indent=2)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
