"""cfn-lint (pinned in the dev extra) finds no error in any synthesized template: what CloudFormation would
reject at deploy time (bad property values, wrong types, unknown attributes) fails `make test` instead. It runs
with its informational and experimental rules too (decision 0030, session 11): only the findings named below pass."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import Synthesized

pytestmark = pytest.mark.slow  # cfn-lint reads five templates: about a minute

# The only warnings allowed, each with its reason (issue 26: no other warning passes unnoticed).
ALLOWED_WARNINGS = {
    "W3010": "hard-coded availability zones: synth stays offline (no zone lookup), cdk.json names them",
    "W3005": "a DependsOn that a Ref/GetAtt already implies, added by aws-cdk-lib: each Lambda function (ours, "
             "the custom-resource providers') and state machine on the role it runs as, the search bootstrap on "
             "its domain, the SageMaker scaling policy on its target; redundant, CloudFormation orders the same",
}
# The only informational findings allowed (experimental rules report none).
ALLOWED_INFORMATIONAL = {
    "I1022": "Fn::Join with an empty delimiter instead of Fn::Sub: aws-cdk-lib writes every ARN it builds so",
    "I4010": "no Metadata.com.aws.cloudformation.Context (an architecture description for tools): not read by "
             "CloudFormation",
}


def test_cfn_lint_reports_no_error_in_any_template(synthesized: Synthesized) -> None:
    templates = sorted(synthesized.outdir.glob("*.template.json"))
    # main for dev, staging and prod; models for staging and prod (dev's Llama is on Bedrock: no Models stack)
    assert {t.name for t in templates} == {f"VoiceAssist-{name}.template.json" for name in
                                           ("dev", "staging", "staging-Models", "prod", "prod-Models")}
    run = subprocess.run(
        [str(Path(sys.executable).with_name("cfn-lint")), "--format", "json", "--include-checks", "I",
         "--include-experimental", "--", *map(str, templates)],
        capture_output=True, text=True, check=False, timeout=600,
    )
    assert run.stdout.strip().startswith("["), run.stderr[-2000:]
    findings = json.loads(run.stdout)
    errors = [f"{f['Filename']}: {f['Rule']['Id']} {f['Message']}" for f in findings if f["Level"] == "Error"]
    assert errors == []
    # and the run itself worked: warnings are reported (W3010 hard-coded zones: synth stays offline)
    assert any(f["Rule"]["Id"] == "W3010" for f in findings)
    warnings = [f for f in findings if f["Level"] == "Warning"]
    unexplained = sorted({f"{f['Rule']['Id']} {f['Message']}" for f in warnings
                          if f["Rule"]["Id"] not in ALLOWED_WARNINGS})
    assert unexplained == []
    informational = sorted({f"{f['Rule']['Id']} {f['Message']}" for f in findings if f["Level"] == "Informational"
                            and f["Rule"]["Id"] not in ALLOWED_INFORMATIONAL})
    assert informational == []
    assert any(f["Rule"]["Id"] == "I1022" for f in findings)  # the informational rules did run
    # a W3005 only ever names a dependency a Ref or GetAtt already enforces
    assert all("dependency already enforced by a" in f["Message"] for f in warnings if f["Rule"]["Id"] == "W3005")
