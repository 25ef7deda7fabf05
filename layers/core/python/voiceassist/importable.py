"""Whether a package a function must ship can be imported here, read from its metadata (nothing is loaded): the
cold-start checks of english_pipeline.require (spaCy) and speech.phi_doubt.require (text2num) ask it."""

from __future__ import annotations

import importlib.util


def importable(module: str) -> bool:
    """Whether `module` can be found; a finder that refuses it (an artefact test's blocker) counts as absent."""
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False
