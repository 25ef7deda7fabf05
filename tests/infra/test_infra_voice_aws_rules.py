"""Voice on AWS against AWS's own rules, not our model of them (issue 29; docs/decisions/0030-deployable-on-aws-
rules.md, "Voice over the WebSocket"):

- IAM: the Service Authorization Reference for Amazon Transcribe
  (https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazontranscribe.html) gives
  StartMedicalTranscriptionJob no resource type (its Resource must be "*"; an ARN there matches nothing and the call
  is denied) and the condition keys transcribe:OutputBucketName, transcribe:OutputKey and
  transcribe:OutputEncryptionKMSKeyId ("provided in the form of a KMS key ARN"); Get/DeleteMedicalTranscriptionJob
  require the medicaltranscriptionjob resource, arn:${Partition}:transcribe:${Region}:${Account}:
  medical-transcription-job/${JobName}.
- API Gateway's WebSocket quotas
  (https://docs.aws.amazon.com/apigateway/latest/developerguide/apigateway-execution-service-websocket-limits-table.html):
  frames of at most 32 KB; a larger message must come as several frames, a larger frame closes the connection with
  1009. A page's WebSocket API cannot choose its frames, so a voice.chunk message must fit in one.
"""

from __future__ import annotations

import base64
import fnmatch
import json
import re
from typing import Any

import boto3
import botocore.session
import pytest
from botocore.stub import ANY, Stubber
from conftest import Synthesized, app_functions, resources

from infra.config import ENVIRONMENT_NAMES
from voiceassist.constants.environment import ENV_DATA_KEY_ID, ENV_VOICE_BUCKET

# action -> the ARN part of its resource type in the Service Authorization Reference (None: no resource type, "*")
TRANSCRIBE_RESOURCE_TYPES: dict[str, str | None] = {
    "transcribe:StartMedicalTranscriptionJob": None,
    "transcribe:GetMedicalTranscriptionJob": ":medical-transcription-job/",
    "transcribe:DeleteMedicalTranscriptionJob": ":medical-transcription-job/",
}
START_CONDITION_KEYS = {"transcribe:OutputBucketName", "transcribe:OutputKey", "transcribe:OutputEncryptionKMSKeyId"}
FRAME_BYTES = 32_000  # "32 KB", read as the smaller of 32,000 and 32,768 bytes


def _listed(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def _statements(template: dict[str, Any]) -> list[tuple[list[str], dict[str, Any]]]:
    """(roles, statement) for every statement of every IAM policy in the template."""
    return [([role["Ref"] for role in policy["Roles"]], statement)
            for policy in resources(template, "AWS::IAM::Policy").values()
            for statement in policy["PolicyDocument"]["Statement"]]


@pytest.mark.parametrize("env", ENVIRONMENT_NAMES)
def test_transcribe_grants_name_only_the_resource_types_aws_defines_for_each_action(synthesized: Synthesized,
                                                                                      env: str) -> None:
    granted = set()
    for _, statement in _statements(synthesized.main(env)):
        actions = [a for a in _listed(statement["Action"]) if str(a).startswith("transcribe:")]
        for action in actions:
            assert action in TRANSCRIBE_RESOURCE_TYPES, f"{action}: add its row from the reference"
            granted.add(action)
            arn_part = TRANSCRIBE_RESOURCE_TYPES[action]
            if arn_part is None:
                assert statement["Resource"] == "*", action
            else:
                assert all(arn_part in json.dumps(r) for r in _listed(statement["Resource"])), action
    assert granted == set(TRANSCRIBE_RESOURCE_TYPES)


def _start_statements(template: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {role: statement for roles, statement in _statements(template) for role in roles
            if "transcribe:StartMedicalTranscriptionJob" in _listed(statement["Action"])}


@pytest.mark.parametrize("env", ENVIRONMENT_NAMES)
def test_starting_a_job_is_pinned_to_the_voice_bucket_prefix_and_key_the_functions_send(synthesized: Synthesized,
                                                                                         env: str) -> None:
    """The conditions name exactly what the function's settings give the adapter (the same template values), so
    the request matches them, and a job writing anywhere else or unencrypted is denied."""
    functions = app_functions(synthesized, env)
    starters = _start_statements(synthesized.main(env))
    for name in ("api", "stream"):
        statement = starters[functions[name]["Role"]["Fn::GetAtt"][0]]
        variables = functions[name]["Environment"]["Variables"]
        condition = statement["Condition"]
        assert set(condition["StringEquals"]) | set(condition["StringLike"]) == START_CONDITION_KEYS
        assert condition["StringEquals"]["transcribe:OutputBucketName"] == variables[ENV_VOICE_BUCKET]
        assert condition["StringEquals"]["transcribe:OutputEncryptionKMSKeyId"] == variables[ENV_DATA_KEY_ID]
        assert condition["StringLike"]["transcribe:OutputKey"] == "voice/voiceassist-*"


def _sent_job_request() -> dict[str, Any]:
    from tests.stubs.voice_aws import BUCKET, KEY_ID
    from voiceassist.adapters.aws.transcribe_medical_stt import TranscribeMedicalSpeechToText

    def client(service: str) -> Any:
        return boto3.client(service, region_name="us-east-1", aws_access_key_id="t", aws_secret_access_key="t")

    transcribe, s3 = client("transcribe"), client("s3")
    sent: dict[str, Any] = {}
    transcribe.meta.events.register("provide-client-params.transcribe.StartMedicalTranscriptionJob",
                                    lambda params, **_: sent.update(params))
    with Stubber(transcribe) as stub_transcribe, Stubber(s3) as stub_s3:
        stub_s3.add_response("put_object", {}, None)
        stub_transcribe.add_client_error("start_medical_transcription_job", "BadRequestException")
        for _ in range(2):
            stub_s3.add_response("delete_object", {}, {"Bucket": BUCKET, "Key": ANY})
        adapter = TranscribeMedicalSpeechToText(bucket=BUCKET, kms_key_id=KEY_ID, transcribe=transcribe, s3=s3)
        with pytest.raises(Exception, match="BadRequestException"):
            adapter.transcribe(b"RIFF\x24\x00\x00\x00WAVEfmt " + bytes(100))
    return sent


def test_the_adapters_job_request_meets_the_grants_conditions_and_the_service_model() -> None:
    from tests.stubs.voice_aws import BUCKET, KEY_ID

    sent = _sent_job_request()
    assert sent["OutputBucketName"] == BUCKET and sent["OutputEncryptionKMSKeyId"] == KEY_ID  # the ARN, as IAM
    assert fnmatch.fnmatchcase(sent["OutputKey"], "voice/voiceassist-*")
    assert sent["MedicalTranscriptionJobName"].startswith("voiceassist-")
    model = botocore.session.get_session().get_service_model("transcribe")
    members = model.operation_model("StartMedicalTranscriptionJob").input_shape.members
    # botocore's parameter validation checks neither patterns nor enums; AWS does
    for name in ("OutputKey", "OutputEncryptionKMSKeyId", "MedicalTranscriptionJobName"):
        assert re.fullmatch(members[name].metadata["pattern"].lstrip("^").rstrip("$"), sent[name]), name
    for name in ("LanguageCode", "MediaFormat", "Specialty", "Type"):
        assert sent[name] in members[name].enum, name


def test_the_largest_voice_chunk_message_fits_in_one_websocket_frame() -> None:
    from voiceassist.speech.chunked import CHUNK_AUDIO_BYTES, MAX_CHUNKS

    audio = base64.b64encode(b"\xff" * CHUNK_AUDIO_BYTES).decode()
    message = json.dumps({"action": "voice.chunk", "seq": MAX_CHUNKS - 1, "audio": audio})
    assert len(message.encode()) <= FRAME_BYTES
    # and the pieces still carry the largest recording the stream accepts
    from voiceassist.speech import MAX_AUDIO_BYTES

    assert MAX_CHUNKS * CHUNK_AUDIO_BYTES >= MAX_AUDIO_BYTES
