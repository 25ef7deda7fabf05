"""What a recording with no speech in it costs the local recognizer, and what it is heard as: silence, white noise
at two levels and a spoken question, each transcribed by the route's recognizer (Whisper base int8, beam 5,
2 threads) with the speech gate (Silero VAD before decoding, adapters/local/whisper_stt.SPEECH_GATE) off and on.
Prints JSON.

    .venv/bin/python bench/voice_nospeech.py [--repeats 3] [--seconds 1 5] [--threads 2] [--prompt TEXT]
    .venv/bin/python bench/voice_nospeech.py --spoken dev holdout tests/fixtures/answers/blind12_spoken.jsonl

Recordings (16 kHz 16-bit mono WAV, made here; the noise seeded): `silence` (digital zero), `noise-40dBFS` and
`noise-20dBFS` (white Gaussian noise at an RMS of -40 and -20 dB below full scale: a quiet room's hiss and a loud
fan), each `--seconds` long, and `question`: the first question of tests/fixtures/answers/dev.jsonl read by
espeak-ng (en-us, 165 words a minute). Gate off and on alternate recording by recording, after one warm-up
decode, so the machine's load falls on both alike. Per recording and gate: the process's CPU seconds (all
threads) per request, median and max of `--repeats`, the wall seconds, and the text heard (the non-speech
recordings are synthetic, so their transcripts are printed). `--prompt`: Whisper's initial prompt for both (as the
route's knowledge-base vocabulary gives it: "Clinical question. Terms: ..."), where Whisper writes words into noise.

`--spoken SET ...`: what the gate could cost instead: each question of the sets (bench/voice_audio.load_set, all of
them) read by the three espeak-ng VOICES, clean and with white noise at 20 and 10 dB SNR (bench/voice_audio.with_noise,
seeded by the question's index), and the count Silero VAD judges to hold no speech (each would be answered "no speech
was heard"). No decode: the gate lets speech through whole, so it changes no transcript it lets through.

`--vad-cost`: what the gate itself costs and whether its two runs agree (session 14): per recording (the ones above,
`--seconds` long, plus 60 s of noise, the longest a route takes), the CPU seconds of speech/vad.py (numpy; what both
adapters run, the AWS one from the WAV's bytes with `wav_samples`) and of faster-whisper's own Silero run
(onnxruntime, `get_speech_timestamps` on PyAV's samples: what the local gate ran in session 13), median of
`--repeats`, and each one's verdict.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import statistics
import sys
import time
import wave
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

RATE = 16_000


def wav_of(samples: Any) -> bytes:
    out = io.BytesIO()
    with wave.open(out, "wb") as target:
        target.setnchannels(1)
        target.setsampwidth(2)
        target.setframerate(RATE)
        target.writeframes(np.clip(samples * 32767, -32768, 32767).astype("<i2").tobytes())
    return out.getvalue()


def recordings(seconds: list[float]) -> dict[str, bytes]:
    out: dict[str, bytes] = {}
    for length in seconds:
        n = int(RATE * length)
        out[f"silence-{length:g}s"] = wav_of(np.zeros(n))
        for dbfs in (-40, -20):
            noise = np.random.default_rng(n + dbfs).normal(0.0, 10 ** (dbfs / 20), n)
            out[f"noise{dbfs}dBFS-{length:g}s"] = wav_of(noise)
    from voiceassist.adapters.local.espeak_tts import EspeakTextToSpeech

    question = json.loads((ROOT / "tests/fixtures/answers/dev.jsonl").read_text().splitlines()[0])["query"]
    out["question"] = EspeakTextToSpeech(voice="en-us", words_per_minute=165).synthesize(question)
    return out


def spoken_verdicts(sets: list[str]) -> dict[str, dict[str, int]]:
    from voice_audio import load_set, speakers, with_noise

    from voiceassist.adapters.local.whisper_stt import decoded, speech_found

    out: dict[str, dict[str, int]] = {}
    for name in sets:
        items = load_set(name, 0)
        for label, speaker in speakers(3, False):
            for snr in (None, 20.0, 10.0):
                speechless = sum(not speech_found(decoded(with_noise(speaker.synthesize(item.text), snr, i)))
                                 for i, item in enumerate(items))
                out[f"{name}|{label}|{snr or 'clean'}"] = {"questions": len(items), "no_speech": speechless}
    return out


def vad_cost(seconds: list[float], repeats: int) -> dict[str, dict[str, Any]]:
    from faster_whisper.vad import VadOptions, get_speech_timestamps

    from voiceassist.adapters.local.whisper_stt import decoded
    from voiceassist.speech import vad

    audio = recordings([*seconds, 60.0])
    audio = {name: wav for name, wav in audio.items() if "60s" not in name or name.startswith("noise-20")}
    runs = {"numpy": lambda wav: vad.speech_found(vad.wav_samples(wav)),
            "onnxruntime": lambda wav: bool(get_speech_timestamps(decoded(wav), VadOptions()))}
    for run in runs.values():
        run(audio["question"])  # warm-up: the weights and the ONNX session load once
    out: dict[str, dict[str, Any]] = {}
    for name, wav in audio.items():
        row: dict[str, Any] = {}
        for label, run in runs.items():
            cpu = []
            for _ in range(repeats):
                began = time.process_time()
                verdict = run(wav)
                cpu.append(time.process_time() - began)
            row[label] = {"cpu_s": round(statistics.median(cpu), 4), "speech": verdict}
        out[name] = row
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seconds", type=float, nargs="+", default=[1.0, 5.0])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--prompt", default=None, help="Whisper's initial prompt (both gates)")
    parser.add_argument("--spoken", nargs="+", metavar="SET", help="count spoken questions judged speechless")
    parser.add_argument("--vad-cost", action="store_true", help="the gate's own cost, numpy and onnxruntime")
    args = parser.parse_args()
    if args.vad_cost:
        print(json.dumps({"vad_cost": vad_cost(args.seconds, args.repeats), "load_average": os.getloadavg()},
                         indent=2))
        return
    if args.spoken:
        verdicts = spoken_verdicts(args.spoken)
        print(json.dumps({"no_speech": sum(v["no_speech"] for v in verdicts.values()),
                          "recordings": sum(v["questions"] for v in verdicts.values()), "by_set": verdicts}, indent=1))
        return
    from voiceassist.adapters.local.whisper_stt import WhisperSpeechToText

    gates = {"gate_off": WhisperSpeechToText(threads=args.threads, initial_prompt=args.prompt, speech_gate=False),
             "gate_on": WhisperSpeechToText(threads=args.threads, initial_prompt=args.prompt, speech_gate=True)}
    audio = recordings(args.seconds)
    for recognizer in gates.values():  # the model and the VAD loaded outside the measurement
        recognizer.transcribe(audio["question"])
    cpu: dict[tuple[str, str], list[float]] = {}
    wall: dict[tuple[str, str], list[float]] = {}
    heard: dict[tuple[str, str], str] = {}
    for _ in range(args.repeats):
        for name, wav in audio.items():
            for gate, recognizer in gates.items():
                started, ticks = time.perf_counter(), time.process_time()
                transcript = recognizer.transcribe(wav)
                cpu.setdefault((name, gate), []).append(time.process_time() - ticks)
                wall.setdefault((name, gate), []).append(time.perf_counter() - started)
                heard[(name, gate)] = transcript.text
    rows = [{"recording": name, "gate": gate, "cpu_s_median": round(statistics.median(cpu[(name, gate)]), 3),
             "cpu_s_max": round(max(cpu[(name, gate)]), 3),
             "wall_s_median": round(statistics.median(wall[(name, gate)]), 3), "heard": heard[(name, gate)]}
            for name in audio for gate in gates]
    print(json.dumps({"threads": args.threads, "repeats": args.repeats, "prompt": args.prompt,
                      "load_average": os.getloadavg(),
                      "rows": rows}, indent=1))


if __name__ == "__main__":
    main()
