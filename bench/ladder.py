"""The retrieval fallback ladder on the answer sets: where each question ends, and what the ladder costs.

    .venv/bin/python bench/ladder.py --data-dir /tmp/ladder tests/fixtures/answers/*.jsonl

Every question goes through the whole query pipeline (the local ASL runner, no model: the extractive default,
PubMed not configured) on the bundled sample corpus. Prints JSON: per set, how many questions end at each
ladder step, how many took the relaxed or dense step, and the wall time per question (p50/p95, ms) of those
answered at the hybrid step and of those that went down the ladder.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections import Counter
from pathlib import Path
from typing import Any


def percentile(values: list[float], share: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(share * len(ordered)))], 1)


def measure(deps: Any, path: Path) -> dict[str, Any]:
    from voiceassist_local.evaluation.answers import load_questions

    from voiceassist import service
    from voiceassist.models import QueryRequest

    ends: Counter[str] = Counter()
    took: Counter[str] = Counter()
    first_step: list[float] = []
    down: list[float] = []
    for question in load_questions(path):
        started = time.perf_counter()
        response = service.answer(deps, QueryRequest(query=question.query), user_id="bench-ladder")
        elapsed = (time.perf_counter() - started) * 1000
        plan = response.metadata.plan
        tried = [a.step for a in plan.retrieval.tried if a.evidence is not None] if plan else []
        ends[f"{plan.retrieval.step if plan else 'none'}:{response.metadata.answer_status.value}"] += 1
        took.update(set(tried) - {"hybrid"})
        (down if len(tried) > 1 else first_step).append(elapsed)
    return {"set": path.stem, "ends": dict(ends), "took": dict(took),
            "hybrid_only_ms": {"n": len(first_step), "p50": percentile(first_step, 0.5),
                               "p95": percentile(first_step, 0.95)},
            "down_the_ladder_ms": {"n": len(down), "p50": percentile(down, 0.5), "p95": percentile(down, 0.95)},
            "extra_ms_p50": round(statistics.median(down) - statistics.median(first_step), 1)
            if down and first_step else None}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("sets", type=Path, nargs="+")
    parser.add_argument("--data-dir", type=Path, required=True)
    args = parser.parse_args()

    from voiceassist_local.cli.local import ensure_sample_corpus, warm_up

    from voiceassist.composition import Dependencies, use_dependencies
    from voiceassist.observability import logger
    from voiceassist.settings import Settings

    logger.setLevel("WARNING")  # stdout carries the report; the per-stage INFO lines would interleave
    deps = Dependencies(Settings(data_dir=args.data_dir))
    use_dependencies(deps)
    ensure_sample_corpus(deps)
    warm_up(deps)
    print(json.dumps([measure(deps, path) for path in args.sets], indent=2))


if __name__ == "__main__":
    main()
