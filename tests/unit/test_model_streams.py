"""The stub's streams, without sockets: where the token delay goes and where a failing stream breaks off."""

from __future__ import annotations

import json

from tests.stubs.model_streams import PAUSE, byte_cuts, openai_sse, text_pieces
from tests.stubs.openai_stub import StubReply


def _sse_data(writes: list[bytes]) -> list[str]:
    return [line.removeprefix("data: ") for line in b"".join(writes).decode().split("\n\n") if line]


def test_text_pieces_join_to_the_text_whatever_its_whitespace() -> None:
    for text in ("Stub answer [1].", "  leading", "trailing  ", "a\n\nb\tc", "   ", ""):
        assert "".join(text_pieces(text)) == text
    assert text_pieces("Stub answer [1].") == ["Stub", " answer", " [1]."]


def test_the_token_delay_falls_between_pieces_only() -> None:
    writes = list(openai_sse(StubReply(text="one two three"), "m", include_usage=False))

    groups: list[list[bytes]] = [[]]
    for write in writes:
        if write is PAUSE:
            groups.append([])
        else:
            groups[-1].append(write)
    contents = [[json.loads(data)["choices"][0]["delta"].get("content") for data in _sse_data(group)
                 if data != "[DONE]"] for group in groups]
    assert contents == [["", "one"], [" two"], [" three", None]]  # the role chunk goes with the first piece


def test_a_failing_stream_sends_the_pieces_then_an_error_line_and_no_done() -> None:
    writes = [w for w in openai_sse(StubReply(text="one two three", fail_after_tokens=1), "m", include_usage=True)
              if w is not PAUSE]

    data = _sse_data(writes)
    assert [json.loads(d)["choices"][0]["delta"].get("content") for d in data[:-1]] == ["", "one"]
    assert "error" in json.loads(data[-1]) and "[DONE]" not in data


def test_byte_cuts_cut_inside_the_first_multi_byte_character() -> None:
    data = "data: 5 µg\n\n".encode()

    parts = byte_cuts(data)

    assert b"".join(parts) == data and len(parts) >= 3
    assert any(part.endswith("µ".encode()[:1]) for part in parts)
