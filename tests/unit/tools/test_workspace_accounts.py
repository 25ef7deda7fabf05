"""Per-user workspace accounts: a local file only its owner may read, one secret per user on AWS."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from voiceassist.errors import InvalidInput
from voiceassist.tools.workspace import file_accounts, secret_accounts

ALICE = {"calendar": {"url": "https://cloud.example/remote.php/dav/calendars/alice/personal/",
                      "username": "alice", "password": "app-password"},
         "files": {"url": "https://cloud.example/remote.php/dav/files/alice/", "nextcloud": True}}


def _write(path: Path, users: dict[str, object], mode: int = 0o600) -> Path:
    path.write_text(json.dumps({"users": users}), encoding="utf-8")
    path.chmod(mode)
    return path


def test_a_users_accounts_come_from_the_file(tmp_path: Path) -> None:
    read = file_accounts(_write(tmp_path / "workspace.json", {"alice": ALICE}))

    account = read("alice")

    assert account is not None and account.calendar is not None and account.files is not None
    assert account.calendar.password is not None and account.calendar.password.get_secret_value() == "app-password"
    assert "app-password" not in repr(account)
    assert account.files.nextcloud and read("bob") is None


def test_the_star_entry_serves_every_user_without_their_own(tmp_path: Path) -> None:
    read = file_accounts(_write(tmp_path / "workspace.json", {"*": ALICE}))

    assert read("anyone") is not None


@pytest.mark.parametrize("mode", [0o644, 0o640, 0o604])
def test_a_file_others_can_read_is_refused(tmp_path: Path, mode: int) -> None:
    read = file_accounts(_write(tmp_path / "workspace.json", {"alice": ALICE}, mode))

    with pytest.raises(InvalidInput, match="chmod 600"):
        read("alice")


def test_no_file_means_no_account(tmp_path: Path) -> None:
    assert file_accounts(tmp_path / "missing.json")("alice") is None


def test_a_bad_entry_names_the_field_never_the_password(tmp_path: Path) -> None:
    bad = {"calendar": {"url": "ftp://nope", "password": "hunter2"}}
    read = file_accounts(_write(tmp_path / "workspace.json", {"alice": bad}))

    with pytest.raises(InvalidInput) as raised:
        read("alice")

    assert "calendar.url" in str(raised.value) and "hunter2" not in str(raised.value)


def test_on_aws_each_user_has_their_own_secret() -> None:
    asked: list[str] = []

    def read_secret(name: str) -> str | None:
        asked.append(name)
        return json.dumps(ALICE) if name.endswith("/alice") else None

    read = secret_accounts("voiceassist/dev/workspace/", read_secret)

    assert read("alice") is not None and read("bob") is None
    assert asked == ["voiceassist/dev/workspace/alice", "voiceassist/dev/workspace/bob"]


def test_a_file_that_is_not_json_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "workspace.json"
    path.write_text("{not json", encoding="utf-8")
    path.chmod(0o600)

    with pytest.raises(InvalidInput, match="not a JSON object"):
        file_accounts(path)("alice")
