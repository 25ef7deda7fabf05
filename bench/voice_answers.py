"""Spoken sample questions answered: the share the local pipeline answers correctly from the transcript, against
the same questions typed, and the latency from audio to the first answer token. Prints JSON.

    .venv/bin/python bench/voice_answers.py [--sets dev holdout | --questions FILE ...] [--per-set 0] [--voices 2]
        [--piper] [--noise clean] [--vocabulary route|none|repair|kb|kb+repair] [--lead-silence S] [--data-dir DIR]

`--questions FILE`: an answers file by its path (a new or blind set; tests/fixtures/answers' JSONL format).

The sample corpus is ingested into `--data-dir` (a fresh temporary folder by default) as `voiceassist serve`
does; no language model is configured, so the extractive composer answers, as `voiceassist eval answers` runs.
Each answerable question of the sets (tests/fixtures/answers) is asked typed once, then spoken by espeak-ng in
`--voices` of bench/voice_audio.VOICES at each `--noise` level, transcribed by the route's recognizer
(`--vocabulary route`, the default: deps.speech_to_text as the settings build it) or one of
bench/voice_audio.RECOGNIZERS (Whisper base with or without the knowledge base's prompt and transcript repair),
and asked with the transcript through
the same pipeline as /v1/voice/query (conversation.orchestrator.run), with the words the recognizer was unsure of
(`speech.unsure.spoken_question`, as the route sends them; before session 20's mic20 the bench sent none).
"Answered correctly" is voiceassist_local.evaluation.answers.answered_correctly: status answered, a citation from
the question's document, one of its must_contain phrases in the answer.

- `typed_correct`: share answered correctly when typed; `spoken_correct`: the same from the transcripts;
- `transcribed_well_enough`: among the questions answered correctly when typed, the share also answered
  correctly when spoken (what transcription costs; the issue's bar is 90 %);
- `audio_to_first_token_ms`: from the recording's bytes to the first `token` event (transcription + the query
  pipeline; the extractive composer emits its tokens once the answer is assembled), p50 and p95, with
  `transcription_ms` apart.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from typing import Any

from voice_audio import (
    RECOGNIZERS,
    VOICES,
    load_set,
    recognizer,
    sample_knowledge_base,
    speakers,
    with_lead_silence,
    with_noise,
)
from voiceassist_local.evaluation.answers import Question, answered_correctly

from voiceassist.adapters.local.espeak_tts import EspeakTextToSpeech
from voiceassist.conversation import orchestrator
from voiceassist.models import QueryRequest, QueryResponse
from voiceassist.speech.unsure import spoken_question


def ask(deps: Any, request: QueryRequest, began: float) -> tuple[QueryResponse, float | None]:
    """The pipeline's answer and when its first token event came (ms after `began`)."""
    first: list[float] = []

    def emit(event: dict[str, Any]) -> None:
        if event["type"] == "token" and not first:
            first.append((time.perf_counter() - began) * 1000)

    response = orchestrator.run(deps, request, user_id="bench-voice", trace_id=None, emit=emit)
    return response, first[0] if first else None


def percentiles(values: list[float]) -> dict[str, float] | None:
    if not values:
        return None
    ordered = sorted(values)
    return {"p50": round(statistics.median(ordered), 1),
            "p95": round(ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))], 1)}


def run(args: argparse.Namespace) -> dict[str, Any]:
    items = [s for name in args.sets for s in load_set(name, args.per_set) if s.answer.get("answerable")]
    deps = sample_knowledge_base(args.data_dir)
    # the route's recognizer, or Whisper with or without the route's prompt and repair
    stt = deps.speech_to_text if args.vocabulary == "route" else recognizer(args.vocabulary, deps.speech_vocabulary)
    stt.transcribe(EspeakTextToSpeech().synthesize("warm up"))  # the model loads once, not in a figure
    typed_ok: dict[str, bool] = {}
    for spoken in items:
        question = Question(spoken.text, True, spoken.answer.get("doc_key"), tuple(spoken.answer.get("must_contain",
                                                                                                     ())))
        typed_ok[spoken.text] = answered_correctly(
            question, ask(deps, QueryRequest(query=spoken.text[:4000]), time.perf_counter())[0])
    spoken_ok = asked = kept = typed_base = 0
    first_token: list[float] = []
    transcription: list[float] = []
    failures: list[dict[str, Any]] = []
    chosen = speakers(args.voices, args.piper)
    for voice, speaker in chosen:
        for number, spoken in enumerate(items):
            question = Question(spoken.text, True, spoken.answer.get("doc_key"),
                                tuple(spoken.answer.get("must_contain", ())))
            for level in args.noise:
                audio = with_noise(with_lead_silence(speaker.synthesize(spoken.text), args.lead_silence),
                                   None if level == "clean" else float(level), seed=number)
                began = time.perf_counter()
                transcript = stt.transcribe(audio)
                heard = transcript.text
                transcription.append((time.perf_counter() - began) * 1000)
                # asked as the voice routes ask it: with the words the recognizer was unsure of (speech/unsure.py)
                request = spoken_question(transcript)
                response, first = ask(deps, request, began) if heard.strip() else (None, None)
                ok = response is not None and answered_correctly(question, response)
                if first is not None:
                    first_token.append(first)
                asked += 1
                spoken_ok += ok
                typed_base += typed_ok[spoken.text]
                kept += ok and typed_ok[spoken.text]
                if typed_ok[spoken.text] and not ok:
                    failures.append({"voice": voice, "noise": level, "said": spoken.text,
                                     "heard": " ".join(w.word for w in transcript.words), "repaired": heard,
                                     "unsure": request.possibly_misheard,
                                     "status": response.metadata.answer_status.value if response else "silence"})
    return {
        "sets": args.sets, "questions": len(items), "voices": [voice for voice, _ in chosen],
        "noise_snr_db": args.noise, "asked": asked,
        "typed_correct": round(sum(typed_ok.values()) / len(items), 4),
        "spoken_correct": round(spoken_ok / asked, 4),
        "transcribed_well_enough": round(kept / typed_base, 4) if typed_base else None,
        "audio_to_first_token_ms": percentiles(first_token), "transcription_ms": percentiles(transcription),
        "vocabulary": args.vocabulary, "lead_silence_s": args.lead_silence, "load_average": os.getloadavg(),
        "lost_by_transcription": failures,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--sets", nargs="+", default=["dev", "holdout"])
    parser.add_argument("--questions", nargs="+", metavar="FILE", help="answers files by path (tests-style JSONL: "
                        "query, answerable, doc_key, must_contain), read in place of --sets")
    parser.add_argument("--per-set", type=int, default=0, help="questions per set (0: all)")
    parser.add_argument("--voices", type=int, default=2, choices=range(1, len(VOICES) + 1))
    parser.add_argument("--piper", action="store_true", help="speak with the Piper voice (piper:joe, the "
                        "voice-bench extra) instead of espeak-ng: other test data")
    parser.add_argument("--noise", nargs="+", default=["clean"])
    parser.add_argument("--lead-silence", type=float, default=0.0, help="seconds of silence before each recording")
    parser.add_argument("--vocabulary", default="route", choices=("route", *RECOGNIZERS))
    parser.add_argument("--data-dir", help="the sample knowledge base's folder (default: a new temporary one)")
    args = parser.parse_args()
    if args.questions:
        args.sets = args.questions
    print(json.dumps(run(args), indent=2))


if __name__ == "__main__":
    main()
