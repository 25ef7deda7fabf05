"""PHI on spoken questions: the PHI detector's recall per kind of value on the route's transcripts against the same
questions typed, the over-routing on spoken questions without PHI, and what the voice rule (speech/phi_doubt.py)
adds. Prints JSON.

    .venv/bin/python bench/voice_phi.py decode --sets phi records tests/fixtures/answers/blind17_spoken.jsonl \
        --per-set 30 --speaker espeak|piper --out DIR [--data-dir KB]
    .venv/bin/python bench/voice_phi.py score --out DIR [--sets ...] [--show]

`decode` speaks each question (bench/voice_phi_probes.py: the sets, and which form the speaker reads) with espeak-ng
(en-us, 165 words a minute, the route's synthesizer) or Piper's joe voice, transcribes it with the route's recognizer
(deps.speech_to_text of the sample knowledge base: Whisper base with the knowledge base's prompt and repair), and
appends the transcript with its words and their probabilities to DIR/decodes.jsonl (a recording decoded once; run
it again to go on). `score` reads that file, with no decoding, and reports per set and speaker:

- `typed` / `heard`: the detector (deps.phi_detector, as the query's Detect PHI step) on the typed question and on
  the transcript as the route reads it now (speech/phi_doubt.detector_text: the transcript's number words as digits);
  `heard_as_written` is the transcript as Whisper wrote it (the detector before session 20's change).
- `kept_in`: questions the route keeps in the boundary: PHI detected, or the voice rule's doubt (a word heard unsure
  where PHI could sit; `--rule off` leaves it out).
- per kind (name, date, age, record, phone, address, other): values found (a word of the value, or for a number
  its digits, inside a detected span) typed, heard as written and heard now; and the values whose question is
  kept inside (`typed_kept_in`, `kept_in_before`: the detector on the transcript as written, `kept_in`: now), the
  share that matters for the leak (a value in a question routed in never reaches the cloud model).
A set without PHI (spoken answers files, `clinical`) reports the same shares as over-routing.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from voice_phi_probes import Probe, load

from voiceassist.speech.phi_doubt import PHI_UNSURE_WORD

_WORD = re.compile(r"[a-z0-9]+")


def key(speaker: str, probe: Probe) -> str:
    return f"{speaker}|{hashlib.sha256(probe.said.encode()).hexdigest()[:16]}"


def decode(args: argparse.Namespace) -> None:
    from voice_audio import PiperSpeaker, sample_knowledge_base

    from voiceassist.adapters.local.espeak_tts import EspeakTextToSpeech

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    cache = out / "decodes.jsonl"
    done = {json.loads(line)["key"] for line in cache.read_text().splitlines()} if cache.exists() else set()
    deps = sample_knowledge_base(args.data_dir)
    stt = deps.speech_to_text
    speaker = PiperSpeaker() if args.speaker == "piper" else EspeakTextToSpeech(voice="en-us", words_per_minute=165)
    sets = [load(name, args.per_set)[args.skip:] for name in args.sets]
    longest = max(map(len, sets))
    order = [p for row in zip(*[s + [None] * (longest - len(s)) for s in sets], strict=True) for p in row if p]
    for probe in order:
        if key(args.speaker, probe) in done:
            continue
        began = time.process_time()
        transcript = stt.transcribe(speaker.synthesize(probe.said))
        row = {"key": key(args.speaker, probe), "set": probe.set_name, "speaker": args.speaker,
               "transcript": transcript.model_dump(mode="json"), "cpu": round(time.process_time() - began, 2)}
        with cache.open("a") as file:
            file.write(json.dumps(row) + "\n")
        print(probe.set_name, row["cpu"], os.getloadavg()[0], file=sys.stderr, flush=True)


def found(detector: Any, text: str, values: tuple[tuple[str, str, str], ...]) -> tuple[bool, list[tuple[str, bool]]]:
    """(flagged, [(kind, a word or the digits of the value inside a detected span)])."""
    result = detector.detect(text)
    spans = [text[e.start:e.end].lower() for e in result.entities]
    inside = {w for span in spans for w in _WORD.findall(span)}
    joined = "".join(spans)
    digits_found = re.sub(r"\D", "", joined)
    per_kind = []
    for kind, value, _said in values:
        digits = re.sub(r"\D", "", value)
        hit = (len(digits) >= 2 and digits in digits_found) or any(
            w in inside for w in _WORD.findall(value.lower()) if not w.isdigit())
        per_kind.append((kind, hit))
    return result.contains_phi, per_kind


def score(args: argparse.Namespace) -> dict[str, Any]:
    from voice_audio import sample_knowledge_base

    from voiceassist.speech import Transcript
    from voiceassist.speech.phi_doubt import detector_text, phi_doubted_words

    deps = sample_knowledge_base(args.data_dir)
    detector = deps.phi_detector
    rows = {json.loads(line)["key"]: json.loads(line) for line in (Path(args.out) / "decodes.jsonl").open()}
    tallies: dict[str, dict[str, Any]] = defaultdict(lambda: defaultdict(int))
    shown = []
    for name in args.sets:
        for probe in load(name, args.per_set)[args.skip:]:
            typed_flag, typed_kinds = found(detector, probe.typed, probe.values)
            for speaker in ("espeak", "piper"):
                row = rows.get(key(speaker, probe))
                if row is None:
                    continue
                transcript = Transcript.model_validate(row["transcript"])
                as_written, written_kinds = found(detector, transcript.text, probe.values)
                heard_flag, heard_kinds = found(detector, detector_text(transcript.text), probe.values)
                doubt = args.rule == "on" and not heard_flag and bool(phi_doubted_words(transcript, args.threshold))
                tally = tallies[f"{probe.set_name} {speaker}"]
                tally["questions"] += 1
                tally["typed"] += typed_flag
                tally["heard_as_written"] += as_written
                tally["heard"] += heard_flag
                tally["kept_in"] += heard_flag or doubt
                tally["kept_in_by_doubt_only"] += doubt
                for (kind, typed_hit), (_, written_hit), (_, heard_hit) in zip(
                        typed_kinds, written_kinds, heard_kinds, strict=True):
                    tally[f"{kind} values"] += 1
                    tally[f"{kind} typed"] += typed_hit
                    tally[f"{kind} heard_as_written"] += written_hit
                    tally[f"{kind} heard"] += heard_hit
                    tally[f"{kind} typed_kept_in"] += typed_flag
                    tally[f"{kind} kept_in_before"] += as_written  # the question routed in: the value with it
                    tally[f"{kind} kept_in"] += heard_flag or doubt
                if args.show and (probe.values and not (heard_flag or doubt) or not probe.values and (
                        heard_flag or doubt)):
                    shown.append({"set": name, "speaker": speaker, "heard": transcript.text,
                                  "words": [(w.word, round(w.confidence, 2)) for w in transcript.words]})
    for folder in args.cached:
        cached(Path(folder), detector, args, tallies, shown if args.show else None)
    return {"results": {k: dict(v) for k, v in tallies.items()}, "rule": args.rule, "shown": shown,
            "threshold": args.threshold, "load_average": os.getloadavg()}


def cached(folder: Path, detector: Any, args: argparse.Namespace, tallies: dict[str, dict[str, Any]],
           shown: list[Any] | None) -> None:
    """Spoken questions without PHI that bench/voice_decoding.py decoded (FOLDER/decoding-cache.jsonl, `--configs
    shipped`): the transcript as the route wrote it (`text`) and its words, as heard (`raw`) with their `confidences`
    (a row whose raw words and confidences do not pair one to one is counted as `unpaired` and left out)."""
    from voiceassist.speech import TranscribedWord, Transcript
    from voiceassist.speech.phi_doubt import detector_text, phi_doubted_words

    for line in (folder / "decoding-cache.jsonl").read_text().splitlines():
        row = json.loads(line)
        speaker = row["key"].split("|")[0]
        tally = tallies[f"{folder.name} {speaker}"]
        heard = row["raw"].split()
        if len(heard) != len(row.get("confidences") or []):
            tally["unpaired"] += 1
            continue
        words = [TranscribedWord(word=f" {w}", start=n, end=n + 0.5, confidence=p)
                 for n, (w, p) in enumerate(zip(heard, row["confidences"], strict=True))]
        transcript = Transcript(text=row["text"], language="en", duration_seconds=len(words) / 2.5,
                                confidence=0.5, words=words, engine="cache")
        flagged = detector.detect(detector_text(transcript.text)).contains_phi
        doubt = args.rule == "on" and not flagged and bool(phi_doubted_words(transcript, args.threshold))
        tally["questions"] += 1
        tally["heard_as_written"] += detector.detect(transcript.text).contains_phi
        tally["heard"] += flagged
        tally["kept_in"] += flagged or doubt
        tally["kept_in_by_doubt_only"] += doubt
        if shown is not None and (flagged or doubt):
            shown.append({"set": folder.name, "speaker": speaker, "heard": transcript.text,
                          "doubted": phi_doubted_words(transcript, args.threshold)})


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("command", choices=("decode", "score"))
    parser.add_argument("--sets", nargs="+", default=["phi", "records"])
    parser.add_argument("--per-set", type=int, default=30, help="questions per set (0: all)")
    parser.add_argument("--skip", type=int, default=0, help="leave out each set's first SKIP questions (a set's "
                        "questions after those a rule was tuned on)")
    parser.add_argument("--speaker", choices=("espeak", "piper"), default="espeak")
    parser.add_argument("--out", required=True, help="the folder of decodes.jsonl")
    parser.add_argument("--data-dir", help="the sample knowledge base's folder (default: a new temporary one)")
    parser.add_argument("--cached", nargs="*", default=[], help="bench/voice_decoding.py folders of spoken "
                        "questions without PHI, scored as well")
    parser.add_argument("--threshold", type=float, default=PHI_UNSURE_WORD, help="a word below this probability is "
                        "heard unsure (speech/phi_doubt.PHI_UNSURE_WORD)")
    parser.add_argument("--rule", choices=("on", "off"), default="on")
    parser.add_argument("--show", action="store_true", help="list the transcripts kept out with PHI, in without")
    args = parser.parse_args()
    if args.command == "decode":
        decode(args)
    else:
        print(json.dumps(score(args), indent=2))


if __name__ == "__main__":
    main()
