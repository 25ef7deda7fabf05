"""A spoken question is written as typed before Detect PHI reads it (speech/phi_doubt.detector_text: number words
as digits with text2num) where the product runs: every Lambda function that serves the voice routes ships text2num
(the voice layer for a zip, the PHI image's requirements for an image) and requires it at cold start, and the
normalisation runs inside its artefact as on the laptop (decision 0031, "PHI in a spoken question")."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.artefacts.artefacts import REPO, blocked_modules
from voiceassist.constants.functions import FUNCTIONS, FUNCTIONS_BY_NAME, layers_of
from voiceassist.speech import phi_doubt

FUNCTIONS_DIR = REPO / "functions"
WORKER = Path(__file__).with_name("worker.py")
ENVIRONMENT = {"PATH": "/usr/bin:/bin", "VOICEASSIST_RUNTIME": "aws", "AWS_DEFAULT_REGION": "us-east-1",
               "POWERTOOLS_TRACE_DISABLED": "true"}
SPOKEN = "the patient with M R N four five six seven eight nine one, born march third nineteen fifty"
# Imports a handler as Lambda does at cold start, with what its artefact does not ship blocked (worker.py's blocker),
# then writes a spoken question as the voice routes do (speech/unsure.spoken_question) and prints the query and
# which modules of the transcript normalisation the cold start loaded.
_PROBE = """
import importlib.util, json, sys
folder, blocked, spoken = sys.argv[1], set(json.loads(sys.argv[2])), sys.argv[3]
sys.path[:0] = [sys.argv[4], folder]
from worker import ArtefactBlocker
sys.meta_path.insert(0, ArtefactBlocker(blocked))
spec = importlib.util.spec_from_file_location("handler", folder + "/handler.py")
spec.loader.exec_module(importlib.util.module_from_spec(spec))
loaded = "voiceassist.speech.phi_doubt" in sys.modules
from voiceassist.speech import Transcript
from voiceassist.speech.unsure import spoken_question
transcript = Transcript(text=spoken, language="en", duration_seconds=4.0, confidence=0.9, engine="probe")
print(json.dumps({"loaded": loaded, "query": spoken_question(transcript, None).query}))
"""


def _probe(name: str, blocked: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", _PROBE, str(FUNCTIONS_DIR / name), json.dumps(blocked), SPOKEN,
                           str(WORKER.parent)], capture_output=True, text=True, timeout=300, env=ENVIRONMENT,
                          cwd=str(REPO.parent))


def _requires_at_import(name: str) -> bool:
    """The handler calls phi_doubt.require() at module level (its cold start)."""
    tree = ast.parse((FUNCTIONS_DIR / name / "handler.py").read_text())
    return any(isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)
               and ast.unparse(node.value.func) == "phi_doubt.require" for node in tree.body)


def test_voice_numbers_the_voice_functions_are_flagged_and_require_text2num_at_cold_start() -> None:
    serving = sorted(spec.name for spec in FUNCTIONS if spec.serves_voice)
    assert serving == ["api", "stream"]  # /v1/voice/*, and the WebSocket's voice.end
    assert sorted(spec.name for spec in FUNCTIONS if _requires_at_import(spec.name)) == serving
    assert "voice" in layers_of(FUNCTIONS_BY_NAME["api"])  # a zip: the voice layer
    for name in serving:
        assert phi_doubt.NUMBERS_PACKAGE not in blocked_modules(FUNCTIONS_BY_NAME[name]), name


@pytest.mark.slow
@pytest.mark.parametrize("name", ["api", "stream"])
def test_voice_numbers_a_spoken_record_number_and_birth_date_are_digits_inside_the_artefact(name: str) -> None:
    run = _probe(name, blocked_modules(FUNCTIONS_BY_NAME[name]))
    assert run.returncode == 0, run.stderr[-3000:]
    reply = json.loads(run.stdout.splitlines()[-1])
    assert reply["loaded"]  # the cold start loaded the normalisation: the functions that serve voice are these
    assert "MRN 4567891" in reply["query"], reply
    assert "1950" in reply["query"] and "fifty" not in reply["query"], reply


@pytest.mark.slow
def test_voice_numbers_a_handler_without_text2num_fails_its_cold_start() -> None:
    """The api's artefact with text2num taken out (as it was before the voice layer): its handler does not import."""
    blocked = sorted({*blocked_modules(FUNCTIONS_BY_NAME["api"]), phi_doubt.NUMBERS_PACKAGE})
    run = _probe("api", blocked)
    assert run.returncode != 0
    assert "NumbersMissing" in run.stderr and "voice layer" in run.stderr, run.stderr[-2000:]


def test_voice_numbers_require_names_what_is_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    phi_doubt.require()  # the development environment has it (the `voice` and `local` extras)
    monkeypatch.setattr(phi_doubt, "NUMBERS_PACKAGE", "no_such_numbers_package")
    with pytest.raises(phi_doubt.NumbersMissing, match="text2num"):
        phi_doubt.require()
