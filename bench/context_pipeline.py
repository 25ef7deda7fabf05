"""The context pipeline on long conversations over the bundled sample corpus: a patient's facts are stated first,
three questions follow (on the same topic, or unrelated) until that turn has left the history window, then a
question about the patient.

Prints, as JSON, for those last questions with the session's facts (the default) and without them (the window
alone): how many cite the right document, and how many are asked with the patient's fact (eGFR, allergy); and
what the session memory costs per turn (conversation/memory.py: read
the turns, extract, summarize, seal; and the load before the next question), p50/p95 in ms.

    VOICEASSIST_DATA_DIR=$(mktemp -d) .venv/bin/python bench/context_pipeline.py
"""

from __future__ import annotations

import json
import statistics
import time
from typing import Any

from voiceassist_local import cli  # noqa: F401 - registers the local pipeline runner
from voiceassist_local.cli.local import ensure_sample_corpus

from voiceassist.composition import dependencies
from voiceassist.conversation import budget, memory, orchestrator
from voiceassist.models import QueryRequest, Session

UNRELATED = ["What is the first-line antibiotic for community-acquired pneumonia in adults?",
             "How is blood pressure measured for a diagnosis of hypertension?",
             "What is the adrenaline dose in anaphylaxis?"]
# (the turn that states the facts, the questions between, the question about the patient, the doc_key fragment
# expected, the fact the question needs)
CONVERSATIONS = [
    ("My patient with type 2 diabetes has an eGFR of 25 and takes metformin.",
     ["What is the usual starting dose of metformin?", "And the maximum?", "What are the common adverse effects?"],
     "Can she keep taking it?", "metformin", "eGFR 25"),
    ("My patient has chronic kidney disease with an eGFR of 28; he is on metformin.",
     ["How should metformin be started?", "What are the gastrointestinal side effects?", "How can they be reduced?"],
     "Does his dose need to change?", "metformin", "eGFR 28"),
    ("My patient has community-acquired pneumonia and is allergic to penicillin.",
     ["How is the severity of pneumonia assessed?", "What does a CURB-65 score of 2 mean?",
      "When is admission needed?"],
     "Which antibiotic can she have?", "pneumonia", "penicillin allergy"),
    ("My patient with type 2 diabetes takes metformin; her eGFR is 40.",
     UNRELATED, "Can she keep taking metformin?", "metformin", "eGFR 40"),
    ("My patient has chronic kidney disease with an eGFR of 25 and takes metformin.",
     UNRELATED, "Should he stop metformin?", "metformin", "eGFR 25"),
    ("My patient has community-acquired pneumonia and is allergic to penicillin.",
     UNRELATED, "Which antibiotic can he have for his pneumonia?", "pneumonia", "penicillin allergy"),
]


def _ask(deps: Any, session_id: str, question: str) -> dict[str, Any]:
    response = orchestrator.respond(deps, QueryRequest(query=question, session_id=session_id),
                                    user_id="bench", trace_id=None)
    return response.model_dump(mode="json")


def _run(deps: Any, *, with_facts: bool, timings: dict[str, list[float]]) -> list[tuple[bool, bool]]:
    original_with, original_update, original_load = budget.with_facts, memory.update, memory.load
    if not with_facts:
        budget.with_facts = lambda resolution, known: (resolution, [])  # type: ignore[assignment]

    def timed_update(*args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return original_update(*args, **kwargs)
        finally:
            timings["update_ms"].append((time.perf_counter() - start) * 1000)

    def timed_load(*args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return original_load(*args, **kwargs)
        finally:
            timings["load_ms"].append((time.perf_counter() - start) * 1000)

    memory.update, memory.load = timed_update, timed_load  # type: ignore[assignment]
    right = []
    try:
        for stated, between, question, expected, fact in CONVERSATIONS:
            session = Session(user_id="bench")
            deps.sessions.create(session)
            for turn in [stated, *between]:
                _ask(deps, session.session_id, turn)
            answer = _ask(deps, session.session_id, question)
            cited = answer["citations"][0]["doc_key"] if answer["citations"] else ""
            asked = answer["metadata"]["context"].get("standalone_query", question)
            right.append((expected in cited, fact.lower() in asked.lower()))
    finally:
        budget.with_facts, memory.update, memory.load = original_with, original_update, original_load
    return right


def main() -> None:
    deps = dependencies()
    ensure_sample_corpus(deps)
    timings: dict[str, list[float]] = {"update_ms": [], "load_ms": []}
    with_facts = _run(deps, with_facts=True, timings=timings)
    without = _run(deps, with_facts=False, timings={"update_ms": [], "load_ms": []})

    def pct(values: list[float], q: float) -> float:
        ordered = sorted(values)
        return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))], 2)

    print(json.dumps({
        "conversations": len(CONVERSATIONS),
        "with_facts": {"right_document": sum(r for r, _ in with_facts),
                       "fact_in_question": sum(f for _, f in with_facts)},
        "window_only": {"right_document": sum(r for r, _ in without),
                        "fact_in_question": sum(f for _, f in without)},
        "memory_update_ms": {"p50": round(statistics.median(timings["update_ms"]), 2),
                             "p95": pct(timings["update_ms"], 0.95), "n": len(timings["update_ms"])},
        "memory_load_ms": {"p50": round(statistics.median(timings["load_ms"]), 2),
                           "p95": pct(timings["load_ms"], 0.95), "n": len(timings["load_ms"])},
    }, indent=2))


if __name__ == "__main__":
    main()
