"""cdk.json environments validate, and synth refuses a functions folder the catalogue does not describe."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import REPO_ROOT, Synthesized
from pydantic import ValidationError

from infra.app import selected_environments
from infra.config import ENVIRONMENT_NAMES, load_environment
from voiceassist.constants.functions import discover_functions, placeholder_for

CONTEXT = json.loads((REPO_ROOT / "cdk.json").read_text())["context"]


def test_cdk_json_defines_every_environment() -> None:
    for name in ENVIRONMENT_NAMES:
        config = load_environment(CONTEXT, name)
        assert config.name == name and config.prefix == f"voiceassist-{name}"
    assert load_environment(CONTEXT, "prod").deletion_protection is True


def test_account_can_be_overridden_on_the_command_line() -> None:
    config = load_environment({**CONTEXT, "account": "444444444444"}, "dev")
    assert config.account == "444444444444"


def test_invalid_log_retention_is_rejected_at_synth() -> None:
    context = json.loads(json.dumps(CONTEXT))
    context["voiceassist"]["environments"]["dev"]["retention"]["log_days"] = 31
    with pytest.raises(ValidationError, match="log_days"):
        load_environment(context, "dev")


def test_two_dedicated_masters_are_rejected() -> None:
    context = json.loads(json.dumps(CONTEXT))
    context["voiceassist"]["environments"]["prod"]["search"]["master_node_count"] = 2
    with pytest.raises(ValidationError, match="quorum"):
        load_environment(context, "prod")


def test_environment_selection() -> None:
    assert selected_environments(None) == ENVIRONMENT_NAMES
    assert selected_environments("dev,prod") == ("dev", "prod")
    with pytest.raises(ValueError, match="qa"):
        selected_environments("qa")


def test_placeholder_names_follow_the_folder_names() -> None:
    assert placeholder_for("ingest_extract") == "IngestExtractFunctionArn"
    assert placeholder_for("query_detect_phi") == "QueryDetectPhiFunctionArn"


def test_uncatalogued_function_folder_fails_discovery(tmp_path: Path, fixture_functions_dir: Path) -> None:
    (tmp_path / "mystery").mkdir()
    (tmp_path / "mystery" / "handler.py").write_text("")
    with pytest.raises(ValueError, match="mystery"):
        discover_functions(tmp_path)
    assert len(discover_functions(fixture_functions_dir)) > 0


def test_synth_needs_no_account_lookups(synthesized: Synthesized) -> None:
    manifest = json.loads((synthesized.outdir / "manifest.json").read_text())
    assert manifest.get("missing", []) == []
