"""Voice on AWS (issue 29): the API function (the voice routes) and the stream function (the WebSocket's voice
messages) alone may start Transcribe Medical jobs of their own name and use the voice bucket's transient prefix
with the environment key, and only the API function calls Polly; Transcribe and Polly are reached through
interface endpoints with private DNS (recordings never cross the NAT; tests/infra/test_infra_reachability.py
proves every function's path to them); the voice bucket is encrypted with the environment key and expires what
a failed delete left; API Gateway passes audio through as binary; and the functions get the settings the AWS
composition builds their speech adapters from."""

from __future__ import annotations

import json
from typing import Any

import pytest
from conftest import Synthesized, app_functions, resources

from infra.config import ENVIRONMENT_NAMES
from voiceassist.constants.functions import FUNCTIONS, Access
from voiceassist.settings import (
    ENV_DATA_KEY_ID,
    ENV_POLLY_ENGINE,
    ENV_POLLY_VOICE,
    ENV_TRANSCRIBE_TYPE,
    ENV_VOICE_BUCKET,
    Runtime,
    settings_from_env,
)

SPEAKERS = {spec.name for spec in FUNCTIONS if Access.VOICE in spec.access}
TRANSCRIBERS = {spec.name for spec in FUNCTIONS if {Access.VOICE, Access.TRANSCRIBE} & spec.access}
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


def test_the_catalogue_gives_voice_to_the_api_function_and_transcription_to_the_stream_function() -> None:
    assert {"api"} == SPEAKERS and {"api", "stream"} == TRANSCRIBERS


@pytest.mark.parametrize("env", ENVIRONMENT_NAMES)
def test_only_the_voice_functions_may_transcribe_and_use_the_voice_prefix_and_only_the_api_speaks(
        synthesized: Synthesized, env: str) -> None:
    template = synthesized.main(env)
    functions = app_functions(synthesized, env)
    api_role, stream_role = (functions[name]["Role"]["Fn::GetAtt"][0] for name in ("api", "stream"))
    transcribe = _roles_with(template, "transcribe:StartMedicalTranscriptionJob")
    assert set(transcribe) == {api_role, stream_role}
    # starting has no resource type (tests/infra/test_infra_voice_aws_rules.py); reading and deleting name its jobs
    readers = _roles_with(template, "transcribe:GetMedicalTranscriptionJob")
    assert set(readers) == {api_role, stream_role}
    for role in (api_role, stream_role):
        (job_arn,) = readers[role]
        assert "medical-transcription-job/voiceassist-*" in json.dumps(job_arn)  # its own jobs, not every job
    assert set(_roles_with(template, "transcribe:DeleteMedicalTranscriptionJob")) == {api_role, stream_role}
    assert set(_roles_with(template, "polly:SynthesizeSpeech")) == {api_role}
    for action in ("s3:PutObject", "s3:GetObject", "s3:DeleteObject"):
        voice_objects = {role: [r for r in found if "StorageVoice" in json.dumps(r)]
                         for role, found in _roles_with(template, action).items()}
        voice_objects = {role: found for role, found in voice_objects.items() if found}
        assert set(voice_objects) == {api_role, stream_role}, action
        assert all(json.dumps(r).endswith('"/voice/*"]]}') for found in voice_objects.values() for r in found)
    assert not _roles_with(template, "iam:PassRole").keys() & {api_role, stream_role}  # no data-access role


@pytest.mark.parametrize("env", ENVIRONMENT_NAMES)
def test_the_stream_function_may_use_the_environment_key_for_the_voice_objects(synthesized: Synthesized,
                                                                               env: str) -> None:
    template = synthesized.main(env)
    stream_role = app_functions(synthesized, env)["stream"]["Role"]["Fn::GetAtt"][0]
    for action in ("kms:Decrypt", "kms:GenerateDataKey*", "kms:Encrypt"):
        assert stream_role in _roles_with(template, action), action


def test_the_stream_function_has_time_for_the_end_message_past_api_gateways_29_seconds() -> None:
    """voice.end waits for chunks in flight, runs the Transcribe Medical job to its limit and then the query
    (bounded by the api's timeout): API Gateway's 29 s integration limit ends only its wait for the reply."""
    from voiceassist.adapters.aws.transcribe_medical_stt import TranscribeMedicalSpeechToText
    from voiceassist.constants.functions import FUNCTIONS_BY_NAME
    from voiceassist.speech.chunked import END_WAIT_SECONDS

    job_limit = TranscribeMedicalSpeechToText(bucket="b", kms_key_id=None)._max_wait
    query_limit = FUNCTIONS_BY_NAME["api"].timeout_seconds or 0
    assert (FUNCTIONS_BY_NAME["stream"].timeout_seconds or 0) >= END_WAIT_SECONDS + job_limit + query_limit + 10


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
    others = [name for name in functions if name not in TRANSCRIBERS]
    assert all(ENV_VOICE_BUCKET not in functions[n].get("Environment", {}).get("Variables", {}) for n in others)


@pytest.mark.parametrize("env", ENVIRONMENT_NAMES)
def test_the_stream_function_gets_the_voice_bucket_and_transcribe_settings_but_no_polly(
        synthesized: Synthesized, env: str) -> None:
    variables = app_functions(synthesized, env)["stream"]["Environment"]["Variables"]
    assert {ENV_VOICE_BUCKET, ENV_TRANSCRIBE_TYPE, ENV_DATA_KEY_ID} <= set(variables)
    assert not {ENV_POLLY_VOICE, ENV_POLLY_ENGINE} & set(variables)
    plain = {k: v if isinstance(v, str) else "resolved-at-deploy" for k, v in variables.items()}
    settings = settings_from_env(plain)
    assert settings.voice_bucket and settings.data_key_id and settings.state_table  # chunks, their key, the state
