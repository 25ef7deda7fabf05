"""The context pipeline on long conversations over the bundled sample corpus: a patient's facts are stated first,
unrelated questions follow until that turn has left the history window, then a question about the patient.

Prints, as JSON, how many of those last questions cite the right document with the session's facts (the default)
and without them (the window alone), and what the session memory costs per turn (conversation/memory.py: read
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

BETWEEN = ["What is the first-line antibiotic for community-acquired pneumonia in adults?",
           "How is blood pressure measured for a diagnosis of hypertension?",
           "What is the adrenaline dose in anaphylaxis?"]
# (the turn that states the facts, the question about the patient after BETWEEN, the doc_key fragment expected)
CONVERSATIONS = [
    ("My patient with type 2 diabetes has an eGFR of 25 and takes metformin.",
     "Can she keep taking metformin?", "metformin"),
    ("My patient has chronic kidney disease with an eGFR of 28; he is on metformin.",
     "Does his dose need to change?", "metformin"),
    ("My patient is a 60-year-old man with hypertension, on lisinopril.",
     "What blood pressure target should he aim for?", "hypertension"),
    ("My patient has community-acquired pneumonia and is allergic to penicillin.",
     "Which antibiotic can she have?", "pneumonia"),
    ("My patient with type 2 diabetes takes metformin; her eGFR is 40.",
     "Should she stop it before a CT scan with contrast?", "metformin"),
]


def _ask(deps: Any, session_id: str, question: str) -> dict[str, Any]:
    response = orchestrator.respond(deps, QueryRequest(query=question, session_id=session_id),
                                    user_id="bench", trace_id=None)
    return response.model_dump(mode="json")


def _run(deps: Any, *, with_facts: bool, timings: dict[str, list[float]]) -> list[bool]:
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
        for stated, question, expected in CONVERSATIONS:
            session = Session(user_id="bench")
            deps.sessions.create(session)
            for turn in [stated, *BETWEEN]:
                _ask(deps, session.session_id, turn)
            answer = _ask(deps, session.session_id, question)
            cited = answer["citations"][0]["doc_key"] if answer["citations"] else ""
            right.append(expected in cited)
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
        "right_with_facts": sum(with_facts), "right_window_only": sum(without),
        "memory_update_ms": {"p50": round(statistics.median(timings["update_ms"]), 2),
                             "p95": pct(timings["update_ms"], 0.95), "n": len(timings["update_ms"])},
        "memory_load_ms": {"p50": round(statistics.median(timings["load_ms"]), 2),
                           "p95": pct(timings["load_ms"], 0.95), "n": len(timings["load_ms"])},
    }, indent=2))


if __name__ == "__main__":
    main()
