"""MCP with the SDK's own client: over streamable HTTP against the real local server (/v1/mcp), and over stdio
against `voiceassist mcp` in a subprocess. Tools are listed with their schemas and called through the executor."""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters
from voiceassist_local.server import make_server

from tests.unit.tools.executor_fixtures import TEST_TOOLS
from voiceassist.composition import Dependencies

CHADSVASC = {"calculator": "chadsvasc", "parameters": {"age": 75, "sex": "female", "hypertension": True,
                                                        "diabetes": True}}


@pytest.fixture
def mcp_url(local_deps: Dependencies) -> Iterator[str]:
    for tool in TEST_TOOLS:
        local_deps.tool_registry.register(tool)
    server = make_server("127.0.0.1", 0)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1/mcp"
    server.shutdown()
    server.server_close()


def run(target: Any, session: Any) -> Any:
    async def main() -> Any:
        async with Client(target) as client:
            return await session(client)

    return anyio.run(main)


def test_mcp_over_http_lists_the_tools_and_calls_a_calculator(mcp_url: str, local_deps: Dependencies) -> None:
    async def session(client: Client) -> tuple[Any, Any]:
        return await client.list_tools(), await client.call_tool("calculate_medical_score", CHADSVASC)

    listed, called = run(mcp_url, session)

    tools = {tool.name: tool for tool in listed.tools}
    assert "chadsvasc" in tools["calculate_medical_score"].input_schema["properties"]["calculator"]["enum"]
    assert (called.is_error, called.structured_content["data"]["score"]) == (False, 5)
    assert called.content[0].text.startswith("CHA2DS2-VASc: 5 points")
    assert [(r.tool, r.model) for r in local_deps.audit.list(user_id="local-user")] == [
        ("calculate_medical_score", "mcp")]


def test_mcp_over_http_refusals_are_tool_errors_and_confirmation_returns_the_pending_action(mcp_url: str) -> None:
    async def session(client: Client) -> tuple[Any, Any, Any]:
        return (await client.call_tool("order_pizza", {}),
                await client.call_tool("calculate_medical_score", {"calculator": "bmi", "parameters": {}}),
                await client.call_tool("send_letter", {"text": "see you Monday"}))

    unknown, invalid, pending = run(mcp_url, session)

    assert (unknown.is_error, unknown.structured_content["status"]) == (True, 404)
    assert invalid.is_error and "height_cm" in invalid.content[0].text
    assert (pending.is_error, pending.structured_content["status"]) == (False, 202)
    assert pending.structured_content["pending_action"]["summary"] == "send a letter saying 'see you Monday'"


def test_mcp_refuses_an_impossible_patient_naming_the_range_and_publishes_the_inputs(mcp_url: str) -> None:
    async def session(client: Client) -> tuple[Any, Any]:
        return await client.list_tools(), await client.call_tool("calculate_medical_score", {
            "calculator": "ckd_epi", "parameters": {"sex": "female", "age": 40, "creatinine_mg_dl": 1e-300}})

    listed, refused = run(mcp_url, session)

    schema = next(t for t in listed.tools if t.name == "calculate_medical_score").input_schema
    assert (refused.is_error, refused.structured_content["status"]) == (True, 400)
    assert "creatinine_mg_dl: 1e-300 mg/dL is outside the plausible range 0.1-40 mg/dL" in refused.content[0].text
    assert set(schema["$defs"]["ckd_epi"]["required"]) == {"sex", "age", "creatinine_mg_dl"}


def test_mcp_over_stdio_serves_voiceassist_mcp(tmp_path: Path) -> None:
    command = StdioServerParameters(
        command=sys.executable,
        args=["-c", "import sys; from voiceassist_local.cli import main; sys.exit(main())",
              "--data-dir", str(tmp_path / "data"), "mcp"])

    async def session(client: Client) -> tuple[Any, Any]:
        return await client.list_tools(), await client.call_tool("calculate_medical_score", CHADSVASC)

    listed, called = run(command, session)

    assert {"calculate_medical_score", "search_knowledge_base"} <= {tool.name for tool in listed.tools}
    assert (called.is_error, called.structured_content["data"]["score"]) == (False, 5)


def test_mcp_never_sends_a_patients_details_to_a_tool_outside_the_boundary(mcp_url: str,
                                                                          local_deps: Dependencies) -> None:
    async def session(client: Client) -> Any:
        return await client.call_tool("search_pubmed", {"query": "apixaban dosing for John Smith, MRN 4417823"})

    refused = run(mcp_url, session)

    assert (refused.is_error, refused.structured_content["error"]) == (True, "phi_refused")
    stored = " ".join(r.query_redacted for r in local_deps.audit.list(user_id="local-user"))
    assert "John Smith" not in stored and "4417823" not in stored


@pytest.mark.parametrize(("query", "value"), [
    ("apixaban dose in a 94M with CrCl 30", "94M"),
    ("warfarin interactions for DNI 52871346K", "52871346K"),
    ("lithium level for the patient on +447911123456", "+447911123456"),
])
def test_mcp_refuses_phi_other_generators_write_in_a_tools_arguments(mcp_url: str, local_deps: Dependencies,
                                                                     query: str, value: str) -> None:
    async def session(client: Client) -> Any:
        return await client.call_tool("search_pubmed", {"query": query})

    refused = run(mcp_url, session)

    assert (refused.is_error, refused.structured_content["error"]) == (True, "phi_refused")
    assert value not in " ".join(r.query_redacted for r in local_deps.audit.list(user_id="local-user"))


def test_mcp_function_refuses_a_request_without_a_signed_in_user(local_deps: Dependencies) -> None:
    from voiceassist_local.handlers import invoke
    from voiceassist_local.server import to_api_gateway_event

    event = to_api_gateway_event("POST", "/v1/mcp", {"content-type": "application/json"},
                                 b'{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}')
    event["requestContext"]["authorizer"] = None

    reply = invoke("mcp", event)

    assert reply["statusCode"] == 401 and "unauthorized" in reply["body"]
    assert local_deps.audit.list(limit=10) == []
