"""The ASL files and the CDK substitutions agree, and every transition names a state that exists."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from asl_contract import dangling_transitions, placeholders
from conftest import REPO_ROOT, Synthesized, resources

from infra.constructs.pipelines import INGEST_ASL, QUERY_ASL
from voiceassist.constants.functions import INGEST_PIPELINE_FUNCTIONS, QUERY_PIPELINE_FUNCTIONS, placeholder_for

ASL_FILES = sorted((REPO_ROOT / "statemachines").glob("*.asl.json"))
CDK_FUNCTIONS = {INGEST_ASL: INGEST_PIPELINE_FUNCTIONS, QUERY_ASL: QUERY_PIPELINE_FUNCTIONS}


def test_statemachines_folder_has_asl_files() -> None:
    assert ASL_FILES, "statemachines/*.asl.json: no workflow definitions found"
    assert {path.name for path in ASL_FILES} == set(CDK_FUNCTIONS)


@pytest.mark.parametrize("path", ASL_FILES, ids=lambda p: p.name)
def test_asl_placeholders_match_the_cdk_substitutions(path: Path) -> None:
    expected = {placeholder_for(name) for name in CDK_FUNCTIONS[path.name]}
    found = placeholders(json.loads(path.read_text()))
    assert found - expected == set(), "placeholders without a CDK substitution"
    assert expected - found == set(), "CDK substitutions the definition never uses"


@pytest.mark.parametrize("path", ASL_FILES, ids=lambda p: p.name)
def test_asl_transitions_name_existing_states(path: Path) -> None:
    assert dangling_transitions(json.loads(path.read_text())) == []


def test_synthesized_state_machines_substitute_every_placeholder(synthesized: Synthesized) -> None:
    machines = resources(synthesized.main("dev"), "AWS::StepFunctions::StateMachine")
    substituted = {
        props["StateMachineName"]: set(props["DefinitionSubstitutions"]) for props in machines.values()
    }
    for path in ASL_FILES:
        name = f"voiceassist-dev-{path.name.removesuffix('.asl.json')}"
        assert substituted[name] == placeholders(json.loads(path.read_text()))


EXAMPLE = {
    "StartAt": "Fan Out",
    "States": {
        "Fan Out": {
            "Type": "Parallel",
            "Branches": [
                {
                    "StartAt": "A",
                    "States": {
                        "A": {"Type": "Task", "Resource": "${AFunctionArn}", "Next": "Missing In Branch"}
                    },
                }
            ],
            "Catch": [{"ErrorEquals": ["States.ALL"], "Next": "Failed"}],
            "Next": "Each",
        },
        "Each": {
            "Type": "Map",
            "ItemProcessor": {
                "StartAt": "B",
                "States": {"B": {"Type": "Task", "End": True, "Parameters": {"f": "${BFunctionArn}"}}},
            },
            "Next": "Pick",
        },
        "Pick": {
            "Type": "Choice",
            "Choices": [{"Variable": "$.x", "IsPresent": True, "Next": "Done"}],
            "Default": "Nowhere",
        },
        "Done": {"Type": "Succeed"},
    },
}


def test_checker_finds_placeholders_inside_parallel_and_map() -> None:
    assert placeholders(EXAMPLE) == {"AFunctionArn", "BFunctionArn"}


def test_checker_reports_each_dangling_transition_with_its_scope() -> None:
    assert sorted(dangling_transitions(EXAMPLE)) == [
        "top/Fan Out[0]: A -> Missing In Branch",
        "top: Fan Out -> Failed",
        "top: Pick -> Nowhere",
    ]
