"""The admin configuration's rules that no route shows on its own: a warm function's cache (AWS) sees another
function's save only after its TTL; the deployment's source preferences come after the request's own; the
defaults follow the settings."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from voiceassist.access import Caller, Role
from voiceassist.adapters.local.sqlite_audit import SqliteAuditLog
from voiceassist.adapters.local.sqlite_db import SqliteDatabase
from voiceassist.adapters.local.sqlite_state import SqliteKeyValueState
from voiceassist.admin.config import (
    AdminConfig,
    Deployment,
    SourcePolicy,
    boundary_problems,
    defaults_from,
    merged_sources,
)
from voiceassist.admin.config_store import ConfigStore
from voiceassist.composition import Dependencies, phi_detectors
from voiceassist.errors import StoreUnavailable
from voiceassist.models import (
    ChatCompletion,
    PhiResult,
    QueryRequest,
    RoutingMode,
    SourceName,
    SourcePreferences,
    ToolCall,
)
from voiceassist.query import answering, planning
from voiceassist.query.routing import NoModelAvailable
from voiceassist.query.state import QueryState
from voiceassist.settings import PhiMode, Settings
from voiceassist.tools.executor import Caller as ExecutorCaller

ADMIN = Caller(user_id="admin-1", roles=frozenset({Role.ADMIN}))


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_admin_config_a_warm_reader_sees_another_functions_change_after_its_ttl(tmp_path: Path) -> None:
    database = SqliteDatabase(tmp_path / "voiceassist.sqlite3")
    state, audit, clock = SqliteKeyValueState(database), SqliteAuditLog(database), Clock()
    defaults = defaults_from(Settings())
    api = ConfigStore(state, defaults=defaults)
    generate = ConfigStore(state, defaults=defaults, ttl_seconds=30, clock=clock)
    assert generate.config.routing_mode is RoutingMode.HYBRID

    api.patch({"routing_mode": "local-only"}, ADMIN, audit)
    clock.now = 29.0
    assert generate.config.routing_mode is RoutingMode.HYBRID  # cached
    clock.now = 30.0
    assert generate.config.routing_mode is RoutingMode.LOCAL_ONLY
    assert api.config.routing_mode is RoutingMode.LOCAL_ONLY  # no TTL: the next read (locally, the next question)


def test_admin_config_sources_follow_the_requests_own_preferences() -> None:
    config = defaults_from(Settings()).model_copy(update={"sources": SourcePolicy(
        prioritize=[SourceName.GUIDELINES], exclude=[SourceName.PUBMED])})

    plain = merged_sources(config, SourcePreferences())
    asked = merged_sources(config, SourcePreferences(prioritize=[SourceName.PUBMED, SourceName.TEXTBOOKS]))

    assert (plain.prioritize, plain.exclude) == ([SourceName.GUIDELINES], [SourceName.PUBMED])
    assert asked.prioritize == [SourceName.PUBMED, SourceName.TEXTBOOKS, SourceName.GUIDELINES]
    assert asked.exclude == []  # the clinician asked for PubMed: the deployment's exclusion gives way


def test_admin_config_defaults_name_the_settings_models() -> None:
    local = defaults_from(Settings(local_chat_base_url="http://127.0.0.1:11434/v1", local_chat_model="qwen2.5:7b",
                                   openai_model="gpt-4.1-mini", routing_mode=RoutingMode.CLOUD_ONLY))

    assert isinstance(local, AdminConfig) and local.routing_mode is RoutingMode.CLOUD_ONLY
    assert (local.models.cloud.model, local.models.in_boundary.model) == ("gpt-4.1-mini", "qwen2.5:7b")
    assert defaults_from(Settings()).models.in_boundary.model == "deployment"  # SageMaker, Bedrock: infra's


def test_admin_config_phi_off_is_kept_only_where_the_deployment_has_it_off() -> None:
    off_hybrid = defaults_from(Settings()).model_copy(update={"phi_mode": PhiMode.OFF})
    off_local = off_hybrid.model_copy(update={"routing_mode": RoutingMode.LOCAL_ONLY})
    deployment_off = Deployment(phi_detection_off=True)

    assert [p["field"] for p in boundary_problems(off_local)] == ["phi_mode"]  # a strict deployment: never
    assert [p["field"] for p in boundary_problems(off_hybrid, deployment_off)] == ["phi_mode"]
    assert boundary_problems(off_local, deployment_off) == []


class ModeDetector:
    def __init__(self, mode: PhiMode) -> None:
        self.mode = mode

    def detect(self, text: str) -> PhiResult:
        return PhiResult(contains_phi=self.mode is PhiMode.STRICT, entities=[], redacted_text=text)


def test_admin_config_phi_mode_applies_at_detect_phi_without_a_restart(monkeypatch: pytest.MonkeyPatch,
                                                                       tmp_path: Path) -> None:
    monkeypatch.setattr(phi_detectors, "build_detector", lambda settings: ModeDetector(settings.phi_mode))
    deps = Dependencies(Settings(data_dir=tmp_path))
    lenient = defaults_from(deps.settings).model_copy(update={"phi_mode": PhiMode.LENIENT})
    question = QueryRequest(query="What is the metformin dose for eGFR 40?")

    as_deployed = planning.detect_phi(deps.query, QueryState(user_id="u", request=question))
    configured = planning.detect_phi(deps.query, QueryState(user_id="u", request=question, config=lenient))

    assert as_deployed.phi is not None and as_deployed.phi.contains_phi  # the deployment's strict detector
    assert configured.phi is not None and not configured.phi.contains_phi  # built for the configured mode
    assert deps.phi_detector_for(PhiMode.LENIENT) is deps.phi_detector_for(PhiMode.LENIENT)  # built once


class DownState:
    """The state table, until `down` is set: then every read raises StoreUnavailable, as an outage does."""

    def __init__(self, state: SqliteKeyValueState) -> None:
        self.state, self.down = state, False

    def get(self, key: str) -> tuple[dict[str, object] | None, int]:
        if self.down:
            raise StoreUnavailable("the state table is unavailable; try again")
        return self.state.get(key)


def test_admin_config_a_down_store_keeps_the_last_known_version_or_the_defaults(tmp_path: Path) -> None:
    database = SqliteDatabase(tmp_path / "voiceassist.sqlite3")
    state, audit = SqliteKeyValueState(database), SqliteAuditLog(database)
    defaults = defaults_from(Settings())
    ConfigStore(state, defaults=defaults).patch({"routing_mode": "local-only"}, ADMIN, audit)
    failing = DownState(state)
    warm = ConfigStore(failing, defaults=defaults)  # type: ignore[arg-type]
    cold = ConfigStore(failing, defaults=defaults)  # type: ignore[arg-type]
    assert warm.config.routing_mode is RoutingMode.LOCAL_ONLY

    failing.down = True

    assert warm.current().version == 1 and warm.config.routing_mode is RoutingMode.LOCAL_ONLY  # the last it read
    assert cold.current().version == 0 and cold.config == defaults  # never read one: the settings' defaults


class RecordingCloudModel:
    """A cloud model that answers every call (ports.ChatModel), counting them."""

    name, in_boundary = "gpt-4o-mini", False

    def __init__(self) -> None:
        self.calls = 0

    def complete(self, messages: Any, *, max_tokens: int = 700, temperature: float = 0.1) -> ChatCompletion:
        self.calls += 1
        return ChatCompletion(text="From the reference [1].", model=self.name)


def test_admin_config_phi_mode_applies_at_the_egress_guard_and_the_tool_argument_check(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The deployment detects strictly (every text has PHI here), the configuration leniently (none): every check
    of a question or a tool call follows the configuration, not only Detect PHI."""
    monkeypatch.setattr(phi_detectors, "build_detector", lambda settings: ModeDetector(settings.phi_mode))
    deps = Dependencies(Settings(data_dir=tmp_path, offer_tools=False))
    cloud = RecordingCloudModel()
    deps.cloud_chat, deps.local_chat = cloud, None  # type: ignore[misc]
    lenient = defaults_from(deps.settings).model_copy(update={"phi_mode": PhiMode.LENIENT})
    question = QueryRequest(query="What is the metformin dose for eGFR 40?")

    def answer(config: AdminConfig | None) -> QueryState:
        state = QueryState(user_id="u", request=question, config=config, memory="Patient facts stated: eGFR 40.",
                           phi=PhiResult(contains_phi=False, redacted_text=question.query))
        return answering.generate(deps.query, state, tier="primary")

    with pytest.raises(NoModelAvailable):  # as deployed: the egress guard finds PHI in the memory it re-checks
        answer(None)
    assert cloud.calls == 0
    assert answer(lenient).answer == "From the reference [1]." and cloud.calls == 1  # the configured mode's guard

    def pubmed_search() -> str | None:
        call = ToolCall(name="search_pubmed", arguments={"query": "metformin dose in renal impairment"})
        return deps.tool_executor.execute(call, ExecutorCaller(user_id="u")).error

    assert pubmed_search() == "phi_refused"  # the deployment's strict mode finds PHI in the argument
    deps.config_store.patch({"phi_mode": "lenient"}, ADMIN, deps.audit)
    assert pubmed_search() != "phi_refused"  # the next call's argument check follows the configuration
