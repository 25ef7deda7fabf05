"""The local PipelineRunner: the real ASL files, executed in-process, with Lambda tasks calling the handlers."""

from __future__ import annotations

from typing import Any

from voiceassist.local.handlers import STATEMACHINES_DIR, function_names, invoke, placeholder_for
from voiceassist.ports import PipelineRunner

PIPELINES = {"ingest": STATEMACHINES_DIR / "ingest.asl.json", "query": STATEMACHINES_DIR / "query.asl.json"}


def _task(function_name: str) -> Any:
    def call(event: dict[str, Any], context: Any = None) -> Any:
        return invoke(function_name, event)

    call.__name__ = function_name
    return call


def local_pipeline_runner() -> PipelineRunner:
    from voiceassist.adapters.local_pipeline import LocalPipelineRunner

    tasks = {placeholder_for(name): _task(name) for name in function_names() if name != "api"}
    return LocalPipelineRunner(PIPELINES, tasks)
