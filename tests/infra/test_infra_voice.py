"""Voice on AWS (issue 29): the API function alone may start Transcribe Medical jobs of its own name, use the
voice bucket's transient prefix and call Polly; Transcribe and Polly are reached through
interface endpoints with private DNS (recordings never cross the NAT); the voice bucket is encrypted with the
environment key and expires what a failed delete left; API Gateway passes audio through as binary; and the
function gets the settings the AWS composition builds its speech adapters from."""

from __future__ import annotations

import json
from typing import Any

import pytest
from conftest import Synthesized, app_functions, resources

from infra.config import ENVIRONMENT_NAMES
from voiceassist.constants.functions import FUNCTIONS, Access
from voiceassist.settings import (
    ENV_POLLY_ENGINE,
    ENV_POLLY_VOICE,
    ENV_TRANSCRIBE_TYPE,
    ENV_VOICE_BUCKET,
    Runtime,
    settings_from_env,
)

SPEAKERS = {spec.name for spec in FUNCTIONS if Access.VOICE in spec.access}
VOICE_ACTIONS = ("transcribe:StartMedicalTranscriptionJob", "polly:SynthesizeSpeech", "s3:PutObject")


def _listed(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def _roles_with(template: dict[str, Any], action: str) -> dict[str, list[Any]]:
    """role -> the resources of the statements that allow `action`."""
    found: dict[str, list[Any]] = {}
    for policy in resources(template, "AWS::IAM::Policy").values():
        for statement in policy["PolicyDocument"]["Statement"]:
            if action in _listed(statement["Action"]):
                for role in policy["Roles"]:
                    found.setdefault(role["Ref"], []).extend(_listed(statement["Resource"]))
    return found


def test_the_catalogue_gives_voice_to_the_api_function_only() -> None:
    assert {"api"} == SPEAKERS


@pytest.mark.parametrize("env", ENVIRONMENT_NAMES)
def test_only_the_api_function_may_transcribe_speak_and_use_the_voice_prefix(synthesized: Synthesized,
                                                                             env: str) -> None:
    template = synthesized.main(env)
    api_role = app_functions(synthesized, env)["api"]["Role"]["Fn::GetAtt"][0]
    transcribe = _roles_with(template, "transcribe:StartMedicalTranscriptionJob")
    assert set(transcribe) == {api_role}
    (job_arn,) = transcribe[api_role]
    assert "medical-transcription-job/voiceassist-*" in json.dumps(job_arn)  # its own jobs, not every job
    assert set(_roles_with(template, "polly:SynthesizeSpeech")) == {api_role}
    voice_objects = [resource for role, found in _roles_with(template, "s3:DeleteObject").items()
                     for resource in found if "StorageVoice" in json.dumps(resource)]
    assert voice_objects and all(json.dumps(r).endswith('"/voice/*"]]}') for r in voice_objects)
    assert set(_roles_with(template, "transcribe:DeleteMedicalTranscriptionJob")) == {api_role}


@pytest.mark.parametrize("env", ENVIRONMENT_NAMES)
def test_speech_services_are_reached_through_interface_endpoints_with_private_dns(synthesized: Synthesized,
                                                                                  env: str) -> None:
    endpoints = resources(synthesized.main(env), "AWS::EC2::VPCEndpoint").values()
    for service in (".transcribe", ".polly"):
        found = [e for e in endpoints if json.dumps(e["ServiceName"]).replace('"', "").endswith(service + "]]}")
                 or json.dumps(e["ServiceName"]).endswith(service + '"')]
        assert len(found) == 1, service
        assert found[0]["VpcEndpointType"] == "Interface" and found[0]["PrivateDnsEnabled"] is True


@pytest.mark.parametrize("env", ENVIRONMENT_NAMES)
def test_the_voice_bucket_is_encrypted_with_the_environment_key_and_expires_leftovers(synthesized: Synthesized,
                                                                                      env: str) -> None:
    buckets = {k: v for k, v in resources(synthesized.main(env), "AWS::S3::Bucket").items() if "Voice" in k}
    (bucket,) = buckets.values()
    (rule,) = bucket["BucketEncryption"]["ServerSideEncryptionConfiguration"]
    assert rule["ServerSideEncryptionByDefault"]["SSEAlgorithm"] == "aws:kms"
    (lifecycle,) = [r for r in bucket["LifecycleConfiguration"]["Rules"] if "Prefix" not in r]  # the whole bucket
    assert lifecycle["ExpirationInDays"] == 1 and lifecycle["NoncurrentVersionExpiration"]["NoncurrentDays"] == 1
    assert "NotificationConfiguration" not in bucket  # a recording never starts an ingestion


@pytest.mark.parametrize("env", ENVIRONMENT_NAMES)
def test_the_rest_api_passes_audio_through_as_binary(synthesized: Synthesized, env: str) -> None:
    (api,) = resources(synthesized.main(env), "AWS::ApiGateway::RestApi").values()
    assert "audio/*" in api["BinaryMediaTypes"]


@pytest.mark.parametrize("env", ENVIRONMENT_NAMES)
def test_the_api_function_gets_settings_for_its_speech_adapters(synthesized: Synthesized, env: str) -> None:
    functions = app_functions(synthesized, env)
    variables = functions["api"]["Environment"]["Variables"]
    assert {ENV_VOICE_BUCKET, ENV_TRANSCRIBE_TYPE, ENV_POLLY_VOICE, ENV_POLLY_ENGINE} <= set(variables)
    plain = {k: v if isinstance(v, str) else "resolved-at-deploy" for k, v in variables.items()}
    settings = settings_from_env(plain)
    assert settings.runtime is Runtime.AWS and settings.voice_bucket and settings.transcribe_type == "DICTATION"
    others = [name for name in functions if name != "api"]
    assert all(ENV_VOICE_BUCKET not in functions[n].get("Environment", {}).get("Variables", {}) for n in others)
