"""Live model tokens: while a client streams a run, Generate streams the model's text as draft `token` events,
then the checked answer follows as the final tokens; REST gets the same answer; a failure part-way starts a new
draft; a PHI question's drafts come only from the in-boundary model; an OpenAI client never sees a draft."""

from __future__ import annotations

import json
from typing import Any

import openai
import pytest
from voiceassist_local.event_stream import stream_query

from tests.integration.test_query_events import VOLATILE
from tests.stubs.query_stack import USER
from tests.stubs.streaming_model import Streamed, StreamingModel
from voiceassist.composition import Dependencies
from voiceassist.conversation import events, orchestrator
from voiceassist.models import QueryRequest

QUESTION = "What is the metformin dose for eGFR 40?"
ANSWER = ("Starting metformin is not recommended when eGFR is between 30 and 45 mL/min/1.73 m2; if eGFR falls "
          "below 45 during treatment, reassess the benefit and consider a reduced dose [1].")
PHI_QUESTION = "Patient John Smith, MRN 4417823: what is the metformin dose for eGFR 40?"
PHI_VALUES = ("john smith", "smith", "4417823")


def stable(response: dict[str, Any]) -> dict[str, Any]:
    return {**response, "metadata": {k: v for k, v in response["metadata"].items() if k not in VOLATILE}}


def streamed(question: str) -> list[events.Event]:
    return list(stream_query(QueryRequest(query=question), user_id=USER, trace_id="req-drafts"))


def drafts_of(run: list[events.Event]) -> dict[str, str]:
    """Each draft's text, by draft id, in the order the drafts began."""
    texts: dict[str, str] = {}
    for item in run:
        if item["type"] == "token" and "draft" in item["data"]:
            texts[item["data"]["draft"]] = texts.get(item["data"]["draft"], "") + item["data"]["text"]
    return texts


def final_text(run: list[events.Event]) -> str:
    return "".join(i["data"]["text"] for i in run if i["type"] == "token" and "draft" not in i["data"])


@pytest.fixture
def models(kb_deps: Dependencies) -> tuple[StreamingModel, StreamingModel]:
    cloud = StreamingModel("cloud-model", in_boundary=False, script=[Streamed(ANSWER)])
    local = StreamingModel("local-model", in_boundary=True, script=[Streamed(ANSWER)])
    kb_deps.cloud_chat, kb_deps.local_chat = cloud, local  # type: ignore[misc]
    return cloud, local


def test_the_model_streams_drafts_before_the_checked_answer_and_rest_gets_the_same_answer(
        kb_deps: Dependencies, models: tuple[StreamingModel, StreamingModel]) -> None:
    cloud, _ = models
    run = streamed(QUESTION)

    kinds = [i["type"] for i in run]
    first_draft = next(n for n, i in enumerate(run) if i["type"] == "token" and "draft" in i["data"])
    model_route = next(n for n, i in enumerate(run) if i["type"] == "route" and i["data"]["stage"] == "generate")
    assert kinds.index("retrieval") < first_draft < model_route  # live, while Generate still runs
    assert list(drafts_of(run).values()) == [ANSWER]  # the model's text exactly, one draft
    done = run[-1]["data"]
    assert kinds[-1] == "done" and final_text(run) == done["answer"]  # the checked answer replaces the draft
    assert done["citations"][0]["doc_key"] == "sample-metformin" and done["metadata"]["model"] == "cloud-model"
    assert cloud.streamed_calls == 1

    rest = orchestrator.respond(kb_deps, QueryRequest(query=QUESTION), user_id=USER, trace_id="req-rest")
    assert stable(rest.model_dump(mode="json")) == stable(done)  # sync and stream: the same answer
    assert cloud.streamed_calls == 1  # REST called the model without streaming


def test_a_model_that_fails_part_way_leaves_a_draft_that_a_new_one_replaces(
        kb_deps: Dependencies, models: tuple[StreamingModel, StreamingModel]) -> None:
    cloud, local = models
    cloud._script = [Streamed(ANSWER, fail_after=3)]  # the primary tier fails part-way, and again on its retry
    run = streamed(QUESTION)

    texts = list(drafts_of(run).values())
    assert len(texts) == 3 and texts[0] == texts[1] == "".join(ANSWER.split(" ")[i] + " " for i in range(3))
    assert texts[2] == ANSWER  # the fallback tier's model, in full
    done = run[-1]["data"]
    assert done["metadata"]["model"] == "local-model" and final_text(run) == done["answer"]
    assert (cloud.streamed_calls, local.streamed_calls) == (2, 1)


def test_a_phi_question_streams_drafts_only_from_the_in_boundary_model(
        kb_deps: Dependencies, models: tuple[StreamingModel, StreamingModel]) -> None:
    cloud, local = models
    run = streamed(PHI_QUESTION)

    assert cloud.calls == []  # the cloud model was never called, streamed or not
    assert local.streamed_calls == 1 and list(drafts_of(run).values()) == [ANSWER]
    route = next(i["data"] for i in run if i["type"] == "route" and i["data"]["stage"] == "phi")
    assert route["phi_detected"] is True
    done = run[-1]["data"]
    assert done["metadata"]["model"] == "local-model" and done["metadata"]["phi_detected"] is True
    steps = [i for i in run if i["type"] != "token" and i["type"] != "done"]
    assert [v for v in PHI_VALUES if v in json.dumps(steps).lower()] == []


def test_the_detector_failing_keeps_the_drafts_inside_the_boundary(
        kb_deps: Dependencies, models: tuple[StreamingModel, StreamingModel]) -> None:
    from tests.stubs.query_stack import CrashingDetector
    from voiceassist.phi.detection import FailClosedDetector

    cloud, local = models
    kb_deps.phi_detector = FailClosedDetector(CrashingDetector())  # type: ignore[misc,arg-type]
    run = streamed(QUESTION)

    assert cloud.calls == [] and local.streamed_calls == 1
    assert run[-1]["type"] == "done" and run[-1]["data"]["metadata"]["phi_detected"] is True


def test_an_openai_client_gets_only_the_checked_answer(
        kb_server_url: str, models: tuple[StreamingModel, StreamingModel]) -> None:
    cloud, _ = models
    client = openai.OpenAI(base_url=f"{kb_server_url}/v1", api_key="not-needed-locally", max_retries=0)
    chunks = list(client.chat.completions.create(model="voiceassist", stream=True,
                                                 messages=[{"role": "user", "content": QUESTION}]))

    content = "".join(c.choices[0].delta.content or "" for c in chunks)
    assert cloud.streamed_calls == 1  # the model streamed, but its drafts stayed out of the OpenAI chunks
    citations = (chunks[-1].model_extra or {})["citations"]
    assert content.split("\n\nSources:")[0] == ANSWER  # once: a leaked draft would repeat it
    assert citations[0]["doc_key"] == "sample-metformin"


def test_the_model_route_names_the_in_boundary_model_when_it_answers_a_question_without_phi(
        kb_deps: Dependencies, models: tuple[StreamingModel, StreamingModel]) -> None:
    kb_deps.cloud_chat = None  # type: ignore[misc]  # only a self-hosted model (VOICEASSIST_LOCAL_CHAT_BASE_URL)
    run = streamed(QUESTION)

    route = next(i["data"] for i in run if i["type"] == "route" and i["data"]["stage"] == "generate")
    assert (route["model"], route["in_boundary"]) == ("local-model", True)
    assert route["reason"] == "the in-boundary model (no PHI)"
