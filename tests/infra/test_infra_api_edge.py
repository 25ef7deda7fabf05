"""Browsers are served: CORS preflight without Cognito, per-environment origins, binary uploads, and API
Gateway's own errors in the API's envelope with CORS headers (issue 16)."""

from __future__ import annotations

import json

import pytest
from conftest import REPO_ROOT, Synthesized, app_functions, resources
from pydantic import ValidationError

from infra.config import load_environment
from voiceassist.constants.environment import ENV_CORS_ORIGINS

# The web client's origin: https:// + its CloudFront distribution's domain (a fixed logical id, infra/constructs/web.py)
WEB_ORIGIN = '{"Fn::GetAtt": ["WebDistribution", "DomainName"]}'
CONTEXT = json.loads((REPO_ROOT / "cdk.json").read_text())["context"]


@pytest.mark.parametrize("env", ["dev", "staging", "prod"])
def test_options_is_answered_without_cognito_and_everything_else_needs_it(synthesized: Synthesized, env: str) -> None:
    methods = resources(synthesized.main(env), "AWS::ApiGateway::Method").values()
    options = [m for m in methods if m["HttpMethod"] == "OPTIONS"]
    others = [m for m in methods if m["HttpMethod"] != "OPTIONS"]
    # a preflight on every resource with a method (/{proxy+}, the MCP function's own, ...), none authorized
    assert {json.dumps(m["ResourceId"]) for m in others} <= {json.dumps(m["ResourceId"]) for m in options}
    assert all(m["AuthorizationType"] == "NONE" for m in options)
    assert others and all(m["AuthorizationType"] == "COGNITO_USER_POOLS" for m in others)
    origins = load_environment(CONTEXT, env).api.cors_origins
    preflight = json.dumps(options)
    assert all(origin in preflight for origin in origins)
    assert WEB_ORIGIN in preflight  # the deployed web client's own origin (issue 26)


def test_origins_are_per_environment_and_prod_never_allows_localhost() -> None:
    assert any("localhost" in origin for origin in load_environment(CONTEXT, "dev").api.cors_origins)
    assert not any("localhost" in origin for origin in load_environment(CONTEXT, "prod").api.cors_origins)
    context = json.loads(json.dumps(CONTEXT))
    context["voiceassist"]["environments"]["prod"]["api"]["cors_origins"].append("http://localhost:3000")
    with pytest.raises(ValidationError, match="localhost"):
        load_environment(context, "prod")
    context["voiceassist"]["environments"]["prod"]["api"]["cors_origins"] = ["*"]
    with pytest.raises(ValidationError, match="cors origin"):
        load_environment(context, "prod")


@pytest.mark.parametrize("env", ["dev", "prod"])
def test_gateway_responses_carry_the_envelope_and_cors_headers(synthesized: Synthesized, env: str) -> None:
    found = resources(synthesized.main(env), "AWS::ApiGateway::GatewayResponse").values()
    responses = {r["ResponseType"]: r for r in found}
    assert {"UNAUTHORIZED", "ACCESS_DENIED", "REQUEST_TOO_LARGE", "THROTTLED", "DEFAULT_4XX",
            "DEFAULT_5XX", "INTEGRATION_TIMEOUT"} <= responses.keys()
    for response in responses.values():
        template = response["ResponseTemplates"]["application/json"]
        assert '"error": {"code": ' in template and '"trace_id": "$context.requestId"' in template
        assert "gatewayresponse.header.Access-Control-Allow-Origin" in response["ResponseParameters"]
    assert "POST /v1/documents/uploads" in responses["REQUEST_TOO_LARGE"]["ResponseTemplates"]["application/json"]
    origin = responses["DEFAULT_4XX"]["ResponseParameters"]["gatewayresponse.header.Access-Control-Allow-Origin"]
    # cdk.json's origins and the web client's CloudFront domain: the request's Origin is echoed
    assert origin == "method.request.header.Origin"


def test_pdf_bodies_pass_as_binary_and_the_api_function_knows_the_origins(synthesized: Synthesized) -> None:
    (api,) = resources(synthesized.main("dev"), "AWS::ApiGateway::RestApi").values()
    assert "application/pdf" in api["BinaryMediaTypes"]
    variables = app_functions(synthesized, "dev")["api"]["Environment"]["Variables"]
    joined = "".join(p if isinstance(p, str) else json.dumps(p) for p in variables[ENV_CORS_ORIGINS]["Fn::Join"][1])
    listed = list(load_environment(CONTEXT, "dev").api.cors_origins)
    assert joined.startswith(",".join(listed) + ",https://") and joined.endswith(WEB_ORIGIN)


def test_browsers_may_post_presigned_uploads_to_the_documents_bucket(synthesized: Synthesized) -> None:
    buckets = resources(synthesized.main("prod"), "AWS::S3::Bucket").values()
    (rule,) = [rule for b in buckets for rule in b.get("CorsConfiguration", {}).get("CorsRules", [])]
    assert rule["AllowedMethods"] == ["POST"] and rule["AllowedOrigins"][0] == "https://voiceassist.example.org"
    assert json.dumps(rule["AllowedOrigins"][1]).endswith(WEB_ORIGIN + "]]}")  # the deployed web client's


def test_only_dev_and_staging_have_the_smoke_test_client(synthesized: Synthesized) -> None:
    def admin_flow_clients(env: str) -> int:
        clients = resources(synthesized.main(env), "AWS::Cognito::UserPoolClient").values()
        return sum("ALLOW_ADMIN_USER_PASSWORD_AUTH" in c.get("ExplicitAuthFlows", []) for c in clients)

    assert (admin_flow_clients("dev"), admin_flow_clients("staging"), admin_flow_clients("prod")) == (1, 1, 0)
    assert "SmokeClientId" in synthesized.main("dev")["Outputs"]
    assert "SmokeClientId" not in synthesized.main("prod")["Outputs"]
    context = json.loads(json.dumps(CONTEXT))
    context["voiceassist"]["environments"]["prod"]["api"]["smoke_test_client"] = True
    with pytest.raises(ValidationError, match="smoke_test_client"):
        load_environment(context, "prod")
