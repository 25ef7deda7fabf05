"""The readings that need spaCy's parse or entities (voiceassist/english_pipeline.py; decisions 0024 and 0027,
session 20) run where the product runs: every Lambda function whose code reaches them ships spaCy and the model (the
PHI image) and requires them at cold start, or is one of the reviewed functions below that does without."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from functools import lru_cache
from pathlib import Path

import pytest

from tests.artefacts.artefacts import REPO, blocked_modules
from voiceassist import english_pipeline
from voiceassist.constants.functions import FUNCTIONS, FUNCTIONS_BY_NAME, TOOL_RUNNER, Access, FunctionSpec

READINGS = ("voiceassist.safety.purpose_clause", "voiceassist.query.story_places")
FUNCTIONS_DIR = REPO / "functions"
WORKER = Path(__file__).with_name("worker.py")
# Zip functions whose code imports the readings and that do not ship spaCy, each with why (reviewed; a function
# that starts to reach the readings fails below until it ships the parse or is written down here).
WITHOUT_THE_PARSE = {
    # imports voiceassist.query.retrieval, whose merge (query_rank) runs the gate; a search reads no question concepts
    "query_retrieve": "imports only: the gate runs in query_rank",
}


def _screens_through_the_runner(spec: FunctionSpec) -> bool:
    """api and mcp load the input screen with the tool executor but read no text with it: every tool argument is
    screened by the tool runner (tools/remote.py RemoteToolExecutor.screen_verdict), which ships the parse
    (decision 0027, "On AWS too"; test_function_artefacts.py sends each a purpose-clause tool argument)."""
    return Access.INVOKE_TOOL_RUNNER in spec.access and FUNCTIONS_BY_NAME[TOOL_RUNNER].reads_english_parse


# Imports a handler as Lambda does at cold start and prints which of the readings' modules that loaded (the
# composition root imports adapters inside its builders: only a run shows what a function loads, not the source).
_PROBE = """
import importlib.util, json, sys
sys.path[:0] = [sys.argv[1]]
spec = importlib.util.spec_from_file_location("handler", sys.argv[1] + "/handler.py")
spec.loader.exec_module(importlib.util.module_from_spec(spec))
print(json.dumps(sorted(m for m in sys.modules if m in json.loads(sys.argv[2]))))
"""


@lru_cache(maxsize=1)
def _reaching() -> frozenset[str]:
    """The functions whose handler, imported, loads a reading's module."""
    environment = {"PATH": "/usr/bin:/bin", "VOICEASSIST_RUNTIME": "aws", "AWS_DEFAULT_REGION": "us-east-1",
                   "POWERTOOLS_TRACE_DISABLED": "true"}
    probes = {spec.name: subprocess.Popen(
        [sys.executable, "-c", _PROBE, str(FUNCTIONS_DIR / spec.name), json.dumps(READINGS)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=environment) for spec in FUNCTIONS}
    reaching = set()
    for name, probe in probes.items():
        out, err = probe.communicate(timeout=600)
        assert probe.returncode == 0, f"{name}: {err[-2000:]}"
        if json.loads(out.splitlines()[-1]):
            reaching.add(name)
    return frozenset(reaching)


def _ships_the_parse(spec: FunctionSpec) -> bool:
    """spaCy and the pinned model are in the function's artefact (not blocked when the artefact tests run it)."""
    blocked = set(blocked_modules(spec))
    return not blocked & {"spacy", english_pipeline.MODEL}


def _requires_at_import(name: str) -> bool:
    """The handler calls english_pipeline.require() at module level (its cold start)."""
    tree = ast.parse((FUNCTIONS_DIR / name / "handler.py").read_text())
    return any(isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)
               and ast.unparse(node.value.func) == "english_pipeline.require" for node in tree.body)


@pytest.mark.slow
def test_parse_readings_every_function_that_reaches_them_ships_the_parse_or_is_written_down() -> None:
    reaching = _reaching()
    # the step that screens the question loads the purpose clauses; an ingest step loads neither reading
    assert "query_classify" in reaching and "ingest_clean" not in reaching
    without = sorted(name for name in reaching if not _ships_the_parse(FUNCTIONS_BY_NAME[name]))
    remote = sorted(name for name in without if _screens_through_the_runner(FUNCTIONS_BY_NAME[name]))
    assert remote == ["api", "mcp"]  # their tool arguments are read by query_tools, which ships the parse
    assert sorted(set(without) - set(remote)) == sorted(WITHOUT_THE_PARSE), (
        "ship the parse (reads_english_parse) or write down why not")
    # every image (which ships spaCy) that loads a reading is flagged and requires it: all fail loud alike
    images = sorted(name for name in reaching if FUNCTIONS_BY_NAME[name].container_image)
    assert [name for name in images if not FUNCTIONS_BY_NAME[name].reads_english_parse] == []


def test_parse_readings_each_function_that_runs_them_is_the_image_and_requires_them_at_cold_start() -> None:
    running = {spec.name for spec in FUNCTIONS if spec.reads_english_parse}
    assert {"query_classify", "query_rank", "query_generate", "query_tools", "query_detect_phi", "query_assemble",
            "stream"} <= running
    for name in running:
        spec = FUNCTIONS_BY_NAME[name]
        assert spec.container_image and _ships_the_parse(spec), name
        assert _requires_at_import(name), f"{name}'s handler must call english_pipeline.require() at import"
    # and no function without the parse requires it (its cold start would always fail)
    assert {spec.name for spec in FUNCTIONS if _requires_at_import(spec.name)} == running


def test_parse_readings_require_names_what_is_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    assert english_pipeline.installed()  # the development environment has them, as `make run` does
    english_pipeline.require()
    monkeypatch.setattr(english_pipeline, "PACKAGES", ("spacy", "no_such_model_package"))
    assert not english_pipeline.installed()
    with pytest.raises(english_pipeline.ParserMissing, match="no_such_model_package"):
        english_pipeline.require()


@pytest.mark.slow
def test_parse_readings_a_handler_without_spacy_fails_its_cold_start() -> None:
    """The classify function's artefact with spaCy taken out (as the zip it was): its handler does not import."""
    blocked = sorted({*blocked_modules(FUNCTIONS_BY_NAME["query_classify"]), "spacy"})
    run = subprocess.run([sys.executable, str(WORKER), str(FUNCTIONS_DIR / "query_classify"), json.dumps(blocked)],
                         input="", capture_output=True, text=True, cwd=str(REPO.parent), timeout=300,
                         env={"PATH": "/usr/bin:/bin", "VOICEASSIST_RUNTIME": "aws", "AWS_DEFAULT_REGION": "us-east-1",
                              "POWERTOOLS_TRACE_DISABLED": "true"})
    assert run.returncode != 0
    assert "ParserMissing" in run.stderr and "'spacy'" in run.stderr, run.stderr[-2000:]


def test_parse_readings_off_only_where_nothing_requires_them(monkeypatch: pytest.MonkeyPatch,
                                                             caplog: pytest.LogCaptureFixture) -> None:
    """Outside a function that requires the parse (a test environment without the model) a reading logs that it is
    off and reads nothing."""
    monkeypatch.setattr(english_pipeline, "MODEL", "no_such_model_package")
    with caplog.at_level("WARNING", logger="voiceassist.english_pipeline"):
        assert english_pipeline.pipeline(("ner",), "test readings (a model that is not installed)") is None
    assert "test readings (a model that is not installed) are not read" in caplog.text
