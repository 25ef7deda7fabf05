"""Store fixtures for the contract suites: every test runs once per adapter of its port.

The SQLite adapters use a database file under tmp_path; the DynamoDB and S3 adapters run under moto, with
fake credentials set per test (never at import) so no test can reach a real AWS account.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import boto3
import pytest
from moto import mock_aws

from voiceassist.adapters.aws.dynamodb_audit import DynamoDbAuditLog
from voiceassist.adapters.aws.dynamodb_documents import DynamoDbDocumentStore
from voiceassist.adapters.aws.dynamodb_jobs import DynamoDbJobStore
from voiceassist.adapters.aws.dynamodb_sessions import DynamoDbSessionStore
from voiceassist.adapters.aws.dynamodb_state import DynamoDbKeyValueState
from voiceassist.adapters.aws.dynamodb_tables import AUDIT, BILLING, DOCUMENTS, JOBS, SESSIONS, STATE, create_tables
from voiceassist.adapters.aws.envelope_cipher import EnvelopeCipher, KmsDataKeys
from voiceassist.adapters.aws.s3_blobs import S3BlobStore
from voiceassist.adapters.local.folder_blobs import FolderBlobStore
from voiceassist.adapters.local.key_file_cipher import key_file_cipher
from voiceassist.adapters.local.sqlite_audit import SqliteAuditLog
from voiceassist.adapters.local.sqlite_db import SqliteDatabase
from voiceassist.adapters.local.sqlite_documents import SqliteDocumentStore
from voiceassist.adapters.local.sqlite_jobs import SqliteJobStore
from voiceassist.adapters.local.sqlite_sessions import SqliteSessionStore
from voiceassist.adapters.local.sqlite_state import SqliteKeyValueState
from voiceassist.ports import AuditLog, BlobStore, DocumentStore, JobStore, KeyValueState, SessionStore

REGION = "us-east-1"
BUCKET = "voiceassist-contract-documents"
TABLE_NAMES = {
    DOCUMENTS: "contract-documents",
    JOBS: "contract-jobs",
    SESSIONS: "contract-sessions",
    AUDIT: "contract-audit",
    STATE: "contract-state",
    BILLING: "contract-billing",
}


class FakeClock:
    """The stores' notion of now, moved by the test (TTL expiry without sleeping)."""

    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)


@dataclass
class Stores:
    documents: DocumentStore
    jobs: JobStore
    sessions: SessionStore
    audit: AuditLog
    state: KeyValueState


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(datetime(2025, 3, 1, 9, 30, tzinfo=UTC))


@pytest.fixture(scope="session")
def boto_session() -> boto3.Session:
    """One session for every test: it caches the service models, so each test's client is cheap."""
    return boto3.Session(region_name=REGION)


@pytest.fixture
def aws(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for name in ("AWS_PROFILE", "AWS_SESSION_TOKEN", "AWS_ENDPOINT_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.setenv("AWS_DEFAULT_REGION", REGION)
    monkeypatch.setenv("AWS_REGION", REGION)
    with mock_aws():
        yield


@pytest.fixture
def dynamodb_client(aws: None, boto_session: boto3.Session) -> Any:
    client = boto_session.client("dynamodb")
    create_tables(client, TABLE_NAMES)
    return client


@pytest.fixture
def table_names() -> dict[str, str]:
    return dict(TABLE_NAMES)


@pytest.fixture
def sqlite_stores(tmp_path: Path, clock: FakeClock) -> Stores:
    database = SqliteDatabase(tmp_path / "voiceassist.sqlite3")
    return Stores(
        documents=SqliteDocumentStore(database),
        jobs=SqliteJobStore(database),
        sessions=SqliteSessionStore(database, clock=clock, cipher=key_file_cipher(tmp_path)),
        audit=SqliteAuditLog(database),
        state=SqliteKeyValueState(database, clock=clock),
    )


@pytest.fixture
def kms_cipher(aws: None, boto_session: boto3.Session) -> EnvelopeCipher:
    """The AWS FieldCipher on a moto KMS key (the environment key's stand-in)."""
    kms = boto_session.client("kms")
    key_id = kms.create_key(Description="environment key")["KeyMetadata"]["KeyId"]
    return EnvelopeCipher(KmsDataKeys(key_id, client=kms))


@pytest.fixture
def dynamodb_stores(dynamodb_client: Any, clock: FakeClock, kms_cipher: EnvelopeCipher) -> Stores:
    return Stores(
        documents=DynamoDbDocumentStore(TABLE_NAMES[DOCUMENTS], client=dynamodb_client),
        jobs=DynamoDbJobStore(TABLE_NAMES[JOBS], client=dynamodb_client),
        sessions=DynamoDbSessionStore(TABLE_NAMES[SESSIONS], client=dynamodb_client, clock=clock,
                                      cipher=kms_cipher),
        audit=DynamoDbAuditLog(TABLE_NAMES[AUDIT], client=dynamodb_client),
        state=DynamoDbKeyValueState(TABLE_NAMES[STATE], client=dynamodb_client, clock=clock),
    )


@pytest.fixture(params=["sqlite", "dynamodb"])
def stores(request: pytest.FixtureRequest) -> Stores:
    """Each adapter set in turn; the DynamoDB one starts moto only when its turn comes."""
    stores: Stores = request.getfixturevalue(f"{request.param}_stores")
    return stores


@pytest.fixture
def bucket_name() -> str:
    return BUCKET


@pytest.fixture
def s3_client(aws: None, boto_session: boto3.Session) -> Any:
    client = boto_session.client("s3")
    client.create_bucket(Bucket=BUCKET)
    return client


@pytest.fixture(params=["folder", "s3"])
def blobs(request: pytest.FixtureRequest, tmp_path: Path) -> BlobStore:
    if request.param == "folder":
        return FolderBlobStore(tmp_path / "blobs")
    return S3BlobStore(BUCKET, client=request.getfixturevalue("s3_client"))
