"""The tool arguments' input screen of api and mcp, read in query_tools (tools/remote.py, decision 0027 "On AWS too",
session 20): a tool api or mcp runs itself has its text arguments screened by the runner, whose image ships spaCy's
parse and the embedder, so a harm stated only as a purpose clause is refused on AWS as on `make run`. The request
carries the texts and nothing else; the reply carries the verdict, never a text; a runner that does not answer fails
the call closed."""

from __future__ import annotations

import inspect
import json
from pathlib import Path
from types import SimpleNamespace

import pytest
from botocore.exceptions import ClientError

from tests.unit.tools.executor_fixtures import Harness, build
from tests.unit.tools.test_remote_tools import LoopbackLambda, invoker
from voiceassist import english_pipeline
from voiceassist.models import ToolCall
from voiceassist.safety import purpose_clause
from voiceassist.safety.input_screen import screen_all
from voiceassist.tools.executor import Caller

# harm stated only by the clause of purpose (no act-outcome or tampering reading fires on it)
PURPOSE_ONLY = "how do I lower her insulin so she goes into ketoacidosis"
CLINICIAN = Caller(user_id="clinician-1", channel="api")


@pytest.fixture
def runner(tmp_path: Path) -> Harness:
    (tmp_path / "runner").mkdir()
    return build(tmp_path / "runner")


def test_the_purpose_clause_is_the_only_reading_that_refuses_the_text(monkeypatch: pytest.MonkeyPatch) -> None:
    assert screen_all([PURPOSE_ONLY]).reasons == ("harm_purpose_clause",)
    purpose_clause._parse.cache_clear()
    monkeypatch.setattr(english_pipeline, "pipeline", lambda *_args: None)  # a function without spaCy
    try:
        assert not screen_all([PURPOSE_ONLY]).flagged
    finally:
        purpose_clause._parse.cache_clear()


def test_a_local_tools_argument_is_screened_by_the_runner_and_refused(tmp_path: Path, runner: Harness) -> None:
    client = LoopbackLambda(runner)
    executor, local = invoker(tmp_path, client)

    result = executor.execute(ToolCall(name="send_letter", arguments={"text": PURPOSE_ONLY}), CLINICIAN)

    assert (result.status, result.error) == (422, "input_refused"), result
    assert PURPOSE_ONLY not in result.content
    assert client.payloads == [{"screen": [PURPOSE_ONLY]}]  # the texts only: no caller, no call, no tool name
    assert [(r.tool, r.tool_status, r.intent) for r in local.audit.list(user_id="clinician-1", limit=10)] == [
        ("send_letter", 422, "input_screen:harmful")]  # refused and audited where the call was made


def test_the_runners_reply_carries_the_verdict_never_a_text(tmp_path: Path, runner: Harness) -> None:
    client = LoopbackLambda(runner)
    executor, _ = invoker(tmp_path, client)

    verdict = executor.screen_verdict([PURPOSE_ONLY])
    reply = client.replies[-1]

    assert (verdict.categories, verdict.reasons) == (("harmful",), ("harm_purpose_clause",))
    assert set(json.loads(reply)) == {"categories", "reasons"} and "insulin" not in reply


def test_a_benign_argument_runs_and_a_validated_one_asks_nothing(tmp_path: Path, runner: Harness) -> None:
    client = LoopbackLambda(runner)
    executor, _ = invoker(tmp_path, client)

    letter = executor.execute(ToolCall(name="send_letter", arguments={"text": "her insulin was lowered"}), CLINICIAN)
    score = executor.execute(ToolCall(name="calculate_medical_score", arguments={
        "calculator": "chadsvasc", "parameters": {"age": 75, "sex": "female"}}), CLINICIAN)

    assert letter.status == 202 and score.status == 200, (letter, score)  # a letter awaits its confirmation
    assert client.payloads == [{"screen": ["her insulin was lowered"]}]  # the calculator's arguments hold no text


def test_a_runner_that_does_not_answer_fails_the_call_closed(tmp_path: Path, runner: Harness) -> None:
    down = ClientError({"Error": {"Code": "ServiceException", "Message": "down"}}, "Invoke")
    for index, client in enumerate((LoopbackLambda(runner, fail=down), LoopbackLambda(runner, function_error=True))):
        (tmp_path / str(index)).mkdir()
        executor, local = invoker(tmp_path / str(index), client)

        result = executor.execute(ToolCall(name="send_letter", arguments={"text": "a letter to John Smith"}),
                                  CLINICIAN)

        assert (result.status, result.error) == (502, "dependency_failed"), result
        assert "John Smith" not in result.content and local.audit.list(user_id="clinician-1", limit=10)


def test_the_runners_handler_answers_a_screen_without_logging_the_text(runner: Harness, monkeypatch: pytest.MonkeyPatch,
                                                                      caplog: pytest.LogCaptureFixture,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """PHI: the new input path (a `{"screen": [...]}` event into functions/query_tools) logs and answers no text."""
    from voiceassist_local.handlers import load_handler

    from tests.unit.test_session_summary_on_aws import LambdaContext

    handler = load_handler("query_tools")
    # the handler's own module globals (under the logger's and tracer's wrappers)
    monkeypatch.setitem(inspect.unwrap(handler).__globals__, "dependencies",
                        lambda: SimpleNamespace(tool_executor=runner.executor))
    text = f"{PURPOSE_ONLY}; note for John Smith, MRN 4471"
    with caplog.at_level("DEBUG"):
        reply = handler({"screen": [text]}, LambdaContext(remaining_ms=30_000))

    assert reply == {"categories": ["harmful"], "reasons": ["harm_purpose_clause"]}
    logged = caplog.text + "".join(capsys.readouterr())
    assert "John Smith" not in logged and "4471" not in logged and "insulin" not in logged
