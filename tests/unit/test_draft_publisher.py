"""conversation.events.DraftPublisher: a streaming model's text as coalesced draft `token` events."""

from __future__ import annotations

from typing import Any

import pytest

from voiceassist.conversation.events import DraftPublisher


class Recorder:
    def __init__(self, fail: bool = False) -> None:
        self.sent: list[tuple[str, dict[str, Any]]] = []
        self.fail = fail

    def publish(self, connection_id: str, item: dict[str, Any]) -> None:
        if self.fail:
            raise ConnectionError("GoneException")
        self.sent.append((connection_id, item))


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def texts(recorder: Recorder) -> list[tuple[str, str]]:
    return [(item["data"]["draft"], item["data"]["text"]) for _, item in recorder.sent]


def test_the_first_piece_goes_at_once_and_later_ones_coalesce_within_the_interval() -> None:
    recorder, clock = Recorder(), Clock()
    drafts = DraftPublisher(recorder, "conn-1", interval_s=0.05, clock=clock)

    drafts("d1", "Give ")
    clock.now += 0.01
    drafts("d1", "0.5 ")
    clock.now += 0.01
    drafts("d1", "mg ")
    clock.now += 0.05
    drafts("d1", "IM ")
    drafts("d1", "[1].")
    drafts.close()

    assert texts(recorder) == [("d1", "Give "), ("d1", "0.5 mg IM "), ("d1", "[1].")]
    assert {conn for conn, _ in recorder.sent} == {"conn-1"}
    assert all(item["type"] == "token" for _, item in recorder.sent)


def test_a_new_draft_sends_what_is_left_of_the_old_one_first() -> None:
    recorder, clock = Recorder(), Clock()
    drafts = DraftPublisher(recorder, "conn-1", interval_s=10, clock=clock)

    drafts("d1", "Partial ")
    drafts("d1", "answer")
    drafts("d2", "Fresh ")
    drafts("d2", "answer [1].")
    drafts.close()
    drafts.close()  # nothing left: nothing sent

    assert texts(recorder) == [("d1", "Partial "), ("d1", "answer"), ("d2", "Fresh "), ("d2", "answer [1].")]


def test_a_failed_publish_stops_the_drafts_without_failing_the_answer(caplog: pytest.LogCaptureFixture) -> None:
    recorder = Recorder(fail=True)
    drafts = DraftPublisher(recorder, "conn-gone", interval_s=0, clock=Clock())

    drafts("d1", "one ")
    recorder.fail = False
    drafts("d1", "two ")
    drafts.close()

    assert recorder.sent == []  # the connection is gone: no more posts for this run's drafts
    assert "could not publish a draft token" in caplog.text
