"""What partial transcripts cost on the voice WebSocket (GET /v1/voice/stream): the same spoken questions
streamed in real time to the local server with partials on and off, and (mode `post`) posted whole to
POST /v1/voice/transcribe after the time they took to say, as the web client does without the socket. Prints JSON.

    .venv/bin/python bench/voice_stream.py [--set dev] [--questions 6] [--chunk-ms 100] [--kb] [--data-dir DIR]
                                           [--modes partials,none[,post]]

Each question (tests/fixtures/answers/<set>.jsonl) is read by espeak-ng (en-us, 165 words a minute) and sent as
WAV in `--chunk-ms` pieces at the pace it was spoken, then {"type": "end"}, with "ask": false (the transcript
only: the answer costs the same either way). Modes alternate question by question (partials, then none, then
the next question). Reported per mode: the process's CPU seconds (every thread: the server's decodes and the
client, which costs little) per audio second, partial transcripts sent, and the wait from the end message to
the transcript (what the clinician waits for; with partials, a partial still decoding at the end is waited for
first; for `post`, from the request to the reply). `--kb`: the recognizer with the sample knowledge base's prompt
and repair, as `voiceassist serve` builds it (ingests the sample corpus into `--data-dir` first); without it,
Whisper with no prompt.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

from voice_audio import load_set, sample_knowledge_base
from websockets.sync.client import connect

from voiceassist.adapters.local.espeak_tts import EspeakTextToSpeech
from voiceassist.adapters.local.whisper_stt import WhisperSpeechToText, shared_model
from voiceassist.composition import Dependencies, use_dependencies
from voiceassist.settings import Settings


def stream(url: str, audio: bytes, *, partials: bool, chunk_ms: int) -> dict[str, Any]:
    byte_rate = int.from_bytes(audio[28:32], "little")
    step = max(2, byte_rate * chunk_ms // 1000 // 2 * 2)
    seconds = (len(audio) - 44) / byte_rate
    cpu = time.process_time()
    with connect(url, open_timeout=60, max_size=None) as socket:
        socket.send(json.dumps({"type": "start", "format": "audio/wav", "ask": False, "partials": partials}))
        began = time.monotonic()
        for index, offset in enumerate(range(0, len(audio), step)):
            time.sleep(max(0.0, began + index * chunk_ms / 1000 - time.monotonic()))
            socket.send(audio[offset:offset + step])
        socket.send(json.dumps({"type": "end"}))
        ended = time.monotonic()
        received = []
        while True:
            item = json.loads(socket.recv(timeout=600))
            received.append(item)
            if item["type"] != "partial":
                break
    return {"audio_s": seconds, "cpu_s": time.process_time() - cpu, "wait_s": time.monotonic() - ended,
            "partials": sum(item["type"] == "partial" for item in received),
            "text": received[-1]["data"].get("text", "")}


def post(url: str, audio: bytes) -> dict[str, Any]:
    """The whole recording posted once it has been said (the time to say it is waited, not counted)."""
    byte_rate = int.from_bytes(audio[28:32], "little")
    seconds = (len(audio) - 44) / byte_rate
    time.sleep(seconds)
    cpu = time.process_time()
    ended = time.monotonic()
    request = urllib.request.Request(url, data=audio, method="POST", headers={"content-type": "audio/wav"})
    with urllib.request.urlopen(request, timeout=600) as reply:  # noqa: S310 - the local server
        transcript = json.loads(reply.read())
    return {"audio_s": seconds, "cpu_s": time.process_time() - cpu, "wait_s": time.monotonic() - ended,
            "partials": 0, "text": transcript.get("text", "")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", default="dev")
    parser.add_argument("--questions", type=int, default=6)
    parser.add_argument("--chunk-ms", type=int, default=100)
    parser.add_argument("--kb", action="store_true")
    parser.add_argument("--data-dir")
    parser.add_argument("--modes", default="partials,none", help="partials, none and post, in turn per question")
    args = parser.parse_args()
    from voiceassist_local.server import make_server

    if args.kb:  # the route's recognizer: the knowledge base's prompt and repair
        deps = sample_knowledge_base(args.data_dir)
    else:
        deps = Dependencies(Settings(data_dir=Path(args.data_dir or tempfile.mkdtemp(prefix="bench-voice-stream-"))))
        deps.speech_to_text = WhisperSpeechToText()  # type: ignore[misc]
    use_dependencies(deps)
    shared_model()  # loaded before the clock starts
    server = make_server("127.0.0.1", 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"ws://127.0.0.1:{server.server_address[1]}/v1/voice/stream"
    post_url = f"http://127.0.0.1:{server.server_address[1]}/v1/voice/transcribe"
    speaker = EspeakTextToSpeech()
    runs: dict[str, list[dict[str, Any]]] = {mode: [] for mode in args.modes.split(",")}
    for spoken in load_set(args.set, args.questions):
        audio = speaker.synthesize(spoken.text)
        for mode in runs:
            runs[mode].append(post(post_url, audio) if mode == "post" else
                              stream(url, audio, partials=mode == "partials", chunk_ms=args.chunk_ms))
    server.shutdown()
    report: dict[str, Any] = {"set": args.set, "questions": args.questions, "kb": args.kb,
                              "load_average": os.getloadavg()}
    for mode, rows in runs.items():
        audio_s = sum(r["audio_s"] for r in rows)
        report[mode] = {"audio_s": round(audio_s, 1), "cpu_s": round(sum(r["cpu_s"] for r in rows), 1),
                        "cpu_per_audio_s": round(sum(r["cpu_s"] for r in rows) / audio_s, 2),
                        "partials_per_question": round(sum(r["partials"] for r in rows) / len(rows), 2),
                        "wait_after_end_s_mean": round(sum(r["wait_s"] for r in rows) / len(rows), 2),
                        "wait_after_end_s_max": round(max(r["wait_s"] for r in rows), 2)}
    for mode in ("partials", "post"):
        if mode in runs and "none" in runs:
            report[f"cpu_ratio_{mode}_to_none"] = round(report[mode]["cpu_s"] / report["none"]["cpu_s"], 2)
            report[f"wait_ratio_{mode}_to_none"] = round(report[mode]["wait_after_end_s_mean"]
                                                         / report["none"]["wait_after_end_s_mean"], 2)
            report[f"same_transcripts_{mode}_and_none"] = sum(
                a["text"] == b["text"] for a, b in zip(runs[mode], runs["none"], strict=True))
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
