"""Packages and their folders (pyproject.toml holds the rest of the metadata).

- voiceassist: the domain package, the one shipped as the Lambda core layer (layers/core/python).
- voiceassist_local: the local runtime (server, CLI, bulk ingest, evaluation, in-process pipelines); never in a
  Lambda artefact.
- voiceassist_functions, voiceassist_statemachines, voiceassist_samples: the Lambda handlers, the ASL files and
  the sample corpus, as package data, so an installed wheel serves from any working directory.
- Folders of data files only (voiceassist._data.*, voiceassist_local.web) are listed as packages too (no
  __init__.py: namespace packages), so setuptools installs them without its "Package would be ignored" warning.
"""

from setuptools import find_namespace_packages, find_packages, setup

FOLDERS = {
    "": "layers/core/python",
    "voiceassist_local": "local/voiceassist_local",
    "voiceassist_functions": "functions",
    "voiceassist_statemachines": "statemachines",
    "voiceassist_samples": "samples",
}
DATA_PACKAGES = [
    *find_namespace_packages("layers/core/python", include=["voiceassist._data", "voiceassist._data.*"],
                             exclude=["*__pycache__*"]),
    *find_namespace_packages("local", include=["voiceassist_local.web", "voiceassist_local.web.*"],
                             exclude=["*__pycache__*"]),
]
PACKAGES = [
    *find_packages("layers/core/python", include=["voiceassist", "voiceassist.*"]),
    *find_packages("local", include=["voiceassist_local", "voiceassist_local.*"]),
    *DATA_PACKAGES,
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
        **{name: ["*"] for name in DATA_PACKAGES},
        "voiceassist_statemachines": ["*.asl.json"],
        "voiceassist_samples": ["README.md"],
        "voiceassist_samples.corpus": ["*"],
    },
)
