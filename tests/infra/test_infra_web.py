"""The web client: a private bucket behind CloudFront (origin access control, TLS, strict security headers),
deployed with its config.json, and a Cognito hosted-UI client using the authorization code grant."""

from __future__ import annotations

import json
import re
from typing import Any

from conftest import Synthesized, resources

from voiceassist.constants.web import ADMIN_GROUP


def _only(template: dict[str, Any], resource_type: str) -> tuple[str, dict[str, Any]]:
    (item,) = resources(template, resource_type).items()
    return item


def test_cloudfront_reads_a_private_bucket_through_origin_access_control(synthesized: Synthesized) -> None:
    template = synthesized.main("dev")
    _, distribution = _only(template, "AWS::CloudFront::Distribution")
    config = distribution["DistributionConfig"]
    (origin,) = config["Origins"]
    assert "OriginAccessControlId" in origin and origin["S3OriginConfig"]["OriginAccessIdentity"] == ""
    _, oac = _only(template, "AWS::CloudFront::OriginAccessControl")
    assert oac["OriginAccessControlConfig"]["SigningBehavior"] == "always"
    bucket_id = origin["DomainName"]["Fn::GetAtt"][0]
    bucket = template["Resources"][bucket_id]["Properties"]
    assert all(bucket["PublicAccessBlockConfiguration"].values())
    policy = next(p for p in resources(template, "AWS::S3::BucketPolicy").values()
                  if p["Bucket"] == {"Ref": bucket_id})
    readers = [s for s in policy["PolicyDocument"]["Statement"] if s["Effect"] == "Allow"
               and "s3:GetObject" in json.dumps(s["Action"])]
    assert [s["Principal"] for s in readers] == [{"Service": "cloudfront.amazonaws.com"}]
    # in dev, the only other principal is the stack's own emptying on delete (auto-delete: make destroy)
    others = [s["Principal"] for s in policy["PolicyDocument"]["Statement"] if s["Effect"] == "Allow"
              and s not in readers]
    assert all("CustomS3AutoDeleteObjects" in json.dumps(principal) for principal in others)
    assert "AWS:SourceArn" in json.dumps(readers[0]["Condition"])


def test_viewers_get_https_only_and_tls_1_2(synthesized: Synthesized) -> None:
    _, distribution = _only(synthesized.main("prod"), "AWS::CloudFront::Distribution")
    config = distribution["DistributionConfig"]
    assert config["DefaultCacheBehavior"]["ViewerProtocolPolicy"] == "redirect-to-https"
    assert config["DefaultCacheBehavior"]["AllowedMethods"] == ["GET", "HEAD"]
    assert config["DefaultRootObject"] == "index.html"
    assert config["Logging"]["Prefix"] == "cloudfront/"


def test_responses_carry_a_strict_csp_and_the_security_headers(synthesized: Synthesized) -> None:
    template = synthesized.main("dev")
    policy_id, policy = _only(template, "AWS::CloudFront::ResponseHeadersPolicy")
    _, distribution = _only(template, "AWS::CloudFront::Distribution")
    assert distribution["DistributionConfig"]["DefaultCacheBehavior"]["ResponseHeadersPolicyId"] == {"Ref": policy_id}
    security = policy["ResponseHeadersPolicyConfig"]["SecurityHeadersConfig"]
    csp = json.dumps(security["ContentSecurityPolicy"]["ContentSecurityPolicy"])
    for directive in ("default-src 'none'", "script-src 'self'", "style-src 'self'", "frame-ancestors 'none'",
                      "object-src 'none'", "base-uri 'none'"):
        assert directive in csp
    assert "unsafe-inline" not in csp and "unsafe-eval" not in csp and "*" not in csp.replace("Fn::", "")
    assert "amazoncognito.com" in csp and "execute-api" in csp  # connect-src: the API, its socket, Cognito
    assert security["StrictTransportSecurity"]["AccessControlMaxAgeSec"] >= 31536000
    assert security["FrameOptions"]["FrameOption"] == "DENY"
    assert security["ReferrerPolicy"]["ReferrerPolicy"] == "no-referrer"
    assert security["ContentTypeOptions"]["Override"] is True


def test_the_public_client_signs_in_through_the_hosted_ui_with_the_code_grant(synthesized: Synthesized) -> None:
    template = synthesized.main("dev")
    clients = list(resources(template, "AWS::Cognito::UserPoolClient").values())
    # one hosted-UI client (the page's, which the WebSocket authorizer also accepts); dev's smoke-test client
    # signs in with the admin password flow and has no OAuth flow at all
    (hosted,) = [client for client in clients if client.get("AllowedOAuthFlowsUserPoolClient")]
    assert all(not client.get("AllowedOAuthFlows") for client in clients if client is not hosted)
    assert hosted["AllowedOAuthFlows"] == ["code"]  # never implicit
    assert hosted["AllowedOAuthFlowsUserPoolClient"] is True
    assert hosted["GenerateSecret"] is False
    assert set(hosted["AllowedOAuthScopes"]) == {"openid", "email", "profile"}
    assert "DomainName" in json.dumps(hosted["CallbackURLs"])  # the distribution's own https address
    assert hosted["SupportedIdentityProviders"] == ["COGNITO"]
    _, domain = _only(template, "AWS::Cognito::UserPoolDomain")
    assert "Domain" in domain
    groups = [g["GroupName"] for g in resources(template, "AWS::Cognito::UserPoolGroup").values()]
    assert groups == [ADMIN_GROUP]


def test_the_files_and_config_are_deployed_to_the_bucket_and_invalidated(synthesized: Synthesized) -> None:
    template = synthesized.main("dev")
    deployments = [r for r in template["Resources"].values() if r["Type"] == "Custom::CDKBucketDeployment"]
    (deployment,) = deployments
    properties = deployment["Properties"]
    assert len(properties["SourceObjectKeys"]) == 2  # the web folder and config.json
    assert properties["DistributionPaths"] == ["/*"] and properties["Prune"] is True
    config = json.dumps(properties["SourceMarkers"])  # config.json's deploy-time values
    for value in ("ApiUserPoolWebClient", "HostedUi", "ApiRestApi", "ApiWebSocketApi", "WebDistribution"):
        assert value in config


def test_config_json_names_the_websocket_url_the_page_streams_from(synthesized: Synthesized) -> None:
    """web/socket.js asks over config.json's `websocket_url` (wss://<api>.execute-api.<region>.../<stage>)."""
    template = synthesized.main("dev")
    (deployment,) = [r for r in template["Resources"].values() if r["Type"] == "Custom::CDKBucketDeployment"]
    markers = {k: v for m in deployment["Properties"]["SourceMarkers"] for k, v in m.items()}
    # the asset is config.json with each deploy-time value left as a bare marker, filled in at deployment
    (config,) = [p.read_text() for p in synthesized.outdir.glob("asset.*/config.json")]
    marker = re.search(r'"websocket_url":(<<marker:0xbaba:\d+>>)', config)
    assert marker is not None, config
    scheme, api, rest = markers[marker.group(1)]["Fn::Join"][1]  # a JSON string: the quotes are in the parts
    assert scheme == '"wss://' and api["Ref"].startswith("ApiWebSocketApi")
    assert rest.startswith(".execute-api.") and rest.endswith('.amazonaws.com/v1"')
