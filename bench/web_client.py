"""The web client in headless Chromium against the local server: its weight, and how long a deep link takes to
show the cited answer.

    .venv/bin/python bench/web_client.py [--rounds 10]

The sample corpus in a temporary folder, no language model (the extractive default), the local server in a
thread, one Chromium (tests/browser/chromium.py). Each round opens a fresh tab on `/?q=<question>` and waits
until the reply is rendered; reported in ms (median and p95): `to_answer` from navigation to the rendered,
cited reply (page, modules, config, session, streamed query); the page's bytes raw and gzipped.
"""

from __future__ import annotations

import argparse
import gzip
import json
import statistics
import sys
import tempfile
import threading
import time
from importlib.resources import files
from pathlib import Path
from urllib.parse import quote

import voiceassist_local  # noqa: F401 - registers the in-process pipeline runner
from voiceassist_local.cli.local import ensure_sample_corpus
from voiceassist_local.server import make_server

from voiceassist.composition import Dependencies, use_dependencies
from voiceassist.observability import logger
from voiceassist.settings import Settings

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository: the tests' Chromium driver
from tests.browser.chromium import Chromium  # noqa: E402

QUESTIONS = [
    "What is the maximum daily dose of metformin?",
    "What is the first-line treatment for uncomplicated hypertension?",
    "What is the intramuscular epinephrine dose for anaphylaxis in adults?",
]
ANSWERED = "document.querySelector('article.turn.assistant:last-of-type')?.dataset.status"


def weight() -> dict[str, int]:
    web = [f for f in (files("voiceassist_local") / "web").iterdir() if f.is_file()]
    raw = [f.read_bytes() for f in web]
    return {"files": len(raw), "bytes": sum(map(len, raw)), "gzip_bytes": sum(len(gzip.compress(b, 9)) for b in raw)}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=10)
    args = parser.parse_args()
    logger.setLevel("WARNING")
    with tempfile.TemporaryDirectory() as folder:
        deps = Dependencies(Settings(data_dir=Path(folder) / "data"))
        use_dependencies(deps)
        ensure_sample_corpus(deps)
        server = make_server("127.0.0.1", 0)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        base = f"http://127.0.0.1:{server.server_address[1]}"
        browser = Chromium()
        timings, statuses = [], []
        try:
            for round_number in range(args.rounds + 1):  # the first round warms the models up
                for question in QUESTIONS:
                    tab = browser.new_tab()
                    start = time.perf_counter()
                    tab.open(f"{base}/?q={quote(question)}")
                    statuses.append(tab.wait_for(ANSWERED))
                    if round_number:
                        timings.append((time.perf_counter() - start) * 1000)
                    tab.close()
        finally:
            browser.close()
            server.shutdown()
    timings.sort()
    print(json.dumps({
        "rounds": args.rounds, "questions": len(QUESTIONS), "statuses": sorted(set(statuses)),
        "to_answer_ms": {"p50": round(statistics.median(timings), 1),
                         "p95": round(timings[int(0.95 * (len(timings) - 1))], 1)},
        "page": weight(),
    }, indent=2))


if __name__ == "__main__":
    main()
