"""The admin configuration's versions, kept in the shared KeyValueState (the state table on AWS, SQLite locally).

`admin-config` holds the current version (compare-and-set: two admins saving at once get a 409, not a lost
edit); `admin-config#v<n>` keeps every version for the history. Each change is audited (action
`config.update`, target `v<n>: <changed fields>`). Readers cache the current version for `ttl_seconds`: on AWS a
short TTL bounds the reads per warm function; locally it is 0, so the next question sees a change. A reader
whose store is down (StoreUnavailable) keeps the last version it read, or the deployment's defaults if it never
read one: the configuration store failing never fails a question; a save still fails (503).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from voiceassist.access import Caller, record_action
from voiceassist.admin.config import (
    ANY_DEPLOYMENT,
    AdminConfig,
    ConfigVersion,
    Deployment,
    InvalidConfiguration,
    changed_fields,
    explain_removals,
    merge_patch,
    validated,
)
from voiceassist.errors import StoreUnavailable
from voiceassist.models import AuditOutcome
from voiceassist.observability import log_failure
from voiceassist.ports import AuditLog, KeyValueState

CURRENT_KEY = "admin-config"
HISTORY_LIMIT = 100


def version_key(version: int) -> str:
    return f"{CURRENT_KEY}#v{version}"


class ConfigStore:
    def __init__(self, state: KeyValueState, *, defaults: AdminConfig, ttl_seconds: float = 0.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._state = state
        self._defaults = defaults
        self._ttl_s = ttl_seconds
        self._clock = clock
        self._lock = threading.Lock()
        self._cached: tuple[float, ConfigVersion] | None = None
        self._last_known = ConfigVersion(version=0, config=defaults)  # what a reader falls back to

    def current(self) -> ConfigVersion:
        """The version in force (version 0, the deployment's defaults, until an admin saves one)."""
        with self._lock:
            if self._cached is not None and self._clock() - self._cached[0] < self._ttl_s:
                return self._cached[1]
        try:
            stored, _ = self._state.get(CURRENT_KEY)
        except StoreUnavailable as exc:
            log_failure("could not read the admin configuration; using the last known version", exc)
            with self._lock:
                return self._last_known
        version = ConfigVersion.model_validate(stored) if stored else ConfigVersion(version=0, config=self._defaults)
        with self._lock:
            self._cached = (self._clock(), version)
            self._last_known = version
        return version

    @property
    def config(self) -> AdminConfig:
        return self.current().config

    def history(self, *, limit: int = HISTORY_LIMIT) -> list[ConfigVersion]:
        """Every saved version, newest first (version 0 last: the defaults every later version started from)."""
        newest = self._read_current()[0].version
        versions = []
        for number in range(newest, max(newest - limit, 0), -1):
            stored, _ = self._state.get(version_key(number))
            if stored:
                versions.append(ConfigVersion.model_validate(stored))
        if len(versions) < limit:
            versions.append(ConfigVersion(version=0, config=self._defaults))
        return versions

    def replace(self, document: dict[str, Any], caller: Caller, audit: AuditLog, *,
                deployment: Deployment = ANY_DEPLOYMENT) -> ConfigVersion:
        """Save `document` as the next version (PUT): validated, audited, in force for the next reader."""
        return self._save(lambda _current: document, caller, audit, deployment)

    def patch(self, patch: dict[str, Any], caller: Caller, audit: AuditLog, *,
              deployment: Deployment = ANY_DEPLOYMENT) -> ConfigVersion:
        """Merge `patch` (RFC 7396) into the current version and save the result (PATCH)."""
        try:
            return self._save(lambda current: merge_patch(current, patch), caller, audit, deployment)
        except InvalidConfiguration as exc:
            raise explain_removals(exc, patch) from exc

    def _read_current(self) -> tuple[ConfigVersion, int]:
        stored, stored_version = self._state.get(CURRENT_KEY)
        if not stored:
            return ConfigVersion(version=0, config=self._defaults), 0
        return ConfigVersion.model_validate(stored), stored_version

    def _save(self, build: Callable[[dict[str, Any]], dict[str, Any]], caller: Caller, audit: AuditLog,
              deployment: Deployment) -> ConfigVersion:
        current, stored_version = self._read_current()
        before = current.config.model_dump(mode="json")
        if deployment.cloud_model is None:  # the defaults' cloud model is the deployment's own (defaults_from)
            deployment = replace(deployment, cloud_model=self._defaults.models.cloud.model)
        try:
            config = validated(build(before), deployment)
        except InvalidConfiguration:
            record_action(audit, caller, "config.update", f"v{current.version + 1}", AuditOutcome.REFUSED)
            raise
        after = config.model_dump(mode="json")
        saved = ConfigVersion(version=current.version + 1, config=config, updated_by=caller.user_id,
                              changed=changed_fields(before, after))
        document = saved.model_dump(mode="json")
        self._state.put(CURRENT_KEY, document, expected_version=stored_version)  # Conflict (409) if raced
        self._state.put(version_key(saved.version), document, expected_version=0)
        record_action(audit, caller, "config.update", _target(saved), AuditOutcome.ACCEPTED)
        with self._lock:
            self._cached = None
            self._last_known = saved
        return saved


def _target(saved: ConfigVersion) -> str:
    return f"v{saved.version}: {', '.join(saved.changed) or 'no change'}"
