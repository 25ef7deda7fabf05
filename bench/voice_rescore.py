"""Transcripts already decoded, processed again: what a change to the text side of transcription (the cut of a
tail Whisper adds after the question, the transcript repair) does to the spoken questions answered, on the same
recordings and the same decodes. Prints JSON.

    .venv/bin/python bench/voice_rescore.py --sets dev holdout --decoded DIR [--data-dir KB] [--show]

DIR is a folder bench/voice_decoding.py filled (`--configs shipped`): its recordings and its cache of each
recording's transcript, as the route's recognizer heard it (`raw`, before the repair) and as it was repaired then
(`text`). Only the rows decoded with the knowledge base's current prompt terms are read (in any order: terms used
by as many passages are ranked by first appearance, and the order the store lists the documents in differs
between two ingestions of the sample corpus). Each is scored twice:

- `as_decoded`: the transcript as the code of the decoding run left it;
- `now`: the words as heard, through this code's text side: the echoed tail cut
  (adapters/local/whisper_stt.without_doubted_tail with the cache's word confidences, without_echoed_tail) and the
  route's correction (deps.speech_vocabulary.correct: PHI
  detected first, its spans left as heard; the words below `--doubted` confidence, from the cache's `confidences`
  since session 12, may be bent to a term that sounds like them).

With `--prompt-echo`, a decode whose words say a prompt term twice in a row (whisper_stt.echoes_prompt, the
recognizer's guard since session 14) is replaced by the same recording decoded without the prompt, as the route now
does: the cache's `no-prompt` row for it when voice_decoding.py made one, decoded here otherwise (and added to the
cache), so only the recordings the guard takes are decoded again.

`now` also asks with the words the route sends as possibly misheard (speech/unsure.py: heard below `--misheard`,
or known to no vocabulary; session 20), `as_decoded` with none, as before.

Decoding costs nothing here, so a text-side change is measured without the noise of a second decode (one decode
of the same recording differs between runs by about three questions in forty, docs/benchmarks.md "Voice").
Per speaker: questions, answered typed, answered spoken of those (both ways), the questions gained and lost, and
both ways the word error rate against the question as written (bench/voice_audio.distance, as voice_decoding.py) and
the drug names heard (the question's words of four letters or more that the drug dictionary holds, found in the
transcript); `--show` also lists every question lost (leave it off on a held-out set).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
from pathlib import Path
from typing import Any

from voice_audio import distance, load_set, sample_knowledge_base, words
from voice_decoding import read_cache
from voiceassist_local.evaluation.answers import Question, answered_correctly

from voiceassist.adapters.local.whisper_stt import (
    DOUBTED_WORD,
    WhisperSpeechToText,
    doubted_spans,
    echoes_prompt,
    without_doubted_tail,
    without_echoed_tail,
)
from voiceassist.conversation import orchestrator
from voiceassist.models import QueryRequest
from voiceassist.query.terminology import drug_names
from voiceassist.speech import TranscribedWord, Transcript
from voiceassist.speech.unsure import UNSURE_WORD, unsure_words
from voiceassist.speech.vocabulary import prompt_terms as terms_of


def text_now(raw: str, correct: Any, confidences: list[float] | None = None, doubted: float = DOUBTED_WORD) -> str:
    """The words as heard through this code's text side (the doubted and echoed tails, then the correction, told the
    words the recognizer doubted: below `doubted`, from the decode's word confidences when the cache has them). The
    cache keeps the words joined by spaces; Whisper's segment text, which the route repairs, writes a word that starts
    with a hyphen onto the word before it ("x -ray" is "x-ray", "CURB -65" is "CURB-65"), and so does this."""
    heard = raw.split()
    if confidences is None or len(confidences) != len(heard):
        confidences = [1.0] * len(heard)  # decoded before session 12, or a word holding a space: none doubted
    words = [TranscribedWord(word=word, start=n, end=n + 0.5, confidence=confidence)
             for n, (word, confidence) in enumerate(zip(heard, confidences, strict=True))]
    text, kept = without_echoed_tail(*without_doubted_tail(raw, words))
    text = re.sub(r" (?=-\S)", "", text)
    return str(correct(text, doubted_spans(text, kept, doubted)).text)


def misheard_words(text: str, raw: str, confidences: list[float] | None, threshold: float) -> list[str]:
    """The words the route sends as possibly misheard (speech.unsure.unsure_words) with the decode's text, its words
    as heard and their confidences (all 1.0 for a decode without them: only words no vocabulary knows); none when
    `threshold` is negative (the request as before session 20)."""
    heard = raw.split()
    if threshold < 0:
        return []
    if confidences is None or len(confidences) != len(heard):
        confidences = [1.0] * len(heard)
    words = [TranscribedWord(word=word, start=n, end=n + 0.5, confidence=confidence)
             for n, (word, confidence) in enumerate(zip(heard, confidences, strict=True))]
    transcript = Transcript(text=text, language="en", duration_seconds=len(words) / 2.0, confidence=1.0,
                            words=words, engine="cache")
    return unsure_words(transcript, threshold)


def prompt_terms(prompt: str | None) -> frozenset[str]:
    return frozenset((prompt or "").removesuffix(".").split(": ", 1)[-1].split(", "))


def run(args: argparse.Namespace) -> dict[str, Any]:
    items = [s for name in args.sets for s in load_set(name, 0) if s.answer.get("answerable")]
    by_digest = {hashlib.sha256(s.text.encode()).hexdigest()[:16]: s for s in items}
    deps = sample_knowledge_base(args.data_dir or args.decoded)
    prompt = prompt_terms(deps.speech_vocabulary.prompt())
    folder = Path(args.decoded)
    recordings = {hashlib.sha256(path.read_bytes()).hexdigest()[:16]: path.stem.rsplit("-", 1)[-1]
                  for path in (folder / "recordings").glob("*.wav")}

    def answered(text: str, question: Question, unsure: list[str] | None = None) -> bool:
        return bool(text.strip()) and answered_correctly(question, orchestrator.run(
            deps, QueryRequest(query=text[:4000], possibly_misheard=unsure or []), user_id="bench-voice",
            trace_id=None, emit=lambda event: None))

    questions = {s.text: Question(s.text, True, s.answer.get("doc_key"), tuple(s.answer.get("must_contain", ())))
                 for s in items}
    typed = {text: answered(text, question) for text, question in questions.items()}
    drugs = {name for name in drug_names() if " " not in name and len(name) > 3}
    results: dict[str, dict[str, Any]] = {}
    cache = read_cache(folder / "decoding-cache.jsonl")
    paths = {hashlib.sha256(path.read_bytes()).hexdigest()[:16]: path for path in (folder / "recordings").glob("*.wav")}
    echoes: list[str] = []

    def unprompted(speaker: str, digest: str, row_prompt: str) -> dict[str, Any]:
        """The recording decoded without the prompt (the cache's no-prompt row, or decoded now and cached)."""
        key = f"{speaker}|no-prompt|{digest}|{row_prompt}"
        if key not in cache:
            transcript = WhisperSpeechToText(prompt_echo_guard=False).transcribe(paths[digest].read_bytes())
            cache[key] = {"key": key, "text": transcript.text, "raw": " ".join(w.word for w in transcript.words),
                          "confidences": [w.confidence for w in transcript.words], "cpu": None,
                          "seconds": transcript.duration_seconds}
            with (folder / "decoding-cache.jsonl").open("a") as out:
                out.write(json.dumps(cache[key]) + "\n")
        return cache[key]

    for row in list(cache.values()):
        speaker, config, digest, row_prompt = row["key"].split("|", 3)
        spoken = by_digest.get(recordings.get(digest, ""))
        if config != "shipped" or prompt_terms(row_prompt) != prompt or spoken is None or "raw" not in row:
            continue
        heard_words = [TranscribedWord(word=word, start=0, end=0, confidence=1.0) for word in row["raw"].split()]
        if args.prompt_echo and echoes_prompt(heard_words, terms_of(row_prompt)):
            echoes.append(f"{speaker}: {spoken.text} -> {row['raw']}")
            row = {**unprompted(speaker, digest, row_prompt), "text": row["text"]}
        out = results.setdefault(speaker, {"questions": 0, "answered_typed": 0, "as_decoded": 0, "now": 0,
                                           "gained": [], "lost": [], "lost_now": [], "reference_words": 0,
                                           "errors": {"as_decoded": 0, "now": 0}, "drug_names": 0,
                                           "drug_names_heard": {"as_decoded": 0, "now": 0}})
        question = questions[spoken.text]
        now = text_now(row["raw"], deps.speech_vocabulary.correct, row.get("confidences"), args.doubted)
        before = typed[spoken.text] and answered(row["text"], question)
        unsure = misheard_words(now, row["raw"], row.get("confidences"), args.misheard)
        after = typed[spoken.text] and answered(now, question, unsure)
        out["questions"] += 1
        reference = words(spoken.text)
        out["reference_words"] += len(reference)
        out["drug_names"] += sum(w in drugs for w in reference)
        for way, text in (("as_decoded", row["text"]), ("now", now)):
            heard = words(text)
            out["errors"][way] += distance(reference, heard)
            out["drug_names_heard"][way] += sum(w in heard for w in reference if w in drugs)
        out["answered_typed"] += typed[spoken.text]
        out["as_decoded"] += before
        out["now"] += after
        if before != after:
            out["gained" if after else "lost"].append(f"{spoken.text} -> {row['text']} -> {now}")
        if typed[spoken.text] and not after:
            out["lost_now"].append(f"{spoken.text} -> {now}")
    for out in results.values():
        base = out["answered_typed"] or 1
        out["transcribed_well_enough"] = {"as_decoded": round(out["as_decoded"] / base, 4),
                                          "now": round(out["now"] / base, 4)}
        out["wer"] = {way: round(errors / (out["reference_words"] or 1), 4) for way, errors in out["errors"].items()}
        if not args.show:
            out["gained"], out["lost"] = len(out["gained"]), len(out["lost"])
            del out["lost_now"]
    return {"sets": args.sets, "load_average": os.getloadavg(), "results": results,
            **({"prompt_echoes": echoes if args.show else len(echoes)} if args.prompt_echo else {})}


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--sets", nargs="+", required=True)
    parser.add_argument("--decoded", required=True, help="a folder bench/voice_decoding.py filled")
    parser.add_argument("--data-dir", help="the sample knowledge base's folder (default: --decoded's, where "
                        "voice_decoding.py ingested it; another while a decoding run still writes there)")
    parser.add_argument("--doubted", type=float, default=DOUBTED_WORD, help="a word below this confidence is "
                        "doubted (whisper_stt.DOUBTED_WORD; 0: none, the correction before session 12)")
    parser.add_argument("--prompt-echo", action="store_true", help="a decode that says a prompt term twice in a "
                        "row is replaced by the recording decoded without the prompt (the route's guard)")
    parser.add_argument("--misheard", type=float, default=UNSURE_WORD, help="`now` asks with the words heard below "
                        "this confidence or known to no vocabulary as possibly misheard (speech.unsure.UNSURE_WORD; "
                        "0: unknown words only; negative: none, the request before session 20)")
    parser.add_argument("--show", action="store_true", help="list the questions lost, gained and changed")
    print(json.dumps(run(parser.parse_args()), indent=2))


if __name__ == "__main__":
    main()
