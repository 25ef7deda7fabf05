"""The voice routes through the API handler (events only, no sockets): what they take, what they refuse with
415/413, what they return, what the audit keeps, and what the OpenAPI document says."""

from __future__ import annotations

import base64
import io
import json
import wave
from typing import Any

import pytest
from voiceassist_local.handlers import invoke
from voiceassist_local.server import to_api_gateway_event

from voiceassist.adapters.local.espeak_tts import EspeakTextToSpeech
from voiceassist.composition import Dependencies
from voiceassist.speech import MAX_AUDIO_BYTES

QUESTION = "What is the maximum daily dose of metformin?"


def call(method: str, path: str, body: bytes = b"", content_type: str | None = None,
         accept: str | None = None) -> dict[str, Any]:
    headers = {"content-type": content_type} if content_type else {}
    if accept:
        headers["accept"] = accept
    return invoke("api", to_api_gateway_event(method, path, headers, body))


def header(reply: dict[str, Any], name: str) -> str:
    merged = {k.lower(): v for k, v in (reply.get("headers") or {}).items()}
    merged |= {k.lower(): v[-1] for k, v in (reply.get("multiValueHeaders") or {}).items()}
    return merged.get(name, "")


@pytest.fixture(autouse=True)
def _stack(local_deps: Dependencies) -> Dependencies:
    return local_deps


@pytest.mark.parametrize("content_type", ["audio/mpeg", "text/plain", "application/octet-stream"])
@pytest.mark.parametrize("path", ["/v1/voice/transcribe", "/v1/voice/query"])
def test_voice_routes_answer_415_to_a_type_they_do_not_take(path: str, content_type: str) -> None:
    reply = call("POST", path, b"ID3\x03\x00 an mp3", content_type)
    assert reply["statusCode"] == 415
    assert "audio/wav, audio/webm or audio/ogg" in json.loads(reply["body"])["error"]["message"]


def test_voice_routes_answer_415_to_bytes_that_are_not_what_the_type_says() -> None:
    reply = call("POST", "/v1/voice/transcribe", b"%PDF-1.7 a guideline", "audio/wav")
    assert reply["statusCode"] == 415 and "not wav audio" in json.loads(reply["body"])["error"]["message"]


def test_voice_routes_answer_413_to_a_recording_over_the_limit() -> None:
    big = b"OggS" + b"\x00" * MAX_AUDIO_BYTES
    reply = call("POST", "/v1/voice/query", big, "audio/ogg")
    assert reply["statusCode"] == 413 and json.loads(reply["body"])["error"]["code"] == "payload_too_large"


def test_speak_reads_text_aloud_as_a_wav_and_audits_without_the_text(local_deps: Dependencies) -> None:
    reply = call("POST", "/v1/voice/speak", json.dumps({"text": "Patient Jane Doe, take 500 mg"}).encode(),
                 "application/json")
    assert reply["statusCode"] == 200 and header(reply, "content-type") == "audio/wav"
    audio = base64.b64decode(reply["body"]) if reply.get("isBase64Encoded") else reply["body"].encode("latin-1")
    with wave.open(io.BytesIO(audio)) as played:
        assert played.getnframes() / played.getframerate() > 1.0
    records = [r for r in local_deps.audit.list(limit=50) if r.action == "voice.speak"]
    assert len(records) == 1 and records[0].outcome.value == "accepted"
    dumped = json.dumps([r.model_dump(mode="json") for r in local_deps.audit.list(limit=50)])
    assert "Jane" not in dumped and "Doe" not in dumped


def test_speak_refuses_empty_text_with_400() -> None:
    reply = call("POST", "/v1/voice/speak", b'{"text": ""}', "application/json")
    assert reply["statusCode"] == 400


@pytest.mark.slow
@pytest.mark.xdist_group("whisper")  # with every test that decodes with Whisper (tests/support/xdist_order.py)
def test_transcribe_returns_the_words_heard_with_timings_and_confidence() -> None:
    audio = EspeakTextToSpeech().synthesize(QUESTION)
    reply = call("POST", "/v1/voice/transcribe", audio, "audio/wav")
    assert reply["statusCode"] == 200, reply["body"]
    body = json.loads(reply["body"])
    assert "maximum daily dose of metformin" in body["text"].lower()
    assert body["words"][0]["start"] >= 0 and body["words"][-1]["end"] > body["words"][0]["start"]
    assert 0 < body["confidence"] <= 1 and body["engine"] == "whisper-base"


def noise_wav(seconds: float = 1.0, dbfs: float = -20.0) -> bytes:
    import numpy as np

    samples = np.random.default_rng(29).normal(0.0, 10 ** (dbfs / 20), int(16_000 * seconds))
    out = io.BytesIO()
    with wave.open(out, "wb") as target:
        target.setnchannels(1)
        target.setsampwidth(2)
        target.setframerate(16_000)
        target.writeframes(np.clip(samples * 32767, -32768, 32767).astype("<i2").tobytes())
    return out.getvalue()


def test_noise_is_heard_as_no_speech_without_a_decode(monkeypatch: pytest.MonkeyPatch) -> None:
    from voiceassist.adapters.local import whisper_stt

    def no_model(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("Whisper ran on a recording with no speech in it")

    monkeypatch.setattr(whisper_stt, "shared_model", no_model)
    reply = call("POST", "/v1/voice/transcribe", noise_wav(), "audio/wav")
    assert reply["statusCode"] == 200, reply["body"]
    body = json.loads(reply["body"])
    assert body["text"] == "" and body["speech_heard"] is False and body["words"] == []
    reply = call("POST", "/v1/voice/query", noise_wav(dbfs=-40.0), "audio/wav")
    assert reply["statusCode"] == 400, reply["body"]
    assert "no speech was heard" in json.loads(reply["body"])["error"]["message"]


def test_openapi_documents_the_voice_routes_bodies_and_errors() -> None:
    spec = json.loads(call("GET", "/v1/openapi.json")["body"])
    for path in ("/v1/voice/transcribe", "/v1/voice/query"):
        operation = spec["paths"][path]["post"]
        assert set(operation["requestBody"]["content"]) == {"audio/wav", "audio/webm", "audio/ogg"}
        assert {"413", "415", "501"} <= set(operation["responses"])
    query = spec["paths"]["/v1/voice/query"]["post"]
    assert {"application/json", "audio/wav"} <= set(query["responses"]["200"]["content"])
    assert {p["name"] for p in query["parameters"]} == {"session_id", "speak"}
    speak = spec["paths"]["/v1/voice/speak"]["post"]
    assert "application/json" in speak["requestBody"]["content"]
