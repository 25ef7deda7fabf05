"""generate_differential_diagnosis writes with the in-boundary LLM: besides query_generate, only query_tools (the
query's tool loop, which also carries the embedder the tool's knowledge-base search needs) may invoke it."""

from __future__ import annotations

import pytest
from conftest import Synthesized, app_functions, resources


@pytest.mark.parametrize(("env", "action"), [("staging", "sagemaker:InvokeEndpoint"),  # a SageMaker environment
                                            ("dev", "bedrock:InvokeModel")])  # a Bedrock one (decision 0016)
def test_only_generate_and_the_tool_loop_invoke_the_in_boundary_llm(synthesized: Synthesized, env: str,
                                                                    action: str) -> None:
    template = synthesized.main(env)
    roles_by_function = {name: f["Role"]["Fn::GetAtt"][0] for name, f in app_functions(synthesized, env).items()}
    invokers = set()
    for policy in resources(template, "AWS::IAM::Policy").values():
        for statement in policy["PolicyDocument"]["Statement"]:
            actions = statement["Action"] if isinstance(statement["Action"], list) else [statement["Action"]]
            if action in actions:
                invokers |= {role["Ref"] for role in policy["Roles"]}
    assert invokers == {roles_by_function["query_generate"], roles_by_function["query_tools"]}
