"""The REST API is behind Cognito and WAF, validated, throttled and access-logged."""

from __future__ import annotations

from conftest import Synthesized, resources


def test_every_rest_method_uses_the_cognito_authorizer_and_the_validator(synthesized: Synthesized) -> None:
    template = synthesized.main("dev")
    (authorizer_id,) = resources(template, "AWS::ApiGateway::Authorizer")
    (authorizer,) = resources(template, "AWS::ApiGateway::Authorizer").values()
    assert authorizer["Type"] == "COGNITO_USER_POOLS"
    methods = resources(template, "AWS::ApiGateway::Method").values()
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
