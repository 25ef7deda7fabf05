"""The local PipelineRunner: the real ASL files, executed in-process, with Lambda tasks calling the handlers."""

from __future__ import annotations

from voiceassist.local.handlers import STATEMACHINES_DIR, function_names, load_handler, placeholder_for
from voiceassist.ports import PipelineRunner

PIPELINES = {"ingest": STATEMACHINES_DIR / "ingest.asl.json", "query": STATEMACHINES_DIR / "query.asl.json"}


def local_pipeline_runner() -> PipelineRunner:
    from voiceassist.adapters.local_pipeline import LocalPipelineRunner

    tasks = {placeholder_for(name): load_handler(name) for name in function_names() if name != "api"}
    return LocalPipelineRunner(PIPELINES, tasks, max_concurrent_executions=4)
