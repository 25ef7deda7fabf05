"""PHI at rest: a session's clinical context is encrypted by both SessionStore adapters (envelope encryption:
KMS data keys on AWS, a 0600 key file locally), and no planted name or MRN reaches the table, file or WAL."""

from __future__ import annotations

import json
import stat
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from voiceassist.adapters.aws.dynamodb_tables import SESSIONS
from voiceassist.adapters.aws.envelope_cipher import PREFIX
from voiceassist.adapters.local.key_file_cipher import KEY_FILE_NAME, key_file_cipher
from voiceassist.adapters.local.sqlite_db import SqliteDatabase
from voiceassist.adapters.local.sqlite_sessions import SqliteSessionStore
from voiceassist.errors import DependencyError, InvalidInput, NotFound
from voiceassist.models import Session

if TYPE_CHECKING:
    from tests.contract.conftest import FakeClock, Stores

NAME = "Zebulon Quartermaine"
MRN = "MRN 48213977"
CONTEXT = f"Patient {NAME}, {MRN}, DOB 1961-04-02: on warfarin, eGFR 38"


def _session(clock: FakeClock, session_id: str = "ses_phi") -> Session:
    return Session(session_id=session_id, user_id="dr-a", clinical_context=CONTEXT, created_at=clock.now,
                   expires_at=clock.now + timedelta(hours=1))


def test_the_clinical_context_reads_back_decrypted(stores: Stores, clock: FakeClock) -> None:
    stores.sessions.create(_session(clock))
    assert stores.sessions.get("ses_phi").clinical_context == CONTEXT


def test_a_session_without_context_stays_without(stores: Stores, clock: FakeClock) -> None:
    stores.sessions.create(_session(clock).model_copy(update={"clinical_context": None}))
    assert stores.sessions.get("ses_phi").clinical_context is None


def _raw_bytes(directory: Path) -> bytes:
    return b"".join(path.read_bytes() for path in directory.iterdir() if path.name.startswith("voiceassist"))


def test_no_planted_name_or_mrn_in_the_sqlite_file_or_its_wal(sqlite_stores: Stores, clock: FakeClock,
                                                             tmp_path: Path) -> None:
    sqlite_stores.sessions.create(_session(clock))
    assert sqlite_stores.sessions.get("ses_phi").clinical_context == CONTEXT
    files = {path.name for path in tmp_path.iterdir()}
    assert "voiceassist.sqlite3-wal" in files  # the WAL is read too, not only the main file
    raw = _raw_bytes(tmp_path)
    assert PREFIX.encode() in raw
    for planted in (NAME, MRN, "48213977", "warfarin"):
        assert planted.encode() not in raw


def test_no_planted_name_or_mrn_in_the_dynamodb_item(dynamodb_stores: Stores, dynamodb_client: Any,
                                                     clock: FakeClock, table_names: dict[str, str]) -> None:
    dynamodb_stores.sessions.create(_session(clock))
    items = dynamodb_client.scan(TableName=table_names[SESSIONS])["Items"]
    raw = json.dumps(items)
    assert PREFIX in raw
    for planted in (NAME, MRN, "48213977", "warfarin"):
        assert planted not in raw


def test_a_token_copied_onto_another_session_does_not_decrypt(sqlite_stores: Stores, clock: FakeClock,
                                                              tmp_path: Path) -> None:
    cipher = key_file_cipher(tmp_path)
    token = cipher.encrypt(CONTEXT, context="ses_phi")
    assert cipher.decrypt(token, context="ses_phi") == CONTEXT
    with pytest.raises(InvalidInput):
        cipher.decrypt(token, context="ses_other")
    with pytest.raises(InvalidInput):
        cipher.decrypt(token[:-4] + "AAAA", context="ses_phi")


def test_the_kms_cipher_binds_the_record_too(kms_cipher: Any) -> None:
    token = kms_cipher.encrypt(CONTEXT, context="ses_phi")
    assert NAME not in token
    assert kms_cipher.decrypt(token, context="ses_phi") == CONTEXT
    with pytest.raises(DependencyError):  # KMS refuses the data key for another encryption context
        kms_cipher.decrypt(token, context="ses_other")


def test_each_value_gets_its_own_data_key(tmp_path: Path) -> None:
    cipher = key_file_cipher(tmp_path)
    first, second = (cipher.encrypt(CONTEXT, context="ses_phi") for _ in range(2))
    assert first.split(".")[1] != second.split(".")[1]


def test_the_key_file_is_created_on_first_use_owner_only(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    cipher = key_file_cipher(data_dir)
    assert not (data_dir / KEY_FILE_NAME).exists()
    token = cipher.encrypt("x", context="ses_1")
    key_file = data_dir / KEY_FILE_NAME
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    assert len(key_file.read_bytes()) == 32
    assert key_file_cipher(data_dir).decrypt(token, context="ses_1") == "x"  # a restart reads the same key


def test_a_key_file_others_can_read_is_refused(tmp_path: Path) -> None:
    key_file_cipher(tmp_path).encrypt("x", context="ses_1")
    (tmp_path / KEY_FILE_NAME).chmod(0o644)
    with pytest.raises(InvalidInput, match="owner only"):
        key_file_cipher(tmp_path).encrypt("x", context="ses_1")


def test_a_store_without_the_cipher_cannot_read_an_encrypted_context(tmp_path: Path, clock: FakeClock) -> None:
    database = SqliteDatabase(tmp_path / "voiceassist.sqlite3")
    SqliteSessionStore(database, clock=clock, cipher=key_file_cipher(tmp_path)).create(_session(clock))
    with pytest.raises(InvalidInput):
        SqliteSessionStore(database, clock=clock).get("ses_phi")


def test_a_context_stored_before_encryption_still_reads(tmp_path: Path, clock: FakeClock) -> None:
    database = SqliteDatabase(tmp_path / "voiceassist.sqlite3")
    SqliteSessionStore(database, clock=clock).create(_session(clock))
    encrypted = SqliteSessionStore(database, clock=clock, cipher=key_file_cipher(tmp_path))
    assert encrypted.get("ses_phi").clinical_context == CONTEXT


class KeyServiceDown:
    def encrypt(self, plaintext: str, *, context: str) -> str:
        raise DependencyError("the key service could not generate data key: EndpointConnectionError")

    def decrypt(self, token: str, *, context: str) -> str:
        raise DependencyError("the key service could not decrypt: EndpointConnectionError")


def test_with_the_key_service_down_nothing_is_stored_at_all(tmp_path: Path, clock: FakeClock) -> None:
    """Fail closed: no session is created rather than one with its context in the clear."""
    database = SqliteDatabase(tmp_path / "voiceassist.sqlite3")
    store = SqliteSessionStore(database, clock=clock, cipher=KeyServiceDown())
    with pytest.raises(DependencyError):
        store.create(_session(clock))
    with pytest.raises(NotFound):
        SqliteSessionStore(database, clock=clock).get("ses_phi")
    raw = _raw_bytes(tmp_path)
    assert NAME.encode() not in raw and MRN.encode() not in raw


def test_with_kms_refusing_the_dynamodb_store_fails_closed(
        dynamodb_client: Any, clock: FakeClock, kms_cipher: Any, boto_session: Any, table_names: dict[str, str]
) -> None:
    from botocore.stub import Stubber

    from voiceassist.adapters.aws.dynamodb_sessions import DynamoDbSessionStore
    from voiceassist.adapters.aws.envelope_cipher import EnvelopeCipher, KmsDataKeys

    DynamoDbSessionStore(table_names[SESSIONS], client=dynamodb_client, clock=clock,
                         cipher=kms_cipher).create(_session(clock))
    kms = boto_session.client("kms")
    store = DynamoDbSessionStore(table_names[SESSIONS], client=dynamodb_client, clock=clock,
                                 cipher=EnvelopeCipher(KmsDataKeys("alias/environment", client=kms)))
    with Stubber(kms) as stub:
        stub.add_client_error("generate_data_key", "KMSInvalidStateException", "the key is disabled")
        stub.add_client_error("decrypt", "KMSInvalidStateException", "the key is disabled")
        with pytest.raises(DependencyError, match="key service"):
            store.create(_session(clock, "ses_two"))
        with pytest.raises(DependencyError, match="key service"):  # nor is the stored value returned in any form
            store.get("ses_phi")
    assert "ses_two" not in json.dumps(dynamodb_client.scan(TableName=table_names[SESSIONS])["Items"])


class _SealedCipher:
    """A FieldCipher whose keys are out of reach (no KMS, no cryptography): encrypting works, opening fails."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def encrypt(self, plaintext: str, *, context: str) -> str:
        return str(self._inner.encrypt(plaintext, context=context))

    def decrypt(self, token: str, *, context: str) -> str:
        raise DependencyError("the data keys are out of reach")


def test_the_messages_read_without_opening_the_clinical_context(dynamodb_stores: Stores, dynamodb_client: Any,
                                                                kms_cipher: Any, clock: FakeClock,
                                                                table_names: dict[str, str]) -> None:
    """query_rank reads the last question without the auth layer or KMS (constants/functions.py
    reads_session_messages_only): listing messages must never decrypt, while get() still does."""
    from voiceassist.adapters.aws.dynamodb_sessions import DynamoDbSessionStore
    from voiceassist.models import Message

    store = DynamoDbSessionStore(table_names[SESSIONS], client=dynamodb_client, clock=clock,
                                 cipher=_SealedCipher(kms_cipher))
    store.create(_session(clock))
    writer = dynamodb_stores.sessions  # adding a message opens the session: the writers carry the auth layer
    writer.add_message(Message(session_id="ses_phi", role="user", content="metformin dose?",
                               created_at=clock.now))
    assert [m.content for m in store.messages("ses_phi")] == ["metformin dose?"]
    with pytest.raises(DependencyError):
        store.get("ses_phi")
    clock.advance(hours=2)
    with pytest.raises(NotFound):
        store.messages("ses_phi")  # an expired session still reads as missing
