"""Query-pipeline overhead per question on the embedded stack: everything but the model call; prints JSON.

    .venv/bin/python bench/query.py [--chunks 10000] [--queries 60] [--plain-interpreter] [--profile 20]
                                    [--phi-worker-process]

The index holds the sample corpus (samples/, ingested as `voiceassist serve` does: it answers every question
below, so each is an ordinary answered question, as a clinician's would be) and --chunks synthetic chunks
(~200-token windows of SciFact abstracts when ../shared/eval/scifact exists, generated medical-ish text
otherwise) with RANDOM UNIT VECTORS (dimension 384): embedding 10k chunks would take minutes and does not
change the search cost (FTS5 BM25 plus exact cosine over the whole matrix). Everything on the query path is
real: Presidio PHI detection, intent, the ONNX MiniLM query embedding, hybrid search, ranking, prompt building
counted with tiktoken, the egress guard, the circuit breaker on SQLite, assembly and the audit write, run
through query.asl.json by the local runner with the real handlers.

Every question must be answered (not a clarification, not an abstention): an abstaining question descends the
retrieval ladder and searches twice, another path (until 2026-11-28 every question here abstained: the
synthetic chunks answer none of them). Modes: "model" answers with an in-process chat model that replies at
once (cloud for PHI-free questions, in-boundary for PHI), "extractive" has no model configured. Half the
questions carry PHI. "total" is the wall time of service.answer and "cpu" the process CPU time it used
(steadier on a shared machine); "stages" come from QueryState.latency_ms; "orchestration" is the wall time no
stage covers (the state-machine interpreter, handler wiring, state validation, the audit write): each stage's
span as its caller saw it (voiceassist.observability.listen_to_stages), including work that runs beside the steps
(the question's texts embedded ahead, query/embedding_ahead.py; with --phi-worker-process also the detection from
its start ahead to its verdict in hand and the search read ahead on its thread), overlapping spans counted once
("stages_wall"). "orchestration_to_stages" is its p50 over the p50 of "stages_wall", both from this run. Without
work beside the steps (before the embedding ahead, 2026-11-29) "stages_wall" was the stages' sum; the older
accounting (the wall less the stages' sum, "wall_less_stages_sum_to_stages_sum") counts a stage run ahead as
orchestration wherever it outlasts the step it hides behind. "states" is one PHI-free question's path through the
state machine: the states entered and the bytes of state each received (LocalPipelineRunner.trace). Each mode's
"tail" says where the slowest questions come from: CPU and wall p50/p95 by question shape (PHI-free, or the PHI
template it was made from) with the texts the embedder ran a question, and the slowest 5 % by wall with each one's
stages. --profile N adds where the time of N more questions went (bench/query_profile.py: CPU per thread, CPU per
step with PHI-free questions and questions with PHI apart, the top functions by CPU across every thread, wall per
state, each PHI recognizer's CPU) to stderr. The runner is the local runtime's, with its interpreter speedups
(voiceassist_local.pipelines); --plain-interpreter runs moto's interpreter as it ships. --phi-worker-process runs
Presidio in its worker process (VOICEASSIST_PHI_WORKER_PROCESS, adapters/presidio/ worker.py) and the runner reads
ahead (query/read_ahead.py); "cpu" then adds the worker's CPU (its threads' /proc schedstat) to the process's.
--profile's step table runs its own plain runner (handlers on thread clocks): no read-ahead there, and with the
worker the detection's CPU is the worker's, outside the table.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from query_profile import cpu_by_thread, profiled_threads, recognizer_costs, top_functions
from voiceassist_local.asl_runner import LocalPipelineRunner
from voiceassist_local.cli.local import ensure_sample_corpus
from voiceassist_local.handlers import function_names, load_handler, placeholder_for
from voiceassist_local.pipelines import PIPELINES, local_pipeline_runner

from voiceassist import service
from voiceassist.composition import Dependencies, use_dependencies
from voiceassist.models import (
    AnswerStatus,
    ChatCompletion,
    ChatMessage,
    Chunk,
    DocumentMetadata,
    QueryRequest,
    QueryResponse,
    SourceType,
)
from voiceassist.observability import listen_to_stages, logger
from voiceassist.query.retrieval import knowledge_base_query, run_knowledge_base_query
from voiceassist.query.state import QueryState
from voiceassist.settings import Settings

SCIFACT = Path(__file__).resolve().parents[2] / "shared" / "eval" / "scifact" / "corpus.jsonl"
DIMENSION = 384
CHUNKS_PER_DOCUMENT = 5
CHUNK_CHARS = 1100  # ~200 tokens of English
WARM_UP_QUERIES = 4

PHI_FREE = [
    "What is the maximum daily dose of metformin in adults with normal renal function?",
    "Which antibiotic is recommended for outpatient community-acquired pneumonia without comorbidities?",
    "What is the first-line treatment for uncomplicated hypertension in adults?",
    "What is the intramuscular epinephrine dose for anaphylaxis in adults?",
    "What blood pressure target is recommended for most adults with hypertension?",
    "How should metformin be adjusted when eGFR falls below 45?",
]
PHI_TEMPLATES = [
    "Patient {name}, MRN {mrn}, DOB {dob}: what is the maximum daily dose of metformin for eGFR 40?",
    "My patient {name} (phone {phone}) has community-acquired pneumonia: which outpatient antibiotic?",
    "Mrs. {name}, born {dob}, has uncomplicated hypertension: what is the first-line treatment?",
]
NAMES = ["John Smith", "Maria Garcia", "Robert Chen", "Aisha Patel", "Thomas Mueller", "Grace Okafor"]


class InstantChatModel:
    """A chat model that answers at once: the bench measures the pipeline, not the model."""

    def __init__(self, name: str, *, in_boundary: bool) -> None:
        self.name = name
        self.in_boundary = in_boundary

    def complete(self, messages: Sequence[ChatMessage], *, max_tokens: int = 700,
                 temperature: float = 0.1) -> ChatCompletion:
        return ChatCompletion(text="According to the reference, see the cited excerpt [1].", model=self.name)

    def stream(self, messages: Sequence[ChatMessage], *, max_tokens: int = 700,
               temperature: float = 0.1) -> Iterator[str]:
        yield self.complete(messages).text


def chunk_texts(count: int) -> list[str]:
    if SCIFACT.exists():
        with SCIFACT.open() as corpus:
            abstracts = [json.loads(line)["text"] for line in corpus]
    else:
        rng = random.Random(7)
        words = ["aspirin", "warfarin", "metformin", "insulin", "asthma", "sepsis", "stroke", "dose", "renal",
                 "trial", "risk", "patients", "cohort", "therapy", "mortality", "bleeding", "glucose"]
        abstracts = [" ".join(rng.choices(words, k=180)) for _ in range(5000)]
    texts = []
    for n in range(count):  # each pass over the corpus starts the window at a later sentence
        sentences = abstracts[n % len(abstracts)].split(". ")
        start = (n // len(abstracts)) % max(1, len(sentences))
        texts.append(". ".join(sentences[start:] + sentences[:start])[:CHUNK_CHARS])
    return texts


def build_index(deps: Dependencies, count: int) -> float:
    started = time.perf_counter()
    rng = np.random.default_rng(3)
    texts = chunk_texts(count)
    source_types = list(SourceType)
    for doc in range(count // CHUNKS_PER_DOCUMENT):
        key = f"doc-{doc}"
        meta = DocumentMetadata(doc_key=key, title=f"Reference {doc}", year=1990 + doc % 35,
                                source_type=source_types[doc % len(source_types)])
        chunks = [Chunk(chunk_id=f"{key}-{i}", doc_id=f"{key}#v1", doc_key=key, version=1, ordinal=i,
                        token_count=200, metadata=meta, text=texts[doc * CHUNKS_PER_DOCUMENT + i])
                  for i in range(CHUNKS_PER_DOCUMENT)]
        vectors = rng.standard_normal((len(chunks), DIMENSION)).astype(np.float32)
        deps.index.index(chunks, vectors / np.linalg.norm(vectors, axis=1, keepdims=True))
        deps.index.activate(key, 1)
    return round(time.perf_counter() - started, 1)


def questions(count: int) -> list[str]:
    rng = random.Random(11)
    asked = []
    for n in range(count):
        if n % 2:
            template = PHI_TEMPLATES[n % len(PHI_TEMPLATES)]
            dob = f"{rng.randrange(1, 13):02d}/{rng.randrange(1, 29):02d}/19{rng.randrange(30, 99)}"
            asked.append(template.format(name=rng.choice(NAMES), mrn=rng.randrange(10**6, 10**8), dob=dob,
                                         phone=f"617-555-{rng.randrange(10**4):04d}"))
        else:
            asked.append(PHI_FREE[n // 2 % len(PHI_FREE)])
    return asked


def question_kind(index: int) -> str:
    """Which of questions()' shapes the index-th question has: "PHI-free" or the PHI template it was made from."""
    return f"PHI template {index % len(PHI_TEMPLATES)}" if index % 2 else "PHI-free"


def percentiles(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {"p50_ms": round(statistics.median(ordered), 2),
            "p95_ms": round(ordered[int(0.95 * (len(ordered) - 1))], 2),
            "mean_ms": round(statistics.fmean(ordered), 2)}


def use_models(deps: Dependencies, *, with_model: bool) -> None:
    deps.cloud_chat = InstantChatModel("gpt-4o-mini", in_boundary=False) if with_model else None  # type: ignore[misc]
    deps.local_chat = InstantChatModel("llama-3.1-8b", in_boundary=True) if with_model else None  # type: ignore[misc]
    vars(deps).pop("query", None)  # rebuild the query context with these models


def answered(response: QueryResponse, question: str, *, with_model: bool) -> None:
    """Refuse a question that took another path than an ordinary answer: the figures would be of that path."""
    status = response.metadata.answer_status
    if status is not AnswerStatus.ANSWERED or (with_model and response.metadata.extractive):
        raise SystemExit(f"the bench question was not answered{' by a model' if with_model else ''} "
                         f"({status}): {question!r}")


def worker_cpu_ms() -> float:
    """CPU time of the PHI worker processes so far (every thread's, from /proc: ns resolution), 0 without any."""
    from voiceassist.adapters.presidio.worker import worker_pids

    total_ns = 0
    for pid in worker_pids():
        tasks = Path(f"/proc/{pid}/task")
        for task in tasks.iterdir() if tasks.exists() else ():
            total_ns += int((task / "schedstat").read_text().split()[0])
    return total_ns / 1e6


def embedded_texts(deps: Dependencies) -> list[int]:
    """A counter of the texts the query embedder runs through its model (not those its cache of recent vectors
    answers): one item, read and reset by the caller; nothing counted when the embedder is not the ONNX one."""
    embedder = deps.query.embedder
    counted: list[int] | None = getattr(embedder, "bench_embedded_texts", None)
    run = getattr(embedder, "_embed", None)
    if counted is None:
        counted = [0]
        if callable(run):
            def counting(texts: Sequence[str]) -> Any:
                counted[0] += len(texts)
                return run(texts)
            embedder._embed = counting  # type: ignore[attr-defined]  # this instance only, for the bench
            embedder.bench_embedded_texts = counted  # type: ignore[attr-defined]
    return counted


def tail(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Where the slowest questions come from: CPU and wall by question shape, and the slowest 5 % by wall with
    their stages (each stage's wall, ms) and the texts the embedder ran."""
    by_kind: dict[str, dict[str, Any]] = {}
    for kind in sorted({row["kind"] for row in rows}):
        found = [row for row in rows if row["kind"] == kind]
        by_kind[kind] = {"questions": len(found),
                         "cpu_p50_p95_ms": [percentiles([r["cpu"] for r in found])[k] for k in ("p50_ms", "p95_ms")],
                         "wall_p50_p95_ms": [percentiles([r["wall"] for r in found])[k]
                                             for k in ("p50_ms", "p95_ms")],
                         "embedded_texts_mean": round(statistics.fmean(r["embedded"] for r in found), 2)}
    slowest = sorted(rows, key=lambda row: -row["wall"])[:max(1, len(rows) // 20)]
    return {"by_question_kind": by_kind,
            "slowest_5pct_by_wall": [{"kind": r["kind"], "wall_ms": round(r["wall"], 1), "cpu_ms": round(r["cpu"], 1),
                                      "embedded_texts": r["embedded"],
                                      "stages_ms": {k: round(v, 1) for k, v in r["stages"].items()}}
                                     for r in slowest]}


def covered_ms(spans: list[tuple[float, float]], started: float, ended: float) -> float:
    """Milliseconds of [started, ended] that at least one span covers (overlapping spans counted once)."""
    total, reached = 0.0, started
    for begin, end in sorted(spans):
        begin, end = max(begin, reached), min(end, ended)
        if end > begin:
            total += end - begin
            reached = end
    return total * 1000


def run_mode(deps: Dependencies, asked: list[str], *, with_model: bool) -> dict[str, Any]:
    use_models(deps, with_model=with_model)
    totals: list[float] = []
    cpu: list[float] = []
    stages: dict[str, list[float]] = {}
    stage_sums: list[float] = []
    stages_wall: list[float] = []
    orchestration: list[float] = []
    spans: list[tuple[float, float]] = []
    rows: list[dict[str, Any]] = []
    embedded = embedded_texts(deps)
    listen_to_stages(lambda stage, begin, end: spans.append((begin, end)))
    try:
        for n, question in enumerate(asked[:WARM_UP_QUERIES] + asked):
            spans.clear()
            embedded[0] = 0
            started, started_cpu, started_worker = time.perf_counter(), time.process_time(), worker_cpu_ms()
            response = service.answer(deps, QueryRequest(query=question), user_id="bench")
            ended = time.perf_counter()
            answered(response, question, with_model=with_model)
            if n < WARM_UP_QUERIES:
                continue
            totals.append((ended - started) * 1000)
            cpu.append((time.process_time() - started_cpu) * 1000 + worker_cpu_ms() - started_worker)
            for stage, ms in response.metadata.latency_ms.items():
                stages.setdefault(stage, []).append(ms)
            stage_sums.append(sum(response.metadata.latency_ms.values()))
            stages_wall.append(covered_ms(spans, started, ended))
            orchestration.append(totals[-1] - stages_wall[-1])
            rows.append({"kind": question_kind(n - WARM_UP_QUERIES), "wall": totals[-1], "cpu": cpu[-1],
                         "embedded": embedded[0], "stages": dict(response.metadata.latency_ms)})
    finally:
        listen_to_stages(None)
    return {"total": percentiles(totals), "cpu": percentiles(cpu),
            "orchestration": percentiles(orchestration), "stages_wall": percentiles(stages_wall),
            "stages_sum": percentiles(stage_sums),
            "orchestration_to_stages": round(statistics.median(orchestration) / statistics.median(stages_wall), 2),
            "wall_less_stages_sum_to_stages_sum": round(
                statistics.median([t - s for t, s in zip(totals, stage_sums, strict=True)])
                / statistics.median(stage_sums), 2),
            "stages": {stage: percentiles(values) for stage, values in sorted(stages.items())},
            "tail": tail(rows)}


def state_path(deps: Dependencies, question: str) -> dict[str, Any]:
    """One ordinary question's states, in order, and the bytes of state each received."""
    use_models(deps, with_model=True)
    runner: LocalPipelineRunner = deps.pipelines  # type: ignore[assignment]
    start = QueryState(user_id="bench", request=QueryRequest(query=question)).model_dump(mode="json")
    trace = runner.trace("query", start)
    return {"states": len(trace.states), "state_bytes": trace.state_bytes,
            "path": [f"{visit.name}: {visit.input_bytes} B" for visit in trace.states]}


def profile(deps: Dependencies, asked: list[str], *, with_model: bool) -> str:
    """Where the time of `asked` went (bench/query_profile.py), as text."""
    use_models(deps, with_model=with_model)
    for question in asked[:WARM_UP_QUERIES]:
        service.answer(deps, QueryRequest(query=question), user_id="bench")
    runner: LocalPipelineRunner = deps.pipelines  # type: ignore[assignment]
    state_ms: dict[str, list[float]] = {}
    for question in asked:
        start = QueryState(user_id="bench", request=QueryRequest(query=question)).model_dump(mode="json")
        for visit in runner.trace("query", start).states:
            state_ms.setdefault(visit.name, []).append(visit.milliseconds or 0.0)
    started, started_cpu = time.perf_counter(), time.process_time()
    with cpu_by_thread(len(asked)) as threads:
        for question in asked:
            service.answer(deps, QueryRequest(query=question), user_id="bench")
    wall, cpu = ((time.perf_counter() - started) * 1000 / len(asked),
                 (time.process_time() - started_cpu) * 1000 / len(asked))
    with profiled_threads() as profiles:
        for question in asked:
            service.answer(deps, QueryRequest(query=question), user_id="bench")
    mode = "model" if with_model else "extractive"
    steps = step_cpu(deps, asked, with_model=with_model)
    return "\n".join([
        f"== {mode} mode, {len(asked)} questions: wall {wall:.1f} ms, CPU {cpu:.1f} ms per question",
        "CPU per step, ms p50 per question (handlers on their thread's clock, PHI detection on its worker's; "
        "the rest is the process CPU less the steps): " + json.dumps(steps),
        "CPU per question by thread (ms): " + json.dumps(dict(sorted(threads.items(), key=lambda kv: -kv[1]))),
        "wall per state, mean of the questions (ms; entered to exited, as the history records it): "
        + json.dumps({name: round(statistics.fmean(ms), 1) for name, ms in state_ms.items()}),
        "CPU by function, every thread (cProfile on each thread's CPU clock; its overhead inflates many small "
        "calls), by self time:",
        top_functions(profiles, len(asked), limit=25),
        "... by cumulative time:",
        top_functions(profiles, len(asked), limit=40, sort="cumulative"),
    ])


EMBEDDER_MODEL = "embedder model (also counted in its step, or in the rest on the embedder's own threads)"


def step_cpu(deps: Dependencies, asked: list[str], *, with_model: bool) -> dict[str, dict[str, float]]:
    """CPU of each step of `asked`, ms per question (p50), by question shape (question_kind): each
    Lambda handler on its own thread's clock, the PHI detection on its worker thread's, and "the rest" (the
    interpreter, the runner's JSON, service.answer, garbage collection) as the process's CPU less the steps'.
    Thread clocks do not count time waiting for a core, so these hold on a busy machine where walls do not."""
    from voiceassist.adapters.presidio.detector import PresidioPhiDetector

    use_models(deps, with_model=with_model)
    spent: dict[str, float] = {}

    def timed(name: str, call: Any) -> Any:
        def run(*args: Any, **kwargs: Any) -> Any:
            started = time.thread_time()
            try:
                return call(*args, **kwargs)
            finally:
                spent[name] = spent.get(name, 0.0) + (time.thread_time() - started) * 1000
        return run

    tasks = {placeholder_for(name): timed(name.removeprefix("query_"), load_handler(name))
             for name in function_names() if name.startswith("query_")}
    detect = PresidioPhiDetector.detect
    PresidioPhiDetector.detect = timed("PHI detection (its thread)", detect)  # type: ignore[method-assign]
    runner, deps.pipelines = deps.pipelines, LocalPipelineRunner({"query": PIPELINES["query"]}, tasks)  # type: ignore[misc]
    rows: dict[str, list[dict[str, float]]] = {}
    embedder_ms = [0.0]
    model_run = getattr(deps.query.embedder, "_embed", None)
    if callable(model_run):  # on whichever thread runs it (a step's, or the embedder's own beside one)
        def embedder_model(texts: Sequence[str]) -> Any:
            started = time.thread_time()
            try:
                return model_run(texts)
            finally:
                embedder_ms[0] += (time.thread_time() - started) * 1000
        deps.query.embedder._embed = embedder_model  # type: ignore[attr-defined]
    try:
        for n, question in enumerate(asked):
            spent.clear()
            embedder_ms[0] = 0.0
            started = time.process_time()
            service.answer(deps, QueryRequest(query=question), user_id="bench")
            process = (time.process_time() - started) * 1000
            steps = dict(spent)
            steps["the rest"] = process - sum(steps.values())
            steps["process"] = process
            steps[EMBEDDER_MODEL] = embedder_ms[0]
            rows.setdefault(question_kind(n), []).append(steps)
    finally:
        if callable(model_run):
            deps.query.embedder._embed = model_run  # type: ignore[attr-defined]
        PresidioPhiDetector.detect = detect  # type: ignore[method-assign]
        deps.pipelines.close()  # type: ignore[attr-defined]
        deps.pipelines = runner  # type: ignore[misc]
    return {kind: {name: round(statistics.median(row.get(name, 0.0) for row in found), 2)
                   for name in sorted({name for row in found for name in row})}
            for kind, found in sorted(rows.items())}


def interpreter_cost(deps: Dependencies, question: str, executions: int = 100) -> dict[str, float]:
    """CPU time of one execution of query.asl.json with pass-through tasks carrying a real final state: the
    interpreter alone (moto's, with the local speedups unless --plain-interpreter)."""
    start = QueryState(user_id="bench", request=QueryRequest(query=question)).model_dump(mode="json")
    final = deps.pipelines.run("query", start)
    branch = {"source": "knowledge_base", "hits": final["hits"], "latency_ms": {}}

    def stage(event: dict[str, Any], context: Any) -> dict[str, Any]:
        return final

    def search_branch(event: dict[str, Any], context: Any) -> dict[str, Any]:
        return branch

    tasks = {placeholder_for(name): stage for name in function_names() if name.startswith("query_")}
    tasks[placeholder_for("query_retrieve")] = search_branch
    timings = []
    with LocalPipelineRunner({"query": PIPELINES["query"]}, tasks) as runner:
        for _ in range(executions):
            started = time.process_time()
            runner.run("query", start)
            timings.append((time.process_time() - started) * 1000)
    return {**percentiles(timings), "state_bytes": len(json.dumps(final))}


def plain_runner() -> LocalPipelineRunner:
    tasks = {placeholder_for(name): load_handler(name) for name in function_names() if name != "api"}
    return LocalPipelineRunner(PIPELINES, tasks)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=60, help="timed questions per mode (half with PHI)")
    parser.add_argument("--plain-interpreter", action="store_true",
                        help="run moto's interpreter without the local runtime's speedups")
    parser.add_argument("--phi-worker-process", action="store_true",
                        help="Presidio in its worker process, the runner reading ahead")
    parser.add_argument("--profile", type=int, default=0, metavar="N",
                        help="also profile N questions per mode (to stderr; bench/query_profile.py)")
    args = parser.parse_args(argv)
    logger.setLevel("WARNING")  # stdout carries the report; the per-stage INFO lines would interleave
    with tempfile.TemporaryDirectory() as folder:
        deps = Dependencies(Settings(data_dir=Path(folder), phi_worker_process=args.phi_worker_process))
        deps.pipelines = plain_runner() if args.plain_interpreter else local_pipeline_runner()  # type: ignore[misc]
        use_dependencies(deps)
        try:
            # The PHI engine takes seconds to build: built inside the ingestion's 2 s screen on a busy machine, it
            # timed out, failed closed and kept a sample document out of the index (its questions then abstained)
            deps.query.phi_detector.detect(PHI_FREE[0])
            ensure_sample_corpus(deps)  # the passages that answer the questions
            build_seconds = build_index(deps, args.chunks)
            print(json.dumps({"chunks_searchable": deps.index.count(), "build_seconds": build_seconds}),
                  file=sys.stderr)
            # Load what the first search loads (the embedding model, the index's matrix, the reranker) before the
            # warm-up questions: on a machine at load 40 the first search could overrun its 6 s budget and abstain
            run_knowledge_base_query(deps.query, knowledge_base_query(deps.query, PHI_FREE[0], top_k=10),
                                     phi_detected=False)
            asked = questions(args.queries)
            report = {
                "chunks": deps.index.count(), "vectors": "random unit vectors (dimension 384)",
                "queries_per_mode": len(asked), "phi_share": 0.5,
                "interpreter": "moto as shipped" if args.plain_interpreter else "with the local speedups",
                "phi_worker_process": args.phi_worker_process,
                "model": run_mode(deps, asked, with_model=True),
                "extractive": run_mode(deps, asked, with_model=False),
                "interpreter_cpu_per_execution": interpreter_cost(deps, PHI_FREE[0]),
                "states": state_path(deps, PHI_FREE[0]),
            }
            for with_model in (True, False) if args.profile else ():
                print(profile(deps, questions(args.profile), with_model=with_model), file=sys.stderr)
            if args.profile:
                from voiceassist.adapters.presidio.detector import DEFAULT_SPACY_MODEL, build_analyzer

                costs = recognizer_costs(build_analyzer(DEFAULT_SPACY_MODEL), questions(args.profile))
                print("PHI detection by part, CPU ms per question:\n" + json.dumps(costs, indent=1), file=sys.stderr)
        finally:
            use_dependencies(None)
            deps.pipelines.close()  # type: ignore[attr-defined]
            deps.index.close()  # type: ignore[attr-defined]
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
