"""Where the local runtime registers its in-process pipeline runner for the composition root to build.

It imports nothing, so registering costs nothing: `voiceassist ask` with a server running imports the local
runtime's package (which registers itself) without the composition root, settings or pydantic.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

# Dependencies -> PipelineRunner (typed loosely: this module must not import the composition root)
PipelineRunnerFactory = Callable[[Any], Any]
_factory: PipelineRunnerFactory | None = None


def register(factory: PipelineRunnerFactory | None) -> None:
    """Install the runner factory (None removes it)."""
    global _factory
    _factory = factory


def registered() -> PipelineRunnerFactory | None:
    return _factory
