"""Speech recognition on spoken clinical questions: word error rate overall and on drug names, PHI recall on the
transcripts, real-time factor; by voice, noise level and vocabulary. Prints JSON.

    .venv/bin/python bench/voice.py [--sets holdout concepts.heldout clinical phi] [--per-set 10]
        [--vocabulary none repair kb kb+repair] [--noise clean 20 10] [--voices 3] [--threads 2] [--data-dir DIR]

Each question of each set (bench/voice_audio.py says where they come from) is spoken by Debian's espeak-ng in
`--voices` of VOICES (American English at 165 words a minute, British at 135, a female American variant at 195),
mixed with white noise at each `--noise` level (clean, or the SNR in dB), and transcribed by the recognizer
/v1/voice uses (Whisper base, int8, beam 5, `--threads` threads). `--vocabulary kb` biases it as the route does
with VOICEASSIST_VOICE_VOCABULARY_TERMS=60,
with the prompt of the sample knowledge base (speech.vocabulary: its drug and condition names, ingested into
`--data-dir`, a fresh temporary folder by default); `none` is the unbiased recognizer; `repair` and `kb+repair`
repair the transcripts to the same terms (speech.repair; bench/voice_audio.RECOGNIZERS).

- WER: word-level Levenshtein distance / reference words (lower case, punctuation dropped, "2,000" -> "2000").
- Drug names: reference words that are drug names of the concept layer (terminology.drug_names, at least 4
  letters) and that the transcript has; `drug_accuracy` is their share.
- PHI recall (set `phi` only): the project's PHI detector (deps.phi_detector, as the query's Detect PHI step)
  on each transcript. `sentence`: share of probes it flags as PHI (so routed in-boundary); `values`: share of
  labelled PHI values with a word inside a detected span. The same on the typed text is the ceiling.
- Real-time factor: transcription seconds / audio seconds (lower is faster), wall clock and CPU seconds (the
  process's, all threads) per audio second; the load average is printed with them.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from typing import Any

from voice_audio import (
    NOISE_DB,
    RECOGNIZERS,
    VOICES,
    distance,
    load_set,
    recognizer,
    sample_knowledge_base,
    speakers,
    with_noise,
    words,
)

from voiceassist.adapters.local.whisper_stt import shared_model
from voiceassist.query.terminology import drug_names


def phi_values_found(detector: Any, text: str, values: tuple[str, ...]) -> tuple[bool, int]:
    """(the detector flags the text, how many labelled values have a word inside a detected span)."""
    result = detector.detect(text)
    flagged = {w for e in result.entities for w in words(text[e.start:e.end])}
    return result.contains_phi, sum(any(w in flagged for w in words(v)) for v in values)


class Tally:
    def __init__(self) -> None:
        self.errors = self.reference_words = self.drug_total = self.drug_right = 0
        self.phi_probes = self.phi_flagged = self.phi_values = self.phi_values_found = 0
        self.audio = self.wall = self.cpu = 0.0

    def report(self) -> dict[str, Any]:
        def share(part: int, whole: int) -> float | None:
            return round(part / whole, 4) if whole else None

        return {"wer": share(self.errors, self.reference_words), "words": self.reference_words,
                "drug_words": self.drug_total, "drug_accuracy": share(self.drug_right, self.drug_total),
                "phi_sentence_recall": share(self.phi_flagged, self.phi_probes),
                "phi_value_recall": share(self.phi_values_found, self.phi_values),
                "real_time_factor": round(self.wall / self.audio, 3) if self.audio else None,
                "cpu_seconds_per_audio_second": round(self.cpu / self.audio, 3) if self.audio else None}


def run(args: argparse.Namespace) -> dict[str, Any]:
    items = [spoken for name in args.sets for spoken in load_set(name, args.per_set)]
    drugs = {name for name in drug_names() if " " not in name and len(name) > 3}
    deps = sample_knowledge_base(args.data_dir)
    vocabulary = deps.speech_vocabulary  # the route's: its prompt, and its repair after the PHI check
    prompt = vocabulary.prompt()
    started = time.perf_counter()
    shared_model("int8", args.threads)
    load_seconds = time.perf_counter() - started
    recognizers = {kind: recognizer(kind, vocabulary, args.threads) for kind in args.vocabulary}
    noise = [None if level == "clean" else float(level) for level in args.noise]
    tallies: dict[str, Tally] = {}
    typed = Tally()
    for spoken in items:
        if spoken.phi_values:
            flagged, found = phi_values_found(deps.phi_detector, spoken.text, spoken.phi_values)
            typed.phi_probes, typed.phi_flagged = typed.phi_probes + 1, typed.phi_flagged + flagged
            typed.phi_values, typed.phi_values_found = typed.phi_values + len(spoken.phi_values), \
                typed.phi_values_found + found
    misheard: list[dict[str, str]] = []
    for voice, speaker in speakers(args.voices, args.piper):
        for number, spoken in enumerate(items):
            clean = speaker.synthesize(spoken.text)
            for level in noise:
                audio = with_noise(clean, level, seed=number)
                for biased in args.vocabulary:
                    keys = (f"vocabulary={biased}", f"vocabulary={biased} noise={level or 'clean'}",
                            f"vocabulary={biased} voice={voice}", f"vocabulary={biased} "
                            f"set={spoken.set_name}")
                    began, began_cpu = time.perf_counter(), time.process_time()
                    transcript = recognizers[biased].transcribe(audio)
                    wall, cpu = time.perf_counter() - began, time.process_time() - began_cpu
                    reference, heard = words(spoken.text), words(transcript.text)
                    wrong = distance(reference, heard)
                    said = [w for w in reference if w in drugs]
                    phi = phi_values_found(deps.phi_detector, transcript.text, spoken.phi_values) \
                        if spoken.phi_values else None
                    for key in keys:
                        tally = tallies.setdefault(key, Tally())
                        tally.errors += wrong
                        tally.reference_words += len(reference)
                        tally.drug_total += len(said)
                        tally.drug_right += sum(w in heard for w in said)
                        tally.audio, tally.wall, tally.cpu = (tally.audio + transcript.duration_seconds,
                                                              tally.wall + wall, tally.cpu + cpu)
                        if phi is not None:
                            tally.phi_probes += 1
                            tally.phi_flagged += phi[0]
                            tally.phi_values += len(spoken.phi_values)
                            tally.phi_values_found += phi[1]
                    if any(w not in heard for w in said) and len(misheard) < args.show:
                        misheard.append({"vocabulary": biased, "noise": str(level or "clean"), "voice": voice,
                                         "said": spoken.text, "heard": transcript.text})
    return {
        "sets": {name: sum(s.set_name == name for s in items) for name in args.sets},
        "voices": [voice for voice, _ in speakers(args.voices, args.piper)], "noise_snr_db": args.noise,
        "threads": args.threads, "initial_prompt": prompt, "model_load_seconds": round(load_seconds, 1),
        "phi_on_typed_text": {k: v for k, v in typed.report().items() if k.startswith("phi_")},
        "results": {key: tally.report() for key, tally in tallies.items()},
        "load_average": os.getloadavg(), "drug_names_misheard": misheard,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--sets", nargs="+", default=["holdout", "concepts.heldout", "clinical", "phi"])
    parser.add_argument("--per-set", type=int, default=10, help="questions per set (0: all)")
    parser.add_argument("--voices", type=int, default=len(VOICES), choices=range(1, len(VOICES) + 1))
    parser.add_argument("--piper", action="store_true", help="speak with the Piper voice (piper:joe, the "
                        "voice-bench extra) instead of espeak-ng: other test data")
    parser.add_argument("--noise", nargs="+", default=["clean" if n is None else str(int(n)) for n in NOISE_DB])
    parser.add_argument("--vocabulary", nargs="+", default=["none", "kb+repair"], choices=RECOGNIZERS)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--data-dir", help="the sample knowledge base's folder (default: a new temporary one)")
    parser.add_argument("--show", type=int, default=12, help="misheard drug names to list")
    print(json.dumps(run(parser.parse_args()), indent=2))


if __name__ == "__main__":
    main()
