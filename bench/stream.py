"""Streaming over real HTTP on the local server: time to first token and what SSE, WebSocket and chat streams
add over the REST call.

    .venv/bin/python bench/stream.py [--rounds 20] [--model stub|extractive]

The sample corpus in a temporary folder and the local server in a thread. `--model stub` (the default): the
cloud model is the OpenAI-compatible stub server (tests/stubs/openai_stub.py) streaming a grounded answer of
about 50 tokens at 50 tokens/s, reached through the real OpenAI adapter (REST's call, which does not stream,
waits as long before its answer); `--model extractive`: no language model. Each round asks
each question by POST /v1/query, POST /v1/query/stream, the WebSocket (the stand-in of tests/browser, running
functions/stream's handler) and POST /v1/chat/completions with stream: true. Reported, in ms (median and p95):
`rest` the REST call; per stream `first_event`, `first_token` (a draft token with the stub model), `total`;
`pipeline_overhead` = when the model was called (the adapter's stream_completion) - when the SSE request was
sent, and `ttft_over_pipeline` = SSE first token - that (the model's first token, the draft publisher and the
SSE write; the bar: p95 <= 50 ms); `sse_overhead` and `websocket_overhead` = stream total - REST total of the
same round and question. Events per stream too.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import voiceassist_local  # noqa: F401 - registers the in-process pipeline runner
from voiceassist_local.cli.local import ensure_sample_corpus
from voiceassist_local.server import LOCAL_USER, make_server
from websockets.sync.client import connect

from voiceassist.adapters.openai.chat import OpenAIChatModel
from voiceassist.composition import Dependencies, use_dependencies
from voiceassist.models import ChatCompletion, ChatMessage, ToolDefinition
from voiceassist.observability import logger
from voiceassist.settings import Settings

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository: the tests' stub servers
from tests.browser.websocket_stub import WebSocketStub  # noqa: E402
from tests.stubs.openai_stub import OpenAIStub, StubReply  # noqa: E402

# Each question with a grounded answer of about 50 tokens, written from the sample corpus as a model would
ANSWERS = {
    "What is the metformin dose for eGFR 40?":
        "Starting metformin is not recommended when eGFR is between 30 and 45 mL/min/1.73 m2 [1]. If eGFR falls "
        "below 45 during treatment, reassess the benefit and consider a reduced dose [1]. Metformin is "
        "contraindicated when eGFR is below 30 mL/min/1.73 m2 [1].",
    "What is the first-line treatment for uncomplicated hypertension?":
        "First-line drug classes for uncomplicated hypertension are thiazide or thiazide-like diuretics, ACE "
        "inhibitors, angiotensin receptor blockers and dihydropyridine calcium channel blockers [1]. ACE "
        "inhibitors and angiotensin receptor blockers should not be combined [1].",
    "Which antibiotic is recommended for outpatient community-acquired pneumonia?":
        "For adults treated as outpatients without comorbidities, first-line treatment is amoxicillin 1 g "
        "orally three times daily [1]. With comorbidities, use amoxicillin/clavulanate plus a macrolide, or a "
        "respiratory fluoroquinolone alone [1].",
    "What is the intramuscular epinephrine dose for anaphylaxis in adults?":
        "Intramuscular epinephrine is the first-line treatment and must not be delayed [1]. Give 0.01 mg/kg "
        "intramuscularly into the anterolateral thigh, to a maximum single dose of 0.5 mg in adults [1]. "
        "Repeat every 5 to 15 minutes if symptoms persist [1].",
}
QUESTIONS = list(ANSWERS)
TOKENS_PER_SECOND = 50
WARM_UP_ROUNDS = 1
WS_TOKEN = "bench-token"


class TimedModel:
    """The stub-backed cloud model, noting when each streamed call starts (the pipeline's share ends there). A
    call that does not stream (REST) waits as long as the stream of the same answer takes, then answers: a model
    spends the same time writing an answer whether it streams it or not."""

    def __init__(self, inner: OpenAIChatModel) -> None:
        self.inner, self.name, self.in_boundary = inner, inner.name, inner.in_boundary
        self.called_at: list[float] = []
        self.writing_s = 0.0

    def complete(self, messages: Sequence[ChatMessage], **options: Any) -> ChatCompletion:
        time.sleep(self.writing_s)
        return self.inner.complete(messages, **options)

    def complete_with_tools(self, messages: Sequence[ChatMessage], tools: Sequence[ToolDefinition],
                            **options: Any) -> ChatCompletion:
        time.sleep(self.writing_s)
        return self.inner.complete_with_tools(messages, tools, **options)

    def stream_completion(self, messages: Sequence[ChatMessage], tools: Sequence[ToolDefinition] = (), *,
                          on_text: Callable[[str], None], max_tokens: int = 700,
                          temperature: float = 0.1) -> ChatCompletion:
        self.called_at.append(time.perf_counter())
        return self.inner.stream_completion(messages, tools, on_text=on_text, max_tokens=max_tokens,
                                            temperature=temperature)

    def __getattr__(self, name: str) -> Any:  # stream
        return getattr(self.inner, name)


def post(url: str, body: dict[str, Any]) -> urllib.request.Request:
    return urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                  headers={"content-type": "application/json"})


def rest(base: str, question: str) -> dict[str, float]:
    start = time.perf_counter()
    with urllib.request.urlopen(post(f"{base}/v1/query", {"query": question}), timeout=120) as reply:
        reply.read()
    return {"total": (time.perf_counter() - start) * 1000}


class Marks:
    """When a stream's first event, first token (draft or not) and end arrived, from `start`."""

    def __init__(self) -> None:
        self.start = time.perf_counter()
        self.values: dict[str, float] = {"events": 0}

    def saw(self, kind: str) -> None:
        elapsed = (time.perf_counter() - self.start) * 1000
        self.values["events"] += 1
        self.values.setdefault("first_event", elapsed)
        if kind == "token":
            self.values.setdefault("first_token", elapsed)

    def end(self) -> dict[str, float]:
        self.values["total"] = (time.perf_counter() - self.start) * 1000
        return self.values


def sse(base: str, question: str) -> dict[str, float]:
    marks = Marks()
    with urllib.request.urlopen(post(f"{base}/v1/query/stream", {"query": question}), timeout=120) as reply:
        for raw in reply:
            line = raw.decode().rstrip("\n")
            if line.startswith("event: "):
                marks.saw(line[len("event: "):])
    values = marks.end()
    values["start"] = marks.start
    return values


def websocket(url: str, question: str) -> dict[str, float]:
    marks = Marks()
    with connect(url, subprotocols=["voiceassist", WS_TOKEN], open_timeout=30) as socket:  # type: ignore[list-item]
        socket.send(json.dumps({"action": "ask", "query": question}))
        for raw in socket:
            kind = json.loads(raw)["type"]
            marks.saw(kind)
            if kind in ("done", "error"):
                break
    return marks.end()


def chat_stream(base: str, question: str) -> dict[str, float]:
    marks = Marks()
    body = {"model": "voiceassist", "stream": True, "messages": [{"role": "user", "content": question}]}
    with urllib.request.urlopen(post(f"{base}/v1/chat/completions", body), timeout=120) as reply:
        for raw in reply:
            line = raw.decode().strip()
            if line.startswith("data: {"):
                content = json.loads(line[6:])["choices"][0]["delta"].get("content")
                marks.saw("token" if content else "chunk")
    return marks.end()


def summary(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return {"median": round(statistics.median(ordered), 1), "p95": round(p95, 1)}


def one_round(base: str, ws_url: str, question: str, model: TimedModel | None) -> dict[str, float]:
    rest_ms = rest(base, question)["total"]
    calls_before = len(model.called_at) if model else 0
    streamed = sse(base, question)
    model_called = model.called_at[calls_before] if model else None  # the run's first model call
    socket, chat = websocket(ws_url, question), chat_stream(base, question)
    row = {"rest": rest_ms, "sse_first_event": streamed["first_event"], "sse_first_token": streamed["first_token"],
           "sse_total": streamed["total"], "sse_overhead": streamed["total"] - rest_ms,
           "sse_events": streamed["events"], "websocket_first_token": socket["first_token"],
           "websocket_total": socket["total"], "websocket_overhead": socket["total"] - rest_ms,
           "websocket_events": socket["events"], "chat_first_content": chat["first_token"],
           "chat_total": chat["total"], "chat_chunks": chat["events"]}
    if model_called is not None:
        overhead = (model_called - streamed["start"]) * 1000
        row.update({"pipeline_overhead": overhead, "ttft_over_pipeline": streamed["first_token"] - overhead})
    return row


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--model", choices=("stub", "extractive"), default="stub")
    args = parser.parse_args(argv)
    logger.setLevel("WARNING")
    counts = ("sse_events", "websocket_events", "chat_chunks")
    with tempfile.TemporaryDirectory() as folder, OpenAIStub(model="stub-streaming") as stub:
        deps = Dependencies(Settings(data_dir=Path(folder) / "data"))
        deps.settings.data_dir.mkdir(parents=True)
        model = None
        if args.model == "stub":
            model = TimedModel(OpenAIChatModel("stub-streaming", in_boundary=False, base_url=stub.base_url))
            deps.cloud_chat = model  # type: ignore[misc,assignment]
        use_dependencies(deps)
        ensure_sample_corpus(deps)
        server = make_server("127.0.0.1", 0)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        socket_server = WebSocketStub(token=WS_TOKEN, user_id=LOCAL_USER)
        base = f"http://127.0.0.1:{server.server_address[1]}"
        results: dict[str, list[float]] = {}
        for round_number in range(WARM_UP_ROUNDS + args.rounds):
            for question in QUESTIONS:
                reply = StubReply(text=ANSWERS[question], token_delay_s=1 / TOKENS_PER_SECOND)
                stub._script = [reply]  # every call of this question gets its answer
                if model:
                    model.writing_s = (len(re.findall(r"\s*\S+", reply.text)) - 1) * reply.token_delay_s
                row = one_round(base, socket_server.url, question, model)
                if round_number >= WARM_UP_ROUNDS:
                    for name, value in row.items():
                        results.setdefault(name, []).append(value)
        socket_server.close()
        server.shutdown()
        server.server_close()
        deps.pipelines.close()  # type: ignore[attr-defined]
        use_dependencies(None)
    report = {"questions": len(QUESTIONS), "rounds": args.rounds,
              "model": f"stub at {TOKENS_PER_SECOND} tokens/s" if model else "extractive",
              "ms": {name: summary(values) for name, values in results.items() if name not in counts},
              **{f"{name}_per_stream": summary(results[name]) for name in counts}}
    json.dump(report, sys.stdout, indent=2)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
