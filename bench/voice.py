"""Speech recognition on spoken clinical questions: word error rate overall and on drug names, real-time factor.

    .venv/bin/python bench/voice.py [--sets dev holdout] [--limit 0] [--threads 2]

The sample-corpus questions (tests/fixtures/answers/<set>.jsonl) are spoken by Debian's espeak-ng with two
voices and speeds (VOICES: American English at 165 words a minute, the adapter's default; British English at
135), then transcribed by the local SpeechToText adapter exactly as /v1/voice builds it (WhisperSpeechToText:
Whisper base, int8, beam 5, `--threads` CPU threads). Clean synthesized speech, no noise. `--vocabulary`
passes Whisper an initial prompt naming the drugs the sample corpus's documents name (corpus_vocabulary).

Word error rate = word-level Levenshtein distance / reference words, after lower-casing and dropping
punctuation on both sides ("2,000" -> "2000"), summed over questions. Drug names: every reference word that is
a drug name of the concept layer's list (voiceassist.query.terminology.drug_names, from sourced data) counts as
right when the transcript has the same word; `drug_accuracy` is their share. `answerable_words_exact`: the
share of questions transcribed word for word. Real-time factor = transcription seconds / audio seconds (the
model load, once, excluded and reported apart; lower is faster), on the wall clock and as CPU seconds (both
threads' CPU time per audio second: what a shared, loaded machine changes least); the load average is
printed with them. Prints JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import time
from pathlib import Path
from typing import Any

from voiceassist.adapters.local.espeak_tts import EspeakTextToSpeech
from voiceassist.adapters.local.whisper_stt import WhisperSpeechToText, shared_model
from voiceassist.query.terminology import drug_names

ANSWERS = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "answers"
CORPUS = Path(__file__).resolve().parents[1] / "samples" / "corpus"
VOICES = (("en-us", 165), ("en-gb", 135))
_WORD = re.compile(r"[a-z0-9]+(?:['.][a-z0-9]+)*")


def words(text: str) -> list[str]:
    return _WORD.findall(text.lower().replace(",", ""))


def distance(reference: list[str], hypothesis: list[str]) -> int:
    previous = list(range(len(hypothesis) + 1))
    for i, ref in enumerate(reference, 1):
        current = [i]
        for j, hyp in enumerate(hypothesis, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ref != hyp)))
        previous = current
    return previous[-1]


def questions(sets: list[str]) -> list[str]:
    found: list[str] = []
    for name in sets:
        for line in (ANSWERS / f"{name}.jsonl").read_text(encoding="utf-8").splitlines():
            if line.strip():
                found.append(json.loads(line)["query"])
    return found


def corpus_vocabulary() -> str:
    """Whisper's initial prompt for --vocabulary: the drug names (concept layer) the sample corpus's documents
    use, in the order they first appear; never the questions' own words."""
    seen: dict[str, None] = {}
    names = drug_names()
    for path in sorted(CORPUS.iterdir()):
        if path.suffix in {".md", ".html", ".txt"}:
            for word in words(path.read_text(encoding="utf-8", errors="replace")):
                if word in names and len(word) > 3:
                    seen.setdefault(word, None)
    return "Clinical question. Drugs: " + ", ".join(seen) + "."


def run(sets: list[str], limit: int, threads: int, vocabulary: bool = False) -> dict[str, Any]:
    texts = questions(sets)[: limit or None]
    drugs = {name for name in drug_names() if " " not in name and len(name) > 3}
    started = time.perf_counter()
    shared_model("int8", threads)
    load_seconds = time.perf_counter() - started
    prompt = corpus_vocabulary() if vocabulary else None
    recognizer = WhisperSpeechToText(threads=threads, initial_prompt=prompt)
    per_voice: dict[str, dict[str, float]] = {}
    errors = reference_words = drug_total = drug_right = exact = 0
    audio_seconds = transcribe_seconds = cpu_seconds = 0.0
    misheard: list[dict[str, str]] = []
    for voice, speed in VOICES:
        speaker = EspeakTextToSpeech(voice=voice, words_per_minute=speed)
        v_errors = v_words = 0
        for text in texts:
            audio = speaker.synthesize(text)
            began, began_cpu = time.perf_counter(), time.process_time()
            transcript = recognizer.transcribe(audio)
            transcribe_seconds += time.perf_counter() - began
            cpu_seconds += time.process_time() - began_cpu
            audio_seconds += transcript.duration_seconds
            reference, hypothesis = words(text), words(transcript.text)
            wrong = distance(reference, hypothesis)
            v_errors, v_words = v_errors + wrong, v_words + len(reference)
            exact += wrong == 0
            spoken_drugs = [w for w in reference if w in drugs]
            drug_total += len(spoken_drugs)
            drug_right += sum(w in hypothesis for w in spoken_drugs)
            if any(w not in hypothesis for w in spoken_drugs):
                misheard.append({"voice": voice, "said": text, "heard": transcript.text})
        per_voice[f"{voice}@{speed}wpm"] = {"wer": round(v_errors / v_words, 4), "words": v_words}
        errors, reference_words = errors + v_errors, reference_words + v_words
    return {
        "questions": len(texts), "initial_prompt": prompt, "voices": [f"{v}@{s}wpm" for v, s in VOICES],
        "threads": threads,
        "wer": round(errors / reference_words, 4), "per_voice": per_voice,
        "drug_words": drug_total, "drug_accuracy": round(drug_right / drug_total, 4) if drug_total else None,
        "exact_transcripts": round(exact / (len(texts) * len(VOICES)), 4),
        "audio_seconds": round(audio_seconds, 1), "transcribe_seconds": round(transcribe_seconds, 1),
        "real_time_factor": round(transcribe_seconds / audio_seconds, 3), "model_load_seconds": round(load_seconds, 1),
        "cpu_seconds_per_audio_second": round(cpu_seconds / audio_seconds, 3), "load_average": os.getloadavg(),
        "drug_names_misheard": misheard,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", nargs="+", default=["dev"])
    parser.add_argument("--limit", type=int, default=0, help="first N questions only (0: all)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--vocabulary", action="store_true",
                        help="bias Whisper with the sample corpus's drug names (initial prompt)")
    args = parser.parse_args()
    print(json.dumps(run(args.sets, args.limit, args.threads, args.vocabulary), indent=2))


if __name__ == "__main__":
    main()
