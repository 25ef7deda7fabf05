"""web_search through the executor against a local Brave Search API stub: results become citable sources with
URL and retrieval date, and no PHI ever reaches the provider."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from tests.support.web_search_stub import KEY, WebSearchStub
from tests.support.workspace_executor import Harness
from tests.unit.tools.executor_fixtures import RuleDetector
from voiceassist.adapters.websearch.brave import BraveSearch
from voiceassist.models import ToolCall
from voiceassist.tools.errors import PhiRefused
from voiceassist.tools.executor import Caller
from voiceassist.tools.web_search import web_search_tools

NOW = datetime(2026, 11, 26, 8, 0, tzinfo=UTC)


@pytest.fixture
def stub() -> Iterator[WebSearchStub]:
    with WebSearchStub() as running:
        yield running


def _harness(tmp_path: Path, base_url: str, *, key: str = KEY, detector: Any = RuleDetector) -> Harness:
    tools = web_search_tools(BraveSearch(key, base_url=base_url), detector=detector, clock=lambda: NOW)
    return Harness(tmp_path, tools)


def test_results_are_citable_sources_with_url_and_retrieval_date(tmp_path: Path, stub: WebSearchStub) -> None:
    result = _harness(tmp_path, stub.base_url).call("web_search", query="new sepsis test approval", count=3)

    assert result.status == 200, result.content
    assert stub.queries == [{"q": ["new sepsis test approval"], "count": ["3"]}]
    assert [h.chunk.metadata.url for h in result.sources] == ["https://www.fda.gov/news/sepsis-test",
                                                              "https://www.ashp.org/drug-shortages"]
    first = result.sources[0]
    assert first.source == "web" and first.chunk.metadata.source_type == "web"
    assert first.chunk.section == "retrieved 2026-11-26" and first.chunk.text.startswith("The agency cleared")
    assert result.data["retrieved_at"] == "2026-11-26T08:00:00+00:00"
    assert "(1) FDA approves new sepsis test <https://www.fda.gov/news/sepsis-test>" in result.content
    assert not result.carries_phi


@pytest.mark.parametrize("query", ["sepsis workup for John Smith", "MRN 123456 antibiotic choice"])
def test_phi_in_the_query_is_refused_and_never_sent(tmp_path: Path, stub: WebSearchStub, query: str) -> None:
    result = _harness(tmp_path, stub.base_url).call("web_search", query=query)

    assert (result.status, result.error) == (422, "phi_refused")
    assert stub.queries == []


def test_a_turn_that_carries_phi_gets_no_web_search(tmp_path: Path, stub: WebSearchStub) -> None:
    caller = Caller(user_id="doc", channel="model", turn_has_phi=True)

    result = _harness(tmp_path, stub.base_url).call("web_search", caller, query="sepsis guidelines 2026")

    assert (result.status, result.error) == (422, "phi_refused")
    assert stub.queries == []


def test_a_failing_detector_keeps_the_query_in(tmp_path: Path, stub: WebSearchStub) -> None:
    # "crash" makes the executor's detector raise (fail closed there too)
    result = _harness(tmp_path, stub.base_url).call("web_search", query="crash cart checklist")

    assert (result.status, result.error) == (422, "phi_refused")
    assert stub.queries == []


def test_the_tools_own_egress_check_fails_closed_when_its_detector_fails(tmp_path: Path,
                                                                         stub: WebSearchStub) -> None:
    class Broken:
        def detect(self, text: str) -> Any:
            raise RuntimeError("detector down")

    tools = web_search_tools(BraveSearch(KEY, base_url=stub.base_url), detector=Broken)

    with pytest.raises(PhiRefused, match="PHI check failed"):
        tools[0].run(tools[0].params.model_validate({"query": "sepsis guidelines"}), _environment())
    assert stub.queries == []


def _environment() -> Any:
    from voiceassist.tools.registry import ToolEnvironment

    return ToolEnvironment(ctx=None, turn_has_phi=False, user_id="doc")  # type: ignore[arg-type]


@pytest.mark.parametrize(("status", "detail"), [(500, "HTTP 500"), (429, "HTTP 429")])
def test_a_failing_provider_is_a_clear_tool_error(tmp_path: Path, stub: WebSearchStub, status: int,
                                                  detail: str) -> None:
    stub.status = status

    result = _harness(tmp_path, stub.base_url).call("web_search", query="sepsis guidelines 2026")

    assert (result.status, result.error) == (502, "workspace_unavailable")
    assert detail in result.content and "sepsis" not in result.content


def test_a_wrong_key_and_a_provider_that_is_down_are_tool_errors(tmp_path: Path, stub: WebSearchStub) -> None:
    wrong = _harness(tmp_path, stub.base_url, key="wrong").call("web_search", query="sepsis guidelines")
    stub.__exit__()
    down = _harness(tmp_path / "down", stub.base_url).executor.execute(
        ToolCall(name="web_search", arguments={"query": "sepsis guidelines"}), Caller(user_id="doc"))

    assert (wrong.status, wrong.error) == (502, "workspace_unavailable") and "HTTP 401" in wrong.content
    assert (down.status, down.error) == (502, "workspace_unavailable")


def test_web_search_is_limited_to_ten_calls_a_minute(tmp_path: Path, stub: WebSearchStub) -> None:
    harness = _harness(tmp_path, stub.base_url)

    statuses = [harness.call("web_search", query="sepsis guidelines").status for _ in range(11)]

    assert statuses == [200] * 10 + [429]
