"""The clinician's workspace accounts: where each person's calendar (CalDAV) and files (WebDAV) live, and with
what credentials. Locally a JSON file that only its owner may read (mode 0600); on AWS one Secrets Manager
secret per user (`<prefix><user_id>`), read by the composition root. Nothing here talks to a server.

The file (and each secret, for one user) looks like:

    {"users": {"alice": {"calendar": {"url": "https://cloud.example/remote.php/dav/calendars/alice/personal/",
                                      "username": "alice", "password": "app-password"},
                         "files": {"url": "https://cloud.example/remote.php/dav/files/alice/",
                                   "username": "alice", "password": "app-password", "nextcloud": true}}}}
"""

from __future__ import annotations

import json
import stat
from collections.abc import Callable
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError

from voiceassist.errors import DependencyError, InvalidInput, VoiceAssistError
from voiceassist.ports import Calendar, FileShare

DEFAULT_USER = "*"  # the entry used for any user without their own (a single-user local setup)


class WorkspaceNotConfigured(VoiceAssistError):
    """This person has no calendar or file account configured (a 503 the model and the person can read)."""

    status_code = 503
    code = "not_configured"
    readable = True


class WorkspaceUnavailable(DependencyError):
    """The calendar or file server failed or could not be reached. The message is ours (never the server's
    text, which may echo an event's details), so the executor shows it to the model."""

    code = "workspace_unavailable"
    readable = True


class DavAccount(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    url: str = Field(pattern=r"^https?://")
    username: str | None = None
    password: SecretStr | None = None
    nextcloud: bool = False  # files: the server speaks Nextcloud's SEARCH (content search) and OCS


class WorkspaceAccount(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    calendar: DavAccount | None = None
    files: DavAccount | None = None


AccountReader = Callable[[str], "WorkspaceAccount | None"]


def parse_account(text: str, *, where: str) -> WorkspaceAccount:
    try:
        return WorkspaceAccount.model_validate_json(text)
    except ValidationError as exc:
        fields = ", ".join(".".join(str(p) for p in err["loc"]) for err in exc.errors())
        raise InvalidInput(f"invalid workspace account in {where}: {fields}") from exc


def file_accounts(path: Path) -> AccountReader:
    """Accounts from a local JSON file, re-read on every call (edits apply at once); refused unless only its
    owner can read it."""

    def read(user_id: str) -> WorkspaceAccount | None:
        if not path.is_file():
            return None
        mode = stat.S_IMODE(path.stat().st_mode)
        if mode & 0o077:
            raise InvalidInput(f"{path} holds passwords and is readable by others (mode {mode:o}): "
                               f"chmod 600 {path}")
        try:
            users = json.loads(path.read_text(encoding="utf-8")).get("users", {})
        except (ValueError, AttributeError) as exc:
            raise InvalidInput(f"{path} is not a JSON object with \"users\" (docs/tools.md)") from exc
        entry = users.get(user_id, users.get(DEFAULT_USER))
        return None if entry is None else parse_account(json.dumps(entry), where=str(path))

    return read


def secret_accounts(prefix: str, read_secret: Callable[[str], str | None]) -> AccountReader:
    """Accounts from one secret per user (`<prefix><user_id>`, the JSON of one user's entry)."""

    def read(user_id: str) -> WorkspaceAccount | None:
        text = read_secret(f"{prefix}{user_id}")
        return None if not text else parse_account(text, where=f"the secret of {user_id}")

    return read


class Workspace:
    """Builds a person's calendar and file clients from their account on each call (credentials may change)."""

    def __init__(self, accounts: AccountReader, *, calendar: Callable[[DavAccount], Calendar],
                 files: Callable[[DavAccount], FileShare]) -> None:
        self._accounts = accounts
        self._calendar = calendar
        self._files = files

    def calendar(self, user_id: str | None) -> Calendar:
        account = self._account(user_id)
        if account is None or account.calendar is None:
            raise WorkspaceNotConfigured("no calendar is configured for this user (docs/tools.md, Workspace)")
        return self._calendar(account.calendar)

    def files(self, user_id: str | None) -> FileShare:
        account = self._account(user_id)
        if account is None or account.files is None:
            raise WorkspaceNotConfigured("no file server is configured for this user (docs/tools.md, Workspace)")
        return self._files(account.files)

    def _account(self, user_id: str | None) -> WorkspaceAccount | None:
        return self._accounts(user_id or DEFAULT_USER)
