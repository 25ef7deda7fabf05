"""cfn-guard (pinned in the dev extra) checks every synthesized template against the HIPAA safeguards the
design relies on (infra/guard/hipaa.guard), and the rules do fail a template that breaks them."""

from __future__ import annotations

import copy

import cfn_guard_rs
import pytest
from conftest import REPO_ROOT, Synthesized

RULES = (REPO_ROOT / "infra" / "guard" / "hipaa.guard").read_text()


def _failed(template: dict) -> list[str]:
    report = cfn_guard_rs.run_checks(template, RULES)
    return sorted(getattr(clause, "name", None) or clause.Rule.name for clause in report.not_compliant)


@pytest.mark.parametrize("env", ["dev", "staging", "prod"])
def test_every_template_meets_the_hipaa_rules(synthesized: Synthesized, env: str) -> None:
    for template in synthesized.stacks(env):
        report = cfn_guard_rs.run_checks(template, RULES)
        assert _failed(template) == [] and report.compliant


def test_the_rules_fail_a_template_that_breaks_them(synthesized: Synthesized) -> None:
    # Resources of the real templates, each broken in one safeguard. (cfn-guard-rs 0.3.3 cannot report a
    # failure on a value holding an intrinsic function such as Fn::Join: such resources are written plainly.)
    machines = {k: copy.deepcopy(r) for k, r in synthesized.main("prod")["Resources"].items()
                if r["Type"] == "AWS::StepFunctions::StateMachine"}
    for machine in machines.values():
        machine["Properties"]["LoggingConfiguration"]["IncludeExecutionData"] = True
    unencrypted_logs = {"Logs": {"Type": "AWS::Logs::LogGroup", "Properties": {"RetentionInDays": 7}}}
    models = {k: copy.deepcopy(r) for k, r in synthesized.models("prod")["Resources"].items()
              if r["Type"] == "AWS::SageMaker::Model"}
    for model in models.values():
        model["Properties"]["EnableNetworkIsolation"] = False
    assert _failed({"Resources": machines}) == ["workflows_encrypted_without_execution_data_in_logs"]
    assert _failed({"Resources": unencrypted_logs}) == ["logs_encrypted_with_retention"]
    assert _failed({"Resources": models}) == ["models_network_isolated"]
    assert _failed({"Resources": {**unencrypted_logs, "Queue": {"Type": "AWS::SQS::Queue", "Properties": {}}}}) == [
        "logs_encrypted_with_retention", "messages_encrypted"]
