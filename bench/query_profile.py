"""Where a question's time goes, for bench/query.py --profile: CPU per thread, CPU per function, wall per state.

Three views of the same questions, each one that the others miss:
- CPU per OS thread (/proc/self/task, Linux): every thread of the process, native ones included (a BLAS or
  onnxruntime worker is invisible to Python's profilers); threads that end during the run (the interpreter's
  per-execution and per-iteration threads) are summed as "ended threads".
- CPU per function: cProfile with each thread's own CPU clock (time.thread_time) in every Python thread that
  runs during the questions (the interpreter's threads and the thread pools' tasks included), merged.
- wall per state: the execution history of one traced question at a time (LocalPipelineRunner.trace),
  StateEntered to StateExited, millisecond timestamps as Step Functions records them.
"""

from __future__ import annotations

import concurrent.futures.thread as pool_threads
import cProfile
import functools
import io
import os
import pstats
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

TASKS = "/proc/self/task"


def thread_cpu() -> dict[int, tuple[str, float]]:
    """CPU seconds (user + system) of every live thread of this process, by native id, with its OS name."""
    tick = os.sysconf("SC_CLK_TCK")
    found: dict[int, tuple[str, float]] = {}
    for tid in os.listdir(TASKS):
        try:
            with open(f"{TASKS}/{tid}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except FileNotFoundError:  # ended meanwhile
            continue
        found[int(tid)] = ("", (int(fields[11]) + int(fields[12])) / tick)
    return found


@contextmanager
def cpu_by_thread(per: int) -> Iterator[dict[str, float]]:
    """CPU milliseconds per question (`per` questions) by thread name, filled in when the block ends."""
    report: dict[str, float] = {}
    names = {t.native_id: t.name for t in threading.enumerate()}
    before, process_before = thread_cpu(), time.process_time()
    yield report
    process_cpu = time.process_time() - process_before
    names |= {t.native_id: t.name for t in threading.enumerate()}
    after = thread_cpu()
    seen = 0.0
    for tid, (_, seconds) in after.items():
        used = seconds - before.get(tid, ("", 0.0))[1]
        if used <= 0:
            continue
        name = names.get(tid) or "native (not a Python thread)"
        name = name.rstrip("0123456789").rstrip("_") if "_" in name else name
        report[name] = report.get(name, 0.0) + used * 1000 / per
        seen += used
    report["ended threads (the interpreter's)"] = max(0.0, process_cpu - seen) * 1000 / per
    for name in report:
        report[name] = round(report[name], 1)


@contextmanager
def profiled_threads() -> Iterator[list[cProfile.Profile]]:
    """cProfile (each thread's CPU clock) in this thread, every new thread and every thread-pool task."""
    profiles: list[cProfile.Profile] = []
    lock = threading.Lock()
    original_run, original_submit = threading.Thread.run, pool_threads.ThreadPoolExecutor.submit

    def run_profiled(call: Callable[[], Any]) -> Any:
        profile = cProfile.Profile(time.thread_time)
        profile.enable()
        try:
            return call()
        finally:
            profile.disable()
            with lock:
                profiles.append(profile)

    def run(thread: threading.Thread) -> None:
        if getattr(thread, "_target", None) is pool_threads._worker:  # type: ignore[attr-defined]
            original_run(thread)  # a pool's worker: its tasks are profiled one by one (submit)
        else:
            run_profiled(lambda: original_run(thread))

    def submit(pool: pool_threads.ThreadPoolExecutor, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Any:
        return original_submit(pool, functools.partial(run_profiled, functools.partial(fn, *args, **kwargs)))

    threading.Thread.run = run  # type: ignore[method-assign]
    pool_threads.ThreadPoolExecutor.submit = submit  # type: ignore[method-assign]
    main = cProfile.Profile(time.thread_time)
    main.enable()
    try:
        yield profiles
    finally:
        main.disable()
        threading.Thread.run = original_run  # type: ignore[method-assign]
        pool_threads.ThreadPoolExecutor.submit = original_submit  # type: ignore[method-assign]
        profiles.append(main)


def top_functions(profiles: list[cProfile.Profile], per: int, limit: int = 30, sort: str = "tottime") -> str:
    """The merged profile's top functions (self CPU, or cumulative with sort="cumulative"), ms per question."""
    stats = pstats.Stats(profiles[0], stream=io.StringIO())
    for profile in profiles[1:]:
        stats.add(profile)
    rows = []
    for (path, line, function), (_, calls, own, cumulative, _) in stats.stats.items():  # type: ignore[attr-defined]
        where = f"{_short(path)}:{line}({function})"
        rows.append((own if sort == "tottime" else cumulative, own, cumulative, calls, where))
    rows.sort(reverse=True)
    lines = [f"{'self ms/q':>10} {'cum ms/q':>10} {'calls/q':>8}  function"]
    for _, own, cumulative, calls, where in rows[:limit]:
        lines.append(f"{own * 1000 / per:10.2f} {cumulative * 1000 / per:10.2f} {calls / per:8.1f}  {where}")
    return "\n".join(lines)


def _short(path: str) -> str:
    for marker in ("site-packages/", "python3.11/", "/layers/core/python/", "/local/", "/functions/"):
        if marker in path:
            return path.split(marker, 1)[1]
    return path


def recognizer_costs(analyzer: Any, texts: list[str], rounds: int = 3) -> dict[str, dict[str, float]]:
    """CPU of each part of one Presidio detection (each recognizer, the spaCy pipeline, the context enhancer),
    ms per text (p50 and mean over `rounds` passes of `texts`), on this thread's CPU clock."""
    import statistics

    costs: dict[str, list[float]] = {}
    originals: list[tuple[Any, str, Any]] = []

    def timed(owner: Any, attribute: str, label: str) -> None:
        call = getattr(owner, attribute)
        originals.append((owner, attribute, call))

        def measured(*args: Any, **kwargs: Any) -> Any:
            started = time.thread_time()
            try:
                return call(*args, **kwargs)
            finally:
                costs.setdefault(label, []).append((time.thread_time() - started) * 1000)

        setattr(owner, attribute, measured)

    for recognizer in analyzer.registry.recognizers:
        timed(recognizer, "analyze", f"{type(recognizer).__name__} ({', '.join(recognizer.supported_entities)})")
    timed(analyzer.nlp_engine, "process_text", "spaCy pipeline (tok2vec, tagger, ner)")
    timed(analyzer.context_aware_enhancer, "enhance_using_context", "context enhancer")
    totals = []
    try:
        for _ in range(rounds):
            for text in texts:
                started = time.thread_time()
                analyzer.analyze(text=text, language="en")
                totals.append((time.thread_time() - started) * 1000)
    finally:
        for owner, attribute, _ in originals:
            delattr(owner, attribute)  # the instance attribute hid the class's method
    report = {"whole analyze": {"p50_ms": round(statistics.median(totals), 3),
                                "mean_ms": round(statistics.fmean(totals), 3)}}
    for label, values in sorted(costs.items(), key=lambda item: -sum(item[1])):
        report[label] = {"p50_ms": round(statistics.median(values), 3), "mean_ms": round(statistics.fmean(values), 3)}
    return report
