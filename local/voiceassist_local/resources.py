"""Where the local runtime finds the Lambda handlers, the ASL files and the sample corpus: through the import
system (an installed wheel carries them as packages), never through a path computed from a module's file."""

from __future__ import annotations

import importlib.util
from pathlib import Path

FUNCTIONS_PACKAGE = "voiceassist_functions"
STATEMACHINES_PACKAGE = "voiceassist_statemachines"
SAMPLES_PACKAGE = "voiceassist_samples"


def package_folder(package: str) -> Path:
    """The folder a package's files are in (a namespace package's first real folder)."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError(f"package {package} is not installed: reinstall voiceassist with its local extra")
    for location in spec.submodule_search_locations:
        if Path(location).is_dir():
            return Path(location)
    raise FileNotFoundError(f"package {package} has no folder on disk")


def functions_dir() -> Path:
    return package_folder(FUNCTIONS_PACKAGE)


def statemachine_file(name: str) -> Path:
    return package_folder(STATEMACHINES_PACKAGE) / f"{name}.asl.json"


def sample_corpus_dir() -> Path:
    return package_folder(SAMPLES_PACKAGE) / "corpus"
