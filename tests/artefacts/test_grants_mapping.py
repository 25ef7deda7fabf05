"""The recorded-call mapping (grants.py): the calls a detector makes map to the grant infra gives for them."""

from __future__ import annotations

import boto3
from botocore.stub import Stubber

from tests.artefacts.grants import NOT_EXERCISED, accesses_used
from voiceassist.constants import environment as names
from voiceassist.constants.functions import FUNCTIONS, Access

ENV = {getattr(names, n): f"value-of-{n}" for n in dir(names) if n.startswith("ENV_")}


def test_a_recorded_detect_phi_call_needs_the_comprehend_medical_grant() -> None:
    client = boto3.client("comprehendmedical", region_name="us-east-1", aws_access_key_id="test",
                          aws_secret_access_key="test")
    # What aws_calls.py records for the adapter's call: botocore's service name and operation, no resource.
    service = client.meta.service_model.service_name
    operation = client.meta.service_model.operation_model("DetectPHI").name
    with Stubber(client) as stub:
        stub.add_response("detect_phi", {"Entities": [], "ModelVersion": "0.1"}, {"Text": "chest pain"})
        client.detect_phi(Text="chest pain")
    assert accesses_used([(service, operation, "")], ENV) == ({Access.PHI_COMPREHEND_MEDICAL}, [])
    assert accesses_used([(service, "DetectEntitiesV2", "")], ENV)[1]  # anything else stays unmapped


def test_every_function_granted_comprehend_medical_is_excused_in_the_canned_run() -> None:
    granted = {spec.name for spec in FUNCTIONS if Access.PHI_COMPREHEND_MEDICAL in spec.access}
    excused = {name for name, access in NOT_EXERCISED if access is Access.PHI_COMPREHEND_MEDICAL}
    assert granted == excused


def test_a_recorded_converse_call_on_the_configured_model_needs_the_bedrock_grant() -> None:
    model = ENV[names.ENV_BEDROCK_MODEL_ID]
    for operation in ("Converse", "ConverseStream"):
        assert accesses_used([("bedrock-runtime", operation, model)], ENV) == ({Access.BEDROCK_INVOKE}, [])
    # another model than the one configured (and granted) stays unmapped: AWS would deny it
    assert accesses_used([("bedrock-runtime", "Converse", "meta.llama3-3-70b-instruct-v1:0")], ENV)[1]


def test_every_function_granted_bedrock_is_excused_in_the_canned_run() -> None:
    granted = {spec.name for spec in FUNCTIONS if Access.BEDROCK_INVOKE in spec.access}
    excused = {name for name, access in NOT_EXERCISED if access is Access.BEDROCK_INVOKE}
    assert granted == excused == {"query_generate", "query_tools", "api", "stream"}


def test_the_field_ciphers_key_use_maps_to_the_table_it_seals_for() -> None:
    """A session's context (the sessions table's grant carries the key's use) or, where no session is touched, a
    pending action's call in the state table (mcp proposing a calendar event: tools/actions.py)."""
    kms = [("kms", "GenerateDataKey", ENV[names.ENV_DATA_KEY_ID]), ("kms", "Decrypt", ENV[names.ENV_DATA_KEY_ID])]
    state = ("dynamodb", "PutItem", ENV[names.ENV_STATE_TABLE])
    session = ("dynamodb", "GetItem", ENV[names.ENV_SESSIONS_TABLE])
    assert accesses_used([*kms, state], ENV) == ({Access.STATE_WRITE}, [])
    assert accesses_used([*kms, state, session], ENV) == ({Access.STATE_WRITE, Access.SESSIONS_READ}, [])
    assert accesses_used(kms, ENV) == ({Access.SESSIONS_READ}, [])
