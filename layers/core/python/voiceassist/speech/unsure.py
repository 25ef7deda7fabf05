"""A spoken question as asked: the transcript's text, with the words the recognizer was unsure of.

Whisper gives each word a probability. A word heard below `UNSURE_WORD`, or one that is no word of any vocabulary the
system knows (`concepts.is_known`: the concept layer, English, the abbreviation list, the drug dictionary: "humbo",
"lyamadrenal"), goes with the question as `QueryRequest.possibly_misheard`. The answer gate
(query/misheard.py) may leave such a word out of its evidence judgment when no searched passage mentions it and
the question's other words are answered, and names it as possibly misheard, instead of refusing the whole question
on one word the speaker did not say. The words stay in the request only (PHI-capable, like the transcript): never
logged, never stored. Decision 0031, "Session 20".
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from voiceassist.models import MISHEARD_WORD_MAX_CHARS, MISHEARD_WORDS_MAX, QUESTION_MAX_CHARS, QueryRequest
from voiceassist.query import concepts
from voiceassist.speech.phi_doubt import detector_text, phi_doubted_words

if TYPE_CHECKING:  # Transcript lists its unsure words (speech.Transcript.possibly_misheard): no import cycle
    from voiceassist.speech import Transcript

# Measured on decodes of sets not tuned on (docs/benchmarks.md, "Voice", session 20): bench/voice_rescore.py
# --misheard P on blind18_spoken's decodes, both speakers.
UNSURE_WORD = 0.2
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")


def unsure_words(transcript: Transcript, threshold: float = UNSURE_WORD) -> list[str]:
    """The transcript's words heard below `threshold`, or known to no vocabulary, lower case, in order, once each.
    A word the recognizer wrote with a hyphen or an apostrophe is read in its parts as well ("-slash", "UCXR")."""
    unsure: list[str] = []
    for heard in transcript.words:
        for word in _WORD.findall(heard.word):
            parts = [p for p in re.split(r"[-']", word) if p]
            for part in dict.fromkeys([word.strip("-'"), *parts]):
                lowered = part.lower()
                if (lowered and lowered not in unsure and len(lowered) <= MISHEARD_WORD_MAX_CHARS
                        and (heard.confidence < threshold or not concepts.is_known(lowered))):
                    unsure.append(lowered)
    return unsure[:MISHEARD_WORDS_MAX]


def spoken_question(transcript: Transcript, session_id: str | None = None) -> QueryRequest:
    """The query a transcript asks (the voice routes' and the WebSocket's request): its text written as typed for the
    PHI detector (numbers as digits: speech/phi_doubt.detector_text), its unsure words, and those heard unsure where
    PHI sits (speech/phi_doubt.phi_doubted_words: the question is then routed as PHI), without the question marks
    that end it (`unmarked`)."""
    return QueryRequest(query=unmarked(detector_text(transcript.text))[:QUESTION_MAX_CHARS], session_id=session_id,
                        possibly_misheard=unsure_words(transcript), phi_unsure_words=phi_doubted_words(transcript))


def unmarked(text: str) -> str:
    """The text without the question marks that end it. Whisper ends a question with one whether or not it was
    asked as one; the clinician did not say it, and the answer gate reads it: the typed questions of eight spoken
    sets asked bare and with a "?" added answer 233 and 221 of 320 (docs/benchmarks.md, "Voice", session 20
    voice20b). Only the asked query loses it; the transcript shown and its words stay as heard."""
    stripped = text.rstrip()
    return stripped.rstrip("?").rstrip() or stripped
