"""The local runtime: the HTTP server, the CLI, bulk ingestion, evaluation, the incoming-folder watcher and the
in-process pipeline runner. Never shipped to Lambda; importing it registers its pipeline runner for the
composition root (voiceassist.pipeline_runners; the domain never imports this package)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from voiceassist import pipeline_runners

if TYPE_CHECKING:
    from voiceassist.composition import Dependencies
    from voiceassist.ports import PipelineRunner


def _local_pipeline_runner(_deps: Dependencies) -> PipelineRunner:
    from voiceassist_local.pipelines import local_pipeline_runner

    return local_pipeline_runner()


pipeline_runners.register(_local_pipeline_runner)  # without importing the composition root (a CLI client's start)
