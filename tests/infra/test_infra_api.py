"""The REST API is behind Cognito and WAF, validated, throttled and access-logged."""

from __future__ import annotations

import re

from conftest import Synthesized, allowed_targets, resources

from voiceassist.constants.environment import ENV_DATA_KEY_ID
from voiceassist.settings import ENV_USER_POOL_CLIENT_ID, ENV_USER_POOL_ID


def test_every_rest_method_uses_the_cognito_authorizer_and_the_validator(synthesized: Synthesized) -> None:
    template = synthesized.main("dev")
    (authorizer_id,) = resources(template, "AWS::ApiGateway::Authorizer")
    (authorizer,) = resources(template, "AWS::ApiGateway::Authorizer").values()
    assert authorizer["Type"] == "COGNITO_USER_POOLS"
    # CORS preflight (OPTIONS) is the one exception: browsers send it without a token (test_infra_api_edge.py)
    methods = [m for m in resources(template, "AWS::ApiGateway::Method").values() if m["HttpMethod"] != "OPTIONS"]
    assert methods
    for method in methods:
        assert method["AuthorizationType"] == "COGNITO_USER_POOLS"
        assert method["AuthorizerId"] == {"Ref": authorizer_id}
        assert "RequestValidatorId" in method


def test_user_pool_requires_mfa_and_admin_created_accounts(synthesized: Synthesized) -> None:
    (pool,) = resources(synthesized.main("prod"), "AWS::Cognito::UserPool").values()
    assert pool["MfaConfiguration"] == "ON"
    assert pool["AdminCreateUserConfig"]["AllowAdminCreateUserOnly"] is True


def test_waf_protects_the_rest_stage_with_rate_limit_and_managed_rules(synthesized: Synthesized) -> None:
    template = synthesized.main("dev")
    (stage_id,) = resources(template, "AWS::ApiGateway::Stage")
    (association,) = resources(template, "AWS::WAFv2::WebACLAssociation").values()
    assert stage_id in str(association["ResourceArn"])
    (acl,) = resources(template, "AWS::WAFv2::WebACL").values()
    names = {rule["Name"] for rule in acl["Rules"]}
    assert {
        "RatePerClientIp",
        "AWSManagedRulesCommonRuleSet",
        "AWSManagedRulesKnownBadInputsRuleSet",
    } <= names
    assert resources(template, "AWS::WAFv2::LoggingConfiguration")


def test_rest_stage_is_throttled_traced_and_access_logged_without_bodies(synthesized: Synthesized) -> None:
    (stage,) = resources(synthesized.main("prod"), "AWS::ApiGateway::Stage").values()
    assert stage["TracingEnabled"] is True
    assert stage["AccessLogSetting"]["DestinationArn"]
    (settings,) = stage["MethodSettings"]
    assert settings["ThrottlingRateLimit"] == 50 and settings["ThrottlingBurstLimit"] == 100
    assert settings["DataTraceEnabled"] is False


def test_websocket_stage_is_access_logged(synthesized: Synthesized) -> None:
    (stage,) = resources(synthesized.main("dev"), "AWS::ApiGatewayV2::Stage").values()
    assert stage["AccessLogSettings"]["DestinationArn"]


def test_websocket_connect_requires_the_cognito_token_authorizer(synthesized: Synthesized) -> None:
    template = synthesized.main("prod")
    routes = {props["RouteKey"]: props for props in resources(template, "AWS::ApiGatewayV2::Route").values()}
    (authorizer_id, authorizer), = resources(template, "AWS::ApiGatewayV2::Authorizer").items()
    assert routes["$connect"]["AuthorizationType"] == "CUSTOM"
    assert routes["$connect"]["AuthorizerId"] == {"Ref": authorizer_id}
    # API Gateway authorizes a WebSocket once, on $connect; later routes carry that connection's messages.
    assert {routes[key]["AuthorizationType"] for key in routes.keys() - {"$connect"}} == {"NONE"}
    assert authorizer["AuthorizerType"] == "REQUEST"
    assert authorizer["IdentitySource"] == ["route.request.header.Sec-WebSocket-Protocol"]
    assert "StreamAuthorizerFunction" in str(authorizer["AuthorizerUri"])


def test_connect_authorizer_checks_tokens_of_this_pool_and_client_and_nothing_else(
    synthesized: Synthesized,
) -> None:
    template = synthesized.main("dev")
    (function_id, function), = (
        (k, v) for k, v in resources(template, "AWS::Lambda::Function").items() if "StreamAuthorizer" in k
    )
    (pool_id,) = resources(template, "AWS::Cognito::UserPool")
    (client_id,) = (k for k in resources(template, "AWS::Cognito::UserPoolClient") if "WebClient" in k)
    variables = function["Environment"]["Variables"]
    assert variables[ENV_USER_POOL_ID] == {"Ref": pool_id}
    assert variables[ENV_USER_POOL_CLIENT_ID] == {"Ref": client_id}
    # Least privilege: its own log group, network interfaces, traces; no data, no secrets.
    role = function["Role"]["Fn::GetAtt"][0]
    policies = [p for p in resources(template, "AWS::IAM::Policy").values() if {"Ref": role} in p["Roles"]]
    actions = {
        action
        for policy in policies
        for statement in policy["PolicyDocument"]["Statement"]
        for action in ([statement["Action"]] if isinstance(statement["Action"], str) else statement["Action"])
    }
    assert actions <= {"logs:CreateLogStream", "logs:PutLogEvents", "xray:PutTraceSegments",
                       "xray:PutTelemetryRecords"} | {a for a in actions if a.startswith("ec2:")}
    assert all("NetworkInterface" in a or "PrivateIpAddresses" in a for a in actions if a.startswith("ec2:"))
    # Only API Gateway, for this authorizer, may invoke it.
    (permission,) = (
        p for p in resources(template, "AWS::Lambda::Permission").values()
        if p["FunctionName"] == {"Fn::GetAtt": [function_id, "Arn"]}
    )
    assert permission["Principal"] == "apigateway.amazonaws.com" and "/authorizers/" in str(permission["SourceArn"])
    # When it cannot check tokens at all (JWKS unreachable), it errors and an alarm says so.
    (alarm,) = (a for a in resources(template, "AWS::CloudWatch::Alarm").values()
                if a["AlarmName"] == "voiceassist-dev-StreamAuthorizerErrors")
    assert alarm["MetricName"] == "Errors" and alarm["Dimensions"][0]["Value"] == {"Ref": function_id}


def test_only_the_authorizer_extract_and_the_session_readers_carry_the_auth_layer(synthesized: Synthesized) -> None:
    template = synthesized.main("dev")
    (auth_layer,) = (k for k in resources(template, "AWS::Lambda::LayerVersion") if k.startswith("LayersAuth"))
    carriers = [k for k, v in resources(template, "AWS::Lambda::Function").items()
                if {"Ref": auth_layer} in v.get("Layers", [])]
    # the authorizer (Cognito signatures), Extract (AES-encrypted PDFs), and every function with SESSIONS_*
    # access (the clinical context is encrypted with cryptography's AES-GCM: adapters/aws/envelope_cipher.py)
    # (generate, assemble and stream are container images: infra/images/phi/Dockerfile installs the same pin);
    # query_rank reads only the messages (reads_session_messages_only): with the auth layer it was over 250 MB;
    # and the functions that run the workspace tools, which seal the calls awaiting confirmation (Api, Mcp)
    expected = ["Api", "IngestExtract", "Mcp", "StreamAuthorizer"]
    assert sorted(k.removeprefix("Functions")[:-len("Function12345678")] for k in carriers) == expected


def test_the_functions_that_keep_pending_actions_may_seal_and_open_them(synthesized: Synthesized) -> None:
    """api and mcp propose and confirm the workspace tools' calls (the only ones needing confirmation) and seal
    them with data keys from the environment key (tools/actions.py): each has the key's id in its environment
    and kms:GenerateDataKey* and kms:Decrypt on it (its state table grant carries the key's use)."""
    template = synthesized.main("dev")
    (key_id,) = resources(template, "AWS::KMS::Key")
    key_arn = {"Fn::GetAtt": [key_id, "Arn"]}
    functions = resources(template, "AWS::Lambda::Function")
    granted: dict[str, set[str]] = {}
    for policy in resources(template, "AWS::IAM::Policy").values():
        for statement in policy["PolicyDocument"]["Statement"]:
            targets = allowed_targets(statement)
            if statement["Effect"] == "Allow" and "Condition" not in statement and key_arn in targets:
                actions = [statement["Action"]] if isinstance(statement["Action"], str) else statement["Action"]
                for role in policy["Roles"]:
                    granted.setdefault(role["Ref"], set()).update(actions)
    for name in ("Api", "Mcp"):
        (function,) = (v for k, v in functions.items() if re.fullmatch(f"Functions{name}Function[0-9A-F]{{8}}", k))
        assert function["Environment"]["Variables"][ENV_DATA_KEY_ID] == key_arn, name
        role = function["Role"]["Fn::GetAtt"][0]
        assert {"kms:GenerateDataKey*", "kms:Decrypt"} <= granted.get(role, set()), name
