"""A pending action (tools/actions.py) on both adapter sets: SQLite with the key-file cipher, DynamoDB with KMS
envelope encryption (moto). The tool call's arguments and the action's summary are sealed and bound to the
action's id: no raw argument is in the data folder or the table after a proposal, a sealed value moved onto
another action does not open (and runs nothing), and confirming still runs the proposed call."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import pytest

from tests.unit.tools.executor_fixtures import TEST_TOOLS, RuleDetector
from voiceassist.adapters.aws.dynamodb_tables import STATE
from voiceassist.adapters.local.key_file_cipher import key_file_cipher
from voiceassist.adapters.local.sqlite_db import SqliteDatabase
from voiceassist.adapters.local.sqlite_rate_limits import SqliteRateLimiter
from voiceassist.errors import DependencyError, InvalidInput
from voiceassist.models import ToolCall
from voiceassist.tools.actions import PendingActions
from voiceassist.tools.executor import Caller, ToolExecutor
from voiceassist.tools.registry import ToolEnvironment, ToolRegistry

if TYPE_CHECKING:
    from tests.contract.conftest import FakeClock, Stores

FILE_NAME = "John Smith discharge.txt"
RAW_WORDS = ("John Smith", "discharge.txt", "send a letter")
CLINICIAN = Caller(user_id="clinician-1")


class Audit:
    def __init__(self) -> None:
        self.records: list[Any] = []

    def append(self, record: Any) -> Any:
        self.records.append(record)
        return record


@pytest.fixture(params=["sqlite", "dynamodb"])
def setup(request: pytest.FixtureRequest, tmp_path: Path, clock: FakeClock) -> tuple[str, Stores, ToolExecutor]:
    stores: Stores = request.getfixturevalue(f"{request.param}_stores")
    cipher = key_file_cipher(tmp_path) if request.param == "sqlite" else request.getfixturevalue("kms_cipher")
    executor = ToolExecutor(ToolRegistry(TEST_TOOLS), env=ToolEnvironment(ctx=cast(Any, None)),
                            detector=RuleDetector(),
                            limiter=SqliteRateLimiter(SqliteDatabase(tmp_path / "limits.sqlite3"), clock=clock),
                            actions=PendingActions(stores.state, cipher=lambda: cipher, clock=clock),
                            audit=cast(Any, Audit()))
    return request.param, stores, executor


def _stored_text(kind: str, tmp_path: Path, request: pytest.FixtureRequest, table_names: dict[str, str]) -> str:
    """Everything at rest: each file of the local data folder (the database and its journal), or the table."""
    if kind == "sqlite":
        return "\n".join(path.read_bytes().decode("latin-1") for path in sorted(tmp_path.rglob("*"))
                         if path.is_file())
    client = request.getfixturevalue("dynamodb_client")
    return json.dumps(client.scan(TableName=table_names[STATE])["Items"])


def _propose(executor: ToolExecutor) -> str:
    proposed = executor.execute(ToolCall(name="send_letter", arguments={"text": FILE_NAME}), CLINICIAN)
    assert proposed.status == 202 and proposed.pending_action is not None, proposed.content
    assert proposed.pending_action.summary == f"send a letter saying {FILE_NAME!r}"  # shown to its owner
    return proposed.pending_action.action_id


def test_a_proposed_action_keeps_no_raw_argument_at_rest(setup: tuple[str, Stores, ToolExecutor], tmp_path: Path,
                                                        request: pytest.FixtureRequest,
                                                        table_names: dict[str, str]) -> None:
    kind, stores, executor = setup
    action_id = _propose(executor)

    stored = _stored_text(kind, tmp_path, request, table_names)
    assert action_id in stored  # the record is there
    assert [word for word in RAW_WORDS if word in stored] == []
    record, _ = stores.state.get(f"action:{action_id}")
    assert record is not None and set(record) == {"sealed", "expires_at", "user_id", "caller", "status"}


def test_confirming_runs_the_proposed_call(setup: tuple[str, Stores, ToolExecutor]) -> None:
    _, _, executor = setup
    action_id = _propose(executor)

    done = executor.confirm(action_id, CLINICIAN)

    assert (done.status, done.content) == (200, f"echo: {FILE_NAME}")


def test_a_sealed_call_moved_onto_another_action_does_not_open(setup: tuple[str, Stores, ToolExecutor]) -> None:
    kind, stores, executor = setup
    action_id = _propose(executor)
    record, _ = stores.state.get(f"action:{action_id}")
    assert record is not None
    stores.state.put("action:act_planted", record, expected_version=0, ttl_seconds=600)
    # locally the GCM tag refuses it; on AWS KMS refuses the data key for another encryption context (502)
    refused = InvalidInput if kind == "sqlite" else DependencyError

    with pytest.raises(refused):
        executor.confirm("act_planted", CLINICIAN)
    with pytest.raises(refused):
        executor.cancel("act_planted", CLINICIAN)
    planted, _ = stores.state.get("action:act_planted")
    assert planted is not None and planted["status"] == "pending"  # nothing ran, nothing was marked
    assert executor.confirm(action_id, CLINICIAN).content == f"echo: {FILE_NAME}"  # the original still opens


def test_a_call_planted_in_the_clear_runs_nothing(setup: tuple[str, Stores, ToolExecutor]) -> None:
    """A record as they were stored before sealing (or written by anyone with the table but not the key)."""
    _, stores, executor = setup
    action_id = _propose(executor)
    record, _ = stores.state.get(f"action:{action_id}")
    assert record is not None
    planted = {key: value for key, value in record.items() if key not in ("sealed", "expires_at")}
    planted["call"] = ToolCall(name="send_letter", arguments={"text": "planted"}).model_dump(mode="json")
    planted["action"] = {"action_id": "act_clear", "tool": "send_letter", "summary": "planted",
                         "expires_at": record["expires_at"]}
    stores.state.put("action:act_clear", planted, expected_version=0, ttl_seconds=600)

    with pytest.raises(InvalidInput, match="not sealed"):
        executor.confirm("act_clear", CLINICIAN)
    stored, _ = stores.state.get("action:act_clear")
    assert stored is not None and stored["status"] == "pending"
