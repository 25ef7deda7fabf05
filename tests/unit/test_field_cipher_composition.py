"""The composition root always gives the session store its FieldCipher: a key file locally, KMS on AWS."""

from __future__ import annotations

from pathlib import Path

import pytest

from voiceassist.adapters.aws.envelope_cipher import EnvelopeCipher
from voiceassist.adapters.local.key_file_cipher import KEY_FILE_NAME
from voiceassist.composition import Dependencies
from voiceassist.constants.environment import ENV_DATA_KEY_ID
from voiceassist.errors import InvalidInput
from voiceassist.models import Session
from voiceassist.settings import Runtime, Settings, settings_from_env

MRN = "MRN 55120943"


def test_the_local_session_store_encrypts_with_the_data_dir_key_file(tmp_path: Path) -> None:
    deps = Dependencies(Settings(data_dir=tmp_path / "data"))
    deps.sessions.create(Session(session_id="ses_1", user_id="u", clinical_context=f"{MRN}, on apixaban"))
    assert deps.sessions.get("ses_1").clinical_context == f"{MRN}, on apixaban"
    assert (tmp_path / "data" / KEY_FILE_NAME).is_file()
    raw = b"".join(p.read_bytes() for p in (tmp_path / "data").rglob("*.sqlite3*"))
    assert raw and MRN.encode() not in raw and b"apixaban" not in raw


def test_the_aws_cipher_needs_the_data_key_id() -> None:
    deps = Dependencies(Settings(runtime=Runtime.AWS, sessions_table="t"))
    with pytest.raises(InvalidInput, match=ENV_DATA_KEY_ID):
        _ = deps.field_cipher  # type: ignore[attr-defined]
    configured = Dependencies(settings_from_env({"VOICEASSIST_RUNTIME": "local", ENV_DATA_KEY_ID: "alias/k"}))
    assert configured.settings.data_key_id == "alias/k"
    aws = Dependencies(Settings(runtime=Runtime.AWS, sessions_table="t", data_key_id="alias/k"))
    assert isinstance(aws.field_cipher, EnvelopeCipher)  # type: ignore[attr-defined]
