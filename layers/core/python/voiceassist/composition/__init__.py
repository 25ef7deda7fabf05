"""The composition root: every handler, the local runtime and the tests get their adapters here.

`Dependencies(settings)` is the local factory (composition/local.py) or the AWS factory (composition/aws.py),
chosen by `settings.runtime`. Every adapter is built on first use and kept for warm starts, so a step builds
only what it touches: neither Classify nor Register loads the PHI detector. Adapters are
imported inside the builders, so a function only imports the packages its artefact ships.

The local runtime (voiceassist_local, never in a Lambda artefact) injects its in-process pipeline runner with
`register_pipeline_runner`; nothing here imports it. Tests replace the process-wide set with
`use_dependencies`.
"""

from __future__ import annotations

from voiceassist.composition.aws import AwsDependencies
from voiceassist.composition.base import Dependencies, dependencies, register_pipeline_runner, use_dependencies
from voiceassist.composition.local import LocalDependencies

__all__ = ["AwsDependencies", "Dependencies", "LocalDependencies", "dependencies", "register_pipeline_runner",
           "use_dependencies"]
