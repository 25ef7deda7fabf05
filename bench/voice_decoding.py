"""Whisper decoding options against spoken sample questions: which of faster-whisper's options, or a second decode
chosen by a language-model-free score, gets more spoken questions answered. Prints JSON.

    .venv/bin/python bench/voice_decoding.py [--sets dev holdout] [--speakers espeak piper]
        [--configs shipped vad ...] --data-dir DIR

The protocol was fixed before the first run (issue 29, session 6): the tuning sets only (dev + holdout; the held-out
sets holdout2-4 and blind5 were read already and are not read again to choose), both speakers (espeak-ng en-us at
165 wpm, the route's synthesizer, and Piper's joe voice), clean audio, one decode per question, speaker and
configuration, the configurations interleaved question by question so that the machine's load falls on all of
them alike. Every configuration is the route's recognizer (Whisper base int8, 2 threads, beam 5, temperature 0, the
token bound, word timings, the knowledge base's prompt and the transcript repair: `shipped`) with one change:

- `vad`: `vad_filter=True` (Silero VAD, shipped inside faster-whisper): silence cut before decoding;
- `no-timestamp-tokens`: `without_timestamps=True` (text tokens only; word timings still come from alignment);
- `beam10`: `beam_size=10`;
- `fallback`: temperatures 0, 0.2, ..., 1.0 with faster-whisper's thresholds (compression ratio 2.4, log prob -1):
  a window decoded again when it looks like a loop or is unsure (the token bound stays);
- `length-penalty`: `length_penalty=0.6` (beam scores divided by length^0.6, not length^1: shorter hypotheses);
- `hotwords` (not run by default): the prompt passed as `hotwords` instead of `initial_prompt`. In faster-whisper
  1.2.1 (`WhisperModel.get_prompt`) both are the same tokens in the same place (after <|startofprev|>, " " + the
  text, at most 223 tokens) for a recording of one 30 s window, so on a spoken question they decode alike;
  hotwords differ only in being repeated for every later window;
- `no-prompt` (not run by default): no initial prompt (the repair stays): what the vocabulary biasing is worth;
- `pick-prompt`: two decodes, with and without the prompt; the transcript with the larger share of known words
  (`known_share`) wins, the prompted one on a tie;
- `second-pass`: when the repaired transcript holds a word that is not known, a second decode whose prompt starts
  with the knowledge base's terms that sound nearest each unknown word (3 each, by Metaphone key), then the usual
  terms; the transcript with the larger share of known words wins, the first on a tie.

A word is known when it is an English word (Zipf >= 3 in _data/speech/english_words.tsv.gz), one of the knowledge
base's 2,000 terms (the repair's), or a number. Decided before the run: a configuration wins when it answers at least
as many spoken questions as `shipped` with both speakers and more with one, its WER (both speakers pooled) is not
0.5 points worse, and it costs at most 1.3x `shipped`'s CPU seconds per audio second (more only for two questions
or more per speaker, said with its cost).

Per configuration and speaker: `answered_spoken` (of the questions answered correctly typed, as
bench/voice_answers.py), `wer` (bench/voice_audio.distance on the repaired transcript), `drug_names_heard`
(question words the drug dictionary holds, 4+ letters, found in the repaired transcript), `cpu_per_audio_second`
(process CPU, all threads, over every decode the configuration makes) and what it lost or gained against shipped.
Transcripts are kept in DIR/decoding-cache.jsonl, so a run with more configurations decodes only the new ones, and
the recordings in DIR/recordings (Piper's output differs between processes). A second process with `--reverse` on
the same DIR decodes from the other end of the list; a last run without it prints the summary from the cache.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import time
from difflib import SequenceMatcher
from pathlib import Path
from typing import Any

from voice_audio import PiperSpeaker, distance, load_set, sample_knowledge_base, words
from voiceassist_local.evaluation.answers import Question, answered_correctly

from voiceassist.adapters.local.espeak_tts import EspeakTextToSpeech
from voiceassist.adapters.local.whisper_stt import WhisperSpeechToText
from voiceassist.conversation import orchestrator
from voiceassist.models import QueryRequest
from voiceassist.query.terminology import drug_names
from voiceassist.speech import Transcript
from voiceassist.speech.repair import letters, sound
from voiceassist.speech.vocabulary import (
    MAX_REPAIR_TERMS,
    KnowledgeBaseVocabulary,
    english_words,
    indexed_passages,
    initial_prompt,
    vocabulary_terms,
)

CONFIGS = ("shipped", "vad", "no-timestamp-tokens", "beam10", "fallback", "pick-prompt", "second-pass",
           "length-penalty", "hotwords", "no-prompt")
OPTIONS: dict[str, dict[str, Any]] = {
    "shipped": {}, "vad": {"vad_filter": True}, "no-timestamp-tokens": {"without_timestamps": True},
    "beam10": {"beam_size": 10}, "length-penalty": {"length_penalty": 0.6},
    "fallback": {"temperature": (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)},
}
NEAREST_PER_WORD = 3


def known_share(text: str, terms: frozenset[str]) -> float:
    """The share of the transcript's words that are English words, knowledge-base terms or numbers."""
    said = [w.strip(".'") for w in words(text)]
    said = [w for w in said if w]
    if not said:
        return 0.0
    english = english_words()
    return sum(w in english or w in terms or w.replace(".", "").isdigit() for w in said) / len(said)


def unknown_words(text: str, terms: frozenset[str]) -> list[str]:
    english = english_words()
    return [w for w in words(text) if len(w) >= 3 and w not in english and w not in terms and not w.isdigit()]


def nearest_terms(word: str, terms: list[str], count: int = NEAREST_PER_WORD) -> list[str]:
    """The knowledge-base terms whose Metaphone key is nearest the unknown word's."""
    heard = sound(letters(word))
    ranked = sorted(terms, key=lambda term: -SequenceMatcher(None, heard, sound(letters(term))).ratio())
    return ranked[:count]


class Recognizers:
    """Each configuration as audio -> (repaired text, decodes' CPU seconds, audio seconds)."""

    def __init__(self, vocabulary: KnowledgeBaseVocabulary, terms: list[str]) -> None:
        self.vocabulary = vocabulary
        self.terms = terms
        self.known = frozenset(letters(t) for t in terms) | frozenset(t.lower() for t in terms)
        self.prompted = {name: WhisperSpeechToText(vocabulary=vocabulary.prompt, repair=vocabulary.repair, **options)
                         for name, options in OPTIONS.items()}
        self.bare = WhisperSpeechToText(repair=vocabulary.repair)
        self.hotwords = WhisperSpeechToText(repair=vocabulary.repair, hotwords=vocabulary.prompt())
        self._first: dict[str, tuple[Transcript, float]] = {}

    def first(self, audio: bytes) -> tuple[Transcript, float]:
        """The shipped recognizer's transcript and its CPU seconds, decoded once per recording: the two-decode
        configurations start from it and are charged its CPU."""
        key = hashlib.sha256(audio).hexdigest()
        if key not in self._first:
            began = time.process_time()
            transcript = self.prompted["shipped"].transcribe(audio)
            self._first = {key: (transcript, time.process_time() - began)}
        return self._first[key]

    def run(self, name: str, audio: bytes) -> tuple[str, str, list[float], float, float]:
        if name == "shipped" or name in ("pick-prompt", "second-pass"):
            transcript, charged = self.first(audio)
        else:
            charged = 0.0
        began = time.process_time()
        if name in self.prompted and name != "shipped":
            transcript = self.prompted[name].transcribe(audio)
        elif name == "hotwords":
            transcript = self.hotwords.transcribe(audio)
        elif name == "no-prompt":
            transcript = self.bare.transcribe(audio)
        elif name == "pick-prompt":
            second = self.bare.transcribe(audio)
            if known_share(second.text, self.known) > known_share(transcript.text, self.known):
                transcript = second
        elif name == "second-pass":
            unknown = unknown_words(transcript.text, self.known)
            if unknown:
                near = [t for w in unknown for t in nearest_terms(w, self.terms)]
                prompt = initial_prompt(dict.fromkeys(near + self.terms[:60]))
                again = WhisperSpeechToText(initial_prompt=prompt, repair=self.vocabulary.repair).transcribe(audio)
                if known_share(again.text, self.known) > known_share(transcript.text, self.known):
                    transcript = again
        elif name != "shipped":
            raise ValueError(name)
        heard = " ".join(word.word for word in transcript.words)  # before the repair
        confidences = [word.confidence for word in transcript.words]  # the recognizer's, word by word
        return transcript.text, heard, confidences, charged + time.process_time() - began, transcript.duration_seconds


def read_cache(path: Path) -> dict[str, dict[str, Any]]:
    if not path.exists():
        return {}
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.endswith("}")]
    return {row["key"]: row for row in rows}


def recording(folder: Path, speaker_name: str, voice: Any, text: str) -> bytes:
    """The question's recording by the speaker, made once and kept in the folder: Piper's output differs between
    processes, and a second process (--reverse) must decode the same recording as the first."""
    path = folder / "recordings" / f"{speaker_name}-{hashlib.sha256(text.encode()).hexdigest()[:16]}.wav"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(voice.synthesize(text))
    return path.read_bytes()


def speaker(name: str) -> Any:
    return PiperSpeaker() if name == "piper" else EspeakTextToSpeech(voice="en-us", words_per_minute=165)


def run(args: argparse.Namespace) -> dict[str, Any]:
    items = [s for name in args.sets for s in load_set(name, 0) if s.answer.get("answerable")]
    deps = sample_knowledge_base(args.data_dir)
    vocabulary = deps.speech_vocabulary  # the route's: its prompt, and its repair after the PHI check
    terms = vocabulary_terms(indexed_passages(deps.documents, deps.index), max_terms=MAX_REPAIR_TERMS)
    recognizers = Recognizers(vocabulary, terms)
    drugs = {name for name in drug_names() if " " not in name and len(name) > 3}
    cache_file = Path(args.data_dir) / "decoding-cache.jsonl"
    cache = read_cache(cache_file)

    def asked(text: str, spoken: Any) -> bool:
        question = Question(spoken.text, True, spoken.answer.get("doc_key"), tuple(spoken.answer.get("must_contain",
                                                                                                     ())))
        if not text.strip():
            return False
        return answered_correctly(question, orchestrator.run(deps, QueryRequest(query=text[:4000]),
                                                             user_id="bench-voice", trace_id=None,
                                                             emit=lambda event: None))

    typed = {s.text: asked(s.text, s) for s in items}
    results: dict[str, dict[str, Any]] = {}
    for speaker_name in args.speakers:
        voice = speaker(speaker_name)
        rows: dict[str, list[dict[str, Any]]] = {name: [] for name in args.configs}
        for spoken in (reversed(items) if args.reverse else items):
            audio = recording(Path(args.data_dir), speaker_name, voice, spoken.text)
            digest = hashlib.sha256(audio).hexdigest()[:16]
            for name in args.configs:
                key = f"{speaker_name}|{name}|{digest}|{vocabulary.prompt()}"
                if key not in cache:
                    cache.update(read_cache(cache_file))  # another process on the other end of the list
                if key not in cache:
                    text, raw, confidences, cpu, seconds = recognizers.run(name, audio)
                    cache[key] = {"key": key, "text": text, "raw": raw, "confidences": confidences, "cpu": cpu,
                                  "seconds": seconds}
                    with cache_file.open("a") as out:
                        out.write(json.dumps(cache[key]) + "\n")
                row = cache[key]
                reference, heard = words(spoken.text), words(row["text"])
                rows[name].append({"said": spoken.text, "heard": row["text"], "cpu": row["cpu"],
                                   "seconds": row["seconds"], "errors": distance(reference, heard),
                                   "reference": len(reference), "drugs": [w for w in reference if w in drugs],
                                   "drugs_heard": sum(w in heard for w in reference if w in drugs),
                                   "typed": typed[spoken.text],
                                   "ok": typed[spoken.text] and asked(row["text"], spoken)})
        results[speaker_name] = {name: summary(rows[name], rows.get("shipped"), sum(typed.values()))
                                 for name in args.configs}
    return {"sets": args.sets, "questions": len(items), "answered_typed": sum(typed.values()),
            "prompt": vocabulary.prompt(), "load_average": os.getloadavg(), "results": results}


def summary(rows: list[dict[str, Any]], shipped: list[dict[str, Any]] | None, base: int) -> dict[str, Any]:
    audio = sum(r["seconds"] for r in rows)
    out: dict[str, Any] = {
        "answered_spoken": f"{sum(r['ok'] for r in rows)}/{base}",
        "wer": round(sum(r["errors"] for r in rows) / sum(r["reference"] for r in rows), 4),
        "errors": sum(r["errors"] for r in rows), "reference_words": sum(r["reference"] for r in rows),
        "drug_names_heard": f"{sum(r['drugs_heard'] for r in rows)}/{sum(len(r['drugs']) for r in rows)}",
        "cpu_per_audio_second": round(sum(r["cpu"] for r in rows) / audio, 3) if audio else None,
    }
    if shipped is not None and rows is not shipped:
        out["gained"] = [f"{r['said']} -> {r['heard']}" for r, s in zip(rows, shipped, strict=True)
                         if r["ok"] and not s["ok"]]
        out["lost"] = [f"{r['said']} -> {r['heard']}" for r, s in zip(rows, shipped, strict=True)
                       if s["ok"] and not r["ok"]]
    else:
        out["lost_by_transcription"] = [f"{r['said']} -> {r['heard']}" for r in rows if r["typed"] and not r["ok"]]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--sets", nargs="+", default=["dev", "holdout"])
    parser.add_argument("--speakers", nargs="+", default=["espeak", "piper"], choices=("espeak", "piper"))
    parser.add_argument("--configs", nargs="+", choices=CONFIGS,
                        default=[c for c in CONFIGS if c not in ("hotwords", "no-prompt")])
    parser.add_argument("--reverse", action="store_true", help="decode the questions last to first (a second "
                        "process sharing --data-dir's cache; run once more without it for the summary)")
    parser.add_argument("--data-dir", required=True, help="the sample knowledge base's folder and the cache")
    print(json.dumps(run(parser.parse_args()), indent=2))


if __name__ == "__main__":
    main()
