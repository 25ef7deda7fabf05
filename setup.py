"""Packages and their folders (pyproject.toml holds the rest of the metadata).

- voiceassist: the domain package, the one shipped as the Lambda core layer (layers/core/python).
- voiceassist_local: the local runtime (server, CLI, bulk ingest, evaluation, in-process pipelines); never in a
  Lambda artefact.
- voiceassist_functions, voiceassist_statemachines, voiceassist_samples: the Lambda handlers, the ASL files and
  the sample corpus, as package data, so an installed wheel serves from any working directory.
"""

from setuptools import find_namespace_packages, find_packages, setup

FOLDERS = {
    "": "layers/core/python",
    "voiceassist_local": "local/voiceassist_local",
    "voiceassist_functions": "functions",
    "voiceassist_statemachines": "statemachines",
    "voiceassist_samples": "samples",
}
PACKAGES = [
    *find_packages("layers/core/python", include=["voiceassist", "voiceassist.*"]),
    *find_packages("local", include=["voiceassist_local", "voiceassist_local.*"]),
    "voiceassist_functions",
    *(f"voiceassist_functions.{name}" for name in find_namespace_packages("functions", exclude=["*__pycache__*"])),
    "voiceassist_statemachines",
    "voiceassist_samples",
    "voiceassist_samples.corpus",
]

setup(
    package_dir=FOLDERS,
    packages=PACKAGES,
    package_data={
        "voiceassist": ["_data/**/*"],
        "voiceassist_statemachines": ["*.asl.json"],
        "voiceassist_samples": ["README.md"],
        "voiceassist_samples.corpus": ["*"],
        "voiceassist_local": ["web/**/*"],
    },
)
