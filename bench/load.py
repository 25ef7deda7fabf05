"""A bounded local load test over real HTTP: N concurrent clients for D seconds against a `voiceassist serve`
started here (samples ingested), mixing questions, reads and uploads; prints JSON.

    .venv/bin/python bench/load.py [--clients 50] [--seconds 60] [--upload-share 0.1]

Each client loops: an upload (a small unique Markdown note) with probability --upload-share, otherwise a
question (70%), a document list or a health check. It reports requests, errors (any 5xx, any connection
failure, and any 4xx other than the 429 backpressure answer), the statuses seen, and p50/p95/p99 latency per
kind. The aim is 0 errors; 429 and 503 with Retry-After are the server protecting itself, counted apart.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections import Counter, defaultdict
from typing import Any

QUESTIONS = ("What is the first-line treatment for uncomplicated hypertension?",
             "Maximum daily dose of metformin?", "How is community-acquired pneumonia treated in adults?",
             "Apixaban dose in atrial fibrillation with CKD?")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


ERROR_SAMPLES: list[str] = []


def request(url: str, method: str = "GET", body: dict[str, Any] | None = None) -> int:
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method, headers={"content-type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=120) as reply:
            reply.read()
            return int(reply.status)
    except urllib.error.HTTPError as err:
        text = err.read().decode("utf-8", errors="replace")
        if err.code != 429 and len(ERROR_SAMPLES) < 5:
            ERROR_SAMPLES.append(f"{err.code} {method} {url.split('/v1', 1)[-1]}: {text[:300]}")
        return int(err.code)


def start_server(data_dir: str) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    env = {**os.environ, "VOICEASSIST_DATA_DIR": data_dir, "POWERTOOLS_LOG_LEVEL": "ERROR"}
    code = "import sys; from voiceassist_local.cli import main; sys.exit(main())"
    process = subprocess.Popen([sys.executable, "-c", code, "serve", "--no-watch", "--port", str(port)],
                               env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline:
        try:
            if request(f"{url}/v1/health") == 200:
                return process, url
        except OSError:
            time.sleep(0.5)
    process.kill()
    raise SystemExit("the server did not start")


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(share * len(ordered)))], 1) if ordered else 0.0


def client(url: str, until: float, upload_share: float, seed: int, results: list[tuple[str, int, float]],
           lock: threading.Lock) -> None:
    rng = random.Random(seed)
    n = 0
    while time.monotonic() < until:
        roll = rng.random()
        n += 1
        if roll < upload_share:
            kind, method, path = "upload", "POST", "/v1/documents"
            body: dict[str, Any] | None = {"filename": f"load-{seed}-{n}.md",
                                           "text": f"# Load note {seed}-{n}\nZorbafen {seed} {n} is a test."}
        elif roll < upload_share + 0.7 * (1 - upload_share):
            kind, method, path, body = "query", "POST", "/v1/query", {"query": rng.choice(QUESTIONS)}
        elif roll < upload_share + 0.85 * (1 - upload_share):
            kind, method, path, body = "list", "GET", "/v1/documents?limit=20", None
        else:
            kind, method, path, body = "health", "GET", "/v1/health", None
        started = time.perf_counter()
        try:
            status = request(url + path, method, body)
        except OSError:
            status = 0  # a reset or a refused connection
        with lock:
            results.append((kind, status, (time.perf_counter() - started) * 1000))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--upload-share", type=float, default=0.1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as data_dir:
        process, url = start_server(data_dir)
        try:
            results: list[tuple[str, int, float]] = []
            lock = threading.Lock()
            until = time.monotonic() + args.seconds
            threads = [threading.Thread(target=client, args=(url, until, args.upload_share, seed, results, lock))
                       for seed in range(args.clients)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
        finally:
            process.terminate()
            process.wait(timeout=60)
    statuses = Counter(status for _, status, _ in results)
    protective = statuses[429] + statuses[503]
    errors = sum(n for status, n in statuses.items() if status == 0 or status >= 500 or
                 (400 <= status < 500 and status != 429)) - statuses[503]
    by_kind: dict[str, list[float]] = defaultdict(list)
    for kind, status, ms in results:
        if 200 <= status < 300:
            by_kind[kind].append(ms)
    print(json.dumps({
        "clients": args.clients, "seconds": args.seconds, "requests": len(results),
        "requests_per_s": round(len(results) / args.seconds, 1), "errors": errors,
        "backpressure_429_503": protective, "statuses": dict(sorted(statuses.items())),
        "latency_ms": {kind: {"n": len(values), "p50": percentile(values, 0.5), "p95": percentile(values, 0.95),
                              "p99": percentile(values, 0.99), "mean": round(statistics.fmean(values), 1)}
                       for kind, values in sorted(by_kind.items())},
        "error_samples": ERROR_SAMPLES,
    }, indent=2))


if __name__ == "__main__":
    main()
