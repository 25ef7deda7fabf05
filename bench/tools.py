"""The tool executor's overhead over a bare calculator call, and a calculator question through the query
pipeline's tool loop; prints JSON.

    .venv/bin/python bench/tools.py [--calls 2000] [--questions 40]

"executor" runs calculate_medical_score (CHA2DS2-VASc) through ToolExecutor.execute on the embedded stack:
argument validation (the tool's and the calculator's params models), the role check, the PHI rule (nothing to
scan: the calculator's validated arguments hold no free text), the rate limit on SQLite, the time-out thread,
the calculation, and the audit write on SQLite. "direct" is run_calculator alone (validation + computation);
"overhead" is the difference of the medians. "pipeline" asks "CHA2DS2-VASc for a 75-year-old woman with
hypertension and diabetes" through query.asl.json (the local runner with the real handlers, no model: Detect
PHI -> Classify -> Generate -> Run Tools -> Generate -> Assemble -> Audit) and reports the executor's share of
the wall time. "dev_questions" asks the hand-worked dev questions of tests/unit/tools/test_calculator_questions.py
through the same pipeline and counts those answered by the calculator with the expected score.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from voiceassist_local.pipelines import local_pipeline_runner

from voiceassist import service
from voiceassist.composition import Dependencies, use_dependencies
from voiceassist.models import QueryRequest, ToolCall
from voiceassist.observability import logger
from voiceassist.settings import Settings
from voiceassist.tools.calculators import run_calculator
from voiceassist.tools.executor import Caller
from voiceassist.tools.medical import CALCULATE_MEDICAL_SCORE

PARAMETERS = {"age": 75, "sex": "female", "hypertension": True, "diabetes": True}
QUESTION = "CHA2DS2-VASc for a 75-year-old woman with hypertension and diabetes"
WARM_UP = 20


def percentiles(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {"p50_ms": round(statistics.median(ordered), 3), "p95_ms": round(ordered[int(0.95 * (len(ordered) - 1))], 3)}


def timed_ms(function: Any, repeats: int) -> list[float]:
    timings = []
    for n in range(WARM_UP + repeats):
        started = time.perf_counter()
        function()
        if n >= WARM_UP:
            timings.append((time.perf_counter() - started) * 1000)
    return timings


def executor_overhead(deps: Dependencies, calls: int) -> dict[str, Any]:
    unlimited = dataclasses.replace(CALCULATE_MEDICAL_SCORE, definition=CALCULATE_MEDICAL_SCORE.definition.model_copy(
        update={"rate_limit": 10**9}))  # the bench measures the limiter's cost, not its refusals
    deps.tool_registry.register(unlimited)
    call = ToolCall(name="calculate_medical_score", arguments={"calculator": "chadsvasc", "parameters": PARAMETERS})
    caller = Caller(user_id="bench")

    def through_executor() -> None:
        assert deps.tool_executor.execute(call, caller).status == 200

    direct = percentiles(timed_ms(lambda: run_calculator("chadsvasc", PARAMETERS), calls))
    executor = percentiles(timed_ms(through_executor, calls))
    return {"calls": calls, "direct": direct, "executor": executor,
            "overhead_p50_ms": round(executor["p50_ms"] - direct["p50_ms"], 3)}


def pipeline(deps: Dependencies, questions: int) -> dict[str, Any]:
    totals, executor_ms = [], []
    for n in range(4 + questions):
        started = time.perf_counter()
        response = service.answer(deps, QueryRequest(query=QUESTION), user_id="bench-pipeline")
        elapsed = (time.perf_counter() - started) * 1000
        assert response.metadata.answer_status == "tool_result", response.answer
        if n < 4:
            continue
        record = deps.audit.list(user_id="bench-pipeline", limit=5)
        totals.append(elapsed)
        executor_ms.append(next(r.latency_ms["tool"] for r in record if r.tool))
    total, executor = percentiles(totals), percentiles(executor_ms)
    return {"questions": questions, "total": total, "executor": executor,
            "executor_share_of_p50": round(executor["p50_ms"] / total["p50_ms"], 4)}


def _matches(answer: str, expected: float | int | str) -> bool:
    """The first number after "<title>: " is the score (a date or a text score is looked for as written)."""
    if isinstance(expected, str):
        return expected in answer
    found = re.search(r": (-?\d+(?:\.\d+)?)", answer)
    return bool(found) and abs(float(found.group(1)) - expected) <= 1e-3 * max(1.0, abs(expected))


def dev_questions(deps: Dependencies) -> dict[str, Any]:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the checkout, for the tests' dev set
    from tests.unit.tools.test_calculator_questions import DEV_QUESTIONS

    routed = correct = 0
    misses = []
    for question, _calculator, expected in DEV_QUESTIONS:
        response = service.answer(deps, QueryRequest(query=question), user_id="bench-dev")
        if response.metadata.answer_status != "tool_result":
            misses.append(question)
            continue
        routed += 1
        if _matches(response.answer, expected):
            correct += 1
        else:
            misses.append(question)
    total = len(DEV_QUESTIONS)
    return {"questions": total, "answered_by_the_calculator": round(routed / total, 4),
            "expected_score": round(correct / total, 4), "misses": misses}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--questions", type=int, default=40)
    args = parser.parse_args(argv)
    logger.setLevel("WARNING")
    with tempfile.TemporaryDirectory() as folder:
        deps = Dependencies(Settings(data_dir=Path(folder)))
        deps.pipelines = local_pipeline_runner()  # type: ignore[misc]
        use_dependencies(deps)
        try:
            report = {"executor": executor_overhead(deps, args.calls), "pipeline": pipeline(deps, args.questions),
                      "dev_questions": dev_questions(deps)}
        finally:
            use_dependencies(None)
            deps.pipelines.close()  # type: ignore[attr-defined]
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
